/*
 * clock.h - the one monotonic clock.
 *
 * Durations, rates, deadlines and timeouts are measured on a clock that
 * never jumps (not the wall clock, which an administrator or NTP may set
 * back). Wall-clock times, for the log and the metadata files, come from
 * time(2) where they are written.
 */
#ifndef XB_CLOCK_H
#define XB_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Nanoseconds since an arbitrary fixed point (the machine's boot). */
uint64_t xb_clock_ns(void);

/* The same in seconds. */
double xb_clock_sec(void);

/* The absolute time ms milliseconds from now on the monotonic clock, for
 * pthread_cond_timedwait on a condition variable made with
 * xb_clock_cond_init(). */
struct timespec xb_clock_after_ms(unsigned ms);

/* Initialise a condition variable whose timed waits use this clock. */
int xb_clock_cond_init(pthread_cond_t *cv);

/* Sleep until ns (a value of xb_clock_ns()); returns at once when it has passed. */
void xb_clock_sleep_until(uint64_t ns);

#endif
