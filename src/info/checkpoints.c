/*
 * checkpoints.c - read and write xtrabackup_checkpoints (see checkpoints.h).
 *
 * Reading is lenient about order, blank lines and unknown keys, as
 * mariabackup's reader is about the optional ones, and strict about the
 * rest: a line that is not "key = value" or a number that is not one is
 * refused with its line number. One formatter serves the backup's writer
 * (into a sink) and the prepare's rewrite (in place, atomically).
 */
#include "info/checkpoints.h"

#include <dirent.h>
#include <limits.h>
#include <string.h>

/* A backup taken with --compress or --encrypt must be decoded before it is
 * used: its top directory then holds ib_logfile0.zst, *.xbcrypt and so on,
 * or ib_logfile0.qp and the like when mariabackup --compress took it. */
static int check_decoded(const char *dir, xb_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	bool zst = false, enc = false, qp = false;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		enc |= n > 8 && !strcmp(e->d_name + n - 8, ".xbcrypt");
		zst |= (n > 4 && !strcmp(e->d_name + n - 4, ".zst")) || (n > 12 && !strcmp(e->d_name + n - 12, ".zst.xbcrypt"));
		qp |= n > 3 && !strcmp(e->d_name + n - 3, ".qp");
	}
	closedir(d);
	if (enc)
		return xb_err_set(err, XB_E_MISSING_FILE, "%s holds encrypted files (*.xbcrypt): decrypt it first", dir),
		       xb_err_hint(err, "xtrabackup --decrypt=AES256 --encrypt-key-file=FILE%s --target-dir=%s --remove-original",
				   zst ? " --decompress" : "", dir);
	if (zst)
		return xb_err_set(err, XB_E_MISSING_FILE, "%s holds compressed files (*.zst): decompress it first", dir),
		       xb_err_hint(err, "xtrabackup --decompress --target-dir=%s --remove-original", dir);
	if (qp)
		return xb_err_set(err, XB_E_MISSING_FILE,
				  "%s holds compressed files (*.qp, mariabackup --compress): decompress it first", dir),
		       xb_err_hint(err, "xtrabackup --decompress --target-dir=%s --remove-original", dir);
	return 0;
}

void xb_checkpoints_format(const xb_checkpoints *c, xb_text *t)
{
	xb_text_add(t, "backup_type = %s\nfrom_lsn = %llu\nto_lsn = %llu\nlast_lsn = %llu\nrecover_binlog_info = %d\n",
		    c->backup_type, c->from_lsn, c->to_lsn, c->last_lsn, c->recover_binlog_info);
}

int xb_checkpoints_rewrite(const char *dir, const xb_checkpoints *c, xb_error *err)
{
	xb_text t = {0};
	xb_checkpoints_format(c, &t);
	int rc = xb_metafile_rewrite(dir, XB_CHECKPOINTS_FILE, &t, err);
	xb_text_free(&t);
	return rc;
}

/* What the reader fills. */
typedef struct reading {
	xb_checkpoints *c; /* the values */
	int seen;          /* bits of the required keys met */
} reading;

static bool take(xb_span key, xb_span val, void *ctx)
{
	reading *r = ctx;
	xb_checkpoints *c = r->c;
	uint64_t v = 0;
	if (xb_span_is(key, "backup_type")) {
		r->seen |= 1;
		return val.n && xb_span_copy(val, c->backup_type, sizeof c->backup_type);
	}
	bool ok = xb_span_u64(val, &v);
	if (xb_span_is(key, "from_lsn"))
		r->seen |= 2, c->from_lsn = v;
	else if (xb_span_is(key, "to_lsn"))
		r->seen |= 4, c->to_lsn = v;
	else if (xb_span_is(key, "last_lsn"))
		c->has_last = true, c->last_lsn = v;
	else if (xb_span_is(key, "recover_binlog_info"))
		ok = ok && v <= INT_MAX, c->recover_binlog_info = (int)v;
	else
		ok = true; /* a key of another tool */
	return ok;
}

int xb_checkpoints_read(const char *dir, xb_checkpoints *c, xb_error *err)
{
	int rc = check_decoded(dir, err);
	return rc ? rc : xb_checkpoints_read_lsns(dir, c, err);
}

int xb_checkpoints_read_lsns(const char *dir, xb_checkpoints *c, xb_error *err)
{
	int rc;
	memset(c, 0, sizeof *c);
	xb_error e;
	xb_err_clear(&e);
	reading r = {c, 0};
	rc = xb_metafile_load_kv(dir, XB_CHECKPOINTS_FILE, XB_E_TARGET, take, &r, &e);
	if (rc == XB_E_MISSING_FILE || rc == XB_E_IO_READ) {
		xb_err_set(err, XB_E_TARGET, "%s is not a backup: %s", dir, e.msg);
		return xb_err_hint(err, "give the directory a backup was taken into with --target-dir");
	}
	if (rc && err)
		*err = e;
	if (!rc && r.seen != 7)
		rc = xb_err_set(err, XB_E_TARGET, "%s/%s is incomplete (backup_type, from_lsn, to_lsn expected)", dir,
				XB_CHECKPOINTS_FILE);
	if (rc)
		xb_err_hint(err, "the backup's completion marker is damaged: put back %s from another copy of this "
			    "backup, or take a new backup", XB_CHECKPOINTS_FILE);
	return rc;
}
