/*
 * progress.c - progress meter / periodic progress lines (see progress.h).
 *
 * The total is raised while the work goes on (files that grow while they are
 * copied, see xb_progress_total_counter); a sample never shows more done than
 * its total, nor 100% while more was done than counted.
 */
#include "progress.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "platform/clock.h"

enum { P_NONE, P_METER, P_LOG, P_NUMERIC };

struct xb_progress {
	int mode;                 /* P_* */
	char what[64];            /* "copied", shown in lines */
	_Atomic uint64_t done;    /* bytes done, updated by workers */
	_Atomic uint64_t total;   /* bytes expected */
	void (*extra)(void *ctx, char *buf, size_t len); /* optional suffix */
	void *ctx;                /* for extra */
	pthread_t thread;         /* the sampler */
	pthread_mutex_t mu;       /* protects stop */
	pthread_cond_t cv;        /* wakes the sampler for stop */
	int stop;                 /* set to end the thread */
	int drawn;                /* a meter line is on screen */
	struct timespec start;    /* start time */
};

static xb_progress *current; /* the meter the log hook clears */

static void clear_meter(void)
{
	if (current && current->drawn) {
		if (write(STDERR_FILENO, "\r\033[K", 4) < 0) {
			/* nothing to do */
		}
		current->drawn = 0;
	}
}

static void fmt_bytes(char *b, size_t n, double v)
{
	const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int i = 0;
	while (v >= 1024 && i < 4)
		v /= 1024, i++;
	snprintf(b, n, "%.1f %s", v, u[i]);
}

static void sample(xb_progress *p, double t0, int final)
{
	uint64_t done = atomic_load(&p->done), total = atomic_load(&p->total);
	/* a file copied past the size it was counted with, and not yet added to
	 * the total: the total is at least what is done, and 100% means the end */
	bool over = done > total;
	if (over)
		total = done;
	double el = xb_clock_sec() - t0;
	double rate = el > 0 ? (double)done / el : 0;
	char d[32], t[32], extra[128] = "", eta[32] = "--:--";
	fmt_bytes(d, sizeof d, (double)done);
	fmt_bytes(t, sizeof t, (double)total);
	if (p->extra)
		p->extra(p->ctx, extra, sizeof extra);
	if (rate > 0 && (total > done || over)) {
		long s = (long)((double)(total - done) / rate);
		snprintf(eta, sizeof eta, "%ld:%02ld", s / 60, s % 60);
	}
	int pct = total ? (int)(100.0 * (double)done / (double)total) : 0;
	if (pct > 99 && over)
		pct = 99; /* more is coming than was counted */
	if (pct > 100)
		pct = 100;
	if (p->mode == P_METER && !final) {
		char line[256];
		int n = snprintf(line, sizeof line, "\r\033[K%3d%% %s / %s  %.1f MB/s  ETA %s  %s", pct, d, t,
				 rate / 1e6, eta, extra);
		xb_log_lock();
		if (write(STDERR_FILENO, line, (size_t)n) < 0) {
			/* the meter is best effort */
		}
		p->drawn = 1;
		xb_log_unlock();
	} else if (p->mode == P_LOG) {
		xb_info("Progress: %s %s of %s (%d%%), %.1f MB/s, ETA %s %s", p->what, d, t, pct, rate / 1e6, eta, extra);
	} else if (p->mode == P_NUMERIC) {
		xb_log_raw("PROGRESS %llu %llu", (unsigned long long)done, (unsigned long long)total);
	}
}

static void *run(void *arg)
{
	xb_progress *p = arg;
	double t0 = xb_clock_sec();
	int period = p->mode == P_LOG ? 10 : 1, ticks = 0;
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		struct timespec ts = xb_clock_after_ms(1000);
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
		if (p->stop)
			break;
		if (++ticks % period)
			continue;
		pthread_mutex_unlock(&p->mu);
		sample(p, t0, 0);
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int xb_progress_start(xb_progress **out, const char *mode, const char *what,
		      void (*extra)(void *ctx, char *buf, size_t len), void *ctx, xb_error *err)
{
	int m;
	if (!mode || !strcmp(mode, "auto"))
		m = isatty(STDERR_FILENO) ? P_METER : P_LOG;
	else if (!strcmp(mode, "meter"))
		m = P_METER;
	else if (!strcmp(mode, "log"))
		m = P_LOG;
	else if (!strcmp(mode, "numeric"))
		m = P_NUMERIC;
	else if (!strcmp(mode, "none"))
		m = P_NONE;
	else
		return xb_err_set(err, XB_E_INTERNAL, "unknown progress mode '%s'", mode); /* --progress is checked by the parser */
	xb_progress *p = calloc(1, sizeof *p);
	if (!p)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	p->mode = m;
	snprintf(p->what, sizeof p->what, "%s", what);
	p->extra = extra;
	p->ctx = ctx;
	pthread_mutex_init(&p->mu, NULL);
	xb_clock_cond_init(&p->cv);
	*out = p;
	if (m == P_NONE)
		return 0;
	if (m == P_METER) {
		current = p;
		xb_log_set_before_line(clear_meter);
	}
	if (pthread_create(&p->thread, NULL, run, p)) {
		p->mode = P_NONE;
		return 0;
	}
	return 0;
}

void xb_progress_add_total(xb_progress *p, uint64_t bytes) { atomic_fetch_add(&p->total, bytes); }

volatile uint64_t *xb_progress_counter(xb_progress *p) { return (volatile uint64_t *)&p->done; }

volatile uint64_t *xb_progress_total_counter(xb_progress *p) { return (volatile uint64_t *)&p->total; }

void xb_progress_stop(xb_progress *p)
{
	if (!p)
		return;
	if (p->mode != P_NONE) {
		pthread_mutex_lock(&p->mu);
		p->stop = 1;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
	}
	xb_log_lock();
	clear_meter();
	xb_log_unlock();
	if (current == p) {
		xb_log_set_before_line(NULL);
		current = NULL;
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
}
