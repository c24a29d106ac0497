/*
 * spaces_test.c - the bookkeeping of engine-hooks/innodb/spaces.c that
 * recovery relies on between batches: the map of pages this recovery wrote
 * (a page read back by a later batch is not checked twice; a truncation
 * forgets what it cut off). On a real 20-page file in a temporary
 * directory. And the scan of a backup directory built from real files (the
 * inventory's, keyed by space id: a system tablespace in two files, an undo
 * tablespace, a table, one created during the backup and claimed by the
 * name the log gives it), whose written files spaces_sync() fsyncs.
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "innodb/spaces.h"

static void test_written_map(void)
{
	char dir[] = "/tmp/xb_spaces_XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/t.ibd", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(ftruncate(fd, 20 * 16384), 0);
	close(fd);

	space_file f;
	memset(&f, 0, sizeof f);
	f.space_id = 7;
	f.info.physical_size = 16384;
	f.n_parts = 1;
	f.part[0] = (space_part){.path = path, .fd = -1, .first_page = 0, .n_pages = 20};
	CU_ASSERT_FALSE(spaces_page_written(&f, 3)); /* no map yet: nothing is taken as checked */
	spaces_mark_written(&f, 3);                  /* ignored without a map */
	CU_ASSERT_FALSE(spaces_page_written(&f, 3));
	CU_ASSERT_EQUAL_FATAL(spaces_map_pages(&f), 0);
	CU_ASSERT_EQUAL(f.map_pages, 20);
	spaces_mark_written(&f, 3);
	spaces_mark_written(&f, 17);
	spaces_mark_written(&f, 25); /* past the end: ignored */
	CU_ASSERT_TRUE(spaces_page_written(&f, 3));
	CU_ASSERT_TRUE(spaces_page_written(&f, 17));
	CU_ASSERT_FALSE(spaces_page_written(&f, 4));
	CU_ASSERT_FALSE(spaces_page_written(&f, 25));

	xb_error err;
	memset(&err, 0, sizeof err);
	CU_ASSERT_EQUAL(spaces_truncate(&f, 10, &err), 0); /* undo truncation */
	CU_ASSERT_TRUE(spaces_page_written(&f, 3));
	CU_ASSERT_FALSE(spaces_page_written(&f, 17)); /* cut off: forgotten */
	CU_ASSERT_EQUAL(spaces_extend(&f, 40, &err), 0);
	CU_ASSERT_EQUAL(spaces_map_pages(&f), 0);
	CU_ASSERT_EQUAL(f.map_pages, 40);
	CU_ASSERT_FALSE(spaces_page_written(&f, 17));
	CU_ASSERT_FALSE(spaces_page_written(&f, 39));
	CU_ASSERT_TRUE(spaces_page_written(&f, 3));
	struct stat st;
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 40 * 16384);

	close(f.part[0].fd);
	free(f.written_map);
	unlink(path);
	rmdir(dir);
}

static void copy_fixture(const char *dir, const char *rel, const char *name, size_t zeros)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	size_t len = zeros;
	uint8_t *b = name ? load(name, &len) : calloc(1, zeros);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(b, 1, len, f), len);
	fclose(f);
	free(b);
}

static void test_scan_and_sync(void)
{
	char dir[] = "/tmp/xb_spaces_scan_XXXXXX", sub[64], cmd[128];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/test", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
	copy_fixture(dir, "ibdata1", "ibdata1.pages", 0); /* 8 pages */
	copy_fixture(dir, "ibdata2", NULL, 5 * 16384);
	copy_fixture(dir, "undo001", "../inventory/undo001.page0", 0);
	copy_fixture(dir, "test/t1.ibd", "../datafile/t1.ibd", 0);
	copy_fixture(dir, "test/t_new.ibd", NULL, 2 * 16384);

	spaces s;
	xb_error err;
	memset(&err, 0, sizeof err);
	CU_ASSERT_EQUAL_FATAL(spaces_scan(&s, dir, "ibdata1:12M;ibdata2:4M:autoextend", &err), 0);
	CU_ASSERT_EQUAL(s.n, 3);
	space_file *sys = spaces_find(&s, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sys);
	CU_ASSERT_STRING_EQUAL(sys->rel, "ibdata1");
	CU_ASSERT_EQUAL_FATAL(sys->n_parts, 2);
	CU_ASSERT_EQUAL(sys->part[1].first_page, 8);
	CU_ASSERT_EQUAL(sys->part[1].n_pages, 5);
	CU_ASSERT_EQUAL(spaces_size_pages(sys), 13);
	int fd;
	off_t off;
	uint64_t run;
	CU_ASSERT_EQUAL(spaces_locate(sys, 10, &fd, &off, &run, &err), 0);
	CU_ASSERT_EQUAL(off, 2 * 16384);
	CU_ASSERT_EQUAL(run, UINT64_MAX); /* the last part grows */
	CU_ASSERT_EQUAL(spaces_locate(sys, 3, &fd, &off, &run, &err), 0);
	CU_ASSERT_EQUAL(off, 3 * 16384);
	CU_ASSERT_EQUAL(run, 5);
	space_file *undo = spaces_find(&s, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(undo);
	CU_ASSERT_STRING_EQUAL(undo->rel, "undo001");
	space_file *t1 = spaces_find(&s, 9);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t1);
	CU_ASSERT_STRING_EQUAL(t1->rel, "test/t1.ibd");
	CU_ASSERT_EQUAL(spaces_size_pages(t1), 15);
	CU_ASSERT_TRUE(t1->io_block >= 512);
	/* created during the backup: claimed by the log's name for it */
	CU_ASSERT_EQUAL(s.n_unknown, 1);
	CU_ASSERT_TRUE(spaces_has_unknown(&s, "./test/t_new.ibd"));
	space_file *t_new = spaces_claim(&s, 42, "./test/t_new.ibd", 0x15);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t_new);
	CU_ASSERT_EQUAL(spaces_size_pages(t_new), 2);
	CU_ASSERT_EQUAL(s.n_unknown, 0);

	/* the parts written to are fsynced, on several threads */
	t1 = spaces_find(&s, 9);
	sys = spaces_find(&s, 0);
	CU_ASSERT_EQUAL(spaces_extend(t1, 20, &err), 0);
	CU_ASSERT_EQUAL(spaces_extend(sys, 16, &err), 0);
	CU_ASSERT_TRUE(t1->written);
	CU_ASSERT_EQUAL(spaces_sync(&s, 4, &err), 0);
	CU_ASSERT_FALSE(t1->written);
	CU_ASSERT_FALSE(sys->written);
	spaces_free(&s);

	/* a bad innodb_data_file_path is refused */
	CU_ASSERT_EQUAL(spaces_scan(&s, dir, "ibdata1", &err), XB_E_CONFIG);
	spaces_free(&s);
	/* two files holding one tablespace */
	copy_fixture(dir, "test/t1_copy.ibd", "../datafile/t1.ibd", 0);
	CU_ASSERT_EQUAL(spaces_scan(&s, dir, NULL, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "both hold tablespace 9"));
	spaces_free(&s);

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

int main(void)
{
	find_fixture_dir();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("spaces", NULL, NULL);
	CU_add_test(s, "pages written by this recovery", test_written_map);
	CU_add_test(s, "scan of a backup directory, fsync of what was written", test_scan_and_sync);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
