/*
 * progress.h - the progress display of a long operation.
 *
 * A background thread samples counters the workers update atomically
 * (bytes done, bytes total) and a callback for extra state (redo headroom).
 * On a terminal (--progress=auto with stderr a tty, or =meter) it redraws one
 * pv-style line: percent, bytes done/total, MB/s, ETA and redo headroom; log
 * lines clear the meter first. Otherwise (=log) it writes a log line every
 * 10 seconds; =numeric writes "PROGRESS done total" lines for scripts; =none
 * shows nothing.
 */
#ifndef XB_PROGRESS_H
#define XB_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

typedef struct xb_progress xb_progress;

/* mode: "auto", "meter", "log", "numeric", "none". extra() fills a short suffix (may be NULL). */
int xb_progress_start(xb_progress **out, const char *mode, const char *what,
		      void (*extra)(void *ctx, char *buf, size_t len), void *ctx, xb_error *err);
void xb_progress_add_total(xb_progress *p, uint64_t bytes);
/* The counter workers add to (atomically). */
volatile uint64_t *xb_progress_counter(xb_progress *p);
/* The total, which workers raise (atomically) when what they copy grows
 * past what was counted at the start (a table growing during the copy). */
volatile uint64_t *xb_progress_total_counter(xb_progress *p);
/* Stop the thread and clear the meter. */
void xb_progress_stop(xb_progress *p);

#endif
