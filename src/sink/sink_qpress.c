/*
 * sink_qpress.c - the .qp decompression filter (see sink_qpress.h).
 *
 * Each *.qp file gets its own reader (stream/qpress.h), fed with whatever
 * pieces the writer hands over; the blocks it decodes are gathered in a
 * 1 MiB buffer (4 KiB aligned, as a directory sink may write it with direct
 * I/O) and handed to the inner file when full and at close, so the inner
 * sink sees large pieces whatever the block size mariabackup used. close()
 * first checks the archive ended with its trailer: a truncated file never
 * appears under its decoded name. Other files pass straight through.
 *
 * bytes_written counts the bytes accepted, as read from the .qp files.
 */
#include "sink_qpress.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stream/qpress.h"

#define OUT_SIZE (1u << 20)  /* output gathered before an inner write */
#define OUT_ALIGN 4096u
#define SUFFIX_LEN (sizeof XB_QPRESS_SUFFIX - 1)

typedef struct qp_sink {
	xb_sink base;    /* must be first */
	xb_sink *inner;  /* owned */
} qp_sink;

typedef struct qp_file {
	xb_sink *sink;        /* must be first: owning sink */
	xb_sink_file *inner;  /* the file in the inner sink */
	xb_qpress *q;         /* NULL: passed through unchanged */
	uint8_t *out;         /* OUT_SIZE bytes of decoded data waiting */
	size_t outpos;        /* bytes in out */
} qp_file;

static bool has_suffix(const char *s)
{
	size_t n = strlen(s);
	return n > SUFFIX_LEN && !strcmp(s + n - SUFFIX_LEN, XB_QPRESS_SUFFIX);
}

static int flush_out(qp_file *f, xb_error *err)
{
	if (!f->outpos)
		return 0;
	int rc = xb_sink_write(f->inner, f->out, f->outpos, err);
	f->outpos = 0;
	return rc;
}

/* The reader's output: gathered, written in OUT_SIZE pieces. */
static int take_block(void *arg, const uint8_t *buf, size_t len, xb_error *err)
{
	qp_file *f = arg;
	while (len) {
		size_t n = OUT_SIZE - f->outpos < len ? OUT_SIZE - f->outpos : len;
		memcpy(f->out + f->outpos, buf, n);
		f->outpos += n;
		buf += n;
		len -= n;
		if (f->outpos == OUT_SIZE) {
			int rc = flush_out(f, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static void free_file(qp_file *f)
{
	xb_qpress_free(f->q);
	free(f->out);
	free(f);
}

static xb_sink_file *qs_open(xb_sink *s, const char *relpath, xb_error *err)
{
	qp_sink *z = (qp_sink *)s;
	qp_file *f = calloc(1, sizeof *f);
	char *bare = NULL;
	if (!f)
		goto oom;
	f->sink = s;
	if (has_suffix(relpath)) {
		size_t n = strlen(relpath) - SUFFIX_LEN;
		if (!(bare = strndup(relpath, n)))
			goto oom;
		if (posix_memalign((void **)&f->out, OUT_ALIGN, OUT_SIZE)) {
			f->out = NULL;
			goto oom;
		}
		if (!(f->q = xb_qpress_new(relpath, take_block, f, err)))
			goto fail;
	}
	f->inner = xb_sink_open(z->inner, bare ? bare : relpath, err);
	free(bare);
	if (!f->inner) {
		free_file(f);
		return NULL;
	}
	return (xb_sink_file *)f;
oom:
	xb_err_set(err, XB_E_INTERNAL, "out of memory");
fail:
	free(bare);
	if (f)
		free_file(f);
	return NULL;
}

static int qs_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	qp_file *f = (qp_file *)file;
	int rc = f->q ? xb_qpress_feed(f->q, buf, len, err) : xb_sink_write(f->inner, buf, len, err);
	if (!rc)
		atomic_fetch_add((_Atomic uint64_t *)&f->sink->bytes_written, len);
	return rc;
}

static void qs_abort(xb_sink_file *file)
{
	qp_file *f = (qp_file *)file;
	xb_sink_abort(f->inner);
	free_file(f);
}

static int qs_close(xb_sink_file *file, xb_error *err)
{
	qp_file *f = (qp_file *)file;
	int rc = f->q ? xb_qpress_end(f->q, err) : 0;
	if (!rc && f->q)
		rc = flush_out(f, err);
	if (rc) {
		qs_abort(file);
		return rc;
	}
	rc = xb_sink_close(f->inner, err);
	free_file(f);
	return rc;
}

static int qs_finish(xb_sink *s, xb_error *err)
{
	return xb_sink_finish(((qp_sink *)s)->inner, err);
}

static void qs_free(xb_sink *s)
{
	qp_sink *z = (qp_sink *)s;
	xb_sink_free(z->inner);
	free(z);
}

static const xb_sink_ops qpress_ops = {
	.open = qs_open,
	.write = qs_write,
	.close = qs_close,
	.abort = qs_abort,
	.finish = qs_finish,
	.free = qs_free,
};

xb_sink *xb_sink_unqpress_open(xb_sink *inner, xb_error *err)
{
	qp_sink *z = calloc(1, sizeof *z);
	if (!z) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	z->base.ops = &qpress_ops;
	z->base.name = inner->name;
	z->inner = inner;
	return &z->base;
}
