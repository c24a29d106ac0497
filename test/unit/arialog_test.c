/*
 * arialog_test.c - the Aria log files a backup keeps (engine-hooks/arialog.c),
 * from rows of SHOW ENGINE aria logs as a 10.11 server printed them (a server
 * with aria_log_purge_type=external and aria_log_file_size=8M after 25 MiB of
 * inserts and a checkpoint), and the file-name rules.
 */
#include <CUnit/Basic.h>

#include "arialog.h"
#include "filerules.h"

static void test_number(void)
{
	CU_ASSERT_EQUAL(arialog_number("aria_log.00000001"), 1);
	CU_ASSERT_EQUAL(arialog_number("aria_log.00012345"), 12345);
	CU_ASSERT_EQUAL(arialog_number("aria_log_control"), 0);
	CU_ASSERT_EQUAL(arialog_number("aria_log.0000001"), 0);
	CU_ASSERT_EQUAL(arialog_number("aria_log.000000012"), 0);
	CU_ASSERT_EQUAL(arialog_number("aria_log.0000000x"), 0);
	CU_ASSERT_TRUE(filerule_is_aria_log("aria_log_control"));
	CU_ASSERT_TRUE(filerule_is_aria_log("aria_log.00000004"));
	CU_ASSERT_FALSE(filerule_is_aria_log("aria_log.tmp"));
}

static uint32_t first_of(const char *const rows[][2], unsigned n)
{
	arialog_needed a = {0};
	for (unsigned i = 0; i < n; i++)
		arialog_needed_row(&a, rows[i][0], rows[i][1]);
	return arialog_first_needed(&a);
}

static void test_needed(void)
{
	/* the server's own rows */
	const char *const real[][2] = {
		{"Size      8388608 ; /tmp/xbtest.XdJx/arialog/aria_log.00000001", "free"},
		{"Size      8388608 ; /tmp/xbtest.XdJx/arialog/aria_log.00000002", "free"},
		{"Size      8388608 ; /tmp/xbtest.XdJx/arialog/aria_log.00000003", "free"},
		{"Size      1523712 ; /tmp/xbtest.XdJx/arialog/aria_log.00000004", "in use"},
	};
	CU_ASSERT_EQUAL(first_of(real, 4), 4);
	/* a relative aria_log_dir_path: the name has no directory part at all */
	const char *const bare[][2] = {{"Size 8388608 ; aria_log.00000001", "free"},
				       {"Size 8388608 ; aria_log.00000002", "in use"}};
	CU_ASSERT_EQUAL(first_of(bare, 2), 2);
	/* nothing free: keep everything */
	const char *const used[][2] = {{"Size 417792 ; /d/aria_log.00000001", "in use"}};
	CU_ASSERT_EQUAL(first_of(used, 1), 0);
	/* no checkpoint since the start */
	const char *const unknown[][2] = {{"Size 8388608 ; /d/aria_log.00000001", "unknown"},
					  {"Size 8388608 ; /d/aria_log.00000002", "unknown"}};
	CU_ASSERT_EQUAL(first_of(unknown, 2), 0);
	/* the server could not find its first file */
	const char *const error[][2] = {{"", "error"}};
	CU_ASSERT_EQUAL(first_of(error, 1), 0);
	/* a row that cannot be read, or free after needed: keep everything */
	const char *const odd[][2] = {{"Size 8388608 ; /d/aria_log.00000001", "free"}, {NULL, "in use"}};
	CU_ASSERT_EQUAL(first_of(odd, 2), 0);
	const char *const order[][2] = {{"Size 1 ; /d/aria_log.00000001", "in use"}, {"Size 1 ; /d/aria_log.00000002", "free"}};
	CU_ASSERT_EQUAL(first_of(order, 2), 0);
	/* a vanished file the server still counts as needed keeps the files from it on */
	const char *const gone[][2] = {{"Size 1 ; /d/aria_log.00000001", "free"},
				       {"Size unknown ; /d/aria_log.00000002", "can't stat"},
				       {"Size 1 ; /d/aria_log.00000003", "in use"}};
	CU_ASSERT_EQUAL(first_of(gone, 3), 2);
	/* no row at all */
	CU_ASSERT_EQUAL(first_of(NULL, 0), 0);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("arialog", NULL, NULL);
	CU_add_test(s, "log file names and numbers", test_number);
	CU_add_test(s, "first needed file from SHOW ENGINE aria logs", test_needed);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
