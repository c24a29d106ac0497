/*
 * settings.c - the options of --restore-tables turned into a
 * restore_tables_settings (see settings.h). The connection is --backup's;
 * only the answer's time limit differs: an IMPORT of a large tablespace
 * works for as long as its pages take, so no read timeout cuts it off (waits
 * for locks are bounded by the session's lock_wait_timeout instead).
 */
#include "settings.h"

#include <string.h>

#include "command/conn_settings.h"

int restore_tables_settings_resolve(const xb_options *o, restore_tables_settings *s, xb_error *err)
{
	memset(s, 0, sizeof *s);
	static const xb_opt_id foreign[] = {XB_OPT_STREAM, XB_OPT_INCREMENTAL_DIR, XB_OPT_INCREMENTAL_BASEDIR,
					    XB_OPT_DECOMPRESS, XB_OPT_DECRYPT};
	for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
		if (xb_opt_isset(o, foreign[i]) && strcmp(o->val[foreign[i]], "0"))
			return xb_err_set(err, XB_E_USAGE, "--%s has no meaning with --restore-tables (%s)",
					  xb_opt_name(foreign[i]), o->src[foreign[i]]);
	if (!xb_opt_isset(o, XB_OPT_TARGET_DIR))
		return xb_err_set(err, XB_E_USAGE, "--restore-tables needs --target-dir: the exported backup"),
		       xb_err_hint(err, "e.g. xtrabackup --restore-tables=shop.orders --target-dir=/backups/full");
	s->dir = xb_opt_str(o, XB_OPT_TARGET_DIR);
	s->tables = xb_opt_str(o, XB_OPT_RESTORE_TABLES);
	s->renames = xb_opt_isset(o, XB_OPT_RENAME) ? xb_opt_str(o, XB_OPT_RENAME) : NULL;
	s->lock_wait_timeout = (long)xb_opt_int(o, XB_OPT_LOCK_WAIT_TIMEOUT);
	conn_settings_resolve(o, &s->conn);
	s->conn.read_timeout = 0;
	return 0;
}
