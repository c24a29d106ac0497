/*
 * sink.c - thin wrappers that dispatch to a sink driver's vtable (see sink.h).
 */
#include "sink.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

xb_sink_file *xb_sink_open(xb_sink *s, const char *relpath, xb_error *err)
{
	return s->ops->open(s, relpath, err);
}

int xb_sink_write(xb_sink_file *f, const void *buf, size_t len, xb_error *err)
{
	return (*(xb_sink **)f)->ops->write(f, buf, len, err);
}

int xb_sink_close(xb_sink_file *f, xb_error *err)
{
	return (*(xb_sink **)f)->ops->close(f, err);
}

void xb_sink_abort(xb_sink_file *f)
{
	if (f)
		(*(xb_sink **)f)->ops->abort(f);
}

int xb_sink_finish(xb_sink *s, xb_error *err)
{
	return s->ops->finish ? s->ops->finish(s, err) : 0;
}

void xb_sink_free(xb_sink *s)
{
	if (!s)
		return;
	if (__atomic_fetch_sub(&s->extra_refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	s->ops->free(s);
}

xb_sink *xb_sink_ref(xb_sink *s)
{
	__atomic_fetch_add(&s->extra_refs, 1, __ATOMIC_ACQ_REL);
	return s;
}

int xb_sink_put(xb_sink *s, const char *relpath, const void *buf, size_t len, xb_error *err)
{
	xb_sink_file *f = xb_sink_open(s, relpath, err);
	if (!f)
		return err ? err->code : XB_E_IO_WRITE;
	int rc = xb_sink_write(f, buf, len, err);
	if (rc) {
		xb_sink_abort(f);
		return rc;
	}
	return xb_sink_close(f, err);
}

int xb_sink_put_fd(xb_sink *s, const char *relpath, int fd, const char *src,
		   void (*seen)(void *ctx, const void *buf, size_t n), void *ctx, xb_error *err)
{
	xb_sink_file *f = xb_sink_open(s, relpath, err);
	if (!f)
		return err && err->code ? err->code : XB_E_IO_WRITE;
	static __thread char buf[1 << 20];
	int rc = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", src, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (seen)
			seen(ctx, buf, (size_t)n);
		if ((rc = xb_sink_write(f, buf, (size_t)n, err)))
			break;
	}
	if (rc) {
		xb_sink_abort(f);
		return rc;
	}
	return xb_sink_close(f, err);
}
