/*
 * parallel.h - the one parallel executor: N jobs on up to T threads.
 *
 * A run hands jobs 0..n-1 out in order to its workers (numbered 1..T: the
 * [NN] of their log lines); a worker takes the next job as soon as it is done
 * with one. The first job (or tick) that fails stops the run: no further job
 * is handed out, jobs under way can see it through xb_parallel_stopping(),
 * and xb_parallel_run() returns that first error once every worker has
 * ended. Meanwhile the calling thread can do periodic work (tick): watching
 * the redo follower during a copy, say. With one thread and no tick, or when
 * no thread can be started, the jobs run on the calling thread (with no ticks).
 */
#ifndef XB_PARALLEL_H
#define XB_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

typedef struct xb_parallel xb_parallel;

typedef struct xb_parallel_cfg {
	int threads;      /* workers wanted; at least 1, at most the number of jobs */
	size_t jobs;      /* how many jobs */
	void *ctx;        /* given to every callback */
	/* Run job i as worker `worker`, with the state its worker_start made (NULL
	 * without one). Non-zero (an XB_E_* code, err set) stops the run. */
	int (*job)(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err);
	/* Optional: on the worker's own thread, before its first job (buffers, I/O
	 * priority). Non-zero stops the run; the worker then takes no job. */
	int (*worker_start)(void *ctx, int worker, void **wstate, xb_error *err);
	/* Optional: on the calling thread once every worker has ended, worker by
	 * worker in order (sum statistics, free buffers), also for a worker whose
	 * start failed (wstate as it left it) or that never ran (wstate NULL). */
	void (*worker_end)(void *ctx, int worker, void *wstate);
	/* Optional: on the calling thread every tick_ms while workers run.
	 * Non-zero stops the run. */
	int (*tick)(void *ctx, xb_error *err);
	unsigned tick_ms; /* period of tick (default 500) */
} xb_parallel_cfg;

/* Run every job; 0, or the first error (its code; err holds its message). */
int xb_parallel_run(const xb_parallel_cfg *cfg, xb_error *err);

/* True once the run is stopping (a job or a tick failed): a long job may
 * return early (its return value is then ignored). */
bool xb_parallel_stopping(const xb_parallel *p);

/* How many workers the run uses (after clamping), for messages. */
int xb_parallel_threads(const xb_parallel_cfg *cfg);

#endif
