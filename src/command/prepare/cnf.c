/*
 * cnf.c - the settings of backup-my.cnf that --prepare needs, with a
 * check of the server's defaults where the file does not give them.
 *
 * The file (info/backup_cnf.h) records innodb_page_size,
 * innodb_data_file_path and innodb_compression_level. When it is missing,
 * cannot be parsed or lacks one of them, the prepare warns, naming the file
 * and what was wrong, and uses the server's default for each setting
 * missing, but only after checking that the backup fits it
 * (innodb/inventory.h: inv_backup_check_defaults(), which reads page 0 and
 * the size of ibdata1): a backup of a server with other pages or another
 * system tablespace is refused, before anything is changed, with the
 * setting that is needed and how to supply it.
 * Also whether xtrabackup_info says the backup is partial: its recovery then
 * expects tablespaces without a file.
 */
#include "prepare_int.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/path.h"
#include "info/backup_cnf.h"
#include "info/xbinfo.h"
#include "innodb/inventory.h"

int prepare_backup_cnf(const char *dir, char **data_file_path, int *level, xb_error *err)
{
	xb_backup_cnf cnf;
	xb_error rerr = {0};
	char path[4096];
	int rc = xb_path_join(path, sizeof path, dir, XB_BACKUP_CNF_FILE, err);
	if (rc)
		return rc;
	bool read_ok = !xb_backup_cnf_read(dir, &cnf, &rerr);
	if (!read_ok) {
		memset(&cnf, 0, sizeof cnf);
		xb_warn("%s: the server's defaults are used for innodb_page_size, innodb_data_file_path and "
			"innodb_compression_level",
			rerr.msg);
	} else {
		char missing[200] = "";
		static const struct {
			unsigned bit;
			const char *name;
		} need[] = {{XB_CNF_PAGE_SIZE, "innodb_page_size"},
			    {XB_CNF_DATA_FILE_PATH, "innodb_data_file_path"},
			    {XB_CNF_COMPRESSION_LEVEL, "innodb_compression_level"}};
		for (size_t i = 0; i < sizeof need / sizeof *need; i++)
			if (!(cnf.have & need[i].bit))
				snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
					 *missing ? ", " : "", need[i].name);
		if (*missing)
			xb_warn("%s has no %s in its [mysqld] group: the server's default is used", path, missing);
	}
	bool no_ps = !(cnf.have & XB_CNF_PAGE_SIZE), no_dfp = !(cnf.have & XB_CNF_DATA_FILE_PATH);
	if ((no_ps || no_dfp) && (rc = inv_backup_check_defaults(dir, no_ps, no_dfp, err))) {
		if (rc != XB_E_CONFIG)
			return rc;
		xb_err_prefix(err, "%s %s and the server's default does not fit this backup", path,
			      read_ok ? "lacks a setting" : rerr.code == XB_E_MISSING_FILE ? "is missing" : "cannot be read");
		return xb_err_hint(err, "restore %s from the original backup (or write the setting named above under "
					"[mysqld] in it) and run --prepare again",
				   XB_BACKUP_CNF_FILE);
	}
	if (!no_dfp && !(*data_file_path = strdup(cnf.data_file_path)))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	if ((cnf.have & XB_CNF_COMPRESSION_LEVEL) && cnf.compression_level >= 1 && cnf.compression_level <= 9)
		*level = cnf.compression_level;
	return 0;
}

bool prepare_backup_partial(const char *dir)
{
	xb_xbinfo x;
	xb_error ignore;
	bool partial = xb_xbinfo_read(dir, &x, &ignore) == 0 && x.partial;
	xb_xbinfo_free(&x);
	return partial;
}
