/*
 * pagecomp.h - page_compressed tablespaces: reading and writing compressed pages.
 *
 * In a page_compressed tablespace (PAGE_COMPRESSED=1) each page is stored
 * either as it is or, when that is smaller, as a compressed image of the whole
 * page followed by zeros (doc/pages.md §5). Two layouts exist: full_crc32 (algorithm
 * in flags bits 5..7; the type field holds a marker and the rounded-up image
 * size, CRC-32C at its end) and legacy (flag bit 16; page type 34354, the
 * algorithm in bytes 26..33, the stream length at 38, no checksum).
 * Redo applies to the decompressed page (pagecomp_decompress); after apply the
 * page is compressed again exactly as the server's flush does
 * (pagecomp_write_image), so prepared datafiles stay byte-identical to the
 * server's. Only zlib is built in (system zlib, compress2 at the level);
 * lz4, lzo, lzma, bzip2 and snappy pages are refused with a clear error.
 * Pure functions on memory, thread-safe.
 */
#ifndef XB_INNODB_PAGECOMP_H
#define XB_INNODB_PAGECOMP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "innodb/page.h"

/* Algorithm numbers as in the full_crc32 flags and the legacy page header. */
enum pagecomp_algo {
	PAGECOMP_NONE = 0,
	PAGECOMP_ZLIB = 1,
	PAGECOMP_LZ4 = 2,
	PAGECOMP_LZO = 3,
	PAGECOMP_LZMA = 4,
	PAGECOMP_BZIP2 = 5,
	PAGECOMP_SNAPPY = 6,
};

/* The server's default innodb_compression_level (used when level is 0). */
#define PAGECOMP_DEFAULT_LEVEL 6

/* "zlib", "lz4", ... ("unknown" past snappy). */
const char *pagecomp_algo_name(uint32_t algo);

/* True when this build can decompress and compress pages of that algorithm. */
bool pagecomp_algo_supported(uint32_t algo);

/* The algorithm pagecomp_write_image() compresses with: the full_crc32 flags'
 * one; for the legacy layout, whose flags do not name it, si->compression_algo
 * when the caller has set it (e.g. to what the stored pages use), else zlib,
 * the server's default innodb_compression_algorithm. */
uint32_t pagecomp_write_algo(const innodb_space_info *si);

/* True when a stored page (as read from the file, si->physical_size bytes) is
 * in compressed form: the tablespace is page_compressed and the page carries
 * the full_crc32 marker (type bit 15) or the legacy type 34354 / 37401. */
bool pagecomp_is_compressed(const uint8_t *stored, const innodb_space_info *si);

/* The algorithm a stored page was compressed with: the flags' for
 * full_crc32, the page header's for legacy; PAGECOMP_NONE for a page not in
 * compressed form or a legacy encrypted one (its header is not readable). */
uint32_t pagecomp_stored_algo(const uint8_t *stored, const innodb_space_info *si);

/* Decompress a stored page into out (si->logical_size bytes, not overlapping
 * stored); the result is the full original page (real page type, LSN,
 * trailer). A page that is not in compressed form is copied as it is
 * (si->physical_size bytes). Checks: full_crc32 the CRC-32C of the compressed
 * image, legacy the 0xDEADBEEF marker and, after decompression, the page's
 * own checksum; both that the stream inflates to exactly one page and that the
 * result is page page_no. Errors, all XB_E_CORRUPT_PAGE with a message naming
 * page_no and the reason (the caller prefixes the file): bad data, an
 * encrypted page (type 37401), an algorithm this build lacks ("page_compressed
 * algorithm lz4 is not supported", with a hint). */
int pagecomp_decompress(const uint8_t *stored, uint8_t *out, const innodb_space_info *si, uint32_t page_no,
			xb_error *err);

/* The server's flush of a page of a page_compressed tablespace, the LSN
 * fields left as they are in page (logical size; modified the way the flush
 * modifies the buffer-pool frame). out (si->physical_size bytes, not
 * overlapping page) receives the bytes to write:
 *   - page 0, the TRX_SYS page of space 0 and pages of type 0 (allocated),
 *     FSP_HDR, XDES are never compressed;
 *   - full_crc32: bytes 20..23 are copied to [size-8, size-4), the whole
 *     page is compressed at level (0: PAGECOMP_DEFAULT_LEVEL) and laid out as
 *     in doc/pages.md §5 with its CRC-32C, zeros to the end of the page;
 *   - legacy: the page is first given its crc32 checksum
 *     (innodb_page_prepare_write), then compressed and laid out with type
 *     34354, 0xDEADBEEF, the algorithm and the stream length, zeros after;
 *   - when the compressed form would not be smaller than the page (or is not
 *     compressed for a reason above) out is the page after
 *     innodb_page_prepare_write(), its normal checksum.
 * For a tablespace that is not page_compressed this is
 * innodb_page_prepare_write() and a copy. Returns 0; XB_E_CORRUPT_PAGE when
 * the page would be compressed with an algorithm this build lacks (out is not
 * written then), XB_E_INTERNAL for a level outside 0..9 or an impossible
 * tablespace description. */
int pagecomp_flush_image(uint8_t *page, uint8_t *out, const innodb_space_info *si, uint32_t space_id,
			 uint32_t page_no, int level, xb_error *err);

/* The bytes to write for a recovered page of a page_compressed tablespace:
 * innodb_page_set_lsn(page, si, lsn) (recovery's LSN stamp, doc/redo-records.md
 * §10.4) then pagecomp_flush_image(). Same arguments and errors. */
int pagecomp_write_image(uint8_t *page, uint8_t *out, const innodb_space_info *si, uint32_t space_id,
			 uint32_t page_no, uint64_t lsn, int level, xb_error *err);

#endif
