/*
 * collect_test.c - splitting mini-transactions into per-page entries and the
 * multi-batch look-ahead (engine-hooks/innodb/recovery/collect.c), on
 * hand-encoded 10.8 redo records.
 *
 * The look-ahead is what lets a batch leave out pages that a FREE_PAGE or
 * INIT_PAGE later in the log rebuilds anyway: the newest FREE/INIT LSN of a
 * page wins, a FILE_CREATE after a FILE_DELETE revives a tablespace, and a
 * page freed by the very mtr after the batch is left out too. A batch
 * detached for the applier thread keeps its pages and its own copy of the
 * tablespace facts.
 */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "innodb/recovery/collect.h"

/* WRITE of two bytes at offset 100 of page (space, page): type 0x30, 5 bytes follow */
static size_t rec_write(uint8_t *p, uint8_t space, uint8_t page)
{
	const uint8_t r[] = {0x35, space, page, 100, 0xAA, 0xBB};
	memcpy(p, r, sizeof r);
	return sizeof r;
}

/* FREE_PAGE (0x00) or INIT_PAGE (0x10) of (space, page) */
static size_t rec_page_op(uint8_t *p, uint8_t type, uint8_t space, uint8_t page)
{
	p[0] = (uint8_t)(type | 2);
	p[1] = space;
	p[2] = page;
	return 3;
}

/* FILE_CREATE (0x80) or FILE_DELETE (0x90) of space with the name "d/t.ibd" */
static size_t rec_file(uint8_t *p, uint8_t type, uint8_t space)
{
	const char *name = "d/t.ibd";
	size_t n = strlen(name);
	p[0] = (uint8_t)(type | (2 + n));
	p[1] = space;
	p[2] = 0;
	memcpy(p + 3, name, n);
	return 3 + n;
}

static void test_split_per_page(void)
{
	collector r;
	CU_ASSERT_EQUAL_FATAL(collect_init(&r, 1 << 20), 0);
	uint8_t m[64];
	size_t n = rec_write(m, 5, 4);
	n += rec_write(m + n, 5, 3);
	n += rec_write(m + n, 5, 4);
	char why[160] = "";
	CU_ASSERT_EQUAL(collect_add_mtr(&r, m, (uint32_t)n, 1000, 1000 + n + 5, why, sizeof why), 0);
	size_t np = 0;
	collect_page **pg = collect_sorted_pages(&r, &np);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
	CU_ASSERT_EQUAL_FATAL(np, 2);
	CU_ASSERT_EQUAL(pg[0]->page_no, 3);
	CU_ASSERT_EQUAL(pg[1]->page_no, 4);
	/* page 4 got both of its records in one entry, in log order */
	CU_ASSERT_EQUAL(pg[1]->n_entries, 1);
	CU_ASSERT_EQUAL(pg[1]->first->len, 12);
	CU_ASSERT_EQUAL(memcmp(pg[1]->first->recs, m, 6), 0);
	CU_ASSERT_EQUAL(memcmp(pg[1]->first->recs + 6, m + 12, 6), 0);
	CU_ASSERT_EQUAL(pg[0]->first->start_lsn, 1000);
	free(pg);
	/* a FREE_PAGE in a later mtr discards what the page had in this batch */
	n = rec_page_op(m, 0x00, 5, 3);
	CU_ASSERT_EQUAL(collect_add_mtr(&r, m, (uint32_t)n, 2000, 2008, why, sizeof why), 0);
	pg = collect_sorted_pages(&r, &np);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
	CU_ASSERT_EQUAL(pg[0]->init_lsn, 2000);
	CU_ASSERT_EQUAL(pg[0]->n_entries, 1); /* only the FREE_PAGE entry */
	free(pg);
	collect_free(&r);
}

/* A batch of pages (5,3) (5,4) (5,6) ending at LSN 1100; the rest of the log
 * frees (5,3) at 2000 and rebuilds (5,4) at 3000. With fold = 0 the
 * look-ahead sees only the part up to 2100 (the rest goes to another
 * collector that is never merged): (5,4) then stays in the batch. With
 * fold = 2 the two parts are noted by two collectors (the verifier thread
 * and the parser helping it) and merged in log order: the same as one. */
static void test_lookahead_in_two_halves(void)
{
	for (int fold = 0; fold < 3; fold++) {
		collector r, a, b;
		CU_ASSERT_EQUAL_FATAL(collect_init(&r, 1 << 20), 0);
		CU_ASSERT_EQUAL_FATAL(collect_init(&a, 0), 0);
		CU_ASSERT_EQUAL_FATAL(collect_init(&b, 0), 0);
		uint8_t m[128];
		char why[160] = "";
		size_t n = rec_write(m, 5, 3);
		n += rec_write(m + n, 5, 4);
		n += rec_write(m + n, 5, 6);
		CU_ASSERT_EQUAL(collect_add_mtr(&r, m, (uint32_t)n, 1000, 1100, why, sizeof why), 0);

		/* (a file record after a page record would read as a same-page
		 * record: file operations come in mtrs of their own) */
		n = rec_page_op(m, 0x00, 5, 3);
		n += rec_page_op(m + n, 0x00, 7, 1); /* a page only the first part frees */
		CU_ASSERT_EQUAL(collect_note_later(&a, m, (uint32_t)n, 2000, NULL, 0), 0);
		n = rec_file(m, 0x90, 9);       /* space 9 dropped ... */
		n += rec_file(m + n, 0x90, 10); /* space 10 dropped for good */
		CU_ASSERT_EQUAL(collect_note_later(&a, m, (uint32_t)n, 2100, NULL, 0), 0);
		n = rec_page_op(m, 0x10, 5, 4);
		n += rec_page_op(m + n, 0x10, 5, 3);
		CU_ASSERT_EQUAL(collect_note_later(fold == 1 ? &a : &b, m, (uint32_t)n, 3000, NULL, 0), 0);
		n = rec_file(m, 0x80, 9); /* ... and created again */
		CU_ASSERT_EQUAL(collect_note_later(fold == 1 ? &a : &b, m, (uint32_t)n, 3100, NULL, 0), 0);
		n = rec_write(m, 10, 1); /* the second half knows space 10, but of no file operation */
		CU_ASSERT_EQUAL(collect_note_later(fold == 1 ? &a : &b, m, (uint32_t)n, 3200, NULL, 0), 0);

		CU_ASSERT_EQUAL(collect_merge_later(&r, &a), 0);
		if (fold == 2)
			CU_ASSERT_EQUAL(collect_merge_later(&r, &b), 0);
		size_t dropped = collect_drop_superseded(&r, &r);
		collect_space *s9 = collect_space_find(&r, 9), *s10 = collect_space_find(&r, 10);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s9);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s10);
		CU_ASSERT_TRUE(s10->later_deleted);
		if (fold) {
			CU_ASSERT_EQUAL(dropped, 2); /* (5,3) and (5,4); (5,6) stays */
			CU_ASSERT_FALSE(s9->later_deleted);
			CU_ASSERT_EQUAL(r.n_later, 3); /* (5,3), (5,4) and (7,1): nothing of the first part lost */
		} else {
			CU_ASSERT_EQUAL(dropped, 1); /* the second half unseen: only (5,3) */
			CU_ASSERT_TRUE(s9->later_deleted);
		}
		size_t np = 0;
		collect_page **pg = collect_sorted_pages(&r, &np);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
		size_t with_entries = 0;
		for (size_t i = 0; i < np; i++)
			with_entries += pg[i]->first != NULL;
		CU_ASSERT_EQUAL(with_entries, fold ? 1 : 2);
		free(pg);
		collect_free(&r);
		collect_free(&a);
		collect_free(&b);
	}
}

/* The mtr right after a batch starts at the batch's end LSN: a FREE_PAGE
 * there is later than the batch, and the page is left out of it. */
static void test_free_right_after_batch(void)
{
	collector r, a;
	CU_ASSERT_EQUAL_FATAL(collect_init(&r, 1 << 20), 0);
	CU_ASSERT_EQUAL_FATAL(collect_init(&a, 0), 0);
	uint8_t m[64];
	char why[160] = "";
	size_t n = rec_write(m, 0, 19);
	n += rec_write(m + n, 0, 20);
	CU_ASSERT_EQUAL(collect_add_mtr(&r, m, (uint32_t)n, 1000, 1100, why, sizeof why), 0);
	n = rec_page_op(m, 0x00, 0, 19); /* page 19 freed by the next mtr, at LSN 1100 */
	CU_ASSERT_EQUAL(collect_note_later(&a, m, (uint32_t)n, 1100, NULL, 0), 0);
	CU_ASSERT_EQUAL(collect_merge_later(&r, &a), 0);
	CU_ASSERT_EQUAL(collect_drop_superseded(&r, &r), 1);
	size_t np = 0;
	collect_page **pg = collect_sorted_pages(&r, &np);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
	for (size_t i = 0; i < np; i++)
		CU_ASSERT_EQUAL(pg[i]->first != NULL, pg[i]->page_no == 20);
	free(pg);
	collect_free(&r);
	collect_free(&a);
}

/* A batch detached for the applier thread keeps its pages and a copy of the
 * tablespace facts; the collector starts an empty batch; what the look-ahead
 * learns afterwards still reaches the detached batch. */
static void test_detach_batch(void)
{
	collector r, a;
	CU_ASSERT_EQUAL_FATAL(collect_init(&r, 1 << 20), 0);
	CU_ASSERT_EQUAL_FATAL(collect_init(&a, 0), 0);
	uint8_t m[64];
	char why[160] = "";
	size_t n = rec_file(m, 0x80, 9); /* space 9 created as d/t.ibd */
	CU_ASSERT_EQUAL(collect_add_mtr(&r, m, (uint32_t)n, 900, 1000, why, sizeof why), 0);
	n = rec_write(m, 9, 3);
	n += rec_write(m + n, 9, 4);
	CU_ASSERT_EQUAL(collect_add_mtr(&r, m, (uint32_t)n, 1000, 1100, why, sizeof why), 0);
	size_t before = collect_batch_bytes(&r);
	collector *b = collect_detach_batch(&r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->n_pages, 2);
	CU_ASSERT_EQUAL(b->batch_first_lsn, 900);
	CU_ASSERT_EQUAL(b->batch_end_lsn, 1100);
	CU_ASSERT_EQUAL(collect_batch_bytes(b), before);
	CU_ASSERT_EQUAL(r.n_pages, 0);
	CU_ASSERT_EQUAL(r.batch_first_lsn, 0);
	CU_ASSERT_EQUAL(r.batch_mtrs, 0);
	collect_space *bs = collect_space_find(b, 9), *rs = collect_space_find(&r, 9);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
	CU_ASSERT_STRING_EQUAL(bs->name, "d/t.ibd");
	CU_ASSERT_PTR_NOT_EQUAL(bs->name, rs->name); /* a copy: the parser may rename meanwhile */
	CU_ASSERT_TRUE(bs->created);

	/* the collector goes on with the next batch; the detached one is untouched */
	n = rec_write(m, 9, 3);
	CU_ASSERT_EQUAL(collect_add_mtr(&r, m, (uint32_t)n, 1100, 1200, why, sizeof why), 0);
	CU_ASSERT_EQUAL(r.n_pages, 1);
	CU_ASSERT_EQUAL(r.batch_first_lsn, 1100);
	size_t np = 0;
	collect_page **pg = collect_sorted_pages(b, &np);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
	CU_ASSERT_EQUAL_FATAL(np, 2);
	CU_ASSERT_EQUAL(pg[0]->n_entries, 1);
	CU_ASSERT_EQUAL(pg[0]->first->start_lsn, 1000);
	free(pg);

	/* the look-ahead, merged after the detach: (9,4) is freed at 1200, space 9 dropped at 1300 */
	n = rec_page_op(m, 0x00, 9, 4);
	CU_ASSERT_EQUAL(collect_note_later(&a, m, (uint32_t)n, 1200, why, sizeof why), 0);
	n = rec_file(m, 0x90, 9);
	CU_ASSERT_EQUAL(collect_note_later(&a, m, (uint32_t)n, 1300, why, sizeof why), 0);
	CU_ASSERT_EQUAL(collect_merge_later(&r, &a), 0);
	CU_ASSERT_FALSE(bs->later_deleted);
	CU_ASSERT_EQUAL(collect_refresh_later(b, &r), 0);
	CU_ASSERT_TRUE(bs->later_deleted);
	CU_ASSERT_STRING_EQUAL(bs->later_name, "d/t.ibd");
	CU_ASSERT_EQUAL(collect_drop_superseded(b, &r), 1);
	pg = collect_sorted_pages(b, &np);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
	CU_ASSERT_EQUAL_FATAL(np, 1);
	CU_ASSERT_EQUAL(pg[0]->page_no, 3);
	free(pg);
	collect_free(b);
	free(b);
	collect_free(&r);
	collect_free(&a);
}

/* The look-ahead walk checks the format rules: a FREE_PAGE with a payload is refused, with the reason. */
static void test_note_later_refuses_malformed(void)
{
	collector a;
	CU_ASSERT_EQUAL_FATAL(collect_init(&a, 0), 0);
	const uint8_t bad[] = {0x03, 5, 3, 0xFF};
	char why[160] = "";
	CU_ASSERT_EQUAL(collect_note_later(&a, bad, sizeof bad, 1000, why, sizeof why), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "FREE_PAGE/INIT_PAGE with a payload"));
	const uint8_t good[] = {0x02, 5, 3};
	CU_ASSERT_EQUAL(collect_note_later(&a, good, sizeof good, 1000, why, sizeof why), 0);
	CU_ASSERT_EQUAL(a.n_later, 1);
	collect_free(&a);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("collector", NULL, NULL);
	CU_add_test(s, "records split per page, FREE_PAGE discards", test_split_per_page);
	CU_add_test(s, "look-ahead over the rest of the log", test_lookahead_in_two_halves);
	CU_add_test(s, "a page freed right after the batch is left out", test_free_right_after_batch);
	CU_add_test(s, "a detached batch keeps its pages and facts", test_detach_batch);
	CU_add_test(s, "the look-ahead walk refuses a malformed record", test_note_later_refuses_malformed);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
