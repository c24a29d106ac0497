/*
 * sink_sum.c - the checksumming filter (see sink_sum.h).
 *
 * Each write updates the file's CRC-32C (innodb/crc32c.h: the SSE4.2
 * instruction, three streams interleaved, several GB/s per core) and its
 * byte count, keeps the file's first bytes, and hands the buffer to the
 * inner sink. close() closes the inner file first and reports the file only
 * when that succeeded, so the callback never lists a file that was not
 * published.
 */
#include "sink_sum.h"

#include <stdlib.h>
#include <string.h>

#include "innodb/crc32c.h"

typedef struct sum_sink {
	xb_sink base;       /* must be first */
	xb_sink *inner;     /* owned */
	xb_sink_sum_fn done; /* the report of a closed file */
	void *ctx;          /* given to done */
} sum_sink;

typedef struct sum_file {
	xb_sink *sink;             /* must be first: owning sink */
	xb_sink_file *inner;       /* the file in the inner sink */
	uint64_t size;             /* bytes written */
	uint32_t crc;              /* their CRC-32C so far */
	uint8_t head[XB_SINK_SUM_HEAD]; /* the first bytes */
	char name[];               /* relpath */
} sum_file;

static xb_sink_file *ss_open(xb_sink *s, const char *relpath, xb_error *err)
{
	sum_sink *ss = (sum_sink *)s;
	size_t n = strlen(relpath);
	sum_file *f = calloc(1, sizeof *f + n + 1);
	if (!f) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	f->sink = s;
	memcpy(f->name, relpath, n + 1);
	if (!(f->inner = xb_sink_open(ss->inner, relpath, err))) {
		free(f);
		return NULL;
	}
	return (xb_sink_file *)f;
}

static int ss_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	sum_file *f = (sum_file *)file;
	if (f->size < XB_SINK_SUM_HEAD) {
		size_t k = XB_SINK_SUM_HEAD - (size_t)f->size;
		memcpy(f->head + f->size, buf, k < len ? k : len);
	}
	f->crc = crc32c_update(f->crc, buf, len);
	f->size += len;
	__atomic_fetch_add(&f->sink->bytes_written, len, __ATOMIC_RELAXED);
	return xb_sink_write(f->inner, buf, len, err);
}

static void ss_abort(xb_sink_file *file)
{
	sum_file *f = (sum_file *)file;
	xb_sink_abort(f->inner);
	free(f);
}

static int ss_close(xb_sink_file *file, xb_error *err)
{
	sum_file *f = (sum_file *)file;
	sum_sink *ss = (sum_sink *)f->sink;
	int rc = xb_sink_close(f->inner, err);
	if (!rc && ss->done)
		ss->done(ss->ctx, f->name, f->size, f->crc, f->head,
			 f->size < XB_SINK_SUM_HEAD ? (size_t)f->size : XB_SINK_SUM_HEAD);
	free(f);
	return rc;
}

static int ss_finish(xb_sink *s, xb_error *err)
{
	return xb_sink_finish(((sum_sink *)s)->inner, err);
}

static void ss_free(xb_sink *s)
{
	xb_sink_free(((sum_sink *)s)->inner);
	free(s);
}

static const xb_sink_ops sum_ops = {
	.open = ss_open,
	.write = ss_write,
	.close = ss_close,
	.abort = ss_abort,
	.finish = ss_finish,
	.free = ss_free,
};

xb_sink *xb_sink_sum_open(xb_sink *inner, xb_sink_sum_fn done, void *ctx, xb_error *err)
{
	sum_sink *ss = calloc(1, sizeof *ss);
	if (!ss) {
		xb_sink_free(inner);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	ss->base.ops = &sum_ops;
	ss->base.name = inner->name;
	ss->inner = inner;
	ss->done = done;
	ss->ctx = ctx;
	return &ss->base;
}

xb_sink *xb_sink_sum_inner(xb_sink *s)
{
	return s && s->ops == &sum_ops ? ((sum_sink *)s)->inner : s;
}
