/*
 * path_test.c - the common kit: path joining that refuses truncation
 * (src/common/path.c), byte order (src/common/bytes.h), mkdir -p and the
 * directory listing (src/platform/dir.c), the monotonic clock
 * (src/platform/clock.c).
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/path.h"
#include "platform/clock.h"
#include "platform/dir.h"

static void test_join(void)
{
	char out[16];
	xb_error e;
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_path_join(out, sizeof out, "/data", "db/t.ibd", &e), 0);
	CU_ASSERT_STRING_EQUAL(out, "/data/db/t.ibd");
	/* exactly 15 characters fit, 16 do not */
	CU_ASSERT_EQUAL(xb_path_join(out, sizeof out, "/data", "db/t1.ibd", &e), 0);
	CU_ASSERT_STRING_EQUAL(out, "/data/db/t1.ibd");
	CU_ASSERT_EQUAL(xb_path_join(out, sizeof out, "/data", "db/t12.ibd", &e), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_STRING_EQUAL(e.msg, "path too long (16 bytes, at most 15): /data/db/t12.ibd");
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_path_join3(out, sizeof out, "/d", "db/t", ".ibd", &e), 0);
	CU_ASSERT_STRING_EQUAL(out, "/d/db/t.ibd");
	CU_ASSERT_EQUAL(xb_path_join3(out, sizeof out, "/data", "db/t12", ".ibd", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(out, "");
}

static void test_resolve(void)
{
	char out[64];
	CU_ASSERT_EQUAL(xb_path_resolve(out, sizeof out, "/var/lib/mysql", "/srv/undo/", NULL), 0);
	CU_ASSERT_STRING_EQUAL(out, "/srv/undo");
	CU_ASSERT_EQUAL(xb_path_resolve(out, sizeof out, "/var/lib/mysql", "./undo", NULL), 0);
	CU_ASSERT_STRING_EQUAL(out, "/var/lib/mysql/undo");
	CU_ASSERT_EQUAL(xb_path_resolve(out, sizeof out, "/var/lib/mysql", ".", NULL), 0);
	CU_ASSERT_STRING_EQUAL(out, "/var/lib/mysql");
	CU_ASSERT_EQUAL(xb_path_resolve(out, sizeof out, "/var/lib/mysql", "logs//", NULL), 0);
	CU_ASSERT_STRING_EQUAL(out, "/var/lib/mysql/logs");
	CU_ASSERT_EQUAL(xb_path_resolve(out, sizeof out, "/", "/", NULL), 0);
	CU_ASSERT_STRING_EQUAL(out, "/");
	xb_error e;
	CU_ASSERT_EQUAL(xb_path_resolve(out, 10, "/var/lib/mysql", "x", &e), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(e.msg, "path too long (16 bytes, at most 9): x");
	CU_ASSERT_TRUE(xb_path_has_suffix("db/t.ibd", ".ibd"));
	CU_ASSERT_FALSE(xb_path_has_suffix(".ibd", ".ibd"));
	CU_ASSERT_FALSE(xb_path_has_suffix("t.isl", ".ibd"));
	CU_ASSERT_STRING_EQUAL(xb_path_base("/a/b/c.ibd"), "c.ibd");
	CU_ASSERT_STRING_EQUAL(xb_path_base("ibdata1"), "ibdata1");
}

static void test_bytes(void)
{
	/* FIL_PAGE_OFFSET and FIL_PAGE_LSN of a real page header: page 3, LSN 0x1234f */
	const uint8_t hdr[] = {0x8a, 0x3c, 0x1f, 0x02, 0x00, 0x00, 0x00, 0x03, 0xff, 0xff, 0xff, 0xff,
			       0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x23, 0x4f};
	CU_ASSERT_EQUAL(be32_get(hdr + 4), 3);
	CU_ASSERT_EQUAL(be32_get(hdr + 8), 0xffffffffu);
	CU_ASSERT_EQUAL(be64_get(hdr + 16), 0x1234fu);
	CU_ASSERT_EQUAL(be16_get(hdr), 0x8a3c);
	CU_ASSERT_EQUAL(be24_get(hdr + 1), 0x3c1f02);
	uint8_t b[8];
	be64_put(b, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(memcmp(b, "\x01\x02\x03\x04\x05\x06\x07\x08", 8), 0);
	be16_put(b, 0xabcd);
	CU_ASSERT_EQUAL(b[0], 0xab);
	CU_ASSERT_EQUAL(b[1], 0xcd);
	be24_put(b, 0x123456);
	CU_ASSERT_EQUAL(be24_get(b), 0x123456);
	be32_put(b, 0xdeadbeef);
	CU_ASSERT_EQUAL(be32_get(b), 0xdeadbeef);
	/* xbstream: little-endian */
	le64_put(b, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(memcmp(b, "\x08\x07\x06\x05\x04\x03\x02\x01", 8), 0);
	CU_ASSERT_EQUAL(le64_get(b), 0x0102030405060708ull);
	le32_put(b, 0x0a000000);
	CU_ASSERT_EQUAL(b[3], 0x0a);
	CU_ASSERT_EQUAL(le32_get(b), 0x0a000000u);
}

static int count_entry(void *ctx, const xb_dirent *e, xb_error *err)
{
	int *n = ctx;
	if (!strcmp(e->name, "sub")) {
		CU_ASSERT_TRUE(e->is_dir);
		n[0]++;
	} else if (!strcmp(e->name, "f")) {
		CU_ASSERT_TRUE(e->is_file);
		CU_ASSERT_FALSE(e->is_dir);
		n[1]++;
	} else if (!strcmp(e->name, "stop")) {
		return xb_err_set(err, XB_E_INTERNAL, "stopped at %s", e->path);
	}
	return 0;
}

static void test_dirs(void)
{
	char tmpl[] = "/tmp/xb_path_test.XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpl));
	char p[PATH_MAX];
	xb_error e;
	xb_err_clear(&e);
	snprintf(p, sizeof p, "%s/a/b/c", tmpl);
	CU_ASSERT_EQUAL(xb_mkdir_p(p, 0750, &e), 0);
	CU_ASSERT_EQUAL(xb_mkdir_p(p, 0750, &e), 0); /* again: fine */
	struct stat st;
	CU_ASSERT_TRUE(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
	/* a file in the way */
	snprintf(p, sizeof p, "%s/a/f", tmpl);
	FILE *f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	snprintf(p, sizeof p, "%s/a/f/x", tmpl);
	CU_ASSERT_EQUAL(xb_mkdir_p(p, 0750, &e), XB_E_IO_WRITE);
	char want[PATH_MAX + 64];
	snprintf(want, sizeof want, "cannot create directory %s/a/f/x: Not a directory", tmpl);
	CU_ASSERT_STRING_EQUAL(e.msg, want);
	/* listing: a directory and a file (plus a link to the directory) */
	snprintf(p, sizeof p, "%s/a/b", tmpl);
	char l[PATH_MAX];
	snprintf(l, sizeof l, "%s/a/sub", tmpl);
	CU_ASSERT_EQUAL(symlink(p, l), 0);
	snprintf(p, sizeof p, "%s/a", tmpl);
	int n[2] = {0, 0};
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_dir_each(p, 0, count_entry, n, &e), 0);
	CU_ASSERT_EQUAL(n[0], 1);
	CU_ASSERT_EQUAL(n[1], 1);
	/* the callback's error ends the walk and comes back */
	snprintf(p, sizeof p, "%s/a/stop", tmpl);
	f = fopen(p, "w");
	fclose(f);
	snprintf(p, sizeof p, "%s/a", tmpl);
	CU_ASSERT_EQUAL(xb_dir_each(p, 0, count_entry, n, &e), XB_E_INTERNAL);
	snprintf(want, sizeof want, "stopped at %s/a/stop", tmpl);
	CU_ASSERT_STRING_EQUAL(e.msg, want);
	/* a missing directory */
	snprintf(p, sizeof p, "%s/none", tmpl);
	CU_ASSERT_EQUAL(xb_dir_each(p, XB_DIR_MISSING_OK, count_entry, n, &e), 0);
	CU_ASSERT_EQUAL(xb_dir_each(p, 0, count_entry, n, &e), XB_E_IO_READ);
	snprintf(want, sizeof want, "cannot open %s/none: No such file or directory", tmpl);
	CU_ASSERT_STRING_EQUAL(e.msg, want);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpl);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_clock(void)
{
	uint64_t a = xb_clock_ns();
	xb_clock_sleep_until(a + 20000000u);
	uint64_t b = xb_clock_ns();
	CU_ASSERT_TRUE(b - a >= 20000000u);
	CU_ASSERT_TRUE(b - a < 2000000000u);
	double s = xb_clock_sec();
	CU_ASSERT_TRUE(s >= (double)b / 1e9);
	xb_clock_sleep_until(a); /* in the past: at once */
	CU_ASSERT_TRUE(xb_clock_ns() - b < 1000000000u);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("path", NULL, NULL);
	CU_add_test(s, "join refuses truncation", test_join);
	CU_add_test(s, "resolve a directory option against the datadir", test_resolve);
	CU_add_test(s, "byte order on real header bytes", test_bytes);
	CU_add_test(s, "mkdir -p and the directory listing", test_dirs);
	CU_add_test(s, "the monotonic clock", test_clock);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
