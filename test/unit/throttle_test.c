/*
 * throttle_test.c - the --throttle limiter (src/common/throttle.c).
 *
 * Timing tests with tolerant bounds: the k-th MiB of a busy stream starts
 * k/N seconds after the first, for one thread and for several threads
 * sharing one limiter; a big request is paid for by the next caller; the
 * wait sleeps instead of spinning (CPU time stays near zero); 0 = unlimited.
 */
#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "common/throttle.h"

#define MiB XB_THROTTLE_OP_BYTES

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void test_unlimited(void)
{
	xb_throttle *t = (xb_throttle *)1;
	CU_ASSERT_EQUAL(xb_throttle_create(0, &t, NULL), 0);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_EQUAL(xb_throttle_rate(t), 0);
	double a = now_s();
	for (int i = 0; i < 1000; i++)
		xb_throttle_take(t, 100 * MiB);
	CU_ASSERT(now_s() - a < 0.1);
	xb_throttle_free(t);
}

/* 3 MiB in 1 MiB operations at N=4: operations start at 0, 0.25, 0.5 s. */
static void test_three_mib(void)
{
	xb_throttle *t;
	CU_ASSERT_EQUAL_FATAL(xb_throttle_create(4, &t, NULL), 0);
	CU_ASSERT_EQUAL(xb_throttle_rate(t), 4);
	double a = now_s(), c = cpu_s();
	for (int i = 0; i < 3; i++)
		xb_throttle_take(t, MiB);
	double el = now_s() - a;
	printf("\n  3 MiB at --throttle=4: %.3f s (expected 0.500), cpu %.4f s\n", el,
	       cpu_s() - c);
	CU_ASSERT(el >= 0.49 && el < 0.75);
	CU_ASSERT(cpu_s() - c < 0.05); /* slept, did not spin */
	xb_throttle_free(t);
}

/* One 3 MiB request passes at once; the caller after it waits 3/N s. */
static void test_big_request(void)
{
	xb_throttle *t;
	CU_ASSERT_EQUAL_FATAL(xb_throttle_create(6, &t, NULL), 0);
	double a = now_s();
	xb_throttle_take(t, 3 * MiB);
	CU_ASSERT(now_s() - a < 0.05);
	xb_throttle_take(t, 1);
	double el = now_s() - a;
	CU_ASSERT(el >= 0.49 && el < 0.75);
	xb_throttle_free(t);
}

/* Idle time does not build up a burst: after a pause the rate holds. */
static void test_no_burst_after_idle(void)
{
	xb_throttle *t;
	CU_ASSERT_EQUAL_FATAL(xb_throttle_create(10, &t, NULL), 0);
	xb_throttle_take(t, MiB);
	struct timespec pause = {0, 300 * 1000 * 1000};
	nanosleep(&pause, NULL);
	double a = now_s();
	for (int i = 0; i < 4; i++)
		xb_throttle_take(t, MiB);
	double el = now_s() - a;
	CU_ASSERT(el >= 0.29 && el < 0.5); /* 0, .1, .2, .3 */
	xb_throttle_free(t);
}

static xb_throttle *shared;

static void *taker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		xb_throttle_take(shared, MiB);
	return NULL;
}

/* 4 threads x 3 MiB share N=8: 12 operations, the last starts at 11/8 s. */
static void test_threads(void)
{
	CU_ASSERT_EQUAL_FATAL(xb_throttle_create(8, &shared, NULL), 0);
	pthread_t th[4];
	double a = now_s();
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, taker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	double el = now_s() - a;
	printf("\n  4 threads x 3 MiB at --throttle=8: %.3f s (expected 1.375)\n", el);
	CU_ASSERT(el >= 1.36 && el < 1.8);
	xb_throttle_free(shared);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("throttle", NULL, NULL);
	CU_add_test(s, "0 = unlimited", test_unlimited);
	CU_add_test(s, "3 MiB at 4 MiB/s", test_three_mib);
	CU_add_test(s, "big request paid by the next caller", test_big_request);
	CU_add_test(s, "no burst after idle", test_no_burst_after_idle);
	CU_add_test(s, "threads share the rate", test_threads);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
