/*
 * xbstream_reader.c - the xbstream pull parser (format in xbstream_reader.h).
 *
 * Input is pulled through a 256 KiB buffer so that the small fixed parts of
 * chunks cost no system call each; payloads larger than what is buffered
 * are read straight into the chunk's data buffer. Every length is checked
 * before anything is allocated or read, and every number the caller gets is
 * small enough for an off_t: a hostile stream can make us fail, never
 * allocate more than XBS_PAYLOAD_MAX or seek to a negative position.
 */
#include "xbstream_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/bytes.h"

#define INBUF (256u << 10)
#define OFFSET_MAX ((uint64_t)INT64_MAX)

struct xbs_reader {
	xbs_read_fn fn;     /* where bytes come from */
	void *arg;          /* its argument */
	char *name;         /* "stdin", for messages */
	uint8_t *buf;       /* read-ahead buffer */
	size_t pos, end;    /* unread bytes are buf[pos..end) */
	uint64_t offset;    /* stream offset of buf[pos] */
	bool verify;        /* check payload checksums in xbs_next() */
	bool eof;           /* the callback returned 0 */
	bool failed;        /* an error was returned: no more chunks */
	int fd;             /* for xbs_reader_fd */
};

uint32_t xbs_crc32(const void *data, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	const Bytef *p = data;
	while (len > 0) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
		crc = crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return (uint32_t)crc;
}

xbs_reader *xbs_reader_new(xbs_read_fn fn, void *arg, const char *name, xb_error *err)
{
	xbs_reader *r = calloc(1, sizeof *r);
	if (!r || !(r->buf = malloc(INBUF)) || !(r->name = strdup(name ? name : "the stream"))) {
		if (r)
			free(r->buf);
		free(r);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	r->fn = fn;
	r->arg = arg;
	r->verify = true;
	r->fd = -1;
	return r;
}

static ssize_t fd_read(void *arg, void *buf, size_t len)
{
	const xbs_reader *r = arg;
	return read(r->fd, buf, len);
}

xbs_reader *xbs_reader_fd(int fd, const char *name, xb_error *err)
{
	xbs_reader *r = xbs_reader_new(fd_read, NULL, name, err);
	if (r) {
		r->arg = r;
		r->fd = fd;
	}
	return r;
}

void xbs_reader_free(xbs_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r->name);
	free(r);
}

void xbs_reader_set_verify(xbs_reader *r, bool on) { r->verify = on; }

uint64_t xbs_reader_offset(const xbs_reader *r) { return r->offset; }

void xbs_chunk_release(xbs_chunk *c)
{
	free(c->data);
	c->data = NULL;
	c->cap = 0;
}

/* One call of the callback, retried on EINTR. Returns bytes, 0 at the end, -1 on error. */
static ssize_t pull(xbs_reader *r, void *dst, size_t len, xb_error *err)
{
	if (r->eof)
		return 0;
	for (;;) {
		ssize_t n = r->fn(r->arg, dst, len);
		if (n > 0)
			return n;
		if (n == 0) {
			r->eof = true;
			return 0;
		}
		if (errno == EINTR)
			continue;
		xb_err_set(err, XB_E_IO_READ, "cannot read the stream from %s at offset %llu: %s", r->name,
			   (unsigned long long)r->offset, strerror(errno));
		return -1;
	}
}

/* Read exactly len bytes into dst. Returns the bytes read (less than len only
 * at the end of the input) or -1 on a read error. */
static ssize_t get(xbs_reader *r, void *dst, size_t len, xb_error *err)
{
	uint8_t *out = dst;
	size_t got = 0;
	while (got < len) {
		if (r->pos < r->end) {
			size_t n = r->end - r->pos;
			if (n > len - got)
				n = len - got;
			memcpy(out + got, r->buf + r->pos, n);
			r->pos += n;
			r->offset += n;
			got += n;
			continue;
		}
		ssize_t n;
		if (len - got >= INBUF) {
			/* large payload: straight into the destination */
			n = pull(r, out + got, len - got, err);
			if (n > 0) {
				got += (size_t)n;
				r->offset += (uint64_t)n;
			}
		} else {
			n = pull(r, r->buf, INBUF, err);
			if (n > 0) {
				r->pos = 0;
				r->end = (size_t)n;
			}
		}
		if (n < 0)
			return -1;
		if (n == 0)
			break;
	}
	return (ssize_t)got;
}

/* Read the fixed-size part of a chunk; a short read is truncation. */
static int need(xbs_reader *r, void *dst, size_t len, const xbs_chunk *c, xb_error *err)
{
	ssize_t n = get(r, dst, len, err);
	if (n < 0)
		return XB_E_IO_READ;
	if ((size_t)n < len) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: the stream ends inside the chunk of %s "
			   "(truncated after %llu bytes of it)", (unsigned long long)c->at,
			   c->path[0] ? c->path : "(no name)", (unsigned long long)(r->offset - c->at));
		xb_err_hint(err, "the stream was cut short: the writer failed or the transfer broke");
		return XB_E_STREAM_CORRUPT;
	}
	return 0;
}

/* Paths are printed in messages: no NUL (it would cut them) and no control
 * characters (they would garble a terminal or a log). */
static bool has_control(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return true;
	return false;
}

static int fail(xbs_reader *r, int rc)
{
	r->failed = true;
	return rc;
}

int xbs_next(xbs_reader *r, xbs_chunk *c, xb_error *err)
{
	uint8_t h[XBS_HEADER_LEN], n[20];
	c->type = XBS_END;
	c->path[0] = c->newpath[0] = '\0';
	c->offset = 0;
	c->len = 0;
	c->crc = 0;
	c->flags = 0;
	c->at = r->offset;
	if (r->failed)
		return xb_err_set(err, XB_E_INTERNAL, "xbs_next called after an error");
	ssize_t got = get(r, h, sizeof h, err);
	if (got < 0)
		return fail(r, XB_E_IO_READ);
	if (got == 0)
		return 0;
	if ((size_t)got < sizeof h) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: the stream ends inside a chunk header "
			   "(%zd of %d bytes)", (unsigned long long)c->at, got, XBS_HEADER_LEN);
		xb_err_hint(err, "the stream was cut short: the writer failed or the transfer broke");
		return fail(r, XB_E_STREAM_CORRUPT);
	}
	if (memcmp(h, XBS_MAGIC, XBS_MAGIC_LEN)) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: no chunk magic (%s)%s",
			   (unsigned long long)c->at, XBS_MAGIC,
			   c->at ? ": the stream is corrupt" : ": this is not an xbstream stream");
		if (!c->at)
			xb_err_hint(err, "a tar stream is extracted with tar -x; a stream compressed as a whole "
				    "(gzip, zstd) is decompressed before xbstream -x");
		return fail(r, XB_E_STREAM_CORRUPT);
	}
	c->flags = h[8];
	uint8_t type = h[9];
	uint32_t plen = le32_get(h + 10);
	bool known = type == XBS_PAYLOAD || type == XBS_EOF || type == XBS_SEEK || type == XBS_RENAME ||
		     type == XBS_REMOVE;
	if (!known && !(c->flags & XBS_FLAG_IGNORABLE)) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: unknown chunk type 0x%02x",
			   (unsigned long long)c->at, type);
		return fail(r, XB_E_STREAM_CORRUPT);
	}
	c->type = known ? type : XBS_IGNORED;
	if (plen > XBS_PATH_MAX) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: path length %u in a chunk header "
			   "(at most %d)", (unsigned long long)c->at, plen, XBS_PATH_MAX);
		return fail(r, XB_E_STREAM_CORRUPT);
	}
	int rc = need(r, c->path, plen, c, err);
	if (rc)
		return fail(r, rc);
	c->path[plen] = '\0';
	if (has_control(c->path, plen)) {
		c->path[0] = '\0';
		xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: the path of a chunk holds a NUL or "
			   "control character", (unsigned long long)c->at);
		return fail(r, XB_E_STREAM_CORRUPT);
	}
	switch (c->type) {
	case XBS_EOF:
	case XBS_REMOVE:
		return 0;
	case XBS_SEEK:
		if ((rc = need(r, n, 8, c, err)))
			return fail(r, rc);
		c->offset = le64_get(n);
		if (c->offset > OFFSET_MAX) {
			xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: seek in %s to offset %llu, "
				   "past any file size", (unsigned long long)c->at, c->path,
				   (unsigned long long)c->offset);
			return fail(r, XB_E_STREAM_CORRUPT);
		}
		return 0;
	case XBS_RENAME: {
		if ((rc = need(r, n, 4, c, err)))
			return fail(r, rc);
		uint32_t nlen = le32_get(n);
		if (nlen == 0 || nlen > XBS_PATH_MAX) {
			xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: rename of %s to a name of %u bytes "
				   "(1 to %d)", (unsigned long long)c->at, c->path, nlen, XBS_PATH_MAX);
			return fail(r, XB_E_STREAM_CORRUPT);
		}
		if ((rc = need(r, c->newpath, nlen, c, err)))
			return fail(r, rc);
		c->newpath[nlen] = '\0';
		if (has_control(c->newpath, nlen)) {
			c->newpath[0] = '\0';
			xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: the new name in the rename of %s "
				   "holds a NUL or control character", (unsigned long long)c->at, c->path);
			return fail(r, XB_E_STREAM_CORRUPT);
		}
		return 0;
	}
	default:
		break; /* payload, and ignorable chunks of unknown type, which have its layout */
	}
	if ((rc = need(r, n, 20, c, err)))
		return fail(r, rc);
	uint64_t len = le64_get(n), off = le64_get(n + 8);
	c->crc = le32_get(n + 16);
	if (len > XBS_PAYLOAD_MAX) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: chunk of %s declares %llu bytes of data "
			   "(at most %u)", (unsigned long long)c->at, c->path, (unsigned long long)len,
			   XBS_PAYLOAD_MAX);
		return fail(r, XB_E_STREAM_CORRUPT);
	}
	if (off > OFFSET_MAX - len) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: chunk of %s at file offset %llu, "
			   "past any file size", (unsigned long long)c->at, c->path, (unsigned long long)off);
		return fail(r, XB_E_STREAM_CORRUPT);
	}
	c->len = (size_t)len;
	c->offset = off;
	if (c->cap < c->len || !c->data) {
		size_t cap = c->len ? c->len : 1;
		uint8_t *d = realloc(c->data, cap);
		if (!d) {
			xb_err_set(err, XB_E_INTERNAL, "out of memory for a chunk of %zu bytes", c->len);
			return fail(r, XB_E_INTERNAL);
		}
		c->data = d;
		c->cap = cap;
	}
	if ((rc = need(r, c->data, c->len, c, err)))
		return fail(r, rc);
	if (r->verify && (rc = xbs_chunk_verify(c, err)))
		return fail(r, rc);
	return 0;
}

int xbs_chunk_verify(const xbs_chunk *c, xb_error *err)
{
	return xbs_verify(c->at, c->path, c->offset, c->data, c->len, c->crc, err);
}

int xbs_verify(uint64_t at, const char *path, uint64_t offset, const void *data, size_t len, uint32_t stored,
	       xb_error *err)
{
	uint32_t crc = xbs_crc32(data, len);
	if (crc == stored)
		return 0;
	xb_err_set(err, XB_E_STREAM_CORRUPT, "stream offset %llu: bad checksum in chunk of %s (file offset %llu, "
		   "%zu bytes: stored 0x%08x, computed 0x%08x)", (unsigned long long)at, path,
		   (unsigned long long)offset, len, stored, crc);
	xb_err_hint(err, "the stream was altered in transit or on disk; take the backup again");
	return XB_E_STREAM_CORRUPT;
}

int xbs_path_check(const char *path, bool wildcard, xb_error *err)
{
	size_t len = strlen(path);
	const char *why = NULL;
	if (len == 0)
		why = "is empty";
	else if (len > XBS_PATH_MAX)
		why = "is too long";
	else if (path[0] == '/')
		why = "is absolute";
	for (size_t i = 0; !why && i < len; i++) {
		unsigned char ch = (unsigned char)path[i];
		if (ch < 0x20 || ch == 0x7f)
			why = "holds a control character";
		else if (ch == '*' && !(wildcard && i == len - 1))
			why = wildcard ? "has a '*' before its end" : "holds a '*'";
	}
	/* components: none empty, "." or ".." */
	for (const char *p = path; !why && p <= path + len;) {
		const char *s = strchr(p, '/');
		size_t n = s ? (size_t)(s - p) : strlen(p);
		if (n == 0)
			why = "has an empty component";
		else if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			why = n == 1 ? "has a \".\" component" : "leaves the target directory (\"..\")";
		if (!s)
			break;
		p = s + 1;
	}
	if (!why)
		return 0;
	xb_err_set(err, XB_E_STREAM_CORRUPT, "unsafe path in the stream: \"%.*s\" %s", XBS_PATH_MAX, path, why);
	xb_err_hint(err, "the stream may only create files below the extraction directory");
	return XB_E_STREAM_CORRUPT;
}
