/*
 * page.h - InnoDB tablespace pages: page 0 parsing and page validation.
 *
 * A tablespace file is an array of pages of its physical size. Page 0 carries
 * the FSP header whose flags tell the layout (full_crc32 or legacy), the
 * logical and physical page size, ROW_FORMAT=COMPRESSED and page_compressed.
 * innodb_page0_parse() detects all that and validates page 0;
 * innodb_page_is_valid() then checks any page of the file the way a copying
 * tool must: the checksum of the tablespace's format, the two LSN copies
 * (a torn read shows up there), all-zero pages accepted, and optionally the
 * page-number field. Encrypted pages are checked with their post-encryption
 * checksum, so no keys are needed. Nothing here does I/O.
 */
#ifndef XB_INNODB_PAGE_H
#define XB_INNODB_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* FIL header / FSP header offsets (doc/pages.md §1, §3). */
#define FIL_PAGE_SPACE_OR_CHKSUM 0
#define FIL_PAGE_OFFSET 4
#define FIL_PAGE_LSN 16
#define FIL_PAGE_TYPE 24
#define FIL_PAGE_KEY_VERSION 26 /* legacy encrypted pages: key version, then checksum at 30 */
#define FIL_PAGE_SPACE_ID 34
#define FIL_PAGE_DATA 38
#define FSP_SPACE_ID 38
#define FSP_SIZE 46
#define FSP_FREE_LIMIT 50
#define FSP_SPACE_FLAGS 54

#define FIL_PAGE_TYPE_FSP_HDR 8
#define FIL_PAGE_INDEX 17855
#define FIL_PAGE_PAGE_COMPRESSED 34354
#define FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED 37401
#define BUF_NO_CHECKSUM_MAGIC 0xDEADBEEFu

#define INNODB_PAGE_SIZE_MIN 1024u   /* smallest physical size (1 KiB compressed) */
#define INNODB_PAGE_SIZE_MAX 65536u  /* largest logical size */

typedef struct innodb_space_info {
	uint32_t space_id;      /* FSP_SPACE_ID of page 0 */
	uint32_t flags;         /* FSP_SPACE_FLAGS */
	uint32_t logical_size;  /* innodb page size */
	uint32_t physical_size; /* bytes per page in the file (zip size for ROW_FORMAT=COMPRESSED) */
	bool full_crc32;        /* full_crc32 layout */
	bool zip;               /* ROW_FORMAT=COMPRESSED */
	bool page_compressed;   /* page_compressed tablespace */
	uint32_t fsp_size;      /* FSP_SIZE in pages */
	uint32_t free_limit;    /* FSP_FREE_LIMIT: pages from here on were never initialised */
	bool encrypted;         /* page 0 has crypt data of an encrypting scheme (legacy key-version pages) */
	uint32_t compression_algo; /* full_crc32 page_compressed algorithm (1 zlib ... 6 snappy), 0 none */
} innodb_space_info;

/* Decode FSP_SPACE_FLAGS into the size/format fields of *out (space_id,
 * fsp_size, free_limit and encrypted are left alone). Returns false for flags
 * no 10.11 server writes (bad page size, zip size larger than the page...). */
bool innodb_flags_decode(uint32_t flags, innodb_space_info *out);

/* The space id and the physical page size a tablespace file's first bytes
 * give (head: at least FSP_SPACE_FLAGS + 4 bytes of page 0, unchecked), for
 * the backup manifest: flags no server writes (an unwritten page 0 of
 * zeros, or a file that is not a tablespace) give fallback as the page
 * size. False when head is too short. */
bool innodb_page0_head(const uint8_t *head, size_t len, uint32_t fallback, uint32_t *space_id, uint32_t *physical);

/* Parse page 0 (buf holds at least the first physical page; len = bytes
 * available; page size is detected from the flags as in doc/pages.md §3.4 and page 0
 * is validated with its checksum). Errors: XB_E_CORRUPT_PAGE with a message
 * naming what is wrong (the caller prefixes the file name). */
int innodb_page0_parse(const uint8_t *buf, size_t len, innodb_space_info *out, xb_error *err);

/* Validate one page as a copying tool must (doc/pages.md §4.6-§4.8 including torn-page
 * detection: checksum per format, LSN copies agree, all-zero pages valid,
 * page-number field must equal expected_page_no when check_page_no). Returns
 * true if valid; otherwise false and a short reason in why (may be NULL).
 * page holds si->physical_size bytes. Handles full_crc32, crc32 (and the
 * non-strict legacy innodb/none checksums as the server accepts them),
 * ROW_FORMAT=COMPRESSED, page_compressed (full_crc32: checksum over the
 * compressed size; legacy page_compressed pages are accepted without a
 * checksum, which needs decompression) and encrypted pages (checksum over the
 * ciphertext). Thread-safe, no allocation. */
bool innodb_page_is_valid(const uint8_t *page, const innodb_space_info *si, uint32_t expected_page_no,
			  bool check_page_no, char *why, size_t whylen);

/* innodb_page_is_valid() for each page of a run: buf holds len bytes (whole
 * pages of si->physical_size), the first being page first_no; page numbers
 * are checked, the system tablespace's doublewrite area is not. true when all are valid; else false with the first invalid
 * page's number in *bad_no and the reason in why. */
bool innodb_pages_valid(const uint8_t *buf, size_t len, uint64_t first_no, const innodb_space_info *si,
			uint64_t *bad_no, char *why, size_t whylen);

/* FIL_PAGE_LSN of a page (bytes 16..23). */
uint64_t innodb_page_lsn(const uint8_t *page);

/* Page number field (bytes 4..7). */
uint32_t innodb_page_no(const uint8_t *page);

/* True when page_no of the system tablespace (space 0) lies in the doublewrite
 * buffer area, pages FSP_EXTENT_SIZE .. 3*FSP_EXTENT_SIZE-1 (64..191 for
 * 16 KiB pages), which a copier does not validate. False for other spaces. */
bool innodb_page_in_doublewrite(const innodb_space_info *si, uint32_t page_no);

/* Pages per extent for a logical page size (64 for >= 16 KiB, 1 MiB worth below). */
uint32_t innodb_extent_pages(uint32_t logical_size);

/* The checksums, exposed for tests and tools (page = one physical page). */
uint32_t innodb_checksum_crc32(const uint8_t *page, uint32_t size);      /* legacy crc32 */
uint32_t innodb_checksum_innodb_new(const uint8_t *page, uint32_t size); /* "innodb", field 0..3 */
uint32_t innodb_checksum_innodb_old(const uint8_t *page);                /* "innodb", trailer field */
uint32_t innodb_checksum_zip(const uint8_t *page, uint32_t size);        /* ROW_FORMAT=COMPRESSED crc32 */
uint32_t innodb_checksum_zip_adler(const uint8_t *page, uint32_t size);  /* ROW_FORMAT=COMPRESSED innodb */

/* ---- writing a recovered page (doc/redo-records.md §10.4, §20)
 *
 * After redo has been applied to a page it is written the way the server's
 * flush writes it, so that a prepared datafile is byte-identical to one
 * prepared by the server's own recovery. That is two steps: recovery stamps
 * the LSN (innodb_page_set_lsn), the flush fixes up the frame and computes the
 * checksum (innodb_page_prepare_write); innodb_page_finalize does both.
 * page_compressed pages that end up compressed are written by pagecomp.h,
 * which uses these. Encrypted tablespaces are not handled (the caller refuses
 * them: re-encryption needs the keys). */

/* Recovery's LSN stamp: FIL_PAGE_LSN := lsn and, except for
 * ROW_FORMAT=COMPRESSED frames, lsn also in the last 8 bytes of the page. */
void innodb_page_set_lsn(uint8_t *page, const innodb_space_info *si, uint64_t lsn);

/* True for the pages that are never encrypted nor page_compressed and keep
 * bytes 0..3 / 26..33 as they are: page 0 of every tablespace and the TRX_SYS
 * page (page 5) of the system tablespace. */
bool innodb_page_never_encoded(uint32_t space_id, uint32_t page_no);

/* What the server's flush does to a page frame before writing it (doc/redo-records.md §20
 * steps 2-3), the LSN fields left as they are: unless the tablespace is
 * page_compressed or encrypted and unless innodb_page_never_encoded(), clear
 * bytes 0..3 (full_crc32) or 26..33 (legacy); then by format:
 *   full_crc32  bytes 20..23 copied to [size-8, size-4), CRC-32C of
 *               [0, size-4) in the last 4 bytes;
 *   crc32       FIL_PAGE_LSN copied to the last 8 bytes, for 16 KiB pages an
 *               impossible page type replaced as the server does, then the
 *               crc32 checksum at 0..3 and at size-8;
 *   ROW_FORMAT=COMPRESSED  the zip checksum at 0..3, the trailer untouched.
 * page: si->physical_size bytes. For a page_compressed tablespace this is the
 * form of a page that is stored uncompressed. */
void innodb_page_prepare_write(uint8_t *page, const innodb_space_info *si, uint32_t space_id, uint32_t page_no);

/* innodb_page_set_lsn() then innodb_page_prepare_write(): the bytes to write
 * for a recovered page (doc/redo-records.md §20.1-§20.3). page: si->physical_size bytes.
 * For page_compressed tablespaces use pagecomp_write_image() instead, which
 * decides whether the page is stored compressed. */
void innodb_page_finalize(uint8_t *page, const innodb_space_info *si, uint32_t space_id, uint32_t page_no,
			  uint64_t lsn);

#endif
