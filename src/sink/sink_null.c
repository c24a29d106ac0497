/*
 * sink_null.c - the discarding container (see sink_null.h). A file is a
 * small struct holding its sink, as every driver's file starts, and for the
 * kept file a growing buffer that becomes the sink's when it is closed.
 */
#include "sink_null.h"

#include <stdlib.h>
#include <string.h>

typedef struct null_sink {
	xb_sink base;      /* must be first */
	char *keep;        /* name of the file to keep, or NULL */
	size_t max;        /* its largest size */
	char *kept;        /* its bytes once closed (NUL-terminated) */
	size_t kept_len;   /* their count */
} null_sink;

typedef struct null_file {
	xb_sink *sink;     /* must be first: owning sink */
	char *buf;         /* the kept file's bytes so far, NULL for the others */
	size_t len, cap;   /* their count and room (cap 0: not kept) */
} null_file;

static xb_sink_file *ns_open(xb_sink *s, const char *relpath, xb_error *err)
{
	null_sink *ns = (null_sink *)s;
	null_file *f = calloc(1, sizeof *f);
	if (!f) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	f->sink = s;
	if (ns->keep && !strcmp(relpath, ns->keep)) {
		f->cap = 4096;
		if (!(f->buf = malloc(f->cap))) {
			free(f);
			xb_err_set(err, XB_E_INTERNAL, "out of memory");
			return NULL;
		}
	}
	return (xb_sink_file *)f;
}

static int ns_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	null_file *f = (null_file *)file;
	null_sink *ns = (null_sink *)f->sink;
	__atomic_fetch_add(&f->sink->bytes_written, len, __ATOMIC_RELAXED);
	if (!f->buf)
		return 0;
	if (len > ns->max - f->len)
		return xb_err_set(err, XB_E_INTERNAL, "%s is too large to be read into memory (over %zu bytes)", ns->keep,
				  ns->max);
	if (f->len + len + 1 > f->cap) {
		size_t nc = f->cap;
		while (f->len + len + 1 > nc)
			nc *= 2;
		char *nb = realloc(f->buf, nc);
		if (!nb)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		f->buf = nb;
		f->cap = nc;
	}
	memcpy(f->buf + f->len, buf, len);
	f->len += len;
	return 0;
}

static int ns_close(xb_sink_file *file, xb_error *err)
{
	null_file *f = (null_file *)file;
	if (f->buf) {
		null_sink *ns = (null_sink *)f->sink;
		f->buf[f->len] = '\0';
		free(ns->kept);
		ns->kept = f->buf;
		ns->kept_len = f->len;
	}
	free(f);
	return 0;
}

static void ns_abort(xb_sink_file *file)
{
	null_file *f = (null_file *)file;
	free(f->buf);
	free(f);
}

static void ns_free(xb_sink *s)
{
	null_sink *ns = (null_sink *)s;
	free(ns->keep);
	free(ns->kept);
	free(ns);
}

static const xb_sink_ops null_ops = {
	.open = ns_open,
	.write = ns_write,
	.close = ns_close,
	.abort = ns_abort,
	.free = ns_free,
};

xb_sink *xb_sink_null_open_keep(const char *keep, size_t max, xb_error *err)
{
	null_sink *ns = calloc(1, sizeof *ns);
	if (!ns || (keep && !(ns->keep = strdup(keep)))) {
		free(ns);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	ns->max = max;
	ns->base.ops = &null_ops;
	ns->base.name = "(memory)";
	return &ns->base;
}

xb_sink *xb_sink_null_open(xb_error *err)
{
	return xb_sink_null_open_keep(NULL, 0, err);
}

const char *xb_sink_null_kept(const xb_sink *s, size_t *len)
{
	const null_sink *ns = (const null_sink *)s;
	*len = ns->kept_len;
	return ns->kept;
}
