/*
 * lockwait_test.c - how a connection that holds a backup's lock up is named
 * (lockwait_describe in src/command/backup/lockwait.c), from processlist rows
 * as MariaDB 10.11 returns them: an idle session holding LOCK TABLES with the
 * locks metadata_lock_info lists, a running statement with its state and a
 * multi-line text, NULL columns, a statement longer than the 100 characters
 * shown, and a buffer too small for the line.
 */
#include <CUnit/Basic.h>
#include <string.h>

#include "command/backup/backup_int.h"

static void test_idle_holder(void)
{
	char b[400];
	size_t n = lockwait_describe(b, sizeof b, "12", "app", "localhost", "Sleep", "35", "", NULL, false,
				     "MDL_BACKUP_DDL, MDL_SHARED_NO_READ_WRITE on test.t");
	CU_ASSERT_STRING_EQUAL(b, "connection 12 (app@localhost) Sleep for 35 s, holds MDL_BACKUP_DDL, "
				  "MDL_SHARED_NO_READ_WRITE on test.t");
	CU_ASSERT_EQUAL(n, strlen(b));
}

static void test_running_statement(void)
{
	char b[400];
	lockwait_describe(b, sizeof b, "7", "etl", "10.0.0.5:51234", "Query", "120", "User sleep",
			  "INSERT INTO test.m\n\tSELECT SLEEP(120)", false, NULL);
	CU_ASSERT_STRING_EQUAL(b, "connection 7 (etl@10.0.0.5:51234) Query for 120 s, state 'User sleep': "
				  "INSERT INTO test.m  SELECT SLEEP(120)");
}

static void test_nulls_and_cut(void)
{
	char b[400];
	lockwait_describe(b, sizeof b, "3", NULL, NULL, "Query", "2", NULL, "ALTER TABLE t ENGINE=InnoDB", true, "");
	CU_ASSERT_STRING_EQUAL(b, "connection 3 (?@?) Query for 2 s: ALTER TABLE t ENGINE=InnoDB...");
}

static void test_small_buffer(void)
{
	char b[16];
	size_t n = lockwait_describe(b, sizeof b, "12", "app", "localhost", "Sleep", "35", "", NULL, false, NULL);
	CU_ASSERT_EQUAL(n, sizeof b - 1);
	CU_ASSERT_STRING_EQUAL(b, "connection 12 (");
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("lockwait", NULL, NULL);
	CU_add_test(s, "an idle session holding LOCK TABLES, with its locks", test_idle_holder);
	CU_add_test(s, "a running statement: state, text on one line", test_running_statement);
	CU_add_test(s, "NULL columns, a statement longer than shown", test_nulls_and_cut);
	CU_add_test(s, "a buffer too small is filled, never overrun", test_small_buffer);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
