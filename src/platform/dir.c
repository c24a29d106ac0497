/*
 * dir.c - mkdir -p and directory listing on POSIX systems (see dir.h):
 * mkdir(2) component by component, opendir(3)/readdir(3), and the entry's
 * type from readdir, or stat(2) where it does not say (a symbolic link, or a
 * file system that leaves it unknown).
 */
#include "platform/dir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/path.h"

int xb_mkdir_p(const char *path, mode_t mode, xb_error *err)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return xb_err_set(err, XB_E_USAGE, "path too long (at most %d bytes): %s", PATH_MAX - 1, path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return xb_err_set(err, XB_E_IO_WRITE, "cannot create directory %s: %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot create directory %s: %s", buf, strerror(errno));
	return 0;
}

int xb_dir_each(const char *dir, int flags, int (*fn)(void *ctx, const xb_dirent *e, xb_error *err), void *ctx,
		xb_error *err)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT && (flags & XB_DIR_MISSING_OK))
			return 0;
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", dir, strerror(errno));
	}
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char path[PATH_MAX];
		if ((rc = xb_path_join(path, sizeof path, dir, de->d_name, err)))
			break;
		xb_dirent e = {.dir = dir, .name = de->d_name, .path = path,
			       .is_dir = de->d_type == DT_DIR, .is_file = de->d_type == DT_REG};
		struct stat st;
		if ((de->d_type == DT_UNKNOWN || de->d_type == DT_LNK) && stat(path, &st) == 0) {
			e.is_dir = S_ISDIR(st.st_mode);
			e.is_file = S_ISREG(st.st_mode);
		}
		rc = fn(ctx, &e, err);
	}
	closedir(d);
	return rc;
}
