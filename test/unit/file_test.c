/*
 * file_test.c - the platform file layer (src/platform/file.c) on a real
 * file system: a rename that must not replace refuses with EEXIST and leaves
 * both files, a sparse file's data runs are found, the in-kernel copy copies,
 * an unnamed temporary file works and leaves no name, a directory syncs.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/dir.h"
#include "platform/file.h"

static char dir[64];

static void path(char *out, const char *name)
{
	snprintf(out, PATH_MAX, "%s/%s", dir, name);
}

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];
	path(p, name);
	int fd = xb_file_open(XB_FILE_CWD, p, XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_TRUNC, 0640, NULL);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void test_rename(void)
{
	put("a", "first");
	put("b", "second");
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
	path(a, "a");
	path(b, "b");
	path(c, "c");
	CU_ASSERT_EQUAL(xb_file_rename(XB_FILE_CWD, a, XB_FILE_CWD, b, false), -1);
	CU_ASSERT_EQUAL(errno, EEXIST);
	CU_ASSERT_EQUAL(access(a, F_OK), 0);
	CU_ASSERT_EQUAL(access(b, F_OK), 0);
	CU_ASSERT_EQUAL(xb_file_rename(XB_FILE_CWD, a, XB_FILE_CWD, c, false), 0);
	CU_ASSERT_NOT_EQUAL(access(a, F_OK), 0);
	CU_ASSERT_EQUAL(xb_file_rename(XB_FILE_CWD, c, XB_FILE_CWD, b, true), 0);
	char buf[16] = "";
	FILE *f = fopen(b, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof buf, f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "first");
	/* a name taken by an exclusive create */
	CU_ASSERT_EQUAL(xb_file_open(XB_FILE_CWD, b, XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_EXCL, 0640, NULL), -1);
	CU_ASSERT_EQUAL(errno, EEXIST);
}

static void test_sparse_and_copy(void)
{
	char s[PATH_MAX], d[PATH_MAX];
	path(s, "sparse");
	path(d, "copy");
	bool direct = true;
	int fd = xb_file_open(XB_FILE_CWD, s, XB_FILE_RDWR | XB_FILE_CREATE, 0640, &direct);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FALSE(direct);
	/* 1 MiB of data, a 3 MiB hole, 1 MiB of data, a 1 MiB hole at the end */
	char *blk = malloc(1 << 20);
	memset(blk, 'x', 1 << 20);
	CU_ASSERT_EQUAL(pwrite(fd, blk, 1 << 20, 0), 1 << 20);
	CU_ASSERT_EQUAL(pwrite(fd, blk, 1 << 20, 4 << 20), 1 << 20);
	CU_ASSERT_EQUAL(ftruncate(fd, 6 << 20), 0);
	off_t size = 6 << 20, data, end;
	CU_ASSERT_EQUAL(xb_file_next_data(fd, 0, size, &data, &end), 0);
	CU_ASSERT_EQUAL(data, 0);
	/* a file system may round a run up to its block size, never down */
	CU_ASSERT_TRUE(end >= (1 << 20) && end <= (4 << 20));
	CU_ASSERT_EQUAL(xb_file_next_data(fd, end, size, &data, &end), 0);
	CU_ASSERT_TRUE(data <= (4 << 20));
	CU_ASSERT_TRUE(end >= (5 << 20) && end <= size);
	int rc = xb_file_next_data(fd, end, size, &data, &end);
	CU_ASSERT_TRUE(rc == 1 || end == size); /* only the tail hole, or no hole support */
	/* the in-kernel copy */
	int out = xb_file_open(XB_FILE_CWD, d, XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_EXCL, 0640, NULL);
	CU_ASSERT_FATAL(out >= 0);
	off_t io = 0, oo = 0;
	ssize_t k = xb_file_copy_range(fd, &io, out, &oo, 1 << 20);
	if (k < 0) {
		CU_ASSERT_TRUE(xb_file_copy_unsupported(errno));
	} else {
		CU_ASSERT_EQUAL(k, 1 << 20);
		CU_ASSERT_EQUAL(io, 1 << 20);
		CU_ASSERT_EQUAL(oo, 1 << 20);
		char back[16];
		CU_ASSERT_EQUAL(pread(out, back, sizeof back, 0), -1); /* write-only */
		struct stat st;
		CU_ASSERT_EQUAL(fstat(out, &st), 0);
		CU_ASSERT_EQUAL(st.st_size, 1 << 20);
	}
	xb_file_writeback(out, 0, 0);
	xb_file_advise(fd, 0, 0, XB_ADVISE_SEQUENTIAL);
	xb_file_advise(fd, 0, 1 << 20, XB_ADVISE_WILLNEED);
	CU_ASSERT_FALSE(xb_file_drop_direct(fd)); /* never was */
	close(out);
	close(fd);
	free(blk);
	CU_ASSERT_FALSE(xb_file_copy_unsupported(EIO));
}

static int count(void *ctx, const xb_dirent *e, xb_error *err)
{
	(*(int *)ctx)++;
	return 0;
}

static void test_temp_and_dirs(void)
{
	int before = 0, after = 0;
	CU_ASSERT_EQUAL(xb_dir_each(dir, 0, count, &before, NULL), 0);
	int fd = xb_file_open_temp(dir);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "spool", 5), 5);
	char buf[8] = "";
	CU_ASSERT_EQUAL(pread(fd, buf, 5, 0), 5);
	CU_ASSERT_STRING_EQUAL(buf, "spool");
	CU_ASSERT_EQUAL(xb_dir_each(dir, 0, count, &after, NULL), 0);
	CU_ASSERT_EQUAL(before, after); /* no name in the directory */
	close(fd);
	CU_ASSERT_EQUAL(xb_dir_sync(dir), 0);
	int dfd = xb_dir_open(XB_FILE_CWD, dir, true);
	CU_ASSERT_FATAL(dfd >= 0);
	int f = xb_file_open(dfd, "b", XB_FILE_READ, 0, NULL);
	CU_ASSERT(f >= 0);
	close(f);
	/* a link named as a directory is refused with nofollow */
	CU_ASSERT_EQUAL(symlinkat(dir, dfd, "loop"), 0);
	CU_ASSERT_EQUAL(xb_dir_open(dfd, "loop", true), -1);
	int ok = xb_dir_open(dfd, "loop", false);
	CU_ASSERT(ok >= 0);
	close(ok);
	close(dfd);
	char p[PATH_MAX];
	path(p, "none");
	CU_ASSERT_EQUAL(xb_dir_sync(p), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/xb_file_test.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("file", NULL, NULL);
	CU_add_test(s, "rename without replacing", test_rename);
	CU_add_test(s, "data runs of a sparse file, in-kernel copy", test_sparse_and_copy);
	CU_add_test(s, "unnamed temporary file, directories", test_temp_and_dirs);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		failed++;
	return failed ? 1 : 0;
}
