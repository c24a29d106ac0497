/*
 * param.c - --print-param: the server options a restore needs, printed as an
 * option file on stdout.
 *
 * A DBA (or an old script) pipes this into the restored server's option file:
 * the datadir and the InnoDB directories and files as this run sees them
 * (command line, then option files), the same settings --copy-back uses to
 * decide where each file of a backup goes. Unset directories are left out:
 * the server then uses its datadir, as --copy-back does.
 */
#include <stdio.h>

#include "command/command.h"
#include "settings.h"

static void param(const char *name, const char *value)
{
	if (value && *value)
		printf("%s=%s\n", name, value);
}

int cmd_print_param(const xb_options *o, xb_error *err)
{
	restore_settings s;
	int rc = restore_settings_resolve(o, false, &s, err);
	if (rc)
		return rc;
	printf("# options for the restored server, printed by xtrabackup --print-param\n[mysqld]\n");
	param("datadir", s.datadir);
	param("innodb_data_home_dir", s.data_home_dir);
	param("innodb_data_file_path", s.data_file_path);
	param("innodb_log_group_home_dir", s.log_dir);
	param("innodb_undo_directory", s.undo_dir);
	param("aria_log_dir_path", s.aria_log_dir);
	return fflush(stdout) ? xb_err_set(err, XB_E_IO_WRITE, "writing to standard output failed") : 0;
}
