/*
 * replay_test.c - the redo applier on page frames: the worked example of
 * doc/redo-records.md §23 (one INSERT_HEAP_DYNAMIC on a real page, every changed byte
 * checked), index pages built from INIT_ROW_FORMAT_* and grown and shrunk
 * with INSERT_* and DELETE_* records in both row formats (header fields, record
 * chain, owner counts and directory after every step, slot split at 9 owned
 * records, transfer and merge on delete, free list, reuse with a shift, heap
 * top release), the physical records and their running offset (doc/redo-records.md §9
 * bytes), INIT_PAGE, FREE_PAGE, undo pages, the refusals (compressed frame,
 * pages 0-2), statistics, a table of malformed entries that must be refused
 * without touching the frame, and a seeded fuzz run over random and mutated
 * entries (memory safety is checked by the ASan build of this test).
 */
#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "innodb/recovery/replay.h"
#include "innodb/redo.h"

#define SP 7	 /* space id of the test frames */
#define PG 3	 /* page number of the test frames */
#define PS 16384 /* default page size */

/* ---- frame, entry builder */

static uint8_t page[65536];
static replay_frame frame = {page, PS, SP, PG, false};
static replay_stats stats;
static bool only_free;
static char why[256];

typedef struct buf {
	uint8_t b[70000]; /* bytes */
	size_t n;	  /* used */
} buf;

static buf E; /* the entry being built */
static buf B; /* the body of the record being built */

static void b1(buf *x, uint8_t c)
{
	x->b[x->n++] = c;
}

static void bv(buf *x, uint32_t v)
{
	x->n += redo_varint_encode(x->b + x->n, v);
}

static void bb(buf *x, const void *p, size_t n)
{
	if (n)
		memcpy(x->b + x->n, p, n);
	x->n += n;
}

/* Append a record of type t with body B to E, with the page identifier unless same. */
static void rec(uint8_t t, bool same)
{
	uint8_t id[10];
	size_t il = 0;
	if (!same) {
		il = redo_varint_encode(id, SP);
		il += redo_varint_encode(id + il, PG);
	}
	size_t l = il + B.n;
	uint8_t b = (uint8_t)(t | (same ? 0x80 : 0));
	if (l <= 15) {
		b1(&E, (uint8_t)(b | l));
	} else {
		uint8_t v[5];
		size_t vl;
		for (vl = 1; vl < 3 && redo_varint_encode(v, (uint32_t)(l + vl - 15)) != vl; vl++)
			;
		redo_varint_encode(v, (uint32_t)(l + vl - 15));
		b1(&E, b);
		bb(&E, v, vl);
	}
	bb(&E, id, il);
	bb(&E, B.b, B.n);
	B.n = 0;
}

static void e_write(bool same, uint32_t rel, const void *d, size_t n)
{
	bv(&B, rel);
	bb(&B, d, n);
	rec(0x30, same);
}

static void e_memset(bool same, uint32_t rel, uint32_t len, const void *fill, size_t k)
{
	bv(&B, rel);
	bv(&B, len);
	bb(&B, fill, k);
	rec(0x40, same);
}

/* MEMMOVE from dst + delta (delta != 0). */
static void e_memmove(bool same, uint32_t rel, uint32_t len, int delta)
{
	bv(&B, rel);
	bv(&B, len);
	bv(&B, delta > 0 ? (uint32_t)(delta - 1) << 1 : (uint32_t)(-delta - 1) << 1 | 1);
	rec(0x50, same);
}

/* EXTENDED subtype sub with nv varint arguments and literal bytes. */
static void e_ext(bool same, uint8_t sub, const uint32_t *v, int nv, const void *lit, size_t n)
{
	b1(&B, sub);
	for (int i = 0; i < nv; i++)
		bv(&B, v[i]);
	bb(&B, lit, n);
	rec(0x20, same);
}

/* Apply E to the frame and clear it. */
static int run(void)
{
	why[0] = 0;
	int rc = replay_entry(&frame, E.b, E.n, &stats, &only_free, why, sizeof why);
	E.n = 0;
	return rc;
}

static void set_size(uint32_t size)
{
	frame.size = size;
	frame.zip = false;
	frame.page_no = PG;
	memset(page, 0, sizeof page);
	memset(&stats, 0, sizeof stats);
}

/* ---- page accessors (independent of the code under test) */

static uint32_t g2(uint32_t o)
{
	return (uint32_t)page[o] << 8 | page[o + 1];
}

static void p2(uint32_t o, uint32_t v)
{
	page[o] = (uint8_t)(v >> 8);
	page[o + 1] = (uint8_t)v;
}

static uint32_t slot(uint32_t i)
{
	return g2(frame.size - 10 - 2 * i);
}

static uint32_t next_of(bool comp, uint32_t r)
{
	return comp ? (r + g2(r - 2)) & 0xFFFF : g2(r - 2);
}

static uint32_t owned_of(bool comp, uint32_t r)
{
	return page[r - (comp ? 5 : 6)] & 15;
}

static uint32_t heap_no_of(bool comp, uint32_t r)
{
	return g2(r - (comp ? 4 : 5)) >> 3;
}

#define N_SLOTS g2(38)
#define HEAP_TOP g2(40)
#define N_HEAP g2(42)
#define FREE g2(44)
#define GARBAGE g2(46)
#define LAST_INSERT g2(48)
#define DIRECTION (page[51] & 7)
#define N_DIRECTION g2(52)
#define N_RECS g2(54)

/* Check the record list against N_RECS, the owner counts and the directory. */
static void check_page(bool comp)
{
	uint32_t inf = comp ? 99 : 101, sup = comp ? 112 : 116;
	uint32_t r = inf, n = 0, group = 0, s = 1;
	CU_ASSERT_EQUAL(slot(0), inf);
	while (r != sup && n <= 1000) {
		r = next_of(comp, r);
		CU_ASSERT_FATAL(r >= sup && r < frame.size);
		n += r != sup;
		group++;
		uint32_t o = owned_of(comp, r);
		if (!o)
			continue;
		CU_ASSERT_EQUAL(o, group);
		CU_ASSERT(r == sup ? o >= 1 && o <= 8 : o >= 4 && o <= 8);
		CU_ASSERT_EQUAL(slot(s), r);
		s++;
		group = 0;
	}
	CU_ASSERT_EQUAL(r, sup);
	CU_ASSERT_EQUAL(n, N_RECS);
	CU_ASSERT_EQUAL(s, N_SLOTS);
	CU_ASSERT_EQUAL(group, 0);
}

/* ---- index page operations as entries (each one mtr on page PG) */

static int init_index(bool comp)
{
	B.n = 0;
	rec(0x10, false);
	e_ext(true, comp ? 1 : 0, NULL, 0, NULL, 0);
	return run();
}

/* COMPACT insert after the record at origin prev_rec (99 = infimum). */
static int ins_dyn(uint32_t prev_rec, bool reuse, uint32_t shift, uint32_t enc, uint32_t hdr_c, uint32_t data_c,
		   const void *lit, size_t n)
{
	if (reuse)
		e_ext(false, 7, (uint32_t[]){prev_rec - 99, shift, enc, hdr_c, data_c}, 5, lit, n);
	else
		e_ext(false, 6, (uint32_t[]){prev_rec - 99, enc, hdr_c, data_c}, 4, lit, n);
	return run();
}

static int del_dyn(uint32_t prev_rec, uint32_t hdr_size, uint32_t dsize)
{
	e_ext(false, 9, (uint32_t[]){prev_rec - 99, hdr_size, dsize}, 3, NULL, 0);
	return run();
}

/* REDUNDANT insert after the record at origin prev_rec (101 = infimum). */
static int ins_red(uint32_t prev_rec, bool reuse, uint32_t enc, uint32_t hdr_c, uint32_t data_c, const void *lit,
		   size_t n)
{
	e_ext(false, reuse ? 5 : 4, (uint32_t[]){prev_rec - 101, enc, hdr_c, data_c}, 4, lit, n);
	return run();
}

static int del_red(uint32_t prev_rec)
{
	e_ext(false, 8, (uint32_t[]){prev_rec - 101}, 1, NULL, 0);
	return run();
}

/* ---- doc/redo-records.md §23 */

static const uint8_t ex_entry[71] = {
	0x20, 0x37, 0x07, 0x03, 0x06, 0x5c, 0x08, 0x01, 0x02, 0x2a, 0x03, 0xe9, 0x00, 0x00, 0x00, 0x00, 0x00, 0x41,
	0x9b, 0x00, 0x00, 0x00, 0x43, 0x01, 0x10, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78,
	0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78,
	0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x80, 0x00, 0x00, 0x01,
};

/* The page state the example implies: DYNAMIC leaf page 3 with two records
 * (origins 127 and 191, 25 data bytes each) and a deleted one (159, heap 3)
 * on the free list, after three ascending inserts and a delete. */
static void build_example_page(void)
{
	static const uint8_t infsup[26] = {0x01, 0x00, 0x02, 0x00, 0x1c, 'i',	'n',  'f',  'i',  'm',	'u',  'm',  0,
					   0x03, 0x00, 0x0b, 0x00, 0x00, 's',  'u',  'p',  'r',	'e',  'm',  'u',  'm'};
	set_size(PS);
	p2(4, 0);
	p2(6, PG);
	memset(page + 8, 0xFF, 8);
	p2(24, 17855);
	p2(36, SP);
	p2(38, 2);
	p2(40, 216);
	p2(42, 0x8005);
	p2(44, 159);
	p2(46, 32);
	page[51] = 2;
	p2(52, 2);
	p2(54, 2);
	memcpy(page + 94, infsup, sizeof infsup);
	static const uint8_t a[7] = {0x04, 0x00, 0x00, 0x00, 0x10, 0x00, 0x40}; /* 127: heap 2, next +64 */
	static const uint8_t b[7] = {0x04, 0x00, 0x20, 0x00, 0x18, 0x00, 0x00}; /* 159: deleted, heap 3 */
	static const uint8_t c[7] = {0x04, 0x00, 0x00, 0x00, 0x20, 0xff, 0xb1}; /* 191: heap 4, next sup */
	memcpy(page + 120, a, 7);
	memcpy(page + 152, b, 7);
	memcpy(page + 184, c, 7);
	for (int i = 0; i < 25; i++) {
		page[127 + i] = (uint8_t)(i < 4 ? (uint8_t[]){0x80, 0, 0, 1}[i] : 0x61);
		page[191 + i] = (uint8_t)(i < 4 ? (uint8_t[]){0x80, 0, 0, 2}[i] : 0x62);
	}
	p2(PS - 10, 99);
	p2(PS - 12, 112);
}

static void test_worked_example(void)
{
	static uint8_t want[PS];
	build_example_page();
	check_page(true);
	memcpy(want, page, PS);
	static const uint8_t hdr[7] = {0x2a, 0x00, 0x00, 0x00, 0x28, 0xff, 0x91};
	static const uint8_t data[17] = {0x80, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x00, 0x00, 0x00,
					 0x41, 0x9b, 0x00, 0x00, 0x00, 0x43, 0x01, 0x10};
	want[40] = 0x01, want[41] = 0x1e;
	want[42] = 0x80, want[43] = 0x06;
	want[48] = 0x00, want[49] = 0xdf;
	want[51] = 0x05;
	want[52] = 0x00, want[53] = 0x00;
	want[54] = 0x00, want[55] = 0x03;
	want[107] = 0x04;
	want[189] = 0x00, want[190] = 0x20;
	memcpy(want + 216, hdr, sizeof hdr);
	memcpy(want + 223, data, sizeof data);
	memset(want + 240, 0x78, 42);
	memcpy(want + 282, (uint8_t[]){0x80, 0x00, 0x00, 0x01}, 4);
	CU_ASSERT_EQUAL(replay_entry(&frame, ex_entry, sizeof ex_entry, &stats, &only_free, why, sizeof why), REPLAY_OK);
	CU_ASSERT_STRING_EQUAL(why, "");
	CU_ASSERT(!only_free);
	CU_ASSERT_EQUAL(HEAP_TOP, 286);
	CU_ASSERT_EQUAL(N_HEAP, 0x8006);
	CU_ASSERT_EQUAL(LAST_INSERT, 223);
	CU_ASSERT_EQUAL(DIRECTION, 5);
	CU_ASSERT_EQUAL(N_RECS, 3);
	CU_ASSERT_EQUAL(page[107], 4);
	CU_ASSERT_EQUAL(g2(189), 0x0020);
	CU_ASSERT_EQUAL(next_of(true, 223), 112);
	for (uint32_t i = 0; i < PS; i++)
		if (page[i] != want[i]) {
			fprintf(stderr, "byte %u: %02x, want %02x\n", i, page[i], want[i]);
			CU_FAIL("page differs from doc/redo-records.md §23");
			break;
		}
	check_page(true);
	CU_ASSERT_EQUAL(stats.count[REPLAY_EXT_INSERT_HEAP_DYNAMIC], 1);
	CU_ASSERT_EQUAL(stats.bytes[REPLAY_EXT_INSERT_HEAP_DYNAMIC], 71);
}

/* ---- COMPACT/DYNAMIC pages */

/* Origin of the k-th 16-byte record allocated from an empty COMPACT heap. */
#define DO(k) (126u + 16u * (k))

/* Literal bytes of COMPACT record k: header byte 0x0a, key 80 00 00 k, 6 data bytes. */
static const uint8_t *dyn_lit(unsigned k)
{
	static uint8_t l[11];
	l[0] = 0x0a;
	memcpy(l + 1, (uint8_t[]){0x80, 0, 0, (uint8_t)k}, 4);
	memset(l + 5, 0x40 + (int)k, 6);
	return l;
}

static void test_dynamic_create(void)
{
	set_size(PS);
	memset(page, 0xEE, PS);
	CU_ASSERT_EQUAL_FATAL(init_index(true), REPLAY_OK);
	static const uint8_t sys[26] = {0x01, 0x00, 0x02, 0x00, 0x0d, 'i', 'n', 'f', 'i', 'm', 'u', 'm', 0,
					0x01, 0x00, 0x0b, 0x00, 0x00, 's', 'u', 'p', 'r', 'e', 'm', 'u', 'm'};
	CU_ASSERT_EQUAL(g2(24), 17855);
	CU_ASSERT_EQUAL(g2(6), PG);
	CU_ASSERT_EQUAL(g2(36), SP);
	CU_ASSERT_EQUAL(N_SLOTS, 2);
	CU_ASSERT_EQUAL(HEAP_TOP, 120);
	CU_ASSERT_EQUAL(N_HEAP, 0x8002);
	CU_ASSERT_EQUAL(page[51], 5);
	CU_ASSERT(!memcmp(page + 94, sys, sizeof sys));
	CU_ASSERT_EQUAL(slot(0), 99);
	CU_ASSERT_EQUAL(slot(1), 112);
	CU_ASSERT_EQUAL(stats.count[REPLAY_INIT_PAGE], 1);
	CU_ASSERT_EQUAL(stats.count[REPLAY_EXT_INIT_DYNAMIC], 1);
	for (uint32_t i = 120; i < PS - 12; i++)
		if (page[i]) {
			CU_FAIL("heap not zeroed");
			break;
		}
	check_page(true);
	/* PAGE_LEVEL, PAGE_INDEX_ID and the segment headers survive a re-creation */
	memset(page + 64, 0x5A, 30);
	memset(page + 38, 0x77, 26);
	CU_ASSERT_EQUAL(run(), REPLAY_OK); /* empty entry */
	e_ext(false, 1, NULL, 0, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(run(), REPLAY_OK);
	CU_ASSERT_EQUAL(page[64], 0x5A);
	CU_ASSERT_EQUAL(page[93], 0x5A);
	CU_ASSERT_EQUAL(N_RECS, 0);
	CU_ASSERT_EQUAL(page[50], 0);
	CU_ASSERT_EQUAL(page[51], 5);
}

/* Eight ascending inserts, the last one splitting the supremum's slot. */
static void build_dynamic8(void)
{
	set_size(PS);
	CU_ASSERT_EQUAL_FATAL(init_index(true), REPLAY_OK);
	for (unsigned k = 0; k < 8; k++) {
		CU_ASSERT_EQUAL_FATAL(ins_dyn(k ? DO(k - 1) : 99, false, 0, 1 << 3, 0, 0, dyn_lit(k), 11), REPLAY_OK);
		CU_ASSERT_EQUAL(N_RECS, k + 1);
		CU_ASSERT_EQUAL(N_HEAP, 0x8003 + k);
		CU_ASSERT_EQUAL(HEAP_TOP, 120 + 16 * (k + 1));
		CU_ASSERT_EQUAL(LAST_INSERT, DO(k));
		CU_ASSERT_EQUAL(DIRECTION, k ? 2 : 5);
		CU_ASSERT_EQUAL(N_DIRECTION, k);
		check_page(true);
	}
}

static void test_dynamic_insert_split(void)
{
	build_dynamic8();
	CU_ASSERT_EQUAL(N_SLOTS, 3);
	CU_ASSERT_EQUAL(slot(1), DO(3));
	CU_ASSERT_EQUAL(slot(2), 112);
	CU_ASSERT_EQUAL(owned_of(true, DO(3)), 4);
	CU_ASSERT_EQUAL(owned_of(true, 112), 5);
	/* record 0: literal header byte, info 0, heap 2, status 0, next record 1, data */
	CU_ASSERT_EQUAL(page[DO(0) - 6], 0x0a);
	CU_ASSERT_EQUAL(page[DO(0) - 5], 0x00);
	CU_ASSERT_EQUAL(page[DO(0) - 4], 0x00);
	CU_ASSERT_EQUAL(page[DO(0) - 3], 0x10);
	CU_ASSERT_EQUAL(g2(DO(0) - 2), 16);
	CU_ASSERT(!memcmp(page + DO(0), dyn_lit(0) + 1, 10));
	CU_ASSERT_EQUAL(g2(DO(7) - 2), (112 - DO(7)) & 0xFFFF);
	/* a ninth record copying 1 header byte and 4 data bytes from record 7 */
	CU_ASSERT_EQUAL(ins_dyn(DO(7), false, 0, 0, 1, 4, "\x01\x02\x03\x04\x05\x06", 6), REPLAY_OK);
	CU_ASSERT_EQUAL(page[DO(8) - 6], 0x0a);
	CU_ASSERT(!memcmp(page + DO(8), "\x80\x00\x00\x07\x01\x02\x03\x04\x05\x06", 10));
	CU_ASSERT_EQUAL(heap_no_of(true, DO(8)), 10);
	CU_ASSERT_EQUAL(owned_of(true, 112), 6);
	CU_ASSERT_EQUAL(N_DIRECTION, 8);
	check_page(true);
	/* an insert at the front: LEFT is only taken when the last insert is the successor */
	CU_ASSERT_EQUAL(ins_dyn(99, false, 0, 1 << 3 | 1, 0, 0, dyn_lit(20), 11), REPLAY_OK);
	CU_ASSERT_EQUAL(DIRECTION, 5);
	CU_ASSERT_EQUAL(N_DIRECTION, 0);
	CU_ASSERT_EQUAL(page[DO(9) - 5], 0x10); /* info bits from enc_hdr_l: min-rec flag */
	CU_ASSERT_EQUAL(ins_dyn(99, false, 0, 1 << 3, 0, 0, dyn_lit(21), 11), REPLAY_OK);
	CU_ASSERT_EQUAL(DIRECTION, 1);
	CU_ASSERT_EQUAL(N_DIRECTION, 1);
	CU_ASSERT_EQUAL(owned_of(true, DO(3)), 6);
	check_page(true);
}

static void test_dynamic_delete_reuse(void)
{
	build_dynamic8();
	CU_ASSERT_EQUAL_FATAL(ins_dyn(DO(7), false, 0, 1 << 3, 0, 0, dyn_lit(8), 11), REPLAY_OK);
	/* delete the owner of slot 1: the slot moves to its predecessor, then takes one record from the supremum */
	CU_ASSERT_EQUAL(del_dyn(DO(2), 1, 10), REPLAY_OK);
	CU_ASSERT_EQUAL(slot(1), DO(4));
	CU_ASSERT_EQUAL(owned_of(true, DO(2)), 0);
	CU_ASSERT_EQUAL(owned_of(true, DO(4)), 4);
	CU_ASSERT_EQUAL(owned_of(true, 112), 5);
	CU_ASSERT_EQUAL(FREE, DO(3));
	CU_ASSERT_EQUAL(GARBAGE, 16);
	CU_ASSERT_EQUAL(g2(DO(3) - 2), 0);
	CU_ASSERT_EQUAL(page[DO(3) - 6], 0x0a); /* header kept, data zeroed */
	CU_ASSERT(!memcmp(page + DO(3), (uint8_t[10]){0}, 10));
	CU_ASSERT_EQUAL(LAST_INSERT, 0);
	CU_ASSERT_EQUAL(N_RECS, 8);
	check_page(true);
	/* delete the first record: transfer again */
	CU_ASSERT_EQUAL(del_dyn(99, 1, 10), REPLAY_OK);
	CU_ASSERT_EQUAL(slot(1), DO(5));
	CU_ASSERT_EQUAL(owned_of(true, 112), 4);
	CU_ASSERT_EQUAL(FREE, DO(0));
	CU_ASSERT_EQUAL(g2(DO(0) - 2), DO(3) - DO(0));
	CU_ASSERT_EQUAL(GARBAGE, 32);
	check_page(true);
	/* and again: the supremum owns only 4, the slots merge */
	CU_ASSERT_EQUAL(del_dyn(99, 1, 10), REPLAY_OK);
	CU_ASSERT_EQUAL(N_SLOTS, 2);
	CU_ASSERT_EQUAL(slot(1), 112);
	CU_ASSERT_EQUAL(g2(PS - 14), 0);
	CU_ASSERT_EQUAL(owned_of(true, DO(5)), 0);
	CU_ASSERT_EQUAL(owned_of(true, 112), 7);
	CU_ASSERT_EQUAL(FREE, DO(1));
	CU_ASSERT_EQUAL(g2(DO(1) - 2), 0xFFF0);
	CU_ASSERT_EQUAL(GARBAGE, 48);
	check_page(true);
	/* delete the last heap record: the heap top goes down instead */
	CU_ASSERT_EQUAL(del_dyn(DO(7), 1, 10), REPLAY_OK);
	CU_ASSERT_EQUAL(HEAP_TOP, DO(8) - 6);
	CU_ASSERT_EQUAL(N_HEAP, 0x800A);
	CU_ASSERT_EQUAL(GARBAGE, 48);
	CU_ASSERT_EQUAL(FREE, DO(1));
	CU_ASSERT(!memcmp(page + DO(8) - 6, (uint8_t[16]){0}, 16));
	CU_ASSERT_EQUAL(next_of(true, DO(7)), 112);
	CU_ASSERT_EQUAL(N_RECS, 5);
	check_page(true);
	/* reuse the head of the free list (record 1) for a record of the same size */
	CU_ASSERT_EQUAL(ins_dyn(DO(7), true, 0, 1 << 3, 0, 0, dyn_lit(30), 11), REPLAY_OK);
	CU_ASSERT_EQUAL(FREE, DO(0));
	CU_ASSERT_EQUAL(GARBAGE, 32);
	CU_ASSERT_EQUAL(N_HEAP, 0x800A);
	CU_ASSERT_EQUAL(LAST_INSERT, DO(1));
	CU_ASSERT_EQUAL(heap_no_of(true, DO(1)), 3);
	CU_ASSERT_EQUAL(next_of(true, DO(7)), DO(1));
	CU_ASSERT_EQUAL(next_of(true, DO(1)), 112);
	CU_ASSERT(!memcmp(page + DO(1), dyn_lit(30) + 1, 10));
	check_page(true);
	/* reuse record 0 for a 14-byte record placed 2 bytes higher (shift +2) */
	CU_ASSERT_EQUAL(ins_dyn(DO(1), true, 4, 1 << 3, 0, 0, "\x08\x11\x22\x33\x44\x55\x66\x77\x88", 9), REPLAY_OK);
	CU_ASSERT_EQUAL(LAST_INSERT, DO(0) + 2);
	CU_ASSERT_EQUAL(DIRECTION, 2);
	CU_ASSERT_EQUAL(FREE, DO(3));
	CU_ASSERT_EQUAL(GARBAGE, 18);
	CU_ASSERT_EQUAL(heap_no_of(true, DO(0) + 2), 2);
	CU_ASSERT_EQUAL(page[DO(0) - 4], 0x08);
	CU_ASSERT(!memcmp(page + DO(0) + 2, "\x11\x22\x33\x44\x55\x66\x77\x88", 8));
	CU_ASSERT_EQUAL(N_RECS, 7);
	check_page(true);
	/* the free list now holds record 3 only; reusing it empties it */
	CU_ASSERT_EQUAL(ins_dyn(DO(0) + 2, true, 0, 1 << 3, 0, 0, dyn_lit(31), 11), REPLAY_OK);
	CU_ASSERT_EQUAL(FREE, 0);
	CU_ASSERT_EQUAL(GARBAGE, 2);
	CU_ASSERT_EQUAL(ins_dyn(DO(3), true, 0, 1 << 3, 0, 0, dyn_lit(32), 11), REPLAY_CORRUPT);
	check_page(true);
}

static void test_dynamic_page_kinds(void)
{
	/* node pointer page: status 1 */
	set_size(PS);
	CU_ASSERT_EQUAL_FATAL(init_index(true), REPLAY_OK);
	e_write(false, 64, "\x00\x01", 2);
	CU_ASSERT_EQUAL_FATAL(run(), REPLAY_OK);
	CU_ASSERT_EQUAL(ins_dyn(99, false, 0, 1 << 3, 0, 0, dyn_lit(0), 11), REPLAY_OK);
	CU_ASSERT_EQUAL(page[DO(0) - 3], 0x11);
	/* instant flag on a leaf page is kept in the status bits */
	set_size(PS);
	CU_ASSERT_EQUAL_FATAL(init_index(true), REPLAY_OK);
	CU_ASSERT_EQUAL(ins_dyn(99, false, 0, 1 << 3 | 4, 0, 0, dyn_lit(0), 11), REPLAY_OK);
	CU_ASSERT_EQUAL(page[DO(0) - 3], 0x14);
	/* R-tree pages keep their direction fields */
	set_size(PS);
	CU_ASSERT_EQUAL_FATAL(init_index(true), REPLAY_OK);
	e_write(false, 24, "\x45\xbe", 2);
	e_write(true, 25, "\x03", 1);
	CU_ASSERT_EQUAL_FATAL(run(), REPLAY_OK);
	CU_ASSERT_EQUAL(ins_dyn(99, false, 0, 1 << 3, 0, 0, dyn_lit(0), 11), REPLAY_OK);
	CU_ASSERT_EQUAL(page[51], 3);
	CU_ASSERT_EQUAL(N_RECS, 1);
	/* a 1 KiB page */
	set_size(1024);
	CU_ASSERT_EQUAL_FATAL(init_index(true), REPLAY_OK);
	CU_ASSERT_EQUAL(slot(0), 99);
	CU_ASSERT_EQUAL(slot(1), 112);
	for (unsigned k = 0; k < 20; k++)
		CU_ASSERT_EQUAL(ins_dyn(k ? DO(k - 1) : 99, false, 0, 1 << 3, 0, 0, dyn_lit(k), 11), REPLAY_OK);
	CU_ASSERT_EQUAL(N_SLOTS, 6);
	check_page(true);
}

/* ---- REDUNDANT pages */

/* Origin of the k-th 18-byte record (2 short fields of 4 and 6 bytes) of an empty REDUNDANT heap. */
#define RO(k) (133u + 18u * (k))
#define RENC (1 << 3 | 1 << 2) /* 2 fields, 1-byte offsets, info 0 */

/* Literal bytes of the first REDUNDANT record: field ends 10, 4 (high to low address order), then data. */
static const uint8_t red_first[12] = {10, 4, 0x80, 0, 0, 0, 'a', 'a', 'a', 'a', 'a', 'a'};

/* Data after the 3 bytes shared with the predecessor for record k. */
static const uint8_t *red_tail(unsigned k)
{
	static uint8_t l[7];
	l[0] = (uint8_t)k;
	memset(l + 1, 'a' + (int)k, 6);
	return l;
}

static void build_redundant8(void)
{
	set_size(PS);
	CU_ASSERT_EQUAL_FATAL(init_index(false), REPLAY_OK);
	CU_ASSERT_EQUAL(N_HEAP, 2);
	CU_ASSERT_EQUAL(HEAP_TOP, 125);
	CU_ASSERT_EQUAL(slot(0), 101);
	CU_ASSERT_EQUAL(slot(1), 116);
	CU_ASSERT(!memcmp(page + 94, "\x08\x01\x00\x00\x03\x00\x74infimum\0\x09\x01\x00\x08\x03\x00\x00supremum", 31));
	CU_ASSERT_EQUAL_FATAL(ins_red(101, false, RENC, 0, 0, red_first, sizeof red_first), REPLAY_OK);
	for (unsigned k = 1; k < 8; k++) {
		CU_ASSERT_EQUAL_FATAL(ins_red(RO(k - 1), false, RENC, 2, 3, red_tail(k), 7), REPLAY_OK);
		CU_ASSERT_EQUAL(N_HEAP, 3 + k);
		CU_ASSERT_EQUAL(HEAP_TOP, 125 + 18 * (k + 1));
		check_page(false);
	}
}

static void test_redundant_insert_split(void)
{
	build_redundant8();
	CU_ASSERT_EQUAL(N_RECS, 8);
	CU_ASSERT_EQUAL(N_SLOTS, 3);
	CU_ASSERT_EQUAL(slot(1), RO(3));
	CU_ASSERT_EQUAL(owned_of(false, RO(3)), 4);
	CU_ASSERT_EQUAL(owned_of(false, 116), 5);
	CU_ASSERT_EQUAL(DIRECTION, 2);
	CU_ASSERT_EQUAL(N_DIRECTION, 7);
	for (unsigned k = 0; k < 8; k++) {
		uint32_t r = RO(k);
		CU_ASSERT_EQUAL(heap_no_of(false, r), 2 + k);
		CU_ASSERT_EQUAL((g2(r - 4) >> 1) & 0x3FF, 2);
		CU_ASSERT_EQUAL(page[r - 3] & 1, 1);
		CU_ASSERT_EQUAL(page[r - 7], 4);
		CU_ASSERT_EQUAL(page[r - 8], 10);
		CU_ASSERT_EQUAL(page[r - 6] & 0xF0, 0);
		CU_ASSERT_EQUAL(g2(r - 2), k < 7 ? RO(k + 1) : 116);
		CU_ASSERT(!memcmp(page + r, "\x80\x00\x00", 3));
		CU_ASSERT_EQUAL(page[r + 3], k);
	}
	/* min-rec info bits and 2-byte offsets */
	static const uint8_t lit[14] = {0x00, 0x0a, 0x00, 0x04, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	CU_ASSERT_EQUAL(ins_red(101, false, 1 << 3 | 1, 0, 0, lit, sizeof lit), REPLAY_OK);
	uint32_t r = 125 + 18 * 8 + 10;
	CU_ASSERT_EQUAL(LAST_INSERT, r);
	CU_ASSERT_EQUAL(page[r - 6], 0x10);
	CU_ASSERT_EQUAL(page[r - 3] & 1, 0);
	CU_ASSERT_EQUAL(g2(r - 2), RO(0));
	CU_ASSERT_EQUAL(g2(101 - 2), r);
	CU_ASSERT_EQUAL(HEAP_TOP, r + 10);
	check_page(false);
}

static void test_redundant_delete_reuse(void)
{
	build_redundant8();
	CU_ASSERT_EQUAL(del_red(RO(2)), REPLAY_OK); /* the owner of slot 1 */
	CU_ASSERT_EQUAL(slot(1), RO(4));
	CU_ASSERT_EQUAL(owned_of(false, RO(4)), 4);
	CU_ASSERT_EQUAL(owned_of(false, 116), 4);
	CU_ASSERT_EQUAL(FREE, RO(3));
	CU_ASSERT_EQUAL(GARBAGE, 18);
	CU_ASSERT_EQUAL(g2(RO(3) - 2), 0);
	check_page(false);
	CU_ASSERT_EQUAL(del_red(101), REPLAY_OK);
	CU_ASSERT_EQUAL(N_SLOTS, 2); /* merged */
	CU_ASSERT_EQUAL(owned_of(false, 116), 7);
	CU_ASSERT_EQUAL(FREE, RO(0));
	CU_ASSERT_EQUAL(g2(RO(0) - 2), RO(3));
	CU_ASSERT_EQUAL(GARBAGE, 36);
	check_page(false);
	CU_ASSERT_EQUAL(del_red(RO(6)), REPLAY_OK); /* heap top */
	CU_ASSERT_EQUAL(HEAP_TOP, RO(7) - 8);
	CU_ASSERT_EQUAL(N_HEAP, 9);
	CU_ASSERT_EQUAL(g2(RO(6) - 2), 116);
	check_page(false);
	/* reuse record 0 (head of the free list) for a smaller record: header copied from record 1 */
	CU_ASSERT_EQUAL(ins_red(RO(1), true, RENC, 2, 3, "\x55", 1), REPLAY_CORRUPT); /* data size 10, 4 bytes given */
	CU_ASSERT_EQUAL(ins_red(RO(1), true, RENC, 2, 3, red_tail(40), 7), REPLAY_OK);
	CU_ASSERT_EQUAL(FREE, RO(3));
	CU_ASSERT_EQUAL(GARBAGE, 18);
	CU_ASSERT_EQUAL(heap_no_of(false, RO(0)), 2);
	CU_ASSERT_EQUAL(g2(RO(1) - 2), RO(0));
	CU_ASSERT_EQUAL(g2(RO(0) - 2), RO(2));
	CU_ASSERT_EQUAL(page[RO(0) + 3], 40);
	CU_ASSERT_EQUAL(N_HEAP, 9);
	check_page(false);
	CU_ASSERT_EQUAL(ins_red(RO(0), true, RENC, 2, 3, red_tail(41), 7), REPLAY_OK);
	CU_ASSERT_EQUAL(FREE, 0);
	CU_ASSERT_EQUAL(GARBAGE, 0);
	CU_ASSERT_EQUAL(del_red(RO(0)), REPLAY_OK);
	CU_ASSERT_EQUAL(FREE, RO(3));
	check_page(false);
}

/* ---- physical records */

static void test_spec_write_memset_chain(void)
{
	set_size(PS);
	frame.space_id = 1;
	frame.page_no = 67;
	memset(page, 0xAA, PS);
	/* doc/redo-records.md §9: 34 01 43 39 05 | b2 30 01 | b2 1c 01 | b2 03 18 | b0 0b 04 <24> | c3 00 68 00 */
	static uint8_t ent[5 + 3 * 3 + 27 + 4];
	size_t n = 0;
	memcpy(ent, "\x34\x01\x43\x39\x05\xb2\x30\x01\xb2\x1c\x01\xb2\x03\x18\xb0\x0b\x04", 17);
	n = 17;
	for (int i = 0; i < 24; i++)
		ent[n++] = (uint8_t)("MySQLXid" "0123456789abcdef"[i]);
	memcpy(ent + n, "\xc3\x00\x68\x00", 4);
	n += 4;
	CU_ASSERT_EQUAL_FATAL(n, sizeof ent);
	CU_ASSERT_EQUAL(replay_entry(&frame, ent, n, &stats, &only_free, why, sizeof why), REPLAY_OK);
	CU_ASSERT_EQUAL(page[57], 0x05);
	CU_ASSERT_EQUAL(page[58], 0xAA);
	CU_ASSERT_EQUAL(page[106], 0x01);
	CU_ASSERT_EQUAL(page[135], 0x01);
	CU_ASSERT_EQUAL(page[139], 0x18);
	CU_ASSERT(!memcmp(page + 144, "MySQLXid0123456789abcdef", 24));
	for (int i = 168; i < 272; i++)
		CU_ASSERT_EQUAL(page[i], 0);
	CU_ASSERT_EQUAL(page[272], 0xAA);
	CU_ASSERT_EQUAL(stats.count[REPLAY_WRITE], 5);
	CU_ASSERT_EQUAL(stats.bytes[REPLAY_WRITE], 5 + 3 + 3 + 3 + 27);
	CU_ASSERT_EQUAL(stats.count[REPLAY_MEMSET], 1);
	CU_ASSERT_EQUAL(stats.bytes[REPLAY_MEMSET], 4);
	/* 45 01 43 78 04 ff: MEMSET with page id, offset 120, 4 bytes; d3 00 06 0b: MEMMOVE 6 bytes from dst - 6 */
	memcpy(page + 118, "\x01\x02", 2);
	CU_ASSERT_EQUAL(replay_entry(&frame, (const uint8_t *)"\x45\x01\x43\x78\x04\xff\xd3\x00\x06\x0b", 10, NULL,
				    &only_free, why, sizeof why),
			REPLAY_OK);
	CU_ASSERT(!memcmp(page + 118, "\x01\x02\xff\xff\xff\xff\x01\x02\xff\xff\xff\xff", 12));
	frame.space_id = SP;
	frame.page_no = PG;
}

static void test_physical(void)
{
	set_size(PS);
	for (int i = 0; i < 64; i++)
		page[1000 + i] = (uint8_t)i;
	/* overlapping MEMMOVE down and up, chained offsets */
	e_memmove(false, 1002, 6, -2); /* [1002,1008) := old [1000,1006) */
	e_memmove(true, 10, 5, 3);     /* pos 1008 -> 1018: [1018,1023) := [1021,1026) */
	e_write(true, 0, "\xAB", 1);   /* at 1023 */
	e_memset(true, 1, 4, "\x01\x10", 2); /* [1025,1029) := 01 10 01 10 */
	e_write(false, 2000, "\xCD", 1);     /* a page identifier resets the offset to 0 */
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT(!memcmp(page + 1000, "\x00\x01\x00\x01\x02\x03\x04\x05\x08\x09", 10));
	CU_ASSERT(!memcmp(page + 1018, "\x15\x16\x17\x18\x19", 5));
	CU_ASSERT_EQUAL(page[1023], 0xAB);
	CU_ASSERT_EQUAL(page[1024], 24);
	CU_ASSERT(!memcmp(page + 1025, "\x01\x10\x01\x10", 4));
	CU_ASSERT_EQUAL(page[1029], 29);
	CU_ASSERT_EQUAL(page[2000], 0xCD);
	CU_ASSERT(!only_free);
	/* the last byte of the page and the lowest allowed offset */
	e_write(false, PS - 1, "\x11", 1);
	e_write(false, 8, "\x22", 1);
	e_memmove(false, 9, 1, PS - 10); /* page[9] := page[PS-1] */
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT_EQUAL(page[PS - 1], 0x11);
	CU_ASSERT_EQUAL(page[8], 0x22);
	CU_ASSERT_EQUAL(page[9], 0x11);
	/* a compressed frame takes physical records */
	set_size(8192);
	frame.zip = true;
	e_write(false, 8191, "\x33", 1);
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT_EQUAL(page[8191], 0x33);
	e_write(false, 8192, "\x33", 1);
	CU_ASSERT_EQUAL(run(), REPLAY_CORRUPT);
	frame.zip = false;
}

static void test_init_free_option(void)
{
	set_size(PS);
	memset(page, 0x99, sizeof page);
	B.n = 0;
	rec(0x10, false);
	e_write(true, 0, "\x45\xbf", 2); /* INIT_PAGE leaves the offset at 24 */
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT(!memcmp(page, "\x00\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff\xff\xff\xff\xff", 16));
	CU_ASSERT(!memcmp(page + 16, (uint8_t[8]){0}, 8));
	CU_ASSERT_EQUAL(g2(24), 0x45bf);
	CU_ASSERT(!memcmp(page + 34, "\x00\x00\x00\x07", 4));
	CU_ASSERT_EQUAL(page[PS - 1], 0);
	CU_ASSERT_EQUAL(page[PS], 0x99); /* nothing beyond the frame */
	CU_ASSERT(!only_free);
	/* FREE_PAGE only: nothing changes */
	static uint8_t copy[PS];
	memcpy(copy, page, PS);
	rec(0x00, false);
	rec(0x00, false);
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT(only_free);
	CU_ASSERT(!memcmp(copy, page, PS));
	CU_ASSERT_EQUAL(stats.count[REPLAY_FREE_PAGE], 2);
	CU_ASSERT_EQUAL(stats.bytes[REPLAY_FREE_PAGE], 6);
	/* FREE_PAGE then a new page identifier */
	rec(0x00, false);
	e_write(false, 100, "\x01", 1);
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT(!only_free);
	CU_ASSERT_EQUAL(page[100], 1);
	/* OPTION records are skipped and counted; they do not move the offset */
	e_write(false, 200, "\x01", 1);
	bb(&B, "\x00\x01\x02\x03\x04", 5);
	rec(0x70, true);
	e_write(true, 0, "\x02", 1);
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT_EQUAL(page[201], 2);
	CU_ASSERT_EQUAL(stats.count[REPLAY_OPTION], 1);
	CU_ASSERT_EQUAL(stats.bytes[REPLAY_OPTION], 6);
	/* TRIM_PAGES: counted, the frame is left alone */
	memcpy(copy, page, PS);
	e_ext(false, 10, NULL, 0, NULL, 0);
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT(!memcmp(copy, page, PS));
	CU_ASSERT_EQUAL(stats.count[REPLAY_EXT_TRIM_PAGES], 1);
	CU_ASSERT_EQUAL(stats.bytes[REPLAY_EXT_TRIM_PAGES], 4);
	/* an empty entry */
	CU_ASSERT_EQUAL(replay_entry(&frame, NULL, 0, NULL, &only_free, NULL, 0), REPLAY_OK);
}

static void test_undo(void)
{
	set_size(PS);
	memset(page, 0x99, PS);
	B.n = 0;
	rec(0x10, false);
	static uint8_t seg[30];
	memset(seg, 0x5C, sizeof seg);
	e_write(true, 32, seg, sizeof seg); /* segment header 56..85 */
	e_write(false, 86, "\x77", 1);
	e_ext(true, 2, NULL, 0, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(run(), REPLAY_OK);
	CU_ASSERT_EQUAL(g2(24), 2);
	CU_ASSERT(!memcmp(page + 38, "\x00\x00\x00\x38\x00\x38\xff\xff\xff\xff\x00\x00\xff\xff\xff\xff\x00\x00", 18));
	CU_ASSERT_EQUAL(page[56], 0x5C);
	CU_ASSERT_EQUAL(page[85], 0x5C);
	CU_ASSERT_EQUAL(page[86], 0);
	e_ext(false, 3, NULL, 0, "undo", 4);
	e_ext(true, 3, NULL, 0, "xyz", 3);
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT(!memcmp(page + 56, "\x00\x40undo\x00\x38\x00\x47xyz\x00\x40", 15));
	CU_ASSERT_EQUAL(g2(42), 56 + 8 + 7);
	CU_ASSERT_EQUAL(stats.count[REPLAY_EXT_UNDO_APPEND], 2);
	/* the last record that fits, then one that does not */
	p2(42, PS - 8 - 6 - 3 - 1);
	e_ext(false, 3, NULL, 0, "abc", 3);
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	CU_ASSERT_EQUAL(g2(42), PS - 8 - 3);
	p2(42, PS - 8 - 6 - 3);
	e_ext(false, 3, NULL, 0, "abc", 3);
	CU_ASSERT_EQUAL(run(), REPLAY_CORRUPT);
	CU_ASSERT(strstr(why, "record 1 (UNDO_APPEND) at +0: ") == why);
	p2(42, 55);
	e_ext(false, 3, NULL, 0, "abc", 3);
	CU_ASSERT_EQUAL(run(), REPLAY_CORRUPT);
}

static void test_refusals(void)
{
	set_size(8192);
	frame.zip = true;
	e_ext(false, 1, NULL, 0, NULL, 0);
	CU_ASSERT_EQUAL(run(), REPLAY_CORRUPT);
	CU_ASSERT(strstr(why, "COMPRESSED") != NULL);
	frame.zip = false;
	for (uint32_t p = 0; p < 3; p++) {
		frame.page_no = p;
		e_ext(false, 2, NULL, 0, NULL, 0);
		CU_ASSERT_EQUAL(run(), REPLAY_CORRUPT);
	}
	frame.page_no = 3;
	e_ext(false, 2, NULL, 0, NULL, 0);
	CU_ASSERT_EQUAL(run(), REPLAY_OK);
	/* bad frames */
	replay_frame bad = {page, 3000, SP, PG, false};
	CU_ASSERT_EQUAL(replay_entry(&bad, (const uint8_t *)"\x02\x07\x03", 3, NULL, &only_free, why, sizeof why),
			REPLAY_CORRUPT);
	CU_ASSERT_EQUAL(replay_entry(NULL, NULL, 0, NULL, NULL, NULL, 0), REPLAY_CORRUPT);
}

static void test_kinds(void)
{
	CU_ASSERT_STRING_EQUAL(replay_kind_name(REPLAY_WRITE), "WRITE");
	CU_ASSERT_STRING_EQUAL(replay_kind_name(REPLAY_EXT_INSERT_HEAP_DYNAMIC), "INSERT_HEAP_DYNAMIC");
	CU_ASSERT_STRING_EQUAL(replay_kind_name(REPLAY_EXT_TRIM_PAGES), "TRIM_PAGES");
	CU_ASSERT_STRING_EQUAL(replay_kind_name(REPLAY_KINDS), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(replay_kind_name(-1), "UNKNOWN");
	for (int k = 0; k < REPLAY_KINDS; k++)
		CU_ASSERT(replay_kind_name(k)[0] >= 'A' && replay_kind_name(k)[0] <= 'Z');
	CU_ASSERT_EQUAL(replay_kind_of(0x02, 0), REPLAY_FREE_PAGE);
	CU_ASSERT_EQUAL(replay_kind_of(0x12, 0), REPLAY_INIT_PAGE);
	CU_ASSERT_EQUAL(replay_kind_of(0xb2, 9), REPLAY_WRITE);
	CU_ASSERT_EQUAL(replay_kind_of(0xc3, 0), REPLAY_MEMSET);
	CU_ASSERT_EQUAL(replay_kind_of(0x53, 0), REPLAY_MEMMOVE);
	CU_ASSERT_EQUAL(replay_kind_of(0x76, 0), REPLAY_OPTION);
	CU_ASSERT_EQUAL(replay_kind_of(0x63, 0), -1);
	for (int s = 0; s <= 10; s++)
		CU_ASSERT_EQUAL(replay_kind_of(0x20, (uint8_t)s), REPLAY_EXT_INIT_REDUNDANT + s);
	CU_ASSERT_EQUAL(replay_kind_of(0xa0, 11), -1);
	CU_ASSERT_EQUAL(replay_kind_of(0x20, 0xff), -1);
}

/* ---- malformed entries */

enum { PREP_DYNAMIC, PREP_REDUNDANT, PREP_EMPTY_DYNAMIC };

/* A populated page to break things on. */
static void prepare(int kind)
{
	if (kind == PREP_REDUNDANT) {
		build_redundant8();
		CU_ASSERT_EQUAL(del_red(RO(0)), REPLAY_OK);
	} else if (kind == PREP_DYNAMIC) {
		build_dynamic8();
		CU_ASSERT_EQUAL(del_dyn(DO(0), 1, 10), REPLAY_OK);
	} else {
		set_size(PS);
		CU_ASSERT_EQUAL(init_index(true), REPLAY_OK);
	}
	memset(&stats, 0, sizeof stats);
}

struct bad {
	const char *name;    /* what is wrong */
	int prep;	     /* PREP_* */
	const char *hex;     /* the entry as hex bytes, or NULL */
	void (*build)(void); /* else builds it */
	const char *expect;  /* substring of why, or NULL */
};

/* Append hex bytes ("35 07 03") to E. */
static void hex(const char *s)
{
	for (; *s; s++)
		if (*s != ' ') {
			b1(&E, (uint8_t)strtoul((char[]){s[0], s[1], 0}, NULL, 16));
			s++;
		}
}

/* COMPACT insert of a 16-byte record after the record at origin prev_rec, with enc_hdr_l enc. */
static void ins50(bool same, uint32_t prev_rec, uint32_t enc, uint32_t hdr_c, uint32_t data_c)
{
	e_ext(same, 6, (uint32_t[]){prev_rec - 99, enc, hdr_c, data_c}, 4, dyn_lit(50), 11);
}

static uint8_t big[16300]; /* literal bytes of oversized records */

static void bad_ins_prev_outside(void) { e_ext(false, 7, (uint32_t[]){16500 - 99, 0, 8, 0, 0}, 5, dyn_lit(50), 11); }
static void bad_ins_prev_far(void) { ins50(false, 2000099, 8, 0, 0); }
static void bad_ins_prev_inside(void) { ins50(false, DO(2) + 3, 8, 0, 0); }
static void bad_ins_literal_short(void) { ins50(false, DO(2), 12 << 3, 0, 0); }
static void bad_ins_hdr_c_infimum(void) { ins50(false, 99, 8, 1, 0); }
static void bad_ins_data_c_overrun(void) { ins50(false, DO(7), 8, 0, PS); }
static void bad_ins_too_big(void) { e_ext(false, 6, (uint32_t[]){DO(7) - 99, 8, 0, 0}, 4, big, sizeof big); }
static void bad_ins_shift(void) { e_ext(false, 7, (uint32_t[]){DO(7) - 99, 40000, 8, 0, 0}, 5, dyn_lit(50), 11); }
static void bad_ins_reuse_big(void) { e_ext(false, 7, (uint32_t[]){DO(7) - 99, 0, 8, 0, 0}, 5, big, 40); }
static void bad_ins_reuse_empty(void) { e_ext(false, 7, (uint32_t[]){0, 0, 8, 0, 0}, 5, dyn_lit(50), 11); }
static void bad_ins_instant_nonleaf(void) { e_write(false, 64, "\x00\x01", 2); ins50(true, DO(7), 8 | 4, 0, 0); }
static void bad_ins_redundant_on_compact(void) { e_ext(false, 4, (uint32_t[]){0, RENC, 0, 0}, 4, red_first, 12); }
static void bad_ins_wrong_page_no(void) { page[7] = PG + 1; ins50(false, DO(7), 8, 0, 0); }
static void bad_ins_not_index(void) { e_write(false, 24, "\x00\x02", 2); ins50(true, DO(7), 8, 0, 0); }
static void bad_ins_heap_top(void) { e_write(false, 40, "\x3f\xfe", 2); ins50(true, DO(7), 8, 0, 0); }
static void bad_ins_slots(void) { e_write(false, 38, "\x20\x00", 2); ins50(true, DO(7), 8, 0, 0); }
/* record 5 points to itself */
static void bad_ins_cycle(void) { e_write(false, DO(5) - 2, "\x00\x00", 2); ins50(true, DO(4), 8, 0, 0); }
static void bad_ins_args(void) { e_ext(false, 6, (uint32_t[]){DO(7) - 99, 8, 0}, 3, NULL, 0); }
static void bad_ins_hdr_c_3byte(void) { bb(&B, "\x06\x01\x08\xc0\x00\x00\x00", 7); rec(0x20, false); }
static void bad_del_empty(void) { e_ext(false, 9, (uint32_t[]){0, 1, 10}, 3, NULL, 0); }
static void bad_del_redundant_on_compact(void) { e_ext(false, 8, (uint32_t[]){0}, 1, NULL, 0); }
static void bad_del_prev_outside(void) { e_ext(false, 9, (uint32_t[]){40000, 1, 10}, 3, NULL, 0); }
static void bad_del_supremum(void) { e_ext(false, 9, (uint32_t[]){DO(7) - 99, 1, 10}, 3, NULL, 0); }
static void bad_del_size(void) { e_ext(false, 9, (uint32_t[]){DO(6) - 99, 1, 20000}, 3, NULL, 0); }
static void bad_del_trailing(void) { e_ext(false, 9, (uint32_t[]){DO(6) - 99, 1, 10}, 3, "\x00", 1); }
static void bad_del_n_recs(void)
{
	e_write(false, 54, "\x00\x00", 2);
	e_ext(true, 9, (uint32_t[]){DO(6) - 99, 1, 10}, 3, NULL, 0);
}
static void bad_red_del_prev(void) { e_ext(false, 8, (uint32_t[]){RO(7) + 1 - 101}, 1, NULL, 0); }
static void bad_red_fields(void) { e_ext(false, 4, (uint32_t[]){RO(7) - 101, 0x3FF << 3, 0, 0}, 4, red_first, 12); }
static void bad_red_hdr_c(void) { e_ext(false, 4, (uint32_t[]){RO(7) - 101, RENC, 3, 0}, 4, red_tail(9), 7); }
static void bad_red_data_c(void) { e_ext(false, 4, (uint32_t[]){RO(7) - 101, RENC, 2, 11}, 4, NULL, 0); }
static const uint8_t red_big[22] = {20, 4}; /* a 28-byte record (field ends 20, 4) */
static void bad_red_reuse_big(void) { e_ext(false, 5, (uint32_t[]){RO(7) - 101, RENC, 0, 0}, 4, red_big, 22); }
static void bad_red_free_ptr(void)
{
	e_write(false, 44, "\x3f\x00", 2);
	e_ext(true, 5, (uint32_t[]){RO(7) - 101, RENC, 2, 3}, 4, red_tail(9), 7);
}
static void bad_red_on_compact_page(void)
{
	e_write(false, 42, "\x80", 1);
	e_ext(true, 8, (uint32_t[]){RO(3) - 101}, 1, NULL, 0);
}

static const struct bad bads[] = {
	{"offset at the page size", PREP_DYNAMIC, "35 07 03 bf 80 01", NULL, "outside [8, 16384)"},
	{"WRITE beyond the page end", PREP_DYNAMIC, "37 07 03 bf 7e 01 02 03", NULL, "overrun"},
	{"offset below 8", PREP_DYNAMIC, "34 07 03 07 01", NULL, "0+7 outside"},
	{"WRITE without data", PREP_DYNAMIC, "33 07 03 64", NULL, "bad offset varint"},
	{"4-byte offset varint", PREP_DYNAMIC, "37 07 03 e0 00 00 00 01", NULL, "bad offset varint"},
	{"same_page WRITE past the end", PREP_DYNAMIC, "35 07 03 bf 7e 01 b3 01 01 02", NULL, "record 2 (WRITE)"},
	{"MEMMOVE source below 8", PREP_DYNAMIC, "55 07 03 0a 04 05", NULL, "source"},
	{"MEMMOVE source past the end", PREP_DYNAMIC, "57 07 03 64 08 c0 3e ae", NULL, "source"},
	{"MEMMOVE with trailing bytes", PREP_DYNAMIC, "56 07 03 64 08 00 00", NULL, "bytes after the source"},
	{"MEMSET with more fill than length", PREP_DYNAMIC, "47 07 03 64 02 01 02 03", NULL,
	 "3 fill bytes for a length of 2"},
	{"MEMSET length not a multiple", PREP_DYNAMIC, "46 07 03 64 05 01 02", NULL, "multiple"},
	{"MEMSET past the end", PREP_DYNAMIC, "46 07 03 bf 7c 05 01", NULL, "overrun"},
	{"MEMSET without fill", PREP_DYNAMIC, "44 07 03 64 05", NULL, "no fill byte"},
	{"same_page record after FREE_PAGE", PREP_DYNAMIC, "02 07 03 b2 64 01", NULL, "after FREE_PAGE"},
	{"same_page EXTENDED after FREE_PAGE", PREP_DYNAMIC, "02 07 03 a1 01", NULL, "after FREE_PAGE"},
	{"same_page record first", PREP_DYNAMIC, "b2 64 01", NULL, "without a page identifier"},
	{"same_page FREE_PAGE", PREP_DYNAMIC, "34 07 03 64 01 81 00", NULL, "record 2 (FREE_PAGE)"},
	{"FREE_PAGE with a payload", PREP_DYNAMIC, "03 07 03 00", NULL, "nothing else"},
	{"INIT_PAGE with a payload", PREP_DYNAMIC, "13 07 03 00", NULL, "nothing else"},
	{"unknown EXTENDED subtype", PREP_DYNAMIC, "23 07 03 0b", NULL, "subtype 11"},
	{"EXTENDED without subtype", PREP_DYNAMIC, "22 07 03", NULL, "no subtype"},
	{"INIT_ROW_FORMAT with arguments", PREP_DYNAMIC, "24 07 03 01 00", NULL, "after the subtype"},
	{"TRIM_PAGES with arguments", PREP_DYNAMIC, "24 07 03 0a 00", NULL, "after the subtype"},
	{"truncated length varint", PREP_DYNAMIC, "30 c0", NULL, "varint"},
	{"invalid length varint", PREP_DYNAMIC, "30 f8 00", NULL, "varint"},
	{"truncated page id varint", PREP_DYNAMIC, "31 87", NULL, "identifier"},
	{"record overruns the entry", PREP_DYNAMIC, "35 07 03 10", NULL, "overruns the entry"},
	{"RESERVED type", PREP_DYNAMIC, "63 07 03 00", NULL, "RESERVED"},
	{"end marker 01", PREP_DYNAMIC, "01", NULL, "end-of-mtr byte 01"},
	{"end marker 00 after a record", PREP_DYNAMIC, "34 07 03 64 01 00", NULL,
	 "record 2 (FREE_PAGE) at +5: end-of-mtr byte 00"},
	{"UNDO_APPEND of 2 bytes", PREP_DYNAMIC, "25 07 03 03 61 62", NULL, "undo record of 2 bytes"},
	{"insert with prev outside the page", PREP_DYNAMIC, NULL, bad_ins_prev_outside,
	 "record 1 (INSERT_REUSE_DYNAMIC) at +0: prev record offset 16500"},
	{"insert with prev far outside", PREP_DYNAMIC, NULL, bad_ins_prev_far, "prev record offset 2000099"},
	{"insert with prev inside a record", PREP_DYNAMIC, NULL, bad_ins_prev_inside, "next pointer +0"},
	{"insert with more header than literal", PREP_DYNAMIC, NULL, bad_ins_literal_short, "literal header bytes"},
	{"insert copying header from the infimum", PREP_DYNAMIC, NULL, bad_ins_hdr_c_infimum,
	 "common header bytes below prev"},
	{"insert copying data past the heap", PREP_DYNAMIC, NULL, bad_ins_data_c_overrun, "copied from prev"},
	{"insert larger than the free space", PREP_DYNAMIC, NULL, bad_ins_too_big, "does not fit"},
	{"reuse with a wild shift", PREP_DYNAMIC, NULL, bad_ins_shift, "reused space"},
	{"reuse larger than the garbage", PREP_DYNAMIC, NULL, bad_ins_reuse_big, "garbage 16"},
	{"reuse with an empty free list", PREP_EMPTY_DYNAMIC, NULL, bad_ins_reuse_empty, "free record offset 0"},
	{"instant record on a node pointer page", PREP_DYNAMIC, NULL, bad_ins_instant_nonleaf,
	 "record 2 (INSERT_HEAP_DYNAMIC) at +6: instant"},
	{"REDUNDANT insert on a COMPACT page", PREP_DYNAMIC, NULL, bad_ins_redundant_on_compact, "COMPACT page"},
	{"insert on a page with another number", PREP_DYNAMIC, NULL, bad_ins_wrong_page_no, "page number"},
	{"insert on a non-index page", PREP_DYNAMIC, NULL, bad_ins_not_index, "index"},
	{"insert with heap top in the directory", PREP_DYNAMIC, NULL, bad_ins_heap_top, "heap top"},
	{"insert with too many slots", PREP_DYNAMIC, NULL, bad_ins_slots, "8192 directory slots"},
	{"insert on a cyclic record list", PREP_DYNAMIC, NULL, bad_ins_cycle, "next pointer +0"},
	{"insert with missing arguments", PREP_DYNAMIC, NULL, bad_ins_args, "malformed arguments"},
	{"insert with a 3-byte hdr_c", PREP_DYNAMIC, NULL, bad_ins_hdr_c_3byte, "malformed arguments"},
	{"delete on an empty page", PREP_EMPTY_DYNAMIC, NULL, bad_del_empty, "PAGE_N_RECS"},
	{"REDUNDANT delete on a COMPACT page", PREP_DYNAMIC, NULL, bad_del_redundant_on_compact, "COMPACT page"},
	{"delete with prev outside the page", PREP_DYNAMIC, NULL, bad_del_prev_outside, "prev record offset 40099"},
	{"delete of the supremum", PREP_DYNAMIC, NULL, bad_del_supremum, "offset 112 is not a user record"},
	{"delete with a wild data size", PREP_DYNAMIC, NULL, bad_del_size, "6+20000 bytes"},
	{"delete with trailing bytes", PREP_DYNAMIC, NULL, bad_del_trailing, "malformed arguments"},
	{"delete with PAGE_N_RECS 0", PREP_DYNAMIC, NULL, bad_del_n_recs,
	 "record 2 (DELETE_ROW_FORMAT_DYNAMIC) at +6: PAGE_N_RECS"},
	{"REDUNDANT delete with prev inside a record", PREP_REDUNDANT, NULL, bad_red_del_prev, "offset 29824"},
	{"REDUNDANT insert with 1024 fields", PREP_REDUNDANT, NULL, bad_red_fields, "1024 fields"},
	{"REDUNDANT insert with hdr_c above the header", PREP_REDUNDANT, NULL, bad_red_hdr_c, "3 common header bytes"},
	{"REDUNDANT insert with data_c above the size", PREP_REDUNDANT, NULL, bad_red_data_c, "11 copied"},
	{"REDUNDANT reuse of a too small record", PREP_REDUNDANT, NULL, bad_red_reuse_big, "does not fit free record"},
	{"REDUNDANT reuse with PAGE_FREE outside the heap", PREP_REDUNDANT, NULL, bad_red_free_ptr,
	 "free record offset 16128"},
	{"REDUNDANT delete on a page marked COMPACT", PREP_REDUNDANT, NULL, bad_red_on_compact_page,
	 "record 2 (DELETE_ROW_FORMAT_REDUNDANT) at +5: COMPACT page"},
};

static void test_malformed(void)
{
	static uint8_t before[PS];
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		const struct bad *t = &bads[i];
		prepare(t->prep);
		E.n = B.n = 0;
		if (t->hex)
			hex(t->hex);
		else
			t->build();
		/* WRITE-first cases modify the page before the bad record: compare after that prefix */
		memcpy(before, page, PS);
		size_t n = E.n;
		why[0] = 0;
		int rc = replay_entry(&frame, E.b, n, &stats, &only_free, why, sizeof why);
		E.n = 0;
		if (rc != REPLAY_CORRUPT || !why[0] || (t->expect && !strstr(why, t->expect)))
			fprintf(stderr, "\n  %s: rc %d, why \"%s\"\n", t->name, rc, why);
		CU_ASSERT_EQUAL(rc, REPLAY_CORRUPT);
		CU_ASSERT(strncmp(why, "record ", 7) == 0);
		CU_ASSERT(!t->expect || strstr(why, t->expect));
		CU_ASSERT(!only_free);
		bool first_bad = !strstr(why, "record 1 ") ? false : true;
		if (first_bad && memcmp(before, page, PS)) {
			fprintf(stderr, "\n  %s: the frame was modified\n", t->name);
			CU_FAIL("refused record modified the frame");
		}
	}
}

/* ---- random valid operations checked against a model of the page */

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* A record as the model knows it. */
typedef struct mrec {
	uint32_t origin;  /* record origin */
	uint32_t extra;	  /* header bytes */
	uint32_t dsize;	  /* data bytes */
	uint32_t heap;	  /* heap number */
	uint32_t hl;	  /* header bytes below the fixed ones */
	uint32_t nf;	  /* REDUNDANT: fields */
	bool is_short;	  /* REDUNDANT: 1-byte field ends */
	uint8_t hdr[16];  /* header bytes below the fixed ones, lowest address first */
	uint8_t data[64]; /* data bytes */
} mrec;

/* The model: live records in list order, the free list, the heap. */
typedef struct model {
	bool comp;	 /* COMPACT (else REDUNDANT) */
	mrec live[3000];	 /* user records in list order */
	int n;		 /* their count */
	mrec freel[3000]; /* free list, head last */
	int nf;		 /* its length */
	uint32_t top;	 /* PAGE_HEAP_TOP */
	uint32_t n_heap; /* PAGE_N_HEAP without the format bit */
} model;

static model M;

/* A random record: COMPACT with 0..3 header bytes, or REDUNDANT with 1..4 fields. */
static void random_mrec(mrec *r)
{
	memset(r, 0, sizeof *r);
	if (M.comp) {
		r->hl = rnd() % 4;
		for (uint32_t i = 0; i < r->hl; i++)
			r->hdr[i] = (uint8_t)(rnd() % 2);
		r->dsize = 1 + rnd() % 40;
	} else {
		uint32_t end = 0, w;
		r->nf = 1 + rnd() % 4;
		r->is_short = rnd() % 4 != 0;
		w = r->is_short ? 1 : 2;
		r->hl = w * r->nf;
		for (uint32_t i = 0; i < r->nf; i++) {
			end += rnd() % 12;
			uint32_t at = r->hl - w * (i + 1); /* field i ends at origin - 6 - w * (i + 1) */
			if (w == 1) {
				r->hdr[at] = (uint8_t)end;
			} else {
				r->hdr[at] = (uint8_t)(end >> 8);
				r->hdr[at + 1] = (uint8_t)end;
			}
		}
		r->dsize = end;
	}
	r->extra = (M.comp ? 5 : 6) + r->hl;
	for (uint32_t i = 0; i < r->dsize; i++)
		r->data[i] = (uint8_t)('a' + rnd() % 2);
}

/* Header bytes of r (from just below the fixed header, going down) equal to prev's. */
static uint32_t common_hdr(const mrec *r, const mrec *prev)
{
	uint32_t k = 0;
	while (k < r->hl && k < prev->hl && r->hdr[r->hl - 1 - k] == prev->hdr[prev->hl - 1 - k])
		k++;
	return k;
}

static uint32_t common_data(const mrec *r, const mrec *prev)
{
	uint32_t k = 0;
	while (k < r->dsize && k < prev->dsize && r->data[k] == prev->data[k])
		k++;
	return k;
}

/* Insert a random record at list position i; false when it does not fit. */
static bool m_insert(int i)
{
	mrec r;
	random_mrec(&r);
	uint32_t need = r.extra + r.dsize, shift = 0;
	const mrec *prev = i ? &M.live[i - 1] : NULL, *f = M.nf ? &M.freel[M.nf - 1] : NULL;
	uint32_t hdr_c = prev ? rnd() % (common_hdr(&r, prev) + 1) : 0;
	uint32_t data_c = prev ? rnd() % (common_data(&r, prev) + 1) : 0;
	bool reuse = f && f->extra + f->dsize >= need && rnd() % 4;
	if (reuse) {
		shift = r.extra >= f->extra ? 2 * (r.extra - f->extra) : 2 * (f->extra - r.extra) + 1;
		r.origin = f->origin - f->extra + r.extra;
		r.heap = f->heap;
	} else {
		if (M.top + need + 2 * (N_SLOTS + 2) + 8 > frame.size - 8)
			return false;
		r.origin = M.top + r.extra;
		r.heap = M.n_heap;
	}
	uint8_t lit[96];
	size_t ln = r.hl - hdr_c;
	memcpy(lit, r.hdr, ln);
	memcpy(lit + ln, r.data + data_c, r.dsize - data_c);
	ln += r.dsize - data_c;
	uint32_t prev_rec = prev ? prev->origin : M.comp ? 99 : 101;
	int rc = M.comp ? ins_dyn(prev_rec, reuse, shift, (r.hl - hdr_c) << 3, hdr_c, data_c, lit, ln)
			: ins_red(prev_rec, reuse, (r.nf - 1) << 3 | (uint32_t)r.is_short << 2, hdr_c, data_c, lit, ln);
	if (rc != REPLAY_OK)
		fprintf(stderr, "\n  insert: %s\n", why);
	CU_ASSERT_EQUAL_FATAL(rc, REPLAY_OK);
	if (reuse) {
		M.nf--;
	} else {
		M.top += need;
		M.n_heap++;
	}
	memmove(&M.live[i + 1], &M.live[i], (size_t)(M.n - i) * sizeof r);
	M.live[i] = r;
	M.n++;
	return true;
}

static void m_delete(int i)
{
	mrec r = M.live[i];
	uint32_t prev_rec = i ? M.live[i - 1].origin : M.comp ? 99 : 101;
	int rc = M.comp ? del_dyn(prev_rec, r.extra - 5, r.dsize) : del_red(prev_rec);
	if (rc != REPLAY_OK)
		fprintf(stderr, "\n  delete: %s\n", why);
	CU_ASSERT_EQUAL_FATAL(rc, REPLAY_OK);
	if (r.heap == M.n_heap - 1) {
		M.top = r.origin - r.extra;
		M.n_heap--;
	} else {
		M.freel[M.nf++] = r;
	}
	memmove(&M.live[i], &M.live[i + 1], (size_t)(M.n - i - 1) * sizeof r);
	M.n--;
}

/* Compare the page with the model. */
static void m_check(void)
{
	check_page(M.comp);
	CU_ASSERT_EQUAL_FATAL(N_RECS, (uint32_t)M.n);
	CU_ASSERT_EQUAL(HEAP_TOP, M.top);
	CU_ASSERT_EQUAL(N_HEAP & 0x7FFF, M.n_heap);
	uint32_t r = M.comp ? 99 : 101;
	for (int i = 0; i < M.n; i++) {
		const mrec *m = &M.live[i];
		r = next_of(M.comp, r);
		CU_ASSERT_EQUAL_FATAL(r, m->origin);
		CU_ASSERT_EQUAL(heap_no_of(M.comp, r), m->heap);
		CU_ASSERT(!memcmp(page + r - m->extra, m->hdr, m->hl));
		CU_ASSERT(!memcmp(page + r, m->data, m->dsize));
		if (!M.comp) {
			CU_ASSERT_EQUAL((g2(r - 4) >> 1) & 0x3FF, m->nf);
			CU_ASSERT_EQUAL(page[r - 3] & 1, m->is_short);
		}
	}
	r = FREE;
	for (int i = M.nf - 1; i >= 0; i--) {
		CU_ASSERT_EQUAL_FATAL(r, M.freel[i].origin);
		uint32_t v = g2(r - 2);
		r = M.comp ? (v ? (r + v) & 0xFFFF : 0) : v;
	}
	CU_ASSERT_EQUAL(r, 0);
}

static void model_run(bool comp, uint32_t size, int ops)
{
	set_size(size);
	memset(&M, 0, sizeof M);
	M.comp = comp;
	M.top = comp ? 120 : 125;
	M.n_heap = 2;
	CU_ASSERT_EQUAL_FATAL(init_index(comp), REPLAY_OK);
	unsigned splits = 0, merges = 0;
	int maxn = 0;
	for (int k = 0; k < ops; k++) {
		maxn = M.n > maxn ? M.n : maxn;
		uint32_t slots = N_SLOTS;
		bool grow = M.n < 3 || rnd() % 100 < (k % 2000 < 1000 ? 65 : 35);
		if (!grow || !m_insert((int)(rnd() % (uint32_t)(M.n + 1))))
			if (M.n)
				m_delete((int)(rnd() % (uint32_t)M.n));
		splits += N_SLOTS > slots;
		merges += N_SLOTS < slots;
		m_check();
	}
	CU_ASSERT(splits > (size < 4096 ? 2u : 20u) && merges > (size < 4096 ? 2u : 20u));
	CU_ASSERT(maxn > (int)size / 64);
}

static void test_model(void)
{
	model_run(true, PS, 6000);
	model_run(false, PS, 6000);
	model_run(true, 1024, 3000);
	model_run(false, 4096, 3000);
	frame.size = PS;
}

/* ---- seeded fuzzing: random and mutated entries on populated pages */

/* A random varint-friendly value: mostly small, sometimes large. */
static uint32_t rval(void)
{
	static const uint32_t mod[] = {16, 64, 300, 20000, 70000, 2113664};
	return rnd() % mod[rnd() % 6];
}

/* One random record, well framed but with random arguments. */
static void random_record(void)
{
	static const uint8_t types[] = {0x00, 0x10, 0x20, 0x20, 0x20, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70};
	uint8_t t = types[rnd() % sizeof types];
	bool same = rnd() % 3 == 0;
	if (t == 0x20) {
		b1(&B, (uint8_t)(rnd() % 12));
		for (unsigned i = rnd() % 6; i; i--)
			bv(&B, rval());
	} else if (t >= 0x30) {
		for (unsigned i = rnd() % 4; i; i--)
			bv(&B, rval());
	}
	for (unsigned i = rnd() % 24; i; i--)
		b1(&B, (uint8_t)rnd());
	if (!B.n && same)
		b1(&B, 0);
	rec(t, same);
}

/* Index operations whose predecessor is a real record of the page (or close to
 * one) and whose sizes are small, so that they get past the first checks. */
static void plausible_ops(const uint32_t *org, int no, bool comp)
{
	uint32_t inf = comp ? 99 : 101;
	for (unsigned i = 1 + rnd() % 6; i; i--) {
		uint32_t prev = rnd() % 6 && no ? org[rnd() % (unsigned)no] : inf;
		if (!(rnd() % 6))
			prev += rnd() % 9 - 4;
		prev -= inf;
		bool same = E.n && rnd() % 2;
		unsigned op = rnd() % 3;
		if (op == 0 && comp) {
			e_ext(same, 9, (uint32_t[]){prev, rnd() % 4, rnd() % 24}, 3, NULL, 0);
		} else if (op == 0) {
			e_ext(same, 8, (uint32_t[]){prev}, 1, NULL, 0);
		} else {
			uint8_t lit[40];
			size_t n = rnd() % sizeof lit;
			for (size_t k = 0; k < n; k++)
				lit[k] = (uint8_t)(rnd() % 3 ? rnd() % 16 : rnd());
			uint32_t hdr_c = rnd() % 4, data_c = rnd() % 6;
			uint32_t enc = (rnd() % 4) << 3 | rnd() % 8;
			if (!comp && rnd() % 2) { /* a consistent REDUNDANT record: 1-byte field ends, no header copy */
				uint32_t nf = 1 + rnd() % 4, end = 0;
				for (uint32_t f = 0; f < nf; f++)
					lit[nf - 1 - f] = (uint8_t)(end += rnd() % 6);
				data_c = end ? rnd() % (end + 1) : 0;
				n = nf + end - data_c;
				hdr_c = 0;
				enc = (nf - 1) << 3 | 4 | rnd() % 4;
			}
			if (comp && rnd() % 2)
				e_ext(same, 7, (uint32_t[]){prev, rnd() % 16, enc, hdr_c, data_c}, 5, lit, n);
			else
				e_ext(same, (uint8_t)(comp ? 6 : 4 + rnd() % 2), (uint32_t[]){prev, enc, hdr_c, data_c},
				      4, lit, n);
		}
	}
}

/* Flip a few bytes of the page header, the system records, the records or the directory. */
static void damage_page(uint32_t size)
{
	for (unsigned i = 1 + rnd() % 4; i; i--) {
		uint32_t at;
		switch (rnd() % 4) {
		case 0:
			at = 38 + rnd() % 26;
			break;
		case 1:
			at = 94 + rnd() % 300;
			break;
		case 2:
			at = size - 8 - 1 - rnd() % 16;
			break;
		default:
			at = rnd() % size;
		}
		page[at] ^= (uint8_t)(1u << (rnd() % 8));
	}
}

static void fuzz_one(const uint8_t *base, uint32_t size, const uint32_t *org, int no, bool comp)
{
	memcpy(page, base, size);
	E.n = B.n = 0;
	unsigned mode = rnd() % 5;
	if (mode == 0) {
		for (unsigned i = 1 + rnd() % 4; i; i--)
			random_record();
	} else if (mode == 1) {
		for (unsigned i = rnd() % 48; i; i--)
			b1(&E, (uint8_t)rnd());
	} else if (mode == 2) {
		random_record();
		for (unsigned i = 1 + rnd() % 3; i && E.n; i--)
			E.b[rnd() % E.n] ^= (uint8_t)(1u << (rnd() % 8));
	} else {
		if (mode == 4)
			damage_page(size);
		plausible_ops(org, no, comp);
	}
	why[0] = 0;
	bool of = false;
	int rc = replay_entry(&frame, E.b, E.n, &stats, &of, why, sizeof why);
	CU_ASSERT(rc == REPLAY_OK || (rc == REPLAY_CORRUPT && why[0] && !of));
	E.n = 0;
}

/* Origins of the user records of the page, in list order. */
static int collect_origins(bool comp, uint32_t *org, int max)
{
	int n = 0;
	for (uint32_t r = next_of(comp, comp ? 99 : 101); r != (comp ? 112u : 116u) && n < max; r = next_of(comp, r))
		org[n++] = r;
	return n;
}

static void test_fuzz(void)
{
	static uint8_t base[3][PS];
	static const uint32_t sizes[] = {1024, 4096, PS};
	uint32_t org[3][64];
	int no[3];
	unsigned corrupt = 0, runs = 0, mstats[REPLAY_KINDS] = {0};
	for (int s = 0; s < 3; s++) {
		for (int kind = 0; kind < 3; kind++) {
			set_size(sizes[s]);
			CU_ASSERT_EQUAL_FATAL(init_index(kind != 1), REPLAY_OK);
			for (unsigned k = 0; k < 12; k++) {
				int rc;
				if (kind != 1)
					rc = ins_dyn(k ? DO(k - 1) : 99, false, 0, 1 << 3, 0, 0, dyn_lit(k), 11);
				else if (k)
					rc = ins_red(RO(k - 1), false, RENC, 2, 3, red_tail(k), 7);
				else
					rc = ins_red(101, false, RENC, 0, 0, red_first, sizeof red_first);
				CU_ASSERT_EQUAL(rc, REPLAY_OK);
			}
			if (kind == 0)
				CU_ASSERT_EQUAL(del_dyn(DO(3), 1, 10), REPLAY_OK);
			if (kind == 1)
				CU_ASSERT_EQUAL(del_red(RO(3)), REPLAY_OK);
			no[kind] = collect_origins(kind != 1, org[kind], 64);
			if (kind == 2) { /* an undo page */
				e_ext(false, 2, NULL, 0, NULL, 0);
				e_ext(true, 3, NULL, 0, "undo record", 11);
				CU_ASSERT_EQUAL(run(), REPLAY_OK);
			}
			memcpy(base[kind], page, sizes[s]);
		}
		memset(&stats, 0, sizeof stats);
		for (unsigned i = 0; i < 100000; i++, runs++) {
			int k = (int)(rnd() % 3);
			fuzz_one(base[k], sizes[s], org[k], no[k], k != 1);
			corrupt += why[0] != 0;
		}
		for (int k = 0; k < REPLAY_KINDS; k++)
			mstats[k] += (unsigned)stats.count[k];
	}
	CU_ASSERT(corrupt > runs / 4 && corrupt < runs);
	/* every kind of record got applied at least a few times */
	for (int k = 0; k < REPLAY_KINDS; k++)
		if (mstats[k] < 5) {
			fprintf(stderr, "\n  %s applied %u times\n", replay_kind_name(k), mstats[k]);
			CU_FAIL("a record kind is hardly ever applied by the fuzzer");
		}
	frame.size = PS;
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("replay", NULL, NULL);
	CU_add_test(s, "doc/redo-records.md §23 worked example", test_worked_example);
	CU_add_test(s, "INIT_ROW_FORMAT_DYNAMIC", test_dynamic_create);
	CU_add_test(s, "COMPACT inserts, copies, directory split", test_dynamic_insert_split);
	CU_add_test(s, "COMPACT deletes, balance, merge, free list, reuse", test_dynamic_delete_reuse);
	CU_add_test(s, "node pointer, instant, R-tree, 1 KiB pages", test_dynamic_page_kinds);
	CU_add_test(s, "REDUNDANT inserts and split", test_redundant_insert_split);
	CU_add_test(s, "REDUNDANT deletes, free list, reuse", test_redundant_delete_reuse);
	CU_add_test(s, "doc/redo-records.md §9 WRITE/MEMSET/MEMMOVE bytes", test_spec_write_memset_chain);
	CU_add_test(s, "WRITE, MEMSET, MEMMOVE, running offset", test_physical);
	CU_add_test(s, "INIT_PAGE, FREE_PAGE, OPTION, TRIM_PAGES", test_init_free_option);
	CU_add_test(s, "UNDO_INIT, UNDO_APPEND", test_undo);
	CU_add_test(s, "compressed frames, pages 0-2, bad frames", test_refusals);
	CU_add_test(s, "kind names", test_kinds);
	CU_add_test(s, "malformed entries", test_malformed);
	CU_add_test(s, "random valid operations against a model", test_model);
	CU_add_test(s, "fuzz", test_fuzz);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
