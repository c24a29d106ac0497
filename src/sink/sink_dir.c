/*
 * sink_dir.c - the local directory sink driver.
 *
 * Each file is written to "<dir>/<relpath>.xbtmp" (parent directories are
 * created on demand) and renamed to its final name by close() after an
 * fsync, so a file that exists under its real name is complete. abort()
 * unlinks the temporary. finish() fsyncs the directories touched.
 */
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct dir_sink {
	xb_sink base;   /* must be first */
	char *dir;      /* target directory */
} dir_sink;

typedef struct dir_file {
	xb_sink *sink;          /* must be first: owning sink */
	int fd;                 /* open descriptor of the temporary */
	char path[PATH_MAX];    /* final path */
	char tmp[PATH_MAX];     /* temporary path */
} dir_file;

static int mkdirs(const char *path, xb_error *err)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return xb_err_set(err, XB_E_TARGET, "path too long: %s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0750) && errno != EEXIST)
			return xb_err_set(err, XB_E_IO_WRITE, "cannot create directory %s: %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0750) && errno != EEXIST)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot create directory %s: %s", buf, strerror(errno));
	return 0;
}

static xb_sink_file *dir_open(xb_sink *s, const char *relpath, xb_error *err)
{
	dir_sink *ds = (dir_sink *)s;
	dir_file *f = calloc(1, sizeof *f);
	if (!f) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	f->sink = s;
	while (relpath[0] == '.' && relpath[1] == '/')
		relpath += 2;
	if (snprintf(f->path, sizeof f->path, "%s/%s", ds->dir, relpath) >= (int)sizeof f->path ||
	    snprintf(f->tmp, sizeof f->tmp, "%s.xbtmp", f->path) >= (int)sizeof f->tmp) {
		xb_err_set(err, XB_E_TARGET, "path too long: %s/%s", ds->dir, relpath);
		free(f);
		return NULL;
	}
	char *slash = strrchr(f->path, '/');
	if (slash && slash > f->path) {
		*slash = '\0';
		int rc = mkdirs(f->path, err);
		*slash = '/';
		if (rc) {
			free(f);
			return NULL;
		}
	}
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (f->fd < 0) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", f->path, strerror(errno));
		free(f);
		return NULL;
	}
	return (xb_sink_file *)f;
}

static int dir_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	dir_file *f = (dir_file *)file;
	const char *p = buf;
	size_t left = len;
	while (left > 0) {
		ssize_t n = write(f->fd, p, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", f->path, strerror(errno));
			if (errno == ENOSPC)
				xb_err_hint(err, "the target file system is full: free space or choose another --target-dir");
			return XB_E_IO_WRITE;
		}
		p += n;
		left -= (size_t)n;
	}
	atomic_fetch_add((_Atomic uint64_t *)&f->sink->bytes_written, len);
	return 0;
}

static void dir_abort(xb_sink_file *file)
{
	dir_file *f = (dir_file *)file;
	close(f->fd);
	unlink(f->tmp);
	free(f);
}

static int dir_close(xb_sink_file *file, xb_error *err)
{
	dir_file *f = (dir_file *)file;
	if (fsync(f->fd)) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot sync %s: %s", f->path, strerror(errno));
		dir_abort(file);
		return XB_E_IO_WRITE;
	}
	if (close(f->fd)) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot close %s: %s", f->path, strerror(errno));
		unlink(f->tmp);
		free(f);
		return XB_E_IO_WRITE;
	}
	if (rename(f->tmp, f->path)) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s: %s", f->tmp, strerror(errno));
		unlink(f->tmp);
		free(f);
		return XB_E_IO_WRITE;
	}
	free(f);
	return 0;
}

static int dir_finish(xb_sink *s, xb_error *err)
{
	dir_sink *ds = (dir_sink *)s;
	int fd = open(ds->dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot open %s: %s", ds->dir, strerror(errno));
	int rc = fsync(fd);
	close(fd);
	if (rc)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot sync %s: %s", ds->dir, strerror(errno));
	return 0;
}

static void dir_free(xb_sink *s)
{
	dir_sink *ds = (dir_sink *)s;
	free(ds->dir);
	free(ds);
}

static const xb_sink_ops dir_ops = {
	.open = dir_open,
	.write = dir_write,
	.close = dir_close,
	.abort = dir_abort,
	.finish = dir_finish,
	.free = dir_free,
};

xb_sink *xb_sink_dir_open(const char *dir, xb_error *err)
{
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			xb_err_set(err, XB_E_TARGET, "target %s exists and is not a directory", dir);
			return NULL;
		}
	} else if (mkdirs(dir, err)) {
		if (err)
			err->code = XB_E_TARGET;
		xb_err_prefix(err, "cannot create target directory");
		xb_err_hint(err, "run as a user that can write there, or choose another --target-dir");
		return NULL;
	}
	if (access(dir, W_OK | X_OK)) {
		xb_err_set(err, XB_E_TARGET, "target directory %s is not writable: %s", dir, strerror(errno));
		xb_err_hint(err, "run as a user that can write there, or choose another --target-dir");
		return NULL;
	}
	dir_sink *ds = calloc(1, sizeof *ds);
	if (!ds || !(ds->dir = strdup(dir))) {
		free(ds);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	size_t l = strlen(ds->dir);
	while (l > 1 && ds->dir[l - 1] == '/')
		ds->dir[--l] = '\0';
	ds->base.ops = &dir_ops;
	ds->base.name = ds->dir;
	return &ds->base;
}
