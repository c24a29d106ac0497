/*
 * apply_capture.c - capture the real-server fixtures of test/unit/replay_real_test.c: for each redo record kind
 * a few pages of a real 10.11 backup, each with the page as copied, the page as mariabackup --prepare left it,
 * and the redo entries recovery applies to it.
 *
 *   apply_capture BACKUP_DIR PREPARED_DIR OUT_DIR [--per-kind N] [--per-class N]
 *
 * BACKUP_DIR is an unprepared mariabackup backup, PREPARED_DIR a copy of it prepared by mariabackup in one
 * batch (--use-memory=2G). The redo copy in BACKUP_DIR is parsed from its checkpoint to its end (redo.h) and
 * split into per-page entries (collect.h), all in one batch. Every page with entries is rebuilt the way
 * batch.c does it (entries below the page LSN or the INIT_PAGE LSN skipped, replay_entry, finalize or
 * re-compress; two outcomes follow mariabackup instead, see rebuild()) and compared with PREPARED_DIR, noting
 * the kinds of the records actually applied. Then, rarest kind first, up to --per-kind pages (default 3) are
 * picked for each kind: pages already picked count, then one page per tablespace format not yet covered, then
 * the smallest entry lists; each format then gets --per-class pages (default 2; those applying the most
 * kinds), and each way a page can end up (kept, written, punched, legacy page_compressed written plain) one.
 * Each page is written as OUT_DIR/<kind>-<space>-<page>.bin, integers little-endian:
 *   0  "XBAPPLY1"   8 u32 version (1)   12 u32 FSP_SPACE_FLAGS   16 u32 space_id   20 u32 page_no
 *   24 u32 physical page size   28 u32 entries   32 u64 init_lsn   40 u32 kind picked for   44 u32 0
 *   48 the page before (BACKUP_DIR, as stored), then after (PREPARED_DIR, as stored), then per entry
 *      u64 start_lsn, u64 end_lsn, u32 len and len bytes of records.
 * TRIM_PAGES acts on the file, never on a page, so collect.h keeps it out of every entry; in a page (>= 3) that
 * the truncating mini-transaction rebuilds, that record is put back in front of the page's entry as it stands
 * in the log, so it is replayed (a no-op on a page) within its real mini-transaction. Left out: tablespaces
 * created, renamed or dropped in the log or with a .new/.del/.ren file in BACKUP_DIR (mariabackup swaps files
 * before its recovery), encrypted ones, pages past the end of the prepared file, and pages with more than
 * 64 KiB of records. Pages that do not reproduce are listed on stderr and picked first (up to 4).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/path.h"
#include "innodb/recovery/replay.h"
#include "innodb/page.h"
#include "innodb/pagecomp.h"
#include "innodb/recovery/collect.h"
#include "innodb/redo.h"
#include "innodb/spaces.h"

#define FIX_HDR 48u
#define MAX_ENTRY_BYTES 65536u
#define TRIMS_MAX 256

/* One entry as written to a fixture. */
typedef struct fentry {
	uint64_t start, end; /* LSNs of the mini-transaction */
	uint32_t len;        /* bytes in recs */
	const uint8_t *recs; /* the records (collector's arena, or own when a TRIM_PAGES record was put in front) */
	uint8_t *own;        /* malloc'ed copy to free, or NULL */
} fentry;

/* A page that can become a fixture. */
typedef struct cand {
	collect_page *pg;    /* its entries */
	space_file *bf;      /* its tablespace in BACKUP_DIR */
	uint32_t kinds;      /* bit k: an applied entry holds a record of kind k */
	size_t bytes;        /* record bytes of all its entries */
	int cls;             /* tablespace format class, for variety */
	int picked;          /* -1, or the kind it was picked for */
	int outcome;         /* enum outcome */
	bool match;          /* rebuilt page equals PREPARED_DIR */
} cand;

/* A TRIM_PAGES record seen in the log. */
typedef struct trim_rec {
	uint32_t space_id;  /* the undo tablespace */
	uint64_t lsn;       /* start of its mini-transaction */
	uint8_t rec[16];    /* the record as in the log */
	uint32_t len;       /* its bytes */
} trim_rec;

static trim_rec trims[TRIMS_MAX];
static int n_trims;

static void die(const char *what)
{
	fprintf(stderr, "apply_capture: %s\n", what);
	exit(1);
}

/* ---- the redo log */

static void on_file_rec(void *ctx, const redo_file_rec *rec)
{
	(void)ctx;
	if (rec->op == REDO_TRIM_PAGES && n_trims < TRIMS_MAX) {
		trims[n_trims].space_id = rec->space_id;
		trims[n_trims].lsn = rec->lsn;
		trims[n_trims].len = 0;
		n_trims++;
	}
}

/* Copy the TRIM_PAGES records of the mtr just parsed (those noted without bytes yet). */
static void grab_trims(const uint8_t *m, size_t len)
{
	for (int t = 0; t < n_trims; t++) {
		if (trims[t].len)
			continue;
		redo_rec_it it = redo_rec_mtr(m, (uint32_t)len);
		redo_rec h;
		while (redo_rec_next(&it, &h) == REDO_REC_OK) {
			uint32_t n = h.end - h.start;
			if (!h.file && h.type == REDO_T_EXTENDED && h.body_len && h.body[0] == REDO_EXT_TRIM_PAGES &&
			    n <= sizeof trims[t].rec) {
				memcpy(trims[t].rec, m + h.start, n);
				trims[t].len = n;
				break;
			}
		}
	}
}

/* Read the backup's log from its checkpoint to its end into r. */
static void read_log(const char *dir, collector *r, uint64_t *cp_lsn, uint64_t *end_lsn)
{
	char path[4096];
	if (xb_path_join(path, sizeof path, dir, "ib_logfile0", NULL))
		die("backup directory path too long");
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		die("cannot open the backup's ib_logfile0");
	uint8_t *file = malloc((size_t)st.st_size);
	if (!file || pread(fd, file, (size_t)st.st_size, 0) != st.st_size)
		die("cannot read ib_logfile0");
	close(fd);
	redo_log_info li;
	xb_error err;
	if (redo_log_parse(file, (size_t)st.st_size, (uint64_t)st.st_size, path, &li, &err))
		die(err.msg);
	if (li.hdr.encrypted)
		die("encrypted redo log");
	uint64_t cap = li.capacity, lsn = li.cp.checkpoint_lsn;
	uint8_t *lin = malloc(cap);
	if (!lin)
		die("out of memory");
	uint64_t off = redo_lsn_to_offset(lsn, li.hdr.first_lsn, cap) - REDO_HEADER_SIZE;
	memcpy(lin, file + REDO_HEADER_SIZE + off, cap - off);
	memcpy(lin + (cap - off), file + REDO_HEADER_SIZE, off);
	free(file);
	*cp_lsn = lsn;
	size_t pos = 0;
	char why[200];
	for (;;) {
		redo_mtr m;
		int n0 = n_trims;
		int s = redo_parse_mtr(lin + pos, cap - pos, lsn, li.hdr.first_lsn, cap, false, &m, on_file_rec, NULL);
		if (s == REDO_MTR_CORRUPT)
			die(m.why);
		if (s != REDO_MTR_OK)
			break;
		if (n_trims > n0)
			grab_trims(lin + pos, m.records_len);
		if (collect_add_mtr(r, lin + pos, m.records_len, lsn, m.end_lsn, why, sizeof why))
			die(why);
		pos += m.len;
		lsn = m.end_lsn;
	}
	*end_lsn = lsn;
	/* the collector keeps copies of the records: the log buffer is no longer needed */
	free(lin);
}

/* ---- tablespace files */

/* innodb_data_file_path of backup-my.cnf, NULL when absent (malloc'ed). */
static char *data_file_path(const char *dir)
{
	char path[4096], line[1024];
	if (xb_path_join(path, sizeof path, dir, "backup-my.cnf", NULL))
		die("backup directory path too long");
	FILE *f = fopen(path, "r");
	char *v = NULL;
	while (f && !v && fgets(line, sizeof line, f))
		if (!strncmp(line, "innodb_data_file_path=", 22)) {
			line[strcspn(line, "\r\n")] = 0;
			v = strdup(line + 22);
		}
	if (f)
		fclose(f);
	return v;
}

/* Read page page_no of f into buf (zeros past the end). Returns the bytes read (0..physical size). */
static size_t read_page(const space_file *f, uint32_t page_no, uint8_t *buf)
{
	uint32_t psz = f->info.physical_size;
	memset(buf, 0, psz);
	int k = 0;
	while (k + 1 < f->n_parts && page_no >= f->part[k + 1].first_page)
		k++;
	int fd = open(f->part[k].path, O_RDONLY);
	if (fd < 0)
		die("cannot open a tablespace file");
	ssize_t n = pread(fd, buf, psz, (off_t)(page_no - f->part[k].first_page) * psz);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

/* A mariabackup DDL marker next to the tablespace's file (the file is replaced before recovery). */
static bool has_marker(const char *dir, const space_file *f)
{
	static const char *const suf[] = {".new", ".del", ".ren"};
	char path[4096], base[4096];
	size_t n = strlen(f->rel);
	if (n > 4 && !strcmp(f->rel + n - 4, ".ibd"))
		n -= 4;
	snprintf(base, sizeof base, "%.*s", (int)n, f->rel);
	for (int i = 0; i < 3; i++) {
		if (xb_path_join3(path, sizeof path, dir, base, suf[i], NULL))
			die("tablespace path too long");
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

static int format_class(const space_file *f)
{
	const innodb_space_info *si = &f->info;
	int where = f->space_id == 0 ? 1 : !strncmp(f->rel, "undo", 4) ? 2 : 3;
	return where * 100000 + (int)si->physical_size / 1024 * 100 + si->full_crc32 * 10 + si->zip * 2 +
	       si->page_compressed;
}

/* ---- recovery of one page, as batch.c does it */

/* Length of a page_compressed write image that matters (the rest of the page keeps older bytes). */
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

/* How a page ends up: as batch.c would have it (kept, written), or where mariabackup differs. */
enum outcome { OUT_KEPT, OUT_WRITTEN, OUT_PUNCHED, OUT_LEGACY_PLAIN, OUT_N };
static size_t outcomes[OUT_N];

/* Rebuild the page into out; *cmp = bytes of out that the server writes, *how = enum outcome. 0, or 1 with why.
 * Two rules follow
 * what mariabackup 10.11 does rather than batch.c: a page_compressed page whose last applied entry frees it
 * is a punched hole (zeros), and a legacy (not full_crc32) page_compressed page is written uncompressed
 * (mariabackup has no innodb_compression_algorithm, so it never compresses in that layout). */
static int rebuild(const innodb_space_info *si, uint32_t space_id, uint32_t page_no, const uint8_t *before,
		   uint64_t init_lsn, const fentry *e, size_t n, uint8_t *out, size_t *cmp, int *how, replay_stats *st,
		   char *why, size_t wl)
{
	static uint8_t frame[INNODB_PAGE_SIZE_MAX];
	uint32_t psz = si->physical_size, fsz = si->page_compressed ? si->logical_size : psz;
	uint64_t page_lsn = 0, last_end = 0;
	xb_error err;
	memcpy(out, before, psz);
	*cmp = psz;
	memset(frame, 0, fsz);
	if (!init_lsn) {
		if (si->page_compressed && pagecomp_is_compressed(before, si)) {
			if (pagecomp_decompress(before, frame, si, page_no, &err)) {
				snprintf(why, wl, "%.150s", err.msg);
				return 1;
			}
		} else {
			memcpy(frame, before, psz);
		}
		page_lsn = be64_get(frame + FIL_PAGE_LSN);
	}
	replay_frame af = {.page = frame, .size = fsz, .space_id = space_id, .page_no = page_no, .zip = si->zip};
	bool modified = false, freed = false;
	for (size_t i = 0; i < n; i++) {
		last_end = e[i].end;
		if (e[i].start < page_lsn || e[i].start < init_lsn)
			continue;
		bool only_free = false;
		if (replay_entry(&af, e[i].recs, e[i].len, st, &only_free, why, wl) != REPLAY_OK)
			return 1;
		modified = !only_free;
		freed = only_free;
	}
	if (!modified && freed && si->page_compressed) {
		memset(out, 0, psz);
		*how = OUT_PUNCHED;
	} else if (!modified) {
		*how = OUT_KEPT;
	} else if (si->page_compressed && si->full_crc32) {
		if (pagecomp_write_image(frame, out, si, space_id, page_no, last_end, PAGECOMP_DEFAULT_LEVEL, &err)) {
			snprintf(why, wl, "%.150s", err.msg);
			return 1;
		}
		*cmp = image_len(si, out);
		*how = OUT_WRITTEN;
	} else {
		innodb_page_finalize(frame, si, space_id, page_no, last_end);
		memcpy(out, frame, psz);
		*how = si->page_compressed ? OUT_LEGACY_PLAIN : OUT_WRITTEN;
	}
	return 0;
}

/* The entries of a page as a fixture holds them (TRIM_PAGES put back, see the top). */
static fentry *page_entries(const collect_page *pg, size_t *n)
{
	fentry *v = calloc(pg->n_entries ? pg->n_entries : 1, sizeof *v);
	if (!v)
		die("out of memory");
	size_t k = 0;
	for (const collect_entry *e = pg->first; e; e = e->next, k++) {
		v[k] = (fentry){.start = e->start_lsn, .end = e->end_lsn, .len = e->len, .recs = e->recs};
		for (int t = 0; pg->page_no >= 3 && t < n_trims; t++) {
			if (trims[t].space_id != pg->space_id || trims[t].lsn != e->start_lsn || !trims[t].len)
				continue;
			v[k].own = malloc(trims[t].len + e->len);
			if (!v[k].own)
				die("out of memory");
			memcpy(v[k].own, trims[t].rec, trims[t].len);
			memcpy(v[k].own + trims[t].len, e->recs, e->len);
			v[k].recs = v[k].own;
			v[k].len += trims[t].len;
			break;
		}
	}
	*n = k;
	return v;
}

static void free_entries(fentry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].own);
	free(v);
}

/* ---- output */

static void kind_slug(int kind, char *out, size_t n)
{
	snprintf(out, n, "%s", replay_kind_name(kind));
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

static size_t write_fixture(const char *outdir, const cand *c, const uint8_t *before, const uint8_t *after)
{
	const innodb_space_info *si = &c->bf->info;
	uint32_t psz = si->physical_size;
	char slug[64], name[128], path[4096];
	kind_slug(c->picked, slug, sizeof slug);
	snprintf(name, sizeof name, "%s-%u-%u.bin", slug, c->pg->space_id, c->pg->page_no);
	if (xb_path_join(path, sizeof path, outdir, name, NULL))
		die("output directory path too long");
	FILE *f = fopen(path, "wb");
	if (!f)
		die("cannot create a fixture file");
	uint8_t h[FIX_HDR] = "XBAPPLY1";
	le32_put(h + 8, 1);
	le32_put(h + 12, si->flags);
	le32_put(h + 16, c->pg->space_id);
	le32_put(h + 20, c->pg->page_no);
	le32_put(h + 24, psz);
	le32_put(h + 28, c->pg->n_entries);
	le64_put(h + 32, c->pg->init_lsn);
	le32_put(h + 40, (uint32_t)c->picked);
	size_t n, total = FIX_HDR + 2u * psz;
	fentry *e = page_entries(c->pg, &n);
	bool ok = fwrite(h, FIX_HDR, 1, f) == 1 && fwrite(before, psz, 1, f) == 1 && fwrite(after, psz, 1, f) == 1;
	for (size_t i = 0; ok && i < n; i++) {
		uint8_t eh[20];
		le64_put(eh, e[i].start);
		le64_put(eh + 8, e[i].end);
		le32_put(eh + 16, e[i].len);
		ok = fwrite(eh, sizeof eh, 1, f) == 1 && fwrite(e[i].recs, e[i].len, 1, f) == 1;
		total += sizeof eh + e[i].len;
	}
	free_entries(e, n);
	if (fclose(f) || !ok)
		die("cannot write a fixture file");
	return total;
}

/* ---- selection */

static cand *cands;
static size_t n_cands;

static int by_size(const void *a, const void *b)
{
	const cand *x = *(cand *const *)a, *y = *(cand *const *)b;
	if (x->pg->n_entries != y->pg->n_entries)
		return x->pg->n_entries < y->pg->n_entries ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	if (x->pg->space_id != y->pg->space_id)
		return x->pg->space_id < y->pg->space_id ? -1 : 1;
	return x->pg->page_no < y->pg->page_no ? -1 : x->pg->page_no > y->pg->page_no;
}

/* Pick up to per_kind pages for kind k: those already picked count, then one per format class, then the smallest. */
static void pick_kind(int k, int per_kind)
{
	cand **v = malloc((n_cands ? n_cands : 1) * sizeof *v);
	int *classes = malloc((n_cands + 1) * sizeof *classes);
	if (!v || !classes)
		die("out of memory");
	size_t n = 0, nc = 0;
	int have = 0;
	for (size_t i = 0; i < n_cands; i++) {
		if (!(cands[i].kinds & 1u << k))
			continue;
		if (cands[i].picked >= 0) {
			have++;
			classes[nc++] = cands[i].cls;
		} else {
			v[n++] = &cands[i];
		}
	}
	qsort(v, n, sizeof *v, by_size);
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < n && have < per_kind; i++) {
			if (v[i]->picked >= 0)
				continue;
			bool seen = false;
			for (size_t j = 0; j < nc; j++)
				seen |= classes[j] == v[i]->cls;
			if (round == 0 && seen)
				continue;
			v[i]->picked = k;
			classes[nc++] = v[i]->cls;
			have++;
		}
	free(classes);
	free(v);
}

static int n_kinds(uint32_t mask)
{
	return __builtin_popcount(mask);
}

static int by_richness(const void *a, const void *b)
{
	const cand *x = *(cand *const *)a, *y = *(cand *const *)b;
	if (n_kinds(x->kinds) != n_kinds(y->kinds))
		return n_kinds(x->kinds) > n_kinds(y->kinds) ? -1 : 1;
	return by_size(a, b);
}

/* Make sure each format class has per_class pages: those with the most kinds. rare: kinds by rarity. */
static void pick_class(int cls, int per_class, const int *rare)
{
	cand **v = malloc((n_cands ? n_cands : 1) * sizeof *v);
	if (!v)
		die("out of memory");
	size_t n = 0;
	int have = 0;
	for (size_t i = 0; i < n_cands; i++)
		if (cands[i].cls == cls && cands[i].picked >= 0)
			have++;
		else if (cands[i].cls == cls && cands[i].kinds)
			v[n++] = &cands[i];
	qsort(v, n, sizeof *v, by_richness);
	for (size_t i = 0; i < n && have < per_class; i++, have++)
		for (int k = 0; k < REPLAY_KINDS && v[i]->picked < 0; k++)
			if (v[i]->kinds & 1u << rare[k])
				v[i]->picked = rare[k];
	free(v);
}

/* Make sure one page ends up each way (enum outcome): the smallest one, when none is picked yet. */
static void pick_outcome(int how, const int *rare)
{
	cand *best = NULL;
	for (size_t i = 0; i < n_cands; i++) {
		cand *c = &cands[i];
		if (c->outcome != how || !c->match || !c->kinds)
			continue;
		if (c->picked >= 0)
			return;
		const cand *pc = c, *pb = best;
		if (!best || by_size(&pc, &pb) < 0)
			best = c;
	}
	for (int k = 0; best && k < REPLAY_KINDS && best->picked < 0; k++)
		if (best->kinds & 1u << rare[k])
			best->picked = rare[k];
}

/* Rebuild one page and note it as a candidate (unless left out, see the top). */
static void examine(collector *r, collect_page *pg, spaces *bs, spaces *ps, const char *bdir, size_t *left_out)
{
	static uint8_t before[INNODB_PAGE_SIZE_MAX], after[INNODB_PAGE_SIZE_MAX], mine[INNODB_PAGE_SIZE_MAX];
	space_file *bf = spaces_find(bs, pg->space_id), *af = spaces_find(ps, pg->space_id);
	const collect_space *rs = collect_space_find(r, pg->space_id);
	bool renamed = rs && rs->name && rs->first_name && strcmp(rs->name, rs->first_name);
	if (!bf || !af || (rs && (rs->created || rs->deleted || renamed)) || bf->info.encrypted ||
	    af->info.physical_size != bf->info.physical_size || has_marker(bdir, bf)) {
		left_out[0]++;
		return;
	}
	size_t n, bytes = 0;
	fentry *e = page_entries(pg, &n);
	for (size_t k = 0; k < n; k++)
		bytes += e[k].len;
	read_page(bf, pg->page_no, before);
	/* too many records, or past the end of the prepared file (a truncated undo tablespace) */
	if (bytes > MAX_ENTRY_BYTES || read_page(af, pg->page_no, after) < bf->info.physical_size) {
		left_out[bytes > MAX_ENTRY_BYTES ? 1 : 2]++;
		free_entries(e, n);
		return;
	}
	replay_stats st;
	memset(&st, 0, sizeof st);
	size_t cmp;
	int how = OUT_KEPT;
	char why[200] = "";
	int rc = rebuild(&bf->info, pg->space_id, pg->page_no, before, pg->init_lsn, e, n, mine, &cmp, &how, &st, why,
			 sizeof why);
	free_entries(e, n);
	outcomes[how] += !rc;
	cand *c = &cands[n_cands++];
	*c = (cand){.pg = pg, .bf = bf, .bytes = bytes, .cls = format_class(bf), .picked = -1, .outcome = how};
	for (int k = 0; k < REPLAY_KINDS; k++)
		if (st.count[k])
			c->kinds |= 1u << k;
	c->match = !rc && !memcmp(mine, after, cmp);
	size_t d = 0;
	while (!c->match && !rc && d < cmp && mine[d] == after[d])
		d++;
	if (!c->match && rc)
		fprintf(stderr, "apply_capture: MISMATCH %s page %u (%u entries): %s\n", bf->rel, pg->page_no,
			pg->n_entries, why);
	else if (!c->match)
		fprintf(stderr, "apply_capture: MISMATCH %s page %u (%u entries): byte %zu differs\n", bf->rel,
			pg->page_no, pg->n_entries, d);
}

/* Pick the pages to write (see the top); order receives the kinds, rarest first; cnt pages per kind. */
static void select_pages(int per_kind, int per_class, int *order, int *cnt)
{
	for (size_t i = 0; i < n_cands; i++)
		for (int k = 0; k < REPLAY_KINDS; k++)
			cnt[k] += !!(cands[i].kinds & 1u << k);
	for (int k = 0; k < REPLAY_KINDS; k++)
		order[k] = k;
	for (int a = 1; a < REPLAY_KINDS; a++)
		for (int b = a; b > 0 && cnt[order[b]] < cnt[order[b - 1]]; b--) {
			int t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	for (size_t i = 0, shown = 0; i < n_cands && shown < 4; i++)
		for (int k = 0; k < REPLAY_KINDS && !cands[i].match && cands[i].picked < 0; k++)
			if (cands[i].kinds & 1u << order[k]) {
				cands[i].picked = order[k];
				shown++;
			}
	for (int k = 0; k < REPLAY_KINDS; k++)
		pick_kind(order[k], per_kind);
	for (size_t i = 0; i < n_cands; i++) {
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = cands[j].cls != cands[i].cls;
		if (first)
			pick_class(cands[i].cls, per_class, order);
	}
	for (int o = 0; o < OUT_N; o++)
		pick_outcome(o, order);
}

int main(int argc, char **argv)
{
	int per_kind = 3, per_class = 2;
	bool usage = argc < 4;
	for (int i = 4; !usage && i < argc; i += 2)
		if (i + 1 < argc && !strcmp(argv[i], "--per-kind"))
			per_kind = atoi(argv[i + 1]);
		else if (i + 1 < argc && !strcmp(argv[i], "--per-class"))
			per_class = atoi(argv[i + 1]);
		else
			usage = true;
	if (usage)
		die("usage: apply_capture BACKUP_DIR PREPARED_DIR OUT_DIR [--per-kind N] [--per-class N]");
	const char *bdir = argv[1], *pdir = argv[2], *outdir = argv[3];
	collector r;
	if (collect_init(&r, (size_t)64 << 30)) /* one batch, whatever the log holds */
		die("out of memory");
	uint64_t cp_lsn, end_lsn;
	read_log(bdir, &r, &cp_lsn, &end_lsn);
	spaces bs, ps;
	xb_error err;
	char *dfp = data_file_path(bdir);
	if (spaces_scan(&bs, bdir, dfp, &err) || spaces_scan(&ps, pdir, dfp, &err))
		die(err.msg);
	free(dfp);
	size_t n_pages, left_out[3] = {0, 0, 0}, mismatches = 0;
	collect_page **pages = collect_sorted_pages(&r, &n_pages);
	cands = calloc(n_pages ? n_pages : 1, sizeof *cands);
	if (!pages || !cands)
		die("out of memory");
	for (size_t i = 0; i < n_pages; i++)
		examine(&r, pages[i], &bs, &ps, bdir, left_out);
	for (size_t i = 0; i < n_cands; i++)
		mismatches += !cands[i].match;
	int order[REPLAY_KINDS], cnt[REPLAY_KINDS] = {0}, picked[REPLAY_KINDS] = {0};
	select_pages(per_kind, per_class, order, cnt);
	static uint8_t before[INNODB_PAGE_SIZE_MAX], after[INNODB_PAGE_SIZE_MAX];
	size_t total = 0, files = 0;
	for (size_t i = 0; i < n_cands; i++) {
		const cand *c = &cands[i];
		if (c->picked < 0)
			continue;
		read_page(c->bf, c->pg->page_no, before);
		read_page(spaces_find(&ps, c->pg->space_id), c->pg->page_no, after);
		total += write_fixture(outdir, c, before, after);
		files++;
		for (int k = 0; k < REPLAY_KINDS; k++)
			picked[k] += !!(c->kinds & 1u << k);
	}
	printf("log LSN %llu..%llu: %llu mtrs, %zu pages with entries; left out: %zu in DDL'd or unusable "
	       "tablespaces, %zu with over %u bytes of records, %zu past the prepared file; %zu do not reproduce\n",
	       (unsigned long long)cp_lsn, (unsigned long long)end_lsn, (unsigned long long)r.mtrs, n_pages,
	       left_out[0], left_out[1], MAX_ENTRY_BYTES, left_out[2], mismatches);
	printf("pages kept %zu, written %zu, page_compressed and freed (zeros) %zu, legacy page_compressed written "
	       "uncompressed %zu\n",
	       outcomes[OUT_KEPT], outcomes[OUT_WRITTEN], outcomes[OUT_PUNCHED], outcomes[OUT_LEGACY_PLAIN]);
	printf("%-28s %10s %10s %8s\n", "kind", "in log", "pages", "fixtures");
	for (int k = 0; k < REPLAY_KINDS; k++)
		printf("%-28s %10llu %10d %8d\n", replay_kind_name(k), (unsigned long long)r.parsed.count[k], cnt[k],
		       picked[k]);
	printf("%zu fixture files, %zu bytes\n", files, total);
	free(pages);
	free(cands);
	spaces_free(&bs);
	spaces_free(&ps);
	collect_free(&r);
	return 0;
}
