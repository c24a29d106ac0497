/*
 * pagecomp.c - page_compressed pages: decompression on read, the server's
 * compression on write (see pagecomp.h, doc/redo-records.md §21 and doc/pages.md §5).
 *
 * Reading: a full_crc32 compressed page is recognised by bit 15 of its type
 * field, whose low 15 bits are the image size in 256-byte units; its CRC-32C
 * sits in the last 4 bytes of the image and the zlib stream starts at byte 26.
 * A legacy one has type 34354, 0xDEADBEEF in place of a checksum, the
 * algorithm in bytes 32..33 and the stream length at 38; the stream starts at
 * 40. Either stream inflates to the complete original page.
 *
 * Writing follows the server's flush: pages the server never compresses are
 * given their normal checksum; others are compressed whole with compress2()
 * into a scratch area after the header; the image is kept only if it fits the
 * page (legacy) or if its size rounded up to 256 bytes, CRC included, is
 * smaller than the page (full_crc32). The uncompressed page that goes into the
 * compressor is the buffer-pool frame as the server has it at that moment: for
 * full_crc32 with only the LSN copy at size-8 refreshed (its last 4 bytes are
 * whatever the frame holds), for legacy already checksummed.
 */
#include "pagecomp.h"

#include <string.h>
#include <zlib.h>

#include "common/bytes.h"
#include "crc32c.h"

#define FCRC32_STREAM 26  /* full_crc32: the stream follows the (marker, size) type field */
#define LEGACY_STREAM 40  /* legacy: FIL header, then the 2-byte stream length */
#define LEGACY_LEN 38     /* legacy: offset of the stream length */
#define LEGACY_ALGO 26    /* legacy: 8-byte algorithm field (FIL_PAGE_FILE_FLUSH_LSN position) */
#define FCRC32_MARKER 0x8000u

const char *pagecomp_algo_name(uint32_t algo)
{
	static const char *const names[] = {"none", "zlib", "lz4", "lzo", "lzma", "bzip2", "snappy"};
	return algo < sizeof names / sizeof names[0] ? names[algo] : "unknown";
}

bool pagecomp_algo_supported(uint32_t algo)
{
	return algo == PAGECOMP_ZLIB;
}

uint32_t pagecomp_write_algo(const innodb_space_info *si)
{
	if (si->full_crc32)
		return si->compression_algo;
	return si->compression_algo ? si->compression_algo : PAGECOMP_ZLIB;
}

bool pagecomp_is_compressed(const uint8_t *stored, const innodb_space_info *si)
{
	if (!si->page_compressed)
		return false;
	uint32_t type = be16_get(stored + FIL_PAGE_TYPE);
	if (si->full_crc32)
		return (type & FCRC32_MARKER) != 0;
	return type == FIL_PAGE_PAGE_COMPRESSED || type == FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED;
}

uint32_t pagecomp_stored_algo(const uint8_t *stored, const innodb_space_info *si)
{
	if (!pagecomp_is_compressed(stored, si))
		return PAGECOMP_NONE;
	if (si->full_crc32)
		return si->compression_algo;
	if (be16_get(stored + FIL_PAGE_TYPE) != FIL_PAGE_PAGE_COMPRESSED)
		return PAGECOMP_NONE; /* encrypted: the algorithm field is not readable */
	return be16_get(stored + LEGACY_ALGO + 6);
}

static int unsupported(xb_error *err, uint32_t page_no, uint32_t algo)
{
	xb_err_set(err, XB_E_CORRUPT_PAGE, "page %u: page_compressed algorithm %s is not supported", page_no,
		   pagecomp_algo_name(algo));
	return xb_err_hint(err, "this build handles zlib page compression only; prepare this backup with mariabackup");
}

/* page_compressed needs logical == physical size and excludes ROW_FORMAT=COMPRESSED. */
static int check_space(const innodb_space_info *si, xb_error *err)
{
	if (si->physical_size < INNODB_PAGE_SIZE_MIN || si->physical_size > INNODB_PAGE_SIZE_MAX ||
	    (si->page_compressed && (si->zip || si->logical_size != si->physical_size)))
		return xb_err_set(err, XB_E_INTERNAL, "impossible page_compressed tablespace: page size %u/%u%s",
				  si->logical_size, si->physical_size, si->zip ? ", row_format=compressed" : "");
	return 0;
}

/* Inflate one zlib stream of exactly size bytes (trailing bytes after the stream end are ignored). */
static int inflate_page(const uint8_t *src, uint32_t srclen, uint8_t *out, uint32_t size, uint32_t page_no,
			xb_error *err)
{
	uLongf outlen = size;
	int zrc = uncompress(out, &outlen, src, srclen);
	if (zrc != Z_OK)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page %u: compressed data is corrupt (zlib: %s)", page_no,
				  zrc == Z_BUF_ERROR ? "inflates to more than one page or is truncated" : zError(zrc));
	if (outlen != size)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page %u: compressed data inflates to %lu bytes, not %u",
				  page_no, (unsigned long)outlen, size);
	return 0;
}

static int decompress_full_crc32(const uint8_t *stored, uint8_t *out, const innodb_space_info *si,
				 uint32_t page_no, xb_error *err)
{
	uint32_t size = si->physical_size;
	uint32_t csize = (be16_get(stored + FIL_PAGE_TYPE) & ~FCRC32_MARKER) << 8;
	if (csize < 256 || csize >= size)
		return xb_err_set(err, XB_E_CORRUPT_PAGE,
				  "page %u: bad compressed size %u in the page type field (page size %u)", page_no,
				  csize, size);
	uint32_t stored_crc = be32_get(stored + csize - 4), crc = crc32c(stored, csize - 4);
	if (stored_crc != crc)
		return xb_err_set(err, XB_E_CORRUPT_PAGE,
				  "page %u: checksum mismatch in the compressed image: stored %08x, computed %08x",
				  page_no, stored_crc, crc);
	if (!pagecomp_algo_supported(si->compression_algo))
		return unsupported(err, page_no, si->compression_algo);
	int rc = inflate_page(stored + FCRC32_STREAM, csize - 4 - FCRC32_STREAM, out, size, page_no, err);
	if (rc)
		return rc;
	/* the image header is a copy of the page's first 24 bytes */
	if (memcmp(out, stored, FIL_PAGE_TYPE))
		return xb_err_set(err, XB_E_CORRUPT_PAGE,
				  "page %u: decompressed page header differs from the compressed image's", page_no);
	return 0;
}

static int decompress_legacy(const uint8_t *stored, uint8_t *out, const innodb_space_info *si, uint32_t page_no,
			     xb_error *err)
{
	uint32_t size = si->physical_size;
	if (be16_get(stored + FIL_PAGE_TYPE) == FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED) {
		xb_err_set(err, XB_E_CORRUPT_PAGE,
			   "page %u is page_compressed and encrypted: it needs decrypting first", page_no);
		return xb_err_hint(err, "prepare this backup with mariabackup and the server's key management plugin");
	}
	if (be32_get(stored) != BUF_NO_CHECKSUM_MAGIC)
		return xb_err_set(err, XB_E_CORRUPT_PAGE,
				  "page %u: page_compressed page without the deadbeef marker (bytes 0..3: %08x)",
				  page_no, be32_get(stored));
	if (be32_get(stored + LEGACY_ALGO) || be16_get(stored + LEGACY_ALGO + 4))
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page %u: bad page_compressed algorithm field %08x%08x",
				  page_no, be32_get(stored + LEGACY_ALGO), be32_get(stored + LEGACY_ALGO + 4));
	uint32_t algo = be16_get(stored + LEGACY_ALGO + 6);
	if (algo == PAGECOMP_NONE || algo > PAGECOMP_SNAPPY)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page %u: unknown page_compressed algorithm %u", page_no,
				  algo);
	if (!pagecomp_algo_supported(algo))
		return unsupported(err, page_no, algo);
	uint32_t clen = be16_get(stored + LEGACY_LEN);
	if (clen == 0 || clen > size - LEGACY_STREAM)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page %u: bad compressed length %u (page size %u)", page_no,
				  clen, size);
	int rc = inflate_page(stored + LEGACY_STREAM, clen, out, size, page_no, err);
	if (rc)
		return rc;
	/* the page was checksummed before it was compressed */
	char why[160];
	if (!innodb_page_is_valid(out, si, page_no, false, why, sizeof why))
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page %u: decompressed page is corrupt: %s", page_no, why);
	return 0;
}

int pagecomp_decompress(const uint8_t *stored, uint8_t *out, const innodb_space_info *si, uint32_t page_no,
			xb_error *err)
{
	int rc = check_space(si, err);
	if (rc)
		return rc;
	if (!pagecomp_is_compressed(stored, si)) {
		memcpy(out, stored, si->physical_size);
		return 0;
	}
	rc = si->full_crc32 ? decompress_full_crc32(stored, out, si, page_no, err)
			    : decompress_legacy(stored, out, si, page_no, err);
	if (rc)
		return rc;
	if (innodb_page_no(out) != page_no)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "page %u: decompressed page has page number %u", page_no,
				  innodb_page_no(out));
	return 0;
}

/* Page types the server never compresses: allocated, FSP header, extent descriptor, and its own marker type. */
static bool type_never_compressed(uint32_t type)
{
	return type == 0 || type == FIL_PAGE_TYPE_FSP_HDR || type == 9 || type == FIL_PAGE_PAGE_COMPRESSED;
}

/* Compress page into out (zeroed) after hdr bytes; true with *clen when the stream fits the page. */
static bool deflate_page(const uint8_t *page, uint32_t size, uint8_t *out, uint32_t hdr, int level, uint32_t *clen)
{
	memset(out, 0, size);
	uLongf len = size - hdr;
	if (compress2(out + hdr, &len, page, size, level) != Z_OK)
		return false; /* as the server: any failure (the stream does not fit) means "store uncompressed" */
	*clen = (uint32_t)len;
	return true;
}

/* Compress a page that the server would compress into out (physical size) in
 * the tablespace's layout. *compressed is false when the image would not be
 * smaller (out is then garbage). Errors: an algorithm this build lacks. */
static int compress_image(const uint8_t *page, uint8_t *out, const innodb_space_info *si, uint32_t page_no,
			  int level, bool *compressed, xb_error *err)
{
	uint32_t size = si->physical_size, algo = pagecomp_write_algo(si), clen;
	*compressed = false;
	if (!pagecomp_algo_supported(algo))
		return unsupported(err, page_no, algo);
	if (si->full_crc32) {
		if (!deflate_page(page, size, out, FCRC32_STREAM, level, &clen))
			return 0;
		/* image: header, stream, zeros, CRC; its size rounded up to 256 bytes must stay under the page
		 * (lz4, lzo and snappy would need one more byte for the exact length, unsupported here) */
		uint32_t csize = (FCRC32_STREAM + clen + 4 + 255) & ~255u;
		if (csize >= size)
			return 0;
		memcpy(out, page, FIL_PAGE_TYPE);
		be16_put(out + FIL_PAGE_TYPE, FCRC32_MARKER | csize >> 8);
		be32_put(out + csize - 4, crc32c(out, csize - 4));
	} else {
		if (!deflate_page(page, size, out, LEGACY_STREAM, level, &clen))
			return 0;
		memcpy(out, page, FIL_PAGE_DATA);
		be32_put(out + FIL_PAGE_SPACE_OR_CHKSUM, BUF_NO_CHECKSUM_MAGIC);
		memset(out + LEGACY_ALGO, 0, 6);
		be16_put(out + LEGACY_ALGO + 6, algo);
		be16_put(out + FIL_PAGE_TYPE, FIL_PAGE_PAGE_COMPRESSED);
		be16_put(out + LEGACY_LEN, clen);
	}
	*compressed = true;
	return 0;
}

int pagecomp_flush_image(uint8_t *page, uint8_t *out, const innodb_space_info *si, uint32_t space_id,
			 uint32_t page_no, int level, xb_error *err)
{
	int rc = check_space(si, err);
	if (rc)
		return rc;
	if (level < 0 || level > 9)
		return xb_err_set(err, XB_E_INTERNAL, "bad page compression level %d (0..9)", level);
	uint32_t size = si->physical_size;
	if (si->page_compressed && !innodb_page_never_encoded(space_id, page_no)) {
		/* the flush's preparation of the frame that goes into the compressor */
		if (si->full_crc32)
			memcpy(page + size - 8, page + FIL_PAGE_LSN + 4, 4);
		else
			innodb_page_prepare_write(page, si, space_id, page_no);
		if (!type_never_compressed(be16_get(page + FIL_PAGE_TYPE))) {
			bool compressed;
			rc = compress_image(page, out, si, page_no, level ? level : PAGECOMP_DEFAULT_LEVEL, &compressed,
					    err);
			if (rc || compressed)
				return rc;
		}
	}
	/* stored as it is, with the checksum of its format (for legacy a second, idempotent pass) */
	innodb_page_prepare_write(page, si, space_id, page_no);
	memcpy(out, page, size);
	return 0;
}

int pagecomp_write_image(uint8_t *page, uint8_t *out, const innodb_space_info *si, uint32_t space_id,
			 uint32_t page_no, uint64_t lsn, int level, xb_error *err)
{
	innodb_page_set_lsn(page, si, lsn);
	return pagecomp_flush_image(page, out, si, space_id, page_no, level, err);
}
