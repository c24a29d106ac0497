/*
 * settings.c - the options of --prepare turned into a prepare_settings (see
 * settings.h).
 */
#include "settings.h"

#include <string.h>
#include <unistd.h>

/* --parallel when given; else one thread per CPU, at most 8. */
static int threads_for(const xb_options *o)
{
	if (xb_opt_isset(o, XB_OPT_PARALLEL))
		return (int)xb_opt_int(o, XB_OPT_PARALLEL);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

int prepare_settings_resolve(const xb_options *o, prepare_settings *s, xb_error *err)
{
	memset(s, 0, sizeof *s);
	s->dir = xb_opt_str(o, XB_OPT_TARGET_DIR);
	if (!s->dir)
		return xb_err_set(err, XB_E_USAGE, "--prepare needs --target-dir=DIR, the backup to prepare");
	s->inc_dir = xb_opt_str(o, XB_OPT_INCREMENTAL_DIR);
	s->threads = threads_for(o);
	s->use_memory = (size_t)xb_opt_size(o, XB_OPT_USE_MEMORY);
	s->durable = xb_opt_bool(o, XB_OPT_PREPARE_FSYNC);
	s->progress = xb_opt_str(o, XB_OPT_PROGRESS);
	s->stats_file = xb_opt_str(o, XB_OPT_STATS_FILE);
	s->export_tables = xb_opt_bool(o, XB_OPT_EXPORT);
	s->mariadbd = xb_opt_str(o, XB_OPT_MARIADBD);
	s->export_timeout = (unsigned)xb_opt_int(o, XB_OPT_EXPORT_TIMEOUT);
	s->tmpdir = xb_opt_str(o, XB_OPT_TMPDIR);
	/* what a prepare can do without giving up the backup's consistency
	 * (mariabackup's limit too): 1, damaged pages left as copied; the higher
	 * levels skip undo or redo, which a backup cannot do without */
	long long force = xb_opt_int(o, XB_OPT_INNODB_FORCE_RECOVERY);
	s->force_recovery = force > 1 ? 1 : (int)force;
	s->force_limited = force > 1;
	static const xb_opt_id filters[] = {XB_OPT_DATABASES, XB_OPT_DATABASES_FILE, XB_OPT_DATABASES_EXCLUDE,
					    XB_OPT_TABLES,    XB_OPT_TABLES_FILE,    XB_OPT_TABLES_EXCLUDE};
	for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++)
		s->partial |= xb_opt_isset(o, filters[i]);
	return 0;
}
