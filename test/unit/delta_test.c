/*
 * delta_test.c - the .delta/.meta writer and reader (engine-hooks/innodb/delta.h)
 * on real pages (the captured tablespace t_full.pages of test/fixtures/innodb):
 * the exact bytes of headers and .meta text, blocks that end exactly full or
 * hold nothing, a round trip through a file, and damaged deltas refused with
 * the offset. A delta written by mariabackup itself, read and rewritten
 * byte for byte, is in delta_mariabackup_test.c.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "innodb/delta.h"

#include "fixture.h"

#define PS 16384u

/* What the writer emitted, kept in memory. */
typedef struct out {
	uint8_t *b;
	size_t n;
	int blocks;
} out;

static int emit(void *ctx, const uint8_t *buf, size_t len, xb_error *err)
{
	out *o = ctx;
	o->b = realloc(o->b, o->n + len);
	memcpy(o->b + o->n, buf, len);
	o->n += len;
	o->blocks++;
	return 0;
}

static uint8_t *pages;   /* real pages */
static size_t npages;

static const uint8_t *pg(size_t i)
{
	return pages + (i % npages) * PS;
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fwrite(b, 1, n, f) == n);
	fclose(f);
}

static void test_meta(void)
{
	innodb_delta_meta m = {.page_size = 8192, .zip_size = 8192, .space_id = 17}, r;
	char buf[INNODB_DELTA_META_MAX];
	size_t n = innodb_delta_meta_format(&m, buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "page_size = 8192\nzip_size = 8192 \nspace_id = 17\n");
	CU_ASSERT_EQUAL(n, strlen(buf));
	xb_error err = {0};
	CU_ASSERT_EQUAL(innodb_delta_meta_parse(buf, n, "t.ibd.meta", &r, &err), 0);
	CU_ASSERT_EQUAL(r.page_size, 8192);
	CU_ASSERT_EQUAL(r.zip_size, 8192);
	CU_ASSERT_EQUAL(r.space_id, 17);
	const char *old = "page_size = 16384\nzip_size = 0\n";
	CU_ASSERT_EQUAL(innodb_delta_meta_parse(old, strlen(old), "x.meta", &r, &err), 0);
	CU_ASSERT_EQUAL(r.space_id, INNODB_DELTA_NO_SPACE);
	const char *bad = "zip_size = 0 \nspace_id = 3\n";
	CU_ASSERT_EQUAL(innodb_delta_meta_parse(bad, strlen(bad), "y.meta", &r, &err), XB_E_BACKUP_DAMAGED);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "y.meta: page_size is missing"));
	const char *odd = "page_size = 3000\n";
	CU_ASSERT_EQUAL(innodb_delta_meta_parse(odd, strlen(odd), "z.meta", &r, &err), XB_E_BACKUP_DAMAGED);
	const char *junk = "page_size = 16384\nspace_id = twelve\n";
	CU_ASSERT_EQUAL(innodb_delta_meta_parse(junk, strlen(junk), "j.meta", &r, &err), XB_E_BACKUP_DAMAGED);
}

/* No page: one header page, "XTRA", then the end mark. */
static void test_empty(void)
{
	out o = {0};
	xb_error err = {0};
	innodb_delta_writer *w = innodb_delta_writer_new(PS, emit, &o, &err);
	CU_ASSERT_FATAL(w != NULL);
	CU_ASSERT_EQUAL(innodb_delta_writer_finish(w, &err), 0);
	CU_ASSERT_EQUAL(o.n, PS);
	CU_ASSERT_EQUAL(be32_get(o.b), INNODB_DELTA_MAGIC_LAST);
	CU_ASSERT_EQUAL(be32_get(o.b + 4), INNODB_DELTA_END);
	uint8_t zero[PS] = {0};
	CU_ASSERT_EQUAL(memcmp(o.b + 8, zero, PS - 8), 0);
	innodb_delta_writer_free(w);
	free(o.b);
}

/* Writes n pages numbered 3*i (any order is allowed; these ascend) and
 * checks the layout, then reads the bytes back through a file. */
static void round_trip(uint32_t n)
{
	out o = {0};
	xb_error err = {0};
	uint32_t max = innodb_delta_block_pages(PS);
	innodb_delta_writer *w = innodb_delta_writer_new(PS, emit, &o, &err);
	CU_ASSERT_FATAL(w != NULL);
	for (uint32_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(innodb_delta_writer_add(w, 3 * i, pg(i), &err), 0);
	CU_ASSERT_EQUAL(innodb_delta_writer_finish(w, &err), 0);
	CU_ASSERT_EQUAL(innodb_delta_writer_pages(w), n);
	uint32_t blocks = n == 0 ? 1 : (n + max - 1) / max;
	CU_ASSERT_EQUAL(o.blocks, (int)blocks);
	CU_ASSERT_EQUAL(o.n, ((size_t)n + blocks) * PS);
	CU_ASSERT_EQUAL(innodb_delta_writer_bytes(w), o.n);
	innodb_delta_writer_free(w);
	/* layout: every block but the last is full and "xtra"; the last is "XTRA",
	 * closed by the end mark only when it is not full */
	size_t off = 0;
	for (uint32_t b = 0; b < blocks; b++) {
		uint32_t in = b + 1 < blocks ? max : n - b * max;
		CU_ASSERT_EQUAL(be32_get(o.b + off), b + 1 < blocks ? INNODB_DELTA_MAGIC_MORE : INNODB_DELTA_MAGIC_LAST);
		CU_ASSERT_EQUAL(be32_get(o.b + off + 4), 3 * b * max);
		if (in < max)
			CU_ASSERT_EQUAL(be32_get(o.b + off + 4 + 4 * in), INNODB_DELTA_END);
		CU_ASSERT_EQUAL(memcmp(o.b + off + PS, pg(b * max), PS), 0);
		off += ((size_t)in + 1) * PS;
	}
	char path[] = "/tmp/xb_delta_test.XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	write_file(path, o.b, o.n);
	innodb_delta_reader *r = innodb_delta_reader_open(path, PS, &err);
	CU_ASSERT_FATAL(r != NULL);
	uint32_t no, i = 0;
	const uint8_t *p;
	int rc;
	while ((rc = innodb_delta_reader_next(r, &no, &p, &err)) == 1) {
		CU_ASSERT_EQUAL(no, 3 * i);
		CU_ASSERT_EQUAL(memcmp(p, pg(i), PS), 0);
		i++;
	}
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(i, n);
	CU_ASSERT_EQUAL(innodb_delta_reader_pages(r), n);
	innodb_delta_reader_close(r);
	unlink(path);
	free(o.b);
}

static void test_round_trips(void)
{
	uint32_t max = innodb_delta_block_pages(PS);
	round_trip(1);
	round_trip(70);          /* more than one read of the reader */
	round_trip(max);         /* exactly one full block: "XTRA", no end mark */
	round_trip(max + 1);     /* a full "xtra" block, then one page */
	round_trip(2 * max);
}

/* Runs of consecutive page numbers: one piece of memory each, cut at 64
 * pages, at a gap and at a block's end; single pages taken in between. */
static void test_runs(void)
{
	uint32_t max = innodb_delta_block_pages(PS), n = 0;
	uint32_t *nos = malloc((max + 300) * sizeof *nos);
	for (uint32_t i = 0; i < 100; i++)
		nos[n++] = i;            /* 0..99: runs of 64 and 36 */
	nos[n++] = 200, nos[n++] = 201, nos[n++] = 203;
	for (uint32_t no = 5000; n < max + 150; no++)
		nos[n++] = no;           /* consecutive across the end of the first block */
	out o = {0};
	xb_error err = {0};
	innodb_delta_writer *w = innodb_delta_writer_new(PS, emit, &o, &err);
	for (uint32_t i = 0; i < n; i++)
		CU_ASSERT_FATAL(innodb_delta_writer_add(w, nos[i], pg(i), &err) == 0);
	CU_ASSERT_FATAL(innodb_delta_writer_finish(w, &err) == 0);
	innodb_delta_writer_free(w);
	char path[] = "/tmp/xb_delta_test.XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	write_file(path, o.b, o.n);
	innodb_delta_reader *r = innodb_delta_reader_open(path, PS, &err);
	CU_ASSERT_FATAL(r != NULL);
	uint32_t got = 0, first, count, runs = 0, singles = 0;
	const uint8_t *p;
	int rc;
	for (int step = 0;; step++) {
		if (step == 4 || step == 11) { /* a single page: the next run starts inside the buffer */
			if ((rc = innodb_delta_reader_next(r, &first, &p, &err)) != 1)
				break;
			count = 1, singles++;
		} else if ((rc = innodb_delta_reader_next_run(r, &first, &count, &p, &err)) != 1) {
			break;
		} else {
			runs++;
		}
		CU_ASSERT_FATAL(count >= 1 && count <= INNODB_DELTA_RUN_MAX && got + count <= n);
		for (uint32_t k = 0; k < count; k++) {
			CU_ASSERT_EQUAL(first + k, nos[got + k]);
			CU_ASSERT_EQUAL(memcmp(p + (size_t)k * PS, pg(got + k), PS), 0);
		}
		if (got == 0)
			CU_ASSERT_EQUAL(count, 64);
		if (got == 64)
			CU_ASSERT_EQUAL(count, 36);
		if (got == 100)
			CU_ASSERT_EQUAL(count, 2); /* 200, 201: 203 is not next */
		CU_ASSERT(got >= max || got + count <= max); /* never across a block */
		if (got < max && got + count == max)
			CU_ASSERT_EQUAL(nos[max], first + count); /* cut by the block, not by the numbers */
		got += count;
	}
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(got, n);
	CU_ASSERT_EQUAL(singles, 2);
	CU_ASSERT(runs < n / 32);
	CU_ASSERT_EQUAL(innodb_delta_reader_pages(r), n);
	innodb_delta_reader_close(r);
	unlink(path);
	free(o.b);
	free(nos);
}

/* A damaged delta is refused with the file and offset. */
static void test_damaged(void)
{
	out o = {0};
	xb_error err = {0};
	innodb_delta_writer *w = innodb_delta_writer_new(PS, emit, &o, &err);
	for (uint32_t i = 0; i < 5; i++)
		innodb_delta_writer_add(w, i, pg(i), &err);
	innodb_delta_writer_finish(w, &err);
	innodb_delta_writer_free(w);
	char path[] = "/tmp/xb_delta_test.XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	uint32_t no;
	const uint8_t *p;
	struct {
		size_t len;      /* bytes of the good delta kept */
		size_t extra;    /* zero bytes appended */
		int flip_magic;  /* magic changed */
		const char *want;
	} cases[] = {
		{6 * PS, 0, 0, NULL},
		{5 * PS, 0, 0, "ends inside a block"},
		{6 * PS, PS, 0, "bytes follow the last block"},
		{6 * PS, 0, 1, "not a delta block's magic"},
		{6 * PS, 0, 2, "not full but not marked as the last one"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		uint8_t *b = calloc(1, cases[c].len + cases[c].extra);
		memcpy(b, o.b, cases[c].len);
		if (cases[c].flip_magic == 1)
			b[0] ^= 0x20;
		if (cases[c].flip_magic == 2)
			be32_put(b, INNODB_DELTA_MAGIC_MORE);
		write_file(path, b, cases[c].len + cases[c].extra);
		free(b);
		innodb_delta_reader *r = innodb_delta_reader_open(path, PS, &err);
		CU_ASSERT_FATAL(r != NULL);
		int rc;
		xb_err_clear(&err);
		while ((rc = innodb_delta_reader_next(r, &no, &p, &err)) == 1)
			;
		innodb_delta_reader_close(r);
		if (!cases[c].want) {
			CU_ASSERT_EQUAL(rc, 0);
			continue;
		}
		CU_ASSERT_EQUAL(rc, XB_E_BACKUP_DAMAGED);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[c].want));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
		if (!strstr(err.msg, cases[c].want))
			printf("\n    case %zu: %s", c, err.msg);
	}
	unlink(path);
	free(o.b);
}

int main(void)
{
	find_fixture_dir();
	size_t len;
	pages = load("t_full.pages", &len);
	if (!pages || len < PS)
		return 1;
	npages = len / PS;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("delta", NULL, NULL);
	CU_add_test(s, ".meta text", test_meta);
	CU_add_test(s, "a delta with no page", test_empty);
	CU_add_test(s, "round trips, full and partial blocks", test_round_trips);
	CU_add_test(s, "runs of consecutive pages", test_runs);
	CU_add_test(s, "damaged deltas", test_damaged);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	free(pages);
	return failed ? 1 : 0;
}
