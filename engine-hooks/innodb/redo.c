/*
 * redo.c - 10.8+ redo log parsing (see redo.h, doc/redo-log.md and doc/redo-records.md §1-§9).
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
 * as REDO_MTR_CORRUPT. Record headers are read by redo_rec_next() (redo.h),
 * which also tracks the "a page record has been seen" state that tells
 * same_page records from file records (doc/redo-records.md §3); the walk checks each
 * record's type and payload. redo_parse_mtr() validates first and reports
 * afterwards, so a callback never sees half an mtr.
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

#define NAME_MAX_LEN 4096

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
	uint32_t format = be32_get(buf);
	if (format != REDO_FORMAT_10_8 && format != REDO_FORMAT_ENC_11) {
		if (format_is_old(format)) {
			xb_err_set(err, XB_E_REDO_FORMAT,
				   "%s: cannot process redo log before MariaDB 10.8 (format %u)", path, format);
			return xb_err_hint(err, "this tool backs up MariaDB 10.8 and later; use the mariabackup of the "
						"server's version");
		}
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: unknown redo log format 0x%08x", path, format);
	}
	uint32_t stored = be32_get(buf + 508), calc = crc32c(buf, 508);
	if (stored != calc)
		return xb_err_set(err, XB_E_REDO_FORMAT,
				  "%s: redo log header checksum mismatch (stored %08x, computed %08x)", path, stored,
				  calc);
	if (be32_get(buf + 4))
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: redo log header has non-zero reserved bytes", path);
	out->format = format;
	out->first_lsn = be64_get(buf + 8);
	if (out->first_lsn < REDO_FIRST_LSN)
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: redo log header has an invalid first LSN %llu", path,
				  (unsigned long long)out->first_lsn);
	memcpy(out->creator, buf + 16, REDO_CREATOR_LEN);
	out->creator[REDO_CREATOR_LEN] = 0;
	memcpy(out->crypt_info, buf + 48, REDO_CRYPT_INFO_LEN);
	out->encrypted = format == REDO_FORMAT_ENC_11 || be32_get(buf + 48) != 0;
	return 0;
}

bool redo_checkpoint_parse(const uint8_t *blk, uint64_t first_lsn, redo_checkpoint *out)
{
	memset(out, 0, sizeof *out);
	if (crc32c(blk, 60) != be32_get(blk + 60) || !all_zero(blk + 16, 44))
		return false;
	uint64_t cp = be64_get(blk), end = be64_get(blk + 8);
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
	be32_put(out + 1, v);
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
	if (type != REDO_T_FILE_RENAME)
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

const char *redo_rec_why(int status)
{
	switch (status) {
	case REDO_REC_MARKER:
		return "end-of-mtr byte where a record starts";
	case REDO_REC_BAD_LENGTH:
		return "bad record length";
	case REDO_REC_OVERRUN:
		return "record overruns its buffer";
	case REDO_REC_BAD_ID:
		return "bad page identifier";
	default:
		return "no error";
	}
}

/* Walk the records [0, n) of a CRC-valid mtr; report to cb and pcb when non-NULL. */
static int walk_records(const uint8_t *r, uint32_t n, redo_mtr *res, redo_file_cb cb, redo_page_cb pcb, void *ctx)
{
	redo_rec_it it = redo_rec_mtr(r, n);
	redo_rec h;
	uint32_t count = 0;
	int st;
	while ((st = redo_rec_next(&it, &h)) == REDO_REC_OK) {
		size_t start = h.start;
		const uint8_t *body = h.body;
		uint32_t blen = h.body_len;
		count++;
		if (h.same_page) {
			if (h.type == REDO_T_FREE_PAGE || h.type == REDO_T_INIT_PAGE || h.type == REDO_T_RESERVED)
				return mtr_fail(res, REDO_MTR_CORRUPT, "invalid same_page record %02x at +%zu", h.b, start);
			if (h.type == REDO_T_EXTENDED && (!blen || body[0] > REDO_EXT_LAST))
				return mtr_fail(res, REDO_MTR_CORRUPT, "bad EXTENDED record at +%zu", start);
			continue;
		}
		if (h.padding)
			continue; /* FILE_CHECKPOINT padding */
		uint32_t space = h.space_id, page = h.page_no;
		redo_file_rec rec;
		memset(&rec, 0, sizeof rec);
		rec.space_id = space;
		rec.lsn = res->start_lsn;
		rec.end_lsn = res->end_lsn;
		if (!h.file) { /* page record */
			uint8_t type = h.type;
			if (type == REDO_T_FREE_PAGE || type == REDO_T_INIT_PAGE) {
				if (blen)
					return mtr_fail(res, REDO_MTR_CORRUPT, "FREE_PAGE/INIT_PAGE with a payload at +%zu",
							start);
				if (type == REDO_T_INIT_PAGE && page == 0 && cb) {
					rec.op = REDO_INIT_PAGE0;
					cb(ctx, &rec);
				}
			} else if (type == REDO_T_RESERVED) {
				return mtr_fail(res, REDO_MTR_CORRUPT, "unknown log record %02x at +%zu", h.b, start);
			} else if (type == REDO_T_EXTENDED) {
				if (!blen || body[0] > REDO_EXT_LAST)
					return mtr_fail(res, REDO_MTR_CORRUPT, "bad EXTENDED record at +%zu", start);
				if (body[0] == REDO_EXT_TRIM_PAGES) {
					if (blen != 1)
						return mtr_fail(res, REDO_MTR_CORRUPT, "bad TRIM_PAGES record at +%zu", start);
					if (cb) {
						rec.op = REDO_TRIM_PAGES;
						rec.page_no = page;
						cb(ctx, &rec);
					}
				}
			}
			if (pcb)
				pcb(ctx, space, page, type, type == REDO_T_EXTENDED ? body[0] : 0);
			continue;
		}
		/* file record */
		int type = h.type;
		if (page != 0)
			return mtr_fail(res, REDO_MTR_CORRUPT, "file record with page number %u at +%zu", page, start);
		if (type == REDO_T_FILE_CHECKPOINT) {
			if (space != 0 || blen != 8 || h.end != n)
				return mtr_fail(res, REDO_MTR_CORRUPT, "malformed FILE_CHECKPOINT at +%zu", start);
			if (cb) {
				rec.op = REDO_FILE_CHECKPOINT;
				rec.checkpoint_lsn = be64_get(body);
				cb(ctx, &rec);
			}
			continue;
		}
		switch (type) {
		case REDO_T_FILE_CREATE:
			rec.op = REDO_FILE_CREATE;
			break;
		case REDO_T_FILE_DELETE:
			rec.op = REDO_FILE_DELETE;
			break;
		case REDO_T_FILE_RENAME:
			rec.op = REDO_FILE_RENAME;
			break;
		case REDO_T_FILE_MODIFY:
			rec.op = REDO_FILE_MODIFY;
			break;
		default:
			return mtr_fail(res, REDO_MTR_CORRUPT, "unknown file record type %02x at +%zu", h.b, start);
		}
		size_t sep = 0;
		if (space == 0 || !file_name_ok(type, body, blen, &sep))
			return mtr_fail(res, REDO_MTR_CORRUPT, "malformed file record %02x (space %u) at +%zu", h.b, space,
					start);
		if (cb)
			report_name(cb, ctx, &rec, body, blen, sep);
	}
	switch (st) {
	case REDO_REC_DONE:
		break;
	case REDO_REC_OVERRUN:
		return mtr_fail(res, REDO_MTR_CORRUPT, "record at +%zu overruns the mtr", (size_t)h.start);
	case REDO_REC_BAD_ID:
		return mtr_fail(res, REDO_MTR_CORRUPT, "bad page identifier at +%zu", (size_t)h.start);
	case REDO_REC_BAD_LENGTH:
		return mtr_fail(res, REDO_MTR_CORRUPT, "bad record length at +%zu", (size_t)h.start);
	default:
		return mtr_fail(res, REDO_MTR_CORRUPT, "%s at +%zu", redo_rec_why(st), (size_t)h.start);
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
		if (buf[p] <= 1)
			break;
		size_t size, hdr;
		int l = redo_rec_length(buf + p, avail - p, &size, &hdr);
		if (l < 0)
			return REDO_MTR_NEED_MORE;
		if (l == 0) {
			res->end_reason = REDO_END_TOO_LONG;
			return mtr_fail(res, REDO_MTR_END, "bad record length at LSN %llu", (unsigned long long)(lsn + p));
		}
		p += size;
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
	uint32_t stored = be32_get(buf + p + 1 + nonce);
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
	be32_put(out, format);
	be64_put(out + 8, checkpoint_lsn);
	if (creator) {
		size_t n = strlen(creator);
		if (n > REDO_CREATOR_LEN - 1)
			n = REDO_CREATOR_LEN - 1;
		memcpy(out + 16, creator, n);
	}
	if (crypt_info)
		memcpy(out + 48, crypt_info, REDO_CRYPT_INFO_LEN);
	be32_put(out + 508, crc32c(out, 508));
	uint8_t *cp = out + REDO_CHECKPOINT_1;
	be64_put(cp, checkpoint_lsn);
	be64_put(cp + 8, end_lsn);
	be32_put(cp + 60, crc32c(cp, 60));
}

void redo_build_backup_header(uint8_t out[12288], uint64_t checkpoint_lsn, uint64_t end_lsn, const char *creator)
{
	redo_build_backup_header_ex(out, checkpoint_lsn, end_lsn, creator, REDO_FORMAT_10_8, NULL);
}
