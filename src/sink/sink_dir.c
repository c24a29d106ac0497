/*
 * sink_dir.c - the local directory sink driver.
 *
 * Each file is written to "<dir>/<relpath>.xbtmp" (parent directories are
 * created on demand) and renamed to its final name by close(), so a file
 * under its real name was written whole; abort() unlinks the temporary.
 *
 * Durability without stalls: every 8 MiB written, writeback of that range is
 * started with sync_file_range() (asynchronously), so dirty pages never pile
 * up into a burst that would starve the server's own I/O, and close() starts
 * writeback of the rest. finish() then fsyncs every file and directory
 * written (quick: the data is already on its way to disk), so everything is
 * durable before the caller writes the completion marker.
 */
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct dir_sink {
	xb_sink base;          /* must be first */
	char *dir;             /* target directory */
	unsigned flags;        /* XB_SINK_DIR_* */
	pthread_mutex_t mu;    /* protects the list of files to sync */
	char **done;           /* files closed since the last finish(), to fsync */
	size_t ndone, capdone; /* count and capacity of done */
} dir_sink;

#define WRITEBACK_STEP (8u << 20) /* start writeback every this many bytes */

typedef struct dir_file {
	xb_sink *sink;          /* must be first: owning sink */
	int fd;                 /* open descriptor of the temporary */
	bool direct;            /* still writing with O_DIRECT */
	uint64_t written;       /* bytes written so far */
	uint64_t flushed;       /* bytes whose writeback was started */
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

#define DIRECT_ALIGN 4096u /* O_DIRECT needs buffer, length and offset aligned to this */

static void stop_direct(dir_file *f)
{
	int fl = fcntl(f->fd, F_GETFL);
	if (fl >= 0)
		fcntl(f->fd, F_SETFL, fl & ~O_DIRECT);
	f->direct = false;
	f->flushed = f->written; /* what was written directly is already on its way */
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
	/* O_DIRECT where the file system allows it: aligned page runs go from the
	 * read buffer to the disk with no copy into the page cache and no dirty
	 * pages for the kernel to flush later in bursts that starve the server. */
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0640);
	f->direct = f->fd >= 0;
	if (f->fd < 0 && errno == EINVAL)
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
	if (f->direct && (((uintptr_t)buf | len | f->written) & (DIRECT_ALIGN - 1)) != 0)
		stop_direct(f); /* an unaligned piece: buffered from here on */
	while (left > 0) {
		ssize_t n = write(f->fd, p, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EINVAL && f->direct) {
				stop_direct(f);
				continue;
			}
			xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", f->path, strerror(errno));
			if (errno == ENOSPC)
				xb_err_hint(err, "the target file system is full: free space or choose another --target-dir");
			return XB_E_IO_WRITE;
		}
		p += n;
		left -= (size_t)n;
	}
	f->written += len;
	if (f->direct)
		f->flushed = f->written;
	else if (f->written - f->flushed >= WRITEBACK_STEP) {
		sync_file_range(f->fd, (off_t)f->flushed, (off_t)(f->written - f->flushed), SYNC_FILE_RANGE_WRITE);
		f->flushed = f->written;
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

static int remember(dir_sink *ds, const char *path)
{
	pthread_mutex_lock(&ds->mu);
	if (ds->ndone == ds->capdone) {
		size_t cap = ds->capdone ? ds->capdone * 2 : 256;
		char **v = realloc(ds->done, cap * sizeof *v);
		if (!v) {
			pthread_mutex_unlock(&ds->mu);
			return -1;
		}
		ds->done = v;
		ds->capdone = cap;
	}
	char *copy = strdup(path);
	if (copy)
		ds->done[ds->ndone++] = copy;
	pthread_mutex_unlock(&ds->mu);
	return copy ? 0 : -1;
}

static int dir_close(xb_sink_file *file, xb_error *err)
{
	dir_file *f = (dir_file *)file;
	if (f->written > f->flushed)
		sync_file_range(f->fd, (off_t)f->flushed, 0, SYNC_FILE_RANGE_WRITE);
	if (close(f->fd)) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot close %s: %s", f->path, strerror(errno));
		unlink(f->tmp);
		free(f);
		return XB_E_IO_WRITE;
	}
	bool noreplace = ((dir_sink *)f->sink)->flags & XB_SINK_DIR_NOREPLACE;
	if (noreplace ? renameat2(AT_FDCWD, f->tmp, AT_FDCWD, f->path, RENAME_NOREPLACE) : rename(f->tmp, f->path)) {
		if (errno == EEXIST)
			xb_err_set(err, XB_E_TARGET, "%s already exists; it is not overwritten", f->path),
				xb_err_hint(err, "extract or decode into an empty directory, or remove the file first");
		else
			xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s: %s", f->tmp, strerror(errno));
		unlink(f->tmp);
		free(f);
		return err ? err->code : XB_E_IO_WRITE;
	}
	if (remember((dir_sink *)f->sink, f->path)) {
		free(f);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	free(f);
	return 0;
}

static int sync_path(const char *path, int flags, xb_error *err)
{
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot open %s to sync it: %s", path, strerror(errno));
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	if (rc)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot sync %s: %s", path, strerror(e));
	return 0;
}

static int dir_finish(xb_sink *s, xb_error *err)
{
	dir_sink *ds = (dir_sink *)s;
	pthread_mutex_lock(&ds->mu);
	char **done = ds->done;
	size_t n = ds->ndone;
	ds->done = NULL;
	ds->ndone = ds->capdone = 0;
	pthread_mutex_unlock(&ds->mu);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = sync_path(done[i], O_RDONLY, err);
		/* the directory holding it, so the rename is durable too */
		char *slash = strrchr(done[i], '/');
		if (!rc && slash && slash != done[i]) {
			*slash = '\0';
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = !strcmp(done[j], done[i]); /* done[j] was cut to its directory too */
			if (!seen)
				rc = sync_path(done[i], O_RDONLY | O_DIRECTORY, err);
		} else if (slash) {
			*slash = '\0';
		}
	}
	for (size_t i = 0; i < n; i++)
		free(done[i]);
	free(done);
	if (!rc)
		rc = sync_path(ds->dir, O_RDONLY | O_DIRECTORY, err);
	return rc;
}

static void dir_free(xb_sink *s)
{
	dir_sink *ds = (dir_sink *)s;
	for (size_t i = 0; i < ds->ndone; i++)
		free(ds->done[i]);
	free(ds->done);
	pthread_mutex_destroy(&ds->mu);
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
	return xb_sink_dir_open_ex(dir, 0, err);
}

xb_sink *xb_sink_dir_open_ex(const char *dir, unsigned flags, xb_error *err)
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
	pthread_mutex_init(&ds->mu, NULL);
	ds->flags = flags;
	ds->base.ops = &dir_ops;
	ds->base.name = ds->dir;
	return &ds->base;
}
