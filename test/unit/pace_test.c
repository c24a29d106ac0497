/*
 * pace_test.c - the pacing decision of --pace=auto (pace_step in
 * src/command/backup/pace.c), fed with made-up samples of the server's LSN
 * and of the bytes copied, half a second apart.
 *
 * A server suffering from the copy gets it slowed down and sped up again
 * when it recovers; a server whose load ends lifts the limit, but only after
 * two silent seconds at the minimum (a server stalled by the copy is silent
 * too, and must not get the copy at full speed); a load that
 * eases on its own (the rate stays low however slow the copy gets) makes
 * the current rate the new reference instead of holding the copy at 8 MiB/s
 * for the rest of the backup; a baseline measured in a lull rises to the
 * rate the server shows, so a copy that later halves it is slowed down; a
 * server idle when the copy started and busy later gets the slow start.
 */
#include <CUnit/Basic.h>
#include <string.h>

#include "command/backup/backup_int.h"

#define MiB 1048576.0

static pacer p;
static double t;
static uint64_t lsn, copied;

/* A pacer whose baseline was `base_mibs` MiB/s of redo. */
static void start(double base_mibs)
{
	memset(&p, 0, sizeof p);
	p.active = true;
	p.baseline = base_mibs * MiB;
	t = 100.0;
	lsn = 1000000;
	copied = 0;
	p.prev_t = t;
	p.prev_lsn = lsn;
}

/* Half a second later the server wrote redo at `redo_mibs` and the copy moved `copy_mibs`. */
static unsigned sample(double redo_mibs, double copy_mibs, unsigned cap, pace_why *why)
{
	t += 0.5;
	lsn += (uint64_t)(redo_mibs * MiB * 0.5);
	copied += (uint64_t)(copy_mibs * MiB * 0.5);
	return pace_step(&p, t, lsn, copied, cap, why);
}

static void test_suffer_and_recover(void)
{
	pace_why why;
	start(10);
	unsigned cap = sample(5, 64, 64, &why); /* 50%: slower */
	CU_ASSERT_EQUAL(why, PACE_SLOWER);
	CU_ASSERT_EQUAL(cap, 38);
	cap = sample(9.5, 38, cap, &why); /* 95%: faster */
	CU_ASSERT_EQUAL(why, PACE_FASTER);
	CU_ASSERT_EQUAL(cap, 48);
	CU_ASSERT_EQUAL(p.slow_ticks, 0);
	unsigned same = sample(7.5, 48, cap, &why); /* 75%: between the thresholds */
	CU_ASSERT_EQUAL(why, PACE_SAME);
	CU_ASSERT_EQUAL(same, cap);
}

static void test_too_soon(void)
{
	pace_why why;
	start(10);
	t += 0.2;
	lsn += 1000;
	CU_ASSERT_EQUAL(pace_step(&p, t, lsn, 0, 64, &why), 64);
	CU_ASSERT_EQUAL(why, PACE_SAME);
}

static void test_load_ends(void)
{
	pace_why why;
	start(10);
	/* silent: stalled by the copy or done? held at the minimum for two seconds first */
	unsigned cap = sample(0.01, 64, 64, &why);
	CU_ASSERT_EQUAL(cap, 8);
	CU_ASSERT_EQUAL(why, PACE_STALL);
	for (int i = 0; i < 3; i++) {
		cap = sample(0, 8, cap, &why);
		CU_ASSERT_EQUAL(cap, 8);
		CU_ASSERT_EQUAL(why, PACE_SAME);
	}
	cap = sample(0, 8, cap, &why); /* still silent at the minimum: done */
	CU_ASSERT_EQUAL(cap, 0);
	CU_ASSERT_EQUAL(why, PACE_IDLE);
	cap = sample(0, 600, cap, &why); /* stays unlimited, nothing to say */
	CU_ASSERT_EQUAL(cap, 0);
	CU_ASSERT_EQUAL(why, PACE_SAME);
}

static void test_stall_is_not_the_end(void)
{
	pace_why why;
	start(10);
	unsigned cap = sample(10, 300, 0, &why); /* unlimited, the server keeps up */
	CU_ASSERT_EQUAL(cap, 0);
	cap = sample(0.1, 300, cap, &why); /* the copy's I/O stalls the server's log writes */
	CU_ASSERT_EQUAL(why, PACE_STALL);
	CU_ASSERT_EQUAL(cap, 8);
	cap = sample(0.05, 8, cap, &why);
	CU_ASSERT_EQUAL(cap, 8);
	cap = sample(9, 8, cap, &why); /* it writes again: the copy speeds up from the minimum */
	CU_ASSERT_EQUAL(why, PACE_FASTER);
	CU_ASSERT_EQUAL(cap, 11);
	CU_ASSERT_EQUAL(p.quiet_ticks, 0);
	/* a later silence starts the count anew */
	cap = sample(0, 11, cap, &why);
	CU_ASSERT_EQUAL(why, PACE_STALL);
	CU_ASSERT_EQUAL(p.quiet_ticks, 1);
}

static void test_load_eases(void)
{
	pace_why why;
	start(20); /* measured during a burst at the start of the load */
	unsigned cap = 64, caps[8];
	int slower = 0;
	for (int i = 0; i < 4; i++) {
		cap = caps[i] = sample(6, cap, cap, &why); /* 30% whatever the copy does */
		slower += why == PACE_SLOWER;
	}
	CU_ASSERT_EQUAL(slower, 4);
	CU_ASSERT_EQUAL(caps[3], 8); /* 64 -> 38 -> 22 -> 13 -> 8 */
	cap = sample(6, cap, cap, &why);
	CU_ASSERT_EQUAL(why, PACE_REBASE);
	CU_ASSERT_EQUAL(cap, 8);
	CU_ASSERT_DOUBLE_EQUAL(p.baseline, 6 * MiB, 0.01 * MiB);
	/* against the new reference the same rate is fine: the copy speeds up again */
	unsigned before = cap;
	for (int i = 0; i < 10; i++) {
		cap = sample(6, cap, cap, &why);
		CU_ASSERT_EQUAL(why, PACE_FASTER);
	}
	CU_ASSERT(cap > 8 * before);
}

static void test_low_baseline_rises(void)
{
	pace_why why;
	start(1.2); /* measured in a lull: the load really writes 6 MiB/s */
	unsigned cap = 64;
	for (int i = 0; i < 12; i++)
		cap = sample(6, cap, cap, &why);
	CU_ASSERT(p.baseline > 5.5 * MiB && p.baseline <= 6 * MiB);
	/* now the copy halves the server's rate: against the risen baseline that is too much */
	unsigned before = cap ? cap : 500;
	cap = sample(3, before, cap, &why);
	CU_ASSERT_EQUAL(why, PACE_SLOWER);
	CU_ASSERT(cap > 0 && cap < before);
}

static void test_idle_then_busy(void)
{
	pace_why why;
	start(0);
	p.active = false; /* idle when the copy started: watched, not paced */
	p.watch = true;
	unsigned cap = sample(0.1, 900, 0, &why);
	CU_ASSERT_EQUAL(why, PACE_SAME);
	CU_ASSERT_EQUAL(cap, 0);
	cap = sample(4, 900, 0, &why); /* it starts writing, the copy at full speed */
	CU_ASSERT_EQUAL(why, PACE_WOKE);
	CU_ASSERT_EQUAL(cap, 64);
	CU_ASSERT(p.active);
	CU_ASSERT_DOUBLE_EQUAL(p.baseline, 4 * MiB, 1e3);
	cap = sample(8, 64, cap, &why); /* relieved, it writes more: the baseline rises and the copy speeds up */
	CU_ASSERT_EQUAL(why, PACE_FASTER);
	CU_ASSERT_EQUAL(cap, 81);
	CU_ASSERT_DOUBLE_EQUAL(p.baseline, 5 * MiB, 1e3);
	cap = sample(2.5, 81, cap, &why); /* and the copy hurts it again: slower */
	CU_ASSERT_EQUAL(why, PACE_SLOWER);
	CU_ASSERT(cap < 81);
}

static void test_limit_dropped(void)
{
	pace_why why;
	start(10);
	/* the copy ran at 100 MiB/s while capped at 200: raising the cap to 251 is pointless */
	unsigned cap = sample(10, 100, 200, &why);
	CU_ASSERT_EQUAL(cap, 0);
	CU_ASSERT_EQUAL(why, PACE_FASTER);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("pace", NULL, NULL);
	CU_add_test(s, "a suffering server slows the copy, its recovery speeds it up", test_suffer_and_recover);
	CU_add_test(s, "samples under half a second apart change nothing", test_too_soon);
	CU_add_test(s, "a load that ends lifts the limit", test_load_ends);
	CU_add_test(s, "a server stalled by the copy is not a load that ended", test_stall_is_not_the_end);
	CU_add_test(s, "a load that eases becomes the new reference", test_load_eases);
	CU_add_test(s, "a limit well above the copy rate is dropped", test_limit_dropped);
	CU_add_test(s, "a baseline measured in a lull rises to the server's rate", test_low_baseline_rises);
	CU_add_test(s, "a server idle at the start and busy later is paced", test_idle_then_busy);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
