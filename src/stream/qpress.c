/*
 * qpress.c - the .qp reader (see qpress.h; the format is doc/qpress.md).
 *
 * The archive is a sequence of units: the 16-byte header, the file entry,
 * then per block an 8-byte marker and the block itself (12 bytes of offset
 * and checksum, then one QuickLZ packet), and after the end marker the
 * 8-byte trailer. unit_size() tells from the first bytes of a unit how long
 * the unit is, checking each field as soon as it is there; feed() takes a
 * unit in place from the caller's buffer when it is whole there, and
 * otherwise gathers it in q->buf. Only then is it decoded (do_unit()), so
 * no field is ever read beyond the bytes received.
 *
 * The QuickLZ level-1 decoder (doc/qpress.md §4) keeps the table the format
 * implies: for each 12-bit hash of three bytes, the last position of the
 * output where such three bytes were seen. Positions are added exactly as
 * the compressor added them, so a back reference, which names a hash and
 * not an offset, finds the same earlier position. An entry never set, a
 * copy past the declared length, a packet too short for what it says or
 * longer than what it used are all errors.
 */
#include "qpress.h"

#include <zlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"

#define MAGIC "qpress10"
#define MAGIC_LEN 8
#define HEADER_LEN 16            /* magic, chunk size */
#define ENTRY_HEAD 5             /* 'F', name length */
#define NAME_MAX_LEN 4096        /* a longer name in the file entry is corrupt */
#define MARK_LEN 8
#define BLOCK_MARK "NEWBNEWB"
#define END_MARK "ENDSENDS"
#define BLOCK_HEAD 12            /* offset, Adler-32 */
#define TRAILER_LEN 8
#define QLZ_SHORT 3              /* header: flags, compressed and decompressed length as bytes */
#define QLZ_LONG 9               /* the same as 32-bit fields */
#define QLZ_SLACK 400            /* QuickLZ output never exceeds its input by more (plus the header) */
#define QLZ_RATIO 128            /* nor expands a packet more than this (a 3-byte reference makes 255) */
#define QLZ_TAIL 11              /* the last bytes of a packet are always literals */
#define QLZ_HASHES 4096
#define QLZ_NONE UINT32_MAX      /* hash entry not set yet */

enum state { S_HEADER, S_ENTRY, S_MARK, S_BLOCK, S_TRAILER, S_DONE };

struct xb_qpress {
	char *name;               /* for messages */
	xb_qpress_out out;        /* receives the decoded blocks */
	void *arg;                /* its argument */
	enum state st;            /* the unit expected next */
	uint64_t at;              /* archive offset of that unit */
	uint64_t chunk;           /* chunk size from the header */
	uint64_t decoded;         /* bytes decoded, the offset the next block must carry */
	uint64_t blocks;          /* blocks decoded */
	uint8_t *buf;             /* a unit being gathered */
	size_t have, cap;         /* its bytes, buf's size */
	uint8_t *dec;             /* the decoded block */
	size_t dec_cap;           /* dec's size */
};

/* ---------------------------------------------------------------- QuickLZ level 1 */

size_t xb_qlz_header_len(uint8_t flags, const char **why)
{
	if ((flags & 0xf0) != 0x40) {
		*why = "not a QuickLZ packet (bad flags byte)";
		return 0;
	}
	if ((flags >> 2 & 3) != 1) {
		*why = "a QuickLZ packet of a level other than 1 (mariabackup writes level 1)";
		return 0;
	}
	return flags & 2 ? QLZ_LONG : QLZ_SHORT;
}

static inline uint32_t hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
	return (v ^ v >> 12) & (QLZ_HASHES - 1);
}

/* Record every position from *next up to and including last (which needs
 * its three bytes already written). */
static inline void hash_upto(uint32_t *tab, const uint8_t *out, size_t *next, size_t last)
{
	for (; *next <= last; (*next)++)
		tab[hash3(out + *next)] = (uint32_t)*next;
}

int xb_qlz_decompress(const uint8_t *pkt, size_t len, uint8_t *out, size_t out_len, const char **why)
{
	size_t h = len ? xb_qlz_header_len(pkt[0], why) : 0;
	if (!len) {
		*why = "empty QuickLZ packet";
		return -1;
	}
	if (!h)
		return -1;
	if (len < h) {
		*why = "QuickLZ packet shorter than its header";
		return -1;
	}
	uint64_t clen = h == QLZ_LONG ? le32_get(pkt + 1) : pkt[1];
	uint64_t dlen = h == QLZ_LONG ? le32_get(pkt + 5) : pkt[2];
	if (clen != len || dlen != out_len) {
		*why = "QuickLZ packet lengths disagree with the block";
		return -1;
	}
	if (!(pkt[0] & 1)) { /* stored */
		if (len - h != out_len) {
			*why = "stored QuickLZ packet of the wrong length";
			return -1;
		}
		memcpy(out, pkt + h, out_len);
		return 0;
	}
	uint32_t tab[QLZ_HASHES];
	memset(tab, 0xff, sizeof tab);
	size_t src = h, dst = 0, next = 0; /* next: first output position not yet hashed */
	uint32_t cw = 1;                   /* control bits left, above a marker bit */
	while (dst < out_len) {
		if (cw == 1) {
			if (len - src < 4)
				goto short_packet;
			cw = le32_get(pkt + src) | 0x80000000u;
			src += 4;
		}
		if (cw & 1) { /* a back reference */
			cw >>= 1;
			if (len - src < 2)
				goto short_packet;
			uint32_t f = le16_get(pkt + src);
			size_t mlen = f & 0xf;
			if (mlen) {
				mlen += 2;
				src += 2;
			} else {
				if (len - src < 3)
					goto short_packet;
				mlen = pkt[src + 2];
				src += 3;
			}
			uint32_t from = tab[f >> 4];
			if (mlen < 3) {
				*why = "QuickLZ back reference shorter than 3 bytes";
				return -1;
			}
			if (from == QLZ_NONE || from >= dst) {
				*why = "QuickLZ back reference to bytes not decoded yet";
				return -1;
			}
			if (mlen > out_len - dst) {
				*why = "QuickLZ back reference past the end of the block";
				return -1;
			}
			for (size_t i = 0; i < mlen; i++) /* byte by byte: source and target may overlap */
				out[dst + i] = out[from + i];
			hash_upto(tab, out, &next, dst);
			dst += mlen;
			next = dst;
		} else if (dst + QLZ_TAIL < out_len) { /* one literal */
			if (src == len)
				goto short_packet;
			out[dst++] = pkt[src++];
			cw >>= 1;
			if (dst >= 3)
				hash_upto(tab, out, &next, dst - 3);
		} else { /* the tail: literals only, control words skipped */
			while (dst < out_len) {
				if (cw == 1) {
					if (len - src < 4)
						goto short_packet;
					src += 4;
					cw = 0x80000000u;
				}
				if (src == len)
					goto short_packet;
				out[dst++] = pkt[src++];
				cw >>= 1;
			}
		}
	}
	if (src != len) {
		*why = "QuickLZ packet longer than the data it decodes to";
		return -1;
	}
	return 0;
short_packet:
	*why = "QuickLZ packet ends before its data is complete";
	return -1;
}

/* ---------------------------------------------------------------- the archive */


static int corrupt(const xb_qpress *q, uint64_t at, const char *what, xb_error *err)
{
	xb_err_set(err, XB_E_STREAM_CORRUPT, "%s: corrupt qpress archive at byte %llu: %s", q->name,
		   (unsigned long long)at, what);
	return xb_err_hint(err, "the file was damaged after mariabackup wrote it; use another copy of the backup");
}

xb_qpress *xb_qpress_new(const char *name, xb_qpress_out out, void *arg, xb_error *err)
{
	xb_qpress *q = calloc(1, sizeof *q);
	if (q)
		q->name = strdup(name);
	if (!q || !q->name) {
		free(q);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	q->out = out;
	q->arg = arg;
	return q;
}

void xb_qpress_free(xb_qpress *q)
{
	if (!q)
		return;
	free(q->name);
	free(q->buf);
	free(q->dec);
	free(q);
}

uint64_t xb_qpress_decoded(const xb_qpress *q)
{
	return q->decoded;
}

/* The length of the unit starting at p (avail bytes there): *size, with
 * *known true; or, when avail does not tell yet, how many bytes to look at
 * next (*size > avail, *known false). Fields are checked as they come. */
static int unit_size(const xb_qpress *q, const uint8_t *p, size_t avail, size_t *size, bool *known, xb_error *err)
{
	*known = true;
	switch (q->st) {
	case S_HEADER:
		*size = HEADER_LEN;
		return 0;
	case S_ENTRY:
		if (avail < ENTRY_HEAD) {
			*size = ENTRY_HEAD;
			*known = false;
			return 0;
		}
		if (p[0] != 'F')
			return corrupt(q, q->at, p[0] == 'D' || p[0] == 'U'
						     ? "it holds a directory: not a one-file archive of mariabackup"
						     : "no file entry after the header", err);
		if (le32_get(p + 1) > NAME_MAX_LEN)
			return corrupt(q, q->at + 1, "the file entry's name is longer than 4096 bytes", err);
		*size = ENTRY_HEAD + le32_get(p + 1) + 1;
		return 0;
	case S_MARK:
	case S_TRAILER:
		*size = MARK_LEN;
		return 0;
	case S_BLOCK: {
		if (avail < BLOCK_HEAD + 1) {
			*size = BLOCK_HEAD + 1;
			*known = false;
			return 0;
		}
		const char *why;
		size_t h = xb_qlz_header_len(p[BLOCK_HEAD], &why);
		if (!h)
			return corrupt(q, q->at + BLOCK_HEAD, why, err);
		if (avail < BLOCK_HEAD + h) {
			*size = BLOCK_HEAD + h;
			*known = false;
			return 0;
		}
		const uint8_t *ph = p + BLOCK_HEAD;
		uint64_t clen = h == QLZ_LONG ? le32_get(ph + 1) : ph[1];
		uint64_t dlen = h == QLZ_LONG ? le32_get(ph + 5) : ph[2];
		if (le64_get(p) != q->decoded)
			return corrupt(q, q->at, "the block's offset is not where the previous block ended", err);
		if (dlen == 0 || dlen > q->chunk)
			return corrupt(q, q->at + BLOCK_HEAD, "the block's length is 0 or over the chunk size", err);
		if (clen < h || clen > dlen + h + QLZ_SLACK || (!(ph[0] & 1) && clen != dlen + h))
			return corrupt(q, q->at + BLOCK_HEAD, "the QuickLZ packet's length does not fit its contents",
				       err);
		if ((ph[0] & 1) && dlen > (clen - h) * QLZ_RATIO)
			return corrupt(q, q->at + BLOCK_HEAD, "the QuickLZ packet claims more bytes than it can hold",
				       err);
		*size = BLOCK_HEAD + (size_t)clen;
		return 0;
	}
	case S_DONE:
		break;
	}
	*size = 0;
	return corrupt(q, q->at, p[0] == 'F' ? "it holds more than one file: not an archive of mariabackup"
					     : "bytes after the end of the archive", err);
}

static int grow(uint8_t **p, size_t *cap, size_t need, xb_error *err)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 4096;
	while (n < need)
		n *= 2;
	uint8_t *v = realloc(*p, n);
	if (!v)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory for a qpress block of %zu bytes", need);
	*p = v;
	*cap = n;
	return 0;
}

static int do_block(xb_qpress *q, const uint8_t *p, size_t size, xb_error *err)
{
	const uint8_t *pkt = p + BLOCK_HEAD;
	size_t plen = size - BLOCK_HEAD;
	if ((uint32_t)adler32(1, pkt, (uInt)plen) != le32_get(p + 8))
		return corrupt(q, q->at, "the block's checksum does not match its bytes", err);
	size_t dlen = pkt[0] & 2 ? le32_get(pkt + 5) : pkt[2];
	int rc = grow(&q->dec, &q->dec_cap, dlen, err);
	if (rc)
		return rc;
	const char *why;
	if (xb_qlz_decompress(pkt, plen, q->dec, dlen, &why))
		return corrupt(q, q->at + BLOCK_HEAD, why, err);
	q->decoded += dlen;
	q->blocks++;
	return q->out(q->arg, q->dec, dlen, err);
}

/* A whole unit of size bytes at p. */
static int do_unit(xb_qpress *q, const uint8_t *p, size_t size, xb_error *err)
{
	switch (q->st) {
	case S_HEADER:
		if (memcmp(p, MAGIC, MAGIC_LEN))
			return corrupt(q, 0, "no \"qpress10\" at the start: not a qpress archive", err);
		q->chunk = le64_get(p + MAGIC_LEN);
		if (q->chunk == 0 || q->chunk > XB_QPRESS_CHUNK_MAX)
			return corrupt(q, MAGIC_LEN, "chunk size 0 or over 1 GiB", err);
		q->st = S_ENTRY;
		return 0;
	case S_ENTRY:
		if (p[size - 1] != '\0')
			return corrupt(q, q->at + size - 1, "the file entry's name is not terminated", err);
		q->st = S_MARK;
		return 0;
	case S_MARK:
		if (!memcmp(p, BLOCK_MARK, MARK_LEN))
			q->st = S_BLOCK;
		else if (!memcmp(p, END_MARK, MARK_LEN))
			q->st = S_TRAILER;
		else
			return corrupt(q, q->at, "neither a block nor the end of the file", err);
		return 0;
	case S_BLOCK: {
		int rc = do_block(q, p, size, err);
		if (!rc)
			q->st = S_MARK;
		return rc;
	}
	case S_TRAILER:
		q->st = S_DONE; /* the 8 bytes carry nothing mariabackup checks: always zero */
		return 0;
	case S_DONE:
		break;
	}
	return xb_err_set(err, XB_E_INTERNAL, "%s: qpress reader called after the end", q->name);
}

int xb_qpress_feed(xb_qpress *q, const void *buf, size_t len, xb_error *err)
{
	const uint8_t *in = buf;
	while (len) {
		size_t size;
		bool known;
		int rc;
		if (!q->have) { /* a unit whole in the caller's buffer is decoded in place */
			if ((rc = unit_size(q, in, len, &size, &known, err)))
				return rc;
			if (known && size <= len) {
				if ((rc = do_unit(q, in, size, err)))
					return rc;
				q->at += size;
				in += size;
				len -= size;
				continue;
			}
		} else if ((rc = unit_size(q, q->buf, q->have, &size, &known, err))) {
			return rc;
		}
		/* gather: up to what unit_size can tell more from, or the whole unit */
		size_t take = size - q->have < len ? size - q->have : len;
		if ((rc = grow(&q->buf, &q->cap, q->have + take, err)))
			return rc;
		memcpy(q->buf + q->have, in, take);
		q->have += take;
		in += take;
		len -= take;
		if (q->have < size)
			return 0; /* len is 0 */
		if (!known)
			continue;
		if ((rc = do_unit(q, q->buf, size, err)))
			return rc;
		q->at += size;
		q->have = 0;
	}
	return 0;
}

int xb_qpress_end(xb_qpress *q, xb_error *err)
{
	if (q->st == S_DONE && !q->have)
		return 0;
	static const char *const where[] = {
		[S_HEADER] = "in the header", [S_ENTRY] = "in the file entry", [S_MARK] = "between blocks",
		[S_BLOCK] = "inside a block", [S_TRAILER] = "in the trailer", [S_DONE] = "",
	};
	xb_err_set(err, XB_E_STREAM_CORRUPT, "%s is truncated: its qpress archive ends %s, after %llu bytes (%llu decoded)",
		   q->name, where[q->st], (unsigned long long)(q->at + q->have), (unsigned long long)q->decoded);
	return xb_err_hint(err, "the file was cut short (an interrupted copy or transfer?); use another copy of the backup");
}
