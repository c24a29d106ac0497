/*
 * replay.c - replay of InnoDB redo records on one page frame (see replay.h,
 * doc/redo-records.md §3-§6 and §11-§19).
 *
 * replay_entry() walks the records of one entry with redo_rec_next() (redo.h:
 * header byte, length, the page identifier when the same_page bit is clear),
 * then decodes the payload of the record type. A running offset locates the
 * physical writes: a page identifier resets it to
 * 0, INIT_PAGE and EXTENDED records set it to 24 (FIL_PAGE_TYPE), WRITE,
 * MEMSET and MEMMOVE leave it at the end of the bytes they wrote (kept to
 * 16 bits as the server keeps it), and after FREE_PAGE only a record with a
 * page identifier may follow. EXTENDED records redo what the server's page
 * code did: index page creation, undo page init and append, and B-tree record
 * inserts and deletes on REDUNDANT and COMPACT/DYNAMIC pages together with
 * their bookkeeping (heap top, free list, garbage, last insert and direction,
 * owner counts, directory slot split at 9 owned records and balance or merge
 * under 4).
 *
 * Safety: every index operation first checks the page as the server does
 * (page type and number, directory ends, heap bounds, predecessor, successor
 * and owner records, free record) and adds the checks the server leaves to
 * debug builds, then writes. Any offset taken from the log or from the page
 * is checked against the frame before it is used, loops over record chains
 * are bounded, so arbitrary input gives REPLAY_CORRUPT, never an access outside
 * the frame. Page header fields are 16-bit and wrap as in the server.
 */
#include "innodb/recovery/replay.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/bytes.h"
#include "innodb/redo.h"

/* EXTENDED subtypes (doc/redo-records.md §5); record types are redo.h's REDO_T_*. */
enum {
	X_INIT_REDUNDANT = 0,
	X_INIT_DYNAMIC = 1,
	X_UNDO_INIT = 2,
	X_UNDO_APPEND = 3,
	X_INSERT_HEAP_REDUNDANT = 4,
	X_INSERT_REUSE_REDUNDANT = 5,
	X_INSERT_HEAP_DYNAMIC = 6,
	X_INSERT_REUSE_DYNAMIC = 7,
	X_DELETE_REDUNDANT = 8,
	X_DELETE_DYNAMIC = 9,
	X_TRIM_PAGES = 10,
};

/* FIL header, index page header (doc/redo-records.md §12), undo page header (§14). */
enum {
	FIL_PAGE_OFFSET = 4,
	FIL_PAGE_PREV = 8,
	FIL_PAGE_TYPE = 24,
	FIL_PAGE_SPACE_ID = 34,
	FIL_PAGE_DATA = 38,
	FIL_TRAILER = 8,
	TYPE_INDEX = 17855,
	TYPE_RTREE = 17854,
	TYPE_UNDO_LOG = 2,
	PH_N_DIR_SLOTS = 38,
	PH_HEAP_TOP = 40,
	PH_N_HEAP = 42,
	PH_FREE = 44,
	PH_GARBAGE = 46,
	PH_LAST_INSERT = 48,
	PH_INSTANT = 50,
	PH_DIRECTION_B = 51,
	PH_N_DIRECTION = 52,
	PH_N_RECS = 54,
	PH_LEVEL = 64,
	PAGE_DATA = 94,
	DIR_LEFT = 1,
	DIR_RIGHT = 2,
	DIR_NONE = 5,
	OWNED_MAX = 8,
	OWNED_MIN = 4,
	OLD_INF = 101,
	OLD_SUP = 116,
	OLD_SUP_END = 125,
	OLD_FIXED = 6,
	OLD_MAX_FIELDS = 1023,
	NEW_INF = 99,
	NEW_SUP = 112,
	NEW_SUP_END = 120,
	NEW_FIXED = 5,
	UNDO_PAGE_START = 40,
	UNDO_PAGE_FREE = 42,
	UNDO_DATA = 56,
	UNDO_SEG_END = 86,
};

/* System records as INIT_ROW_FORMAT_* lays them out from byte 94 (doc/redo-records.md §13):
 * header, "infimum", header, "supremum". */
static const uint8_t infsup_redundant[31] = {
	0x08, 0x01, 0x00, 0x00, 0x03, 0x00, 0x74, 0x69, 0x6e, 0x66, 0x69, 0x6d, 0x75, 0x6d, 0x00, 0x09,
	0x01, 0x00, 0x08, 0x03, 0x00, 0x00, 0x73, 0x75, 0x70, 0x72, 0x65, 0x6d, 0x75, 0x6d, 0x00,
};
static const uint8_t infsup_dynamic[26] = {
	0x01, 0x00, 0x02, 0x00, 0x0d, 0x69, 0x6e, 0x66, 0x69, 0x6d, 0x75, 0x6d, 0x00,
	0x01, 0x00, 0x0b, 0x00, 0x00, 0x73, 0x75, 0x70, 0x72, 0x65, 0x6d, 0x75, 0x6d,
};

static const char *const kind_names[REPLAY_KINDS] = {
	"FREE_PAGE",
	"INIT_PAGE",
	"WRITE",
	"MEMSET",
	"MEMMOVE",
	"OPTION",
	"INIT_ROW_FORMAT_REDUNDANT",
	"INIT_ROW_FORMAT_DYNAMIC",
	"UNDO_INIT",
	"UNDO_APPEND",
	"INSERT_HEAP_REDUNDANT",
	"INSERT_REUSE_REDUNDANT",
	"INSERT_HEAP_DYNAMIC",
	"INSERT_REUSE_DYNAMIC",
	"DELETE_ROW_FORMAT_REDUNDANT",
	"DELETE_ROW_FORMAT_DYNAMIC",
	"TRIM_PAGES",
};

/* ---- context, messages */

/* One replay_entry() call. */
typedef struct actx {
	const replay_frame *f; /* the frame */
	uint8_t *pg;	      /* f->page */
	uint32_t size;	      /* f->size */
	char *why;	      /* message buffer, may be NULL */
	size_t whylen;	      /* its size */
	size_t rec_no;	      /* 1-based number of the current record */
	size_t rec_at;	      /* its byte offset in the entry */
	uint8_t b;	      /* its header byte */
	int sub;	      /* its EXTENDED subtype, -1 when not known */
} actx;

const char *replay_kind_name(int kind)
{
	return kind >= 0 && kind < REPLAY_KINDS ? kind_names[kind] : "UNKNOWN";
}

int replay_kind_of(uint8_t first_byte, uint8_t ext_subtype)
{
	switch (first_byte & 0x70) {
	case REDO_T_FREE_PAGE:
		return REPLAY_FREE_PAGE;
	case REDO_T_INIT_PAGE:
		return REPLAY_INIT_PAGE;
	case REDO_T_EXTENDED:
		return ext_subtype <= X_TRIM_PAGES ? REPLAY_EXT_INIT_REDUNDANT + ext_subtype : -1;
	case REDO_T_WRITE:
		return REPLAY_WRITE;
	case REDO_T_MEMSET:
		return REPLAY_MEMSET;
	case REDO_T_MEMMOVE:
		return REPLAY_MEMMOVE;
	case REDO_T_OPTION:
		return REPLAY_OPTION;
	default:
		return -1;
	}
}

/* Name of the current record for messages. */
static const char *rec_label(const actx *c)
{
	uint8_t t = c->b & 0x70;
	if (t == REDO_T_RESERVED)
		return "RESERVED";
	if (t == REDO_T_EXTENDED && (c->sub < 0 || c->sub > X_TRIM_PAGES))
		return "EXTENDED";
	return replay_kind_name(replay_kind_of(c->b, (uint8_t)(c->sub < 0 ? 0 : c->sub)));
}

/* Report the current record as corrupt: "record N (KIND) at +OFF: message". */
__attribute__((format(printf, 2, 3))) static int fail(const actx *c, const char *fmt, ...)
{
	if (!c->why || !c->whylen)
		return REPLAY_CORRUPT;
	int n = snprintf(c->why, c->whylen, "record %zu (%s) at +%zu: ", c->rec_no, rec_label(c), c->rec_at);
	if (n >= 0 && (size_t)n < c->whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->why + n, c->whylen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return REPLAY_CORRUPT;
}

/* ---- varints and argument lists */

/* A varint (redo_varint_decode) of at most max bytes from p (avail bytes):
 * its length, 0 when invalid, longer than max or truncated. */
static unsigned vdec(const uint8_t *p, size_t avail, unsigned max, uint32_t *v)
{
	int n = redo_varint_decode(p, avail, v);
	return n > 0 && (unsigned)n <= max ? (unsigned)n : 0;
}

/* Remaining payload bytes of a record, consumed field by field. */
typedef struct args {
	const uint8_t *p; /* next byte */
	uint32_t n;	  /* bytes left */
} args;

enum { MORE, MAY_END, MUST_END }; /* what may follow a field */

/* Take one varint field of at most max bytes; false when malformed. */
static bool arg(args *a, unsigned max, int follow, uint32_t *v)
{
	unsigned l = vdec(a->p, a->n, max, v);
	if (!l || (follow == MORE && l == a->n) || (follow == MUST_END && l != a->n))
		return false;
	a->p += l;
	a->n -= l;
	return true;
}

/* ---- physical records: WRITE, MEMSET, MEMMOVE, INIT_PAGE */

/* Running state of the record walk. */
typedef struct walk {
	uint32_t pos; /* running offset of same_page WRITE/MEMSET/MEMMOVE */
	int lock;     /* LOCK_*: whether a same_page record may come next */
} walk;

enum { LOCK_NONE, LOCK_NO_ID, LOCK_FREED };

/* Decode the relative offset of a WRITE/MEMSET/MEMMOVE and check the target. */
static int target(const actx *c, const walk *w, args *a, uint32_t *off)
{
	uint32_t rel;
	if (!arg(a, 3, MORE, &rel))
		return fail(c, "bad offset varint");
	if (rel >= c->size || w->pos + rel < 8 || w->pos + rel >= c->size)
		return fail(c, "offset %u+%u outside [8, %u)", w->pos, rel, c->size);
	*off = w->pos + rel;
	return 0;
}

/* Check that [off, off+len) fits the page. */
static int fits(const actx *c, uint32_t off, uint32_t len)
{
	if (len > c->size - off)
		return fail(c, "%u bytes at offset %u overrun the %u-byte page", len, off, c->size);
	return 0;
}

static int do_write(const actx *c, walk *w, args a)
{
	uint32_t off;
	if (target(c, w, &a, &off) || fits(c, off, a.n))
		return REPLAY_CORRUPT;
	memcpy(c->pg + off, a.p, a.n);
	w->pos = (off + a.n) & 0xFFFF;
	return 0;
}

static int do_memset(const actx *c, walk *w, args a)
{
	uint32_t off, len;
	if (target(c, w, &a, &off))
		return REPLAY_CORRUPT;
	if (!arg(&a, 3, MORE, &len))
		return fail(c, "bad length varint or no fill byte");
	if (a.n > len)
		return fail(c, "%u fill bytes for a length of %u", a.n, len);
	if (len % a.n)
		return fail(c, "length %u is not a multiple of the %u-byte pattern", len, a.n);
	if (fits(c, off, len))
		return REPLAY_CORRUPT;
	if (a.n == 1)
		memset(c->pg + off, a.p[0], len);
	else
		for (uint32_t i = 0; i < len; i += a.n)
			memcpy(c->pg + off + i, a.p, a.n);
	w->pos = (off + len) & 0xFFFF;
	return 0;
}

static int do_memmove(const actx *c, walk *w, args a)
{
	uint32_t off, len, s;
	if (target(c, w, &a, &off))
		return REPLAY_CORRUPT;
	if (!arg(&a, 3, MORE, &len) || !arg(&a, 3, MUST_END, &s))
		return fail(c, "bad length or source varint, or bytes after the source");
	if (fits(c, off, len))
		return REPLAY_CORRUPT;
	int64_t src = (s & 1) ? (int64_t)off - (s >> 1) - 1 : (int64_t)off + (s >> 1) + 1;
	if (src < 8 || src + len > c->size)
		return fail(c, "source %lld of %u bytes outside [8, %u)", (long long)src, len, c->size);
	memmove(c->pg + off, c->pg + src, len);
	w->pos = (off + len) & 0xFFFF;
	return 0;
}

static void init_page(const actx *c)
{
	memset(c->pg, 0, c->size);
	be32_put(c->pg + FIL_PAGE_OFFSET, c->f->page_no);
	memset(c->pg + FIL_PAGE_PREV, 0xFF, 8);
	be32_put(c->pg + FIL_PAGE_SPACE_ID, c->f->space_id);
}

/* ---- page creation, undo pages */

static void page_create(const actx *c, bool comp)
{
	uint8_t *p = c->pg;
	be16_put(p + FIL_PAGE_TYPE, TYPE_INDEX);
	memset(p + FIL_PAGE_DATA, 0, PH_LEVEL - FIL_PAGE_DATA);
	p[PH_N_DIR_SLOTS + 1] = 2;
	p[PH_DIRECTION_B] = DIR_NONE;
	uint32_t end = comp ? NEW_SUP_END : OLD_SUP_END;
	if (comp) {
		p[PH_N_HEAP] = 0x80;
		memcpy(p + PAGE_DATA, infsup_dynamic, sizeof infsup_dynamic);
	} else {
		memcpy(p + PAGE_DATA, infsup_redundant, sizeof infsup_redundant);
	}
	p[PH_N_HEAP + 1] = 2;
	p[PH_HEAP_TOP + 1] = (uint8_t)end;
	memset(p + end, 0, c->size - FIL_TRAILER - end);
	be16_put(p + c->size - FIL_TRAILER - 4, comp ? NEW_SUP : OLD_SUP);
	be16_put(p + c->size - FIL_TRAILER - 2, comp ? NEW_INF : OLD_INF);
}

static void undo_init(const actx *c)
{
	uint8_t *p = c->pg;
	be16_put(p + FIL_PAGE_TYPE, TYPE_UNDO_LOG);
	be16_put(p + FIL_PAGE_DATA, 0);
	be16_put(p + UNDO_PAGE_START, UNDO_DATA);
	be16_put(p + UNDO_PAGE_FREE, UNDO_DATA);
	memset(p + 44, 0xFF, 4); /* list node: prev page FIL_NULL, offset 0, next page FIL_NULL, offset 0 */
	be16_put(p + 48, 0);
	memset(p + 50, 0xFF, 4);
	be16_put(p + 54, 0);
	memset(p + UNDO_SEG_END, 0, c->size - FIL_TRAILER - UNDO_SEG_END);
}

static int undo_append(const actx *c, const uint8_t *data, uint32_t len)
{
	uint8_t *p = c->pg;
	uint32_t at = be16_get(p + UNDO_PAGE_FREE);
	if (at < UNDO_DATA || at + len + 6 >= c->size - FIL_TRAILER)
		return fail(c, "undo free pointer %u with a %u-byte record does not fit the page", at, len);
	be16_put(p + UNDO_PAGE_FREE, at + 4 + len);
	be16_put(p + at, at + 4 + len);
	memcpy(p + at + 2, data, len);
	be16_put(p + at + 2 + len, at);
	return 0;
}

/* ---- index pages: view, record headers */

/* An index page being modified. */
typedef struct ipage {
	uint8_t *p;	   /* the frame */
	uint32_t size;	   /* its size */
	bool comp;	   /* COMPACT/DYNAMIC (else REDUNDANT) */
	uint32_t inf;	   /* infimum origin */
	uint32_t sup;	   /* supremum origin */
	uint32_t bot;	   /* heap bottom: end of the supremum record */
	uint32_t fixed;	   /* fixed header bytes below an origin (5 or 6) */
	uint32_t n_slots;  /* PAGE_N_DIR_SLOTS */
	uint32_t last;	   /* byte offset of the last directory slot */
	uint32_t top;	   /* PAGE_HEAP_TOP when the operation started */
	uint32_t n_recs;   /* PAGE_N_RECS when the operation started */
} ipage;

static inline uint32_t hget(const ipage *ip, uint32_t field)
{
	return be16_get(ip->p + field);
}

static inline void hset(const ipage *ip, uint32_t field, uint32_t v)
{
	be16_put(ip->p + field, v);
}

static inline uint32_t slot_at(const ipage *ip, uint32_t i)
{
	return ip->size - FIL_TRAILER - 2 - 2 * i;
}

/* Next record of r (absolute offset). */
static inline uint32_t rec_next(const ipage *ip, uint32_t r)
{
	uint32_t v = be16_get(ip->p + r - 2);
	return ip->comp ? (r + v) & 0xFFFF : v;
}

static inline uint32_t n_owned(const ipage *ip, uint32_t r)
{
	return ip->p[r - ip->fixed] & 15;
}

static inline void set_owned(const ipage *ip, uint32_t r, uint32_t n)
{
	uint8_t *b = ip->p + r - ip->fixed;
	*b = (uint8_t)((*b & 0xF0) | (n & 15));
}

static inline uint32_t heap_no(const ipage *ip, uint32_t r)
{
	return be16_get(ip->p + r - (ip->comp ? 4 : 5)) >> 3;
}

/* REDUNDANT header fields of the record at origin r of buffer p. */
static inline uint32_t old_n_fields(const uint8_t *p, uint32_t r)
{
	return (be16_get(p + r - 4) >> 1) & 0x3FF;
}

static inline uint32_t old_extra(const uint8_t *p, uint32_t r)
{
	uint32_t n = old_n_fields(p, r);
	return OLD_FIXED + ((p[r - 3] & 1) ? n : 2 * n);
}

/* Data size: end offset of the last field; r - old_extra(p, r) must be readable. */
static inline uint32_t old_data_size(const uint8_t *p, uint32_t r)
{
	uint32_t n = old_n_fields(p, r);
	if (p[r - 3] & 1)
		return p[r - OLD_FIXED - n] & 0x7F;
	return be16_get(p + r - OLD_FIXED - 2 * n) & 0x3FFF;
}

/* Whether r is the supremum or a possible user record origin inside the heap. */
static bool rec_ok(const ipage *ip, uint32_t r)
{
	return r == ip->sup || (r >= ip->bot + ip->fixed && r <= hget(ip, PH_HEAP_TOP) && r <= ip->last);
}

/* Open an index page of the given format for an insert or delete: the checks
 * the server makes before touching it, plus sane heap top and directory ends. */
static int ipage_open(const actx *c, ipage *ip, bool comp)
{
	uint8_t *p = c->pg;
	*ip = (ipage){.p = p, .size = c->size, .comp = comp};
	ip->inf = comp ? NEW_INF : OLD_INF;
	ip->sup = comp ? NEW_SUP : OLD_SUP;
	ip->bot = comp ? NEW_SUP_END : OLD_SUP_END;
	ip->fixed = comp ? NEW_FIXED : OLD_FIXED;
	uint32_t type = be16_get(p + FIL_PAGE_TYPE);
	if (type != TYPE_INDEX && type != TYPE_RTREE)
		return fail(c, "page type %u is not an index page", type);
	if (be32_get(p + FIL_PAGE_OFFSET) != c->f->page_no)
		return fail(c, "page number field %u is not %u", be32_get(p + FIL_PAGE_OFFSET), c->f->page_no);
	if (!!(p[PH_N_HEAP] & 0x80) != comp)
		return fail(c, "%s page", comp ? "REDUNDANT" : "COMPACT");
	ip->n_slots = hget(ip, PH_N_DIR_SLOTS);
	if (ip->n_slots < 2 || ip->n_slots > (c->size - FIL_TRAILER - ip->bot) / 2)
		return fail(c, "%u directory slots", ip->n_slots);
	ip->last = slot_at(ip, ip->n_slots - 1);
	ip->top = hget(ip, PH_HEAP_TOP);
	if (ip->top < ip->bot || ip->top > ip->last)
		return fail(c, "heap top %u outside [%u, %u]", ip->top, ip->bot, ip->last);
	if (be16_get(p + ip->sup - 2))
		return fail(c, "supremum has a next record");
	if (be16_get(p + ip->last) != ip->sup || be16_get(p + slot_at(ip, 0)) != ip->inf)
		return fail(c, "directory does not run from infimum to supremum");
	ip->n_recs = hget(ip, PH_N_RECS);
	return 0;
}

/* Index of the directory slot (1..n_slots-1) pointing to r, 0 when none. */
static uint32_t find_slot(const ipage *ip, uint32_t r)
{
	for (uint32_t i = ip->n_slots - 1; i > 0; i--)
		if (be16_get(ip->p + slot_at(ip, i)) == r)
			return i;
	return 0;
}

/* From r, follow next pointers (at most max steps) to the first record that
 * owns a group, then find its slot. */
static int find_owner(const actx *c, const ipage *ip, uint32_t r, uint32_t max, uint32_t *owner, uint32_t *owned,
		      uint32_t *slot)
{
	uint32_t steps = 0;
	while (!(*owned = n_owned(ip, r))) {
		uint32_t delta = be16_get(ip->p + r - 2);
		if (ip->comp && (delta < NEW_FIXED || delta > 0x10000 - NEW_FIXED))
			return fail(c, "record %u has a next pointer %+d", r, (int16_t)delta);
		r = rec_next(ip, r);
		if (!rec_ok(ip, r))
			return fail(c, "record chain leads to offset %u outside the heap", r);
		if (++steps > max)
			return fail(c, "no owner record within %u records (cyclic list?)", max);
	}
	if (*owned > OWNED_MAX)
		return fail(c, "owner record %u owns %u records", r, *owned);
	*owner = r;
	if (!(*slot = find_slot(ip, r)))
		return fail(c, "owner record %u is in no directory slot", r);
	return 0;
}

/* ---- directory maintenance (doc/redo-records.md §18) */

/* Whether r may be held by a directory slot. */
static bool slot_rec_ok(const ipage *ip, uint32_t r)
{
	return r == ip->inf || rec_ok(ip, r);
}

/* Split slot s whose owner now owns 9 records. */
static int split_slot(const actx *c, ipage *ip, uint32_t s)
{
	uint32_t r = be16_get(ip->p + slot_at(ip, s - 1));
	for (int i = 0; i <= (OWNED_MAX + 1) / 2; i++) {
		if (!slot_rec_ok(ip, r))
			return fail(c, "directory split reaches offset %u outside the heap", r);
		if (i < (OWNED_MAX + 1) / 2)
			r = rec_next(ip, r);
	}
	uint32_t so = slot_at(ip, s);
	memmove(ip->p + ip->last - 2, ip->p + ip->last, so + 2 - ip->last);
	ip->n_slots++;
	ip->last -= 2;
	hset(ip, PH_N_DIR_SLOTS, ip->n_slots);
	be16_put(ip->p + so, r);
	set_owned(ip, r, (OWNED_MAX + 1) / 2);
	set_owned(ip, be16_get(ip->p + so - 2), OWNED_MAX + 1 - (OWNED_MAX + 1) / 2);
	return 0;
}

/* Balance slot s whose owner now owns 3 records: merge it into slot s+1 or
 * take one record from it. */
static int balance_slot(const actx *c, ipage *ip, uint32_t s)
{
	if (s + 1 >= ip->n_slots)
		return 0;
	uint32_t so = slot_at(ip, s);
	uint32_t up = be16_get(ip->p + so - 2), own = be16_get(ip->p + so);
	if (!slot_rec_ok(ip, up) || !slot_rec_ok(ip, own))
		return fail(c, "directory slots %u/%u point outside the heap (%u, %u)", s, s + 1, own, up);
	uint32_t up_owned = n_owned(ip, up);
	if (up_owned <= OWNED_MIN) {
		set_owned(ip, own, 0);
		set_owned(ip, up, up_owned + OWNED_MIN - 1);
		memmove(ip->p + ip->last + 2, ip->p + ip->last, so - ip->last);
		be16_put(ip->p + ip->last, 0);
		ip->last += 2;
		hset(ip, PH_N_DIR_SLOTS, --ip->n_slots);
		return 0;
	}
	uint32_t t = rec_next(ip, own);
	if (!rec_ok(ip, t) || t == ip->sup)
		return fail(c, "record after slot owner %u is at offset %u", own, t);
	set_owned(ip, own, 0);
	set_owned(ip, t, OWNED_MIN);
	set_owned(ip, up, up_owned - 1);
	be16_put(ip->p + so, t);
	return 0;
}

/* Update PAGE_DIRECTION_B and PAGE_N_DIRECTION after an insert (not on R-trees). */
static void set_direction(const ipage *ip, uint32_t last_insert, uint32_t prev, uint32_t next)
{
	if (ip->p[FIL_PAGE_TYPE + 1] == (TYPE_RTREE & 0xFF))
		return;
	uint8_t *d = ip->p + PH_DIRECTION_B;
	unsigned dir = *d & 7;
	if (last_insert && last_insert == prev && dir != DIR_LEFT) {
		*d = (uint8_t)((*d & ~7u) | DIR_RIGHT);
		hset(ip, PH_N_DIRECTION, hget(ip, PH_N_DIRECTION) + 1);
	} else if (last_insert && last_insert == next && dir != DIR_RIGHT) {
		*d = (uint8_t)((*d & ~7u) | DIR_LEFT);
		hset(ip, PH_N_DIRECTION, hget(ip, PH_N_DIRECTION) + 1);
	} else {
		*d = (uint8_t)((*d & ~7u) | DIR_NONE);
		hset(ip, PH_N_DIRECTION, 0);
	}
}

/* Common tail of both inserts: owner count, direction, record count, split. */
static int insert_finish(const actx *c, ipage *ip, const uint32_t *own, uint32_t last_insert, uint32_t prev,
			 uint32_t next)
{
	set_owned(ip, own[0], own[1] + 1);
	set_direction(ip, last_insert, prev, next);
	hset(ip, PH_N_RECS, hget(ip, PH_N_RECS) + 1);
	return own[1] == OWNED_MAX ? split_slot(c, ip, own[2]) : 0;
}

/* ---- INSERT_*_REDUNDANT (doc/redo-records.md §15) */

/* Decoded arguments of an insert. */
typedef struct ins {
	bool reuse;	     /* INSERT_REUSE_* */
	uint32_t prev;	     /* predecessor, relative to the infimum */
	uint32_t shift;	     /* REUSE_DYNAMIC: displacement from PAGE_FREE - extra */
	uint32_t enc;	     /* encoded header bits */
	uint32_t hdr_c;	     /* header bytes copied from the predecessor */
	uint32_t data_c;     /* data bytes copied from the predecessor */
	const uint8_t *lit;  /* literal bytes */
	uint32_t len;	     /* their count */
} ins;

/* Check the predecessor of a REDUNDANT insert and find its successor. */
static int old_prev(const actx *c, const ipage *ip, const ins *in, uint32_t prev_rec, uint32_t *next_rec)
{
	if (in->prev && (prev_rec < ip->bot + OLD_FIXED + 1 || prev_rec > ip->top))
		return fail(c, "prev record offset %u outside the heap [%u, %u]", prev_rec, ip->bot, ip->top);
	uint32_t pn = old_n_fields(ip->p, prev_rec);
	if (!pn)
		return fail(c, "prev record %u has no fields", prev_rec);
	uint32_t low = prev_rec == ip->inf ? PAGE_DATA : ip->bot;
	if (prev_rec < low + old_extra(ip->p, prev_rec))
		return fail(c, "prev record %u header below the heap", prev_rec);
	if (in->hdr_c && prev_rec < ip->bot + in->hdr_c)
		return fail(c, "%u common header bytes below prev record %u", in->hdr_c, prev_rec);
	if (prev_rec + old_data_size(ip->p, prev_rec) > ip->top)
		return fail(c, "prev record %u data beyond heap top %u", prev_rec, ip->top);
	*next_rec = rec_next(ip, prev_rec);
	if (*next_rec != ip->sup && (*next_rec < ip->bot + OLD_FIXED || *next_rec > ip->top))
		return fail(c, "next record offset %u outside the heap", *next_rec);
	return 0;
}

/* Build the header image (extra bytes ending at the origin) of a REDUNDANT insert. */
static int old_header(const actx *c, const ipage *ip, const ins *in, uint32_t prev_rec, uint8_t *img,
		      uint32_t *extra, uint32_t *dsize)
{
	uint32_t is_short = (in->enc >> 2) & 1, nf = (in->enc >> 3) + 1;
	if (nf > OLD_MAX_FIELDS)
		return fail(c, "%u fields", nf);
	uint32_t x = OLD_FIXED + (is_short ? nf : 2 * nf), h = in->hdr_c + OLD_FIXED;
	if (h > x || x - h > in->len)
		return fail(c, "%u common header bytes for a %u-byte header and %u literal bytes", in->hdr_c, x,
			    in->len);
	memcpy(img, in->lit, x - h);
	memcpy(img + x - h, ip->p + prev_rec - h, h);
	img[x - 6] = (uint8_t)((img[x - 6] & 0x0F) | (in->enc & 3) << 4);
	img[x - 3] = (uint8_t)((img[x - 3] & ~1u) | is_short);
	be16_put(img + x - 4, (be16_get(img + x - 4) & ~0x7FEu) | nf << 1);
	img[x - 6] &= 0xF0;
	*dsize = old_data_size(img, x);
	if (in->data_c > *dsize || (x - h) + (*dsize - in->data_c) != in->len)
		return fail(c, "data size %u does not match %u copied and %u literal bytes", *dsize, in->data_c,
			    in->len - (x - h));
	if (prev_rec + in->data_c > ip->last)
		return fail(c, "%u bytes copied from prev record %u overrun the heap", in->data_c, prev_rec);
	*extra = x;
	return 0;
}

/* Take the first free record for a REDUNDANT insert of size need; start of the space and heap number. */
static int old_reuse(const actx *c, const ipage *ip, uint32_t need, uint32_t *buf, uint32_t *hn)
{
	uint32_t fr = hget(ip, PH_FREE);
	if (fr < ip->bot + OLD_FIXED || fr > ip->top)
		return fail(c, "free record offset %u outside the heap", fr);
	uint32_t fx = old_extra(ip->p, fr);
	if (fr < ip->bot + fx)
		return fail(c, "free record %u header below the heap", fr);
	uint32_t fd = old_data_size(ip->p, fr);
	if (fr + fd > ip->top)
		return fail(c, "free record %u data beyond heap top %u", fr, ip->top);
	if (need > fx + fd)
		return fail(c, "record of %u bytes does not fit free record %u of %u bytes", need, fr, fx + fd);
	uint32_t garbage = hget(ip, PH_GARBAGE);
	if (garbage < fx + fd)
		return fail(c, "garbage %u below free record size %u", garbage, fx + fd);
	uint32_t nf = rec_next(ip, fr);
	if (nf && (nf < ip->bot + OLD_FIXED + 1 || nf > ip->top))
		return fail(c, "next free record offset %u outside the heap", nf);
	hset(ip, PH_GARBAGE, garbage - need);
	*hn = heap_no(ip, fr);
	hset(ip, PH_FREE, nf);
	*buf = fr - fx;
	return 0;
}

/* Allocate need bytes at the heap top; start of the space and heap number. */
static int heap_alloc(const actx *c, const ipage *ip, uint32_t need, uint32_t *buf, uint32_t *hn)
{
	if (need > ip->last - ip->top)
		return fail(c, "record of %u bytes does not fit between heap top %u and the directory at %u", need,
			    ip->top, ip->last);
	uint32_t h = hget(ip, PH_N_HEAP);
	hset(ip, PH_N_HEAP, h + 1);
	hset(ip, PH_HEAP_TOP, ip->top + need);
	*hn = h & 0x7FFF;
	*buf = ip->top;
	return 0;
}

static int insert_redundant(const actx *c, const ins *in)
{
	ipage ip;
	if (ipage_open(c, &ip, false))
		return REPLAY_CORRUPT;
	uint32_t h = hget(&ip, PH_N_HEAP);
	if (h < ip.n_slots || h < 2 || h >= c->size / OLD_FIXED)
		return fail(c, "PAGE_N_HEAP %u", h);
	uint32_t prev_rec = OLD_INF + in->prev, next_rec = 0, own[3] = {0}, extra = 0, dsize = 0, buf = 0, hn = 0;
	uint8_t img[OLD_FIXED + 2 * OLD_MAX_FIELDS];
	if (old_prev(c, &ip, in, prev_rec, &next_rec) ||
	    find_owner(c, &ip, next_rec, OWNED_MAX, &own[0], &own[1], &own[2]) ||
	    old_header(c, &ip, in, prev_rec, img, &extra, &dsize))
		return REPLAY_CORRUPT;
	if (in->reuse ? old_reuse(c, &ip, extra + dsize, &buf, &hn) : heap_alloc(c, &ip, extra + dsize, &buf, &hn))
		return REPLAY_CORRUPT;
	be16_put(img + extra - 5, (be16_get(img + extra - 5) & 7) | hn << 3);
	uint32_t last_insert = hget(&ip, PH_LAST_INSERT), origin = buf + extra;
	memcpy(ip.p + buf, img, extra);
	hset(&ip, PH_LAST_INSERT, origin);
	be16_put(ip.p + prev_rec - 2, origin);
	memmove(ip.p + origin, ip.p + prev_rec, in->data_c);
	memcpy(ip.p + origin + in->data_c, in->lit + (in->len - (dsize - in->data_c)), dsize - in->data_c);
	return insert_finish(c, &ip, own, last_insert, prev_rec, next_rec);
}

/* ---- INSERT_*_DYNAMIC (doc/redo-records.md §16) */

/* Check the predecessor of a COMPACT insert and find its successor. */
static int new_prev(const actx *c, const ipage *ip, const ins *in, uint32_t prev_rec, uint32_t *next_rec)
{
	if (in->prev && (prev_rec < ip->bot + NEW_FIXED || prev_rec > ip->top))
		return fail(c, "prev record offset %u outside the heap [%u, %u]", prev_rec, ip->bot, ip->top);
	if (in->hdr_c && prev_rec < ip->bot + NEW_FIXED + in->hdr_c)
		return fail(c, "%u common header bytes below prev record %u", in->hdr_c, prev_rec);
	if (prev_rec + in->data_c > ip->last)
		return fail(c, "%u bytes copied from prev record %u overrun the heap", in->data_c, prev_rec);
	*next_rec = rec_next(ip, prev_rec);
	if (*next_rec != ip->sup && (*next_rec < ip->bot + NEW_FIXED || *next_rec > ip->top))
		return fail(c, "next record offset %u outside the heap", *next_rec);
	return 0;
}

/* Take the first free record for a COMPACT insert of size need (extra header bytes). */
static int new_reuse(const actx *c, const ipage *ip, const ins *in, uint32_t extra, uint32_t need, uint32_t *buf,
		     uint32_t *hn)
{
	uint32_t fr = hget(ip, PH_FREE);
	if (fr < ip->bot + NEW_FIXED || fr > ip->top)
		return fail(c, "free record offset %u outside the heap", fr);
	int64_t b = (int64_t)fr - extra + ((in->shift & 1) ? -(int64_t)(in->shift >> 1) : (int64_t)(in->shift >> 1));
	if (b < ip->bot || b + need > ip->top)
		return fail(c, "reused space at %lld of %u bytes outside the heap", (long long)b, need);
	uint32_t garbage = hget(ip, PH_GARBAGE);
	if (garbage < need)
		return fail(c, "garbage %u below the record size %u", garbage, need);
	uint32_t nf = be16_get(ip->p + fr - 2);
	if (nf) {
		nf = (nf + fr) & 0xFFFF;
		if (nf < ip->bot + NEW_FIXED || nf > ip->top)
			return fail(c, "next free record offset %u outside the heap", nf);
	}
	hset(ip, PH_FREE, nf);
	hset(ip, PH_GARBAGE, garbage - need);
	*hn = heap_no(ip, fr);
	*buf = (uint32_t)b;
	return 0;
}

static int insert_dynamic(const actx *c, const ins *in)
{
	ipage ip;
	if (ipage_open(c, &ip, true))
		return REPLAY_CORRUPT;
	uint32_t h = hget(&ip, PH_N_HEAP), hl = in->enc >> 3;
	bool leaf = !hget(&ip, PH_LEVEL);
	if (h < (0x8000 | 2) || (h & 0x7FFF) >= c->size / NEW_FIXED || (h & 0x7FFF) < ip.n_slots)
		return fail(c, "PAGE_N_HEAP %#x", h);
	if ((in->enc & 4) && !leaf)
		return fail(c, "instant record on a non-leaf page");
	if (hl > in->len)
		return fail(c, "%u literal header bytes but %u literal bytes", hl, in->len);
	uint32_t prev_rec = NEW_INF + in->prev, next_rec = 0, own[3] = {0}, buf = 0, hn = 0;
	uint32_t extra = NEW_FIXED + in->hdr_c + hl, need = extra + in->data_c + in->len - hl;
	if (new_prev(c, &ip, in, prev_rec, &next_rec) ||
	    find_owner(c, &ip, next_rec, OWNED_MAX, &own[0], &own[1], &own[2]))
		return REPLAY_CORRUPT;
	if (in->reuse ? new_reuse(c, &ip, in, extra, need, &buf, &hn) : heap_alloc(c, &ip, need, &buf, &hn))
		return REPLAY_CORRUPT;
	uint8_t *p = ip.p;
	memcpy(p + buf, in->lit, hl);
	memmove(p + buf + hl, p + prev_rec - NEW_FIXED - in->hdr_c, in->hdr_c);
	uint32_t o = buf + extra;
	p[o - 5] = (uint8_t)((in->enc & 3) << 4);
	p[o - 4] = (uint8_t)(hn >> 5);
	p[o - 3] = (uint8_t)((hn & 31) << 3 | (leaf ? in->enc & 4 : 1));
	be16_put(p + o - 2, (next_rec - o) & 0xFFFF);
	uint32_t last_insert = hget(&ip, PH_LAST_INSERT);
	hset(&ip, PH_LAST_INSERT, o);
	be16_put(p + prev_rec - 2, (o - prev_rec) & 0xFFFF);
	memmove(p + o, p + prev_rec, in->data_c);
	memcpy(p + o + in->data_c, in->lit + hl, in->len - hl);
	return insert_finish(c, &ip, own, last_insert, prev_rec, next_rec);
}

/* ---- deletes (doc/redo-records.md §17) and the free-list push (§18.1) */

/* Remove record r (extra header bytes, dsize data bytes) from the heap:
 * shrink the heap top when it is the last heap record, else push it on the free list. */
static void mem_free(const ipage *ip, uint32_t r, uint32_t dsize, uint32_t extra)
{
	uint32_t old_free = hget(ip, PH_FREE), n_heap = (hget(ip, PH_N_HEAP) - 1) & 0xFFFF;
	bool top = n_heap == (ip->comp ? heap_no(ip, r) | 0x8000 : heap_no(ip, r));
	if (top) {
		uint32_t savings = (hget(ip, PH_HEAP_TOP) - (r + dsize)) & 0xFFFF;
		hset(ip, PH_HEAP_TOP, r - extra);
		hset(ip, PH_N_HEAP, n_heap);
		if (savings)
			hset(ip, PH_GARBAGE, hget(ip, PH_GARBAGE) - savings);
	} else {
		hset(ip, PH_FREE, r);
		hset(ip, PH_GARBAGE, hget(ip, PH_GARBAGE) + extra + dsize);
	}
	hset(ip, PH_LAST_INSERT, 0);
	hset(ip, PH_N_RECS, hget(ip, PH_N_RECS) - 1);
	uint32_t start = r;
	if (!top)
		be16_put(ip->p + r - 2, !old_free ? 0 : ip->comp ? (old_free - r) & 0xFFFF : old_free);
	else
		start = r - extra;
	memset(ip->p + start, 0, r + dsize - start);
}

/* Open the page for a delete and check the record after prev_rec. */
static int del_open(const actx *c, ipage *ip, bool comp, uint32_t prev_rec, uint32_t *r)
{
	if (ipage_open(c, ip, comp))
		return REPLAY_CORRUPT;
	if (!ip->n_recs)
		return fail(c, "PAGE_N_RECS is 0");
	uint32_t fr = hget(ip, PH_FREE);
	if (fr && !rec_ok(ip, fr))
		return fail(c, "PAGE_FREE %u outside the heap", fr);
	if (prev_rec != ip->inf && !rec_ok(ip, prev_rec))
		return fail(c, "prev record offset %u outside the heap [%u, %u]", prev_rec, ip->bot, ip->top);
	*r = rec_next(ip, prev_rec);
	if (*r == ip->sup || !rec_ok(ip, *r))
		return fail(c, "record to delete at offset %u is not a user record in the heap", *r);
	return 0;
}

/* Unlink r (after prev_rec) and free it; rebalance its slot. */
static int del_finish(const actx *c, ipage *ip, uint32_t prev_rec, uint32_t r, uint32_t dsize, uint32_t extra)
{
	if (r < ip->bot + extra || r + dsize > ip->top)
		return fail(c, "record %u of %u+%u bytes outside the heap", r, extra, dsize);
	uint32_t next = rec_next(ip, r), s = 0, owned = 0, si = 0;
	if (!rec_ok(ip, next))
		return fail(c, "next record offset %u outside the heap", next);
	if (find_owner(c, ip, r, ip->n_recs, &s, &owned, &si))
		return REPLAY_CORRUPT;
	owned--;
	if (r == s) {
		s = prev_rec;
		be16_put(ip->p + slot_at(ip, si), s);
	}
	be16_put(ip->p + prev_rec - 2, ip->comp ? (next - prev_rec) & 0xFFFF : next);
	set_owned(ip, s, owned);
	mem_free(ip, r, dsize, extra);
	return owned < OWNED_MIN ? balance_slot(c, ip, si) : 0;
}

static int delete_redundant(const actx *c, uint32_t prev)
{
	ipage ip;
	uint32_t prev_rec = OLD_INF + prev, r = 0;
	if (del_open(c, &ip, false, prev_rec, &r))
		return REPLAY_CORRUPT;
	uint32_t extra = old_extra(ip.p, r);
	if (r < ip.bot + extra)
		return fail(c, "record %u header below the heap", r);
	return del_finish(c, &ip, prev_rec, r, old_data_size(ip.p, r), extra);
}

static int delete_dynamic(const actx *c, uint32_t prev, uint32_t hdr_size, uint32_t dsize)
{
	ipage ip;
	uint32_t prev_rec = NEW_INF + prev, r = 0;
	if (del_open(c, &ip, true, prev_rec, &r))
		return REPLAY_CORRUPT;
	return del_finish(c, &ip, prev_rec, r, dsize, NEW_FIXED + hdr_size);
}

/* ---- EXTENDED records */

static int ext_insert(const actx *c, uint8_t sub, args a)
{
	ins in = {.reuse = sub & 1};
	bool dyn = sub & 2, ok = arg(&a, 3, MORE, &in.prev);
	if (ok && dyn && in.reuse)
		ok = arg(&a, 3, MORE, &in.shift);
	ok = ok && arg(&a, dyn ? 3 : 2, MORE, &in.enc) && arg(&a, 2, MORE, &in.hdr_c) &&
	     arg(&a, dyn ? 3 : 2, MAY_END, &in.data_c);
	if (!ok)
		return fail(c, "malformed arguments");
	in.lit = a.p;
	in.len = a.n;
	return dyn ? insert_dynamic(c, &in) : insert_redundant(c, &in);
}

static int ext_delete(const actx *c, uint8_t sub, args a)
{
	uint32_t prev, hdr_size, dsize;
	if (sub == X_DELETE_REDUNDANT) {
		if (!arg(&a, 3, MUST_END, &prev))
			return fail(c, "malformed arguments");
		return delete_redundant(c, prev);
	}
	if (!arg(&a, 3, MORE, &prev) || !arg(&a, 2, MORE, &hdr_size) || !arg(&a, 3, MUST_END, &dsize))
		return fail(c, "malformed arguments");
	return delete_dynamic(c, prev, hdr_size, dsize);
}

static int do_extended(const actx *c, args a)
{
	if (c->f->zip)
		return fail(c, "EXTENDED record on a ROW_FORMAT=COMPRESSED page");
	if (c->f->page_no < 3)
		return fail(c, "EXTENDED record on page %u", c->f->page_no);
	if (!a.n)
		return fail(c, "no subtype byte");
	uint8_t sub = *a.p++;
	a.n--;
	switch (sub) {
	case X_INIT_REDUNDANT:
	case X_INIT_DYNAMIC:
	case X_UNDO_INIT:
	case X_TRIM_PAGES:
		if (a.n)
			return fail(c, "%u bytes after the subtype", a.n);
		if (sub == X_UNDO_INIT)
			undo_init(c);
		else if (sub != X_TRIM_PAGES)
			page_create(c, sub == X_INIT_DYNAMIC);
		return 0;
	case X_UNDO_APPEND:
		if (a.n < 3)
			return fail(c, "undo record of %u bytes", a.n);
		return undo_append(c, a.p, a.n);
	case X_INSERT_HEAP_REDUNDANT:
	case X_INSERT_REUSE_REDUNDANT:
	case X_INSERT_HEAP_DYNAMIC:
	case X_INSERT_REUSE_DYNAMIC:
		return ext_insert(c, sub, a);
	case X_DELETE_REDUNDANT:
	case X_DELETE_DYNAMIC:
		return ext_delete(c, sub, a);
	default:
		return fail(c, "unknown EXTENDED subtype %u", sub);
	}
}

/* ---- the record walk */

/* Report the record at p that redo_rec_next() refused (st). */
static int refused(const actx *c, int st, const redo_rec *r, size_t p, size_t len)
{
	switch (st) {
	case REDO_REC_MARKER:
		return fail(c, "end-of-mtr byte %02x inside the entry", r->b);
	case REDO_REC_BAD_LENGTH:
		return fail(c, "bad length varint");
	case REDO_REC_OVERRUN:
		return fail(c, "record of %zu bytes overruns the entry (%zu bytes left)", (size_t)r->end - p, len - p);
	default:
		return fail(c, "bad page identifier");
	}
}

/* Apply one framed record. */
static int apply_rec(const actx *c, walk *w, const redo_rec *r)
{
	uint8_t t = r->type;
	if (!r->same_page) {
		w->pos = 0;
		w->lock = LOCK_NONE;
	} else if (w->lock != LOCK_NONE) {
		return fail(c, w->lock == LOCK_FREED ? "same_page record after FREE_PAGE"
						     : "same_page record without a page identifier before it");
	}
	args a = {r->body, r->body_len};
	switch (t) {
	case REDO_T_FREE_PAGE:
	case REDO_T_INIT_PAGE:
		if (r->same_page || r->body_len)
			return fail(c, "must carry a page identifier and nothing else");
		if (t == REDO_T_INIT_PAGE)
			init_page(c);
		w->pos = FIL_PAGE_TYPE;
		w->lock = t == REDO_T_FREE_PAGE ? LOCK_FREED : LOCK_NONE;
		return 0;
	case REDO_T_EXTENDED:
		w->pos = FIL_PAGE_TYPE;
		return do_extended(c, a);
	case REDO_T_WRITE:
		return do_write(c, w, a);
	case REDO_T_MEMSET:
		return do_memset(c, w, a);
	case REDO_T_MEMMOVE:
		return do_memmove(c, w, a);
	case REDO_T_OPTION:
		return 0;
	default:
		return fail(c, "reserved record type");
	}
}

static bool frame_ok(const replay_frame *f)
{
	return f && f->page && f->size >= 1024 && f->size <= 65536 && !(f->size & (f->size - 1));
}

int replay_entry(const replay_frame *f, const uint8_t *recs, size_t len, replay_stats *st, bool *only_free, char *why,
		size_t whylen)
{
	actx c = {.f = f, .why = why, .whylen = whylen, .sub = -1};
	walk w = {.pos = 0, .lock = LOCK_NO_ID};
	size_t n_free = 0;
	if (only_free)
		*only_free = false;
	if (why && whylen)
		why[0] = 0;
	if (!frame_ok(f) || (!recs && len) || len > UINT32_MAX) {
		if (why && whylen)
			snprintf(why, whylen, "invalid frame or record buffer");
		return REPLAY_CORRUPT;
	}
	c.pg = f->page;
	c.size = f->size;
	redo_rec_it it = redo_rec_entry(recs, (uint32_t)len);
	while (it.pos < len) {
		redo_rec r;
		c.rec_no++;
		c.rec_at = it.pos;
		int rs = redo_rec_next(&it, &r);
		c.b = recs[c.rec_at];
		c.sub = -1;
		if (rs != REDO_REC_OK)
			return refused(&c, rs, &r, c.rec_at, len);
		if (r.type == REDO_T_EXTENDED && r.body_len)
			c.sub = r.body[0];
		if (apply_rec(&c, &w, &r))
			return REPLAY_CORRUPT;
		int kind = replay_kind_of(c.b, (uint8_t)(c.sub < 0 ? 0 : c.sub));
		n_free += kind == REPLAY_FREE_PAGE;
		if (st) {
			st->count[kind]++;
			st->bytes[kind] += r.end - r.start;
		}
	}
	if (only_free)
		*only_free = n_free == c.rec_no;
	return REPLAY_OK;
}
