/*
 * place.c - a tablespace file copied into the datadir, or a small text file
 * written there (see place.h). The bytes are copied by command/filecopy.h
 * (holes of a sparse .ibd kept).
 */
#include "place.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/filecopy.h"
#include "common/path.h"
#include "platform/file.h"

bool place_dir_writable(const char *dir)
{
	struct stat st;
	return !stat(dir, &st) && S_ISDIR(st.st_mode) && !access(dir, W_OK | X_OK);
}

/* What goes into a placed file: a copy of src, or text. */
typedef struct filling {
	const char *src;   /* the file to copy, or NULL */
	const char *text;  /* else these bytes */
} filling;

static int fill(int out, const filling *f, const char *tmp, xb_error *err)
{
	if (!f->src) {
		size_t n = strlen(f->text);
		if (xb_file_pwrite_all(out, f->text, n, 0) || xb_file_sync(out, false))
			return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", tmp, strerror(errno));
		return 0;
	}
	int in = xb_file_open(XB_FILE_CWD, f->src, XB_FILE_READ, 0, NULL);
	if (in < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", f->src, strerror(errno));
	int rc = filecopy_data(in, out, f->src, tmp, NULL, err);
	close(in);
	return rc;
}

static int place(const filling *f, const char *dir, const char *name, const char *like_dir, xb_error *err)
{
	char dst[PATH_MAX], tmpname[NAME_MAX + 1], tmp[PATH_MAX];
	int rc;
	if ((rc = xb_path_join(dst, sizeof dst, dir, name, err)))
		return rc;
	if (snprintf(tmpname, sizeof tmpname, "%s.xbrestore", name) >= (int)sizeof tmpname)
		return xb_err_set(err, XB_E_USAGE, "file name too long: %s.xbrestore", name);
	if ((rc = xb_path_join(tmp, sizeof tmp, dir, tmpname, err)))
		return rc;
	/* the owner and mode of the server's own files: its db.opt, else the directory's */
	struct stat like, dst_dir;
	char opt[PATH_MAX];
	if (stat(dir, &dst_dir))
		return xb_err_set(err, XB_E_TARGET, "cannot stat %s: %s", dir, strerror(errno));
	if (!xb_path_join(opt, sizeof opt, like_dir, "db.opt", NULL) && !stat(opt, &like) && S_ISREG(like.st_mode))
		like.st_mode &= 0666;
	else
		like = dst_dir;
	/* a temporary file left by a run that was killed is ours to replace */
	(void)xb_file_remove(tmp);
	mode_t mode = like.st_mode & 0666;
	int out = xb_file_open(XB_FILE_CWD, tmp, XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_EXCL, mode ? mode : 0600, NULL);
	if (out < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", tmp, strerror(errno));
	rc = fill(out, f, tmp, err);
	/* the server opens and later writes the file as the datadir's owner */
	if (!rc && geteuid() == 0 && fchown(out, like.st_uid, like.st_gid))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot give %s the owner of %s: %s", tmp, dir, strerror(errno));
	if (!rc && fchmod(out, mode ? mode : 0600))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot set the mode of %s: %s", tmp, strerror(errno));
	if (close(out) && !rc)
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot close %s: %s", tmp, strerror(errno));
	if (!rc && xb_file_rename(XB_FILE_CWD, tmp, XB_FILE_CWD, dst, false))
		rc = errno == EEXIST ? xb_err_set(err, XB_E_TARGET, "%s exists already: it is not replaced", dst)
				     : xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", tmp, dst, strerror(errno));
	if (rc) {
		(void)xb_file_remove(tmp);
		return rc;
	}
	if (xb_dir_sync(dir))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot sync the directory %s: %s", dir, strerror(errno));
	return 0;
}

int place_file(const char *src, const char *dir, const char *name, const char *like_dir, xb_error *err)
{
	filling f = {.src = src};
	return place(&f, dir, name, like_dir ? like_dir : dir, err);
}

int place_text(const char *text, const char *dir, const char *name, xb_error *err)
{
	filling f = {.text = text};
	return place(&f, dir, name, dir, err);
}

int place_remove(const char *dir, const char *name, xb_error *err)
{
	char path[PATH_MAX];
	int rc = xb_path_join(path, sizeof path, dir, name, err);
	if (rc)
		return rc;
	if (xb_file_remove(path) && errno != ENOENT)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot remove %s: %s", path, strerror(errno));
	return 0;
}
