/*
 * memsink.h - test helpers shared by the sink filter tests: an in-memory
 * sink that records every file it is given (name, bytes, closed/aborted),
 * and deterministic random bytes. Header-only (static functions), included
 * by one test program each.
 */
#ifndef XB_TEST_MEMSINK_H
#define XB_TEST_MEMSINK_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sink/sink.h"

/* ---- an in-memory sink ---- */

typedef struct mrec {
	char name[256];
	uint8_t *data;
	size_t len, cap;
	int closed, aborted;
} mrec;

typedef struct msink {
	xb_sink base;
	pthread_mutex_t mu;
	mrec *recs[512];
	int n;
	int finished;
} msink;

typedef struct mfile {
	xb_sink *sink;
	mrec *r;
} mfile;

static xb_sink_file *m_open(xb_sink *s, const char *relpath, xb_error *err)
{
	msink *m = (msink *)s;
	mrec *r = calloc(1, sizeof *r);
	snprintf(r->name, sizeof r->name, "%s", relpath);
	pthread_mutex_lock(&m->mu);
	m->recs[m->n++] = r;
	pthread_mutex_unlock(&m->mu);
	mfile *f = calloc(1, sizeof *f);
	f->sink = s;
	f->r = r;
	return (xb_sink_file *)f;
}

static int m_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	mrec *r = ((mfile *)file)->r;
	if (!len)
		return 0; /* an empty file (a .del marker): nothing to copy */
	if (r->len + len > r->cap) {
		r->cap = (r->len + len) * 2;
		r->data = realloc(r->data, r->cap);
	}
	memcpy(r->data + r->len, buf, len);
	r->len += len;
	__atomic_fetch_add(&((mfile *)file)->sink->bytes_written, len, __ATOMIC_RELAXED);
	return 0;
}

static int m_close(xb_sink_file *file, xb_error *err)
{
	((mfile *)file)->r->closed = 1;
	free(file);
	return 0;
}

static void m_abort(xb_sink_file *file)
{
	((mfile *)file)->r->aborted = 1;
	free(file);
}

static int m_finish(xb_sink *s, xb_error *err)
{
	((msink *)s)->finished++;
	return 0;
}

static void m_free(xb_sink *s)
{
	msink *m = (msink *)s;
	for (int i = 0; i < m->n; i++) {
		free(m->recs[i]->data);
		free(m->recs[i]);
	}
	pthread_mutex_destroy(&m->mu);
	free(m);
}

static const xb_sink_ops m_ops = {m_open, m_write, m_close, m_abort, m_finish, m_free};

static msink *msink_new(void)
{
	msink *m = calloc(1, sizeof *m);
	m->base.ops = &m_ops;
	m->base.name = "memory";
	pthread_mutex_init(&m->mu, NULL);
	return m;
}

static mrec *mfind(msink *m, const char *name)
{
	for (int i = m->n - 1; i >= 0; i--)
		if (!strcmp(m->recs[i]->name, name))
			return m->recs[i];
	return NULL;
}

/* ---- data ---- */

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint8_t *random_bytes(size_t len)
{
	uint8_t *p = calloc(1, len + 1);
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)next_rand();
	return p;
}

#endif
