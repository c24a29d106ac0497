/*
 * sink_xbstream.c - the xbstream container: files as chunks on one descriptor.
 *
 * Each file collects what it is given in a buffer of its own, exactly as
 * mariabackup does: a write smaller than the room left is appended; any
 * other write first sends what is buffered as one payload chunk and then
 * goes out as chunks of its own (at most XBS_CHUNK_SIZE, 10 MiB, each), so
 * the same writes give the same bytes as mariabackup and mbstream -c. The
 * checksum (zlib's CRC-32) is computed outside the lock; header and data of
 * a chunk are then written with one writev() loop under the sink's mutex, so
 * files written by several threads interleave chunk by chunk, never inside
 * a chunk. close() sends the rest and the end-of-file chunk.
 *
 * abort() of a file that already has chunks in the stream sends its
 * end-of-file chunk followed at once by a remove chunk: mbstream -x closes
 * the file and deletes it, and our extractor, seeing the two together, drops
 * the file without ever showing it under its name. A file aborted before
 * its first chunk leaves no trace.
 *
 * A write error (the reader went away: EPIPE, as SIGPIPE is ignored by
 * command_signals_init; disk full behind a redirect) leaves a chunk cut in
 * the middle, so the stream is unusable from then on: every later call
 * fails with the first error. The descriptor is not closed.
 */
#include "sink_xbstream.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/bytes.h"
#include "stream/xbstream_reader.h"

#define BUF_START (64u << 10) /* a file's buffer starts this big and doubles up to XBS_CHUNK_SIZE */

typedef struct xbs_sink {
	xb_sink base;          /* must be first */
	int fd;                /* where the stream goes */
	pthread_mutex_t mu;    /* one chunk at a time on fd; protects the fields below */
	xb_error failed;       /* the first write error; code 0 while the stream is fine */
} xbs_sink;

typedef struct xbs_file {
	xb_sink *sink;         /* must be first: owning sink */
	char *path;            /* name in the stream */
	uint32_t plen;         /* its length */
	uint8_t *buf;          /* data not yet sent */
	size_t len, cap;       /* bytes in buf, allocated size */
	uint64_t offset;       /* file offset of buf[0] */
	bool sent;             /* a chunk of this file is in the stream */
} xbs_file;

/* The chunk header up to and including the path; returns its length. */
static size_t header(uint8_t *h, uint8_t type, const xbs_file *f)
{
	memcpy(h, XBS_MAGIC, XBS_MAGIC_LEN);
	h[8] = 0;     /* flags: we never rewrite files */
	h[9] = type;
	le32_put(h + 10, f->plen);
	memcpy(h + XBS_HEADER_LEN, f->path, f->plen);
	return XBS_HEADER_LEN + f->plen;
}

/* Write every byte of iov under the lock (EINTR, short writes, a
 * non-blocking descriptor). Returns 0 or the error code, recorded in s. */
static int write_all(xbs_sink *s, struct iovec *iov, int n, xb_error *err)
{
	if (s->failed.code) {
		if (err)
			*err = s->failed;
		return s->failed.code;
	}
	while (n > 0) {
		ssize_t w = writev(s->fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd p = {.fd = s->fd, .events = POLLOUT};
				poll(&p, 1, -1);
				continue;
			}
			int e = errno;
			if (e == EPIPE) {
				xb_err_set(&s->failed, XB_E_IO_WRITE, "the stream reader went away (stdout closed)");
				xb_err_hint(&s->failed, "the program reading the stream (xbstream -x, ssh, ...) ended "
					    "early: see its own error");
			} else {
				xb_err_set(&s->failed, XB_E_IO_WRITE, "cannot write the stream to stdout: %s", strerror(e));
				if (e == ENOSPC)
					xb_err_hint(&s->failed, "the file system stdout is redirected to is full");
			}
			if (err)
				*err = s->failed;
			return XB_E_IO_WRITE;
		}
		size_t left = (size_t)w;
		while (n > 0 && left >= iov->iov_len) {
			left -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + left;
			iov->iov_len -= left;
		}
	}
	return 0;
}

/* Send data (len > 0) as one payload chunk at f->offset. */
static int send_payload(xbs_file *f, const void *data, size_t len, xb_error *err)
{
	xbs_sink *s = (xbs_sink *)f->sink;
	uint8_t h[XBS_HEADER_LEN + XBS_PATH_MAX + 20];
	size_t hl = header(h, XBS_PAYLOAD, f);
	le64_put(h + hl, len);
	le64_put(h + hl + 8, f->offset);
	le32_put(h + hl + 16, xbs_crc32(data, len));
	struct iovec iov[2] = {{h, hl + 20}, {(void *)data, len}};
	pthread_mutex_lock(&s->mu);
	int rc = write_all(s, iov, 2, err);
	pthread_mutex_unlock(&s->mu);
	if (!rc) {
		f->offset += len;
		f->sent = true;
	}
	return rc;
}

static int flush(xbs_file *f, xb_error *err)
{
	if (!f->len)
		return 0;
	int rc = send_payload(f, f->buf, f->len, err);
	f->len = 0;
	return rc;
}

static xb_sink_file *xbs_open(xb_sink *s, const char *relpath, xb_error *err)
{
	while (relpath[0] == '.' && relpath[1] == '/')
		relpath += 2;
	size_t n = strlen(relpath);
	if (n == 0 || n > XBS_PATH_MAX) {
		xb_err_set(err, XB_E_TARGET, "cannot put \"%s\" in the xbstream: names are 1 to %d bytes long",
			   relpath, XBS_PATH_MAX);
		return NULL;
	}
	xbs_file *f = calloc(1, sizeof *f);
	if (!f || !(f->path = strdup(relpath))) {
		free(f);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	f->sink = s;
	f->plen = (uint32_t)n;
	return (xb_sink_file *)f;
}

static int grow(xbs_file *f, size_t need, xb_error *err)
{
	if (need <= f->cap)
		return 0;
	size_t cap = f->cap ? f->cap : BUF_START;
	while (cap < need)
		cap *= 2;
	if (cap > XBS_CHUNK_SIZE)
		cap = XBS_CHUNK_SIZE;
	uint8_t *b = realloc(f->buf, cap);
	if (!b)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory buffering %s for the stream", f->path);
	f->buf = b;
	f->cap = cap;
	return 0;
}

static int xbs_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	xbs_file *f = (xbs_file *)file;
	int rc;
	if (len == 0)
		return 0;
	if (len < XBS_CHUNK_SIZE - f->len) {
		if ((rc = grow(f, f->len + len, err)))
			return rc;
		memcpy(f->buf + f->len, buf, len);
		f->len += len;
	} else {
		if ((rc = flush(f, err)))
			return rc;
		const uint8_t *p = buf;
		for (size_t left = len; left > 0;) {
			size_t n = left < XBS_CHUNK_SIZE ? left : XBS_CHUNK_SIZE;
			if ((rc = send_payload(f, p, n, err)))
				return rc;
			p += n;
			left -= n;
		}
	}
	atomic_fetch_add((_Atomic uint64_t *)&f->sink->bytes_written, len);
	return 0;
}

static void file_free(xbs_file *f)
{
	free(f->buf);
	free(f->path);
	free(f);
}

static int xbs_close(xb_sink_file *file, xb_error *err)
{
	xbs_file *f = (xbs_file *)file;
	xbs_sink *s = (xbs_sink *)f->sink;
	int rc = flush(f, err);
	if (!rc) {
		uint8_t h[XBS_HEADER_LEN + XBS_PATH_MAX];
		struct iovec iov = {h, header(h, XBS_EOF, f)};
		pthread_mutex_lock(&s->mu);
		rc = write_all(s, &iov, 1, err);
		pthread_mutex_unlock(&s->mu);
	}
	file_free(f);
	return rc;
}

static void xbs_abort(xb_sink_file *file)
{
	xbs_file *f = (xbs_file *)file;
	xbs_sink *s = (xbs_sink *)f->sink;
	if (f->sent) {
		/* end of file, then remove: one write, so nothing comes between */
		uint8_t h[2 * (XBS_HEADER_LEN + XBS_PATH_MAX)];
		size_t n = header(h, XBS_EOF, f);
		n += header(h + n, XBS_REMOVE, f);
		struct iovec iov = {h, n};
		pthread_mutex_lock(&s->mu);
		write_all(s, &iov, 1, NULL);
		pthread_mutex_unlock(&s->mu);
	}
	file_free(f);
}

static int xbs_finish(xb_sink *sink, xb_error *err)
{
	xbs_sink *s = (xbs_sink *)sink;
	pthread_mutex_lock(&s->mu);
	int rc = s->failed.code;
	if (rc && err)
		*err = s->failed;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

static void xbs_free(xb_sink *sink)
{
	xbs_sink *s = (xbs_sink *)sink;
	pthread_mutex_destroy(&s->mu);
	free(s);
}

static const xb_sink_ops xbs_ops = {
	.open = xbs_open,
	.write = xbs_write,
	.close = xbs_close,
	.abort = xbs_abort,
	.finish = xbs_finish,
	.free = xbs_free,
};

xb_sink *xb_sink_xbstream_open(int fd, xb_error *err)
{
	xbs_sink *s = calloc(1, sizeof *s);
	if (!s) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	s->fd = fd;
	pthread_mutex_init(&s->mu, NULL);
	s->base.ops = &xbs_ops;
	s->base.name = fd == 1 ? "stdout" : "the stream";
	return &s->base;
}
