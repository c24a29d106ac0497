/*
 * bpdump_test.c - buffer-pool dump files: the real ib_buffer_pool a 10.11
 * server wrote (test/fixtures/bpdump, see make-fixtures.sh there) parses to
 * what wc/sort/awk said about it, keeps its LRU order, sorts, and survives
 * text -> lru -> text byte for byte; ib_lru_dump bytes built by hand and by an
 * independent encoder (awk + xxd); every kind of malformed text line rejected
 * with its exact message and line number; sort/unique/filter against a
 * reference on 2 million random entries; the atomic file helpers.
 */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "innodb/bpdump.h"

#include "fixture.h"

/* ---- helpers */

#define FX(name) "../bpdump/" name

static uint8_t *load_bp(const char *name, size_t *len)
{
	return load(name, len);
}

/* What make-fixtures.sh computed about ib_buffer_pool with shell tools. */
struct expect {
	size_t lines, unique, t1_pages;
	uint32_t t1_space;
	bp_entry min, max, first, last;
};

static int read_expect(struct expect *e)
{
	size_t len;
	char *txt = (char *)load_bp(FX("ib_buffer_pool.expect"), &len);
	if (!txt)
		return -1;
	memset(e, 0, sizeof *e);
	int got = 0;
	for (char *line = strtok(txt, "\n"); line; line = strtok(NULL, "\n")) {
		char key[16];
		unsigned long a = 0, b = 0;
		int k = sscanf(line, "%15s %lu,%lu", key, &a, &b);
		bp_entry pair = {(uint32_t)a, (uint32_t)b};
		got++;
		if (k == 2 && !strcmp(key, "lines"))
			e->lines = a;
		else if (k == 2 && !strcmp(key, "unique"))
			e->unique = a;
		else if (k == 2 && !strcmp(key, "t1_space"))
			e->t1_space = (uint32_t)a;
		else if (k == 2 && !strcmp(key, "t1_pages"))
			e->t1_pages = a;
		else if (k == 3 && !strcmp(key, "min"))
			e->min = pair;
		else if (k == 3 && !strcmp(key, "max"))
			e->max = pair;
		else if (k == 3 && !strcmp(key, "first"))
			e->first = pair;
		else if (k == 3 && !strcmp(key, "last"))
			e->last = pair;
		else
			got--;
	}
	free(txt);
	return got == 8 ? 0 : -1;
}

static int entry_cmp(const bp_entry *a, const bp_entry *b)
{
	if (a->space_id != b->space_id)
		return a->space_id < b->space_id ? -1 : 1;
	return a->page_no < b->page_no ? -1 : a->page_no > b->page_no;
}

static bool same_entries(const bp_dump *a, const bp_dump *b)
{
	return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
}

static bool strictly_sorted(const bp_dump *d)
{
	for (size_t i = 1; i < d->n; i++)
		if (entry_cmp(&d->v[i - 1], &d->v[i]) >= 0)
			return false;
	return true;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Append one 8-byte record to buf at *len. */
static void rec(uint8_t *buf, size_t *len, uint32_t space_id, uint32_t page_no)
{
	put_be32(buf + *len, space_id);
	put_be32(buf + *len + 4, page_no);
	*len += 8;
}

/* ---- the real ib_buffer_pool */

static void test_real_text(void)
{
	struct expect e = {0};
	CU_ASSERT_FATAL(read_expect(&e) == 0);
	size_t len;
	uint8_t *buf = load_bp(FX("ib_buffer_pool"), &len);
	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_EQUAL(bp_detect_format(buf, len), BP_FORMAT_TEXT);

	bp_dump d = {0};
	xb_error err;
	xb_err_clear(&err);
	int rc = bp_parse(buf, len, NULL, &d, &err);
	if (rc)
		printf("\n    %s", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(d.n, e.lines);
	CU_ASSERT(d.n >= 100);
	CU_ASSERT_EQUAL(d.v[0].space_id, e.first.space_id);
	CU_ASSERT_EQUAL(d.v[0].page_no, e.first.page_no);
	CU_ASSERT_EQUAL(d.v[d.n - 1].space_id, e.last.space_id);
	CU_ASSERT_EQUAL(d.v[d.n - 1].page_no, e.last.page_no);
	size_t t1 = 0;
	for (size_t i = 0; i < d.n; i++)
		t1 += d.v[i].space_id == e.t1_space;
	CU_ASSERT_EQUAL(t1, e.t1_pages);
	/* LRU order as captured: most recent first, not sorted */
	size_t inversions = 0;
	for (size_t i = 1; i < d.n; i++)
		inversions += entry_cmp(&d.v[i - 1], &d.v[i]) > 0;
	CU_ASSERT(inversions > 0);

	/* text -> text is byte-identical to what the server wrote */
	uint8_t *txt;
	size_t tlen;
	CU_ASSERT_EQUAL(bp_write_text(&d, &txt, &tlen, &err), 0);
	CU_ASSERT_EQUAL(tlen, len);
	CU_ASSERT(tlen == len && memcmp(txt, buf, len) == 0);
	free(txt);

	/* text -> lru -> text */
	uint8_t *lru;
	size_t llen;
	CU_ASSERT_EQUAL_FATAL(bp_write_lru(&d, &lru, &llen, &err), 0);
	CU_ASSERT_EQUAL(llen % BP_LRU_BLOCK, 0);
	CU_ASSERT_EQUAL(bp_detect_format(lru, llen), BP_FORMAT_LRU);
	bp_dump d2 = {0};
	CU_ASSERT_EQUAL(bp_parse(lru, llen, NULL, &d2, &err), 0);
	CU_ASSERT(same_entries(&d, &d2));
	CU_ASSERT_EQUAL(bp_write_text(&d2, &txt, &tlen, &err), 0);
	CU_ASSERT(tlen == len && memcmp(txt, buf, len) == 0);
	free(txt);
	free(lru);

	/* sort + unique: what sort -u said */
	bp_sort_unique(&d);
	CU_ASSERT_EQUAL(d.n, e.unique);
	CU_ASSERT(strictly_sorted(&d));
	CU_ASSERT_EQUAL(entry_cmp(&d.v[0], &e.min), 0);
	CU_ASSERT_EQUAL(entry_cmp(&d.v[d.n - 1], &e.max), 0);
	/* the same set as before sorting */
	bp_sort_unique(&d2);
	CU_ASSERT(same_entries(&d, &d2));

	bp_dump_free(&d);
	bp_dump_free(&d2);
	CU_ASSERT_PTR_NULL(d.v);
	CU_ASSERT_EQUAL(d.n, 0);
	free(buf);
}

/* The awk + xxd encoding of the same entries equals ours byte for byte. */
static void test_real_lru(void)
{
	size_t tlen, llen;
	uint8_t *txt = load_bp(FX("ib_buffer_pool"), &tlen);
	uint8_t *lru = load_bp(FX("ib_lru_dump"), &llen);
	CU_ASSERT_FATAL(txt != NULL && lru != NULL);
	CU_ASSERT_EQUAL(bp_detect_format(lru, llen), BP_FORMAT_LRU);
	bp_dump a = {0}, b = {0};
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(bp_parse_text(txt, tlen, NULL, &a, &err), 0);
	CU_ASSERT_EQUAL_FATAL(bp_parse(lru, llen, NULL, &b, &err), 0);
	CU_ASSERT(a.n > 0);
	CU_ASSERT(same_entries(&a, &b));
	uint8_t *mine;
	size_t mlen;
	CU_ASSERT_EQUAL_FATAL(bp_write_lru(&a, &mine, &mlen, &err), 0);
	CU_ASSERT_EQUAL(mlen, llen);
	CU_ASSERT(mlen == llen && memcmp(mine, lru, llen) == 0);
	free(mine);
	bp_dump_free(&a);
	bp_dump_free(&b);
	free(txt);
	free(lru);
}

/* ---- ib_lru_dump built by hand */

static void test_lru_handmade(void)
{
	uint8_t *buf = calloc(3 * BP_LRU_BLOCK, 1);
	CU_ASSERT_FATAL(buf != NULL);
	bp_dump d = {0};
	xb_error err;
	xb_err_clear(&err);
	size_t len = 0;

	/* three records, terminator, zero padding to 16 KiB */
	rec(buf, &len, 0, 3);
	rec(buf, &len, 0x12345678u, 0x9abcdef0u);
	rec(buf, &len, 7, 1);
	rec(buf, &len, UINT32_MAX, UINT32_MAX);
	CU_ASSERT_EQUAL(bp_detect_format(buf, BP_LRU_BLOCK), BP_FORMAT_LRU);
	CU_ASSERT_EQUAL(bp_parse_lru(buf, BP_LRU_BLOCK, NULL, &d, &err), 0);
	CU_ASSERT_EQUAL_FATAL(d.n, 3);
	CU_ASSERT(d.v[0].space_id == 0 && d.v[0].page_no == 3);
	CU_ASSERT(d.v[1].space_id == 0x12345678u && d.v[1].page_no == 0x9abcdef0u);
	CU_ASSERT(d.v[2].space_id == 7 && d.v[2].page_no == 1);
	/* what we write is the same 16 KiB */
	uint8_t *out;
	size_t olen;
	CU_ASSERT_EQUAL(bp_write_lru(&d, &out, &olen, &err), 0);
	CU_ASSERT_EQUAL(olen, BP_LRU_BLOCK);
	CU_ASSERT(olen == BP_LRU_BLOCK && memcmp(out, buf, olen) == 0);
	free(out);

	/* garbage after the terminator is ignored (the 0xff/0x00 of a stale buffer) */
	memset(buf + len, 0xa5, 100);
	rec(buf, &len, 1, 1);
	CU_ASSERT_EQUAL(bp_parse_lru(buf, 1001, NULL, &d, &err), 0); /* odd length past the terminator too */
	CU_ASSERT_EQUAL(d.n, 3);

	/* no terminator: ends at a record boundary */
	len = 0;
	rec(buf, &len, 0, 3);
	rec(buf, &len, 0, 4);
	CU_ASSERT_EQUAL(bp_parse_lru(buf, len, NULL, &d, &err), 0);
	CU_ASSERT_EQUAL(d.n, 2);
	CU_ASSERT(d.v[1].page_no == 4);

	/* a record with only one half all-ones is an entry, not the terminator */
	len = 0;
	rec(buf, &len, UINT32_MAX, 5);
	rec(buf, &len, 5, UINT32_MAX);
	rec(buf, &len, UINT32_MAX, UINT32_MAX);
	CU_ASSERT_EQUAL(bp_parse_lru(buf, len, NULL, &d, &err), 0);
	CU_ASSERT_EQUAL_FATAL(d.n, 2);
	CU_ASSERT(d.v[0].space_id == UINT32_MAX && d.v[0].page_no == 5);
	CU_ASSERT(d.v[1].space_id == 5 && d.v[1].page_no == UINT32_MAX);

	/* truncated record before any terminator */
	len = 0;
	for (uint32_t i = 0; i < 1025; i++)
		rec(buf, &len, 0, i);
	CU_ASSERT_EQUAL(len, 8200);
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(bp_parse_lru(buf, len + 4, NULL, &d, &err), XB_E_IO_READ);
	CU_ASSERT_EQUAL(err.code, XB_E_IO_READ);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "ib_lru_dump: truncated record at byte 8200 (file length 8204 is not a multiple of 8)");
	CU_ASSERT_EQUAL(d.n, 0); /* never a shortened dump */
	CU_ASSERT_EQUAL(bp_parse(buf, 3, "/data/ib_lru_dump", &d, &err), XB_E_IO_READ);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "/data/ib_lru_dump: truncated record at byte 0 (file length 3 is not a multiple of 8)");
	/* ...but the same bytes are fine once the terminator came first */
	len = 0;
	rec(buf, &len, 9, 9);
	rec(buf, &len, UINT32_MAX, UINT32_MAX);
	CU_ASSERT_EQUAL(bp_parse_lru(buf, len + 5, NULL, &d, &err), 0);
	CU_ASSERT_EQUAL(d.n, 1);

	/* empty file; a file holding only the terminator (an empty dump as written) */
	CU_ASSERT_EQUAL(bp_parse_lru(buf, 0, NULL, &d, &err), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	bp_dump empty = {0};
	CU_ASSERT_EQUAL(bp_write_lru(&empty, &out, &olen, &err), 0);
	CU_ASSERT_EQUAL(olen, BP_LRU_BLOCK);
	CU_ASSERT(out[0] == 0xff && out[7] == 0xff && out[8] == 0 && out[BP_LRU_BLOCK - 1] == 0);
	CU_ASSERT_EQUAL(bp_detect_format(out, olen), BP_FORMAT_LRU);
	CU_ASSERT_EQUAL(bp_parse(out, olen, NULL, &d, &err), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	free(out);

	/* padding: 2047 records + terminator fill one block exactly, 2048 need two */
	bp_dump big = {0};
	for (uint32_t i = 0; i < 2048; i++)
		CU_ASSERT_EQUAL(bp_dump_push(&big, i, i * 3, &err), 0);
	big.n = 2047;
	CU_ASSERT_EQUAL(bp_write_lru(&big, &out, &olen, &err), 0);
	CU_ASSERT_EQUAL(olen, BP_LRU_BLOCK);
	free(out);
	big.n = 2048;
	CU_ASSERT_EQUAL(bp_write_lru(&big, &out, &olen, &err), 0);
	CU_ASSERT_EQUAL(olen, 2 * BP_LRU_BLOCK);
	CU_ASSERT(out[2048 * 8] == 0xff && out[2048 * 8 + 8] == 0);
	CU_ASSERT_EQUAL(bp_parse(out, olen, NULL, &d, &err), 0);
	CU_ASSERT(same_entries(&d, &big));
	free(out);

	bp_dump_free(&big);
	bp_dump_free(&d);
	free(buf);
}

/* ---- text: accepted and rejected */

static int parse_str(const char *s, bp_dump *d, xb_error *err)
{
	xb_err_clear(err);
	return bp_parse_text((const uint8_t *)s, strlen(s), NULL, d, err);
}

static void test_text_accepted(void)
{
	bp_dump d = {0};
	xb_error err;
	CU_ASSERT_EQUAL(parse_str("1,2\r\n3,4\r\n", &d, &err), 0); /* CRLF */
	CU_ASSERT_EQUAL_FATAL(d.n, 2);
	CU_ASSERT(d.v[0].space_id == 1 && d.v[0].page_no == 2 && d.v[1].space_id == 3 && d.v[1].page_no == 4);
	CU_ASSERT_EQUAL(parse_str("1,2\n3,4", &d, &err), 0); /* no final newline */
	CU_ASSERT_EQUAL(d.n, 2);
	CU_ASSERT(d.v[1].page_no == 4);
	CU_ASSERT_EQUAL(parse_str("1,2\n3,4\r", &d, &err), 0); /* CR of a CRLF cut short */
	CU_ASSERT_EQUAL(d.n, 2);
	CU_ASSERT_EQUAL(parse_str("", &d, &err), 0); /* empty file: empty dump */
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_EQUAL(bp_parse(NULL, 0, NULL, &d, &err), 0); /* an empty read may come as NULL */
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_EQUAL(bp_parse_lru(NULL, 0, NULL, &d, &err), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_EQUAL(parse_str("4294967295,4294967295\n0,0\n", &d, &err), 0);
	CU_ASSERT_EQUAL_FATAL(d.n, 2);
	CU_ASSERT(d.v[0].space_id == UINT32_MAX && d.v[0].page_no == UINT32_MAX);
	CU_ASSERT(d.v[1].space_id == 0 && d.v[1].page_no == 0);
	CU_ASSERT_EQUAL(parse_str("007,0000000000000000000010\n", &d, &err), 0); /* leading zeros, as %u */
	CU_ASSERT(d.n == 1 && d.v[0].space_id == 7 && d.v[0].page_no == 10);
	CU_ASSERT_EQUAL(parse_str("1,2\r\n3,4\n5,6", &d, &err), 0); /* mixed line ends */
	CU_ASSERT_EQUAL(d.n, 3);
	bp_dump_free(&d);
}

struct bad_case {
	const char *in;
	size_t len; /* 0: strlen(in) */
	const char *msg;
};

static void test_text_malformed(void)
{
	static const struct bad_case cases[] = {
		{"1,2\n3,x\n", 0, "ib_buffer_pool: line 2: expected \"<space_id>,<page_no>\", got \"3,x\""},
		{"1,2\n\n3,4\n", 0, "ib_buffer_pool: line 2: empty line"},
		{"1,2\n3,4\r\n\r\n5,6\n", 0, "ib_buffer_pool: line 3: empty line"},
		{"1,2\n\n", 0, "ib_buffer_pool: line 2: empty line"},
		{"\n1,2\n", 0, "ib_buffer_pool: line 1: empty line"},
		{"1,2\n2,4294967296\n", 0,
		 "ib_buffer_pool: line 2: number larger than 4294967295 in \"2,4294967296\""},
		{"4294967296,1\n", 0, "ib_buffer_pool: line 1: number larger than 4294967295 in \"4294967296,1\""},
		{"99999999999999999999999999,1\n", 0,
		 "ib_buffer_pool: line 1: number larger than 4294967295 in \"99999999999999999999999999,1\""},
		{"1,2\n-1,2\n", 0, "ib_buffer_pool: line 2: expected \"<space_id>,<page_no>\", got \"-1,2\""},
		{"1,-2\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \"1,-2\""},
		{"+1,2\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \"+1,2\""},
		{"1, 2\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \"1, 2\""},
		{"1 ,2\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \"1 ,2\""},
		{" 1,2\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \" 1,2\""},
		{"1,2 \n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \"1,2 \""},
		{"1,2\n3 4\n", 0, "ib_buffer_pool: line 2: expected \"<space_id>,<page_no>\", got \"3 4\""},
		{"1,2\n5,6\n34\n", 0, "ib_buffer_pool: line 3: expected \"<space_id>,<page_no>\", got \"34\""},
		{"1,2,3\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \"1,2,3\""},
		{"1,\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \"1,\""},
		{",2\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \",2\""},
		{"1,2\n3,", 0, "ib_buffer_pool: line 2: expected \"<space_id>,<page_no>\", got \"3,\""},
		{"0x10,2\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \"0x10,2\""},
		{"1,2\r3,4\n", 0, "ib_buffer_pool: line 1: expected \"<space_id>,<page_no>\", got \"1,2?3,4\""},
		{"1,2\n3,4\0\n", 8, "ib_buffer_pool: line 2: expected \"<space_id>,<page_no>\", got \"3,4?\""},
		{"1,2\n5,6abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\n", 0,
		 "ib_buffer_pool: line 2: expected \"<space_id>,<page_no>\", "
		 "got \"5,6abcdefghijklmnopqrstuvwxyzABCDEFGHIJK...\""},
	};
	bp_dump d = {0};
	xb_error err;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct bad_case *c = &cases[i];
		size_t len = c->len ? c->len : strlen(c->in);
		bp_dump_push(&d, 1, 1, NULL); /* left over from before: must be dropped */
		xb_err_clear(&err);
		int rc = bp_parse_text((const uint8_t *)c->in, len, NULL, &d, &err);
		CU_ASSERT_EQUAL(rc, XB_E_IO_READ);
		CU_ASSERT_EQUAL(err.code, XB_E_IO_READ);
		CU_ASSERT_EQUAL(d.n, 0);
		CU_ASSERT(err.hint[0] != '\0');
		if (strcmp(err.msg, c->msg))
			printf("\n    case %zu: got  %s\n    case %zu: want %s", i, err.msg, i, c->msg);
		CU_ASSERT_STRING_EQUAL(err.msg, c->msg);
		/* bp_parse detects text for all of them and says the same */
		xb_err_clear(&err);
		CU_ASSERT_EQUAL(bp_parse((const uint8_t *)c->in, len, NULL, &d, &err), XB_E_IO_READ);
		CU_ASSERT_STRING_EQUAL(err.msg, c->msg);
	}
	/* the name given starts the message */
	const char *s = "1,2\n3,x\n";
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(bp_parse_text((const uint8_t *)s, strlen(s), "/var/lib/mysql/ib_buffer_pool", &d, &err),
			XB_E_IO_READ);
	CU_ASSERT_STRING_EQUAL(err.msg, "/var/lib/mysql/ib_buffer_pool: line 2: expected \"<space_id>,<page_no>\", "
					"got \"3,x\"");
	/* a bad line deep in a long file gets its right number */
	size_t n = 100000;
	char *big = malloc(n * 12 + 16);
	CU_ASSERT_FATAL(big != NULL);
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(big + len, "%zu,%zu\n", i % 97, i);
	len += (size_t)sprintf(big + len, "12,x\n");
	CU_ASSERT_EQUAL(bp_parse_text((const uint8_t *)big, len, NULL, &d, &err), XB_E_IO_READ);
	CU_ASSERT_STRING_EQUAL(err.msg, "ib_buffer_pool: line 100001: expected \"<space_id>,<page_no>\", got \"12,x\"");
	CU_ASSERT_EQUAL(bp_parse_text((const uint8_t *)big, len - 5, NULL, &d, &err), 0);
	CU_ASSERT_EQUAL(d.n, n);
	free(big);
	bp_dump_free(&d);
}

static void test_detect(void)
{
	static const uint8_t zero[8] = {0}, ff[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	CU_ASSERT_EQUAL(bp_detect_format((const uint8_t *)"", 0), BP_FORMAT_TEXT);
	CU_ASSERT_EQUAL(bp_detect_format((const uint8_t *)"1,2\n", 4), BP_FORMAT_TEXT);
	CU_ASSERT_EQUAL(bp_detect_format((const uint8_t *)"\r\n", 2), BP_FORMAT_TEXT);
	CU_ASSERT_EQUAL(bp_detect_format((const uint8_t *)"x", 1), BP_FORMAT_TEXT);
	CU_ASSERT_EQUAL(bp_detect_format(zero, 8), BP_FORMAT_LRU);
	CU_ASSERT_EQUAL(bp_detect_format(ff, 8), BP_FORMAT_LRU);
	CU_ASSERT_EQUAL(bp_detect_format((const uint8_t *)"\x01\x02", 2), BP_FORMAT_LRU);
	CU_ASSERT_STRING_EQUAL(bp_format_name(BP_FORMAT_TEXT), "ib_buffer_pool");
	CU_ASSERT_STRING_EQUAL(bp_format_name(BP_FORMAT_LRU), "ib_lru_dump");
	CU_ASSERT_STRING_EQUAL(bp_format_name(BP_FORMAT_UNKNOWN), "unknown");
}

static void test_write_text(void)
{
	static const bp_entry e[] = {{0, 0}, {9, 10}, {99, 100}, {999, 1000}, {12345, 678901},
				     {4294967295u, 4294967295u}, {1000000000, 999999999}};
	bp_dump d = {(bp_entry *)e, sizeof e / sizeof e[0], 0};
	uint8_t *out;
	size_t len;
	CU_ASSERT_EQUAL(bp_write_text(&d, &out, &len, NULL), 0);
	const char *want = "0,0\n9,10\n99,100\n999,1000\n12345,678901\n4294967295,4294967295\n1000000000,999999999\n";
	CU_ASSERT_EQUAL(len, strlen(want));
	CU_ASSERT(len == strlen(want) && memcmp(out, want, len) == 0);
	free(out);
	bp_dump empty = {0};
	CU_ASSERT_EQUAL(bp_write_text(&empty, &out, &len, NULL), 0);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_PTR_NULL(out);
	/* every power of ten and its neighbours, through the parser */
	bp_dump p = {0};
	for (uint64_t x = 1; x <= UINT32_MAX; x *= 10) {
		bp_dump_push(&p, (uint32_t)x, (uint32_t)(x - 1), NULL);
		bp_dump_push(&p, (uint32_t)(x + 1), (uint32_t)(x * 7 > UINT32_MAX ? x : x * 7), NULL);
	}
	CU_ASSERT_EQUAL(bp_write_text(&p, &out, &len, NULL), 0);
	bp_dump q = {0};
	CU_ASSERT_EQUAL(bp_parse_text(out, len, NULL, &q, NULL), 0);
	CU_ASSERT(same_entries(&p, &q));
	free(out);
	bp_dump_free(&p);
	bp_dump_free(&q);
}

/* ---- sort, unique, filter */

static bool keep_not_space_5(void *ctx, uint32_t space_id, uint32_t page_no)
{
	(*(int *)ctx)++;
	return space_id != 5;
}

static bool keep_even_pages(void *ctx, uint32_t space_id, uint32_t page_no)
{
	return page_no % 2 == 0;
}

static bool keep_none(void *ctx, uint32_t space_id, uint32_t page_no)
{
	return false;
}

static void test_sort_filter_small(void)
{
	bp_dump d = {0};
	static const uint32_t in[][2] = {{5, 3}, {1, 9}, {5, 3}, {0, 7}, {1, 2}, {5, 1}, {1, 9}, {0, 7}, {2, 0}};
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
		CU_ASSERT_EQUAL(bp_dump_push(&d, in[i][0], in[i][1], NULL), 0);
	bp_sort_unique(&d);
	static const uint32_t want[][2] = {{0, 7}, {1, 2}, {1, 9}, {2, 0}, {5, 1}, {5, 3}};
	CU_ASSERT_EQUAL_FATAL(d.n, 6);
	for (size_t i = 0; i < 6; i++)
		CU_ASSERT(d.v[i].space_id == want[i][0] && d.v[i].page_no == want[i][1]);
	bp_sort_unique(&d); /* idempotent */
	CU_ASSERT_EQUAL(d.n, 6);

	int calls = 0;
	CU_ASSERT_EQUAL(bp_filter(&d, keep_not_space_5, &calls), 2);
	CU_ASSERT_EQUAL(calls, 6);
	CU_ASSERT_EQUAL_FATAL(d.n, 4);
	CU_ASSERT(d.v[3].space_id == 2 && d.v[3].page_no == 0);
	/* filter keeps the order of what stays (LRU order too) */
	bp_dump l = {0};
	for (uint32_t i = 10; i > 0; i--)
		bp_dump_push(&l, i % 3, i, NULL);
	CU_ASSERT_EQUAL(bp_filter(&l, keep_even_pages, NULL), 5);
	CU_ASSERT_EQUAL_FATAL(l.n, 5);
	for (size_t i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(l.v[i].page_no, 10 - 2 * i);
	CU_ASSERT_EQUAL(bp_filter(&l, keep_none, NULL), 5);
	CU_ASSERT_EQUAL(l.n, 0);
	CU_ASSERT_EQUAL(bp_filter(&l, keep_none, NULL), 0);
	bp_sort_unique(&l); /* empty */
	CU_ASSERT_EQUAL(l.n, 0);

	/* all equal */
	bp_dump s = {0};
	for (int i = 0; i < 100000; i++)
		bp_dump_push(&s, 3, 4, NULL);
	bp_sort_unique(&s);
	CU_ASSERT(s.n == 1 && s.v[0].space_id == 3 && s.v[0].page_no == 4);
	bp_dump_free(&s);
	bp_dump_free(&d);
	bp_dump_free(&l);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* (key, position) pairs by key, then position */
static int u64_pair_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* bp_sort_unique on n random entries (space ids below space_mod, pages below
 * page_mod, 0 = any) against qsort of packed keys plus a unique pass. */
static void check_random_sort(size_t n, uint32_t space_mod, uint32_t page_mod)
{
	bp_dump d = {0};
	CU_ASSERT_FATAL(bp_dump_reserve(&d, n, NULL) == 0);
	uint64_t *ref = malloc(n * sizeof *ref);
	CU_ASSERT_FATAL(ref != NULL);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng();
		uint32_t s = (uint32_t)(r >> 32), p = (uint32_t)r;
		if (space_mod)
			s %= space_mod;
		if (page_mod)
			p %= page_mod;
		d.v[i] = (bp_entry){s, p};
		ref[i] = (uint64_t)s << 32 | p;
	}
	d.n = n;
	qsort(ref, n, sizeof *ref, u64_cmp);
	size_t k = n ? 1 : 0;
	for (size_t i = 1; i < n; i++)
		if (ref[i] != ref[k - 1])
			ref[k++] = ref[i];
	double t0 = now_s();
	bp_sort_unique(&d);
	double t1 = now_s();
	CU_ASSERT_EQUAL(d.n, k);
	size_t bad = 0;
	for (size_t i = 0; i < d.n && i < k; i++)
		bad += ((uint64_t)d.v[i].space_id << 32 | d.v[i].page_no) != ref[i];
	CU_ASSERT_EQUAL(bad, 0);
	if (n >= 1000000)
		printf("(%zu entries, %zu distinct: sort+unique %.0f ms) ", n, k, (t1 - t0) * 1e3);
	free(ref);
	bp_dump_free(&d);
}

/* bp_unique_in_order: the first occurrence of every entry stays, in order;
 * checked by hand and on random dumps against a reference built with the
 * sorted keys (first position of each key). */
static void test_unique_in_order(void)
{
	bp_dump d = {0};
	static const uint32_t in[][2] = {{5, 3}, {1, 9}, {5, 3}, {0, 7}, {0xFFFFFFFFu, 0xFFFFFFFFu}, {1, 2},
					 {5, 1}, {1, 9}, {0xFFFFFFFFu, 0xFFFFFFFFu}, {0, 7}, {2, 0}, {5, 3}};
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
		CU_ASSERT_EQUAL(bp_dump_push(&d, in[i][0], in[i][1], NULL), 0);
	CU_ASSERT_EQUAL(bp_unique_in_order(&d, NULL), 0);
	static const uint32_t want[][2] = {{5, 3}, {1, 9}, {0, 7}, {0xFFFFFFFFu, 0xFFFFFFFFu}, {1, 2}, {5, 1}, {2, 0}};
	CU_ASSERT_EQUAL_FATAL(d.n, 7);
	for (size_t i = 0; i < 7; i++)
		CU_ASSERT(d.v[i].space_id == want[i][0] && d.v[i].page_no == want[i][1]);
	CU_ASSERT_EQUAL(bp_unique_in_order(&d, NULL), 0); /* idempotent */
	CU_ASSERT_EQUAL(d.n, 7);
	bp_dump_free(&d);

	for (int round = 0; round < 3; round++) {
		size_t n = round == 0 ? 1000 : 500000;
		uint32_t space_mod = round == 2 ? 0 : 20, page_mod = round == 2 ? 0 : 30000;
		bp_dump r = {0};
		CU_ASSERT_FATAL(bp_dump_reserve(&r, n, NULL) == 0);
		uint64_t *ref = malloc(n * 2 * sizeof *ref); /* (key, position) pairs */
		CU_ASSERT_FATAL(ref != NULL);
		for (size_t i = 0; i < n; i++) {
			uint64_t x = rng();
			uint32_t sp = (uint32_t)(x >> 32), pg = (uint32_t)x;
			if (space_mod)
				sp %= space_mod, pg %= page_mod;
			r.v[i] = (bp_entry){sp, pg};
		}
		r.n = n;
		/* reference: positions whose key did not occur before, found with a
		 * stable sort of the keys (qsort on key, then position) */
		for (size_t i = 0; i < n; i++) {
			ref[2 * i] = (uint64_t)r.v[i].space_id << 32 | r.v[i].page_no;
			ref[2 * i + 1] = i;
		}
		qsort(ref, n, 2 * sizeof *ref, u64_pair_cmp);
		uint8_t *first = calloc(n, 1);
		CU_ASSERT_FATAL(first != NULL);
		for (size_t i = 0; i < n; i++)
			if (i == 0 || ref[2 * i] != ref[2 * (i - 1)])
				first[ref[2 * i + 1]] = 1;
		bp_dump copy = {0};
		CU_ASSERT_FATAL(bp_dump_reserve(&copy, n, NULL) == 0);
		memcpy(copy.v, r.v, n * sizeof *r.v);
		copy.n = n;
		CU_ASSERT_EQUAL(bp_unique_in_order(&r, NULL), 0);
		size_t k = 0, bad = 0;
		for (size_t i = 0; i < n; i++)
			if (first[i]) {
				bad += k >= r.n || r.v[k].space_id != copy.v[i].space_id || r.v[k].page_no != copy.v[i].page_no;
				k++;
			}
		CU_ASSERT_EQUAL(r.n, k);
		CU_ASSERT_EQUAL(bad, 0);
		free(first);
		free(ref);
		bp_dump_free(&copy);
		bp_dump_free(&r);
	}
}

static void test_sort_large(void)
{
	check_random_sort(2000000, 50, 200000); /* realistic: few spaces, many duplicates */
	check_random_sort(2000000, 0, 0);       /* every digit of the key in use */
	check_random_sort(300000, 1, 0);        /* one space: only page digits */
	check_random_sort(300000, 0, 1);        /* only space digits differ */
	check_random_sort(70000, 3, 70000);     /* just above the radix threshold */
	check_random_sort(1000, 7, 100);        /* qsort path */
}

/* Parse and write speed on a 100 GB buffer pool's worth (6.5M pages): printed, not asserted. */
static void test_speed(void)
{
	size_t n = 6553600;
	bp_dump d = {0};
	CU_ASSERT_FATAL(bp_dump_reserve(&d, n, NULL) == 0);
	for (size_t i = 0; i < n; i++)
		d.v[i] = (bp_entry){(uint32_t)(rng() % 3000), (uint32_t)(rng() % 400000)};
	d.n = n;
	uint8_t *txt, *lru;
	size_t tlen, llen;
	double t0 = now_s();
	CU_ASSERT_EQUAL_FATAL(bp_write_text(&d, &txt, &tlen, NULL), 0);
	double t1 = now_s();
	bp_dump p = {0};
	CU_ASSERT_EQUAL(bp_parse(txt, tlen, NULL, &p, NULL), 0);
	double t2 = now_s();
	CU_ASSERT(same_entries(&d, &p));
	CU_ASSERT_EQUAL_FATAL(bp_write_lru(&d, &lru, &llen, NULL), 0);
	double t3 = now_s();
	CU_ASSERT_EQUAL(bp_parse(lru, llen, NULL, &p, NULL), 0);
	double t4 = now_s();
	CU_ASSERT(same_entries(&d, &p));
	bp_sort_unique(&p);
	double t5 = now_s();
	CU_ASSERT(strictly_sorted(&p));
	printf("(%zu entries, %zu MB text: write %.0f ms, parse %.0f ms; lru write %.0f ms, parse %.0f ms; "
	       "sort+unique %.0f ms) ",
	       n, tlen >> 20, (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3, (t5 - t4) * 1e3);
	free(txt);
	free(lru);
	bp_dump_free(&d);
	bp_dump_free(&p);
}

/* ---- files */

static size_t count_tmp_files(const char *dir)
{
	size_t n = 0;
	DIR *dh = opendir(dir);
	if (!dh)
		return 999;
	struct dirent *de;
	while ((de = readdir(dh)) != NULL) {
		size_t l = strlen(de->d_name);
		n += l >= 4 && strcmp(de->d_name + l - 4, ".tmp") == 0;
	}
	closedir(dh);
	return n;
}

static void test_files(void)
{
	char dir[] = "/tmp/bpdump_test.XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	char tpath[PATH_MAX], lpath[PATH_MAX], tmp[PATH_MAX + 8];
	snprintf(tpath, sizeof tpath, "%s/ib_buffer_pool", dir);
	snprintf(lpath, sizeof lpath, "%s/ib_lru_dump", dir);
	bp_dump d = {0}, r = {0};
	for (uint32_t i = 0; i < 5000; i++)
		bp_dump_push(&d, i % 11, 5000 - i, NULL);
	xb_error err;
	xb_err_clear(&err);
	int fmt = -1;

	CU_ASSERT_EQUAL(bp_write_file(tpath, &d, BP_FORMAT_TEXT, &err), 0);
	CU_ASSERT_EQUAL(bp_read_file(tpath, &r, &fmt, &err), 0);
	CU_ASSERT_EQUAL(fmt, BP_FORMAT_TEXT);
	CU_ASSERT(same_entries(&d, &r));
	CU_ASSERT_EQUAL(bp_write_file(lpath, &d, BP_FORMAT_LRU, &err), 0);
	CU_ASSERT_EQUAL(bp_read_file(lpath, &r, &fmt, &err), 0);
	CU_ASSERT_EQUAL(fmt, BP_FORMAT_LRU);
	CU_ASSERT(same_entries(&d, &r));
	struct stat st;
	CU_ASSERT(stat(lpath, &st) == 0 && st.st_size % BP_LRU_BLOCK == 0);
	CU_ASSERT_EQUAL(count_tmp_files(dir), 0);

	/* replace an existing file (and a stale .tmp from a crash) */
	snprintf(tmp, sizeof tmp, "%s.tmp", tpath);
	FILE *f = fopen(tmp, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("stale", f);
	fclose(f);
	bp_sort_unique(&d);
	CU_ASSERT_EQUAL(bp_write_file(tpath, &d, BP_FORMAT_TEXT, &err), 0);
	CU_ASSERT_EQUAL(bp_read_file(tpath, &r, NULL, &err), 0);
	CU_ASSERT(same_entries(&d, &r));
	CU_ASSERT_EQUAL(count_tmp_files(dir), 0);
	/* empty dumps */
	bp_dump empty = {0};
	CU_ASSERT_EQUAL(bp_write_file(tpath, &empty, BP_FORMAT_TEXT, &err), 0);
	CU_ASSERT(stat(tpath, &st) == 0 && st.st_size == 0);
	CU_ASSERT_EQUAL(bp_read_file(tpath, &r, &fmt, &err), 0);
	CU_ASSERT(r.n == 0 && fmt == BP_FORMAT_TEXT);
	CU_ASSERT_EQUAL(bp_write_file(lpath, &empty, BP_FORMAT_LRU, &err), 0);
	CU_ASSERT_EQUAL(bp_read_file(lpath, &r, &fmt, &err), 0);
	CU_ASSERT(r.n == 0 && fmt == BP_FORMAT_LRU);

	/* a malformed file names itself and the line */
	f = fopen(tpath, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("1,2\n3,4\n5;6\n", f);
	fclose(f);
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(bp_read_file(tpath, &r, &fmt, &err), XB_E_IO_READ);
	char want[PATH_MAX + 128];
	snprintf(want, sizeof want, "%s: line 3: expected \"<space_id>,<page_no>\", got \"5;6\"", tpath);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_EQUAL(r.n, 0);

	/* errors: missing file, unwritable place, bad format argument */
	char missing[PATH_MAX + 16];
	snprintf(missing, sizeof missing, "%s/nope", dir);
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(bp_read_file(missing, &r, NULL, &err), XB_E_IO_READ);
	snprintf(want, sizeof want, "cannot open %s: No such file or directory", missing);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	char nodir[PATH_MAX + 32];
	snprintf(nodir, sizeof nodir, "%s/no/such/dir/ib_buffer_pool", dir);
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(bp_write_file(nodir, &d, BP_FORMAT_TEXT, &err), XB_E_IO_WRITE);
	CU_ASSERT(strstr(err.msg, "cannot create") != NULL && strstr(err.msg, "ib_buffer_pool.tmp") != NULL);
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(bp_write_file(tpath, &d, BP_FORMAT_UNKNOWN, &err), XB_E_INTERNAL);
	/* a rename that fails (target is a non-empty directory) leaves no .tmp and the target as it was */
	char sub[PATH_MAX + 16], subfile[PATH_MAX + 32];
	snprintf(sub, sizeof sub, "%s/d", dir);
	snprintf(subfile, sizeof subfile, "%s/d/x", dir);
	CU_ASSERT_FATAL(mkdir(sub, 0700) == 0);
	f = fopen(subfile, "w");
	CU_ASSERT_FATAL(f != NULL);
	fclose(f);
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(bp_write_file(sub, &d, BP_FORMAT_TEXT, &err), XB_E_IO_WRITE);
	CU_ASSERT(strstr(err.msg, "cannot rename") != NULL);
	CU_ASSERT_EQUAL(count_tmp_files(dir), 0);
	CU_ASSERT(stat(sub, &st) == 0 && S_ISDIR(st.st_mode));

	/* relative path: the directory is "." */
	char cwd[PATH_MAX];
	CU_ASSERT_FATAL(getcwd(cwd, sizeof cwd) != NULL);
	CU_ASSERT_FATAL(chdir(dir) == 0);
	CU_ASSERT_EQUAL(bp_write_file("rel_dump", &d, BP_FORMAT_LRU, &err), 0);
	CU_ASSERT_EQUAL(bp_read_file("rel_dump", &r, &fmt, &err), 0);
	CU_ASSERT(same_entries(&d, &r));
	CU_ASSERT_FATAL(chdir(cwd) == 0);

	unlink(subfile);
	rmdir(sub);
	snprintf(tmp, sizeof tmp, "%s/rel_dump", dir);
	unlink(tmp);
	unlink(tpath);
	unlink(lpath);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	bp_dump_free(&d);
	bp_dump_free(&r);
}

int main(void)
{
	find_fixture_dir();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("bpdump", NULL, NULL);
	CU_add_test(s, "real ib_buffer_pool: count, LRU order, sort, round trips", test_real_text);
	CU_add_test(s, "real entries as ib_lru_dump (awk+xxd) byte for byte", test_real_lru);
	CU_add_test(s, "ib_lru_dump by hand: padding, no terminator, truncated, garbage", test_lru_handmade);
	CU_add_test(s, "text accepted: CRLF, no final newline, limits", test_text_accepted);
	CU_add_test(s, "text malformed: exact messages and line numbers", test_text_malformed);
	CU_add_test(s, "format detection", test_detect);
	CU_add_test(s, "text writer formatting", test_write_text);
	CU_add_test(s, "sort, unique, filter", test_sort_filter_small);
	CU_add_test(s, "sort+unique on 2M random entries vs reference", test_sort_large);
	CU_add_test(s, "unique in order: first occurrences kept, order kept", test_unique_in_order);
	CU_add_test(s, "speed on 6.5M entries", test_speed);
	CU_add_test(s, "write_file/read_file", test_files);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
