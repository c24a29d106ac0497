/*
 * parallel_test.c - the parallel executor (src/common/parallel.c).
 *
 * Every job runs exactly once, on workers numbered 1..T; the first error
 * stops the rest (no job is handed out after it, the first message wins, a
 * long job sees the stop); worker_start runs on each worker and worker_end
 * on the caller after all ended; ticks come while workers run and a failing
 * tick stops the run; one thread runs everything on the caller.
 */
#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/parallel.h"

typedef struct tctx {
	_Atomic int ran[1000];   /* times each job ran */
	_Atomic int by[9];       /* jobs run by worker id */
	size_t fail_at;          /* job that fails (SIZE_MAX: none) */
	_Atomic int after_fail;  /* jobs started after the failing one ended */
	_Atomic int failed;      /* the failing job has returned */
	_Atomic int ticks;       /* ticks seen */
	int fail_tick;           /* tick number that fails (0: none) */
	_Atomic int starts;      /* worker_start calls */
	pthread_t caller;        /* the calling thread */
	int ends[9];             /* worker_end calls by worker id */
	bool end_on_caller;      /* every worker_end ran on the caller */
	bool slow;               /* jobs sleep 2 ms */
	_Atomic int saw_stop;    /* a job saw xb_parallel_stopping() */
} tctx;

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static int job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	tctx *t = ctx;
	CU_ASSERT_PTR_EQUAL(wstate, (void *)(long)(worker * 10));
	if (atomic_load(&t->failed))
		atomic_fetch_add(&t->after_fail, 1);
	atomic_fetch_add(&t->ran[i], 1);
	atomic_fetch_add(&t->by[worker], 1);
	if (t->slow)
		sleep_ms(2);
	if (i == t->fail_at) {
		atomic_store(&t->failed, 1);
		return xb_err_set(err, XB_E_IO_READ, "job %zu failed", i);
	}
	if (i == t->fail_at + 1) { /* a long job running alongside the failure */
		for (int k = 0; k < 2000 && !xb_parallel_stopping(p); k++)
			sleep_ms(1);
		if (xb_parallel_stopping(p))
			atomic_store(&t->saw_stop, 1);
		return xb_err_set(err, XB_E_IO_WRITE, "second failure");
	}
	return 0;
}

static int wstart(void *ctx, int worker, void **wstate, xb_error *err)
{
	tctx *t = ctx;
	atomic_fetch_add(&t->starts, 1);
	*wstate = (void *)(long)(worker * 10);
	return 0;
}

static void wend(void *ctx, int worker, void *wstate)
{
	tctx *t = ctx;
	t->ends[worker]++;
	if (!pthread_equal(pthread_self(), t->caller))
		t->end_on_caller = false;
}

static int tick(void *ctx, xb_error *err)
{
	tctx *t = ctx;
	int n = atomic_fetch_add(&t->ticks, 1) + 1;
	if (t->fail_tick && n == t->fail_tick)
		return xb_err_set(err, XB_E_REDO_OVERWRITTEN, "tick %d failed", n);
	return 0;
}

static tctx *new_ctx(void)
{
	tctx *t = calloc(1, sizeof *t);
	t->fail_at = SIZE_MAX - 1;
	t->caller = pthread_self();
	t->end_on_caller = true;
	return t;
}

static void test_every_job_once(void)
{
	tctx *t = new_ctx();
	xb_parallel_cfg c = {.threads = 4, .jobs = 1000, .ctx = t, .job = job, .worker_start = wstart, .worker_end = wend};
	xb_error e;
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_parallel_run(&c, &e), 0);
	CU_ASSERT_EQUAL(e.code, 0);
	int total = 0;
	for (int i = 0; i < 1000; i++) {
		CU_ASSERT_EQUAL(atomic_load(&t->ran[i]), 1);
		total += atomic_load(&t->ran[i]);
	}
	CU_ASSERT_EQUAL(total, 1000);
	CU_ASSERT_EQUAL(atomic_load(&t->by[0]), 0);
	CU_ASSERT_EQUAL(atomic_load(&t->by[5]), 0);
	CU_ASSERT_EQUAL(atomic_load(&t->starts), 4);
	for (int w = 1; w <= 4; w++)
		CU_ASSERT_EQUAL(t->ends[w], 1);
	CU_ASSERT_TRUE(t->end_on_caller);
	free(t);
}

static void test_first_error_stops_the_rest(void)
{
	tctx *t = new_ctx();
	t->fail_at = 40;
	t->slow = true;
	xb_parallel_cfg c = {.threads = 3, .jobs = 1000, .ctx = t, .job = job, .worker_start = wstart, .worker_end = wend};
	xb_error e;
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_parallel_run(&c, &e), XB_E_IO_READ);
	CU_ASSERT_STRING_EQUAL(e.msg, "job 40 failed");
	int total = 0;
	for (int i = 0; i < 1000; i++)
		total += atomic_load(&t->ran[i]);
	/* job 41 may be under way, the third worker may be taking one: no more */
	CU_ASSERT_TRUE(total <= 44);
	CU_ASSERT_TRUE(atomic_load(&t->after_fail) <= 2);
	CU_ASSERT_EQUAL(atomic_load(&t->ran[999]), 0);
	if (atomic_load(&t->ran[41]))
		CU_ASSERT_EQUAL(atomic_load(&t->saw_stop), 1);
	free(t);
}

static void test_tick_runs_and_stops(void)
{
	tctx *t = new_ctx();
	t->slow = true;
	xb_parallel_cfg c = {.threads = 2, .jobs = 200, .ctx = t, .job = job, .worker_start = wstart, .tick = tick, .tick_ms = 10};
	xb_error e;
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_parallel_run(&c, &e), 0);
	CU_ASSERT_TRUE(atomic_load(&t->ticks) >= 3); /* 200 jobs of 2 ms on 2 threads: ~200 ms */
	free(t);

	t = new_ctx();
	t->slow = true;
	t->fail_tick = 2;
	c.ctx = t;
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_parallel_run(&c, &e), XB_E_REDO_OVERWRITTEN);
	CU_ASSERT_STRING_EQUAL(e.msg, "tick 2 failed");
	int total = 0;
	for (int i = 0; i < 200; i++)
		total += atomic_load(&t->ran[i]);
	CU_ASSERT_TRUE(total < 200);
	free(t);

	/* one worker with a tick: it runs on a thread of its own, the caller ticks */
	t = new_ctx();
	t->slow = true;
	c.ctx = t;
	c.threads = 1;
	c.jobs = 50;
	c.worker_end = wend;
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_parallel_run(&c, &e), 0);
	CU_ASSERT_EQUAL(atomic_load(&t->by[1]), 50);
	CU_ASSERT_TRUE(atomic_load(&t->ticks) >= 2); /* 50 jobs of 2 ms: ~100 ms, a tick every 10 */
	CU_ASSERT_TRUE(t->end_on_caller);
	free(t);
}

static void test_one_thread_on_caller(void)
{
	tctx *t = new_ctx();
	t->fail_at = 7;
	xb_parallel_cfg c = {.threads = 1, .jobs = 20, .ctx = t, .job = job, .worker_start = wstart, .worker_end = wend};
	xb_error e;
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_parallel_threads(&c), 1);
	CU_ASSERT_EQUAL(xb_parallel_run(&c, &e), XB_E_IO_READ);
	CU_ASSERT_EQUAL(atomic_load(&t->by[1]), 8); /* jobs 0..7, then the stop */
	CU_ASSERT_EQUAL(t->ends[1], 1);
	/* more threads than jobs: clamped */
	c.threads = 64;
	c.jobs = 3;
	CU_ASSERT_EQUAL(xb_parallel_threads(&c), 3);
	c.threads = 0;
	CU_ASSERT_EQUAL(xb_parallel_threads(&c), 1);
	/* no jobs at all */
	c.threads = 4;
	c.jobs = 0;
	CU_ASSERT_EQUAL(xb_parallel_run(&c, &e), 0);
	free(t);
}

int main(void)
{
	alarm(120); /* a run that never ends fails instead of hanging */
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("parallel", NULL, NULL);
	CU_add_test(s, "every job runs once, on workers 1..T", test_every_job_once);
	CU_add_test(s, "the first error stops the rest", test_first_error_stops_the_rest);
	CU_add_test(s, "ticks run alongside, a failing tick stops the run", test_tick_runs_and_stops);
	CU_add_test(s, "one thread runs on the caller; threads clamped", test_one_thread_on_caller);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
