/*
 * throttle.c - shared read-rate limiter (see throttle.h).
 *
 * State is one "next free start time" on CLOCK_MONOTONIC, in nanoseconds.
 * A caller taking b bytes books the interval [max(next, now), +b/rate) and
 * moves `next` to its end; it then sleeps with an absolute clock_nanosleep
 * until the start of its interval. Concurrent callers therefore queue up one
 * behind the other in booking order, and the aggregate never exceeds the
 * rate by more than the one request that starts at once.
 */
#include "throttle.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "platform/clock.h"

struct xb_throttle {
	pthread_mutex_t mu;    /* protects next_ns */
	unsigned ops;          /* operations (MiB) per second, 0 = unlimited (adjustable limiters) */
	uint64_t rate;         /* bytes per second: ops * XB_THROTTLE_OP_BYTES, 0 = unlimited */
	int64_t next_ns;       /* monotonic time at which the next booking may start */
};

#define NS_PER_SEC 1000000000LL

int xb_throttle_create(unsigned ops_per_sec, xb_throttle **out, xb_error *err)
{
	*out = NULL;
	if (ops_per_sec == 0)
		return 0;
	xb_throttle *t = calloc(1, sizeof *t);
	if (!t)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory creating the --throttle limiter");
	pthread_mutex_init(&t->mu, NULL);
	t->ops = ops_per_sec;
	t->rate = (uint64_t)ops_per_sec * XB_THROTTLE_OP_BYTES;
	t->next_ns = 0;
	*out = t;
	return 0;
}

xb_throttle *xb_throttle_new_adjustable(void)
{
	xb_throttle *t = calloc(1, sizeof *t);
	if (t)
		pthread_mutex_init(&t->mu, NULL);
	return t;
}

void xb_throttle_set_rate(xb_throttle *t, unsigned ops_per_sec)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->ops = ops_per_sec;
	t->rate = (uint64_t)ops_per_sec * XB_THROTTLE_OP_BYTES;
	int64_t now = (int64_t)xb_clock_ns();
	if (t->next_ns > now)
		t->next_ns = now; /* bookings made at the old rate do not carry over */
	pthread_mutex_unlock(&t->mu);
}

/* Nanoseconds needed for `bytes` at t->rate, without overflowing. */
static int64_t duration_ns(const xb_throttle *t, uint64_t bytes)
{
	uint64_t whole = bytes / t->rate, rem = bytes % t->rate;
	return (int64_t)(whole * (uint64_t)NS_PER_SEC + rem * (uint64_t)NS_PER_SEC / t->rate);
}

void xb_throttle_take(xb_throttle *t, uint64_t bytes)
{
	if (!t || bytes == 0)
		return;
	int64_t now = (int64_t)xb_clock_ns();
	pthread_mutex_lock(&t->mu);
	if (t->rate == 0) {
		pthread_mutex_unlock(&t->mu);
		return;
	}
	int64_t start = t->next_ns > now ? t->next_ns : now;
	t->next_ns = start + duration_ns(t, bytes);
	pthread_mutex_unlock(&t->mu);
	if (start <= now)
		return;
	xb_clock_sleep_until((uint64_t)start);
}

unsigned xb_throttle_rate(const xb_throttle *t)
{
	if (!t)
		return 0;
	pthread_mutex_lock((pthread_mutex_t *)&t->mu);
	unsigned ops = t->ops;
	pthread_mutex_unlock((pthread_mutex_t *)&t->mu);
	return ops;
}

void xb_throttle_free(xb_throttle *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->mu);
	free(t);
}
