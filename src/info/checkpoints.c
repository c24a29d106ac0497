/*
 * checkpoints.c - read and write xtrabackup_checkpoints (see checkpoints.h).
 *
 * Reading is lenient about order and unknown keys, as mariabackup's reader
 * is about the optional ones; writing replaces the file atomically.
 */
#include "info/checkpoints.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A backup taken with --compress or --encrypt must be decoded before it is
 * used: its top directory then holds ib_logfile0.zst, *.xbcrypt and so on. */
static int check_decoded(const char *dir, xb_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	bool zst = false, enc = false;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		enc |= n > 8 && !strcmp(e->d_name + n - 8, ".xbcrypt");
		zst |= (n > 4 && !strcmp(e->d_name + n - 4, ".zst")) || (n > 12 && !strcmp(e->d_name + n - 12, ".zst.xbcrypt"));
	}
	closedir(d);
	if (enc)
		return xb_err_set(err, XB_E_MISSING_FILE, "%s holds encrypted files (*.xbcrypt): decrypt it first", dir),
		       xb_err_hint(err, "xtrabackup --decrypt=AES256 --encrypt-key-file=FILE%s --target-dir=%s --remove-original",
				   zst ? " --decompress" : "", dir);
	if (zst)
		return xb_err_set(err, XB_E_MISSING_FILE, "%s holds compressed files (*.zst): decompress it first", dir),
		       xb_err_hint(err, "xtrabackup --decompress --target-dir=%s --remove-original", dir);
	return 0;
}

int xb_checkpoints_read(const char *dir, xb_checkpoints *c, xb_error *err)
{
	char path[4096];
	int rc = check_decoded(dir, err);
	if (rc)
		return rc;
	snprintf(path, sizeof path, "%s/%s", dir, XB_CHECKPOINTS_FILE);
	FILE *f = fopen(path, "r");
	if (!f) {
		xb_err_set(err, XB_E_TARGET, "%s is not a backup: cannot open %s: %s", dir, path, strerror(errno));
		return xb_err_hint(err, "give the directory a backup was taken into with --target-dir");
	}
	memset(c, 0, sizeof *c);
	char line[512];
	int seen = 0;
	while (fgets(line, sizeof line, f)) {
		char key[64], val[128];
		if (sscanf(line, " %63[a-z_] = %127s", key, val) != 2)
			continue;
		if (!strcmp(key, "backup_type"))
			seen |= 1, snprintf(c->backup_type, sizeof c->backup_type, "%s", val);
		else if (!strcmp(key, "from_lsn"))
			seen |= 2, c->from_lsn = strtoull(val, NULL, 10);
		else if (!strcmp(key, "to_lsn"))
			seen |= 4, c->to_lsn = strtoull(val, NULL, 10);
		else if (!strcmp(key, "last_lsn"))
			c->has_last = true, c->last_lsn = strtoull(val, NULL, 10);
		else if (!strcmp(key, "recover_binlog_info"))
			c->recover_binlog_info = atoi(val);
	}
	fclose(f);
	if (seen != 7)
		return xb_err_set(err, XB_E_TARGET, "%s is incomplete (backup_type, from_lsn, to_lsn expected)", path);
	return 0;
}

int xb_checkpoints_write(const char *dir, const xb_checkpoints *c, xb_error *err)
{
	char path[4096], tmp[4200], text[512];
	snprintf(path, sizeof path, "%s/%s", dir, XB_CHECKPOINTS_FILE);
	snprintf(tmp, sizeof tmp, "%s.xbtmp", path);
	int n = snprintf(text, sizeof text,
			 "backup_type = %s\nfrom_lsn = %llu\nto_lsn = %llu\nlast_lsn = %llu\n"
			 "recover_binlog_info = %d\n",
			 c->backup_type, c->from_lsn, c->to_lsn, c->last_lsn, c->recover_binlog_info);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	int rc = 0;
	if (fd < 0 || write(fd, text, (size_t)n) != n || fsync(fd))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", tmp, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!rc && rename(tmp, path))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s: %s", tmp, strerror(errno));
	int dfd = rc ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return rc;
}
