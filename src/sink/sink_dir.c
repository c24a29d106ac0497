/*
 * sink_dir.c - the local directory sink driver.
 *
 * Each file is written to "<dir>/<relpath>.xbtmp" (parent directories are
 * created on demand) and renamed to its final name by close(), so a file
 * under its real name was written whole; abort() unlinks the temporary.
 *
 * Durability without stalls: every 8 MiB written, writeback of that range is
 * started without waiting for it (xb_file_writeback), so dirty pages never pile
 * up into a burst that would starve the server's own I/O, and close() starts
 * writeback of the rest. finish() then fsyncs every file and directory
 * written, several at a time on the parallel executor (quick: the data is
 * already on its way to disk, and the file system commits fsyncs that wait
 * together at once), so everything is durable before the caller writes the
 * completion marker.
 *
 * Empty space stays empty: a whole 64 KiB block of zeros written where the
 * file has never had data (the tail of a freshly extended tablespace, the
 * unused part of ibdata1 or of an undo tablespace) is skipped, leaving a
 * hole that reads back as zeros, and close() sets the file's full length.
 * The backup takes less space and the disk writes fewer bytes. Zeros written
 * over earlier data (a stream's seek back) are always written.
 *
 * Untrusted names (XB_SINK_DIR_UNTRUSTED, extraction of a stream): the
 * directory is opened once and every file is reached from it component by
 * component (xb_dir_open, refusing a link), missing directories made with
 * mkdirat(), the temporary created with XB_FILE_EXCL | XB_FILE_NOFOLLOW and
 * renamed (xb_file_rename) in the directory it was made in. So no symbolic link
 * below the directory, planted before or during the run, is ever followed,
 * and a name with an empty, "." or ".." component or a leading '/' is
 * refused before anything is created. Trusted names (a backup) keep the
 * plain path calls. sink_dir_ext.h adds seek, rename and remove for
 * mariabackup streams. Direct I/O, write-back, renames and directory opens
 * go through platform/file.h.
 */
#include "sink.h"
#include "sink_dir_ext.h"

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

#include "common/parallel.h"
#include "common/path.h"
#include "platform/dir.h"
#include "platform/file.h"

typedef struct dir_sink {
	xb_sink base;          /* must be first */
	char *dir;             /* target directory */
	unsigned flags;        /* XB_SINK_DIR_* */
	int dirfd;             /* UNTRUSTED: the directory, every path is resolved from it; else -1 */
	pthread_mutex_t mu;    /* protects the list of files to sync */
	char **done;           /* files closed since the last finish(), to fsync */
	size_t ndone, capdone; /* count and capacity of done */
	uint64_t hole_bytes;   /* zero bytes left as holes (updated atomically) */
} dir_sink;

#define WRITEBACK_STEP (8u << 20) /* start writeback every this many bytes */
#define SYNC_THREADS 8            /* fsyncs at once in finish() */
#define HOLE_BLOCK (64u << 10)    /* zero blocks of this size, at multiples of it, become holes */

typedef struct dir_file {
	xb_sink *sink;          /* must be first: owning sink */
	int fd;                 /* open descriptor of the temporary */
	bool direct;            /* still writing around the page cache (XB_FILE_DIRECT) */
	uint64_t written;       /* bytes written so far: the position of the next write */
	uint64_t hw;            /* end of everything written or left as a hole so far */
	bool holes;             /* a zero block was skipped */
	uint64_t flushed;       /* bytes whose writeback was started */
	char path[PATH_MAX];    /* final path */
	char tmp[PATH_MAX];     /* temporary path */
	int pfd;                /* UNTRUSTED: the directory holding the file, else -1 */
	const char *name;       /* UNTRUSTED: final name in pfd (points into path) */
	const char *tmpname;    /* UNTRUSTED: temporary name in pfd (points into tmp) */
} dir_file;

static const xb_sink_ops dir_ops;

#define DIRECT_ALIGN 4096u /* direct I/O needs buffer, length and offset aligned to this */

static void stop_direct(dir_file *f)
{
	xb_file_drop_direct(f->fd);
	f->direct = false;
	f->flushed = f->written; /* what was written directly is already on its way */
}

#define WALK_ABSENT (-2) /* walk(): a directory on the way does not exist (create == false) */

/* Is relpath acceptable from an untrusted source? NULL or why not. */
static const char *unsafe(const char *relpath)
{
	if (!relpath[0])
		return "it is empty";
	if (relpath[0] == '/')
		return "it is absolute";
	for (const char *p = relpath;;) {
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);
		if (n == 0)
			return "it has an empty component";
		if (n == 1 && p[0] == '.')
			return "it has a \".\" component";
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "it leaves the directory (\"..\")";
		if (!*e)
			return NULL;
		p = e + 1;
	}
}

/* The directory holding relpath, reached from root one component at a time
 * refusing links, so no symbolic link is followed; with create, missing
 * directories are made. Returns its descriptor (the caller closes it) and
 * sets *base to the last component; -1 with err set, or WALK_ABSENT. */
static int walk(dir_sink *ds, int root, const char *relpath, bool create, const char **base, xb_error *err)
{
	const char *why = unsafe(relpath);
	if (why) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "unsafe path \"%s\": %s", relpath, why);
		xb_err_hint(err, "only files below the directory %s may be written", ds->dir);
		return -1;
	}
	int cur = fcntl(root, F_DUPFD_CLOEXEC, 0);
	if (cur < 0) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot use directory %s: %s", ds->dir, strerror(errno));
		return -1;
	}
	char comp[NAME_MAX + 1];
	const char *p = relpath, *e;
	while ((e = strchr(p, '/'))) {
		size_t n = (size_t)(e - p);
		int len = (int)(e - relpath), next = -1;
		if (n > NAME_MAX) {
			errno = ENAMETOOLONG;
		} else {
			memcpy(comp, p, n);
			comp[n] = '\0';
			next = xb_dir_open(cur, comp, true);
			if (next < 0 && errno == ENOENT && create) {
				if (mkdirat(cur, comp, 0750) && errno != EEXIST) {
					xb_err_set(err, XB_E_IO_WRITE, "cannot create directory %s/%.*s: %s", ds->dir, len,
						   relpath, strerror(errno));
					close(cur);
					return -1;
				}
				next = xb_dir_open(cur, comp, true);
			}
		}
		if (next < 0) {
			int e2 = errno;
			struct stat st;
			if (e2 == ENOENT && !create) {
				close(cur);
				return WALK_ABSENT;
			}
			if (n <= NAME_MAX && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
				xb_err_set(err, XB_E_STREAM_CORRUPT, "unsafe path \"%s\": %s/%.*s is a symbolic link, "
					   "which is never followed", relpath, ds->dir, len, relpath);
				xb_err_hint(err, "remove the link or extract into an empty directory");
			} else if (e2 == ENOTDIR) {
				xb_err_set(err, XB_E_TARGET, "cannot create %s/%s: %s/%.*s is not a directory", ds->dir,
					   relpath, ds->dir, len, relpath);
			} else {
				xb_err_set(err, XB_E_IO_WRITE, "cannot open directory %s/%.*s: %s", ds->dir, len, relpath,
					   strerror(e2));
			}
			close(cur);
			return -1;
		}
		close(cur);
		cur = next;
		p = e + 1;
	}
	*base = p;
	return cur;
}

/* f->path = dir/relpath, f->tmp = dir/relpath.xbtmp. */
static int file_paths(const dir_sink *ds, dir_file *f, const char *relpath, xb_error *err)
{
	if (xb_path_join(f->path, sizeof f->path, ds->dir, relpath, NULL) ||
	    xb_path_join3(f->tmp, sizeof f->tmp, ds->dir, relpath, ".xbtmp", NULL))
		return xb_err_set(err, XB_E_TARGET, "path too long: %s/%s", ds->dir, relpath);
	return 0;
}

/* The parts of dir_open() for untrusted names: from the directory's
 * descriptor, a fresh temporary (O_EXCL: never an existing file or link). */
static xb_sink_file *open_untrusted(dir_sink *ds, dir_file *f, const char *relpath, xb_error *err)
{
	const char *base;
	f->pfd = walk(ds, ds->dirfd, relpath, true, &base, err);
	if (f->pfd < 0) {
		free(f);
		return NULL;
	}
	if (file_paths(ds, f, relpath, err)) {
		close(f->pfd);
		free(f);
		return NULL;
	}
	f->name = f->path + strlen(ds->dir) + 1 + (base - relpath);
	f->tmpname = f->tmp + (f->name - f->path);
	for (int attempt = 0;; attempt++) {
		f->fd = xb_file_open(f->pfd, f->tmpname,
				     XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_EXCL | XB_FILE_NOFOLLOW | XB_FILE_DIRECT, 0640,
				     &f->direct);
		if (f->fd >= 0 || errno != EEXIST || attempt)
			break;
		/* left by an interrupted run, or planted: unlinkat removes the name
		 * itself (a link, never its target); then the file is made afresh */
		if (unlinkat(f->pfd, f->tmpname, 0)) {
			errno = EEXIST;
			break;
		}
	}
	if (f->fd < 0) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", f->tmp, strerror(errno));
		close(f->pfd);
		free(f);
		return NULL;
	}
	return (xb_sink_file *)f;
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
	f->pfd = -1;
	if (ds->flags & XB_SINK_DIR_UNTRUSTED)
		return open_untrusted(ds, f, relpath, err);
	while (relpath[0] == '.' && relpath[1] == '/')
		relpath += 2;
	if (file_paths(ds, f, relpath, err)) {
		free(f);
		return NULL;
	}
	/* direct I/O where the file system allows it: aligned page runs go from the
	 * read buffer to the disk with no copy into the page cache and no dirty
	 * pages for the kernel to flush later in bursts that starve the server.
	 * The directories are made when the file cannot be created without them
	 * (not tried for every file: a backup of 10,000 tables made 60,000 mkdir
	 * calls that all failed with EEXIST). */
	int flags = XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_TRUNC | XB_FILE_DIRECT;
	f->fd = xb_file_open(XB_FILE_CWD, f->tmp, flags, 0640, &f->direct);
	char *slash = strrchr(f->path, '/');
	if (f->fd < 0 && errno == ENOENT && slash && slash > f->path) {
		*slash = '\0';
		int rc = xb_mkdir_p(f->path, 0750, err);
		*slash = '/';
		if (rc) {
			free(f);
			return NULL;
		}
		f->fd = xb_file_open(XB_FILE_CWD, f->tmp, flags, 0640, &f->direct);
	}
	if (f->fd < 0) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", f->path, strerror(errno));
		free(f);
		return NULL;
	}
	return (xb_sink_file *)f;
}

/* Is the block at p (len bytes) all zeros? A data page fails on its first bytes. */
static bool all_zero(const uint8_t *p, size_t len)
{
	return len > 0 && p[0] == 0 && memcmp(p, p + 1, len - 1) == 0;
}

/* Bytes at the start of p (len bytes, file offset pos) that may become a
 * hole: whole zero blocks, from a block boundary, where the file has never
 * had data. */
static size_t hole_run(const dir_file *f, const uint8_t *p, size_t len, uint64_t pos)
{
	size_t n = 0;
	if (pos < f->hw || pos % HOLE_BLOCK)
		return 0;
	while (len - n >= HOLE_BLOCK && all_zero(p + n, HOLE_BLOCK))
		n += HOLE_BLOCK;
	return n;
}

/* Bytes at the start of p (len bytes, file offset pos) to write: up to the
 * first block that may become a hole, or all of them. */
static size_t data_run(const dir_file *f, const uint8_t *p, size_t len, uint64_t pos)
{
	uint64_t from = pos > f->hw ? pos : f->hw;
	from = (from + HOLE_BLOCK - 1) / HOLE_BLOCK * HOLE_BLOCK;
	if (from == pos)
		from += HOLE_BLOCK; /* hole_run() found data there */
	for (uint64_t b = from; b - pos + HOLE_BLOCK <= len; b += HOLE_BLOCK)
		if (all_zero(p + (b - pos), HOLE_BLOCK))
			return (size_t)(b - pos);
	return len;
}

static int write_at(dir_file *f, const uint8_t *p, size_t len, uint64_t pos, xb_error *err)
{
	if (f->direct && (((uintptr_t)p | len | pos) & (DIRECT_ALIGN - 1)) != 0)
		stop_direct(f); /* an unaligned piece: buffered from here on */
	while (len > 0) {
		ssize_t n = pwrite(f->fd, p, len, (off_t)pos);
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
		pos += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int dir_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	dir_file *f = (dir_file *)file;
	const uint8_t *p = buf;
	size_t done = 0;
	while (done < len) {
		uint64_t pos = f->written + done;
		size_t n = hole_run(f, p + done, len - done, pos);
		if (n > 0) {
			f->holes = true;
			atomic_fetch_add((_Atomic uint64_t *)&((dir_sink *)f->sink)->hole_bytes, n);
		} else {
			n = data_run(f, p + done, len - done, pos);
			int rc = write_at(f, p + done, n, pos, err);
			if (rc)
				return rc;
		}
		done += n;
		if (pos + n > f->hw)
			f->hw = pos + n;
	}
	f->written += len;
	if (f->direct)
		f->flushed = f->written;
	else if (f->written - f->flushed >= WRITEBACK_STEP) {
		xb_file_writeback(f->fd, (off_t)f->flushed, (off_t)(f->written - f->flushed));
		f->flushed = f->written;
	}
	atomic_fetch_add((_Atomic uint64_t *)&f->sink->bytes_written, len);
	return 0;
}

/* Remove the temporary and free f (abort, or a failed close). */
static void drop(dir_file *f)
{
	if (f->pfd >= 0) {
		unlinkat(f->pfd, f->tmpname, 0);
		close(f->pfd);
	} else {
		unlink(f->tmp);
	}
	free(f);
}

static void dir_abort(xb_sink_file *file)
{
	dir_file *f = (dir_file *)file;
	close(f->fd);
	drop(f);
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
		xb_file_writeback(f->fd, (off_t)f->flushed, 0);
	struct stat st;
	if (f->holes && (fstat(f->fd, &st) || (uint64_t)st.st_size < f->hw) && ftruncate(f->fd, (off_t)f->hw)) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot set the length of %s: %s", f->path, strerror(errno));
		close(f->fd);
		drop(f);
		return XB_E_IO_WRITE;
	}
	if (close(f->fd)) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot close %s: %s", f->path, strerror(errno));
		drop(f);
		return XB_E_IO_WRITE;
	}
	bool noreplace = ((dir_sink *)f->sink)->flags & XB_SINK_DIR_NOREPLACE;
	int rc;
	if (f->pfd >= 0)
		rc = xb_file_rename(f->pfd, f->tmpname, f->pfd, f->name, !noreplace);
	else
		rc = xb_file_rename(XB_FILE_CWD, f->tmp, XB_FILE_CWD, f->path, !noreplace);
	if (rc) {
		if (errno == EEXIST)
			xb_err_set(err, XB_E_TARGET, "%s already exists; it is not overwritten", f->path),
				xb_err_hint(err, "extract or decode into an empty directory, or remove the file first");
		else
			xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s: %s", f->tmp, strerror(errno));
		drop(f);
		return err ? err->code : XB_E_IO_WRITE;
	}
	if (f->pfd >= 0)
		close(f->pfd);
	rc = remember((dir_sink *)f->sink, f->path);
	free(f);
	return rc ? xb_err_set(err, XB_E_INTERNAL, "out of memory") : 0;
}

/* fsync a file, or a directory (dir). */
static int sync_path(const char *path, bool dir, bool missing_ok, xb_error *err)
{
	int fd = dir ? xb_dir_open(XB_FILE_CWD, path, false) : xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd < 0 && errno == ENOENT && missing_ok)
		return 0;
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot open %s to sync it: %s", path, strerror(errno));
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	if (rc)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot sync %s: %s", path, strerror(e));
	return 0;
}

/* The fsyncs of finish(): files, then the directories holding them. */
typedef struct sync_run {
	char **path;     /* what to sync */
	bool dir;        /* they are directories */
	bool missing_ok; /* a path gone is fine (a stream removed it) */
} sync_run;

static int sync_job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	sync_run *r = ctx;
	return sync_path(r->path[i], r->dir, r->missing_ok, err);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* fsync n paths on SYNC_THREADS threads: a file system commits the fsyncs
 * that wait together at once (a backup of 10,000 tables has 20,000 files). */
static int sync_all(char **path, size_t n, bool dir, bool missing_ok, xb_error *err)
{
	sync_run r = {.path = path, .dir = dir, .missing_ok = missing_ok};
	xb_parallel_cfg cfg = {.threads = SYNC_THREADS, .jobs = n, .ctx = &r, .job = sync_job};
	return n ? xb_parallel_run(&cfg, err) : 0;
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
	/* a stream may have removed or renamed files it wrote */
	bool missing_ok = ds->flags & XB_SINK_DIR_UNTRUSTED;
	int rc = sync_all(done, n, false, missing_ok, err);
	/* the directories holding them, once each, so the renames are durable too */
	size_t nd = 0;
	for (size_t i = 0; i < n; i++) {
		char *slash = strrchr(done[i], '/');
		if (slash)
			*slash = '\0';
		if (slash && slash != done[i])
			done[nd++] = done[i];
		else
			free(done[i]);
	}
	if (nd > 1)
		qsort(done, nd, sizeof *done, by_name);
	size_t k = 0;
	for (size_t i = 0; i < nd; i++) {
		if (k && !strcmp(done[k - 1], done[i]))
			free(done[i]);
		else
			done[k++] = done[i];
	}
	if (!rc)
		rc = sync_all(done, k, true, missing_ok, err);
	for (size_t i = 0; i < k; i++)
		free(done[i]);
	free(done);
	if (!rc)
		rc = sync_path(ds->dir, true, false, err);
	return rc;
}

static void dir_free(xb_sink *s)
{
	dir_sink *ds = (dir_sink *)s;
	for (size_t i = 0; i < ds->ndone; i++)
		free(ds->done[i]);
	free(ds->done);
	pthread_mutex_destroy(&ds->mu);
	if (ds->dirfd >= 0)
		close(ds->dirfd);
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
	} else if (xb_mkdir_p(dir, 0750, err)) {
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
	ds->dirfd = -1;
	if ((flags & XB_SINK_DIR_UNTRUSTED) && (ds->dirfd = xb_dir_open(XB_FILE_CWD, ds->dir, false)) < 0) {
		xb_err_set(err, XB_E_TARGET, "cannot open directory %s: %s", ds->dir, strerror(errno));
		free(ds->dir);
		free(ds);
		return NULL;
	}
	pthread_mutex_init(&ds->mu, NULL);
	ds->flags = flags;
	ds->base.ops = &dir_ops;
	ds->base.name = ds->dir;
	return &ds->base;
}

/* ------------------------------------------------------------ sink_dir_ext.h */

bool xb_sink_dir_file(const xb_sink_file *f)
{
	return f && (*(xb_sink *const *)f)->ops == &dir_ops;
}

int xb_sink_dir_seek(xb_sink_file *file, uint64_t offset, xb_error *err)
{
	if (!xb_sink_dir_file(file))
		return xb_err_set(err, XB_E_INTERNAL, "seek in a file that is not written to a directory");
	dir_file *f = (dir_file *)file;
	if (f->direct)
		stop_direct(f);
	if (offset > (uint64_t)INT64_MAX || lseek(f->fd, (off_t)offset, SEEK_SET) < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot seek in %s to offset %llu: %s", f->path,
				  (unsigned long long)offset, strerror(offset > (uint64_t)INT64_MAX ? EINVAL : errno));
	f->written = f->flushed = offset; /* written is the position from now on */
	return 0;
}

uint64_t xb_sink_dir_holes(const xb_sink *s)
{
	return s && s->ops == &dir_ops ? atomic_load((_Atomic uint64_t *)&((dir_sink *)s)->hole_bytes) : 0;
}

/* The directory to resolve from: the one kept open, or opened for one call. */
static int root_of(dir_sink *ds, xb_error *err)
{
	if (ds->dirfd >= 0)
		return ds->dirfd;
	int fd = xb_dir_open(XB_FILE_CWD, ds->dir, false);
	if (fd < 0)
		xb_err_set(err, XB_E_TARGET, "cannot open directory %s: %s", ds->dir, strerror(errno));
	return fd;
}

static void root_done(const dir_sink *ds, int root)
{
	if (root != ds->dirfd)
		close(root);
}

int xb_sink_dir_remove(xb_sink *s, const char *relpath, bool dir, xb_error *err)
{
	if (s->ops != &dir_ops)
		return xb_err_set(err, XB_E_INTERNAL, "removing a file of a sink that is not a directory");
	dir_sink *ds = (dir_sink *)s;
	int root = root_of(ds, err);
	if (root < 0)
		return XB_E_TARGET;
	const char *base;
	int pfd = walk(ds, root, relpath, false, &base, err);
	root_done(ds, root);
	if (pfd == WALK_ABSENT)
		return 0;
	if (pfd < 0)
		return err ? err->code : XB_E_IO_WRITE;
	int rc = unlinkat(pfd, base, dir ? AT_REMOVEDIR : 0), e = errno;
	close(pfd);
	if (rc && e != ENOENT && !(dir && (e == ENOTEMPTY || e == EEXIST || e == ENOTDIR)))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot remove %s/%s: %s", ds->dir, relpath, strerror(e));
	return 0;
}

int xb_sink_dir_rename(xb_sink *s, const char *from, const char *to, bool replace, xb_error *err)
{
	if (s->ops != &dir_ops)
		return xb_err_set(err, XB_E_INTERNAL, "renaming a file of a sink that is not a directory");
	dir_sink *ds = (dir_sink *)s;
	int root = root_of(ds, err);
	if (root < 0)
		return XB_E_TARGET;
	const char *b1, *b2;
	int p1 = walk(ds, root, from, false, &b1, err), p2 = -1;
	if (p1 >= 0)
		p2 = walk(ds, root, to, true, &b2, err);
	root_done(ds, root);
	int rc = 0;
	if (p1 == WALK_ABSENT) {
		rc = xb_err_set(err, XB_E_MISSING_FILE, "cannot rename %s/%s: it does not exist", ds->dir, from);
	} else if (p1 >= 0 && p2 >= 0) {
		if (xb_file_rename(p1, b1, p2, b2, replace)) {
			if (errno == ENOENT)
				rc = xb_err_set(err, XB_E_MISSING_FILE, "cannot rename %s/%s: it does not exist", ds->dir,
						from);
			else if (errno == EEXIST)
				rc = xb_err_set(err, XB_E_TARGET, "cannot rename %s/%s to %s: %s/%s already exists", ds->dir,
						from, to, ds->dir, to);
			else
				rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s/%s to %s: %s", ds->dir, from, to,
						strerror(errno));
		} else {
			char path[PATH_MAX];
			if (xb_path_join(path, sizeof path, ds->dir, to, NULL))
				rc = xb_err_set(err, XB_E_TARGET, "path too long: %s/%s", ds->dir, to);
			else if (remember(ds, path))
				rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
		}
	} else {
		rc = err ? err->code : XB_E_IO_WRITE;
	}
	if (p1 >= 0)
		close(p1);
	if (p2 >= 0)
		close(p2);
	return rc;
}
