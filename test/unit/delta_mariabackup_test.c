/*
 * delta_mariabackup_test.c - the .delta/.meta format against files written
 * by mariabackup 10.11 itself (engine-hooks/innodb/delta.c).
 *
 * Fixtures (test/fixtures/innodb, made by make-delta-fixtures.sh there): the
 * d/t.ibd.{delta,meta} (16 KiB pages) and d/tz.ibd.{delta,meta}
 * (ROW_FORMAT=COMPRESSED, 8 KiB pages) of a real incremental backup taken by
 * mariabackup after a few rows of each table changed. Each .delta is read
 * with our reader, its pages fed to our writer, and the writer's output must
 * be the very bytes mariabackup wrote; each .meta parses and formats back to
 * the same bytes. The pages themselves are checked to be the pages they say
 * (their page-number field, their space id) in increasing page order.
 */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "fixture.h"
#include "innodb/delta.h"
#include "innodb/page.h"

/* The writer's output, collected in memory. */
typedef struct collected {
	uint8_t *buf;  /* bytes emitted so far */
	size_t len;    /* their count */
} collected;

static int collect(void *ctx, const uint8_t *buf, size_t len, xb_error *err)
{
	collected *c = ctx;
	uint8_t *n = realloc(c->buf, c->len + len);
	if (!n)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	memcpy(n + c->len, buf, len);
	c->buf = n;
	c->len += len;
	return 0;
}

/* name: "mb_inc_t"; want_ps, want_zip: what the .meta must say. */
static void roundtrip(const char *name, uint32_t want_ps, uint32_t want_zip)
{
	char meta_name[64], delta_name[64], path[PATH_MAX + 64];
	snprintf(meta_name, sizeof meta_name, "%s.meta", name);
	snprintf(delta_name, sizeof delta_name, "%s.delta", name);
	size_t meta_len, delta_len;
	uint8_t *meta = load(meta_name, &meta_len);
	uint8_t *delta = load(delta_name, &delta_len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(meta);
	CU_ASSERT_PTR_NOT_NULL_FATAL(delta);

	/* .meta: parsed, then formatted back byte for byte */
	innodb_delta_meta m;
	xb_error err = {0};
	CU_ASSERT_EQUAL_FATAL(innodb_delta_meta_parse((const char *)meta, meta_len, meta_name, &m, &err), 0);
	CU_ASSERT_EQUAL(m.page_size, want_ps);
	CU_ASSERT_EQUAL(m.zip_size, want_zip);
	CU_ASSERT(m.space_id != INNODB_DELTA_NO_SPACE && m.space_id > 0);
	char again[INNODB_DELTA_META_MAX];
	size_t n = innodb_delta_meta_format(&m, again, sizeof again);
	CU_ASSERT_EQUAL(n, meta_len);
	CU_ASSERT(n == meta_len && memcmp(again, meta, n) == 0);

	/* .delta: every page through our reader into our writer */
	snprintf(path, sizeof path, "%s/%s", fixture_dir, delta_name);
	innodb_delta_reader *r = innodb_delta_reader_open(path, m.page_size, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	collected out = {0};
	innodb_delta_writer *w = innodb_delta_writer_new(m.page_size, collect, &out, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	uint32_t page_no, prev = 0, pages = 0;
	const uint8_t *page;
	int rc;
	while ((rc = innodb_delta_reader_next(r, &page_no, &page, &err)) == 1) {
		/* the page it says, of the space the .meta says, in increasing order */
		CU_ASSERT_EQUAL(be32_get(page + FIL_PAGE_OFFSET), page_no);
		CU_ASSERT_EQUAL(be32_get(page + FIL_PAGE_SPACE_ID), m.space_id);
		CU_ASSERT(pages == 0 || page_no > prev);
		CU_ASSERT(innodb_page_lsn(page) > 0);
		prev = page_no;
		pages++;
		CU_ASSERT_EQUAL_FATAL(innodb_delta_writer_add(w, page_no, page, &err), 0);
	}
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(pages >= 2); /* a root page and a leaf at least */
	CU_ASSERT_EQUAL(innodb_delta_reader_pages(r), pages);
	CU_ASSERT_EQUAL_FATAL(innodb_delta_writer_finish(w, &err), 0);
	CU_ASSERT_EQUAL(innodb_delta_writer_pages(w), pages);
	CU_ASSERT_EQUAL(innodb_delta_writer_bytes(w), delta_len);
	CU_ASSERT_EQUAL(out.len, delta_len);
	CU_ASSERT(out.len == delta_len && memcmp(out.buf, delta, delta_len) == 0);
	innodb_delta_writer_free(w);
	innodb_delta_reader_close(r);
	free(out.buf);
	free(meta);
	free(delta);
}

static void test_mariabackup_16k(void)
{
	roundtrip("mb_inc_t", 16384, 0);
}

static void test_mariabackup_zip8k(void)
{
	roundtrip("mb_inc_tz", 8192, 8192);
}

int main(void)
{
	find_fixture_dir();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("delta_mariabackup", NULL, NULL);
	CU_add_test(s, "mariabackup's delta of a 16 KiB table: read and rewritten byte for byte", test_mariabackup_16k);
	CU_add_test(s, "mariabackup's delta of a KEY_BLOCK_SIZE=8 table: the same", test_mariabackup_zip8k);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
