/*
 * page.c - page 0 parsing and page validation (see page.h, doc/pages.md §1-§6).
 *
 * Validation order for one page: an all-zero page is valid (never written);
 * then the page-number field (cheap, catches reads at the wrong offset and
 * most torn reads); then the format's checks, LSN copies before checksums so
 * that a torn page is reported as such:
 *   full_crc32  one CRC-32C over [0, size-4) (or [0, csize-4) for a
 *               page_compressed page, csize taken from the type field); LSN
 *               copy in the trailer for plain pages (not encrypted/compressed);
 *   legacy      LSN low half copied in the last 4 bytes; crc32 (two CRCs
 *               XORed) in both checksum fields, or, as the server does when
 *               not strict, the old "innodb" fold checksums or 0xDEADBEEF;
 *               ROW_FORMAT=COMPRESSED pages use the zip formula (three CRCs
 *               XORed) and have no trailer; encrypted pages carry a
 *               post-encryption checksum at 30..33; page_compressed pages
 *               carry none (they can only be checked after decompression).
 * At the end: preparing a recovered page for writing as the server's flush
 * does (LSN stamp, key-version clearing, legacy type fix-up, checksum).
 */
#include "page.h"

#include <zlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/bytes.h"
#include "crc32c.h"

/* Crypt data magic on page 0 (doc/pages.md §6.1). */
static const uint8_t crypt_magic[6] = {0x73, 0x0E, 0x0C, 0x52, 0x45, 0x74};

__attribute__((format(printf, 3, 4))) static bool invalid(char *why, size_t whylen, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool is_zero(const uint8_t *p, size_t n)
{
	/* word at a time: the caller only gets here for pages that start with zeros */
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		if (w)
			return false;
		p += 8;
		n -= 8;
	}
	while (n--)
		if (*p++)
			return false;
	return true;
}

uint64_t innodb_page_lsn(const uint8_t *page)
{
	return be64_get(page + FIL_PAGE_LSN);
}

uint32_t innodb_page_no(const uint8_t *page)
{
	return be32_get(page + FIL_PAGE_OFFSET);
}

uint32_t innodb_extent_pages(uint32_t logical_size)
{
	return logical_size < 16384 ? 1048576u / logical_size : 64u;
}

bool innodb_page_in_doublewrite(const innodb_space_info *si, uint32_t page_no)
{
	if (si->space_id != 0)
		return false;
	uint32_t ext = innodb_extent_pages(si->logical_size);
	return page_no >= ext && page_no < 3 * ext;
}

/* ---- checksums */

uint32_t innodb_checksum_crc32(const uint8_t *page, uint32_t size)
{
	return crc32c(page + 4, 22) ^ crc32c(page + FIL_PAGE_DATA, size - FIL_PAGE_DATA - 8);
}

uint32_t innodb_checksum_zip(const uint8_t *page, uint32_t size)
{
	return crc32c(page + 4, 12) ^ crc32c(page + FIL_PAGE_TYPE, 2) ^
	       crc32c(page + FIL_PAGE_SPACE_ID, size - FIL_PAGE_SPACE_ID);
}

/* Adler-32 (zlib's) continued over n more bytes. */
static uint32_t adler32_update(uint32_t adler, const uint8_t *p, size_t n)
{
	return (uint32_t)adler32(adler, p, (uInt)n);
}

uint32_t innodb_checksum_zip_adler(const uint8_t *page, uint32_t size)
{
	uint32_t a = adler32_update(1, page + 4, 12);
	a = adler32_update(a, page + FIL_PAGE_TYPE, 2);
	return adler32_update(a, page + FIL_PAGE_SPACE_ID, size - FIL_PAGE_SPACE_ID);
}

/* The "innodb" fold of doc/pages.md §4.3, modulo 2^32. */
static uint32_t fold_bytes(const uint8_t *p, size_t n)
{
	uint32_t f = 0;
	while (n--) {
		uint32_t b = *p++;
		f = ((((f ^ b ^ 1653893711u) << 8) + f) ^ 1463735687u) + b;
	}
	return f;
}

uint32_t innodb_checksum_innodb_new(const uint8_t *page, uint32_t size)
{
	return fold_bytes(page + 4, 22) + fold_bytes(page + FIL_PAGE_DATA, size - FIL_PAGE_DATA - 8);
}

uint32_t innodb_checksum_innodb_old(const uint8_t *page)
{
	return fold_bytes(page, 26);
}

/* ---- flags */

bool innodb_page0_head(const uint8_t *head, size_t len, uint32_t fallback, uint32_t *space_id, uint32_t *physical)
{
	if (len < FSP_SPACE_FLAGS + 4)
		return false;
	innodb_space_info si;
	memset(&si, 0, sizeof si);
	uint32_t flags = be32_get(head + FSP_SPACE_FLAGS);
	*space_id = be32_get(head + FIL_PAGE_SPACE_ID);
	*physical = flags && innodb_flags_decode(flags, &si) && si.physical_size ? si.physical_size : fallback;
	return true;
}

bool innodb_flags_decode(uint32_t flags, innodb_space_info *out)
{
	if (flags & 0x10) { /* full_crc32 */
		uint32_t ssize = flags & 15, algo = (flags >> 5) & 7;
		if (ssize < 3 || ssize > 7 || algo > 6 || (flags & ~0x1FFu))
			return false;
		out->full_crc32 = true;
		out->zip = false;
		out->logical_size = out->physical_size = 512u << ssize;
		out->page_compressed = algo != 0;
		out->compression_algo = algo;
	} else {
		uint32_t zip_ssize = (flags >> 1) & 15, page_ssize = (flags >> 6) & 15;
		uint32_t logical;
		if (page_ssize == 0)
			logical = 16384;
		else if (page_ssize >= 3 && page_ssize <= 7 && page_ssize != 5)
			logical = 512u << page_ssize;
		else
			return false;
		if ((flags & 0x20) && !(flags & 1)) /* ATOMIC_BLOBS needs POST_ANTELOPE */
			return false;
		if ((flags >> 11) & 0x1F) /* reserved bits 11..15 (bit 10 tolerated) */
			return false;
		if (flags >> 17)
			return false;
		uint32_t physical = logical;
		if (zip_ssize) {
			if (zip_ssize > 5 || (512u << zip_ssize) > logical)
				return false;
			physical = 512u << zip_ssize;
		}
		out->full_crc32 = false;
		out->zip = zip_ssize != 0;
		out->logical_size = logical;
		out->physical_size = physical;
		out->page_compressed = (flags >> 16) & 1;
		out->compression_algo = 0;
	}
	out->flags = flags;
	return true;
}

/* Offset of the crypt data on page 0 (doc/pages.md §6.1). */
static uint32_t crypt_data_offset(const innodb_space_info *si)
{
	uint32_t ext = innodb_extent_pages(si->logical_size);
	uint32_t xdes_size = 24 + 2 * ext / 8;
	return FIL_PAGE_DATA + 150 + xdes_size * (si->physical_size / ext);
}

int innodb_page0_parse(const uint8_t *buf, size_t len, innodb_space_info *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	if (len < FSP_SPACE_FLAGS + 4)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page 0 is truncated: %zu bytes", len);
	uint32_t flags = be32_get(buf + FSP_SPACE_FLAGS);
	if (!innodb_flags_decode(flags, out))
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page 0 has invalid tablespace flags 0x%x", flags);
	if (len < out->physical_size)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page 0 is truncated: %zu of %u bytes", len,
				  out->physical_size);
	if (is_zero(buf, out->physical_size))
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page 0 is all zero (tablespace being created?)");
	out->space_id = be32_get(buf + FSP_SPACE_ID);
	char why[160];
	if (!innodb_page_is_valid(buf, out, 0, true, why, sizeof why))
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page 0 is corrupt: %s", why);
	if (be32_get(buf + FIL_PAGE_SPACE_ID) != out->space_id)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page 0 has space id %u in the page header but %u in the FSP header",
				  be32_get(buf + FIL_PAGE_SPACE_ID), out->space_id);
	out->fsp_size = be32_get(buf + FSP_SIZE);
	out->free_limit = be32_get(buf + FSP_FREE_LIMIT);
	uint32_t co = crypt_data_offset(out);
	if (co + 7 <= out->physical_size && !memcmp(buf + co, crypt_magic, sizeof crypt_magic))
		out->encrypted = buf[co + 6] != 0;
	return 0;
}

/* ---- validation */

static bool valid_full_crc32(const uint8_t *p, uint32_t size, char *why, size_t wl)
{
	uint32_t type = be16_get(p + FIL_PAGE_TYPE);
	uint32_t end = size;
	bool compressed = type & 0x8000;
	if (compressed) {
		end = (type & 0x7FFF) << 8;
		if (end < 256 || end >= size)
			return invalid(why, wl, "bad compressed size %u in the page type field (page size %u)", end, size);
	} else if (be32_get(p) == 0 && memcmp(p + FIL_PAGE_LSN + 4, p + size - 8, 4)) {
		return invalid(why, wl, "lsn mismatch: header low half %08x, trailer %08x (torn page)",
			       be32_get(p + FIL_PAGE_LSN + 4), be32_get(p + size - 8));
	}
	uint32_t stored = be32_get(p + end - 4), calc = crc32c(p, end - 4);
	if (stored != calc)
		return invalid(why, wl, "checksum mismatch: stored %08x, computed %08x (full_crc32%s)", stored, calc,
			       compressed ? ", page_compressed" : "");
	return true;
}

static bool valid_zip(const uint8_t *p, uint32_t size, uint32_t stored, char *why, size_t wl)
{
	uint32_t calc = innodb_checksum_zip(p, size);
	if (stored == calc || stored == BUF_NO_CHECKSUM_MAGIC || stored == innodb_checksum_zip_adler(p, size))
		return true;
	return invalid(why, wl, "checksum mismatch: stored %08x, computed %08x (row_format=compressed)", stored, calc);
}

/* Legacy encrypted page: post-encryption checksum at 30..33 (doc/pages.md §6.2). */
static bool valid_legacy_encrypted(const uint8_t *p, const innodb_space_info *si, char *why, size_t wl)
{
	uint32_t size = si->physical_size;
	uint32_t stored = be32_get(p + FIL_PAGE_KEY_VERSION + 4);
	uint32_t calc = si->zip ? innodb_checksum_zip(p, size) : innodb_checksum_crc32(p, size);
	if (stored != calc)
		return invalid(why, wl, "checksum mismatch: stored %08x, computed %08x (encrypted page)", stored, calc);
	return true;
}

/* Legacy page in clear: crc32, or as the server accepts when not strict, innodb/none. */
static bool valid_legacy_plain(const uint8_t *p, const innodb_space_info *si, char *why, size_t wl)
{
	uint32_t size = si->physical_size;
	if (si->zip)
		return valid_zip(p, size, be32_get(p), why, wl);
	uint32_t f1 = be32_get(p), f2 = be32_get(p + size - 8);
	if (f1 == 0 && f2 == 0 && is_zero(p, 26) && is_zero(p + 34, size - 34))
		return true;
	if (f1 == BUF_NO_CHECKSUM_MAGIC && f2 == BUF_NO_CHECKSUM_MAGIC)
		return true;
	uint32_t crc = 0;
	bool have_crc = false;
	/* old field (trailer): crc32 or innodb, unless it holds the LSN (very old format) or the magic */
	if (f2 != be32_get(p + FIL_PAGE_LSN) && f2 != BUF_NO_CHECKSUM_MAGIC) {
		crc = innodb_checksum_crc32(p, size);
		have_crc = true;
		if (f2 != crc && f2 != innodb_checksum_innodb_old(p))
			return invalid(why, wl, "checksum mismatch: trailer field %08x, computed %08x (crc32)", f2, crc);
	}
	if (f1 == 0 || f1 == BUF_NO_CHECKSUM_MAGIC)
		return true;
	if (!have_crc)
		crc = innodb_checksum_crc32(p, size);
	if (f1 != crc && f1 != innodb_checksum_innodb_new(p, size))
		return invalid(why, wl, "checksum mismatch: stored %08x, computed %08x (crc32)", f1, crc);
	return true;
}

static bool valid_legacy(const uint8_t *p, const innodb_space_info *si, char *why, size_t wl)
{
	uint32_t size = si->physical_size;
	uint32_t type = be16_get(p + FIL_PAGE_TYPE);
	if (si->page_compressed && (type == FIL_PAGE_PAGE_COMPRESSED || type == FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED))
		return true; /* no checksum before decompression (doc/pages.md §4.7 rule 1) */
	if (!si->zip && memcmp(p + FIL_PAGE_LSN + 4, p + size - 4, 4))
		return invalid(why, wl, "lsn mismatch: header low half %08x, trailer %08x (torn page)",
			       be32_get(p + FIL_PAGE_LSN + 4), be32_get(p + size - 4));
	/* a key version on a page other than 0 means encrypted, when page 0 says the space is */
	bool key_version = be32_get(p + FIL_PAGE_KEY_VERSION) && be32_get(p + FIL_PAGE_OFFSET);
	if (key_version && si->encrypted)
		return valid_legacy_encrypted(p, si, why, wl);
	if (valid_legacy_plain(p, si, why, wl))
		return true;
	/* page 0 without (recognised) crypt data but an encrypted page: accept its own checksum */
	return key_version && valid_legacy_encrypted(p, si, NULL, 0);
}

bool innodb_page_is_valid(const uint8_t *page, const innodb_space_info *si, uint32_t expected_page_no,
			  bool check_page_no, char *why, size_t whylen)
{
	uint32_t size = si->physical_size;
	if (why && whylen)
		why[0] = 0;
	if (size < INNODB_PAGE_SIZE_MIN || size > INNODB_PAGE_SIZE_MAX)
		return invalid(why, whylen, "bad page size %u", size);
	/* never-written page: all zero (legacy non-zip: except the flush-LSN field 26..33) */
	if (is_zero(page, 26) && is_zero(page + 34, size - 34) &&
	    (!si->full_crc32 && !si->zip ? true : is_zero(page + 26, 8)))
		return true;
	if (check_page_no && be32_get(page + FIL_PAGE_OFFSET) != expected_page_no)
		return invalid(why, whylen, "page number field is %u, expected %u", be32_get(page + FIL_PAGE_OFFSET),
			       expected_page_no);
	if (si->full_crc32)
		return valid_full_crc32(page, size, why, whylen);
	return valid_legacy(page, si, why, whylen);
}

bool innodb_pages_valid(const uint8_t *buf, size_t len, uint64_t first_no, const innodb_space_info *si,
			uint64_t *bad_no, char *why, size_t whylen)
{
	uint32_t ps = si->physical_size;
	for (size_t off = 0; ps && off + ps <= len; off += ps) {
		uint64_t no = first_no + off / ps;
		if (si->space_id == 0 && innodb_page_in_doublewrite(si, (uint32_t)no))
			continue; /* the doublewrite buffer holds copies of other pages */
		if (!innodb_page_is_valid(buf + off, si, (uint32_t)no, true, why, whylen)) {
			*bad_no = no;
			return false;
		}
	}
	return true;
}

/* ---- writing a recovered page (doc/redo-records.md §20) */

void innodb_page_set_lsn(uint8_t *page, const innodb_space_info *si, uint64_t lsn)
{
	be64_put(page + FIL_PAGE_LSN, lsn);
	if (!si->zip)
		be64_put(page + si->physical_size - 8, lsn);
}

bool innodb_page_never_encoded(uint32_t space_id, uint32_t page_no)
{
	return page_no == 0 || (space_id == 0 && page_no == 5);
}

/* The type a 16 KiB legacy page is given when its stored type is impossible
 * for its page number (pages of files from before MySQL 5.5 may carry
 * garbage there); the page keeps its type when it is plausible. */
static uint32_t legacy_reset_type(uint32_t type, uint32_t space_id, uint32_t page_no)
{
	switch (page_no % 16384) {
	case 0:
		return page_no == 0 ? 8 : 9; /* FSP_HDR, XDES */
	case 1:
		return 5; /* IBUF_BITMAP */
	case 5:
		if (space_id == 0 && page_no == 5)
			return 7; /* TRX_SYS */
		break;
	}
	switch (type) {
	case 0:     /* ALLOCATED */
	case 2:     /* UNDO_LOG */
	case 3:     /* INODE */
	case 4:     /* IBUF_FREE_LIST */
	case 6:     /* SYS */
	case 7:     /* TRX_SYS */
	case 10:    /* BLOB */
	case 11:    /* ZBLOB */
	case 12:    /* ZBLOB2 */
	case 18:    /* INSTANT */
	case 17854: /* RTREE */
	case 17855: /* INDEX */
		return type;
	default:
		return 13; /* UNKNOWN */
	}
}

void innodb_page_prepare_write(uint8_t *page, const innodb_space_info *si, uint32_t space_id, uint32_t page_no)
{
	uint32_t size = si->physical_size;
	/* buf_page_encrypt clears the key version (and legacy post-encryption
	 * checksum) of pages that will be written neither encrypted nor compressed */
	if (!innodb_page_never_encoded(space_id, page_no) && !si->page_compressed && !si->encrypted) {
		if (si->full_crc32)
			memset(page + FIL_PAGE_SPACE_OR_CHKSUM, 0, 4);
		else
			memset(page + FIL_PAGE_KEY_VERSION, 0, 8);
	}
	if (si->zip) {
		be32_put(page + FIL_PAGE_SPACE_OR_CHKSUM, innodb_checksum_zip(page, size));
		return;
	}
	if (si->full_crc32) {
		memcpy(page + size - 8, page + FIL_PAGE_LSN + 4, 4);
		be32_put(page + size - 4, crc32c(page, size - 4));
		return;
	}
	memcpy(page + size - 8, page + FIL_PAGE_LSN, 8);
	if (si->logical_size == 16384) {
		uint32_t type = be16_get(page + FIL_PAGE_TYPE);
		uint32_t reset = legacy_reset_type(type, space_id, page_no);
		if (reset != type)
			be16_put(page + FIL_PAGE_TYPE, reset);
	}
	uint32_t c = innodb_checksum_crc32(page, size);
	be32_put(page + FIL_PAGE_SPACE_OR_CHKSUM, c);
	be32_put(page + size - 8, c);
}

void innodb_page_finalize(uint8_t *page, const innodb_space_info *si, uint32_t space_id, uint32_t page_no,
			  uint64_t lsn)
{
	innodb_page_set_lsn(page, si, lsn);
	innodb_page_prepare_write(page, si, space_id, page_no);
}
