/*
 * sink_tar.c - the tar stream container (libarchive, POSIX pax format).
 *
 * A tar member's header holds its size, and a file copied from a live server
 * has no final size until it is closed. So each file is spooled: in memory
 * up to SPOOL_MEM bytes, beyond that in an unlinked temporary file under
 * tmpdir. close() then takes the archive's lock and writes header and data
 * whole, so members of files written by several threads never interleave.
 * abort() just drops the spool: nothing of that file reaches the stream.
 *
 * The end-of-archive blocks are written by free() only when the last
 * finish() found nothing open or failed since; a backup that fails leaves a
 * stream without them (and without its completion marker
 * xtrabackup_checkpoints, which the backup writes last), never one that
 * looks whole. The pax format stores long names and files over 8 GiB;
 * GNU tar extracts it.
 */
#include "sink_tar.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform/file.h"

#define SPOOL_MEM (8u << 20)  /* spool this much in memory before using tmpdir */
#define COPY_BUF (1u << 20)   /* block size when copying a spooled file to the stream */

typedef struct tar_sink {
	xb_sink base;          /* must be first */
	struct archive *a;     /* the archive being written */
	pthread_mutex_t mu;    /* serializes members; protects the fields below */
	char *tmpdir;          /* where large files are spooled */
	int open_files;        /* files opened and not yet closed or aborted */
	bool failed;           /* a write to the stream failed: it is unusable */
	bool complete;         /* finish() succeeded with nothing open since */
} tar_sink;

typedef struct tar_file {
	xb_sink *sink;         /* must be first: owning sink */
	char *path;            /* member name */
	char *mem;             /* in-memory spool */
	size_t mlen;           /* bytes in mem */
	int fd;                /* spill file, -1 while everything is in memory */
	uint64_t size;         /* total bytes written */
} tar_file;

static void file_free(tar_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->mem);
	free(f->path);
	free(f);
}

static xb_sink_file *tar_open(xb_sink *s, const char *relpath, xb_error *err)
{
	tar_sink *ts = (tar_sink *)s;
	tar_file *f = calloc(1, sizeof *f);
	while (relpath[0] == '.' && relpath[1] == '/')
		relpath += 2;
	if (!f || !(f->path = strdup(relpath))) {
		free(f);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	f->sink = s;
	f->fd = -1;
	pthread_mutex_lock(&ts->mu);
	ts->open_files++;
	ts->complete = false;
	pthread_mutex_unlock(&ts->mu);
	return (xb_sink_file *)f;
}

static int full_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Move the in-memory spool to an unlinked file under tmpdir. */
static int spill(tar_file *f, xb_error *err)
{
	tar_sink *ts = (tar_sink *)f->sink;
	f->fd = xb_file_open_temp(ts->tmpdir);
	if (f->fd < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot create a spool file in %s for %s: %s", ts->tmpdir,
				  f->path, strerror(errno)),
		       xb_err_hint(err, "--stream=tar spools each file before writing it; point --tmpdir at a "
				   "file system with room for the largest files, or use --stream=xbstream");
	if (full_write(f->fd, f->mem, f->mlen))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot spool %s in %s: %s", f->path, ts->tmpdir, strerror(errno));
	free(f->mem);
	f->mem = NULL;
	f->mlen = 0;
	return 0;
}

static int tar_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	tar_file *f = (tar_file *)file;
	if (f->fd < 0 && f->mlen + len > SPOOL_MEM) {
		int rc = spill(f, err);
		if (rc)
			return rc;
	}
	if (f->fd >= 0) {
		if (full_write(f->fd, buf, len)) {
			tar_sink *ts = (tar_sink *)f->sink;
			xb_err_set(err, XB_E_IO_WRITE, "cannot spool %s in %s: %s", f->path, ts->tmpdir, strerror(errno));
			if (errno == ENOSPC)
				xb_err_hint(err, "--stream=tar spools each file before writing it; point --tmpdir at a "
					    "file system with room for the largest files, or use --stream=xbstream");
			return XB_E_IO_WRITE;
		}
	} else {
		if (!f->mem && !(f->mem = malloc(SPOOL_MEM)))
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		memcpy(f->mem + f->mlen, buf, len);
		f->mlen += len;
	}
	f->size += len;
	__atomic_fetch_add(&f->sink->bytes_written, len, __ATOMIC_RELAXED);
	return 0;
}

static int archive_fail(tar_sink *ts, const tar_file *f, xb_error *err)
{
	ts->failed = true;
	return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s to the tar stream: %s", f->path,
			  archive_error_string(ts->a) ? archive_error_string(ts->a) : "unknown error"),
	       xb_err_hint(err, "the reader of the stream (stdout) went away or its disk is full");
}

static int emit(tar_sink *ts, tar_file *f, xb_error *err)
{
	if (ts->failed)
		return xb_err_set(err, XB_E_IO_WRITE, "the tar stream already failed; %s not written", f->path);
	struct archive_entry *e = archive_entry_new();
	if (!e)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	archive_entry_set_pathname(e, f->path);
	archive_entry_set_size(e, (la_int64_t)f->size);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0640);
	archive_entry_set_mtime(e, time(NULL), 0);
	archive_entry_set_uid(e, getuid());
	archive_entry_set_gid(e, getgid());
	int rc = 0;
	if (archive_write_header(ts->a, e) != ARCHIVE_OK)
		rc = archive_fail(ts, f, err);
	archive_entry_free(e);
	if (rc)
		return rc;
	if (f->fd < 0) {
		if (f->mlen && archive_write_data(ts->a, f->mem, f->mlen) != (la_ssize_t)f->mlen)
			return archive_fail(ts, f, err);
		return 0;
	}
	char *buf = malloc(COPY_BUF);
	if (!buf)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	uint64_t off = 0;
	while (off < f->size && !rc) {
		ssize_t n = pread(f->fd, buf, COPY_BUF, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* the member's size is already in its header: the stream cannot go on */
			ts->failed = true;
			rc = xb_err_set(err, XB_E_IO_READ, "cannot read back the spool of %s: %s", f->path,
					n < 0 ? strerror(errno) : "unexpected end of file");
			break;
		}
		if (archive_write_data(ts->a, buf, (size_t)n) != n)
			rc = archive_fail(ts, f, err);
		off += (uint64_t)n;
	}
	free(buf);
	return rc;
}

static int tar_close(xb_sink_file *file, xb_error *err)
{
	tar_file *f = (tar_file *)file;
	tar_sink *ts = (tar_sink *)f->sink;
	pthread_mutex_lock(&ts->mu);
	int rc = emit(ts, f, err);
	ts->open_files--;
	pthread_mutex_unlock(&ts->mu);
	file_free(f);
	return rc;
}

static void tar_abort(xb_sink_file *file)
{
	tar_file *f = (tar_file *)file;
	tar_sink *ts = (tar_sink *)f->sink;
	pthread_mutex_lock(&ts->mu);
	ts->open_files--;
	pthread_mutex_unlock(&ts->mu);
	file_free(f);
}

static int tar_finish(xb_sink *s, xb_error *err)
{
	tar_sink *ts = (tar_sink *)s;
	pthread_mutex_lock(&ts->mu);
	int rc = 0;
	if (ts->failed)
		rc = xb_err_set(err, XB_E_IO_WRITE, "the tar stream failed earlier");
	else if (ts->open_files)
		rc = xb_err_set(err, XB_E_INTERNAL, "tar stream finished with %d files still open", ts->open_files);
	ts->complete = rc == 0;
	pthread_mutex_unlock(&ts->mu);
	return rc;
}

static void tar_free(xb_sink *s)
{
	tar_sink *ts = (tar_sink *)s;
	if (ts->complete && !ts->failed)
		archive_write_close(ts->a); /* end-of-archive blocks */
	else
		archive_write_fail(ts->a);  /* no trailer: the stream must not look whole */
	archive_write_free(ts->a);
	pthread_mutex_destroy(&ts->mu);
	free(ts->tmpdir);
	free(ts);
}

static const xb_sink_ops tar_ops = {
	.open = tar_open,
	.write = tar_write,
	.close = tar_close,
	.abort = tar_abort,
	.finish = tar_finish,
	.free = tar_free,
};

xb_sink *xb_sink_tar_open(int fd, const char *tmpdir, xb_error *err)
{
	tar_sink *ts = calloc(1, sizeof *ts);
	if (!ts || !(ts->tmpdir = strdup(tmpdir && *tmpdir ? tmpdir : "/tmp")) || !(ts->a = archive_write_new())) {
		if (ts)
			free(ts->tmpdir);
		free(ts);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	if (archive_write_set_format_pax_restricted(ts->a) != ARCHIVE_OK ||
	    archive_write_add_filter_none(ts->a) != ARCHIVE_OK ||
	    archive_write_open_fd(ts->a, fd) != ARCHIVE_OK) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot start the tar stream: %s",
			   archive_error_string(ts->a) ? archive_error_string(ts->a) : "unknown error");
		archive_write_free(ts->a);
		free(ts->tmpdir);
		free(ts);
		return NULL;
	}
	pthread_mutex_init(&ts->mu, NULL);
	ts->base.ops = &tar_ops;
	ts->base.name = "tar stream (stdout)";
	return &ts->base;
}
