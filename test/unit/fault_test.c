/*
 * fault_test.c - the XB_FAULT parser (src/common/fault.c): every point of
 * fault.def by name, each action, @N, and the values that must be refused
 * (unknown point or action, @0, @-1, @x, an empty @, an overlong value).
 */
#include <CUnit/Basic.h>
#include <string.h>

#include "common/fault.h"

static void test_every_point(void)
{
	for (int i = 0; i < XB_FAULT_N; i++) {
		xb_fault_spec f;
		char why[200];
		CU_ASSERT_EQUAL_FATAL(xb_fault_parse(xb_fault_name(i), &f, why, sizeof why), 0);
		CU_ASSERT_EQUAL(f.point, i);
		CU_ASSERT_EQUAL(f.action, XB_FAULT_KILL);
		CU_ASSERT_EQUAL(f.at, 1);
		CU_ASSERT_PTR_NOT_NULL(xb_fault_desc(i));
	}
	CU_ASSERT_PTR_NULL(xb_fault_name(XB_FAULT_N));
	CU_ASSERT_PTR_NULL(xb_fault_name(-1));
}

static void test_actions_and_count(void)
{
	static const struct {
		const char *v;
		int point;
		enum xb_fault_action a;
		long at;
	} ok[] = {
		{"backup-block-ddl:kill", XB_FAULT_BACKUP_BLOCK_DDL, XB_FAULT_KILL, 1},
		{"backup-block-ddl:term", XB_FAULT_BACKUP_BLOCK_DDL, XB_FAULT_TERM, 1},
		{"prepare-started:int", XB_FAULT_PREPARE_STARTED, XB_FAULT_INT, 1},
		{"backup-copy-chunk:stop@3", XB_FAULT_BACKUP_COPY_CHUNK, XB_FAULT_STOP, 3},
		{"restore-file-copied:error@12", XB_FAULT_RESTORE_FILE_COPIED, XB_FAULT_ERROR, 12},
		{"prepare-batch-written@2", XB_FAULT_PREPARE_BATCH_WRITTEN, XB_FAULT_KILL, 2},
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		xb_fault_spec f;
		char why[200] = "";
		CU_ASSERT_EQUAL_FATAL(xb_fault_parse(ok[i].v, &f, why, sizeof why), 0);
		CU_ASSERT_EQUAL(f.point, ok[i].point);
		CU_ASSERT_EQUAL(f.action, ok[i].a);
		CU_ASSERT_EQUAL(f.at, ok[i].at);
	}
}

static void test_refused(void)
{
	static const struct {
		const char *v;
		const char *why;
	} bad[] = {
		{"backup-nowhere", "no such fault point 'backup-nowhere'"},
		{"", "no such fault point ''"},
		{"backup-block-ddl:explode", "unknown action 'explode'"},
		{"backup-block-ddl:", "unknown action ''"},
		{"backup-block-ddl@0", "@N must be a positive number"},
		{"backup-block-ddl@-1", "@N must be a positive number"},
		{"backup-block-ddl@x", "@N must be a positive number"},
		{"backup-block-ddl@", "@N must be a positive number"},
		{"backup-block-ddl:kill@2x", "@N must be a positive number"},
		{"BACKUP-BLOCK-DDL", "no such fault point"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		xb_fault_spec f = {.point = 99};
		char why[200] = "";
		CU_ASSERT_EQUAL(xb_fault_parse(bad[i].v, &f, why, sizeof why), -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].why));
		CU_ASSERT_EQUAL(f.point, 99); /* untouched */
	}
	char longv[300];
	memset(longv, 'a', sizeof longv - 1);
	longv[sizeof longv - 1] = '\0';
	xb_fault_spec f;
	char why[200];
	CU_ASSERT_EQUAL(xb_fault_parse(longv, &f, why, sizeof why), -1);
}

/* Unarmed (XB_FAULT unset in the test's environment): every point is inert. */
static void test_unarmed(void)
{
	for (int i = 0; i < XB_FAULT_N; i++)
		CU_ASSERT_FALSE(xb_fault((enum xb_fault_point)i));
}

int main(void)
{
	unsetenv("XB_FAULT");
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("fault", NULL, NULL);
	CU_add_test(s, "every point of fault.def parses by name", test_every_point);
	CU_add_test(s, "actions and @N", test_actions_and_count);
	CU_add_test(s, "bad values are refused with the reason", test_refused);
	CU_add_test(s, "no point acts when XB_FAULT is unset", test_unarmed);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed != 0;
}
