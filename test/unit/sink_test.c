/*
 * sink_test.c - the local directory sink: files appear under their final name
 * only when closed, an aborted file leaves nothing, parent directories are
 * created, finish() syncs, and a target that is not a directory, not
 * writable or not empty is refused with a clear message.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink/sink.h"

static char base[] = "/tmp/xb_sink_test.XXXXXX";

static int exists(const char *dir, const char *rel)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	struct stat st;
	return stat(p, &st) == 0;
}

static char *slurp(const char *dir, const char *rel, size_t *len)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	FILE *f = fopen(p, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(1 << 20);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void test_write_close_publish(void)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/t1", base);
	xb_error err;
	xb_err_clear(&err);
	xb_sink *s = xb_sink_dir_open(dir, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	xb_sink_file *f = xb_sink_open(s, "./db/sub/t.ibd", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char data[20000];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (char)(i * 7);
	CU_ASSERT_EQUAL(xb_sink_write(f, data, 12345, &err), 0);
	CU_ASSERT_EQUAL(xb_sink_write(f, data + 12345, sizeof data - 12345, &err), 0);
	/* not visible under its final name before close */
	CU_ASSERT_FALSE(exists(dir, "db/sub/t.ibd"));
	CU_ASSERT_TRUE(exists(dir, "db/sub/t.ibd.xbtmp"));
	CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
	CU_ASSERT_TRUE(exists(dir, "db/sub/t.ibd"));
	CU_ASSERT_FALSE(exists(dir, "db/sub/t.ibd.xbtmp"));
	size_t len = 0;
	char *back = slurp(dir, "db/sub/t.ibd", &len);
	CU_ASSERT_EQUAL(len, sizeof data);
	CU_ASSERT(back && memcmp(back, data, sizeof data) == 0);
	free(back);
	CU_ASSERT_EQUAL(s->bytes_written, sizeof data);
	CU_ASSERT_EQUAL(xb_sink_put(s, "xtrabackup_checkpoints", "x\n", 2, &err), 0);
	CU_ASSERT_EQUAL(xb_sink_finish(s, &err), 0);
	CU_ASSERT_EQUAL(xb_sink_finish(s, &err), 0); /* twice is harmless */
	xb_sink_free(s);
}

static void test_abort_leaves_nothing(void)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/t2", base);
	xb_error err;
	xb_sink *s = xb_sink_dir_open(dir, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	xb_sink_file *f = xb_sink_open(s, "a.ibd", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(xb_sink_write(f, "abc", 3, &err), 0);
	xb_sink_abort(f);
	CU_ASSERT_FALSE(exists(dir, "a.ibd"));
	CU_ASSERT_FALSE(exists(dir, "a.ibd.xbtmp"));
	CU_ASSERT_EQUAL(xb_sink_finish(s, &err), 0);
	xb_sink_free(s);
}

static void test_bad_targets(void)
{
	char file[512], ro[512], sub[600];
	xb_error err;
	snprintf(file, sizeof file, "%s/plainfile", base);
	FILE *fp = fopen(file, "w");
	fclose(fp);
	xb_err_clear(&err);
	CU_ASSERT_PTR_NULL(xb_sink_dir_open(file, &err));
	CU_ASSERT_EQUAL(err.code, XB_E_TARGET);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exists and is not a directory"));
	if (geteuid() != 0) {
		/* root ignores permissions: the integration test covers it as nobody */
		snprintf(ro, sizeof ro, "%s/ro", base);
		mkdir(ro, 0500);
		snprintf(sub, sizeof sub, "%s/x", ro);
		xb_err_clear(&err);
		CU_ASSERT_PTR_NULL(xb_sink_dir_open(sub, &err));
		CU_ASSERT_EQUAL(err.code, XB_E_TARGET);
	}
}

int main(void)
{
	if (!mkdtemp(base))
		return 1;
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("sink_dir", NULL, NULL);
	CU_add_test(s, "write, close publishes under the final name, finish syncs", test_write_close_publish);
	CU_add_test(s, "abort leaves no file", test_abort_leaves_nothing);
	CU_add_test(s, "targets that are files or unwritable are refused", test_bad_targets);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", base);
	if (system(cmd)) {
		/* best effort */
	}
	return failed ? 1 : 0;
}
