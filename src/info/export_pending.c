/*
 * export_pending.c - xtrabackup_export_pending (see export_pending.h),
 * written with the metafile helpers.
 */
#include "info/export_pending.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/path.h"
#include "info/metafile.h"
#include "platform/file.h"

int xb_export_pending_write(const char *dir, xb_error *err)
{
	char when[64];
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
	xb_text t = {0};
	xb_text_add(&t, "started = %s\n", when);
	int rc = xb_metafile_rewrite(dir, XB_EXPORT_PENDING_FILE, &t, err);
	xb_text_free(&t);
	return rc;
}

bool xb_export_pending_found(const char *dir)
{
	char path[4096];
	return !xb_path_join(path, sizeof path, dir, XB_EXPORT_PENDING_FILE, NULL) && access(path, F_OK) == 0;
}

int xb_export_pending_remove(const char *dir, xb_error *err)
{
	return xb_metafile_remove(dir, XB_EXPORT_PENDING_FILE, true, err);
}

int xb_export_pending_refuse(const char *dir, const char *command, xb_error *err)
{
	if (!xb_export_pending_found(dir))
		return 0;
	xb_err_set(err, XB_E_NOT_PREPARED, "%s: a --prepare --export of %s did not finish (%s is there): %s refuses it",
		   dir, dir, XB_EXPORT_PENDING_FILE, command);
	return xb_err_hint(err, "run xtrabackup --prepare --export --target-dir=%s again: it completes the export", dir);
}
