/*
 * dict.c - reading the InnoDB data dictionary of a backup (see dict.h).
 *
 * The system tablespace is read through the recovery's map of the backup's
 * tablespaces (spaces_scan, which takes its files from the inventory), page
 * by page with a check of each page. The four
 * dictionary B-trees are walked from the roots the dictionary header names:
 * down the leftmost node pointers to the leaf level, then along the leaf
 * pages' next links, a bitmap of visited pages catching a loop. Every leaf
 * record is decoded in the REDUNDANT layout (doc/export.md §1.3) and kept
 * unless delete-marked; the tables, columns, indexes and fields are then
 * joined by their ids. dict_build() computes a table's in-memory form from
 * that, the way the server's dictionary cache does (doc/export.md §3).
 */
#include "innodb/dict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "innodb/page.h"
#include "innodb/pagecomp.h"
#include "innodb/spaces.h"
#include "platform/file.h"

/* ---- the system tablespace, page by page */

#define DICT_HDR_PAGE 7u         /* the dictionary header page of space 0 */
#define DICT_HDR_OFF 38u         /* where its fields start on that page */
#define PAGE_HEADER 38u          /* index page header */
#define PAGE_N_HEAP 4u           /* bit 15: COMPACT records */
#define PAGE_LEVEL 26u           /* 0 for leaves */
#define PAGE_INDEX_ID 28u        /* the index the page belongs to */
#define PAGE_OLD_INFIMUM 101u    /* origin of the infimum of a REDUNDANT page */
#define PAGE_OLD_SUPREMUM 116u   /* origin of its supremum */
#define FIL_PAGE_NEXT_OFF 12u    /* the next page of the level */
#define FIL_NULL_PAGE 0xFFFFFFFFu
#define REC_OLD_EXTRA 6u         /* bytes of a REDUNDANT record header */
#define REC_DELETED 0x20u        /* info bit: delete-marked */

/* The system tablespace opened for reading, through the recovery's map of a
 * backup's tablespaces (spaces.h: its files in innodb_data_file_path order,
 * page numbers across them). */
typedef struct sys_space {
	spaces sp;                /* the backup's tablespaces */
	space_file *f;            /* space 0 */
	innodb_space_info si;     /* its page 0 */
	uint8_t *buf;             /* one page */
	uint8_t *seen;            /* bitmap of the pages visited by the current walk */
	uint64_t total;           /* pages in all its files */
	const char *path;         /* its first file, for messages */
} sys_space;

/* Add hint to the error just set; returns its code (also when err is NULL). */
static int with_hint(int rc, xb_error *err, const char *hint)
{
	xb_err_hint(err, "%s", hint);
	return rc;
}

static void sys_close(sys_space *s)
{
	spaces_free(&s->sp);
	free(s->buf);
	free(s->seen);
	memset(s, 0, sizeof *s);
}

static int sys_open(sys_space *s, const char *dir, const char *data_file_path, xb_error *err)
{
	memset(s, 0, sizeof *s);
	int rc = spaces_scan(&s->sp, dir, data_file_path, err);
	if (rc) {
		spaces_free(&s->sp); /* what the scan built before it failed */
		return rc;
	}
	s->f = spaces_find(&s->sp, 0);
	if (!s->f) {
		rc = with_hint(xb_err_set(err, XB_E_MISSING_FILE, "%s holds no system tablespace with a valid page 0", dir),
			       err, "the dictionary is read from a prepared backup's system tablespace (ibdata1)");
	} else {
		s->si = s->f->info;
		s->total = spaces_size_pages(s->f);
		s->path = spaces_path_of(s->f, 0);
		s->buf = malloc(s->si.logical_size > s->si.physical_size ? s->si.logical_size : s->si.physical_size);
		s->seen = calloc(s->total / 8 + 1, 1);
		if (!s->buf || !s->seen)
			rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	if (rc)
		sys_close(s);
	return rc;
}

/* Read page_no of the system tablespace into s->buf and check it. */
static int sys_read(sys_space *s, uint32_t page_no, xb_error *err)
{
	uint32_t ps = s->si.physical_size;
	if (page_no >= s->total)
		return with_hint(xb_err_set(err, XB_E_CORRUPT_PAGE,
					    "%s: page %u of the system tablespace is beyond the end of its files (%llu pages)",
					    s->path, page_no, (unsigned long long)s->total),
				 err, "the system tablespace is truncated, or the dictionary points outside it");
	int fd;
	off_t off;
	uint64_t run;
	int rc = spaces_locate(s->f, page_no, &fd, &off, &run, err);
	if (rc)
		return rc;
	const char *path = spaces_path_of(s->f, page_no);
	ssize_t got = xb_file_pread_all(fd, s->buf, ps, off);
	if (got != (ssize_t)ps)
		return xb_err_set(err, XB_E_IO_READ, "%s: cannot read page %u: %s", path, page_no,
				  got < 0 ? strerror(errno) : "short read");
	char why[128] = "";
	if (!innodb_page_is_valid(s->buf, &s->si, page_no, true, why, sizeof why))
		return with_hint(xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: dictionary page %u is damaged: %s", path, page_no,
					    why),
				 err, "the backup's system tablespace is damaged: take a new backup");
	return 0;
}

/* ---- REDUNDANT records */

/* One decoded record: where each field is. */
typedef struct rec_view {
	const uint8_t *page; /* the page */
	uint32_t origin;     /* the record's origin */
	uint32_t n;          /* fields */
	uint32_t start[12];  /* field i: bytes [start, end) from the origin */
	uint32_t end[12];
	bool null[12];       /* SQL NULL */
	bool deleted;        /* delete-marked */
} rec_view;

/* Decode the record at origin of a REDUNDANT page of size ps: its first 12
 * fields at most (r->n is the record's field count). A field stored off the
 * page is refused unless allow_extern. */
static bool rec_decode_x(const uint8_t *page, uint32_t ps, uint32_t origin, bool allow_extern, rec_view *r)
{
	if (origin < PAGE_OLD_INFIMUM || origin >= ps - 8)
		return false;
	r->page = page;
	r->origin = origin;
	r->n = (be16_get(page + origin - 4) >> 1) & 0x3FF;
	bool short_offs = page[origin - 3] & 1;
	r->deleted = page[origin - 6] & REC_DELETED;
	if (r->n == 0 || origin < REC_OLD_EXTRA + r->n * (short_offs ? 1 : 2))
		return false;
	uint32_t prev = 0;
	for (uint32_t i = 0; i < r->n && i < 12; i++) {
		uint32_t e;
		bool null;
		if (short_offs) {
			uint8_t b = page[origin - REC_OLD_EXTRA - i - 1];
			e = b & 0x7F;
			null = b & 0x80;
		} else {
			uint32_t v = be16_get(page + origin - REC_OLD_EXTRA - 2 * i - 2);
			if ((v & 0x4000) && !allow_extern)
				return false; /* stored off the page: never in the dictionary */
			e = v & 0x3FFF;
			null = v & 0x8000;
		}
		if (e < prev || origin + e > ps - 8)
			return false;
		r->start[i] = prev;
		r->end[i] = e;
		r->null[i] = null;
		prev = e;
	}
	return true;
}

static bool rec_decode(const uint8_t *page, uint32_t ps, uint32_t origin, rec_view *r)
{
	return rec_decode_x(page, ps, origin, false, r) && r->n <= 12;
}

static uint32_t rec_len(const rec_view *r, uint32_t i)
{
	return r->null[i] ? UINT32_MAX : r->end[i] - r->start[i];
}

static const uint8_t *rec_field(const rec_view *r, uint32_t i)
{
	return r->page + r->origin + r->start[i];
}

/* ---- B-tree walk */

typedef int (*rec_fn)(void *ctx, const rec_view *r, uint32_t page_no, xb_error *err);

static bool seen_test_set(sys_space *s, uint32_t p)
{
	bool was = s->seen[p / 8] & (1u << (p % 8));
	s->seen[p / 8] |= (uint8_t)(1u << (p % 8));
	return was;
}

/* Before visiting page_no of a walk: in the tablespace, not seen before. */
static int step(sys_space *s, const char *what, uint32_t page_no, xb_error *err)
{
	if (page_no >= s->total)
		return with_hint(xb_err_set(err, XB_E_CORRUPT_PAGE,
					    "%s: the %s B-tree points to page %u, beyond the end of the system tablespace (%llu pages)",
					    s->path, what, page_no, (unsigned long long)s->total),
				 err, "the system tablespace is truncated, or the dictionary is damaged");
	if (seen_test_set(s, page_no))
		return with_hint(xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: the %s B-tree loops back to page %u", s->path,
					    what, page_no),
				 err, "the backup's system tablespace is damaged: take a new backup");
	return 0;
}

static int walk(sys_space *s, const char *what, uint32_t root, uint64_t index_id, uint32_t n_min, uint32_t n_max,
		rec_fn fn, void *ctx, xb_error *err)
{
	const char *path = s->path;
	uint32_t ps = s->si.physical_size;
	memset(s->seen, 0, s->total / 8 + 1);
	uint32_t page_no = root, level = UINT32_MAX;
	for (;;) {
		int rc = step(s, what, page_no, err);
		if (!rc)
			rc = sys_read(s, page_no, err);
		if (rc)
			return rc;
		const uint8_t *p = s->buf;
		if (be16_get(p + FIL_PAGE_TYPE) != FIL_PAGE_INDEX || be64_get(p + PAGE_HEADER + PAGE_INDEX_ID) != index_id)
			return xb_err_set(err, XB_E_CORRUPT_PAGE,
					  "%s: page %u is not a page of the %s index (type %u, index id %llu)", path, page_no,
					  what, be16_get(p + FIL_PAGE_TYPE),
					  (unsigned long long)be64_get(p + PAGE_HEADER + PAGE_INDEX_ID));
		if (be16_get(p + PAGE_HEADER + PAGE_N_HEAP) & 0x8000)
			return xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: page %u of %s is not in the REDUNDANT format", path,
					  page_no, what);
		uint32_t lvl = be16_get(p + PAGE_HEADER + PAGE_LEVEL);
		if (level != UINT32_MAX && lvl + 1 != level)
			return xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: page %u of %s has level %u under a page of level %u",
					  path, page_no, what, lvl, level);
		level = lvl;
		if (lvl == 0)
			break;
		rec_view r;
		uint32_t first = be16_get(p + PAGE_OLD_INFIMUM - 2);
		if (first == PAGE_OLD_SUPREMUM || !rec_decode(p, ps, first, &r) || rec_len(&r, r.n - 1) != 4)
			return xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: page %u of %s has no valid node pointer", path,
					  page_no, what);
		page_no = be32_get(rec_field(&r, r.n - 1));
	}
	/* the leaf level, left to right */
	for (;;) {
		const uint8_t *p = s->buf;
		uint32_t at = be16_get(p + PAGE_OLD_INFIMUM - 2), count = 0;
		while (at != PAGE_OLD_SUPREMUM) {
			rec_view r;
			if (++count > ps / 8 || !rec_decode(p, ps, at, &r) || r.n < n_min || r.n > n_max)
				return xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: page %u of %s: a record at offset %u is damaged",
						  path, page_no, what, at);
			if (!r.deleted) {
				int rc = fn(ctx, &r, page_no, err);
				if (rc)
					return rc;
			}
			at = be16_get(p + at - 2);
		}
		uint32_t next = be32_get(p + FIL_PAGE_NEXT_OFF);
		if (next == FIL_NULL_PAGE)
			return 0;
		page_no = next;
		int rc = step(s, what, page_no, err);
		if (!rc)
			rc = sys_read(s, page_no, err);
		if (rc)
			return rc;
		if (be16_get(p + FIL_PAGE_TYPE) != FIL_PAGE_INDEX || be64_get(p + PAGE_HEADER + PAGE_INDEX_ID) != index_id ||
		    be16_get(p + PAGE_HEADER + PAGE_LEVEL) != 0)
			return xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: page %u is not a leaf page of the %s index", path,
					  page_no, what);
	}
}

static bool is_string(uint32_t mtype);

/* ---- building the lists */

typedef struct reader {
	dict *d;                /* what is built */
	const char *path;       /* the first system file, for messages */
	dict_col *cols;         /* SYS_COLUMNS records, with their table id */
	uint64_t *col_tid;
	size_t n_cols, cap_cols;
	dict_index *idx;        /* SYS_INDEXES records, with their table id */
	uint64_t *idx_tid;
	size_t n_idx, cap_idx;
	dict_field *fld;        /* SYS_FIELDS records, with their index id and position */
	uint64_t *fld_iid;
	uint32_t *fld_pos;
	size_t n_fld, cap_fld;
} reader;

static int grow(void **v, size_t elem, size_t *cap, size_t need, xb_error *err)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	void *n = realloc(*v, nc * elem);
	if (!n)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	*v = n;
	*cap = nc;
	return 0;
}

static char *dup_field(const rec_view *r, uint32_t i)
{
	uint32_t n = rec_len(r, i);
	char *s = malloc(n + 1);
	if (s) {
		memcpy(s, rec_field(r, i), n);
		s[n] = 0;
	}
	return s;
}

static int bad_rec(const reader *rd, const char *what, uint32_t page_no, uint32_t origin, xb_error *err)
{
	return xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: page %u: a %s record at offset %u does not have its table's layout",
			  rd->path, page_no, what, origin);
}

static bool lens(const rec_view *r, const uint32_t *want, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (want[i] != 0 && rec_len(r, i) != want[i])
			return false;
	return true;
}

static int on_table(void *ctx, const rec_view *r, uint32_t page_no, xb_error *err)
{
	reader *rd = ctx;
	static const uint32_t want[10] = {0, 6, 7, 8, 4, 4, 8, 4, 0, 4};
	if (r->n != 10 || !lens(r, want, 10) || rec_len(r, 0) == 0 || rec_len(r, 0) == UINT32_MAX)
		return bad_rec(rd, "SYS_TABLES", page_no, r->origin, err);
	dict *d = rd->d;
	dict_table *nt = realloc(d->table, (d->n + 1) * sizeof *nt);
	if (!nt)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	d->table = nt;
	dict_table *t = &d->table[d->n++];
	memset(t, 0, sizeof *t);
	t->name = dup_field(r, 0);
	t->id = be64_get(rec_field(r, 3));
	t->n_cols_raw = be32_get(rec_field(r, 4));
	t->type = be32_get(rec_field(r, 5));
	t->flags2 = be32_get(rec_field(r, 7));
	t->space = be32_get(rec_field(r, 9));
	bool comp = t->n_cols_raw & DICT_N_COLS_COMPACT;
	/* ZIP_SSIZE, ATOMIC_BLOBS, DATA_DIR, PAGE_COMPRESSION(_LEVEL), NO_ROLLBACK as stored */
	t->flags = (comp ? DICT_TF_COMPACT : 0) | (t->type & 0x3FFEu);
	t->n_cols = t->n_cols_raw & 0xFFFF;
	t->n_v_cols = (t->n_cols_raw >> 16) & 0x7FFF;
	return t->name ? 0 : xb_err_set(err, XB_E_INTERNAL, "out of memory");
}

static int on_column(void *ctx, const rec_view *r, uint32_t page_no, xb_error *err)
{
	reader *rd = ctx;
	static const uint32_t want[9] = {8, 4, 6, 7, 0, 4, 4, 4, 4};
	if (r->n != 9 || !lens(r, want, 9) || rec_len(r, 4) == 0 || rec_len(r, 4) == UINT32_MAX)
		return bad_rec(rd, "SYS_COLUMNS", page_no, r->origin, err);
	if (grow((void **)&rd->cols, sizeof *rd->cols, &rd->cap_cols, rd->n_cols + 1, err))
		return XB_E_INTERNAL;
	size_t cap = rd->cap_cols;
	(void)cap;
	uint64_t *nt = realloc(rd->col_tid, rd->cap_cols * sizeof *nt);
	if (!nt)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	rd->col_tid = nt;
	dict_col *c = &rd->cols[rd->n_cols];
	rd->col_tid[rd->n_cols++] = be64_get(rec_field(r, 0));
	c->pos = be32_get(rec_field(r, 1));
	c->name = dup_field(r, 4);
	c->mtype = be32_get(rec_field(r, 5));
	c->prtype = be32_get(rec_field(r, 6));
	if (is_string(c->mtype) && ((c->prtype >> 16) & 0x7FFF) == 0) {
		/* a string column of a table made before collations were recorded
		 * (the dictionary's own SYS_FOREIGN*): binary strings get the
		 * binary collation, others the server's compiled-in default
		 * latin1_swedish_ci, as the server does when it loads them */
		bool bin = c->mtype == DICT_MTYPE_FIXBINARY || c->mtype == DICT_MTYPE_BINARY ||
			   (c->mtype == DICT_MTYPE_BLOB && (c->prtype & DICT_PRTYPE_BINARY_TYPE));
		c->prtype |= (bin ? 63u : 8u) << 16;
	}
	c->len = be32_get(rec_field(r, 7));
	c->prec = be32_get(rec_field(r, 8));
	return c->name ? 0 : xb_err_set(err, XB_E_INTERNAL, "out of memory");
}

static int on_index(void *ctx, const rec_view *r, uint32_t page_no, xb_error *err)
{
	reader *rd = ctx;
	static const uint32_t want[10] = {8, 8, 6, 7, 0, 4, 4, 4, 4, 0};
	if ((r->n != 10 && r->n != 9) || !lens(r, want, r->n) || rec_len(r, 4) == 0 || rec_len(r, 4) == UINT32_MAX)
		return bad_rec(rd, "SYS_INDEXES", page_no, r->origin, err);
	if (rec_field(r, 4)[0] == 0xFF)
		return 0; /* an index being created: not committed */
	if (grow((void **)&rd->idx, sizeof *rd->idx, &rd->cap_idx, rd->n_idx + 1, err))
		return XB_E_INTERNAL;
	uint64_t *nt = realloc(rd->idx_tid, rd->cap_idx * sizeof *nt);
	if (!nt)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	rd->idx_tid = nt;
	dict_index *x = &rd->idx[rd->n_idx];
	memset(x, 0, sizeof *x);
	rd->idx_tid[rd->n_idx++] = be64_get(rec_field(r, 0));
	x->id = be64_get(rec_field(r, 1));
	x->name = dup_field(r, 4);
	x->n_fields = be32_get(rec_field(r, 5));
	x->type = be32_get(rec_field(r, 6));
	x->space = be32_get(rec_field(r, 7));
	x->page = be32_get(rec_field(r, 8));
	return x->name ? 0 : xb_err_set(err, XB_E_INTERNAL, "out of memory");
}

static int on_field(void *ctx, const rec_view *r, uint32_t page_no, xb_error *err)
{
	reader *rd = ctx;
	static const uint32_t want[5] = {8, 4, 6, 7, 0};
	if (r->n != 5 || !lens(r, want, 5) || rec_len(r, 4) == 0 || rec_len(r, 4) == UINT32_MAX)
		return bad_rec(rd, "SYS_FIELDS", page_no, r->origin, err);
	if (grow((void **)&rd->fld, sizeof *rd->fld, &rd->cap_fld, rd->n_fld + 1, err))
		return XB_E_INTERNAL;
	uint64_t *ni = realloc(rd->fld_iid, rd->cap_fld * sizeof *ni);
	if (ni)
		rd->fld_iid = ni;
	uint32_t *np = realloc(rd->fld_pos, rd->cap_fld * sizeof *np);
	if (np)
		rd->fld_pos = np;
	if (!ni || !np)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	dict_field *f = &rd->fld[rd->n_fld];
	rd->fld_iid[rd->n_fld] = be64_get(rec_field(r, 0));
	rd->fld_pos[rd->n_fld++] = be32_get(rec_field(r, 1));
	f->col_name = dup_field(r, 4);
	return f->col_name ? 0 : xb_err_set(err, XB_E_INTERNAL, "out of memory");
}

static dict_table *table_by_id(dict *d, uint64_t id)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->table[i].id == id)
			return &d->table[i];
	return NULL;
}

/* Join the records read into the tables; takes over their strings. */
static int assemble(reader *rd, xb_error *err)
{
	dict *d = rd->d;
	for (size_t i = 0; i < rd->n_cols; i++) {
		dict_table *t = table_by_id(d, rd->col_tid[i]);
		if (!t) {
			free(rd->cols[i].name);
			continue; /* a column of a table being dropped */
		}
		dict_col *nc = realloc(t->col, (t->n_col + 1) * sizeof *nc);
		if (!nc) {
			free(rd->cols[i].name);
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		}
		t->col = nc;
		t->col[t->n_col++] = rd->cols[i];
	}
	rd->n_cols = 0;
	for (size_t i = 0; i < rd->n_idx; i++) {
		dict_index *x = &rd->idx[i];
		/* its fields: SYS_FIELDS is ordered by (index id, position) */
		for (size_t j = 0; j < rd->n_fld; j++) {
			if (rd->fld_iid[j] != x->id || !rd->fld[j].col_name)
				continue;
			uint32_t pp = rd->fld_pos[j];
			/* with any prefix field in the index, every position is
			 * (position << 16 | prefix length); the first field always so */
			bool split = x->n_field == 0 || pp > 0xFFFF;
			dict_field f = rd->fld[j];
			rd->fld[j].col_name = NULL;
			f.prefix_len = split ? pp & 0x7FFF : 0;
			f.descending = split && (pp & 0x8000);
			dict_field *nf = realloc(x->field, (x->n_field + 1) * sizeof *nf);
			if (!nf) {
				free(f.col_name);
				return xb_err_set(err, XB_E_INTERNAL, "out of memory");
			}
			x->field = nf;
			x->field[x->n_field++] = f;
		}
		dict_table *t = table_by_id(d, rd->idx_tid[i]);
		if (!t) {
			for (uint32_t k = 0; k < x->n_field; k++)
				free(x->field[k].col_name);
			free(x->field);
			free(x->name);
			continue;
		}
		dict_index *ni = realloc(t->index, (t->n_index + 1) * sizeof *ni);
		if (!ni)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		t->index = ni;
		t->index[t->n_index++] = *x;
	}
	rd->n_idx = 0;
	return 0;
}

static void reader_free(reader *rd)
{
	for (size_t i = 0; i < rd->n_cols; i++)
		free(rd->cols[i].name);
	for (size_t i = 0; i < rd->n_idx; i++) {
		for (uint32_t k = 0; k < rd->idx[i].n_field; k++)
			free(rd->idx[i].field[k].col_name);
		free(rd->idx[i].field);
		free(rd->idx[i].name);
	}
	for (size_t i = 0; i < rd->n_fld; i++)
		free(rd->fld[i].col_name);
	free(rd->cols);
	free(rd->col_tid);
	free(rd->idx);
	free(rd->idx_tid);
	free(rd->fld);
	free(rd->fld_iid);
	free(rd->fld_pos);
}

int dict_read(const char *dir, const char *data_file_path, dict *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	sys_space s;
	int rc = sys_open(&s, dir, data_file_path, err);
	if (rc)
		return rc;
	reader rd;
	memset(&rd, 0, sizeof rd);
	rd.d = out;
	rd.path = s.path;
	out->page_size = s.si.logical_size;
	if (s.si.zip || s.si.page_compressed)
		rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: the system tablespace has flags 0x%x no server gives it",
				rd.path, s.si.flags);
	uint32_t roots[4] = {0};
	if (!rc)
		rc = sys_read(&s, DICT_HDR_PAGE, err);
	if (!rc) {
		for (int i = 0; i < 4; i++)
			roots[i] = be32_get(s.buf + DICT_HDR_OFF + 32 + (i == 0 ? 0 : 4 + 4 * i));
	}
	/* the dictionary tables' index ids are fixed: SYS_TABLES 1, SYS_COLUMNS 2, SYS_INDEXES 3, SYS_FIELDS 4 */
	if (!rc)
		rc = walk(&s, "SYS_TABLES", roots[0], 1, 10, 10, on_table, &rd, err);
	if (!rc)
		rc = walk(&s, "SYS_COLUMNS", roots[1], 2, 9, 9, on_column, &rd, err);
	if (!rc)
		rc = walk(&s, "SYS_INDEXES", roots[2], 3, 9, 10, on_index, &rd, err);
	if (!rc)
		rc = walk(&s, "SYS_FIELDS", roots[3], 4, 5, 5, on_field, &rd, err);
	if (!rc)
		rc = assemble(&rd, err);
	reader_free(&rd);
	sys_close(&s);
	if (rc)
		dict_free(out);
	return rc;
}

void dict_free(dict *d)
{
	for (size_t i = 0; i < d->n; i++) {
		dict_table *t = &d->table[i];
		for (uint32_t c = 0; c < t->n_col; c++)
			free(t->col[c].name);
		for (uint32_t x = 0; x < t->n_index; x++) {
			for (uint32_t f = 0; f < t->index[x].n_field; f++)
				free(t->index[x].field[f].col_name);
			free(t->index[x].field);
			free(t->index[x].name);
		}
		free(t->col);
		free(t->index);
		free(t->name);
	}
	free(d->table);
	memset(d, 0, sizeof *d);
}

const dict_table *dict_find(const dict *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->table[i].name, name) == 0)
			return &d->table[i];
	return NULL;
}

int dict_col_index(const dict_table *t, const char *name)
{
	int k = 0;
	for (uint32_t i = 0; i < t->n_col; i++) {
		if (t->col[i].prtype & DICT_PRTYPE_VIRTUAL)
			continue;
		if (strcmp(t->col[i].name, name) == 0)
			return k;
		k++;
	}
	return -1;
}

/* ---- character sets */

/* Collation ids of MariaDB 10.11 by ranges: [first, last] -> (mbminlen, mbmaxlen). */
static const struct coll_range {
	uint16_t first, last;
	uint8_t mbmin, mbmax;
} coll_ranges[] = {
	{1, 1, 1, 2}, {2, 11, 1, 1}, {12, 12, 1, 3}, {13, 13, 1, 2}, {14, 16, 1, 1}, {18, 18, 1, 1},
	{19, 19, 1, 2}, {20, 23, 1, 1}, {24, 24, 1, 2}, {25, 27, 1, 1}, {28, 28, 1, 2}, {29, 32, 1, 1},
	{33, 33, 1, 3}, {34, 34, 1, 1}, {35, 35, 2, 2}, {36, 44, 1, 1}, {45, 46, 1, 4}, {47, 53, 1, 1},
	{54, 56, 2, 4}, {57, 59, 1, 1}, {60, 61, 4, 4}, {62, 62, 2, 4}, {63, 75, 1, 1}, {77, 82, 1, 1},
	{83, 83, 1, 3}, {84, 88, 1, 2}, {89, 89, 1, 1}, {90, 90, 2, 2}, {91, 91, 1, 3}, {92, 94, 1, 1},
	{95, 96, 1, 2}, {97, 98, 1, 3}, {99, 99, 1, 1}, {101, 124, 2, 4}, {128, 151, 2, 2}, {159, 159, 2, 2},
	{160, 183, 4, 4}, {192, 215, 1, 3}, {223, 223, 1, 3}, {224, 247, 1, 4}, {576, 578, 1, 3},
	{608, 610, 1, 4}, {640, 642, 2, 2}, {672, 674, 2, 4}, {736, 738, 4, 4}, {1025, 1025, 1, 2},
	{1027, 1028, 1, 1}, {1030, 1035, 1, 1}, {1036, 1036, 1, 3}, {1037, 1037, 1, 2}, {1040, 1040, 1, 1},
	{1042, 1042, 1, 1}, {1043, 1043, 1, 2}, {1046, 1046, 1, 1}, {1048, 1048, 1, 2}, {1049, 1050, 1, 1},
	{1052, 1052, 1, 2}, {1054, 1054, 1, 1}, {1056, 1056, 1, 1}, {1057, 1057, 1, 3}, {1059, 1059, 2, 2},
	{1060, 1065, 1, 1}, {1067, 1067, 1, 1}, {1069, 1070, 1, 4}, {1071, 1071, 1, 1}, {1074, 1075, 1, 1},
	{1077, 1077, 1, 1}, {1078, 1080, 2, 4}, {1081, 1083, 1, 1}, {1084, 1085, 4, 4}, {1086, 1086, 2, 4},
	{1088, 1099, 1, 1}, {1101, 1106, 1, 1}, {1107, 1107, 1, 3}, {1108, 1112, 1, 2}, {1113, 1113, 1, 1},
	{1114, 1114, 2, 2}, {1115, 1115, 1, 3}, {1116, 1117, 1, 1}, {1119, 1120, 1, 2}, {1121, 1122, 1, 3},
	{1125, 1125, 2, 4}, {1147, 1147, 2, 4}, {1152, 1152, 2, 2}, {1174, 1174, 2, 2}, {1184, 1184, 4, 4},
	{1206, 1206, 4, 4}, {1216, 1216, 1, 3}, {1238, 1238, 1, 3}, {1248, 1248, 1, 4}, {1270, 1270, 1, 4},
};

bool dict_charset_width(uint32_t coll, uint32_t *mbmin, uint32_t *mbmax)
{
	for (size_t i = 0; i < sizeof coll_ranges / sizeof coll_ranges[0]; i++)
		if (coll >= coll_ranges[i].first && coll <= coll_ranges[i].last) {
			*mbmin = coll_ranges[i].mbmin;
			*mbmax = coll_ranges[i].mbmax;
			return true;
		}
	return false;
}

/* ---- the server's in-memory form (doc/export.md §3) */

#define DICT_MAX_FIXED 768u /* longer fixed-size fields are stored as variable-length ones */

static bool is_string(uint32_t mtype)
{
	return mtype <= DICT_MTYPE_BLOB || mtype == DICT_MTYPE_MYSQL || mtype == DICT_MTYPE_VARMYSQL;
}

/* The fixed size of a column, 0 when variable (comp: not ROW_FORMAT=REDUNDANT). */
static uint32_t col_fixed_size(uint32_t mtype, uint32_t prtype, uint32_t len, uint32_t mbmin, uint32_t mbmax,
			       bool comp)
{
	switch (mtype) {
	case DICT_MTYPE_SYS:
	case DICT_MTYPE_CHAR:
	case DICT_MTYPE_FIXBINARY:
	case DICT_MTYPE_INT:
	case DICT_MTYPE_FLOAT:
	case DICT_MTYPE_DOUBLE:
		return len;
	case DICT_MTYPE_MYSQL:
		if ((prtype & DICT_PRTYPE_BINARY_TYPE) || !comp || mbmin == mbmax)
			return len;
		return 0;
	default:
		return 0;
	}
}

/* A column of the table or a virtual one: what a field refers to. */
typedef struct colref {
	uint32_t mtype, prtype, len, mbmin, mbmax; /* its type */
	int mcol;                                  /* index into the mcol list, -1 for virtual */
	const char *name;                          /* its name */
} colref;

static int add_field(dict_mindex *x, const colref *c, uint32_t prefix_len, bool desc, bool comp, xb_error *err)
{
	dict_mfield *nf = realloc(x->field, (x->n_fields + 1) * sizeof *nf);
	if (!nf)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	x->field = nf;
	dict_mfield *f = &x->field[x->n_fields++];
	f->name = c->name;
	f->prefix_len = prefix_len;
	f->descending = desc;
	f->col = c->mcol;
	f->fixed_len = col_fixed_size(c->mtype, c->prtype, c->len, c->mbmin, c->mbmax, comp);
	if (prefix_len && f->fixed_len > prefix_len)
		f->fixed_len = prefix_len;
	if (f->fixed_len > DICT_MAX_FIXED)
		f->fixed_len = 0;
	if (!(c->prtype & DICT_PRTYPE_NOT_NULL))
		x->n_nullable++;
	return 0;
}

static int widths(const dict_table *t, uint32_t mtype, uint32_t prtype, const char *col, uint32_t *mbmin,
		  uint32_t *mbmax, xb_error *err)
{
	*mbmin = *mbmax = 0;
	if (!is_string(mtype))
		return 0;
	uint32_t coll = (prtype >> 16) & 0x7FFF;
	if (coll == 0)
		return 0;
	if (!dict_charset_width(coll, mbmin, mbmax))
		return xb_err_set(err, XB_E_USAGE, "table %s: column %s has collation %u, unknown to this program", t->name,
				  col, coll);
	return 0;
}

void dict_mtable_free(dict_mtable *m)
{
	for (uint32_t i = 0; i < m->n_index; i++)
		free(m->index[i].field);
	free(m->index);
	free(m->col);
	memset(m, 0, sizeof *m);
}

/* Find the column a field names: a stored one first, then a virtual one. */
static int find_colref(const dict_table *t, const dict_mtable *m, const char *name, colref *out)
{
	for (uint32_t i = 0; i + 3 < m->n_cols; i++)
		if (strcmp(m->col[i].name, name) == 0) {
			const dict_mcol *c = &m->col[i];
			*out = (colref){c->mtype, c->prtype, c->len, c->mbminlen, c->mbmaxlen, (int)i, c->name};
			return 0;
		}
	for (uint32_t i = 0; i < t->n_col; i++) {
		const dict_col *c = &t->col[i];
		if ((c->prtype & DICT_PRTYPE_VIRTUAL) && strcmp(c->name, name) == 0) {
			uint32_t mn, mx;
			if (widths(t, c->mtype, c->prtype, c->name, &mn, &mx, NULL))
				return -1;
			*out = (colref){c->mtype, c->prtype, c->len, mn, mx, -1, c->name};
			return 0;
		}
	}
	return -1;
}

static colref mref(const dict_mtable *m, uint32_t i)
{
	const dict_mcol *c = &m->col[i];
	return (colref){c->mtype, c->prtype, c->len, c->mbminlen, c->mbmaxlen, (int)i, c->name};
}

/* The clustered index's fields after DB_ROLL_PTR as the instant map orders
 * them: every column not in the key exactly once, dropped ones between. */
static int add_mapped(const dict_table *t, const dict_instant *inst, const dict_mtable *m, dict_mindex *x,
		      bool *indexed, bool comp, xb_error *err)
{
	uint32_t n_user = m->n_cols - 3;
	for (uint32_t i = 0; i < inst->n; i++) {
		uint16_t e = inst->map[i];
		colref c;
		if (e & 0x8000) {
			uint32_t fl = e & 0x3FFF;
			if (fl > DICT_MAX_FIXED + 1)
				return xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: instant ALTER metadata entry %u is 0x%x",
						  t->name, i, e);
			/* a dropped column: a binary string of its old fixed length or a variable one */
			c = (colref){fl > 1 ? DICT_MTYPE_FIXBINARY : DICT_MTYPE_BINARY,
				     ((e & 0x4000) ? DICT_PRTYPE_NOT_NULL : 0) | DICT_PRTYPE_BINARY_TYPE,
				     fl > 1 ? fl - 1 : (fl ? 65535 : 255), 0, 0, -1, ""};
			int rc = add_field(x, &c, 0, false, comp, err);
			if (rc)
				return rc;
			continue;
		}
		if (e >= n_user || indexed[e])
			return xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: instant ALTER metadata entry %u names column %u twice or "
					  "past the %u columns", t->name, i, e, n_user);
		indexed[e] = true;
		c = mref(m, e);
		int rc = add_field(x, &c, 0, false, comp, err);
		if (rc)
			return rc;
	}
	for (uint32_t i = 0; i < n_user; i++)
		if (!indexed[i])
			return xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: instant ALTER metadata lacks column %s", t->name,
					  m->col[i].name);
	return 0;
}

int dict_build(const dict_table *t, const dict_instant *inst, dict_mtable *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	out->def = t;
	bool comp = t->flags & DICT_TF_COMPACT;
	uint32_t n_user = 0;
	for (uint32_t i = 0; i < t->n_col; i++)
		if (!(t->col[i].prtype & DICT_PRTYPE_VIRTUAL))
			n_user++;
	if (n_user != t->n_cols)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: SYS_TABLES counts %u columns, SYS_COLUMNS holds %u",
				  t->name, t->n_cols, n_user);
	out->n_cols = n_user + 3;
	out->col = calloc(out->n_cols, sizeof *out->col);
	if (!out->col)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	uint32_t k = 0;
	int rc = 0;
	for (uint32_t i = 0; i < t->n_col && !rc; i++) {
		const dict_col *c = &t->col[i];
		if (c->prtype & DICT_PRTYPE_VIRTUAL)
			continue;
		if (c->pos != k) {
			rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: column %s has position %u, expected %u", t->name,
					c->name, c->pos, k);
			break;
		}
		dict_mcol *m = &out->col[k];
		m->name = c->name, m->mtype = c->mtype, m->prtype = c->prtype, m->len = c->len, m->ind = k;
		rc = widths(t, c->mtype, c->prtype, c->name, &m->mbminlen, &m->mbmaxlen, err);
		k++;
	}
	static const char *const sys_name[3] = {"DB_ROW_ID", "DB_TRX_ID", "DB_ROLL_PTR"};
	static const uint32_t sys_len[3] = {6, 6, 7};
	for (uint32_t i = 0; i < 3; i++) {
		dict_mcol *m = &out->col[k + i];
		m->name = sys_name[i], m->mtype = DICT_MTYPE_SYS, m->prtype = i | DICT_PRTYPE_NOT_NULL;
		m->len = sys_len[i], m->ind = k + i;
	}
	const uint32_t row_id = k, trx_id = k + 1, roll_ptr = k + 2;
	if (!rc && (t->n_index == 0 || !(t->index[0].type & DICT_INDEX_CLUSTERED)))
		rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s has no clustered index first", t->name);
	if (!rc) {
		out->index = calloc(t->n_index, sizeof *out->index);
		if (!out->index)
			rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	bool *indexed = rc ? NULL : calloc(out->n_cols, sizeof *indexed);
	if (!rc && !indexed)
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	for (uint32_t xi = 0; xi < t->n_index && !rc; xi++) {
		const dict_index *d = &t->index[xi];
		dict_mindex *x = &out->index[out->n_index++];
		x->def = d;
		if (d->type & (DICT_INDEX_FTS | DICT_INDEX_SPATIAL)) {
			rc = xb_err_set(err, XB_E_USAGE, "table %s: index %s is FULLTEXT or SPATIAL, not supported for export",
					t->name, d->name);
			break;
		}
		if (d->n_field != d->n_fields) {
			rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: index %s has %u fields in SYS_FIELDS, %u declared",
					t->name, d->name, d->n_field, d->n_fields);
			break;
		}
		x->n_user_defined_cols = d->n_fields;
		memset(indexed, 0, out->n_cols * sizeof *indexed);
		for (uint32_t f = 0; f < d->n_field && !rc; f++) {
			colref c;
			if (find_colref(t, out, d->field[f].col_name, &c)) {
				rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: index %s names column %s, which it lacks",
						t->name, d->name, d->field[f].col_name);
				break;
			}
			rc = add_field(x, &c, d->field[f].prefix_len, d->field[f].descending, comp, err);
			if (c.mcol >= 0 && d->field[f].prefix_len == 0)
				indexed[c.mcol] = true;
		}
		if (rc)
			break;
		bool unique = d->type & DICT_INDEX_UNIQUE;
		if (xi == 0) {
			/* clustered: key, [DB_ROW_ID], DB_TRX_ID, DB_ROLL_PTR, every other column */
			x->n_uniq = unique ? x->n_fields : x->n_fields + 1;
			colref c;
			if (!unique) {
				c = mref(out, row_id);
				rc = add_field(x, &c, 0, false, comp, err);
			}
			uint32_t trx_pos = x->n_fields, off = 0;
			for (uint32_t f = 0; f < trx_pos; f++) {
				const dict_mfield *mf = &x->field[f];
				const colref r = mf->col >= 0 ? mref(out, (uint32_t)mf->col) : (colref){0};
				uint32_t fs = mf->col >= 0 ? col_fixed_size(r.mtype, r.prtype, r.len, r.mbmin, r.mbmax, comp) : 0;
				if (fs == 0 || mf->prefix_len) {
					off = 0;
					break;
				}
				off += fs;
			}
			x->trx_id_offset = off;
			c = mref(out, trx_id);
			if (!rc)
				rc = add_field(x, &c, 0, false, comp, err);
			c = mref(out, roll_ptr);
			if (!rc)
				rc = add_field(x, &c, 0, false, comp, err);
			if (inst && inst->n) {
				rc = add_mapped(t, inst, out, x, indexed, comp, err);
			} else {
				for (uint32_t i = 0; i < row_id && !rc; i++) {
					if (indexed[i])
						continue;
					c = mref(out, i);
					rc = add_field(x, &c, 0, false, comp, err);
				}
			}
		} else {
			/* secondary: its fields, then what identifies the clustered record */
			const dict_mindex *cl = &out->index[0];
			for (uint32_t f = 0; f < cl->n_uniq && !rc; f++) {
				const dict_mfield *mf = &cl->field[f];
				if (mf->col >= 0 && indexed[mf->col])
					continue;
				colref c = mref(out, (uint32_t)mf->col);
				rc = add_field(x, &c, mf->prefix_len, mf->descending, comp, err);
			}
			x->n_uniq = unique ? x->n_user_defined_cols : x->n_fields;
		}
		/* the ordering columns and the longest prefix an index orders by */
		for (uint32_t f = 0; f < x->n_uniq && f < x->n_fields && !rc; f++) {
			const dict_mfield *mf = &x->field[f];
			if (mf->col < 0)
				continue;
			dict_mcol *mc = &out->col[mf->col];
			if (!mc->ord_part) {
				mc->ord_part = 1;
				mc->max_prefix = mf->prefix_len;
			} else if (mf->prefix_len == 0) {
				mc->max_prefix = 0;
			} else if (mc->max_prefix && mf->prefix_len > mc->max_prefix) {
				mc->max_prefix = mf->prefix_len;
			}
		}
	}
	free(indexed);
	if (rc)
		dict_mtable_free(out);
	return rc;
}

/* ---- instant ALTER metadata (doc/export.md §3.3) */

#define FIL_PAGE_TYPE_INSTANT 18u
#define FIL_PAGE_TYPE_BLOB_T 10u
#define PAGE_NEW_INFIMUM 99u
#define PAGE_NEW_SUPREMUM 112u
#define REC_MIN_DELETED 0x30u /* info bits of a metadata record with its map off the page */

void dict_instant_free(dict_instant *i)
{
	free(i->map);
	memset(i, 0, sizeof *i);
}

/* The first record after the infimum of page p (size ps), 0 when none. */
static uint32_t first_rec(const uint8_t *p, uint32_t ps, bool comp)
{
	if (!comp) {
		uint32_t r = be16_get(p + PAGE_OLD_INFIMUM - 2);
		return r == PAGE_OLD_SUPREMUM || r < PAGE_OLD_SUPREMUM || r >= ps ? 0 : r;
	}
	uint32_t r = (PAGE_NEW_INFIMUM + (uint32_t)(int16_t)be16_get(p + PAGE_NEW_INFIMUM - 2)) & (ps - 1);
	return r == PAGE_NEW_SUPREMUM || r < PAGE_NEW_SUPREMUM ? 0 : r;
}

/* The bytes of the clustered index key of the COMPACT record at r whose
 * length bytes start at lens (and go down): false when they do not fit. */
static bool key_len_comp(const uint8_t *p, uint32_t ps, uint32_t r, uint32_t lens, const dict_mtable *m,
			 uint32_t n_uniq, uint32_t *out)
{
	uint32_t sum = 0;
	for (uint32_t i = 0; i < n_uniq; i++) {
		const dict_mfield *f = &m->index[0].field[i];
		if (f->fixed_len) {
			sum += f->fixed_len;
			continue;
		}
		if (lens < PAGE_NEW_SUPREMUM || lens >= r)
			return false;
		uint32_t len = p[lens--];
		const dict_mcol *c = &m->col[f->col];
		bool big = c->len > 255 || c->mtype == DICT_MTYPE_BLOB || c->mtype == DICT_MTYPE_GEOMETRY;
		if (big && (len & 0x80)) {
			if ((len & 0x40) || lens < PAGE_NEW_SUPREMUM)
				return false;
			len = ((len & 0x3F) << 8) | p[lens--];
		}
		sum += len;
	}
	*out = sum;
	return r + sum < ps;
}

/* Whether page_no (read into q) is the leftmost page of level lvl of the index. */
static bool leftmost_at(dict_page_fn read, void *ctx, uint32_t page_no, uint8_t *q, uint64_t index_id, uint32_t lvl)
{
	xb_error ignored;
	if (read(ctx, page_no, q, &ignored))
		return false;
	uint32_t type = be16_get(q + FIL_PAGE_TYPE);
	return (type == FIL_PAGE_INDEX || type == FIL_PAGE_TYPE_INSTANT) &&
	       be64_get(q + PAGE_HEADER + PAGE_INDEX_ID) == index_id && be16_get(q + PAGE_HEADER + PAGE_LEVEL) == lvl &&
	       be32_get(q + 8) == FIL_NULL_PAGE;
}

/* Read the field map the 20-byte reference at ref of page p points to, and
 * check it against the table: 0 and *out when sound; 1 when not. n_expect:
 * the entries the record says there are (0: not known), null_bytes: the null
 * flag bytes it has (UINT32_MAX: not known). */
static int read_map(dict_page_fn read, void *ctx, const uint8_t *ref, uint32_t ps, const dict_table *t,
		    const dict_mtable *m, uint32_t n_uniq, uint32_t n_expect, uint32_t null_bytes, uint8_t *q,
		    dict_instant *out, xb_error *last)
{
	uint32_t bpage = be32_get(ref + 4), boff = be32_get(ref + 8), blen = be32_get(ref + 16);
	if (be32_get(ref) != t->space || boff != FIL_PAGE_DATA || blen < 6 || blen > 4 + 2 * 1024 || be32_get(ref + 12))
		return 1;
	uint8_t blob[4 + 2 * 1024];
	uint32_t got = 0;
	for (uint32_t hops = 0; got < blen; hops++) {
		if (bpage == FIL_NULL_PAGE || hops > 8 || read(ctx, bpage, q, last))
			return 1;
		uint32_t part = be32_get(q + boff), next = be32_get(q + boff + 4);
		if (be16_get(q + FIL_PAGE_TYPE) != FIL_PAGE_TYPE_BLOB_T || part > ps - boff - 16 || part > blen - got)
			return 1;
		memcpy(blob + got, q + boff + 8, part);
		got += part;
		bpage = next;
		boff = FIL_PAGE_DATA;
	}
	uint32_t n = be32_get(blob);
	if (n == 0 || 4 + 2 * (uint64_t)n > blen || (n_expect && n != n_expect))
		return 1;
	uint32_t n_null = 0;
	for (uint32_t i = 0; i < n_uniq; i++)
		if (!(m->col[m->index[0].field[i].col].prtype & DICT_PRTYPE_NOT_NULL))
			n_null++;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t e = be16_get(blob + 4 + 2 * i);
		if (e & 0x8000)
			n_null += !(e & 0x4000);
		else if (e >= m->n_cols - 3)
			return 1;
		else
			n_null += !(m->col[e].prtype & DICT_PRTYPE_NOT_NULL);
	}
	if (null_bytes != UINT32_MAX && null_bytes != (n_null + 7) / 8)
		return 1;
	out->map = malloc(n * sizeof *out->map);
	if (!out->map)
		return 1;
	out->n = n;
	for (uint32_t i = 0; i < n; i++)
		out->map[i] = (uint16_t)be16_get(blob + 4 + 2 * i);
	return 0;
}

int dict_instant_read(const dict_table *t, uint32_t page_size, dict_page_fn read, void *ctx, dict_instant *out,
		      xb_error *err)
{
	memset(out, 0, sizeof *out);
	dict_mtable m;
	int rc = dict_build(t, NULL, &m, err);
	if (rc)
		return rc;
	const uint32_t n_uniq = m.index[0].n_uniq;
	const uint64_t index_id = t->index[0].id;
	bool comp = t->flags & DICT_TF_COMPACT;
	uint32_t ps = page_size, page_no = t->index[0].page;
	uint8_t *p = malloc(ps), *q = malloc(ps);
	if (!p || !q) {
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
		goto done;
	}
	rc = read(ctx, page_no, p, err);
	if (rc || be16_get(p + FIL_PAGE_TYPE) != FIL_PAGE_TYPE_INSTANT)
		goto done;
	/* the fields a record had when the table was made: node pointers'
	 * null flags are sized by them */
	const uint32_t n_core = be16_get(p + PAGE_HEADER + 12) >> 3;
	/* down the leftmost node pointers */
	for (uint32_t depth = 0; be16_get(p + PAGE_HEADER + PAGE_LEVEL) > 0; depth++) {
		uint32_t lvl = be16_get(p + PAGE_HEADER + PAGE_LEVEL), r = first_rec(p, ps, comp), child = UINT32_MAX;
		rec_view v;
		if (r && !comp && rec_decode(p, ps, r, &v) && rec_len(&v, v.n - 1) == 4) {
			child = be32_get(rec_field(&v, v.n - 1));
			if (!leftmost_at(read, ctx, child, q, index_id, lvl - 1))
				child = UINT32_MAX;
		}
		/* COMPACT: the null flags (none set: the key is NOT NULL) take
		 * as many bytes as the first n_core fields have nullable ones,
		 * which only the field map says; try each size and keep the
		 * child that is the leftmost page of the level below */
		for (uint32_t b = 0; r && comp && child == UINT32_MAX && b <= (n_core + 7) / 8; b++) {
			uint32_t kl;
			if (r < 6 + b || !key_len_comp(p, ps, r, r - 6 - b, &m, n_uniq, &kl) || r + kl + 4 > ps)
				continue;
			uint32_t c = be32_get(p + r + kl);
			if (leftmost_at(read, ctx, c, q, index_id, lvl - 1))
				child = c;
		}
		if (child == UINT32_MAX || depth > 30) {
			rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: page %u has no valid node pointer to its leftmost child",
					t->name, page_no);
			goto done;
		}
		page_no = child;
		memcpy(p, q, ps);
	}
	uint32_t r = first_rec(p, ps, comp);
	if (!r || r < 8)
		goto done;
	uint8_t info = comp ? p[r - 5] : p[r - 6];
	if ((info & REC_MIN_DELETED) != REC_MIN_DELETED)
		goto done; /* instant ADD at the end only: the plain order */
	int found = 1;
	xb_error last; /* a page of the map that could not be read */
	xb_err_clear(&last);
	if (!comp) {
		rec_view v;
		if (rec_decode_x(p, ps, r, true, &v) && n_uniq + 2 < 12 && v.n > n_uniq + 2 && rec_len(&v, n_uniq + 2) == 20)
			found = read_map(read, ctx, p + r + v.start[n_uniq + 2], ps, t, &m, n_uniq, v.n - n_uniq - 3,
					 UINT32_MAX, q, out, &last);
	} else if ((p[r - 3] & 7) == 4) {
		/* after the 5 header bytes, the count of fields added (1 or 2
		 * bytes), the null flags, then the key's length bytes; the
		 * record holds n_core + 1 + added fields, the reference to the
		 * map among them */
		uint32_t hdr = r - 6, n_add = p[hdr];
		if (n_add >= 0x80)
			n_add = (n_add & 0x7F) | (uint32_t)p[--hdr] << 7;
		uint32_t n_map = n_core + n_add >= n_uniq + 2 ? n_core + n_add - n_uniq - 2 : 0;
		for (uint32_t b = 0; found && n_map && b <= (n_core + n_add + 7) / 8 && hdr > b + 1; b++) {
			uint32_t kl;
			if (!key_len_comp(p, ps, r, hdr - 1 - b, &m, n_uniq, &kl) || r + kl + 13 + 20 > ps - 8)
				continue;
			found = read_map(read, ctx, p + r + kl + 13, ps, t, &m, n_uniq, n_map, b, q, out, &last);
		}
	}
	if (found && last.code) {
		rc = last.code;
		if (err)
			*err = last;
		xb_err_prefix(err, "table %s: instant ALTER metadata", t->name);
	} else if (found) {
		rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: page %u: the instant ALTER metadata record is damaged",
				t->name, page_no);
	}
done:
	dict_mtable_free(&m);
	free(p);
	free(q);
	if (rc)
		dict_instant_free(out);
	return rc;
}

/* A tablespace file open for dict_instant_read_file(). */
typedef struct ibd_reader {
	int fd;                 /* the file */
	const char *path;       /* its path */
	innodb_space_info si;   /* its page 0 */
	uint8_t *stored;        /* one physical page */
} ibd_reader;

static int ibd_read(void *ctx, uint32_t page_no, uint8_t *page, xb_error *err)
{
	ibd_reader *r = ctx;
	uint32_t ps = r->si.physical_size;
	ssize_t got = xb_file_pread_all(r->fd, r->stored, ps, (off_t)page_no * ps);
	if (got != (ssize_t)ps)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: page %u is beyond the end of the file", r->path, page_no);
	char why[128] = "";
	if (!innodb_page_is_valid(r->stored, &r->si, page_no, true, why, sizeof why))
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: page %u is damaged: %s", r->path, page_no, why);
	if (r->si.page_compressed && pagecomp_is_compressed(r->stored, &r->si)) {
		int rc = pagecomp_decompress(r->stored, page, &r->si, page_no, err);
		if (rc)
			xb_err_prefix(err, "%s", r->path);
		return rc;
	}
	memcpy(page, r->stored, ps);
	return 0;
}

int dict_instant_read_file(const dict_table *t, const char *path, dict_instant *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	ibd_reader r = {.path = path};
	r.fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (r.fd < 0)
		return xb_err_set(err, errno == ENOENT ? XB_E_MISSING_FILE : XB_E_IO_READ, "cannot open %s: %s", path,
				  strerror(errno));
	int rc = 0;
	r.stored = malloc(INNODB_PAGE_SIZE_MAX);
	ssize_t got = r.stored ? xb_file_pread_all(r.fd, r.stored, INNODB_PAGE_SIZE_MAX, 0) : -1;
	if (got <= 0)
		rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s", path);
	else if ((rc = innodb_page0_parse(r.stored, (size_t)got, &r.si, err)))
		xb_err_prefix(err, "%s", path);
	else if (r.si.zip)
		; /* ROW_FORMAT=COMPRESSED tables never have instant ALTER metadata */
	else if (r.si.encrypted) {
		rc = xb_err_set(err, XB_E_USAGE, "table %s: %s is encrypted: its clustered index cannot be read", t->name,
				path);
		xb_err_hint(err, "the .cfg of an encrypted table needs the encryption keys to read its instant ALTER metadata");
	} else
		rc = dict_instant_read(t, r.si.logical_size, ibd_read, &r, out, err);
	free(r.stored);
	close(r.fd);
	return rc;
}
