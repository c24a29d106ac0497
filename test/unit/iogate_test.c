/*
 * iogate_test.c - the read/write phase gate of the copy threads
 * (src/common/iogate.c).
 *
 * Threads hammer the gate with both kinds and record, inside it, how many
 * threads of each kind are in: the two counts are never both non-zero. A
 * stream of readers that never pauses still lets a writer in (the gate
 * closes to newcomers), and one thread alternating kinds flips the gate
 * each time without ever waiting.
 */
#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "common/iogate.h"

static xb_iogate *gate;
static _Atomic int inside[2];
static _Atomic int mixed;      /* times a thread saw the other kind inside */
static _Atomic int stop;

static void pause_us(long us)
{
	struct timespec ts = {0, us * 1000L};
	nanosleep(&ts, NULL);
}

static void *hammer(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 300; i++) {
		enum xb_io_kind k = (enum xb_io_kind)((i + id) % 3 == 0); /* a third writes */
		xb_iogate_enter(gate, k);
		atomic_fetch_add(&inside[k], 1);
		if (atomic_load(&inside[!k]) != 0)
			atomic_fetch_add(&mixed, 1);
		pause_us(20 + 10 * id);
		if (atomic_load(&inside[!k]) != 0)
			atomic_fetch_add(&mixed, 1);
		atomic_fetch_sub(&inside[k], 1);
		xb_iogate_leave(gate, k);
	}
	return NULL;
}

static void test_kinds_never_mix(void)
{
	gate = xb_iogate_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(gate);
	pthread_t t[6];
	for (long i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, hammer, (void *)i);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(atomic_load(&mixed), 0);
	CU_ASSERT_EQUAL(atomic_load(&inside[0]) + atomic_load(&inside[1]), 0);
	unsigned long flips = xb_iogate_flips(gate);
	CU_ASSERT(flips >= 2); /* both kinds got in, in turns */
	CU_ASSERT(flips <= 6 * 300);
	xb_iogate_free(gate);
}

static void *endless_reader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		xb_iogate_enter(gate, XB_IO_READ);
		pause_us(200);
		xb_iogate_leave(gate, XB_IO_READ);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static _Atomic int writer_done;

static void *writer(void *arg)
{
	double *worst = arg;
	for (int round = 0; round < 5; round++) {
		double a = now_s();
		xb_iogate_enter(gate, XB_IO_WRITE);
		double waited = now_s() - a;
		xb_iogate_leave(gate, XB_IO_WRITE);
		if (waited > *worst)
			*worst = waited;
		pause_us(5000);
	}
	atomic_store(&writer_done, 1);
	return NULL;
}

/* Three readers overlap so the gate is never empty of readers; a writer
 * still gets in quickly, five times, and the readers get back in after it.
 * A starved writer is reported after 5 s (the readers are then stopped so
 * the test ends). */
static void test_writer_not_starved(void)
{
	gate = xb_iogate_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(gate);
	atomic_store(&stop, 0);
	atomic_store(&writer_done, 0);
	pthread_t t[3], w;
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, endless_reader, NULL);
	pause_us(20000);
	double worst = 0;
	pthread_create(&w, NULL, writer, &worst);
	double deadline = now_s() + 5;
	while (!atomic_load(&writer_done) && now_s() < deadline)
		pause_us(1000);
	int done = atomic_load(&writer_done);
	unsigned long flips = xb_iogate_flips(gate);
	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pthread_join(w, NULL);
	CU_ASSERT_TRUE(done);
	CU_ASSERT(worst < 0.5);
	CU_ASSERT(flips >= 9); /* read -> write -> read, five times */
	xb_iogate_free(gate);
}

/* One thread alone never waits: each change of kind flips the empty gate. */
static void test_single_thread(void)
{
	xb_iogate *g = xb_iogate_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	xb_iogate_enter(g, XB_IO_READ); /* a new gate admits reads */
	xb_iogate_leave(g, XB_IO_READ);
	CU_ASSERT_EQUAL(xb_iogate_flips(g), 0);
	for (int i = 0; i < 4; i++) {
		xb_iogate_enter(g, XB_IO_WRITE);
		xb_iogate_leave(g, XB_IO_WRITE);
		xb_iogate_enter(g, XB_IO_READ);
		xb_iogate_leave(g, XB_IO_READ);
	}
	CU_ASSERT_EQUAL(xb_iogate_flips(g), 8);
	xb_iogate_free(g);
	xb_iogate_free(NULL);
}

int main(void)
{
	alarm(120); /* a gate that deadlocks fails the run instead of hanging it */
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("iogate", NULL, NULL);
	CU_add_test(s, "reads and writes never inside together", test_kinds_never_mix);
	CU_add_test(s, "a writer gets in among endless readers", test_writer_not_starved);
	CU_add_test(s, "one thread flips the empty gate", test_single_thread);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
