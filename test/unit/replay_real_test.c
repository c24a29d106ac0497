/*
 * replay_real_test.c - redo apply against the bytes a real 10.11 server produced: every record kind applied to
 * real page images, the result compared byte for byte with what mariabackup --prepare wrote.
 *
 * The fixtures (test/fixtures/apply/<page size>/<kind>-<space>-<page>.bin, made by make-fixtures.sh there
 * with test/tools/apply_capture.c; the layout is described at the top of that tool) each hold one page of a
 * real backup as copied ("before"), the same page after mariabackup's recovery ("after"), and the redo
 * entries recovery collected for it. Each page is rebuilt here the way batch.c does it, with the public
 * functions only: start from "before" (decompressed when page_compressed) or from zeros when an INIT_PAGE or
 * FREE_PAGE rebuilt it, skip entries below the page LSN or that INIT_PAGE, apply the others with
 * replay_entry(), and when the last applied entry did more than free the page, stamp it with the last entry's
 * end LSN and checksum it (or re-compress it). The kinds of the records actually applied are counted, so
 * each kind has its own test asserting that at least one fixture applies it (except OPTION, which release
 * servers never write) and that those fixtures reproduce. A last test damages an offset and a length in a
 * real entry and checks the damage is refused or shows in the bytes.
 */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "innodb/recovery/replay.h"
#include "innodb/page.h"
#include "innodb/pagecomp.h"
#include "innodb/redo.h"

#include "fixture.h"

#define FIX_HDR 48u
#define MAX_FIXTURES 512

/* One entry of a fixture. */
typedef struct fx_entry {
	uint64_t start, end; /* LSNs of the mini-transaction */
	uint32_t len;        /* bytes of recs */
	const uint8_t *recs; /* into the fixture's buffer */
} fx_entry;

/* One fixture and what rebuilding it gave. */
typedef struct fx {
	char name[128];         /* relative to the fixture directory: "16k/write-5-3.bin" */
	uint8_t *buf;           /* the file */
	size_t len;
	innodb_space_info si;   /* from the flags in the header */
	uint32_t space_id, page_no, kind;
	uint64_t init_lsn;
	const uint8_t *before, *after;
	fx_entry *e;
	size_t n;
	bool loaded;            /* the file parsed */
	int rc;                 /* rebuild(): 0 or REPLAY_CORRUPT / -1 (decompress or compress error) */
	bool match;             /* the rebuilt page equals "after" */
	size_t diff_at;         /* first different byte when not */
	uint32_t kinds;         /* bit k: a record of kind k was applied */
	char why[256];
} fx;

static fx fixtures[MAX_FIXTURES];
static size_t n_fixtures;
static char apply_dir[PATH_MAX];

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* ---- rebuilding a page as recovery does */

/* The bytes of a written page_compressed image that are compared: the server writes only the compressed image
 * rounded up to the file system block, the rest of the page in the file keeps whatever older bytes it had. */
static size_t image_len(const innodb_space_info *si, const uint8_t *img)
{
	uint32_t type = (uint32_t)img[24] << 8 | img[25], psz = si->physical_size;
	size_t len = psz;
	if (si->full_crc32 && (type & 0x8000))
		len = (type & 0x7FFF) << 8;
	else if (!si->full_crc32 && type == FIL_PAGE_PAGE_COMPRESSED)
		len = 40u + ((uint32_t)img[38] << 8 | img[39]);
	return len < psz ? len : psz;
}

/* Rebuild the page of f from entries e (n of them) into out (physical size); *cmp = how many leading bytes of
 * out are the server's. Returns 0, REPLAY_CORRUPT (why set) or -1 for a page_compressed error; st counts the
 * applied records. Two outcomes follow mariabackup 10.11 where it differs from a plain flush: a page of a
 * page_compressed tablespace whose last applied entry only frees it is punched out of the file (zeros), and
 * a legacy (not full_crc32) page_compressed page is written uncompressed, since mariabackup has no
 * innodb_compression_algorithm to compress that layout with. */
static int rebuild(const fx *f, const fx_entry *e, size_t n, uint8_t *out, size_t *cmp, replay_stats *st, char *why,
		   size_t wl)
{
	static uint8_t frame[INNODB_PAGE_SIZE_MAX];
	const innodb_space_info *si = &f->si;
	uint32_t psz = si->physical_size, fsz = si->page_compressed ? si->logical_size : psz;
	uint64_t page_lsn = 0, last_end = 0;
	xb_error err;
	memcpy(out, f->before, psz);
	*cmp = psz;
	memset(frame, 0, fsz);
	if (!f->init_lsn) {
		if (si->page_compressed && pagecomp_is_compressed(f->before, si)) {
			if (pagecomp_decompress(f->before, frame, si, f->page_no, &err)) {
				snprintf(why, wl, "%.200s", err.msg);
				return -1;
			}
		} else {
			memcpy(frame, f->before, psz);
		}
		page_lsn = be64(frame + FIL_PAGE_LSN);
	}
	replay_frame af = {.page = frame, .size = fsz, .space_id = f->space_id, .page_no = f->page_no, .zip = si->zip};
	bool modified = false, freed = false;
	for (size_t i = 0; i < n; i++) {
		last_end = e[i].end;
		if (e[i].start < page_lsn || e[i].start < f->init_lsn)
			continue; /* already in the page, or before the INIT_PAGE/FREE_PAGE that rebuilt it */
		bool only_free = false;
		if (replay_entry(&af, e[i].recs, e[i].len, st, &only_free, why, wl) != REPLAY_OK)
			return REPLAY_CORRUPT;
		modified = !only_free;
		freed = only_free;
	}
	if (!modified && freed && si->page_compressed) {
		memset(out, 0, psz);
	} else if (!modified) {
		/* not written: the file keeps the page as it was copied */
	} else if (si->page_compressed && si->full_crc32) {
		if (pagecomp_write_image(frame, out, si, f->space_id, f->page_no, last_end, PAGECOMP_DEFAULT_LEVEL,
					 &err)) {
			snprintf(why, wl, "%.200s", err.msg);
			return -1;
		}
		*cmp = image_len(si, out);
	} else {
		innodb_page_finalize(frame, si, f->space_id, f->page_no, last_end);
		memcpy(out, frame, psz);
	}
	return 0;
}

/* ---- loading */

static bool parse(fx *f)
{
	const uint8_t *p = f->buf;
	if (f->len < FIX_HDR || memcmp(p, "XBAPPLY1", 8) || le32(p + 8) != 1 || le32(p + 44) != 0)
		return false;
	memset(&f->si, 0, sizeof f->si);
	if (!innodb_flags_decode(le32(p + 12), &f->si) || f->si.physical_size != le32(p + 24))
		return false;
	f->space_id = le32(p + 16);
	f->si.space_id = f->space_id;
	f->page_no = le32(p + 20);
	f->n = le32(p + 28);
	f->init_lsn = le64(p + 32);
	f->kind = le32(p + 40);
	size_t psz = f->si.physical_size, off = FIX_HDR + 2 * psz;
	if (f->kind >= REPLAY_KINDS || f->len < off || !(f->e = calloc(f->n ? f->n : 1, sizeof *f->e)))
		return false;
	f->before = p + FIX_HDR;
	f->after = p + FIX_HDR + psz;
	for (size_t i = 0; i < f->n; i++) {
		if (f->len - off < 20)
			return false;
		fx_entry *e = &f->e[i];
		e->start = le64(p + off);
		e->end = le64(p + off + 8);
		e->len = le32(p + off + 16);
		off += 20;
		if (f->len - off < e->len || e->end <= e->start || (i && e->start < f->e[i - 1].end))
			return false;
		e->recs = p + off;
		off += e->len;
	}
	return off == f->len;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const fx *)a)->name, ((const fx *)b)->name);
}

/* Every *.bin one level below the fixture directory (one subdirectory per page size). */
static void collect(void)
{
	DIR *top = opendir(apply_dir);
	const struct dirent *d;
	while (top && (d = readdir(top)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		char sub[PATH_MAX + 300];
		snprintf(sub, sizeof sub, "%s/%s", apply_dir, d->d_name);
		DIR *dd = opendir(sub);
		const struct dirent *g;
		while (dd && (g = readdir(dd)) != NULL && n_fixtures < MAX_FIXTURES) {
			size_t l = strlen(g->d_name);
			if (l < 5 || l > 80 || strcmp(g->d_name + l - 4, ".bin") || strlen(d->d_name) > 40)
				continue;
			fx *f = &fixtures[n_fixtures++];
			snprintf(f->name, sizeof f->name, "%.40s/%.80s", d->d_name, g->d_name);
		}
		if (dd)
			closedir(dd);
	}
	if (top)
		closedir(top);
	qsort(fixtures, n_fixtures, sizeof fixtures[0], by_name);
}

/* A whole file (malloc'ed), NULL when it cannot be read. */
static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	long sz = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (sz > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)sz)) != NULL &&
	    fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = sz > 0 ? (size_t)sz : 0;
	return buf;
}

static void rebuild_all(void)
{
	static uint8_t out[INNODB_PAGE_SIZE_MAX];
	for (size_t i = 0; i < n_fixtures; i++) {
		fx *f = &fixtures[i];
		char path[PATH_MAX + 200];
		snprintf(path, sizeof path, "%s/%s", apply_dir, f->name);
		f->buf = read_file(path, &f->len);
		f->loaded = f->buf && parse(f);
		if (!f->loaded)
			continue;
		replay_stats st;
		memset(&st, 0, sizeof st);
		size_t cmp;
		f->rc = rebuild(f, f->e, f->n, out, &cmp, &st, f->why, sizeof f->why);
		for (int k = 0; k < REPLAY_KINDS; k++)
			if (st.count[k])
				f->kinds |= 1u << k;
		f->match = !f->rc && !memcmp(out, f->after, cmp);
		while (!f->rc && f->diff_at < cmp && out[f->diff_at] == f->after[f->diff_at])
			f->diff_at++;
	}
}

/* The fixtures are in $XB_APPLY_FIXTURE_DIR, else next to those of fixture.h (test/fixtures/apply). */
static int suite_init(void)
{
	const char *env = getenv("XB_APPLY_FIXTURE_DIR");
	if (env) {
		snprintf(apply_dir, sizeof apply_dir, "%s", env);
	} else {
		find_fixture_dir();
		snprintf(apply_dir, sizeof apply_dir, "%.*s/../apply", PATH_MAX - 16, fixture_dir);
	}
	collect();
	rebuild_all();
	return 0;
}

static int suite_clean(void)
{
	for (size_t i = 0; i < n_fixtures; i++) {
		free(fixtures[i].buf);
		free(fixtures[i].e);
	}
	return 0;
}

/* ---- tests */

static void report(const fx *f)
{
	const char *kind = replay_kind_name((int)f->kind);
	if (f->rc)
		fprintf(stderr, "\n  %s (%s, space %u page %u): %s\n", f->name, kind, f->space_id, f->page_no, f->why);
	else
		fprintf(stderr, "\n  %s (%s, space %u page %u): differs from the server's page at byte %zu\n", f->name,
			kind, f->space_id, f->page_no, f->diff_at);
}

static void test_fixtures_load(void)
{
	CU_ASSERT_FATAL(n_fixtures > 0);
	bool sizes[3] = {false, false, false};
	for (size_t i = 0; i < n_fixtures; i++) {
		CU_ASSERT(fixtures[i].loaded);
		if (!fixtures[i].loaded) {
			fprintf(stderr, "\n  %s: not a valid fixture\n", fixtures[i].name);
			continue;
		}
		uint32_t lsz = fixtures[i].si.logical_size;
		sizes[0] |= lsz == 4096;
		sizes[1] |= lsz == 16384;
		sizes[2] |= lsz == 65536;
		/* the kind it was picked for is one its applied records have */
		CU_ASSERT(fixtures[i].kinds & 1u << fixtures[i].kind);
	}
	CU_ASSERT(sizes[0] && sizes[1] && sizes[2]);
}

static void test_all_reproduce(void)
{
	size_t ok = 0;
	for (size_t i = 0; i < n_fixtures; i++) {
		const fx *f = &fixtures[i];
		if (!f->loaded)
			continue;
		CU_ASSERT(f->match);
		if (f->match)
			ok++;
		else
			report(f);
	}
	CU_ASSERT(ok > 0);
}

static void check_kind(int kind)
{
	size_t with = 0;
	for (size_t i = 0; i < n_fixtures; i++) {
		const fx *f = &fixtures[i];
		if (!f->loaded || !(f->kinds & 1u << kind))
			continue;
		with++;
		CU_ASSERT(f->match);
		if (!f->match)
			report(f);
	}
	if (kind != REPLAY_OPTION)
		CU_ASSERT(with > 0);
}

#define KIND_TEST(k) \
	static void test_kind_##k(void) \
	{ \
		check_kind(REPLAY_##k); \
	}
KIND_TEST(FREE_PAGE)
KIND_TEST(INIT_PAGE)
KIND_TEST(WRITE)
KIND_TEST(MEMSET)
KIND_TEST(MEMMOVE)
KIND_TEST(OPTION)
KIND_TEST(EXT_INIT_REDUNDANT)
KIND_TEST(EXT_INIT_DYNAMIC)
KIND_TEST(EXT_UNDO_INIT)
KIND_TEST(EXT_UNDO_APPEND)
KIND_TEST(EXT_INSERT_HEAP_REDUNDANT)
KIND_TEST(EXT_INSERT_REUSE_REDUNDANT)
KIND_TEST(EXT_INSERT_HEAP_DYNAMIC)
KIND_TEST(EXT_INSERT_REUSE_DYNAMIC)
KIND_TEST(EXT_DELETE_REDUNDANT)
KIND_TEST(EXT_DELETE_DYNAMIC)
KIND_TEST(EXT_TRIM_PAGES)

/* The LSN recovery compares the entries with: 0 for a rebuilt page, else that of the (decompressed) page. */
static uint64_t start_lsn_of(const fx *f)
{
	static uint8_t page[INNODB_PAGE_SIZE_MAX];
	if (f->init_lsn)
		return 0;
	if (!f->si.page_compressed || !pagecomp_is_compressed(f->before, &f->si))
		return be64(f->before + FIL_PAGE_LSN);
	xb_error err;
	return pagecomp_decompress(f->before, page, &f->si, f->page_no, &err) ? UINT64_MAX : be64(page + FIL_PAGE_LSN);
}

/* The last record of an entry: its start, the start of its body (after the page id), its end, and the running
 * offset it starts from (0 after a page id, FIL_PAGE_TYPE after INIT_PAGE, FREE_PAGE and EXTENDED, else the end
 * of the previous WRITE, MEMSET or MEMMOVE). */
static bool last_record(const fx_entry *e, size_t *start, size_t *body, size_t *end, uint32_t *base)
{
	const uint8_t *r = e->recs;
	uint32_t pos = 0;
	bool found = false;
	for (size_t p = 0; p < e->len;) {
		uint8_t b = r[p], t = b & 0x70;
		size_t q = p + 1, stop;
		uint32_t v, rel, n;
		if (b & 15) {
			stop = p + 1 + (b & 15);
		} else {
			int l = redo_varint_decode(r + q, e->len - q, &v);
			if (l <= 0)
				return false;
			q += (size_t)l;
			stop = p + 16 + v;
		}
		if (stop > e->len)
			return false;
		for (int k = 0; !(b & 0x80) && k < 2; k++) {
			int l = redo_varint_decode(r + q, stop - q, &v);
			if (l <= 0)
				return false;
			q += (size_t)l;
		}
		if (!(b & 0x80))
			pos = 0;
		*start = p;
		*body = q;
		*end = stop;
		*base = pos;
		found = true;
		int l = t >= 0x30 && t <= 0x50 ? redo_varint_decode(r + q, stop - q, &rel) : 0;
		if (t <= 0x20)
			pos = FIL_PAGE_TYPE;
		else if (t == 0x30 && l > 0)
			pos = (pos + rel + (uint32_t)(stop - q - (size_t)l)) & 0xFFFF;
		else if (l > 0 && redo_varint_decode(r + q + l, stop - q - (size_t)l, &n) > 0)
			pos = (pos + rel + n) & 0xFFFF;
		p = stop;
	}
	return found;
}

/* A damaged offset or length in a real entry: replay_entry refuses it, or the page comes out different. The
 * entry damaged is the last one applied, its last record a WRITE whose bytes are not all equal, placed clear
 * of the fields the flush rewrites: moving it by one byte then necessarily changes the page. Its length
 * nibble raised to 15 makes the record run past the end of the entry, which must be refused. */
static void test_damaged_entry(void)
{
	static uint8_t out[INNODB_PAGE_SIZE_MAX];
	static uint8_t copy[1u << 17];
	size_t offsets = 0, lengths = 0;
	for (size_t i = 0; i < n_fixtures; i++) {
		const fx *f = &fixtures[i];
		if (!f->loaded || !f->match || !f->n)
			continue;
		size_t last = f->n; /* the last applied entry */
		uint64_t page_lsn = start_lsn_of(f);
		uint32_t fsz = f->si.page_compressed ? f->si.logical_size : f->si.physical_size;
		for (size_t k = 0; k < f->n; k++)
			if (f->e[k].start >= page_lsn && f->e[k].start >= f->init_lsn)
				last = k;
		size_t start, body, end;
		uint32_t base;
		if (last == f->n || f->e[last].len > sizeof copy ||
		    !last_record(&f->e[last], &start, &body, &end, &base))
			continue;
		const uint8_t *r = f->e[last].recs;
		uint32_t off;
		int ol = (r[start] & 0x70) == 0x30 ? redo_varint_decode(r + body, end - body, &off) : 0;
		size_t data = body + (size_t)(ol > 0 ? ol : 0), dlen = end - data;
		bool varied = false;
		for (size_t k = data + 1; k < end; k++)
			varied |= r[k] != r[data];
		fx_entry *e = malloc(f->n * sizeof *e);
		CU_ASSERT_FATAL(e != NULL);
		memcpy(e, f->e, f->n * sizeof *e);
		memcpy(copy, r, f->e[last].len);
		e[last].recs = copy;
		replay_stats st;
		size_t cmp;
		char why[256];
		/* the offset: one byte lower or higher (the low bit of its varint flipped) */
		off += base;
		int delta = ol > 0 && (r[body + (size_t)ol - 1] & 1) ? -1 : 1;
		if (ol > 0 && varied && (delta < 0 ? off - 1 : off) >= FIL_PAGE_DATA && off + dlen + 1 <= fsz - 8) {
			copy[body + (size_t)ol - 1] ^= 1;
			uint32_t moved;
			if (redo_varint_decode(copy + body, end - body, &moved) == ol && base + moved == off + delta) {
				int rc = rebuild(f, e, f->n, out, &cmp, &st, why, sizeof why);
				CU_ASSERT(rc == REPLAY_CORRUPT || memcmp(out, f->after, cmp) != 0);
				offsets++;
			}
			memcpy(copy, r, f->e[last].len);
		}
		/* the length: past the end of the entry */
		if ((r[start] & 15) && (r[start] & 15) < 15 && end == f->e[last].len) {
			copy[start] |= 15;
			CU_ASSERT_EQUAL(rebuild(f, e, f->n, out, &cmp, &st, why, sizeof why), REPLAY_CORRUPT);
			lengths++;
		}
		free(e);
	}
	CU_ASSERT(offsets > 0);
	CU_ASSERT(lengths > 0);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("replay on real pages", suite_init, suite_clean);
	CU_add_test(s, "fixtures load (4, 16 and 64 KiB pages)", test_fixtures_load);
	CU_add_test(s, "every fixture reproduces the server's page", test_all_reproduce);
	CU_add_test(s, "FREE_PAGE", test_kind_FREE_PAGE);
	CU_add_test(s, "INIT_PAGE", test_kind_INIT_PAGE);
	CU_add_test(s, "WRITE", test_kind_WRITE);
	CU_add_test(s, "MEMSET", test_kind_MEMSET);
	CU_add_test(s, "MEMMOVE", test_kind_MEMMOVE);
	CU_add_test(s, "OPTION (none expected: release servers do not write it)", test_kind_OPTION);
	CU_add_test(s, "INIT_ROW_FORMAT_REDUNDANT", test_kind_EXT_INIT_REDUNDANT);
	CU_add_test(s, "INIT_ROW_FORMAT_DYNAMIC", test_kind_EXT_INIT_DYNAMIC);
	CU_add_test(s, "UNDO_INIT", test_kind_EXT_UNDO_INIT);
	CU_add_test(s, "UNDO_APPEND", test_kind_EXT_UNDO_APPEND);
	CU_add_test(s, "INSERT_HEAP_REDUNDANT", test_kind_EXT_INSERT_HEAP_REDUNDANT);
	CU_add_test(s, "INSERT_REUSE_REDUNDANT", test_kind_EXT_INSERT_REUSE_REDUNDANT);
	CU_add_test(s, "INSERT_HEAP_DYNAMIC", test_kind_EXT_INSERT_HEAP_DYNAMIC);
	CU_add_test(s, "INSERT_REUSE_DYNAMIC", test_kind_EXT_INSERT_REUSE_DYNAMIC);
	CU_add_test(s, "DELETE_ROW_FORMAT_REDUNDANT", test_kind_EXT_DELETE_REDUNDANT);
	CU_add_test(s, "DELETE_ROW_FORMAT_DYNAMIC", test_kind_EXT_DELETE_DYNAMIC);
	CU_add_test(s, "TRIM_PAGES (within its truncating mini-transaction)", test_kind_EXT_TRIM_PAGES);
	CU_add_test(s, "a damaged offset or length is refused or changes the page", test_damaged_entry);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
