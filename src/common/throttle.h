/*
 * throttle.h - the --throttle=N read limit shared by all copy threads.
 *
 * --throttle=N allows N read operations per second, one operation being
 * 1 MiB, so reads run at about N MiB/s whatever the number of threads.
 * The limiter is a token bucket without stored credit: every caller books
 * its bytes on one shared timeline under a mutex (the k-th MiB of a busy
 * stream may start k/N seconds after the first) and then sleeps, outside
 * the lock, until its booked start time. Nothing busy-waits; idle time does
 * not build up a burst allowance. A NULL throttle (N = 0) never waits.
 */
#ifndef XB_THROTTLE_H
#define XB_THROTTLE_H

#include <stdint.h>

#include "error.h"

/* Bytes in one throttled operation (1 MiB, as --throttle counts them). */
#define XB_THROTTLE_OP_BYTES ((uint64_t)1 << 20)

typedef struct xb_throttle xb_throttle;

/* Create a limiter of ops_per_sec operations (MiB) per second for all threads.
 * ops_per_sec 0 means unlimited: *out is set to NULL and 0 is returned.
 * Fails only when out of memory. */
int xb_throttle_create(unsigned ops_per_sec, xb_throttle **out, xb_error *err);

/* Wait until `bytes` more may be read (call before reading them). Thread safe;
 * returns at once when t is NULL or bytes is 0. Sleeps, never spins. */
void xb_throttle_take(xb_throttle *t, uint64_t bytes);

/* A limiter whose rate is changed while in use (the backup's pacing); it starts
 * unlimited. NULL on no memory. */
xb_throttle *xb_throttle_new_adjustable(void);

/* Change the rate: ops_per_sec MiB per second, 0 = unlimited. Thread-safe. */
void xb_throttle_set_rate(xb_throttle *t, unsigned ops_per_sec);

/* The configured operations per second (0 for NULL). */
unsigned xb_throttle_rate(const xb_throttle *t);

/* Free a limiter (NULL is fine). No thread may be inside xb_throttle_take. */
void xb_throttle_free(xb_throttle *t);

#endif
