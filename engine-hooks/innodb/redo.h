/*
 * redo.h - the InnoDB redo log of MariaDB 10.8+ (ib_logfile0): header,
 * checkpoints, LSN mapping, mini-transaction framing, file records, and the
 * header of the linear backup copy.
 *
 * The file is a 12 KiB header area (header block, two checkpoint blocks)
 * followed by a circular record area of `capacity` bytes in which every byte
 * has one LSN. The log is a sequence of mini-transactions (mtr): records,
 * a termination byte carrying the sequence bit of its pass around the circle,
 * (an 8-byte nonce when encrypted) and a CRC-32C of the records. The parser
 * here works on a linear buffer whose byte i has LSN lsn+i: the caller has
 * already unwrapped the circular file. Page records are only skipped; file
 * records (CREATE/DELETE/RENAME/MODIFY/CHECKPOINT), INIT_PAGE of page 0 and
 * TRIM_PAGES are reported through a callback for DDL tracking. Every reader
 * of records (this parser, recovery's collector, batch apply and page
 * replay) takes their headers from one walk, redo_rec_next(), and their
 * varints from redo_varint_decode(). Pure functions, no I/O except
 * redo_read_checkpoint(). doc/redo-log.md and doc/redo-records.md §1-§9.
 */
#ifndef XB_INNODB_REDO_H
#define XB_INNODB_REDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/bytes.h"
#include "common/error.h"

#define REDO_HEADER_SIZE 12288u      /* header + 2 checkpoint blocks; records start here */
#define REDO_CHECKPOINT_1 4096u      /* offset of checkpoint block 1 */
#define REDO_CHECKPOINT_2 8192u      /* offset of checkpoint block 2 */
#define REDO_FIRST_LSN 12288u        /* smallest possible LSN */
#define REDO_MTR_SIZE_MAX 1048576u   /* records of one mtr never exceed this */
#define REDO_FORMAT_10_8 0x50687973u /* "Phys": 10.8+ */
#define REDO_FORMAT_ENC_11 0xF09F979Du /* 10.11+ encrypted */
#define REDO_CREATOR_LEN 32u         /* creator field bytes 16..47 */
#define REDO_CRYPT_INFO_LEN 28u      /* encryption info bytes 48..75 */
#define REDO_BACKUP_CREATOR "Backup 10.11.19" /* what mariabackup 10.11.19 writes */

/* The header block (bytes 0..511 of the file). */
typedef struct redo_header {
	uint32_t format;                          /* REDO_FORMAT_10_8 or REDO_FORMAT_ENC_11 */
	uint64_t first_lsn;                       /* LSN of file offset 12288 */
	char creator[REDO_CREATOR_LEN + 1];       /* e.g. "MariaDB 10.11.19", NUL-terminated */
	bool encrypted;                           /* ENC_11, or 10.8 format with encryption info */
	uint8_t crypt_info[REDO_CRYPT_INFO_LEN];  /* bytes 48..75, zero when not encrypted */
} redo_header;

/* One checkpoint block. */
typedef struct redo_checkpoint {
	uint64_t checkpoint_lsn; /* changes below this LSN are in the datafiles */
	uint64_t end_lsn;        /* where the checkpoint's FILE_MODIFY..FILE_CHECKPOINT mtr starts */
	int block;               /* 1 (offset 4096) or 2 (offset 8192), 0 when none */
} redo_checkpoint;

/* Everything the 12 KiB header area and the file size tell. */
typedef struct redo_log_info {
	redo_header hdr;        /* header block */
	redo_checkpoint cp;     /* the latest valid checkpoint */
	uint64_t file_size;     /* size of ib_logfile0 */
	uint64_t capacity;      /* file_size - 12288: bytes of the circular area */
} redo_log_info;

/* Parse and validate the header block (buf: at least 512 bytes). Formats
 * 0x50687973 and 0xF09F979D are accepted; the pre-10.8 ones are refused with
 * XB_E_REDO_FORMAT "…: cannot process redo log before MariaDB 10.8"; any
 * other value, a bad CRC, non-zero reserved bytes or first_lsn < 12288 is
 * XB_E_REDO_FORMAT too. path is only used in messages. */
int redo_header_parse(const uint8_t *buf, size_t len, const char *path, redo_header *out, xb_error *err);

/* Parse one checkpoint block (64 bytes used). Returns true when valid:
 * CRC matches, bytes 16..59 zero, checkpoint_lsn >= first_lsn, end_lsn >= checkpoint_lsn. */
bool redo_checkpoint_parse(const uint8_t *blk, uint64_t first_lsn, redo_checkpoint *out);

/* Pick the latest valid checkpoint of the two blocks in a 12 KiB header area
 * (larger checkpoint_lsn; on a tie block 2). XB_E_REDO_FORMAT when neither is valid. */
int redo_checkpoint_pick(const uint8_t *area, uint64_t first_lsn, const char *path, redo_checkpoint *out,
			 xb_error *err);

/* Header + latest checkpoint + capacity from the first 12288 bytes and the file size. */
int redo_log_parse(const uint8_t *area, size_t len, uint64_t file_size, const char *path, redo_log_info *out,
		   xb_error *err);

/* Open a log file, read its header area and return its latest checkpoint
 * (XB_E_MISSING_FILE / XB_E_IO_READ / XB_E_REDO_FORMAT). */
int redo_read_checkpoint(const char *path, uint64_t *checkpoint_lsn, uint64_t *end_lsn, xb_error *err);

/* File offset of an LSN: 12288 + (lsn - first_lsn) mod capacity (lsn >= first_lsn). */
uint64_t redo_lsn_to_offset(uint64_t lsn, uint64_t first_lsn, uint64_t capacity);

/* Sequence bit expected at an LSN: 1 on even passes, 0 on odd ones. */
unsigned redo_sequence_bit(uint64_t lsn, uint64_t first_lsn, uint64_t capacity);

/* Decode a varint (doc/redo-records.md §1) from p (avail bytes). Returns its length 1..5,
 * 0 when the first byte is invalid (0xF1..0xFF) or the value overflows 32
 * bits, -1 when more bytes are needed. The only varint decoder of the
 * program (inline: it runs for every record of the log). */
static inline int redo_varint_decode(const uint8_t *p, size_t avail, uint32_t *val)
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
		uint32_t u = be32_get(p + 1);
		if (u > 0xFFFFFFFFu - 0x10204080u)
			return 0;
		*val = 0x10204080u + u;
	}
	}
	return len;
}

/* Encode a varint in the shortest form into out (5 bytes max); returns its length. */
size_t redo_varint_encode(uint8_t *out, uint32_t val);

/* ---- records (doc/redo-records.md §2-§7) */

/* Record types: the high bits of a record's first byte. Page records (bit
 * 0x80 clear, or set for a same_page record) carry b & 0x70; file records
 * carry b & 0xF0. */
enum redo_rec_type {
	REDO_T_FREE_PAGE = 0x00,
	REDO_T_INIT_PAGE = 0x10,
	REDO_T_EXTENDED = 0x20,      /* its first payload byte is a subtype (0..REDO_EXT_LAST) */
	REDO_T_WRITE = 0x30,
	REDO_T_MEMSET = 0x40,
	REDO_T_MEMMOVE = 0x50,
	REDO_T_RESERVED = 0x60,
	REDO_T_OPTION = 0x70,
	REDO_T_FILE_CREATE = 0x80,
	REDO_T_FILE_DELETE = 0x90,
	REDO_T_FILE_RENAME = 0xA0,
	REDO_T_FILE_MODIFY = 0xB0,
	REDO_T_FILE_CHECKPOINT = 0xF0,
};
#define REDO_EXT_TRIM_PAGES 10 /* EXTENDED subtype: undo tablespace truncation */
#define REDO_EXT_LAST 10       /* the highest EXTENDED subtype */

/* One record, as redo_rec_next() decodes its header. */
typedef struct redo_rec {
	uint8_t b;             /* its first byte */
	uint8_t type;          /* enum redo_rec_type: b & 0x70 for page records, b & 0xF0 for file records */
	bool same_page;        /* no page identifier: it continues the page named before it */
	bool file;             /* a file record (FILE_CREATE .. FILE_CHECKPOINT; mtr walks only) */
	bool padding;          /* a FILE_CHECKPOINT whose payload is all zero: carries nothing (no page id decoded) */
	uint32_t space_id;     /* the page (or file) it names; carried over for a same_page record */
	uint32_t page_no;
	uint32_t start;        /* offset of its first byte in the buffer */
	uint32_t end;          /* offset just past it (also set on REDO_REC_OVERRUN and REDO_REC_BAD_ID) */
	const uint8_t *body;   /* its payload: after the length and the page identifier */
	uint32_t body_len;     /* bytes of payload */
} redo_rec;

/* A walk over a buffer of records: the records of one mtr (redo_rec_mtr) or
 * one page's records of one mtr, which hold no file record (redo_rec_entry). */
typedef struct redo_rec_it {
	const uint8_t *buf;    /* the records */
	size_t len;            /* their bytes (at most UINT32_MAX) */
	size_t pos;            /* offset of the next record; after an error, of the record refused */
	bool same_ok;          /* bit 0x80 means same_page: always in an entry, in an mtr once a page
				* record has been seen (one flag: the walk reads it back at once) */
	uint32_t space_id;     /* the page named last, for same_page records */
	uint32_t page_no;
} redo_rec_it;

/* What redo_rec_next() returns: a record, the end, or why the record at
 * it->pos is refused (the walk then stays there). */
enum redo_rec_status {
	REDO_REC_OK = 1,          /* *rec is the next record */
	REDO_REC_DONE = 0,        /* no record left */
	REDO_REC_MARKER = -1,     /* a byte 0x00 or 0x01 (an mtr's end) where a record starts */
	REDO_REC_BAD_LENGTH = -2, /* the length varint is invalid, truncated or longer than 3 bytes */
	REDO_REC_OVERRUN = -3,    /* the record runs past the end of the buffer */
	REDO_REC_BAD_ID = -4,     /* the page identifier is invalid or cut short by the record's end */
};

/* Start a walk over the records of one mtr (without termination byte and CRC). */
static inline redo_rec_it redo_rec_mtr(const uint8_t *recs, uint32_t len)
{
	return (redo_rec_it){.buf = recs, .len = len};
}

/* Start a walk over records of pages only (a recovery entry): a record with
 * bit 0x80 set is same_page even when no page was named before it. */
static inline redo_rec_it redo_rec_entry(const uint8_t *recs, uint32_t len)
{
	return (redo_rec_it){.buf = recs, .len = len, .same_ok = true};
}

/* The length field of the record whose first byte is p[0] (> 1; avail >= 1
 * bytes from p): low nibble n 1..15, the record is 1 + n bytes; 0, a varint
 * v of at most 3 bytes follows and the record is 16 + v bytes. *size gets
 * the record's bytes, *hdr those of the first byte and the varint. Returns
 * 1; 0 when the varint is invalid or longer than 3 bytes; -1 when avail ends
 * inside it. The framing of an mtr and redo_rec_next() both read it here. */
static inline int redo_rec_length(const uint8_t *p, size_t avail, size_t *size, size_t *hdr)
{
	uint32_t b = p[0];
	size_t n = b & 15, h = 1;
	/* the hint keeps the framing loop's common path (1 + n) one instruction
	 * long, as in a loop written for it alone */
	if (__builtin_expect(!n, 0)) {
		uint32_t v;
		int l = redo_varint_decode(p + 1, avail - 1, &v);
		if (l < 0)
			return -1;
		if (l == 0 || l > 3)
			return 0;
		n = (size_t)v + 15;
		h += (size_t)l;
	}
	*size = n + 1;
	*hdr = h;
	return 1;
}

/* Short text of a REDO_REC_* error ("bad record length", ...). */
const char *redo_rec_why(int status);

/* The next record of the walk: its first byte (a byte <= 1 is refused), its
 * length (redo_rec_length) and unless it is same_page its page identifier
 * (space_id and page_no varints within the record). In an mtr walk a record
 * with bit 0x80 set is same_page once a page record has been seen, a file
 * record before that; a FILE_CHECKPOINT with an all-zero payload is padding
 * (returned with padding set, no page identifier decoded). Only the header
 * is checked: the caller judges type and payload. Returns an enum
 * redo_rec_status; rec->b and rec->start are set on errors too. Inline: the
 * verifier, the collector and the page replay run it for every record. */
static inline int redo_rec_next(redo_rec_it *it, redo_rec *rec)
{
	size_t p = it->pos, n = it->len;
	if (p >= n)
		return REDO_REC_DONE;
	const uint8_t *r = it->buf;
	uint8_t b = r[p];
	rec->b = b;
	rec->start = (uint32_t)p;
	if (b <= 1)
		return REDO_REC_MARKER;
	size_t size, q;
	if (redo_rec_length(r + p, n - p, &size, &q) <= 0)
		return REDO_REC_BAD_LENGTH;
	size_t end = p + size;
	q += p;
	if (end > n) {
		rec->end = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
		return REDO_REC_OVERRUN;
	}
	rec->end = (uint32_t)end;
	rec->same_page = (b & 0x80) && it->same_ok;
	rec->file = (b & 0x80) && !rec->same_page;
	rec->padding = false;
	if (rec->same_page) {
		rec->type = b & 0x70;
		rec->space_id = it->space_id;
		rec->page_no = it->page_no;
	} else {
		rec->type = rec->file ? b & 0xF0 : b & 0x70;
		if (rec->type == REDO_T_FILE_CHECKPOINT) {
			size_t k = q;
			while (k < end && !r[k])
				k++;
			if (k == end) {
				rec->padding = true;
				rec->space_id = rec->page_no = 0;
				rec->body = r + q;
				rec->body_len = (uint32_t)(end - q);
				it->pos = end;
				return REDO_REC_OK;
			}
		}
		uint32_t space, page;
		int l1 = redo_varint_decode(r + q, end - q, &space);
		if (l1 <= 0)
			return REDO_REC_BAD_ID;
		q += (size_t)l1;
		int l2 = redo_varint_decode(r + q, end - q, &page);
		if (l2 <= 0)
			return REDO_REC_BAD_ID;
		q += (size_t)l2;
		rec->space_id = space;
		rec->page_no = page;
		if (!rec->file) {
			it->same_ok = true;
			it->space_id = space;
			it->page_no = page;
		}
	}
	rec->body = r + q;
	rec->body_len = (uint32_t)(end - q);
	it->pos = end;
	return REDO_REC_OK;
}

/* ---- mini-transactions */

enum redo_mtr_status {
	REDO_MTR_OK = 0,    /* a complete, valid mtr: res->len, res->end_lsn */
	REDO_MTR_END,       /* end of log at lsn: res->end_reason */
	REDO_MTR_NEED_MORE, /* the buffer ends before the mtr does (premature end) */
	REDO_MTR_CORRUPT,   /* CRC-valid mtr whose records break the format rules: res->why */
};

enum redo_end_reason {
	REDO_END_NONE = 0,
	REDO_END_MARKER,   /* the byte at lsn is 0x00 or 0x01 */
	REDO_END_TOO_LONG, /* no termination byte within REDO_MTR_SIZE_MAX (or a bad length) */
	REDO_END_SEQUENCE, /* termination byte is not the sequence bit of its pass */
	REDO_END_CRC,      /* CRC-32C mismatch */
};

/* Result of redo_parse_mtr. */
typedef struct redo_mtr {
	uint64_t start_lsn;   /* LSN of the first byte */
	uint64_t end_lsn;     /* OK: start_lsn + len */
	uint32_t len;         /* OK: bytes of records + termination byte [+ nonce] + CRC */
	uint32_t records_len; /* OK: bytes of the records (offset of the termination byte) */
	uint32_t n_records;   /* OK and not encrypted: records walked */
	int end_reason;       /* END: REDO_END_* */
	char why[160];        /* END/CORRUPT: short explanation */
} redo_mtr;

/* What the record walk reports (op values). */
enum redo_file_op {
	REDO_FILE_CREATE = 1,     /* FILE_CREATE space name */
	REDO_FILE_DELETE = 2,     /* FILE_DELETE space name */
	REDO_FILE_RENAME = 3,     /* FILE_RENAME space name new_name */
	REDO_FILE_MODIFY = 4,     /* FILE_MODIFY space name */
	REDO_FILE_CHECKPOINT = 5, /* FILE_CHECKPOINT checkpoint_lsn */
	REDO_INIT_PAGE0 = 6,      /* INIT_PAGE of page 0 of space (a tablespace is being created) */
	REDO_TRIM_PAGES = 7,      /* TRIM_PAGES of an undo tablespace, page_no = new size */
};

/* One reported record. Strings are valid only during the callback. */
typedef struct redo_file_rec {
	int op;                  /* REDO_FILE_* / REDO_INIT_PAGE0 / REDO_TRIM_PAGES */
	uint32_t space_id;       /* tablespace id */
	uint32_t page_no;        /* TRIM_PAGES: new size in pages, else 0 */
	const char *name;        /* file name as the server wrote it ("./db/t.ibd"), NULL if none */
	const char *new_name;    /* RENAME: the new name, else NULL */
	uint64_t lsn;            /* start LSN of the mtr holding the record */
	uint64_t end_lsn;        /* end LSN of that mtr */
	uint64_t checkpoint_lsn; /* FILE_CHECKPOINT: its payload */
} redo_file_rec;

typedef void (*redo_file_cb)(void *ctx, const redo_file_rec *rec);

/* Parse the mtr that starts at buf[0] (LSN lsn; avail bytes available) of a
 * log whose header says first_lsn and whose circular area holds capacity
 * bytes (for the sequence bit). encrypted: the 8-byte nonce layout (records
 * cannot be decoded then, only framed). On OK, unless encrypted, the records
 * are walked and file records etc. reported to cb (may be NULL) in log order;
 * a record that breaks the format rules gives REDO_MTR_CORRUPT (nothing is
 * reported for that mtr). Returns an enum redo_mtr_status. */
int redo_parse_mtr(const uint8_t *buf, size_t avail, uint64_t lsn, uint64_t first_lsn, uint64_t capacity,
		   bool encrypted, redo_mtr *res, redo_file_cb cb, void *cb_ctx);

/* Called for each page record that names its page (a same_page record
 * continues the page named before it): type is the record type (b & 0x70),
 * ext the EXTENDED subtype (else 0). */
typedef void (*redo_page_cb)(void *ctx, uint32_t space_id, uint32_t page_no, uint8_t type, uint8_t ext);

/* The record walk of redo_parse_mtr alone, for an mtr framed with
 * redo_frame_mtr (res: its result; recs: its records_len bytes): every record
 * is checked against the format rules and, in the same pass, file records etc.
 * go to cb and page records to pcb (either may be NULL). Unlike
 * redo_parse_mtr, the records before a broken one have been reported when it
 * returns REDO_MTR_CORRUPT (res->why). */
int redo_walk_mtr(const uint8_t *recs, uint32_t len, redo_mtr *res, redo_file_cb cb, redo_page_cb pcb, void *ctx);

/* Only the framing of redo_parse_mtr: records delimited by their lengths,
 * termination byte and sequence bit, and (when check_crc) the CRC-32C; the
 * records are not walked. For a reader that validates them itself, or that
 * knows the range was already checked (check_crc false). */
int redo_frame_mtr(const uint8_t *buf, size_t avail, uint64_t lsn, uint64_t first_lsn, uint64_t capacity,
		   bool encrypted, bool check_crc, redo_mtr *res);

/* Bytes after the records in an mtr: termination byte [+ nonce] + CRC. */
static inline uint32_t redo_mtr_trailer_len(bool encrypted)
{
	return encrypted ? 13u : 5u;
}

/* ---- the backup copy */

/* The 12 KiB header area of a backup log copy (doc/redo-log.md §10.1), byte for byte what
 * mariabackup writes: format 0x50687973, first_lsn = checkpoint_lsn, creator
 * (e.g. REDO_BACKUP_CREATOR; truncated to 31 bytes), header CRC; checkpoint
 * block 1 = (checkpoint_lsn, end_lsn) + CRC; block 2 zero. */
void redo_build_backup_header(uint8_t out[12288], uint64_t checkpoint_lsn, uint64_t end_lsn, const char *creator);

/* The same for any format: an encrypted log (REDO_FORMAT_ENC_11) keeps the
 * source header's encryption info (bytes 48..75, crypt_info may be NULL). */
void redo_build_backup_header_ex(uint8_t out[12288], uint64_t checkpoint_lsn, uint64_t end_lsn, const char *creator,
				 uint32_t format, const uint8_t *crypt_info);

#endif
