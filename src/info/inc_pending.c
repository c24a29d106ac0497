/*
 * inc_pending.c - xtrabackup_incremental_pending (see inc_pending.h): a
 * "key = value" file written and read with the metafile helpers.
 */
#include "info/inc_pending.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/path.h"
#include "info/metafile.h"
#include "platform/file.h"

int xb_inc_pending_write(const char *dir, const xb_inc_pending *p, xb_error *err)
{
	xb_text t = {0};
	xb_text_add(&t, "incremental_dir = %s\nfrom_lsn = %llu\nto_lsn = %llu\n", p->inc_dir, p->from_lsn, p->to_lsn);
	if (p->done)
		xb_text_add(&t, "done = 1\nlast_lsn = %llu\n", p->last_lsn);
	int rc = xb_metafile_rewrite(dir, XB_INC_PENDING_FILE, &t, err);
	xb_text_free(&t);
	return rc;
}

static bool take(xb_span key, xb_span val, void *value)
{
	xb_inc_pending *p = value;
	uint64_t n;
	if (xb_span_is(key, "incremental_dir"))
		return xb_span_copy(val, p->inc_dir, sizeof p->inc_dir);
	if (xb_span_is(key, "from_lsn"))
		return xb_span_u64(val, &n) && (p->from_lsn = n, true);
	if (xb_span_is(key, "to_lsn"))
		return xb_span_u64(val, &n) && (p->to_lsn = n, true);
	if (xb_span_is(key, "last_lsn"))
		return xb_span_u64(val, &n) && (p->last_lsn = n, true);
	if (xb_span_is(key, "done"))
		return xb_span_u64(val, &n) && (p->done = n == 1, true);
	return true;
}

int xb_inc_pending_read(const char *dir, xb_inc_pending *p, bool *found, xb_error *err)
{
	memset(p, 0, sizeof *p);
	*found = false;
	char path[4096];
	int rc = xb_path_join(path, sizeof path, dir, XB_INC_PENDING_FILE, err);
	if (rc)
		return rc;
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	rc = xb_metafile_load_kv(dir, XB_INC_PENDING_FILE, XB_E_TARGET, take, p, err);
	if (rc)
		return rc;
	*found = true;
	if (!p->inc_dir[0] || !p->to_lsn)
		return xb_err_set(err, XB_E_TARGET, "%s: incremental_dir and to_lsn expected", path);
	return 0;
}

int xb_inc_pending_remove(const char *dir, xb_error *err)
{
	return xb_metafile_remove(dir, XB_INC_PENDING_FILE, true, err);
}

int xb_inc_pending_refuse(const char *dir, const char *command, xb_error *err)
{
	xb_inc_pending p;
	bool found;
	int rc = xb_inc_pending_read(dir, &p, &found, err);
	if (rc || !found)
		return rc;
	xb_err_set(err, XB_E_NOT_PREPARED,
		   "%s: the incremental backup %s (LSN %llu to %llu) was being applied to %s and did not finish: %s "
		   "refuses a backup half way between two states",
		   dir, p.inc_dir, p.from_lsn, p.to_lsn, dir, command);
	return xb_err_hint(err, "complete it with xtrabackup --prepare --target-dir=%s --incremental-dir=%s", dir,
			   p.inc_dir);
}
