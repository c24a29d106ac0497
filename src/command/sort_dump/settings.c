/*
 * settings.c - the options of --sort-dump turned into a sort_dump_settings
 * (see settings.h).
 */
#include "settings.h"

#include <string.h>

#include "innodb/bpdump.h"

int sort_dump_settings_resolve(const xb_options *o, sort_dump_settings *s, xb_error *err)
{
	memset(s, 0, sizeof *s);
	s->input = xb_opt_str(o, XB_OPT_DUMP_INPUT);
	s->output = xb_opt_str(o, XB_OPT_DUMP_OUTPUT);
	/* only a --target-dir given: mariabackup's default backup directory is no backup to check against */
	s->backup = xb_opt_isset(o, XB_OPT_TARGET_DIR) ? xb_opt_str(o, XB_OPT_TARGET_DIR) : NULL;
	if (!s->input) {
		xb_err_set(err, XB_E_USAGE, "--sort-dump needs --dump-input=FILE");
		return xb_err_hint(err, "e.g. xtrabackup --sort-dump --dump-input=ib_lru_dump --dump-output=ib_buffer_pool");
	}
	s->format = !strcmp(xb_opt_str(o, XB_OPT_DUMP_FORMAT), BP_LRU_NAME) ? BP_FORMAT_LRU : BP_FORMAT_TEXT;
	return 0;
}
