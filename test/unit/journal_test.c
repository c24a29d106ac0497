/*
 * journal_test.c - the prepare journal (engine-hooks/innodb/recovery/journal.c)
 * on a real file system, with a datafile of eight 16 KiB pages: runs
 * journaled and applied land in place and the journal is removed at the
 * end; runs journaled and committed but never applied (a kill -9 between
 * the two) are written in place by the next run's replay; a record cut
 * short (not yet durable when the run stopped) ends the replay there, the
 * records before it still applied; a journal discarded before any commit
 * is removed. Also the space calls the batch uses: xb_file_unallocated()
 * counts the holes of a sparse range and what lies past the end, and
 * xb_file_reserve() keeps the file's size (where the file system can
 * reserve). The default journal (not durable) writes each run in place as
 * soon as its record is whole: a failed write in place is replayed, and a
 * finished batch leaves nothing to replay.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "innodb/recovery/journal.h"
#include "platform/file.h"

#define PG 16384
static char dir[64];
static char data[PATH_MAX], jpath[PATH_MAX];

/* The datafile: 8 pages, page i filled with 'a' + i. */
static void make_data(void)
{
	int fd = xb_file_open(XB_FILE_CWD, data, XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_TRUNC, 0640, NULL);
	CU_ASSERT_FATAL(fd >= 0);
	static uint8_t p[PG];
	for (int i = 0; i < 8; i++) {
		memset(p, 'a' + i, PG);
		CU_ASSERT_EQUAL(xb_file_pwrite_all(fd, p, PG, (off_t)i * PG), 0);
	}
	close(fd);
}

/* The byte every page of the datafile is filled with (0 for a mixed page). */
static void pages(char out[9])
{
	int fd = xb_file_open(XB_FILE_CWD, data, XB_FILE_READ, 0, NULL);
	CU_ASSERT_FATAL(fd >= 0);
	static uint8_t p[PG];
	for (int i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(xb_file_pread_all(fd, p, PG, (off_t)i * PG), PG);
		out[i] = (char)p[0];
		for (int k = 1; k < PG; k++)
			if (p[k] != p[0])
				out[i] = '?';
	}
	out[8] = 0;
	close(fd);
}

/* A journal holding page 2..3 as 'X' and page 6 as 'Y', committed. */
static void journal_two_runs(journal *j)
{
	static uint8_t run[2 * PG];
	bool enospc;
	CU_ASSERT_EQUAL_FATAL(journal_begin(j, dir, journal_bound(3, 3 * PG), &enospc, NULL), 0);
	memset(run, 'X', sizeof run);
	CU_ASSERT_EQUAL(journal_add(j, data, 2 * PG, run, 2 * PG, NULL), 0);
	memset(run, 'Y', PG);
	CU_ASSERT_EQUAL(journal_add(j, data, 6 * PG, run, PG, NULL), 0);
	CU_ASSERT_EQUAL(journal_commit(j, NULL), 0);
}

static void test_apply(void)
{
	make_data();
	journal j = {.fd = -1, .durable = true};
	journal_two_runs(&j);
	CU_ASSERT_EQUAL(access(jpath, F_OK), 0);
	CU_ASSERT_EQUAL(journal_apply(&j, NULL), 0);
	char got[9];
	pages(got);
	CU_ASSERT_STRING_EQUAL(got, "abXXefYh");
	CU_ASSERT_EQUAL(journal_end(&j, NULL), 0);
	CU_ASSERT_EQUAL(access(jpath, F_OK), -1);
}

static void test_replay_committed(void)
{
	make_data();
	journal j = {.fd = -1, .durable = true};
	journal_two_runs(&j);
	journal_discard(&j); /* the run stops here: committed, nothing in place */
	CU_ASSERT_EQUAL_FATAL(access(jpath, F_OK), 0);
	char got[9];
	pages(got);
	CU_ASSERT_STRING_EQUAL(got, "abcdefgh");
	uint64_t bytes = 0;
	xb_error err = {0};
	CU_ASSERT_EQUAL(journal_replay(dir, &bytes, &err), 0);
	CU_ASSERT_EQUAL(bytes, 3 * PG);
	pages(got);
	CU_ASSERT_STRING_EQUAL(got, "abXXefYh");
	CU_ASSERT_EQUAL(access(jpath, F_OK), -1);
}

static void test_replay_cut(void)
{
	make_data();
	journal j = {.fd = -1, .durable = true};
	journal_two_runs(&j);
	journal_discard(&j);
	/* the second record loses its last byte: it was not durable yet */
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(jpath, &st), 0);
	CU_ASSERT_EQUAL_FATAL(truncate(jpath, st.st_size - 1), 0);
	uint64_t bytes = 0;
	CU_ASSERT_EQUAL(journal_replay(dir, &bytes, NULL), 0);
	CU_ASSERT_EQUAL(bytes, 2 * PG);
	char got[9];
	pages(got);
	CU_ASSERT_STRING_EQUAL(got, "abXXefgh");
	CU_ASSERT_EQUAL(access(jpath, F_OK), -1);
}

static void test_discard_uncommitted(void)
{
	make_data();
	journal j = {.fd = -1};
	bool enospc;
	static uint8_t run[PG];
	memset(run, 'Z', PG);
	CU_ASSERT_EQUAL_FATAL(journal_begin(&j, dir, journal_bound(1, PG), &enospc, NULL), 0);
	CU_ASSERT_EQUAL(journal_add(&j, data, 0, run, PG, NULL), 0);
	journal_discard(&j); /* an error before the commit */
	CU_ASSERT_EQUAL(access(jpath, F_OK), -1);
	char got[9];
	pages(got);
	CU_ASSERT_STRING_EQUAL(got, "abcdefgh");
	uint64_t bytes = 1;
	CU_ASSERT_EQUAL(journal_replay(dir, &bytes, NULL), 0); /* no journal: nothing to do */
	CU_ASSERT_EQUAL(bytes, 0);
}

/* The default (not durable) journal: each run is journaled, then written in
 * place at once; the batch's end starts the journal over. */
static void test_fast(void)
{
	make_data();
	journal j = {.fd = -1};
	bool enospc;
	static uint8_t run[2 * PG];
	int fd = xb_file_open(XB_FILE_CWD, data, XB_FILE_RDWR, 0, NULL);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(journal_begin(&j, dir, journal_bound(3, 3 * PG), &enospc, NULL), 0);
	memset(run, 'X', sizeof run);
	CU_ASSERT_EQUAL(journal_write(&j, data, fd, 2 * PG, run, 2 * PG, NULL), 0);
	char got[9];
	pages(got);
	CU_ASSERT_STRING_EQUAL(got, "abXXefgh"); /* in place at once */
	memset(run, 'Y', PG);
	CU_ASSERT_EQUAL(journal_write(&j, data, fd, 6 * PG, run, PG, NULL), 0);
	CU_ASSERT_EQUAL(journal_batch_done(&j, NULL), 0);
	pages(got);
	CU_ASSERT_STRING_EQUAL(got, "abXXefYh");
	/* a run stopped here: the journal started over, nothing to replay */
	journal_discard(&j);
	close(fd);
	uint64_t bytes = 1;
	CU_ASSERT_EQUAL(journal_replay(dir, &bytes, NULL), 0);
	CU_ASSERT_EQUAL(bytes, 0);
	CU_ASSERT_EQUAL(access(jpath, F_OK), -1);
}

/* Not durable: the write in place fails (here: a file opened read-only, as an
 * I/O error would) after the record is whole; the journal is kept and the
 * next run's replay writes the run. */
static void test_fast_failed_write(void)
{
	make_data();
	journal j = {.fd = -1};
	bool enospc;
	static uint8_t run[PG];
	int ro = xb_file_open(XB_FILE_CWD, data, XB_FILE_READ, 0, NULL);
	CU_ASSERT_FATAL(ro >= 0);
	CU_ASSERT_EQUAL_FATAL(journal_begin(&j, dir, journal_bound(1, PG), &enospc, NULL), 0);
	memset(run, 'Z', PG);
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(journal_write(&j, data, ro, 5 * PG, run, PG, &err), XB_E_IO_WRITE);
	CU_ASSERT(strstr(err.msg, "cannot write t.ibd at byte 81920") != NULL);
	CU_ASSERT(strstr(err.hint, "run --prepare again") != NULL);
	journal_discard(&j);
	close(ro);
	CU_ASSERT_EQUAL_FATAL(access(jpath, F_OK), 0);
	uint64_t bytes = 0;
	CU_ASSERT_EQUAL(journal_replay(dir, &bytes, NULL), 0);
	CU_ASSERT_EQUAL(bytes, PG);
	char got[9];
	pages(got);
	CU_ASSERT_STRING_EQUAL(got, "abcdeZgh");
}

static void test_space(void)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/sparse", dir);
	int fd = xb_file_open(XB_FILE_CWD, p, XB_FILE_RDWR | XB_FILE_CREATE | XB_FILE_TRUNC, 0640, NULL);
	CU_ASSERT_FATAL(fd >= 0);
	static uint8_t b[65536];
	memset(b, 1, sizeof b);
	CU_ASSERT_EQUAL(xb_file_pwrite_all(fd, b, sizeof b, 0), 0);
	CU_ASSERT_EQUAL(ftruncate(fd, 4 * 65536), 0); /* 3 x 64 KiB of hole at the end */
	CU_ASSERT_EQUAL(xb_file_unallocated(fd, 0, 65536), 0);
	off_t hole = xb_file_unallocated(fd, 0, 5 * 65536); /* the holes and 64 KiB past the end */
	CU_ASSERT(hole == 4 * 65536 || hole == 65536); /* a file system that cannot tell holes: only past the end */
	CU_ASSERT(xb_fs_free(fd) > 0);
	if (xb_file_reserve(fd, 0, 5 * 65536) == 0) {
		struct stat st;
		CU_ASSERT_EQUAL(fstat(fd, &st), 0);
		CU_ASSERT_EQUAL(st.st_size, 4 * 65536); /* the size is kept */
	} else {
		CU_ASSERT(xb_file_reserve_unsupported(errno));
	}
	close(fd);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/xb_journal_test.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(data, sizeof data, "%s/t.ibd", dir);
	snprintf(jpath, sizeof jpath, "%s/%s", dir, JOURNAL_NAME);
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("journal", NULL, NULL);
	CU_add_test(s, "journaled runs applied in place, journal removed at the end", test_apply);
	CU_add_test(s, "committed runs never applied: the replay writes them", test_replay_committed);
	CU_add_test(s, "a record cut short ends the replay", test_replay_cut);
	CU_add_test(s, "an uncommitted journal is discarded", test_discard_uncommitted);
	CU_add_test(s, "not durable: runs in place at once, the journal starts over each batch", test_fast);
	CU_add_test(s, "not durable: a failed write in place is replayed", test_fast_failed_write);
	CU_add_test(s, "holes counted, space reserved without a size change", test_space);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return failed ? 1 : 0;
}
