/*
 * parallel.c - the parallel executor (see parallel.h).
 *
 * Jobs are handed out by an atomic counter; the first error is kept under a
 * mutex together with a stop flag that every worker checks before taking a
 * job. Each worker signals a condition variable when it ends, which is what
 * the calling thread waits on between ticks (with a timeout, so a tick
 * comes every tick_ms whatever the workers do).
 */
#include "common/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "platform/clock.h"

struct xb_parallel {
	const xb_parallel_cfg *cfg; /* the run */
	atomic_size_t next;         /* next job to hand out */
	atomic_int stop;            /* set by the first failure */
	atomic_int running;         /* workers not yet ended */
	pthread_mutex_t mu;         /* guards err and the end signal */
	pthread_cond_t ended;       /* a worker ended */
	xb_error err;               /* the first error */
};

typedef struct worker {
	xb_parallel *p;  /* the run */
	int id;          /* 1.. */
	void *state;     /* from worker_start */
	pthread_t tid;   /* its thread */
	bool started;    /* tid is valid */
} worker;

static void fail(xb_parallel *p, const xb_error *e, int rc)
{
	pthread_mutex_lock(&p->mu);
	if (!atomic_load(&p->stop)) {
		p->err = *e;
		if (!p->err.code)
			p->err.code = rc ? rc : XB_E_INTERNAL;
		atomic_store(&p->stop, 1);
	}
	pthread_mutex_unlock(&p->mu);
}

static void work(worker *w)
{
	xb_parallel *p = w->p;
	const xb_parallel_cfg *c = p->cfg;
	xb_error e;
	xb_err_clear(&e);
	int rc = c->worker_start ? c->worker_start(c->ctx, w->id, &w->state, &e) : 0;
	if (rc)
		fail(p, &e, rc);
	while (!rc && !atomic_load(&p->stop)) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= c->jobs)
			break;
		rc = c->job(p, c->ctx, i, w->id, w->state, &e);
		if (rc)
			fail(p, &e, rc);
	}
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	work(w);
	xb_parallel *p = w->p;
	pthread_mutex_lock(&p->mu);
	atomic_fetch_sub(&p->running, 1);
	pthread_cond_signal(&p->ended);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int xb_parallel_threads(const xb_parallel_cfg *cfg)
{
	int t = cfg->threads < 1 ? 1 : cfg->threads;
	if (cfg->jobs && (size_t)t > cfg->jobs)
		t = (int)cfg->jobs;
	return t;
}

bool xb_parallel_stopping(const xb_parallel *p)
{
	return atomic_load(&p->stop) != 0;
}

int xb_parallel_run(const xb_parallel_cfg *cfg, xb_error *err)
{
	int nt = xb_parallel_threads(cfg);
	worker *w = calloc((size_t)nt, sizeof *w);
	if (!w)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory starting %d threads", nt);
	xb_parallel p = {.cfg = cfg};
	xb_err_clear(&p.err);
	pthread_mutex_init(&p.mu, NULL);
	xb_clock_cond_init(&p.ended);
	int started = 0;
	for (int i = 0; i < nt; i++)
		w[i] = (worker){.p = &p, .id = i + 1};
	if (nt > 1 || cfg->tick) { /* ticks need the caller free: even one worker gets a thread */
		for (int i = 0; i < nt; i++) {
			atomic_fetch_add(&p.running, 1);
			if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
				atomic_fetch_sub(&p.running, 1);
				break;
			}
			w[i].started = true;
			started++;
		}
	}
	if (!started) {
		work(&w[0]); /* one worker, or no thread could start: the jobs run here */
	} else {
		unsigned ms = cfg->tick_ms ? cfg->tick_ms : 500;
		pthread_mutex_lock(&p.mu);
		while (atomic_load(&p.running) > 0) {
			struct timespec ts = xb_clock_after_ms(ms);
			pthread_cond_timedwait(&p.ended, &p.mu, &ts);
			if (!cfg->tick || atomic_load(&p.running) == 0 || atomic_load(&p.stop))
				continue;
			pthread_mutex_unlock(&p.mu);
			xb_error e;
			xb_err_clear(&e);
			int rc = cfg->tick(cfg->ctx, &e);
			if (rc)
				fail(&p, &e, rc);
			pthread_mutex_lock(&p.mu);
		}
		pthread_mutex_unlock(&p.mu);
		for (int i = 0; i < nt; i++)
			if (w[i].started)
				pthread_join(w[i].tid, NULL);
	}
	if (cfg->worker_end)
		for (int i = 0; i < nt; i++)
			cfg->worker_end(cfg->ctx, w[i].id, w[i].state);
	free(w);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.ended);
	if (!atomic_load(&p.stop))
		return 0;
	if (err)
		*err = p.err;
	return p.err.code;
}
