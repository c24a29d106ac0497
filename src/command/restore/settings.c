/*
 * settings.c - the options of --copy-back and --move-back turned into a
 * restore_settings (see settings.h).
 */
#include "settings.h"

#include <string.h>

int restore_settings_resolve(const xb_options *o, bool move, restore_settings *s, xb_error *err)
{
	memset(s, 0, sizeof *s);
	s->move = move;
	s->dir = xb_opt_str(o, XB_OPT_TARGET_DIR);
	if (!s->dir)
		return xb_err_set(err, XB_E_USAGE, "%s needs --target-dir=DIR, the prepared backup to restore",
				  move ? "--move-back" : "--copy-back");
	s->force = xb_opt_bool(o, XB_OPT_FORCE_NON_EMPTY_DIRS);
	s->parallel = (int)xb_opt_int(o, XB_OPT_PARALLEL);
	s->progress = xb_opt_str(o, XB_OPT_PROGRESS);
	s->datadir = xb_opt_str(o, XB_OPT_DATADIR);
	s->data_home_dir = xb_opt_str(o, XB_OPT_INNODB_DATA_HOME_DIR);
	s->undo_dir = xb_opt_str(o, XB_OPT_INNODB_UNDO_DIRECTORY);
	s->log_dir = xb_opt_str(o, XB_OPT_INNODB_LOG_GROUP_HOME_DIR);
	s->aria_log_dir = xb_opt_str(o, XB_OPT_ARIA_LOG_DIR_PATH);
	s->data_file_path = xb_opt_str(o, XB_OPT_INNODB_DATA_FILE_PATH);
	s->bp_filename = xb_opt_str(o, XB_OPT_INNODB_BUFFER_POOL_FILENAME);
	s->bp_size = xb_opt_size(o, XB_OPT_INNODB_BUFFER_POOL_SIZE);
	s->bp_load_at_startup = xb_opt_bool(o, XB_OPT_INNODB_BUFFER_POOL_LOAD_AT_STARTUP);
	return 0;
}
