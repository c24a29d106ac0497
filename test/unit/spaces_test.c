/*
 * spaces_test.c - the bookkeeping of engine-hooks/innodb/spaces.c that
 * recovery relies on between batches: the map of pages this recovery wrote
 * (a page read back by a later batch is not checked twice; a truncation
 * forgets what it cut off). On a real 20-page file in a temporary
 * directory.
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("spaces", NULL, NULL);
	CU_add_test(s, "pages written by this recovery", test_written_map);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
