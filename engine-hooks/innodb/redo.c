/*
 * redo.c - 10.8+ redo log parsing (see redo.h, spec sections 1 and 2).
 *
 * Framing (redo_parse_mtr) follows the server's scanner: from the first byte
 * of an mtr, read a record header byte; a byte <= 1 is the termination byte,
 * anything else is a record whose length is in its low nibble (or, when that
 * is 0, in a following varint: total size 16 + v). The termination byte must
 * be the sequence bit of its LSN's pass and the CRC-32C of the records (and
 * the nonce, when encrypted) must match; any failure is the end of the log.
 *
 * The record walk runs only over an mtr that passed the CRC, so a malformed
 * record there is genuine corruption (or a format we do not know), reported
 * as REDO_MTR_CORRUPT. It tracks the "a page record has been seen" state
 * that tells same_page records from file records (spec 2.3). It validates
 * first and reports afterwards, so a callback never sees half an mtr.
 */
#include "redo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"

/* Record types (spec 2.4, 2.7). */
enum {
	REC_FREE_PAGE = 0x00,
	REC_INIT_PAGE = 0x10,
	REC_EXTENDED = 0x20,
	REC_WRITE = 0x30,
	REC_MEMSET = 0x40,
	REC_MEMMOVE = 0x50,
	REC_RESERVED = 0x60,
	REC_OPTION = 0x70,
	REC_FILE_CREATE = 0x80,
	REC_FILE_DELETE = 0x90,
	REC_FILE_RENAME = 0xA0,
	REC_FILE_MODIFY = 0xB0,
	REC_FILE_CHECKPOINT = 0xF0,
};
#define EXT_TRIM_PAGES 10
#define EXT_LAST 10
#define NAME_MAX_LEN 4096

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* ---- header, checkpoints, mapping */

static bool format_is_old(uint32_t f)
{
	switch (f & 0x7FFFFFFFu) {
	case 0:
	case 1:
	case 103:
	case 104:
	case 0x50485953u: /* "PHYS", 10.5-10.7 */
		return true;
	}
	return false;
}

int redo_header_parse(const uint8_t *buf, size_t len, const char *path, redo_header *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	if (len < 512)
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: redo log header is truncated (%zu bytes)", path, len);
	uint32_t format = be32(buf);
	if (format != REDO_FORMAT_10_8 && format != REDO_FORMAT_ENC_11) {
		if (format_is_old(format)) {
			xb_err_set(err, XB_E_REDO_FORMAT,
				   "%s: cannot process redo log before MariaDB 10.8 (format %u)", path, format);
			return xb_err_hint(err, "this tool backs up MariaDB 10.8 and later; use the mariabackup of the "
						"server's version");
		}
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: unknown redo log format 0x%08x", path, format);
	}
	uint32_t stored = be32(buf + 508), calc = crc32c(buf, 508);
	if (stored != calc)
		return xb_err_set(err, XB_E_REDO_FORMAT,
				  "%s: redo log header checksum mismatch (stored %08x, computed %08x)", path, stored,
				  calc);
	if (be32(buf + 4))
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: redo log header has non-zero reserved bytes", path);
	out->format = format;
	out->first_lsn = be64(buf + 8);
	if (out->first_lsn < REDO_FIRST_LSN)
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: redo log header has an invalid first LSN %llu", path,
				  (unsigned long long)out->first_lsn);
	memcpy(out->creator, buf + 16, REDO_CREATOR_LEN);
	out->creator[REDO_CREATOR_LEN] = 0;
	memcpy(out->crypt_info, buf + 48, REDO_CRYPT_INFO_LEN);
	out->encrypted = format == REDO_FORMAT_ENC_11 || be32(buf + 48) != 0;
	return 0;
}

bool redo_checkpoint_parse(const uint8_t *blk, uint64_t first_lsn, redo_checkpoint *out)
{
	memset(out, 0, sizeof *out);
	if (crc32c(blk, 60) != be32(blk + 60) || !all_zero(blk + 16, 44))
		return false;
	uint64_t cp = be64(blk), end = be64(blk + 8);
	if (cp < first_lsn || end < cp)
		return false;
	out->checkpoint_lsn = cp;
	out->end_lsn = end;
	return true;
}

int redo_checkpoint_pick(const uint8_t *area, uint64_t first_lsn, const char *path, redo_checkpoint *out,
			 xb_error *err)
{
	redo_checkpoint c1, c2;
	bool v1 = redo_checkpoint_parse(area + REDO_CHECKPOINT_1, first_lsn, &c1);
	bool v2 = redo_checkpoint_parse(area + REDO_CHECKPOINT_2, first_lsn, &c2);
	memset(out, 0, sizeof *out);
	if (v2 && (!v1 || c2.checkpoint_lsn >= c1.checkpoint_lsn)) {
		*out = c2;
		out->block = 2;
	} else if (v1) {
		*out = c1;
		out->block = 1;
	} else {
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: no valid checkpoint found in the redo log", path);
	}
	return 0;
}

int redo_log_parse(const uint8_t *area, size_t len, uint64_t file_size, const char *path, redo_log_info *out,
		   xb_error *err)
{
	memset(out, 0, sizeof *out);
	if (len < REDO_HEADER_SIZE || file_size <= REDO_HEADER_SIZE)
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: redo log is too small (%llu bytes)", path,
				  (unsigned long long)(file_size < len ? file_size : len));
	int rc = redo_header_parse(area, len, path, &out->hdr, err);
	if (rc)
		return rc;
	if ((rc = redo_checkpoint_pick(area, out->hdr.first_lsn, path, &out->cp, err)))
		return rc;
	out->file_size = file_size;
	out->capacity = file_size - REDO_HEADER_SIZE;
	return 0;
}

int redo_read_checkpoint(const char *path, uint64_t *checkpoint_lsn, uint64_t *end_lsn, xb_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xb_err_set(err, errno == ENOENT ? XB_E_MISSING_FILE : XB_E_IO_READ, "cannot open %s: %s", path,
				  strerror(errno));
	uint8_t area[REDO_HEADER_SIZE];
	struct stat st;
	int rc = 0;
	ssize_t n = 0;
	if (fstat(fd, &st) != 0 || (n = pread(fd, area, sizeof area, 0)) < 0)
		rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path, strerror(errno));
	close(fd);
	if (rc)
		return rc;
	redo_log_info info;
	if ((rc = redo_log_parse(area, (size_t)n, (uint64_t)st.st_size, path, &info, err)))
		return rc;
	if (checkpoint_lsn)
		*checkpoint_lsn = info.cp.checkpoint_lsn;
	if (end_lsn)
		*end_lsn = info.cp.end_lsn;
	return 0;
}

uint64_t redo_lsn_to_offset(uint64_t lsn, uint64_t first_lsn, uint64_t capacity)
{
	return REDO_HEADER_SIZE + (lsn - first_lsn) % capacity;
}

unsigned redo_sequence_bit(uint64_t lsn, uint64_t first_lsn, uint64_t capacity)
{
	return ((lsn - first_lsn) / capacity) & 1 ? 0 : 1;
}

/* ---- varints */

int redo_varint_decode(const uint8_t *p, size_t avail, uint32_t *val)
{
	if (avail < 1)
		return -1;
	uint32_t b = p[0];
	int len = b < 0x80 ? 1 : b < 0xC0 ? 2 : b < 0xE0 ? 3 : b < 0xF0 ? 4 : b == 0xF0 ? 5 : 0;
	if (!len)
		return 0;
	if (avail < (size_t)len)
		return -1;
	switch (len) {
	case 1:
		*val = b;
		break;
	case 2:
		*val = 0x80u + ((b & 0x3F) << 8 | p[1]);
		break;
	case 3:
		*val = 0x4080u + ((b & 0x1F) << 16 | (uint32_t)p[1] << 8 | p[2]);
		break;
	case 4:
		*val = 0x204080u + ((b & 0x0F) << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
		break;
	default: {
		uint32_t u = be32(p + 1);
		if (u > 0xFFFFFFFFu - 0x10204080u)
			return 0;
		*val = 0x10204080u + u;
	}
	}
	return len;
}

size_t redo_varint_encode(uint8_t *out, uint32_t v)
{
	if (v < 0x80) {
		out[0] = (uint8_t)v;
		return 1;
	}
	if (v < 0x4080) {
		v -= 0x80;
		out[0] = (uint8_t)(0x80 | v >> 8);
		out[1] = (uint8_t)v;
		return 2;
	}
	if (v < 0x204080) {
		v -= 0x4080;
		out[0] = (uint8_t)(0xC0 | v >> 16);
		out[1] = (uint8_t)(v >> 8);
		out[2] = (uint8_t)v;
		return 3;
	}
	if (v < 0x10204080) {
		v -= 0x204080;
		out[0] = (uint8_t)(0xE0 | v >> 24);
		out[1] = (uint8_t)(v >> 16);
		out[2] = (uint8_t)(v >> 8);
		out[3] = (uint8_t)v;
		return 4;
	}
	v -= 0x10204080;
	out[0] = 0xF0;
	put32(out + 1, v);
	return 5;
}

/* ---- record walk */

__attribute__((format(printf, 3, 4))) static int mtr_fail(redo_mtr *res, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof res->why, fmt, ap);
	va_end(ap);
	return status;
}

static bool ends_with_ibd(const uint8_t *s, size_t n)
{
	return n > 4 && !memcmp(s + n - 4, ".ibd", 4);
}

/* Check a file record's name payload; for RENAME returns the split point. */
static bool file_name_ok(int type, const uint8_t *s, size_t n, size_t *sep)
{
	const uint8_t *nul = memchr(s, 0, n);
	if (type != REC_FILE_RENAME)
		return !nul && n < NAME_MAX_LEN && ends_with_ibd(s, n);
	if (!nul)
		return false;
	size_t a = (size_t)(nul - s), b = n - a - 1;
	if (memchr(nul + 1, 0, b) || a >= NAME_MAX_LEN || b >= NAME_MAX_LEN)
		return false;
	*sep = a;
	return ends_with_ibd(s, a) && ends_with_ibd(nul + 1, b);
}

static void report_name(redo_file_cb cb, void *ctx, redo_file_rec *rec, const uint8_t *s, size_t n, size_t sep)
{
	char a[NAME_MAX_LEN], b[NAME_MAX_LEN];
	if (rec->op == REDO_FILE_RENAME) {
		memcpy(a, s, sep);
		a[sep] = 0;
		memcpy(b, s + sep + 1, n - sep - 1);
		b[n - sep - 1] = 0;
		rec->name = a;
		rec->new_name = b;
	} else {
		memcpy(a, s, n);
		a[n] = 0;
		rec->name = a;
	}
	cb(ctx, rec);
}

/* Walk the records [0, n) of a CRC-valid mtr; report to cb and pcb when non-NULL. */
static int walk_records(const uint8_t *r, uint32_t n, redo_mtr *res, redo_file_cb cb, redo_page_cb pcb, void *ctx)
{
	bool got_page = false; /* a page record has been seen in this mtr */
	uint32_t count = 0;
	size_t p = 0;
	while (p < n) {
		size_t start = p;
		uint8_t b = r[p++];
		size_t end;
		if (b & 15) {
			end = start + 1 + (b & 15);
		} else {
			uint32_t v;
			int vl = redo_varint_decode(r + p, n - p, &v);
			if (vl <= 0 || vl > 3)
				return mtr_fail(res, REDO_MTR_CORRUPT, "bad record length at +%zu", start);
			p += (size_t)vl;
			end = start + 16 + v;
		}
		if (end > n)
			return mtr_fail(res, REDO_MTR_CORRUPT, "record at +%zu overruns the mtr", start);
		count++;
		if ((b & 0x80) && got_page) { /* same_page record */
			uint8_t type = b & 0x70;
			if (type == REC_FREE_PAGE || type == REC_INIT_PAGE || type == REC_RESERVED)
				return mtr_fail(res, REDO_MTR_CORRUPT, "invalid same_page record %02x at +%zu", b, start);
			if (type == REC_EXTENDED && (p >= end || r[p] > EXT_LAST))
				return mtr_fail(res, REDO_MTR_CORRUPT, "bad EXTENDED record at +%zu", start);
			p = end;
			continue;
		}
		if ((b & 0xF0) == REC_FILE_CHECKPOINT && all_zero(r + p, end - p)) {
			p = end; /* FILE_CHECKPOINT padding */
			continue;
		}
		uint32_t space, page;
		int l1 = redo_varint_decode(r + p, end - p, &space);
		int l2 = l1 > 0 ? redo_varint_decode(r + p + l1, end - p - (size_t)l1, &page) : 0;
		if (l1 <= 0 || l2 <= 0)
			return mtr_fail(res, REDO_MTR_CORRUPT, "bad page identifier at +%zu", start);
		p += (size_t)l1 + (size_t)l2;
		redo_file_rec rec;
		memset(&rec, 0, sizeof rec);
		rec.space_id = space;
		rec.lsn = res->start_lsn;
		rec.end_lsn = res->end_lsn;
		if (!(b & 0x80)) { /* page record */
			got_page = true;
			uint8_t type = b & 0x70;
			if (type == REC_FREE_PAGE || type == REC_INIT_PAGE) {
				if (p != end)
					return mtr_fail(res, REDO_MTR_CORRUPT, "FREE_PAGE/INIT_PAGE with a payload at +%zu",
							start);
				if (type == REC_INIT_PAGE && page == 0 && cb) {
					rec.op = REDO_INIT_PAGE0;
					cb(ctx, &rec);
				}
			} else if (type == REC_RESERVED) {
				return mtr_fail(res, REDO_MTR_CORRUPT, "unknown log record %02x at +%zu", b, start);
			} else if (type == REC_EXTENDED) {
				if (p >= end || r[p] > EXT_LAST)
					return mtr_fail(res, REDO_MTR_CORRUPT, "bad EXTENDED record at +%zu", start);
				if (r[p] == EXT_TRIM_PAGES) {
					if (end - p != 1)
						return mtr_fail(res, REDO_MTR_CORRUPT, "bad TRIM_PAGES record at +%zu", start);
					if (cb) {
						rec.op = REDO_TRIM_PAGES;
						rec.page_no = page;
						cb(ctx, &rec);
					}
				}
			}
			if (pcb)
				pcb(ctx, space, page, type, type == REC_EXTENDED ? r[p] : 0);
			p = end;
			continue;
		}
		/* file record */
		int type = b & 0xF0;
		if (page != 0)
			return mtr_fail(res, REDO_MTR_CORRUPT, "file record with page number %u at +%zu", page, start);
		if (type == REC_FILE_CHECKPOINT) {
			if (space != 0 || end - p != 8 || end != n)
				return mtr_fail(res, REDO_MTR_CORRUPT, "malformed FILE_CHECKPOINT at +%zu", start);
			if (cb) {
				rec.op = REDO_FILE_CHECKPOINT;
				rec.checkpoint_lsn = be64(r + p);
				cb(ctx, &rec);
			}
			p = end;
			continue;
		}
		switch (type) {
		case REC_FILE_CREATE:
			rec.op = REDO_FILE_CREATE;
			break;
		case REC_FILE_DELETE:
			rec.op = REDO_FILE_DELETE;
			break;
		case REC_FILE_RENAME:
			rec.op = REDO_FILE_RENAME;
			break;
		case REC_FILE_MODIFY:
			rec.op = REDO_FILE_MODIFY;
			break;
		default:
			return mtr_fail(res, REDO_MTR_CORRUPT, "unknown file record type %02x at +%zu", b, start);
		}
		size_t sep = 0;
		if (space == 0 || !file_name_ok(type, r + p, end - p, &sep))
			return mtr_fail(res, REDO_MTR_CORRUPT, "malformed file record %02x (space %u) at +%zu", b, space,
					start);
		if (cb)
			report_name(cb, ctx, &rec, r + p, end - p, sep);
		p = end;
	}
	res->n_records = count;
	return REDO_MTR_OK;
}

/* ---- framing */

int redo_frame_mtr(const uint8_t *buf, size_t avail, uint64_t lsn, uint64_t first_lsn, uint64_t capacity,
		   bool encrypted, bool check_crc, redo_mtr *res)
{
	res->start_lsn = lsn;
	res->end_lsn = 0;
	res->len = res->records_len = res->n_records = 0;
	res->end_reason = REDO_END_NONE;
	res->why[0] = 0;
	if (avail == 0)
		return REDO_MTR_NEED_MORE;
	if (buf[0] <= 1) {
		res->end_reason = REDO_END_MARKER;
		return mtr_fail(res, REDO_MTR_END, "end-of-log byte %02x at LSN %llu", buf[0],
				(unsigned long long)lsn);
	}
	size_t p = 0;
	for (;;) {
		if (p >= avail)
			return REDO_MTR_NEED_MORE;
		uint8_t b = buf[p];
		if (b <= 1)
			break;
		size_t rlen = b & 15;
		if (!rlen) {
			uint32_t v;
			int vl = redo_varint_decode(buf + p + 1, avail - p - 1, &v);
			if (vl < 0)
				return REDO_MTR_NEED_MORE;
			if (vl == 0 || vl > 3) {
				res->end_reason = REDO_END_TOO_LONG;
				return mtr_fail(res, REDO_MTR_END, "bad record length at LSN %llu",
						(unsigned long long)(lsn + p));
			}
			rlen = (size_t)v + 15;
		}
		p += 1 + rlen;
		if (p > REDO_MTR_SIZE_MAX) {
			res->end_reason = REDO_END_TOO_LONG;
			return mtr_fail(res, REDO_MTR_END, "no termination byte within %u bytes of LSN %llu",
					REDO_MTR_SIZE_MAX, (unsigned long long)lsn);
		}
	}
	unsigned expect = redo_sequence_bit(lsn + p, first_lsn, capacity);
	if (buf[p] != expect) {
		res->end_reason = REDO_END_SEQUENCE;
		return mtr_fail(res, REDO_MTR_END, "sequence bit %u at LSN %llu, expected %u", buf[p],
				(unsigned long long)(lsn + p), expect);
	}
	size_t nonce = encrypted ? 8 : 0, total = p + 1 + nonce + 4;
	if (total > avail)
		return REDO_MTR_NEED_MORE;
	uint32_t crc = check_crc ? crc32c(buf, p) : 0;
	if (nonce && check_crc)
		crc = crc32c_update(crc, buf + p + 1, nonce);
	uint32_t stored = be32(buf + p + 1 + nonce);
	if (check_crc && crc != stored) {
		res->end_reason = REDO_END_CRC;
		return mtr_fail(res, REDO_MTR_END, "mtr at LSN %llu: CRC %08x, computed %08x", (unsigned long long)lsn,
				stored, crc);
	}
	res->len = (uint32_t)total;
	res->records_len = (uint32_t)p;
	res->end_lsn = lsn + total;
	return REDO_MTR_OK;
}

int redo_parse_mtr(const uint8_t *buf, size_t avail, uint64_t lsn, uint64_t first_lsn, uint64_t capacity,
		   bool encrypted, redo_mtr *res, redo_file_cb cb, void *cb_ctx)
{
	int rc = redo_frame_mtr(buf, avail, lsn, first_lsn, capacity, encrypted, true, res);
	if (rc != REDO_MTR_OK)
		return rc;
	uint32_t p = res->records_len;
	if (encrypted)
		return REDO_MTR_OK; /* record payloads are ciphertext */
	rc = walk_records(buf, (uint32_t)p, res, NULL, NULL, NULL);
	if (rc == REDO_MTR_OK && cb)
		rc = walk_records(buf, (uint32_t)p, res, cb, NULL, cb_ctx);
	return rc;
}

int redo_walk_mtr(const uint8_t *recs, uint32_t len, redo_mtr *res, redo_file_cb cb, redo_page_cb pcb, void *ctx)
{
	return walk_records(recs, len, res, cb, pcb, ctx);
}

/* ---- backup copy header */

void redo_build_backup_header_ex(uint8_t out[12288], uint64_t checkpoint_lsn, uint64_t end_lsn, const char *creator,
				 uint32_t format, const uint8_t *crypt_info)
{
	memset(out, 0, REDO_HEADER_SIZE);
	put32(out, format);
	put64(out + 8, checkpoint_lsn);
	if (creator) {
		size_t n = strlen(creator);
		if (n > REDO_CREATOR_LEN - 1)
			n = REDO_CREATOR_LEN - 1;
		memcpy(out + 16, creator, n);
	}
	if (crypt_info)
		memcpy(out + 48, crypt_info, REDO_CRYPT_INFO_LEN);
	put32(out + 508, crc32c(out, 508));
	uint8_t *cp = out + REDO_CHECKPOINT_1;
	put64(cp, checkpoint_lsn);
	put64(cp + 8, end_lsn);
	put32(cp + 60, crc32c(cp, 60));
}

void redo_build_backup_header(uint8_t out[12288], uint64_t checkpoint_lsn, uint64_t end_lsn, const char *creator)
{
	redo_build_backup_header_ex(out, checkpoint_lsn, end_lsn, creator, REDO_FORMAT_10_8, NULL);
}
