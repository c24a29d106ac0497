/*
 * aio_test.c - the chunked file reader (src/platform/aio.c) against read(2).
 *
 * Files of awkward sizes (0, 1, 4095, 4097, several chunks plus a tail) are
 * written with deterministic pseudo-random bytes, then read back through
 * every mode (aio+O_DIRECT, pread+O_DIRECT, buffered, and O_DIRECT refused at
 * read time) and compared byte for byte with a plain read(2) of the file.
 * Files live next to the test binary (a real disk: O_DIRECT works there) and
 * in /dev/shm (tmpfs, which older kernels refuse O_DIRECT on). Also covered:
 * growth during reading (the end-of-file re-stat), shrinking, unaligned
 * re-reads, a missing file.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform/aio.h"

static char disk_dir[4096]; /* temporary directory on the build disk */
static char shm_dir[256];   /* temporary directory on /dev/shm, "" if none */

static uint8_t *pattern(size_t len, unsigned seed)
{
	uint8_t *p = malloc(len ? len : 1);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
	return p;
}

static void write_file(const char *path, const uint8_t *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		CU_ASSERT_FATAL(n > 0);
		done += (size_t)n;
	}
	close(fd);
}

/* The whole file with read(2), the reference. */
static uint8_t *read_plain(const char *path, size_t *len)
{
	struct stat st;
	CU_ASSERT_FATAL(stat(path, &st) == 0);
	uint8_t *buf = malloc((size_t)st.st_size + 1);
	int fd = open(path, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	size_t done = 0;
	for (;;) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);
		CU_ASSERT_FATAL(n >= 0);
		if (n == 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	*len = done;
	return buf;
}

/* Read the whole file through a reader, checking chunk sizes and offsets. */
static uint8_t *read_reader(xb_reader *r, size_t chunk, size_t *len)
{
	size_t cap = 1 << 16, total = 0;
	uint8_t *all = malloc(cap);
	xb_error err = {0};
	for (;;) {
		const uint8_t *buf;
		size_t n;
		uint64_t off;
		int rc = xb_reader_next(r, &buf, &n, &off, &err);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_EQUAL(off, total);
		if (n == 0)
			break;
		CU_ASSERT(n <= chunk);
		if (total + n > cap) {
			while (total + n > cap)
				cap *= 2;
			uint8_t *bigger = realloc(all, cap);
			CU_ASSERT_PTR_NOT_NULL_FATAL(bigger);
			all = bigger;
		}
		memcpy(all + total, buf, n);
		total += n;
	}
	*len = total;
	return all;
}

static void check_file(const char *dir, size_t size, size_t chunk, int depth, unsigned flags)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/f_%zu_%zu_%d_%u", dir, size, chunk, depth, flags);
	uint8_t *data = pattern(size, (unsigned)(size + chunk + flags));
	write_file(path, data, size);

	size_t ref_len;
	uint8_t *ref = read_plain(path, &ref_len);
	CU_ASSERT_EQUAL_FATAL(ref_len, size);

	xb_error err = {0};
	xb_reader *r = xb_reader_open_flags(path, chunk, depth, flags, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(xb_reader_size(r), size);
	size_t got_len;
	uint8_t *got = read_reader(r, chunk, &got_len);
	CU_ASSERT_EQUAL(got_len, size);
	CU_ASSERT(got_len == size && memcmp(got, ref, size) == 0);
	if (flags & XB_READER_NO_DIRECT)
		CU_ASSERT_FALSE(xb_reader_is_direct(r));
	if (flags & XB_READER_NO_AIO)
		CU_ASSERT_FALSE(xb_reader_is_aio(r));
	if ((flags & XB_READER_TEST_EINVAL) && size > 0) {
		/* O_DIRECT refused at the first read: continued buffered */
		CU_ASSERT_FALSE(xb_reader_is_direct(r));
		CU_ASSERT_PTR_NOT_NULL(strstr(xb_reader_mode(r), "pread+buffered"));
	}
	/* EOF is sticky */
	const uint8_t *b;
	size_t n = 1;
	uint64_t off;
	CU_ASSERT_EQUAL(xb_reader_next(r, &b, &n, &off, &err), 0);
	CU_ASSERT_EQUAL(n, 0);
	xb_reader_close(r);
	unlink(path);
	free(data);
	free(ref);
	free(got);
}

static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 65536, 3 * 65536 + 123,
			       (5 << 20) + 777};

static void run_sizes(const char *dir, unsigned flags)
{
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		check_file(dir, sizes[i], 65536, 4, flags);
		if (sizes[i] > 65536)
			check_file(dir, sizes[i], 1 << 20, 8, flags);
	}
}

static void test_disk_default(void)
{
	run_sizes(disk_dir, 0);
	/* on a real disk the preferred mode is taken */
	char path[4200];
	snprintf(path, sizeof path, "%s/mode", disk_dir);
	uint8_t *d = pattern(10000, 7);
	write_file(path, d, 10000);
	free(d);
	xb_error err = {0};
	xb_reader *r = xb_reader_open(path, 0, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	printf("\n  reader mode on %s: %s\n", disk_dir, xb_reader_mode(r));
	CU_ASSERT(xb_reader_is_direct(r));
	xb_reader_close(r);
	unlink(path);
}

static void test_disk_buffered(void) { run_sizes(disk_dir, XB_READER_NO_DIRECT); }
static void test_disk_pread_direct(void) { run_sizes(disk_dir, XB_READER_NO_AIO); }
static void test_disk_einval(void) { run_sizes(disk_dir, XB_READER_TEST_EINVAL); }
static void test_disk_einval_pread(void)
{
	run_sizes(disk_dir, XB_READER_TEST_EINVAL | XB_READER_NO_AIO);
}

static void test_shm(void)
{
	if (!shm_dir[0])
		return;
	run_sizes(shm_dir, 0);
	run_sizes(shm_dir, XB_READER_NO_DIRECT | XB_READER_NO_AIO);
}

/* The file grows after open: the re-stat at end of file picks up the rest,
 * also when the old end is not block aligned (O_DIRECT must restart aligned). */
static void test_growth(void)
{
	unsigned modes[] = {0, XB_READER_NO_AIO, XB_READER_NO_DIRECT};
	for (size_t m = 0; m < 3; m++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/grow", disk_dir);
		size_t first = 3 * 65536 + 1000, total = first + 200000;
		uint8_t *data = pattern(total, 11);
		write_file(path, data, first);
		xb_error err = {0};
		xb_reader *r = xb_reader_open_flags(path, 65536, 4, modes[m], &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_EQUAL(xb_reader_size(r), first);
		/* append after open */
		int fd = open(path, O_WRONLY | O_APPEND);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL(write(fd, data + first, total - first), (ssize_t)(total - first));
		close(fd);
		size_t len;
		uint8_t *got = read_reader(r, 65536, &len);
		CU_ASSERT_EQUAL(len, total);
		CU_ASSERT(len == total && memcmp(got, data, total) == 0);
		CU_ASSERT_EQUAL(xb_reader_size(r), total);
		xb_reader_close(r);
		free(got);
		free(data);
		unlink(path);
	}
}

/* The file shrinks after open: reading stops at the new end without error. */
static void test_shrink(void)
{
	unsigned modes[] = {0, XB_READER_NO_AIO, XB_READER_NO_DIRECT};
	for (size_t m = 0; m < 3; m++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/shrink", disk_dir);
		size_t size = 10 * 65536, cut = 2 * 65536 + 5000;
		uint8_t *data = pattern(size, 13);
		write_file(path, data, size);
		xb_error err = {0};
		xb_reader *r = xb_reader_open_flags(path, 65536, 2, modes[m], &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_EQUAL(truncate(path, (off_t)cut), 0);
		size_t len;
		uint8_t *got = read_reader(r, 65536, &len);
		CU_ASSERT_EQUAL(len, cut);
		CU_ASSERT(len == cut && memcmp(got, data, cut) == 0);
		xb_reader_close(r);
		free(got);
		free(data);
		unlink(path);
	}
}

static void test_reread(void)
{
	unsigned modes[] = {0, XB_READER_NO_DIRECT, XB_READER_TEST_EINVAL};
	for (size_t m = 0; m < 3; m++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/reread", disk_dir);
		size_t size = 100000;
		uint8_t *data = pattern(size, 17);
		write_file(path, data, size);
		xb_error err = {0};
		xb_reader *r = xb_reader_open_flags(path, 0, 0, modes[m], &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		uint8_t buf[20000];
		/* aligned page, unaligned 1 KiB page, the tail */
		CU_ASSERT_EQUAL(xb_reader_reread(r, 16384, buf, 16384, &err), 0);
		CU_ASSERT(memcmp(buf, data + 16384, 16384) == 0);
		CU_ASSERT_EQUAL(xb_reader_reread(r, 5 * 1024, buf + 1, 1024, &err), 0);
		CU_ASSERT(memcmp(buf + 1, data + 5 * 1024, 1024) == 0);
		CU_ASSERT_EQUAL(xb_reader_reread(r, size - 1000, buf, 1000, &err), 0);
		CU_ASSERT(memcmp(buf, data + size - 1000, 1000) == 0);
		/* beyond the end: short */
		CU_ASSERT_EQUAL(xb_reader_reread(r, size - 1000, buf, 2000, &err), XB_E_IO_READ);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "short re-read of"));
		xb_reader_close(r);
		free(data);
		unlink(path);
	}
}

static void test_missing(void)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/does-not-exist.ibd", disk_dir);
	xb_error err = {0};
	CU_ASSERT_PTR_NULL(xb_reader_open(path, 0, 0, &err));
	CU_ASSERT_EQUAL(err.code, XB_E_MISSING_FILE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "does-not-exist.ibd"));
	xb_err_clear(&err);
	CU_ASSERT_PTR_NULL(xb_reader_open(disk_dir, 0, 0, &err));
	CU_ASSERT_EQUAL(err.code, XB_E_IO_READ);
}

/* Throttled reading: 3 MiB in 1 MiB chunks at 4 MiB/s start at 0, .25, .5 s. */
static void test_throttled(void)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/thr", disk_dir);
	size_t size = 3 << 20;
	uint8_t *data = pattern(size, 19);
	write_file(path, data, size);
	xb_throttle *t;
	CU_ASSERT_EQUAL_FATAL(xb_throttle_create(4, &t, NULL), 0);
	xb_error err = {0};
	xb_reader *r = xb_reader_open(path, 1 << 20, 4, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	xb_reader_set_throttle(r, t);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	size_t len;
	uint8_t *got = read_reader(r, 1 << 20, &len);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	CU_ASSERT(len == size && memcmp(got, data, size) == 0);
	CU_ASSERT(s >= 0.45 && s < 1.5);
	xb_reader_close(r);
	xb_throttle_free(t);
	free(got);
	free(data);
	unlink(path);
}

/* Closing a reader with reads still in flight waits for them (ASan checks). */
static void test_close_midway(void)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/midway", disk_dir);
	size_t size = 8 << 20;
	uint8_t *data = pattern(size, 23);
	write_file(path, data, size);
	xb_error err = {0};
	xb_reader *r = xb_reader_open(path, 1 << 20, 8, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	const uint8_t *b;
	size_t n;
	uint64_t off;
	CU_ASSERT_EQUAL(xb_reader_next(r, &b, &n, &off, &err), 0);
	CU_ASSERT(n == (1 << 20) && memcmp(b, data, n) == 0);
	xb_reader_close(r);
	free(data);
	unlink(path);
}

static void rm_dir(const char *dir)
{
	if (dir[0])
		rmdir(dir);
}

int main(int argc, char **argv)
{
	(void)argc;
	char self[4096];
	snprintf(self, sizeof self, "%s", argv[0]);
	snprintf(disk_dir, sizeof disk_dir, "%s/aio_test.XXXXXX", dirname(self));
	if (!mkdtemp(disk_dir)) {
		perror(disk_dir);
		return 1;
	}
	snprintf(shm_dir, sizeof shm_dir, "/dev/shm/aio_test.XXXXXX");
	if (!mkdtemp(shm_dir))
		shm_dir[0] = '\0';

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("aio", NULL, NULL);
	CU_add_test(s, "disk, default mode (aio+O_DIRECT)", test_disk_default);
	CU_add_test(s, "disk, buffered", test_disk_buffered);
	CU_add_test(s, "disk, pread+O_DIRECT", test_disk_pread_direct);
	CU_add_test(s, "disk, O_DIRECT refused at read (aio)", test_disk_einval);
	CU_add_test(s, "disk, O_DIRECT refused at read (pread)", test_disk_einval_pread);
	CU_add_test(s, "tmpfs", test_shm);
	CU_add_test(s, "file grows while read", test_growth);
	CU_add_test(s, "file shrinks while read", test_shrink);
	CU_add_test(s, "re-read any range", test_reread);
	CU_add_test(s, "missing file", test_missing);
	CU_add_test(s, "throttled reads", test_throttled);
	CU_add_test(s, "close with reads in flight", test_close_midway);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	rm_dir(disk_dir);
	rm_dir(shm_dir);
	return failed ? 1 : 0;
}
