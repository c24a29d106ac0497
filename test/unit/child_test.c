/*
 * child_test.c - other programs and private directories (src/platform/
 * child.c), the export's pending mark (src/info/export_pending.c) and the
 * server program lookup (src/db/localserver.c), with real processes and
 * files.
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/localserver.h"
#include "info/export_pending.h"
#include "platform/child.h"
#include "platform/clock.h"

static char dir[PATH_MAX];

static void test_exit_status(void)
{
	char out[PATH_MAX + 16];
	snprintf(out, sizeof out, "%s/out", dir);
	xb_child c;
	char *const ok[] = {"sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 3", NULL};
	CU_ASSERT_EQUAL_FATAL(xb_child_start(&c, "/bin/sh", ok, out), 0);
	CU_ASSERT_TRUE(xb_child_wait(&c, 10000));
	CU_ASSERT_TRUE(c.ended);
	CU_ASSERT_EQUAL(c.status, 3);
	FILE *f = fopen(out, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char text[256] = "";
	size_t k = fread(text, 1, sizeof text - 1, f);
	text[k] = 0;
	fclose(f);
	CU_ASSERT_STRING_EQUAL(text, "to-stdout\nto-stderr\n"); /* both streams, in order */
	/* a program that cannot be started */
	char *const none[] = {"none", NULL};
	CU_ASSERT_EQUAL(xb_child_start(&c, "/nonexistent/program", none, out), -1);
}

static void test_deadline_and_kill(void)
{
	char out[PATH_MAX + 16];
	snprintf(out, sizeof out, "%s/out2", dir);
	xb_child c;
	char *const slow[] = {"sleep", "30", NULL};
	CU_ASSERT_EQUAL_FATAL(xb_child_start(&c, "/bin/sleep", slow, out), 0);
	double t0 = xb_clock_sec();
	CU_ASSERT_FALSE(xb_child_wait(&c, 200)); /* the deadline ends the wait, not the program */
	double waited = xb_clock_sec() - t0;
	CU_ASSERT(waited >= 0.19 && waited < 5);
	CU_ASSERT_FALSE(xb_child_ended(&c));
	xb_child_kill(&c);
	CU_ASSERT_TRUE(c.ended);
	CU_ASSERT_EQUAL(c.status, 128 + 9);
	xb_child_kill(&c); /* a second time is harmless */
}

static void test_private_dir(void)
{
	char p[PATH_MAX];
	CU_ASSERT_EQUAL_FATAL(xb_private_dir(dir, "x.", p, sizeof p), 0);
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(p, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0700);
	CU_ASSERT_EQUAL(strncmp(p + strlen(dir), "/x.", 3), 0);
	char f[PATH_MAX + 8];
	snprintf(f, sizeof f, "%s/a", p);
	FILE *fp = fopen(f, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fclose(fp);
	xb_private_dir_remove(p);
	CU_ASSERT_NOT_EQUAL(stat(p, &st), 0);
	char small[8];
	CU_ASSERT_EQUAL(xb_private_dir(dir, "x.", small, sizeof small), -1);
}

static void test_export_pending(void)
{
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_FALSE(xb_export_pending_found(dir));
	CU_ASSERT_EQUAL(xb_export_pending_refuse(dir, "--verify", &err), 0);
	CU_ASSERT_EQUAL_FATAL(xb_export_pending_write(dir, &err), 0);
	CU_ASSERT_TRUE(xb_export_pending_found(dir));
	CU_ASSERT_EQUAL(xb_export_pending_refuse(dir, "--verify", &err), XB_E_NOT_PREPARED);
	char want[PATH_MAX * 3];
	snprintf(want, sizeof want,
		 "%s: a --prepare --export of %s did not finish (xtrabackup_export_pending is there): --verify refuses it",
		 dir, dir);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.hint, "--prepare --export --target-dir="));
	CU_ASSERT_EQUAL(xb_export_pending_remove(dir, &err), 0);
	CU_ASSERT_FALSE(xb_export_pending_found(dir));
	CU_ASSERT_EQUAL(xb_export_pending_remove(dir, &err), 0); /* none is fine */
}

static void test_find_server(void)
{
	char out[PATH_MAX];
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(localserver_find("/bin/sh", out, sizeof out, &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "/bin/sh");
	CU_ASSERT_EQUAL(localserver_find(dir, out, sizeof out, &err), XB_E_EXPORT); /* a directory */
	char want[PATH_MAX + 64];
	snprintf(want, sizeof want, "--mariadbd=%s is not an executable file", dir);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	/* none on PATH nor in the fixed places: only when the machine has none */
	if (access("/usr/sbin/mariadbd", X_OK) != 0 && access("/usr/sbin/mysqld", X_OK) != 0) {
		setenv("PATH", dir, 1);
		CU_ASSERT_EQUAL(localserver_find(NULL, out, sizeof out, &err), XB_E_EXPORT);
	} else {
		CU_ASSERT_EQUAL(localserver_find(NULL, out, sizeof out, &err), 0);
		CU_ASSERT_TRUE(xb_is_executable(out));
	}
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/child_test.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("child", NULL, NULL);
	CU_add_test(s, "exit status and output of a program", test_exit_status);
	CU_add_test(s, "a deadline, then a kill", test_deadline_and_kill);
	CU_add_test(s, "a private directory", test_private_dir);
	CU_add_test(s, "the export's pending mark", test_export_pending);
	CU_add_test(s, "the server program", test_find_server);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd)) {
		/* best effort */
	}
	return failed ? 1 : 0;
}
