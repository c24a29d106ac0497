/*
 * sink_test.c - the local directory sink: files appear under their final name
 * only when closed, an aborted file leaves nothing, parent directories are
 * created, finish() syncs, and a target that is not a directory, not
 * writable or not empty is refused with a clear message. Zero blocks where a
 * file never had data become holes (the content reads back the same, the
 * length is whole), and zeros written over data by a seek back are written.
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink/sink.h"
#include "sink/sink_dir_ext.h"

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

/* Does the file system holding dir report holes (SEEK_HOLE inside a file
 * made sparse by ftruncate)? */
static int fs_has_holes(const char *dir)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/.holeprobe", dir);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	int ok = ftruncate(fd, 1 << 20) == 0 && lseek(fd, 0, SEEK_HOLE) == 0;
	close(fd);
	unlink(p);
	return ok;
}

/* Bytes of the file rel inside holes (SEEK_HOLE/SEEK_DATA walk). */
static uint64_t hole_bytes(const char *dir, const char *rel)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return UINT64_MAX;
	off_t end = lseek(fd, 0, SEEK_END), off = 0;
	uint64_t holes = 0;
	while (off < end) {
		off_t h = lseek(fd, off, SEEK_HOLE);
		if (h < 0 || h >= end)
			break;
		off_t d = lseek(fd, h, SEEK_DATA);
		if (d < 0)
			d = end;
		holes += (uint64_t)(d - h);
		off = d;
	}
	close(fd);
	return holes;
}

#define KB64 (64 * 1024)

static void test_zero_blocks_become_holes(void)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/t4", base);
	xb_error err;
	xb_err_clear(&err);
	xb_sink *s = xb_sink_dir_open(dir, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	/* 16 blocks of 64 KiB, written in uneven pieces: data, zeros x3, data
	 * with a zero 16 KiB page inside, zeros x2 ending in the middle of a
	 * piece, data, zeros x4 up to the very end (the length must be whole). */
	const size_t total = 16 * KB64;
	uint8_t *img = calloc(1, total);
	CU_ASSERT_PTR_NOT_NULL_FATAL(img);
	for (size_t i = 0; i < KB64; i++)
		img[i] = (uint8_t)(i * 13 + 1);
	for (size_t i = 4 * KB64; i < 6 * KB64; i++)
		img[i] = (uint8_t)(i * 7 + 3);
	memset(img + 4 * KB64 + 16384, 0, 16384); /* a zero page inside data: written */
	for (size_t i = 8 * KB64; i < 12 * KB64; i++)
		img[i] = (uint8_t)(i * 5 + 2);
	xb_sink_file *f = xb_sink_open(s, "db/sparse.ibd", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	size_t cuts[] = {0, 100000, 3 * KB64, 7 * KB64 + 4096, 9 * KB64, 15 * KB64, total};
	for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++)
		CU_ASSERT_EQUAL(xb_sink_write(f, img + cuts[i], cuts[i + 1] - cuts[i], &err), 0);
	CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
	CU_ASSERT_EQUAL(s->bytes_written, total);
	size_t len = 0;
	char *back = slurp(dir, "db/sparse.ibd", &len);
	CU_ASSERT_EQUAL(len, total);
	CU_ASSERT(back && memcmp(back, img, total) == 0);
	free(back);
	/* Holes: blocks 2, 3, 6 and 12-15. Blocks 1 and 7 are zero too, but the
	 * pieces cut them: only whole blocks within one write become holes. */
	if (fs_has_holes(dir))
		CU_ASSERT_EQUAL(hole_bytes(dir, "db/sparse.ibd"), 7 * (uint64_t)KB64);

	/* A seek back over data: the zeros written there replace it. */
	f = xb_sink_open(s, "db/patched", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(xb_sink_write(f, img + 8 * KB64, 2 * KB64, &err), 0);
	CU_ASSERT_EQUAL(xb_sink_dir_seek(f, 0, &err), 0);
	CU_ASSERT_EQUAL(xb_sink_write(f, img + KB64, KB64, &err), 0); /* zeros */
	CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
	back = slurp(dir, "db/patched", &len);
	CU_ASSERT_EQUAL(len, 2 * KB64);
	CU_ASSERT(back && memcmp(back, img + KB64, KB64) == 0 && memcmp(back + KB64, img + 9 * KB64, KB64) == 0);
	free(back);

	/* A file of zeros only is whole and all hole. */
	f = xb_sink_open(s, "undo001", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(xb_sink_write(f, img + KB64, 3 * KB64, &err), 0);
	CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
	struct stat st;
	char p[1024];
	snprintf(p, sizeof p, "%s/undo001", dir);
	CU_ASSERT(stat(p, &st) == 0 && st.st_size == 3 * KB64);
	CU_ASSERT_EQUAL(xb_sink_finish(s, &err), 0);
	xb_sink_free(s);
	free(img);
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
	CU_add_test(s, "zero blocks where a file had no data become holes", test_zero_blocks_become_holes);
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
