/*
 * settings.c - the options of --backup turned into a backup_settings (see
 * settings.h): the connection, the server layout given on the command line,
 * the copy, the locks, the metadata (--history too) and the base of an
 * incremental backup (--incremental-*, of which at most one). The target has its own resolver in
 * target.c, called from here.
 */
#include "settings.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "command/conn_settings.h"
#include "common/log.h"
#include "platform/ioprio.h"

/* The lock timeouts: --lock-wait-timeout for every stage, BACKUP STAGE START's
 * own from --startup-wait-timeout or its older name --ftwrl-wait-timeout; the
 * options mariabackup 10.11 keeps but ignores are ignored here too, and
 * --lock-ddl-per-table, which we do not need, with one line each (OF_COMPAT in
 * options.def). */
static void lock_settings(const xb_options *o, backup_settings *s)
{
	s->lock_wait_timeout = (long)xb_opt_int(o, XB_OPT_LOCK_WAIT_TIMEOUT);
	xb_opt_id start = xb_opt_isset(o, XB_OPT_STARTUP_WAIT_TIMEOUT) ? XB_OPT_STARTUP_WAIT_TIMEOUT : XB_OPT_FTWRL_WAIT_TIMEOUT;
	s->start_wait_timeout = (long)xb_opt_int(o, start);
	s->start_wait_option = xb_opt_name(start);
	static const struct {
		xb_opt_id id;    /* the option */
		const char *why; /* why it has no effect */
	} ignored[] = {
		{XB_OPT_FTWRL_WAIT_THRESHOLD, "no effect with BACKUP STAGE locks (mariabackup 10.11 ignores it too)"},
		{XB_OPT_FTWRL_WAIT_QUERY_TYPE, "no effect with BACKUP STAGE locks (mariabackup 10.11 ignores it too)"},
		{XB_OPT_KILL_LONG_QUERIES_TIMEOUT, "no effect with BACKUP STAGE locks (mariabackup 10.11 ignores it too)"},
		{XB_OPT_KILL_LONG_QUERY_TYPE, "no effect with BACKUP STAGE locks (mariabackup 10.11 ignores it too)"},
		{XB_OPT_LOCK_DDL_PER_TABLE, "not needed: DDL during the copy is reconciled under BACKUP STAGE BLOCK_DDL, no table needs its own lock"},
	};
	for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
		if (xb_opt_isset(o, ignored[i].id))
			xb_info("Ignored option --%s: %s", xb_opt_name(ignored[i].id), ignored[i].why);
}

/* A server-layout option given on the command line wins over the server's answer. */
static const char *user_override(const xb_options *o, xb_opt_id id)
{
	if (!xb_opt_isset(o, id) || strcmp(o->src[id], "command line"))
		return NULL;
	return xb_opt_str(o, id);
}

/* The base of an incremental backup: at most one of the four options; an
 * LSN is a decimal number. */
static int incremental_settings_resolve(const xb_options *o, backup_settings *s, xb_error *err)
{
	incremental_settings *in = &s->inc;
	static const xb_opt_id base[] = {XB_OPT_INCREMENTAL_BASEDIR, XB_OPT_INCREMENTAL_LSN,
					 XB_OPT_INCREMENTAL_HISTORY_NAME, XB_OPT_INCREMENTAL_HISTORY_UUID};
	char given[256] = "";
	int n = 0;
	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
		if (xb_opt_isset(o, base[i])) {
			size_t l = strlen(given);
			snprintf(given + l, sizeof given - l, "%s--%s", n++ ? " and " : "", xb_opt_name(base[i]));
		}
	if (n > 1) {
		xb_err_set(err, XB_E_USAGE, "%s exclude each other: an incremental backup has one base", given);
		return xb_err_hint(err, "give one of --incremental-basedir, --incremental-lsn, "
				   "--incremental-history-name, --incremental-history-uuid");
	}
	s->incremental = n == 1;
	in->force_scan = xb_opt_bool(o, XB_OPT_INCREMENTAL_FORCE_SCAN);
	in->basedir = xb_opt_isset(o, XB_OPT_INCREMENTAL_BASEDIR) ? xb_opt_str(o, XB_OPT_INCREMENTAL_BASEDIR) : NULL;
	in->history_name = xb_opt_isset(o, XB_OPT_INCREMENTAL_HISTORY_NAME) ? xb_opt_str(o, XB_OPT_INCREMENTAL_HISTORY_NAME)
									       : NULL;
	in->history_uuid = xb_opt_isset(o, XB_OPT_INCREMENTAL_HISTORY_UUID) ? xb_opt_str(o, XB_OPT_INCREMENTAL_HISTORY_UUID)
									       : NULL;
	if (xb_opt_isset(o, XB_OPT_INCREMENTAL_LSN)) {
		const char *t = xb_opt_str(o, XB_OPT_INCREMENTAL_LSN);
		in->lsn_text = t ? t : "";
		in->have_lsn = true;
		unsigned long long v = 0;
		bool ok = *in->lsn_text != '\0';
		for (const char *p = in->lsn_text; ok && *p; p++) {
			unsigned d = (unsigned)(*p - '0');
			ok = d <= 9 && v <= (ULLONG_MAX - d) / 10;
			v = v * 10 + d;
		}
		if (!ok) {
			xb_err_set(err, XB_E_USAGE, "--incremental-lsn=%s (%s) is not an LSN", in->lsn_text,
				   o->src[XB_OPT_INCREMENTAL_LSN]);
			return xb_err_hint(err, "give a decimal LSN, e.g. the to_lsn of the base backup's "
					   "xtrabackup_checkpoints, or use --incremental-basedir=DIR");
		}
		in->lsn = v;
	}
	if (in->force_scan && !s->incremental)
		xb_info("Ignored option --incremental-force-scan: this is not an incremental backup");
	return 0;
}

int backup_settings_resolve(const xb_options *o, backup_settings *s, xb_error *err)
{
	memset(s, 0, sizeof *s);
	int rc = target_resolve(o, &s->target, err);
	if (rc)
		return rc;
	if (xb_opt_isset(o, XB_OPT_DECOMPRESS) || xb_opt_isset(o, XB_OPT_DECRYPT))
		return xb_err_set(err, XB_E_USAGE, "--decompress and --decrypt work on a backup, not with --backup");
	/* innodb_log_write_ahead_size has no effect on a backup, but mariabackup
	 * checks it as its InnoDB does at startup: adjusted into 512..4096, and
	 * refused (status 1, not a getopt status) when not a power of two */
	long long wa = xb_opt_int(o, XB_OPT_INNODB_LOG_WRITE_AHEAD_SIZE);
	if (wa < 512 || wa > 4096) {
		xb_warn("innodb_log_write_ahead_size=%lld (%s) adjusted to %d", wa,
			o->src[XB_OPT_INNODB_LOG_WRITE_AHEAD_SIZE], wa < 512 ? 512 : 4096);
	} else if (wa & (wa - 1)) {
		xb_err_set(err, XB_E_USAGE, "innodb_log_write_ahead_size=%lld (%s) is not a power of two", wa,
			   o->src[XB_OPT_INNODB_LOG_WRITE_AHEAD_SIZE]);
		return xb_err_hint(err, "use 512, 1024, 2048 or 4096");
	}
	if (xb_opt_int(o, XB_OPT_INNODB_FORCE_RECOVERY))
		return xb_err_set(err, XB_E_USAGE,
				  "the option \"innodb_force_recovery\" should only be used with \"--prepare\" (%s)",
				  o->src[XB_OPT_INNODB_FORCE_RECOVERY]),
		       xb_err_hint(err, "a backup reads a running server; leave innodb_force_recovery to the prepare");
	conn_settings_resolve(o, &s->conn);
	s->datadir = user_override(o, XB_OPT_DATADIR);
	s->data_home_dir = user_override(o, XB_OPT_INNODB_DATA_HOME_DIR);
	s->undo_dir = user_override(o, XB_OPT_INNODB_UNDO_DIRECTORY);
	s->log_dir = user_override(o, XB_OPT_INNODB_LOG_GROUP_HOME_DIR);
	innodb_cnf_settings *ic = &s->innodb_cnf;
	ic->data_file_path = xb_opt_str(o, XB_OPT_INNODB_DATA_FILE_PATH);
	ic->checksum_algorithm = xb_opt_str(o, XB_OPT_INNODB_CHECKSUM_ALGORITHM);
	ic->page_size = xb_opt_isset(o, XB_OPT_INNODB_PAGE_SIZE) ? xb_opt_size(o, XB_OPT_INNODB_PAGE_SIZE) : 0;
	ic->log_file_size = xb_opt_isset(o, XB_OPT_INNODB_LOG_FILE_SIZE) ? xb_opt_size(o, XB_OPT_INNODB_LOG_FILE_SIZE) : 0;
	ic->undo_tablespaces =
		xb_opt_isset(o, XB_OPT_INNODB_UNDO_TABLESPACES) ? (int)xb_opt_int(o, XB_OPT_INNODB_UNDO_TABLESPACES) : 0;
	ic->compression_level =
		xb_opt_isset(o, XB_OPT_INNODB_COMPRESSION_LEVEL) ? (int)xb_opt_int(o, XB_OPT_INNODB_COMPRESSION_LEVEL) : -1;
	s->parallel = (int)xb_opt_int(o, XB_OPT_PARALLEL);
	long long throttle = xb_opt_int(o, XB_OPT_THROTTLE);
	s->throttle = throttle > 0 ? (unsigned)throttle : 0;
	s->pace = !strcmp(xb_opt_str(o, XB_OPT_PACE), "auto");
	s->io_priority = xb_opt_str(o, XB_OPT_IO_PRIORITY);
	s->io_class = !strcmp(s->io_priority, "idle")     ? XB_IOPRIO_IDLE
		      : !strcmp(s->io_priority, "normal") ? XB_IOPRIO_NORMAL
							  : XB_IOPRIO_LOW;
	s->progress = xb_opt_str(o, XB_OPT_PROGRESS);
	s->log_copy_interval = (unsigned)xb_opt_int(o, XB_OPT_LOG_COPY_INTERVAL);
	s->checkpoint_now = xb_opt_bool(o, XB_OPT_INNODB_LOG_CHECKPOINT_NOW);
	s->no_lock = xb_opt_bool(o, XB_OPT_NO_LOCK);
	lock_settings(o, s);
	s->slave_info = xb_opt_bool(o, XB_OPT_SLAVE_INFO);
	s->safe_slave_backup = xb_opt_bool(o, XB_OPT_SAFE_SLAVE_BACKUP);
	s->safe_slave_timeout = (long)xb_opt_int(o, XB_OPT_SAFE_SLAVE_BACKUP_TIMEOUT);
	s->galera_info = xb_opt_bool(o, XB_OPT_GALERA_INFO);
	s->open_files_limit = (long)xb_opt_int(o, XB_OPT_OPEN_FILES_LIMIT);
	const char *bi = xb_opt_str(o, XB_OPT_BINLOG_INFO);
	s->binlog_info = !bi || *bi == '\0' || (strcasecmp(bi, "off") && strcmp(bi, "0"));
	s->check_privileges = xb_opt_bool(o, XB_OPT_CHECK_PRIVILEGES);
	s->bp_dump = xb_opt_bool(o, XB_OPT_DUMP_INNODB_BUFFER_POOL);
	s->bp_dump_pct = xb_opt_int(o, XB_OPT_DUMP_INNODB_BUFFER_POOL_PCT);
	s->bp_dump_timeout = xb_opt_int(o, XB_OPT_DUMP_INNODB_BUFFER_POOL_TIMEOUT);
	s->extra_lsndir = xb_opt_str(o, XB_OPT_EXTRA_LSNDIR);
	s->tool_command = o->tool_command;
	tablefilter_settings *f = &s->filter;
	f->databases = xb_opt_isset(o, XB_OPT_DATABASES) ? xb_opt_str(o, XB_OPT_DATABASES) : NULL;
	f->databases_file = xb_opt_isset(o, XB_OPT_DATABASES_FILE) ? xb_opt_str(o, XB_OPT_DATABASES_FILE) : NULL;
	f->databases_exclude = xb_opt_isset(o, XB_OPT_DATABASES_EXCLUDE) ? xb_opt_str(o, XB_OPT_DATABASES_EXCLUDE) : NULL;
	f->tables = xb_opt_isset(o, XB_OPT_TABLES) ? xb_opt_str(o, XB_OPT_TABLES) : NULL;
	f->tables_file = xb_opt_isset(o, XB_OPT_TABLES_FILE) ? xb_opt_str(o, XB_OPT_TABLES_FILE) : NULL;
	f->tables_exclude = xb_opt_isset(o, XB_OPT_TABLES_EXCLUDE) ? xb_opt_str(o, XB_OPT_TABLES_EXCLUDE) : NULL;
	s->history = xb_opt_isset(o, XB_OPT_HISTORY);
	s->history_name = s->history ? xb_opt_str(o, XB_OPT_HISTORY) : "";
	return incremental_settings_resolve(o, s, err);
}
