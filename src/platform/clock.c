/*
 * clock.c - the monotonic clock on POSIX systems: CLOCK_MONOTONIC through
 * clock_gettime(2) and clock_nanosleep(2) (see clock.h).
 */
#include "platform/clock.h"

#include <errno.h>

uint64_t xb_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double xb_clock_sec(void)
{
	return (double)xb_clock_ns() / 1e9;
}

struct timespec xb_clock_after_ms(unsigned ms)
{
	uint64_t t = xb_clock_ns() + (uint64_t)ms * 1000000u;
	struct timespec ts = {.tv_sec = (time_t)(t / 1000000000u), .tv_nsec = (long)(t % 1000000000u)};
	return ts;
}

int xb_clock_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	int rc = pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
	return rc;
}

void xb_clock_sleep_until(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
