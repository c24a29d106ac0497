/*
 * page_test.c - page 0 parsing and page validation on real pages captured
 * from a 10.11 server (the .pages files of test/fixtures/innodb, see make-fixtures.sh):
 * every format parses and validates; a flipped byte, a wrong page number and
 * a torn page (mismatching LSN copies) are rejected with a useful reason.
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "innodb/page.h"

/* ---- fixtures */

#include "fixture.h"

/* one captured tablespace and what the server told us about it */
struct space_fx {
	const char *file;
	uint32_t flags;
	uint32_t physical;
	bool full_crc32, zip, page_compressed, encrypted;
	bool checksummed; /* a flipped body byte must be detected */
};

static const struct space_fx spaces[] = {
	{"t_full.pages", 0x15, 16384, true, false, false, false, true},
	{"t_crc32.pages", 0x21, 16384, false, false, false, false, true},
	{"t_zip.pages", 0x29, 8192, false, true, false, false, true},
	{"t_pc.pages", 0x35, 16384, true, false, true, false, true},
	{"t_pc_legacy.pages", 0x10021, 16384, false, false, true, false, false},
	{"t_enc.pages", 0x15, 16384, true, false, false, true, true},
	{"t_enc_legacy.pages", 0x21, 16384, false, false, false, true, true},
	{"ibdata1.pages", 0x15, 16384, true, false, false, false, true},
};
#define N_SPACES (sizeof spaces / sizeof spaces[0])

/* ---- tests */

static void test_page0_parse(void)
{
	for (size_t i = 0; i < N_SPACES; i++) {
		size_t len;
		uint8_t *buf = load(spaces[i].file, &len);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		xb_error err;
		xb_err_clear(&err);
		int rc = innodb_page0_parse(buf, len, &si, &err);
		if (rc)
			printf("\n    %s: %s", spaces[i].file, err.msg);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(si.flags, spaces[i].flags);
		CU_ASSERT_EQUAL(si.physical_size, spaces[i].physical);
		CU_ASSERT_EQUAL(si.logical_size, 16384);
		CU_ASSERT_EQUAL(si.full_crc32, spaces[i].full_crc32);
		CU_ASSERT_EQUAL(si.zip, spaces[i].zip);
		CU_ASSERT_EQUAL(si.page_compressed, spaces[i].page_compressed);
		CU_ASSERT_EQUAL(si.encrypted, spaces[i].encrypted);
		CU_ASSERT(si.fsp_size >= len / si.physical_size);
		if (!strcmp(spaces[i].file, "ibdata1.pages")) {
			CU_ASSERT_EQUAL(si.space_id, 0);
		} else {
			CU_ASSERT(si.space_id > 0);
		}
		free(buf);
	}
}

static void test_all_pages_valid(void)
{
	for (size_t i = 0; i < N_SPACES; i++) {
		size_t len;
		uint8_t *buf = load(spaces[i].file, &len);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
		size_t n = len / si.physical_size;
		CU_ASSERT(n >= 6);
		for (uint32_t p = 0; p < n; p++) {
			char why[200];
			bool ok = innodb_page_is_valid(buf + (size_t)p * si.physical_size, &si, p, true, why, sizeof why);
			if (!ok)
				printf("\n    %s page %u: %s", spaces[i].file, p, why);
			CU_ASSERT(ok);
		}
		free(buf);
	}
}

/* offset of a byte that the page checksum covers, in the page body */
static size_t body_offset(const uint8_t *page, const innodb_space_info *si)
{
	uint32_t type = (uint32_t)page[24] << 8 | page[25];
	if (si->full_crc32 && (type & 0x8000))
		return 100; /* compressed image: body ends at csize */
	return si->physical_size / 2;
}

static void test_flipped_byte(void)
{
	for (size_t i = 0; i < N_SPACES; i++) {
		size_t len;
		uint8_t *buf = load(spaces[i].file, &len);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
		for (uint32_t p = 0; p < len / si.physical_size; p++) {
			uint8_t *pg = buf + (size_t)p * si.physical_size;
			size_t off = body_offset(pg, &si);
			pg[off] ^= 0x20;
			char why[200] = "";
			bool ok = innodb_page_is_valid(pg, &si, p, true, why, sizeof why);
			if (spaces[i].checksummed || p == 0) {
				CU_ASSERT(!ok);
				CU_ASSERT(strstr(why, "checksum mismatch") != NULL);
			} else {
				/* legacy page_compressed pages carry no checksum (doc/pages.md §4.7 rule 1) */
				CU_ASSERT(ok);
			}
			/* a flipped header byte (page LSN) is caught in every format but legacy
			 * page_compressed and ROW_FORMAT=COMPRESSED (whose checksum skips the LSN) */
			pg[off] ^= 0x20;
			pg[18] ^= 0x01;
			ok = innodb_page_is_valid(pg, &si, p, true, why, sizeof why);
			CU_ASSERT((spaces[i].checksummed || p == 0) && !si.zip ? !ok : ok);
			pg[18] ^= 0x01;
			CU_ASSERT(innodb_page_is_valid(pg, &si, p, true, NULL, 0));
		}
		free(buf);
	}
}

static void test_wrong_page_number(void)
{
	for (size_t i = 0; i < N_SPACES; i++) {
		size_t len;
		uint8_t *buf = load(spaces[i].file, &len);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
		const uint8_t *p3 = buf + 3 * (size_t)si.physical_size;
		char why[200] = "";
		CU_ASSERT(!innodb_page_is_valid(p3, &si, 4, true, why, sizeof why));
		CU_ASSERT(strstr(why, "page number field is 3, expected 4") != NULL);
		CU_ASSERT(innodb_page_is_valid(p3, &si, 4, false, why, sizeof why));
		free(buf);
	}
}

static void test_torn_page(void)
{
	/* formats with an LSN copy in the trailer: a torn read mixes two versions */
	const char *files[] = {"t_full.pages", "t_crc32.pages", "t_enc_legacy.pages", "ibdata1.pages"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t len;
		uint8_t *buf = load(files[i], &len);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
		uint32_t ps = si.physical_size;
		uint8_t *pg = buf + 3 * (size_t)ps;
		/* first half from a newer write: a different LSN in the header */
		uint8_t torn[16384];
		memcpy(torn, pg, ps);
		torn[23] ^= 0x5a;
		char why[200] = "";
		CU_ASSERT(!innodb_page_is_valid(torn, &si, 3, true, why, sizeof why));
		CU_ASSERT(strstr(why, "torn page") != NULL);
		/* second half taken from another page of the same file */
		memcpy(torn, pg, ps);
		memcpy(torn + ps / 2, buf + 4 * (size_t)ps + ps / 2, ps / 2);
		CU_ASSERT(!innodb_page_is_valid(torn, &si, 3, true, why, sizeof why));
		free(buf);
	}
	/* compressed and encrypted full_crc32 pages: only the CRC can tell */
	const char *files2[] = {"t_zip.pages", "t_enc.pages", "t_pc.pages"};
	for (size_t i = 0; i < sizeof files2 / sizeof files2[0]; i++) {
		size_t len;
		uint8_t *buf = load(files2[i], &len);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
		uint32_t ps = si.physical_size;
		uint8_t torn[16384];
		memcpy(torn, buf + 3 * (size_t)ps, ps);
		memcpy(torn + 60, buf + 4 * (size_t)ps + 60, 40);
		CU_ASSERT(!innodb_page_is_valid(torn, &si, 3, true, NULL, 0));
		free(buf);
	}
}

static void test_zero_page(void)
{
	size_t len;
	uint8_t *zero = load("zero.pages", &len);
	CU_ASSERT_FATAL(zero != NULL);
	CU_ASSERT_EQUAL(len, 16384);
	for (size_t i = 0; i < N_SPACES; i++) {
		size_t l2;
		uint8_t *buf = load(spaces[i].file, &l2);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		CU_ASSERT_FATAL(innodb_page0_parse(buf, l2, &si, NULL) == 0);
		CU_ASSERT(innodb_page_is_valid(zero, &si, 77, true, NULL, 0));
		free(buf);
	}
	/* legacy: a page that is zero except the flush LSN field is never-written too */
	innodb_space_info si;
	memset(&si, 0, sizeof si);
	CU_ASSERT(innodb_flags_decode(0x21, &si));
	zero[27] = 9;
	CU_ASSERT(innodb_page_is_valid(zero, &si, 5, true, NULL, 0));
	/* ...but not for full_crc32 */
	CU_ASSERT(innodb_flags_decode(0x15, &si));
	CU_ASSERT(!innodb_page_is_valid(zero, &si, 0, true, NULL, 0));
	zero[27] = 0;
	/* page 0 that is all zero cannot be parsed */
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(innodb_page0_parse(zero, len, &si, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT(strstr(err.msg, "all zero") != NULL);
	free(zero);
}

static void test_page0_errors(void)
{
	size_t len;
	uint8_t *buf = load("t_full.pages", &len);
	CU_ASSERT_FATAL(buf != NULL);
	innodb_space_info si;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(innodb_page0_parse(buf, 40, &si, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT(strstr(err.msg, "truncated") != NULL);
	CU_ASSERT_EQUAL(innodb_page0_parse(buf, 8192, &si, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT(strstr(err.msg, "8192 of 16384") != NULL);
	buf[1000] ^= 1;
	CU_ASSERT_EQUAL(innodb_page0_parse(buf, len, &si, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT(strstr(err.msg, "page 0 is corrupt: checksum mismatch") != NULL);
	buf[1000] ^= 1;
	uint8_t save = buf[57];
	buf[57] = 0x1f; /* full_crc32 with page ssize 15 */
	CU_ASSERT_EQUAL(innodb_page0_parse(buf, len, &si, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT(strstr(err.msg, "invalid tablespace flags 0x1f") != NULL);
	buf[57] = save;
	CU_ASSERT_EQUAL(innodb_page0_parse(buf, len, &si, &err), 0);
	free(buf);
}

static void test_flags_decode(void)
{
	innodb_space_info si;
	memset(&si, 0, sizeof si);
	CU_ASSERT(innodb_flags_decode(0, &si)); /* legacy antelope 16K */
	CU_ASSERT(si.logical_size == 16384 && si.physical_size == 16384 && !si.full_crc32);
	CU_ASSERT(innodb_flags_decode(0x13, &si)); /* full_crc32 4K */
	CU_ASSERT(si.logical_size == 4096 && si.full_crc32);
	CU_ASSERT(innodb_flags_decode(0x17, &si)); /* full_crc32 64K */
	CU_ASSERT(si.logical_size == 65536);
	CU_ASSERT(innodb_flags_decode(0x21 | (4u << 6), &si)); /* legacy 8K */
	CU_ASSERT(si.logical_size == 8192 && si.physical_size == 8192);
	CU_ASSERT(innodb_flags_decode(0x21 | (3u << 1), &si)); /* legacy 16K, zip 4K */
	CU_ASSERT(si.zip && si.physical_size == 4096);
	CU_ASSERT(innodb_flags_decode(0x55, &si)); /* full_crc32 lz4 */
	CU_ASSERT(si.page_compressed && si.compression_algo == 2);
	CU_ASSERT(!innodb_flags_decode(0x12, &si));             /* full_crc32 ssize 2 */
	CU_ASSERT(!innodb_flags_decode(0xF5, &si));             /* algorithm 7 */
	CU_ASSERT(!innodb_flags_decode(0x21 | (5u << 6), &si)); /* legacy ssize 5 */
	CU_ASSERT(!innodb_flags_decode(0x21 | (6u << 1), &si)); /* zip ssize 6 */
	CU_ASSERT(!innodb_flags_decode(0x21 | (3u << 6) | (4u << 1), &si)); /* zip 8K > page 4K */
	CU_ASSERT(!innodb_flags_decode(0x20, &si));             /* atomic blobs without post-antelope */
	CU_ASSERT(!innodb_flags_decode(0x21 | (1u << 12), &si)); /* reserved bit */
	CU_ASSERT(innodb_flags_decode(0x21 | (1u << 10), &si)); /* bit 10 tolerated */
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void test_legacy_algorithms(void)
{
	/* a real crc32-format page, re-stamped with the other checksums the server accepts */
	size_t len;
	uint8_t *buf = load("t_crc32.pages", &len);
	CU_ASSERT_FATAL(buf != NULL);
	innodb_space_info si;
	CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
	uint8_t *pg = buf + 3 * 16384;
	CU_ASSERT_EQUAL(innodb_checksum_crc32(pg, 16384), (uint32_t)pg[0] << 24 | pg[1] << 16 | pg[2] << 8 | pg[3]);
	/* innodb: new checksum first, old checksum computed after it is stored */
	put32(pg, innodb_checksum_innodb_new(pg, 16384));
	put32(pg + 16384 - 8, innodb_checksum_innodb_old(pg));
	CU_ASSERT(innodb_page_is_valid(pg, &si, 3, true, NULL, 0));
	pg[5000] ^= 1;
	CU_ASSERT(!innodb_page_is_valid(pg, &si, 3, true, NULL, 0));
	pg[5000] ^= 1;
	/* none */
	put32(pg, BUF_NO_CHECKSUM_MAGIC);
	put32(pg + 16384 - 8, BUF_NO_CHECKSUM_MAGIC);
	CU_ASSERT(innodb_page_is_valid(pg, &si, 3, true, NULL, 0));
	/* a garbage trailer checksum is not */
	put32(pg + 16384 - 8, 0x12345678);
	char why[200];
	CU_ASSERT(!innodb_page_is_valid(pg, &si, 3, true, why, sizeof why));
	CU_ASSERT(strstr(why, "trailer field 12345678") != NULL);
	free(buf);

	/* ROW_FORMAT=COMPRESSED accepts the adler32 variant and the magic */
	buf = load("t_zip.pages", &len);
	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
	pg = buf + 3 * 8192;
	put32(pg, innodb_checksum_zip_adler(pg, 8192));
	CU_ASSERT(innodb_page_is_valid(pg, &si, 3, true, NULL, 0));
	put32(pg, BUF_NO_CHECKSUM_MAGIC);
	CU_ASSERT(innodb_page_is_valid(pg, &si, 3, true, NULL, 0));
	put32(pg, 1);
	CU_ASSERT(!innodb_page_is_valid(pg, &si, 3, true, NULL, 0));
	free(buf);
}

static void test_encrypted_without_crypt_data(void)
{
	/* a legacy encrypted page is recognised by its key version even when page 0's
	 * crypt data was not found; its post-encryption checksum still has to match */
	size_t len;
	uint8_t *buf = load("t_enc_legacy.pages", &len);
	CU_ASSERT_FATAL(buf != NULL);
	innodb_space_info si;
	CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
	CU_ASSERT(si.encrypted);
	si.encrypted = false;
	uint8_t *pg = buf + 3 * 16384;
	CU_ASSERT(innodb_page_is_valid(pg, &si, 3, true, NULL, 0));
	pg[9000] ^= 4;
	char why[200];
	CU_ASSERT(!innodb_page_is_valid(pg, &si, 3, true, why, sizeof why));
	CU_ASSERT(strstr(why, "checksum mismatch") != NULL);
	si.encrypted = true;
	CU_ASSERT(!innodb_page_is_valid(pg, &si, 3, true, why, sizeof why));
	CU_ASSERT(strstr(why, "(encrypted page)") != NULL);
	free(buf);
}

static void test_doublewrite_and_lsn(void)
{
	size_t len;
	uint8_t *buf = load("ibdata1.pages", &len);
	CU_ASSERT_FATAL(buf != NULL);
	innodb_space_info si;
	CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
	CU_ASSERT(!innodb_page_in_doublewrite(&si, 63));
	CU_ASSERT(innodb_page_in_doublewrite(&si, 64));
	CU_ASSERT(innodb_page_in_doublewrite(&si, 191));
	CU_ASSERT(!innodb_page_in_doublewrite(&si, 192));
	CU_ASSERT_EQUAL(innodb_extent_pages(4096), 256);
	CU_ASSERT_EQUAL(innodb_extent_pages(8192), 128);
	CU_ASSERT_EQUAL(innodb_extent_pages(65536), 64);
	/* the TRX_SYS page names the doublewrite blocks: 64 and 128 */
	const uint8_t *trx = buf + 5 * 16384 + 16384 - 200;
	CU_ASSERT_EQUAL((uint32_t)trx[14] << 24 | trx[15] << 16 | trx[16] << 8 | trx[17], 64);
	CU_ASSERT_EQUAL((uint32_t)trx[18] << 24 | trx[19] << 16 | trx[20] << 8 | trx[21], 128);
	CU_ASSERT(innodb_page_lsn(buf) > 0);
	CU_ASSERT_EQUAL(innodb_page_no(buf + 7 * 16384), 7);
	si.space_id = 5;
	CU_ASSERT(!innodb_page_in_doublewrite(&si, 64));
	free(buf);
}

/* ---- writing recovered pages (doc/redo-records.md §20) */

/* Every stored page of the plain formats, re-finalized with its own LSN, is
 * byte-identical to what the server wrote: checksum fields, trailer and
 * cleared key-version bytes all come out the same. */
static void test_finalize_identity(void)
{
	const char *files[] = {"t_full.pages", "t_crc32.pages", "t_zip.pages", "ibdata1.pages", "t_pc.pages",
			       "t_pc_legacy.pages"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t len;
		uint8_t *buf = load(files[i], &len);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
		uint32_t ps = si.physical_size;
		/* page_compressed spaces: only page 0 is stored plain */
		uint32_t n = si.page_compressed ? 1 : (uint32_t)(len / ps);
		for (uint32_t p = 0; p < n; p++) {
			const uint8_t *st = buf + (size_t)p * ps;
			uint8_t pg[16384];
			memcpy(pg, st, ps);
			/* wipe what finalize must recompute: checksum field (legacy), trailer */
			if (!si.full_crc32)
				memset(pg, 0x5a, 4);
			if (!si.zip)
				memset(pg + ps - 8, 0xa5, 8);
			innodb_page_finalize(pg, &si, si.space_id, p, innodb_page_lsn(st));
			if (memcmp(pg, st, ps))
				printf("\n    %s page %u differs after finalize", files[i], p);
			CU_ASSERT(!memcmp(pg, st, ps));
		}
		free(buf);
	}
}

/* A new LSN: both LSN copies, the checksum, and nothing else change. */
static void test_finalize_new_lsn(void)
{
	const char *files[] = {"t_full.pages", "t_crc32.pages", "t_zip.pages"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t len;
		uint8_t *buf = load(files[i], &len);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
		uint32_t ps = si.physical_size;
		const uint8_t *st = buf + 3 * (size_t)ps;
		uint8_t pg[16384];
		memcpy(pg, st, ps);
		uint64_t lsn = 0x0000000123456789ull;
		innodb_page_finalize(pg, &si, si.space_id, 3, lsn);
		CU_ASSERT_EQUAL(innodb_page_lsn(pg), lsn);
		char why[200] = "";
		bool ok = innodb_page_is_valid(pg, &si, 3, true, why, sizeof why);
		if (!ok)
			printf("\n    %s: %s", files[i], why);
		CU_ASSERT(ok);
		if (si.full_crc32) {
			CU_ASSERT(!memcmp(pg + ps - 8, "\x23\x45\x67\x89", 4));
		} else if (!si.zip) {
			CU_ASSERT(!memcmp(pg + ps - 4, "\x23\x45\x67\x89", 4));
			CU_ASSERT(!memcmp(pg + ps - 8, pg, 4));
		} else {
			CU_ASSERT(!memcmp(pg + ps - 8, st + ps - 8, 8)); /* compressed frame: no trailer */
		}
		/* the body is untouched */
		CU_ASSERT(!memcmp(pg + 38, st + 38, ps - 38 - (si.zip ? 0 : 8)));
		CU_ASSERT(!memcmp(pg + 4, st + 4, 12));
		free(buf);
	}
}

/* Bytes 0..3 (full_crc32) / 26..33 (legacy) are cleared except on page 0 and
 * the TRX_SYS page of the system tablespace, and except in page_compressed
 * or encrypted tablespaces. */
static void test_finalize_clears_key_version(void)
{
	size_t len;
	uint8_t *buf = load("t_full.pages", &len);
	CU_ASSERT_FATAL(buf != NULL);
	innodb_space_info si;
	CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
	uint8_t pg[16384];
	memcpy(pg, buf + 3 * 16384, 16384);
	put32(pg, 7);
	innodb_page_finalize(pg, &si, si.space_id, 3, innodb_page_lsn(pg));
	CU_ASSERT(!memcmp(pg, buf + 3 * 16384, 16384));
	/* page 0: kept, and covered by the checksum */
	memcpy(pg, buf, 16384);
	put32(pg, 7);
	innodb_page_finalize(pg, &si, si.space_id, 0, innodb_page_lsn(pg));
	CU_ASSERT_EQUAL(pg[3], 7);
	CU_ASSERT(memcmp(pg + 16380, buf + 16380, 4) != 0);
	/* page 5 of space 0 (TRX_SYS) kept, page 5 of another space cleared */
	memcpy(pg, buf + 5 * 16384, 16384);
	put32(pg, 7);
	innodb_page_finalize(pg, &si, 0, 5, innodb_page_lsn(pg));
	CU_ASSERT_EQUAL(pg[3], 7);
	innodb_page_finalize(pg, &si, 12, 5, innodb_page_lsn(pg));
	CU_ASSERT_EQUAL(pg[3], 0);
	CU_ASSERT(!memcmp(pg, buf + 5 * 16384, 16384));
	/* page_compressed / encrypted tablespace: kept */
	innodb_space_info pc = si;
	pc.page_compressed = true;
	memcpy(pg, buf + 3 * 16384, 16384);
	put32(pg, 7);
	innodb_page_finalize(pg, &pc, si.space_id, 3, innodb_page_lsn(pg));
	CU_ASSERT_EQUAL(pg[3], 7);
	innodb_space_info enc = si;
	enc.encrypted = true;
	memcpy(pg, buf + 3 * 16384, 16384);
	put32(pg, 7);
	innodb_page_finalize(pg, &enc, si.space_id, 3, innodb_page_lsn(pg));
	CU_ASSERT_EQUAL(pg[3], 7);
	free(buf);

	/* legacy crc32 and ROW_FORMAT=COMPRESSED: bytes 26..33 */
	const char *files[] = {"t_crc32.pages", "t_zip.pages"};
	for (size_t i = 0; i < 2; i++) {
		buf = load(files[i], &len);
		CU_ASSERT_FATAL(buf != NULL);
		CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
		uint32_t ps = si.physical_size;
		memcpy(pg, buf + 3 * (size_t)ps, ps);
		memset(pg + 26, 0x77, 8);
		innodb_page_finalize(pg, &si, si.space_id, 3, innodb_page_lsn(pg));
		CU_ASSERT(!memcmp(pg, buf + 3 * (size_t)ps, ps));
		/* page 0 keeps them (the system tablespace's flush LSN lives there) */
		memcpy(pg, buf, ps);
		memset(pg + 26, 0x77, 8);
		innodb_page_finalize(pg, &si, si.space_id, 0, innodb_page_lsn(pg));
		CU_ASSERT_EQUAL(pg[30], 0x77);
		CU_ASSERT(innodb_page_is_valid(pg, &si, 0, true, NULL, 0));
		free(buf);
	}
}

/* 16 KiB legacy pages: an impossible page type is reset when written, as the server does. */
static void test_finalize_type_fixup(void)
{
	size_t len;
	uint8_t *buf = load("t_crc32.pages", &len);
	CU_ASSERT_FATAL(buf != NULL);
	innodb_space_info si;
	CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
	uint8_t pg[16384];
	struct {
		uint32_t page_no, space_id, type, want;
	} cases[] = {
		{3, 9, 999, 13},       /* garbage -> UNKNOWN */
		{3, 9, 17855, 17855},  /* index kept */
		{3, 9, 2, 2},          /* undo kept */
		{3, 9, 8, 13},         /* FSP_HDR away from page 0 */
		{3, 9, 9, 13},         /* XDES away from page n*16384 */
		{3, 9, 5, 13},         /* IBUF_BITMAP away from page n*16384+1 */
		{1, 9, 3, 5},          /* page 1 is always the ibuf bitmap */
		{0, 9, 17855, 8},      /* page 0 is the FSP header */
		{16384, 9, 0, 9},      /* page 16384 is an XDES page */
		{16385, 9, 0, 5},
		{5, 0, 17855, 7},      /* TRX_SYS page of the system tablespace */
		{5, 9, 18, 18},        /* instant root elsewhere */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memcpy(pg, buf + 3 * 16384, 16384);
		pg[24] = (uint8_t)(cases[i].type >> 8);
		pg[25] = (uint8_t)cases[i].type;
		put32(pg + 4, cases[i].page_no);
		innodb_page_finalize(pg, &si, cases[i].space_id, cases[i].page_no, 5000);
		uint32_t t = (uint32_t)pg[24] << 8 | pg[25];
		if (t != cases[i].want)
			printf("\n    page %u type %u -> %u, expected %u", cases[i].page_no, cases[i].type, t,
			       cases[i].want);
		CU_ASSERT_EQUAL(t, cases[i].want);
		CU_ASSERT(innodb_page_is_valid(pg, &si, cases[i].page_no, true, NULL, 0));
	}
	free(buf);
	/* not for full_crc32 */
	buf = load("t_full.pages", &len);
	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
	memcpy(pg, buf + 3 * 16384, 16384);
	pg[24] = 0x03;
	pg[25] = 0xe7;
	innodb_page_finalize(pg, &si, si.space_id, 3, 5000);
	CU_ASSERT(pg[24] == 0x03 && pg[25] == 0xe7);
	CU_ASSERT(innodb_page_is_valid(pg, &si, 3, true, NULL, 0));
	free(buf);
}

/* The two halves: set_lsn touches only the LSN fields; prepare_write only the checksum fields. */
static void test_set_lsn_and_prepare(void)
{
	size_t len;
	uint8_t *buf = load("t_crc32.pages", &len);
	CU_ASSERT_FATAL(buf != NULL);
	innodb_space_info si;
	CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, NULL) == 0);
	uint8_t pg[16384];
	memcpy(pg, buf + 4 * 16384, 16384);
	innodb_page_set_lsn(pg, &si, 0x1122334455667788ull);
	CU_ASSERT(!memcmp(pg + 16, "\x11\x22\x33\x44\x55\x66\x77\x88", 8));
	CU_ASSERT(!memcmp(pg + 16384 - 8, "\x11\x22\x33\x44\x55\x66\x77\x88", 8));
	CU_ASSERT(!memcmp(pg, buf + 4 * 16384, 4));
	innodb_page_prepare_write(pg, &si, si.space_id, 4);
	CU_ASSERT(innodb_page_is_valid(pg, &si, 4, true, NULL, 0));
	CU_ASSERT_EQUAL(innodb_page_lsn(pg), 0x1122334455667788ull);
	CU_ASSERT(innodb_page_never_encoded(7, 0));
	CU_ASSERT(innodb_page_never_encoded(0, 5));
	CU_ASSERT(!innodb_page_never_encoded(7, 5));
	CU_ASSERT(!innodb_page_never_encoded(0, 6));
	free(buf);
}

int main(void)
{
	find_fixture_dir();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("page", NULL, NULL);
	CU_add_test(s, "page 0 of every format", test_page0_parse);
	CU_add_test(s, "every fixture page valid", test_all_pages_valid);
	CU_add_test(s, "flipped byte detected", test_flipped_byte);
	CU_add_test(s, "wrong page number detected", test_wrong_page_number);
	CU_add_test(s, "torn page detected", test_torn_page);
	CU_add_test(s, "all-zero page valid", test_zero_page);
	CU_add_test(s, "page 0 errors", test_page0_errors);
	CU_add_test(s, "flags decoding", test_flags_decode);
	CU_add_test(s, "legacy innodb/none/adler checksums", test_legacy_algorithms);
	CU_add_test(s, "encrypted page without crypt data", test_encrypted_without_crypt_data);
	CU_add_test(s, "doublewrite area and accessors", test_doublewrite_and_lsn);
	CU_add_test(s, "finalize reproduces stored pages", test_finalize_identity);
	CU_add_test(s, "finalize with a new LSN", test_finalize_new_lsn);
	CU_add_test(s, "finalize clears the key version", test_finalize_clears_key_version);
	CU_add_test(s, "finalize resets impossible page types", test_finalize_type_fixup);
	CU_add_test(s, "set_lsn and prepare_write", test_set_lsn_and_prepare);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
