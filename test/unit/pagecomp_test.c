/*
 * pagecomp_test.c - page_compressed pages on real bytes from a 10.11 server
 * (t_pc.pages: full_crc32 zlib, t_pc_legacy.pages: crc32 layout, zlib; see
 * test/fixtures/innodb/make-fixtures.sh). The main check is byte identity:
 * a stored page decompressed and written again the way the server's flush
 * does must give back exactly the stored bytes. Around it: what recovery's
 * LSN stamp changes, pages that are never or cannot be compressed, corrupt
 * images rejected with a message naming the page, algorithms this build
 * lacks refused with a hint, levels.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "innodb/crc32c.h"
#include "innodb/pagecomp.h"

#include "fixture.h"

#define PS 16384
#define N_PAGES 6

/* one fixture tablespace: its bytes and what page 0 says */
struct space {
	uint8_t *buf;
	size_t len;
	innodb_space_info si;
};

static bool open_space(const char *file, struct space *s)
{
	s->buf = load(file, &s->len);
	if (!s->buf)
		return false;
	if (innodb_page0_parse(s->buf, s->len, &s->si, NULL) || s->len < N_PAGES * PS) {
		free(s->buf);
		s->buf = NULL;
		return false;
	}
	return true;
}

static const uint8_t *stored_page(const struct space *s, uint32_t n)
{
	return s->buf + (size_t)n * PS;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t type_of(const uint8_t *p)
{
	return (uint32_t)p[24] << 8 | p[25];
}

/* first differing byte, -1 when equal (printed on failure: a diff is more useful than "not equal") */
static long first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

static void expect_same(const uint8_t *got, const uint8_t *want, const char *what, uint32_t page_no)
{
	long d = first_diff(got, want, PS);
	if (d >= 0)
		printf("\n    %s page %u: first difference at byte %ld (%02x, expected %02x)", what, page_no, d,
		       got[d], want[d]);
	CU_ASSERT(d < 0);
}

/* ---- tests */

static void test_is_compressed(void)
{
	struct space pc, leg, full;
	CU_ASSERT_FATAL(open_space("t_pc.pages", &pc));
	CU_ASSERT_FATAL(open_space("t_pc_legacy.pages", &leg));
	CU_ASSERT_FATAL(open_space("t_full.pages", &full));
	CU_ASSERT(pc.si.page_compressed && pc.si.full_crc32 && pc.si.compression_algo == PAGECOMP_ZLIB);
	CU_ASSERT(leg.si.page_compressed && !leg.si.full_crc32);
	CU_ASSERT_EQUAL(pagecomp_write_algo(&leg.si), PAGECOMP_ZLIB);
	CU_ASSERT(!pagecomp_is_compressed(stored_page(&pc, 0), &pc.si));
	CU_ASSERT(!pagecomp_is_compressed(stored_page(&leg, 0), &leg.si));
	for (uint32_t p = 1; p < N_PAGES; p++) {
		CU_ASSERT(pagecomp_is_compressed(stored_page(&pc, p), &pc.si));
		CU_ASSERT(pagecomp_is_compressed(stored_page(&leg, p), &leg.si));
	}
	for (uint32_t p = 0; p < N_PAGES; p++)
		CU_ASSERT(!pagecomp_is_compressed(stored_page(&full, p), &full.si));
	CU_ASSERT_STRING_EQUAL(pagecomp_algo_name(PAGECOMP_ZLIB), "zlib");
	CU_ASSERT_STRING_EQUAL(pagecomp_algo_name(PAGECOMP_SNAPPY), "snappy");
	CU_ASSERT_STRING_EQUAL(pagecomp_algo_name(9), "unknown");
	CU_ASSERT(pagecomp_algo_supported(PAGECOMP_ZLIB));
	CU_ASSERT(!pagecomp_algo_supported(PAGECOMP_LZ4));
	free(pc.buf);
	free(leg.buf);
	free(full.buf);
}

/* Every compressed fixture page decompresses to a whole, plausible page. */
static void test_decompress(void)
{
	const char *files[] = {"t_pc.pages", "t_pc_legacy.pages"};
	for (size_t f = 0; f < 2; f++) {
		struct space s;
		CU_ASSERT_FATAL(open_space(files[f], &s));
		static uint8_t page[PS];
		for (uint32_t p = 0; p < N_PAGES; p++) {
			const uint8_t *st = stored_page(&s, p);
			xb_error err;
			xb_err_clear(&err);
			int rc = pagecomp_decompress(st, page, &s.si, p, &err);
			if (rc)
				printf("\n    %s page %u: %s", files[f], p, err.msg);
			CU_ASSERT_EQUAL_FATAL(rc, 0);
			if (p == 0) { /* not compressed: copied */
				CU_ASSERT(!memcmp(page, st, PS));
				continue;
			}
			CU_ASSERT_EQUAL(innodb_page_no(page), p);
			CU_ASSERT_EQUAL(innodb_page_lsn(page), innodb_page_lsn(st));
			uint32_t t = type_of(page);
			CU_ASSERT(t == 3 || t == 5 || t == 17855); /* inode, ibuf bitmap, index */
			/* the LSN copy of the trailer is there in both layouts */
			CU_ASSERT(!memcmp(page + PS - 8 + (s.si.full_crc32 ? 0 : 4), page + 20, 4));
			if (!s.si.full_crc32) { /* legacy pages were checksummed before compression */
				CU_ASSERT(innodb_page_is_valid(page, &s.si, p, true, NULL, 0));
			}
		}
		free(s.buf);
	}
}

/* The byte-identity check: stored -> decompress -> the server's flush -> the stored bytes. */
static void test_identity_full_crc32(void)
{
	struct space s;
	CU_ASSERT_FATAL(open_space("t_pc.pages", &s));
	static uint8_t page[PS], out[PS], back[PS];
	for (uint32_t p = 0; p < N_PAGES; p++) {
		const uint8_t *st = stored_page(&s, p);
		CU_ASSERT_FATAL(pagecomp_decompress(st, page, &s.si, p, NULL) == 0);
		CU_ASSERT_EQUAL(pagecomp_flush_image(page, out, &s.si, s.si.space_id, p, 6, NULL), 0);
		expect_same(out, st, "t_pc flush image", p);
	}
	/* After recovery the page's last 8 bytes hold the whole LSN (the server's recovery writes them; its
	 * normal flush leaves the last 4 bytes alone, and they are 0 on these pages). So a recovered
	 * page is written as: stamp, then that same flush. */
	for (uint32_t p = 1; p < N_PAGES; p++) {
		const uint8_t *st = stored_page(&s, p);
		uint64_t lsn = innodb_page_lsn(st);
		CU_ASSERT_FATAL(pagecomp_decompress(st, page, &s.si, p, NULL) == 0);
		CU_ASSERT_EQUAL(rd32(page + PS - 4), 0);
		static uint8_t stamped[PS], want[PS];
		memcpy(stamped, page, PS);
		wr32(stamped + PS - 8, (uint32_t)(lsn >> 32));
		wr32(stamped + PS - 4, (uint32_t)lsn);
		CU_ASSERT_EQUAL(pagecomp_flush_image(stamped, want, &s.si, s.si.space_id, p, 6, NULL), 0);
		CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &s.si, s.si.space_id, p, lsn, 6, NULL), 0);
		expect_same(out, want, "t_pc write image", p);
		CU_ASSERT(pagecomp_is_compressed(out, &s.si));
		CU_ASSERT(innodb_page_is_valid(out, &s.si, p, true, NULL, 0));
		/* header as stored, zeros after the image */
		CU_ASSERT(!memcmp(out, st, 24));
		uint32_t csize = (type_of(out) & 0x7fff) << 8;
		CU_ASSERT(csize >= 256 && csize < PS);
		for (uint32_t i = csize; i < PS; i++)
			if (out[i]) {
				CU_FAIL("non-zero byte after the compressed image");
				break;
			}
		/* and it reads back as the recovered page: LSN in both trailer halves' low words */
		CU_ASSERT_FATAL(pagecomp_decompress(out, back, &s.si, p, NULL) == 0);
		CU_ASSERT(!memcmp(back, page, PS));
		CU_ASSERT_EQUAL(rd32(back + PS - 8), (uint32_t)lsn);
		CU_ASSERT_EQUAL(rd32(back + PS - 4), (uint32_t)lsn);
	}
	free(s.buf);
}

static void test_identity_legacy(void)
{
	struct space s;
	CU_ASSERT_FATAL(open_space("t_pc_legacy.pages", &s));
	static uint8_t page[PS], out[PS];
	for (uint32_t p = 0; p < N_PAGES; p++) {
		const uint8_t *st = stored_page(&s, p);
		CU_ASSERT_FATAL(pagecomp_decompress(st, page, &s.si, p, NULL) == 0);
		/* the legacy flush rewrites the whole trailer, so recovery's stamp changes nothing here */
		xb_error err;
		xb_err_clear(&err);
		int rc = pagecomp_write_image(page, out, &s.si, s.si.space_id, p, innodb_page_lsn(st), 0, &err);
		if (rc)
			printf("\n    page %u: %s", p, err.msg);
		CU_ASSERT_EQUAL(rc, 0);
		expect_same(out, st, "t_pc_legacy write image", p);
		CU_ASSERT_EQUAL(pagecomp_is_compressed(out, &s.si), p != 0);
	}
	free(s.buf);
}

/* An applied change and a new LSN: the image reads back as the modified page. */
static void test_round_trip_modified(void)
{
	const char *files[] = {"t_pc.pages", "t_pc_legacy.pages"};
	for (size_t f = 0; f < 2; f++) {
		struct space s;
		CU_ASSERT_FATAL(open_space(files[f], &s));
		static uint8_t page[PS], out[PS], back[PS];
		for (uint32_t p = 1; p < N_PAGES; p++) {
			const uint8_t *st = stored_page(&s, p);
			CU_ASSERT_FATAL(pagecomp_decompress(st, page, &s.si, p, NULL) == 0);
			page[200] ^= 0x55;
			page[PS / 2] ^= 0x0f;
			uint64_t lsn = innodb_page_lsn(st) + 12345;
			CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &s.si, s.si.space_id, p, lsn, 6, NULL), 0);
			CU_ASSERT(pagecomp_is_compressed(out, &s.si));
			CU_ASSERT(innodb_page_is_valid(out, &s.si, p, true, NULL, 0));
			CU_ASSERT_EQUAL(innodb_page_lsn(out), lsn);
			CU_ASSERT_FATAL(pagecomp_decompress(out, back, &s.si, p, NULL) == 0);
			CU_ASSERT(!memcmp(back, page, PS)); /* page holds what was compressed */
			CU_ASSERT_EQUAL(innodb_page_lsn(back), lsn);
			if (!s.si.full_crc32) {
				CU_ASSERT(innodb_page_is_valid(back, &s.si, p, true, NULL, 0));
			}
		}
		free(s.buf);
	}
}

/* Page 0 (and the TRX_SYS page of space 0) is never compressed, whatever it holds. */
static void test_page0_never_compressed(void)
{
	const char *files[] = {"t_pc.pages", "t_pc_legacy.pages"};
	for (size_t f = 0; f < 2; f++) {
		struct space s;
		CU_ASSERT_FATAL(open_space(files[f], &s));
		static uint8_t page[PS], out[PS], want[PS];
		const uint8_t *st = stored_page(&s, 0);
		memcpy(page, st, PS);
		CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &s.si, s.si.space_id, 0, innodb_page_lsn(st), 6, NULL),
				0);
		expect_same(out, st, files[f], 0);
		CU_ASSERT(!pagecomp_is_compressed(out, &s.si));
		/* a compressible index page presented as page 5 of space 0 stays plain too */
		CU_ASSERT_FATAL(pagecomp_decompress(stored_page(&s, 3), page, &s.si, 3, NULL) == 0);
		memcpy(want, page, PS);
		innodb_page_finalize(want, &s.si, 0, 5, 777777);
		CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &s.si, 0, 5, 777777, 6, NULL), 0);
		CU_ASSERT(!pagecomp_is_compressed(out, &s.si));
		CU_ASSERT(!memcmp(out, want, PS));
		/* ...while page 5 of another space is compressed */
		CU_ASSERT_FATAL(pagecomp_decompress(stored_page(&s, 3), page, &s.si, 3, NULL) == 0);
		CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &s.si, 9, 5, 777777, 6, NULL), 0);
		CU_ASSERT(pagecomp_is_compressed(out, &s.si));
		free(s.buf);
	}
}

/* Allocated, FSP header and XDES pages are written plain like page 0. */
static void test_types_never_compressed(void)
{
	struct space s;
	CU_ASSERT_FATAL(open_space("t_pc.pages", &s));
	static uint8_t page[PS], out[PS];
	const uint32_t types[] = {0, 8, 9};
	for (size_t i = 0; i < 3; i++) {
		CU_ASSERT_FATAL(pagecomp_decompress(stored_page(&s, 3), page, &s.si, 3, NULL) == 0);
		page[24] = (uint8_t)(types[i] >> 8);
		page[25] = (uint8_t)types[i];
		CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &s.si, s.si.space_id, 3, 4242, 6, NULL), 0);
		CU_ASSERT(!pagecomp_is_compressed(out, &s.si));
		CU_ASSERT(innodb_page_is_valid(out, &s.si, 3, true, NULL, 0));
		CU_ASSERT_EQUAL(type_of(out), types[i]);
	}
	free(s.buf);
}

/* A page whose compressed form is not smaller is stored uncompressed with its normal checksum. */
static void test_incompressible(void)
{
	const char *files[] = {"t_pc.pages", "t_pc_legacy.pages"};
	for (size_t f = 0; f < 2; f++) {
		struct space s;
		CU_ASSERT_FATAL(open_space(files[f], &s));
		static uint8_t page[PS], out[PS], back[PS];
		CU_ASSERT_FATAL(pagecomp_decompress(stored_page(&s, 4), page, &s.si, 4, NULL) == 0);
		uint64_t x = 0x9E3779B97F4A7C15ull; /* xorshift64: incompressible body */
		for (uint32_t i = 38; i < PS - 8; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			page[i] = (uint8_t)x;
		}
		CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &s.si, s.si.space_id, 4, 99999, 6, NULL), 0);
		CU_ASSERT(!pagecomp_is_compressed(out, &s.si));
		CU_ASSERT(!memcmp(out, page, PS));
		CU_ASSERT_EQUAL(type_of(out), 17855);
		CU_ASSERT_EQUAL(innodb_page_lsn(out), 99999);
		char why[200] = "";
		bool ok = innodb_page_is_valid(out, &s.si, 4, true, why, sizeof why);
		if (!ok)
			printf("\n    %s: %s", files[f], why);
		CU_ASSERT(ok);
		if (s.si.full_crc32) {
			CU_ASSERT_EQUAL(rd32(out + PS - 4), crc32c(out, PS - 4));
		} else {
			CU_ASSERT_EQUAL(rd32(out), innodb_checksum_crc32(out, PS));
		}
		/* such a stored page "decompresses" to itself */
		CU_ASSERT_EQUAL(pagecomp_decompress(out, back, &s.si, 4, NULL), 0);
		CU_ASSERT(!memcmp(back, out, PS));
		free(s.buf);
	}
}

static void expect_error(const uint8_t *st, const innodb_space_info *si, uint32_t page_no, const char *what)
{
	static uint8_t page[PS];
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(pagecomp_decompress(st, page, si, page_no, &err), XB_E_CORRUPT_PAGE);
	char name[32];
	snprintf(name, sizeof name, "page %u", page_no);
	if (!strstr(err.msg, what) || !strstr(err.msg, name))
		printf("\n    got \"%s\", wanted \"%s\" and \"%s\"", err.msg, what, name);
	CU_ASSERT(strstr(err.msg, what) != NULL);
	CU_ASSERT(strstr(err.msg, name) != NULL);
}

static void test_corrupt_full_crc32(void)
{
	struct space s;
	CU_ASSERT_FATAL(open_space("t_pc.pages", &s));
	static uint8_t bad[PS];
	const uint8_t *st = stored_page(&s, 4);
	uint32_t csize = (type_of(st) & 0x7fff) << 8;
	/* a flipped byte in the stream: the image CRC catches it */
	memcpy(bad, st, PS);
	bad[300] ^= 0x10;
	expect_error(bad, &s.si, 4, "checksum mismatch in the compressed image");
	/* the same with a matching CRC (e.g. corrupted before it was written): zlib catches it */
	wr32(bad + csize - 4, crc32c(bad, csize - 4));
	expect_error(bad, &s.si, 4, "compressed data is corrupt");
	/* a truncated stream */
	memcpy(bad, st, PS);
	memset(bad + 200, 0, csize - 4 - 200);
	wr32(bad + csize - 4, crc32c(bad, csize - 4));
	expect_error(bad, &s.si, 4, "compressed data is corrupt");
	/* impossible sizes in the type field */
	memcpy(bad, st, PS);
	bad[25] = 0;
	expect_error(bad, &s.si, 4, "bad compressed size 0");
	bad[25] = 0x40; /* 16384: not smaller than the page */
	expect_error(bad, &s.si, 4, "bad compressed size 16384");
	/* another page's image */
	expect_error(st, &s.si, 5, "decompressed page has page number 4");
	free(s.buf);
}

static void test_corrupt_legacy(void)
{
	struct space s;
	CU_ASSERT_FATAL(open_space("t_pc_legacy.pages", &s));
	static uint8_t bad[PS];
	const uint8_t *st = stored_page(&s, 4);
	uint32_t clen = (uint32_t)st[38] << 8 | st[39];
	/* no checksum on the image: zlib's own adler32 or the page's checksum catch a flipped byte */
	memcpy(bad, st, PS);
	bad[40 + clen / 2] ^= 0x10;
	expect_error(bad, &s.si, 4, "page 4");
	memcpy(bad, st, PS);
	bad[38] = 0;
	bad[39] = 0;
	expect_error(bad, &s.si, 4, "bad compressed length 0");
	bad[38] = 0x3f;
	bad[39] = 0xff;
	expect_error(bad, &s.si, 4, "bad compressed length 16383");
	/* a length shorter than the stream: truncated */
	bad[38] = (uint8_t)((clen - 10) >> 8);
	bad[39] = (uint8_t)(clen - 10);
	expect_error(bad, &s.si, 4, "compressed data is corrupt");
	memcpy(bad, st, PS);
	wr32(bad, 0x12345678);
	expect_error(bad, &s.si, 4, "without the deadbeef marker");
	memcpy(bad, st, PS);
	bad[29] = 1;
	expect_error(bad, &s.si, 4, "bad page_compressed algorithm field");
	memcpy(bad, st, PS);
	bad[33] = 9;
	expect_error(bad, &s.si, 4, "unknown page_compressed algorithm 9");
	memcpy(bad, st, PS);
	bad[24] = 0x92; /* 37401: compressed and encrypted */
	bad[25] = 0x19;
	expect_error(bad, &s.si, 4, "page_compressed and encrypted");
	expect_error(st, &s.si, 3, "decompressed page has page number 4");
	free(s.buf);
}

static void test_unsupported_algorithm(void)
{
	struct space s;
	CU_ASSERT_FATAL(open_space("t_pc.pages", &s));
	static uint8_t page[PS], out[PS];
	/* the same pages in a tablespace whose flags say lz4 */
	innodb_space_info lz4 = s.si;
	CU_ASSERT_FATAL(innodb_flags_decode((s.si.flags & ~0xE0u) | 2u << 5, &lz4));
	CU_ASSERT_EQUAL(lz4.compression_algo, PAGECOMP_LZ4);
	/* the algorithm a stored page was compressed with (what a backup checks against the server's providers) */
	CU_ASSERT_EQUAL(pagecomp_stored_algo(stored_page(&s, 3), &s.si), PAGECOMP_ZLIB);
	CU_ASSERT_EQUAL(pagecomp_stored_algo(stored_page(&s, 3), &lz4), PAGECOMP_LZ4);
	CU_ASSERT_EQUAL(pagecomp_stored_algo(stored_page(&s, 0), &lz4), PAGECOMP_NONE);
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(pagecomp_decompress(stored_page(&s, 3), page, &lz4, 3, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT(strstr(err.msg, "page 3: page_compressed algorithm lz4 is not supported") != NULL);
	CU_ASSERT(strstr(err.hint, "mariabackup") != NULL);
	CU_ASSERT_FATAL(pagecomp_decompress(stored_page(&s, 3), page, &s.si, 3, NULL) == 0);
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &lz4, s.si.space_id, 3, 5000, 6, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT(strstr(err.msg, "lz4 is not supported") != NULL);
	/* page 0 is never compressed, so it can still be written */
	memcpy(page, stored_page(&s, 0), PS);
	CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &lz4, s.si.space_id, 0, innodb_page_lsn(page), 6, NULL), 0);
	CU_ASSERT(!memcmp(out, stored_page(&s, 0), PS));
	free(s.buf);

	/* legacy: the algorithm is in the page; snappy */
	CU_ASSERT_FATAL(open_space("t_pc_legacy.pages", &s));
	memcpy(page, stored_page(&s, 2), PS);
	CU_ASSERT_EQUAL(pagecomp_stored_algo(page, &s.si), PAGECOMP_ZLIB);
	page[33] = PAGECOMP_SNAPPY;
	CU_ASSERT_EQUAL(pagecomp_stored_algo(page, &s.si), PAGECOMP_SNAPPY);
	CU_ASSERT_EQUAL(pagecomp_stored_algo(stored_page(&s, 0), &s.si), PAGECOMP_NONE);
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(pagecomp_decompress(page, out, &s.si, 2, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT(strstr(err.msg, "page 2: page_compressed algorithm snappy is not supported") != NULL);
	/* writing with an algorithm the caller names for the legacy space */
	innodb_space_info bz = s.si;
	bz.compression_algo = PAGECOMP_BZIP2;
	CU_ASSERT_FATAL(pagecomp_decompress(stored_page(&s, 2), page, &s.si, 2, NULL) == 0);
	CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &bz, s.si.space_id, 2, 5000, 6, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT(strstr(err.msg, "bzip2 is not supported") != NULL);
	free(s.buf);
}

static void test_levels(void)
{
	const char *files[] = {"t_pc.pages", "t_pc_legacy.pages"};
	for (size_t f = 0; f < 2; f++) {
		struct space s;
		CU_ASSERT_FATAL(open_space(files[f], &s));
		static uint8_t page[PS], out0[PS], out6[PS], out1[PS], back[PS];
		const uint8_t *st = stored_page(&s, 5);
		CU_ASSERT_FATAL(pagecomp_decompress(st, page, &s.si, 5, NULL) == 0);
		CU_ASSERT_EQUAL(pagecomp_flush_image(page, out0, &s.si, s.si.space_id, 5, 0, NULL), 0);
		CU_ASSERT_EQUAL(pagecomp_flush_image(page, out6, &s.si, s.si.space_id, 5, 6, NULL), 0);
		CU_ASSERT(!memcmp(out0, out6, PS)); /* 0 = the server default, 6 */
		CU_ASSERT(!memcmp(out6, st, PS));
		CU_ASSERT_EQUAL(pagecomp_flush_image(page, out1, &s.si, s.si.space_id, 5, 1, NULL), 0);
		CU_ASSERT(pagecomp_is_compressed(out1, &s.si));
		CU_ASSERT(innodb_page_is_valid(out1, &s.si, 5, true, NULL, 0));
		CU_ASSERT_FATAL(pagecomp_decompress(out1, back, &s.si, 5, NULL) == 0);
		CU_ASSERT(!memcmp(back, page, PS));
		xb_error err;
		xb_err_clear(&err);
		CU_ASSERT_EQUAL(pagecomp_flush_image(page, out1, &s.si, s.si.space_id, 5, 10, &err), XB_E_INTERNAL);
		CU_ASSERT(strstr(err.msg, "level 10") != NULL);
		free(s.buf);
	}
}

/* For a tablespace that is not page_compressed, the write image is the finalized page. */
static void test_plain_tablespace(void)
{
	const char *files[] = {"t_full.pages", "t_crc32.pages"};
	for (size_t f = 0; f < 2; f++) {
		struct space s;
		CU_ASSERT_FATAL(open_space(files[f], &s));
		static uint8_t page[PS], out[PS];
		for (uint32_t p = 0; p < N_PAGES; p++) {
			const uint8_t *st = stored_page(&s, p);
			memcpy(page, st, PS);
			memset(page + PS - 8, 0xAA, 8);
			uint64_t lsn = rd64(st + 16);
			CU_ASSERT_EQUAL(pagecomp_write_image(page, out, &s.si, s.si.space_id, p, lsn, 6, NULL), 0);
			expect_same(out, st, files[f], p);
		}
		free(s.buf);
	}
}

int main(void)
{
	find_fixture_dir();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("pagecomp", NULL, NULL);
	CU_add_test(s, "compressed pages recognised", test_is_compressed);
	CU_add_test(s, "real pages decompress", test_decompress);
	CU_add_test(s, "full_crc32 zlib: byte identity", test_identity_full_crc32);
	CU_add_test(s, "legacy zlib: byte identity", test_identity_legacy);
	CU_add_test(s, "modified page round trip", test_round_trip_modified);
	CU_add_test(s, "page 0 and TRX_SYS never compressed", test_page0_never_compressed);
	CU_add_test(s, "allocated/FSP/XDES types never compressed", test_types_never_compressed);
	CU_add_test(s, "incompressible page stored plain", test_incompressible);
	CU_add_test(s, "corrupt full_crc32 images rejected", test_corrupt_full_crc32);
	CU_add_test(s, "corrupt legacy images rejected", test_corrupt_legacy);
	CU_add_test(s, "unsupported algorithms refused", test_unsupported_algorithm);
	CU_add_test(s, "compression levels", test_levels);
	CU_add_test(s, "non-page_compressed tablespace", test_plain_tablespace);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
