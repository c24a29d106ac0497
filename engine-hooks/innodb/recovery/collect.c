/*
 * collect.c - the collector: mini-transactions split into per-page entries.
 *
 * collect_add_mtr() walks an mtr's records twice. The first pass finds the
 * page of every record (redo_rec_next(): a record with a page identifier
 * starts a page, same_page records continue it), counts the bytes each page
 * gets in this mtr, applies the discard rules of FREE_PAGE/INIT_PAGE and
 * TRIM_PAGES, and notes file records and page-0 size/flag writes in the
 * tablespace table. The second pass allocates one entry per page from the
 * arena and copies the kept records into it in log order. Pages are found
 * through an open-addressing hash of (space, page) holding indexes into a
 * dense array, so growing the array never invalidates the hash. Spec
 * sections 2.2-2.7 and 3.1.
 */
#include "innodb/recovery/collect.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "innodb/redo.h"

#define CHUNK_SIZE (1u << 20)
#define NO_PAGE UINT32_MAX
#define FSP_SIZE_OFS 46u
#define FSP_FLAGS_OFS 54u

struct collect_chunk {
	collect_chunk *next;
	size_t used, size;
	uint8_t mem[];
};

/* ---- arena */

static void *arena_alloc(collector *r, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	collect_chunk *c = r->chunks;
	if (!c || c->size - c->used < n) {
		size_t sz = n > CHUNK_SIZE - sizeof *c ? n + sizeof *c : CHUNK_SIZE;
		c = malloc(sz);
		if (!c)
			return NULL;
		c->size = sz - sizeof *c;
		c->used = 0;
		c->next = r->chunks;
		r->chunks = c;
		r->arena_bytes += sz;
	}
	void *p = c->mem + c->used;
	c->used += n;
	return p;
}

static void arena_free(collector *r)
{
	while (r->chunks) {
		collect_chunk *n = r->chunks->next;
		free(r->chunks);
		r->chunks = n;
	}
	r->arena_bytes = 0;
}

/* ---- page table */

static inline size_t page_hash(uint32_t space, uint32_t page, size_t mask)
{
	uint64_t k = ((uint64_t)space << 32 | page) * 0x9E3779B97F4A7C15ull;
	return (size_t)(k >> 29) & mask;
}

static int grow_slots(collector *r)
{
	size_t n = r->n_slots ? r->n_slots * 2 : 4096;
	uint32_t *s = calloc(n, sizeof *s);
	if (!s)
		return -1;
	for (size_t i = 0; i < r->n_pages; i++) {
		size_t h = page_hash(r->pages[i].space_id, r->pages[i].page_no, n - 1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = (uint32_t)i + 1;
	}
	free(r->slots);
	r->slots = s;
	r->n_slots = n;
	return 0;
}

/* Index of the page in pages[], created when absent; NO_PAGE when out of memory. */
static uint32_t page_get(collector *r, uint32_t space, uint32_t page)
{
	if ((r->n_pages + 1) * 2 > r->n_slots && grow_slots(r))
		return NO_PAGE;
	size_t mask = r->n_slots - 1, h = page_hash(space, page, mask);
	while (r->slots[h]) {
		collect_page *p = &r->pages[r->slots[h] - 1];
		if (p->space_id == space && p->page_no == page)
			return r->slots[h] - 1;
		h = (h + 1) & mask;
	}
	if (r->n_pages == r->cap_pages) {
		size_t n = r->cap_pages ? r->cap_pages * 2 : 1024;
		collect_page *np = realloc(r->pages, n * sizeof *np);
		if (!np)
			return NO_PAGE;
		r->pages = np;
		r->cap_pages = n;
	}
	collect_page *p = &r->pages[r->n_pages];
	memset(p, 0, sizeof *p);
	p->space_id = space;
	p->page_no = page;
	r->slots[h] = (uint32_t)r->n_pages + 1;
	return (uint32_t)r->n_pages++;
}

/* ---- look-ahead table: (space, page) -> last FREE_PAGE/INIT_PAGE LSN */

struct collect_later {
	uint32_t space_id, page_no;
	uint64_t lsn; /* 0: empty slot */
};

static int later_grow(collector *r)
{
	size_t n = r->cap_later ? r->cap_later * 2 : 4096;
	struct collect_later *v = calloc(n, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < r->cap_later; i++) {
		if (!r->later[i].lsn)
			continue;
		size_t h = page_hash(r->later[i].space_id, r->later[i].page_no, n - 1);
		while (v[h].lsn)
			h = (h + 1) & (n - 1);
		v[h] = r->later[i];
	}
	free(r->later);
	r->later = v;
	r->cap_later = n;
	return 0;
}

static int later_put(collector *r, uint32_t space, uint32_t page, uint64_t lsn)
{
	if ((r->n_later + 1) * 2 > r->cap_later && later_grow(r))
		return -1;
	size_t mask = r->cap_later - 1, h = page_hash(space, page, mask);
	while (r->later[h].lsn && (r->later[h].space_id != space || r->later[h].page_no != page))
		h = (h + 1) & mask;
	if (!r->later[h].lsn)
		r->n_later++;
	r->later[h] = (struct collect_later){.space_id = space, .page_no = page, .lsn = lsn};
	return 0;
}

static uint64_t later_get(const collector *r, uint32_t space, uint32_t page)
{
	if (!r->cap_later)
		return 0;
	size_t mask = r->cap_later - 1, h = page_hash(space, page, mask);
	while (r->later[h].lsn) {
		if (r->later[h].space_id == space && r->later[h].page_no == page)
			return r->later[h].lsn;
		h = (h + 1) & mask;
	}
	return 0;
}

/* ---- tablespace table */

collect_space *collect_space_find(const collector *r, uint32_t space_id)
{
	if (!r->cap_spaces)
		return NULL;
	size_t mask = r->cap_spaces - 1, h = page_hash(space_id, 0, mask);
	while (r->spaces[h].used) {
		if (r->spaces[h].space_id == space_id)
			return &r->spaces[h];
		h = (h + 1) & mask;
	}
	return NULL;
}

static collect_space *space_get(collector *r, uint32_t space_id)
{
	if (r->last_space && r->last_space->space_id == space_id)
		return r->last_space;
	collect_space *s = collect_space_find(r, space_id);
	if (s)
		return r->last_space = s;
	if ((r->n_spaces + 1) * 2 > r->cap_spaces) {
		size_t n = r->cap_spaces ? r->cap_spaces * 2 : 256;
		collect_space *ns = calloc(n, sizeof *ns);
		if (!ns)
			return NULL;
		for (size_t i = 0; i < r->cap_spaces; i++) {
			if (!r->spaces[i].used)
				continue;
			size_t h = page_hash(r->spaces[i].space_id, 0, n - 1);
			while (ns[h].used)
				h = (h + 1) & (n - 1);
			ns[h] = r->spaces[i];
		}
		free(r->spaces);
		r->spaces = ns;
		r->cap_spaces = n;
		r->last_space = NULL;
	}
	size_t mask = r->cap_spaces - 1, h = page_hash(space_id, 0, mask);
	while (r->spaces[h].used)
		h = (h + 1) & mask;
	s = &r->spaces[h];
	memset(s, 0, sizeof *s);
	s->used = true;
	s->space_id = space_id;
	r->n_spaces++;
	return r->last_space = s;
}

static int set_name(char **dst, const uint8_t *s, size_t n)
{
	char *c = malloc(n + 1);
	if (!c)
		return -1;
	memcpy(c, s, n);
	c[n] = 0;
	free(*dst);
	*dst = c;
	return 0;
}

/* ---- lifecycle */

int collect_init(collector *r, size_t budget)
{
	memset(r, 0, sizeof *r);
	r->budget = budget;
	return grow_slots(r);
}

void collect_free(collector *r)
{
	arena_free(r);
	free(r->pages);
	free(r->slots);
	for (size_t i = 0; i < r->cap_spaces; i++) {
		free(r->spaces[i].name);
		free(r->spaces[i].first_name);
		free(r->spaces[i].later_name);
	}
	free(r->spaces);
	free(r->runs);
	free(r->later);
	memset(r, 0, sizeof *r);
}

size_t collect_batch_bytes(const collector *r)
{
	return r->arena_bytes + r->cap_pages * sizeof(collect_page) + r->n_slots * sizeof(uint32_t);
}

size_t collect_bytes(const collector *r)
{
	return collect_batch_bytes(r) + r->cap_later * sizeof(struct collect_later) + r->reserved;
}

static char *dup_name(const char *s, bool *fail)
{
	if (!s)
		return NULL;
	char *c = strdup(s);
	*fail |= !c;
	return c;
}

collector *collect_detach_batch(collector *r)
{
	collector *b = calloc(1, sizeof *b);
	uint32_t *slots = calloc(4096, sizeof *slots);
	collect_space *sp = calloc(r->cap_spaces ? r->cap_spaces : 1, sizeof *sp);
	bool fail = !b || !slots || !sp;
	for (size_t i = 0; !fail && i < r->cap_spaces; i++) {
		if (!r->spaces[i].used)
			continue;
		sp[i] = r->spaces[i];
		sp[i].first_name = NULL;
		sp[i].name = dup_name(r->spaces[i].name, &fail);
		sp[i].later_name = dup_name(r->spaces[i].later_name, &fail);
	}
	if (fail) {
		for (size_t i = 0; sp && i < r->cap_spaces; i++) {
			free(sp[i].name);
			free(sp[i].later_name);
		}
		free(sp);
		free(slots);
		free(b);
		return NULL;
	}
	b->spaces = sp;
	b->cap_spaces = r->cap_spaces;
	b->n_spaces = r->n_spaces;
	b->pages = r->pages;
	b->n_pages = r->n_pages;
	b->cap_pages = r->cap_pages;
	b->slots = r->slots;
	b->n_slots = r->n_slots;
	b->chunks = r->chunks;
	b->arena_bytes = r->arena_bytes;
	b->batch_first_lsn = r->batch_first_lsn;
	b->batch_end_lsn = r->batch_end_lsn;
	b->batch_mtrs = r->batch_mtrs;
	r->pages = NULL;
	r->n_pages = r->cap_pages = 0;
	r->slots = slots;
	r->n_slots = 4096;
	r->chunks = NULL;
	r->arena_bytes = 0;
	for (size_t i = 0; i < r->cap_spaces; i++)
		r->spaces[i].trimmed = false;
	r->batch_first_lsn = r->batch_end_lsn = 0;
	r->batch_mtrs = 0;
	return b;
}

int collect_refresh_later(collector *b, const collector *facts)
{
	for (size_t i = 0; i < b->cap_spaces; i++) {
		collect_space *s = &b->spaces[i];
		const collect_space *f = s->used ? collect_space_find(facts, s->space_id) : NULL;
		if (!f)
			continue;
		s->later_trim_lsn = f->later_trim_lsn;
		s->later_deleted = f->later_deleted;
		s->later_records = f->later_records;
		if (f->later_name && (!s->later_name || strcmp(s->later_name, f->later_name))) {
			char *c = strdup(f->later_name);
			if (!c)
				return -1;
			free(s->later_name);
			s->later_name = c;
		}
	}
	return 0;
}

void collect_batch_reset(collector *r)
{
	arena_free(r);
	r->n_pages = 0;
	if (r->n_slots)
		memset(r->slots, 0, r->n_slots * sizeof *r->slots);
	for (size_t i = 0; i < r->cap_spaces; i++)
		r->spaces[i].trimmed = false;
	r->batch_first_lsn = r->batch_end_lsn = 0;
	r->batch_mtrs = 0;
}

static int cmp_page(const void *a, const void *b)
{
	const collect_page *x = *(collect_page *const *)a, *y = *(collect_page *const *)b;
	if (x->space_id != y->space_id)
		return x->space_id < y->space_id ? -1 : 1;
	return x->page_no < y->page_no ? -1 : x->page_no > y->page_no;
}

collect_page **collect_sorted_pages(collector *r, size_t *n)
{
	collect_page **v = malloc((r->n_pages ? r->n_pages : 1) * sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < r->n_pages; i++)
		if (r->pages[i].first)
			v[k++] = &r->pages[i];
	qsort(v, k, sizeof *v, cmp_page);
	*n = k;
	return v;
}

/* ---- splitting an mtr */

__attribute__((format(printf, 3, 4))) static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int reserve_runs(collector *r, size_t n)
{
	if (n <= r->cap_runs)
		return 0;
	size_t c = r->cap_runs ? r->cap_runs : 256;
	while (c < n)
		c *= 2;
	collect_run *a = realloc(r->runs, c * sizeof *a);
	if (!a)
		return -1;
	r->runs = a;
	r->cap_runs = c;
	return 0;
}

/* A file record (FILE_CREATE/DELETE/RENAME/MODIFY/CHECKPOINT). */
static int file_record(collector *r, const redo_rec *h, uint64_t lsn)
{
	int type = h->type;
	if (type == REDO_T_FILE_CHECKPOINT) {
		r->file_records[4]++;
		if (h->body_len == 8 && be64_get(h->body) == r->want_checkpoint)
			r->found_checkpoint = true;
		return 0;
	}
	if (type < REDO_T_FILE_CREATE || type > REDO_T_FILE_MODIFY || h->space_id == 0)
		return -1;
	r->file_records[(type - REDO_T_FILE_CREATE) >> 4]++;
	collect_space *s = space_get(r, h->space_id);
	if (!s)
		return -1;
	const uint8_t *name = h->body;
	size_t n = h->body_len;
	if (type == REDO_T_FILE_RENAME) { /* old NUL new */
		const uint8_t *nul = memchr(name, 0, n);
		if (!nul)
			return -1;
		size_t a = (size_t)(nul - name);
		if (!s->first_name && set_name(&s->first_name, name, a))
			return -1;
		name = nul + 1;
		n -= a + 1;
	} else if (!s->first_name && set_name(&s->first_name, name, n)) {
		return -1;
	}
	if (type == REDO_T_FILE_DELETE) {
		s->deleted = true;
		s->deleted_lsn = lsn;
		return 0;
	}
	if (type == REDO_T_FILE_CREATE) {
		s->created = true;
		s->deleted = false;
	}
	s->named_lsn = lsn;
	return set_name(&s->name, name, n);
}

/* A WRITE to page 0 covering FSP_SIZE or FSP_SPACE_FLAGS; pos = its effective offset. */
static void page0_write(collector *r, uint32_t space, const uint8_t *data, size_t n, size_t pos)
{
	collect_space *s = NULL;
	if (pos <= FSP_SIZE_OFS && pos + n >= FSP_SIZE_OFS + 4 && (s = space_get(r, space))) {
		s->has_size = true;
		s->size = be32_get(data + FSP_SIZE_OFS - pos);
	}
	if (pos <= FSP_FLAGS_OFS && pos + n >= FSP_FLAGS_OFS + 4 && (s = s ? s : space_get(r, space))) {
		s->has_flags = true;
		s->flags = be32_get(data + FSP_FLAGS_OFS - pos);
	}
}

/* Discard what earlier mtrs collected for the pages of an undo tablespace being truncated. */
static void trim_space(collector *r, uint32_t space, uint32_t seq)
{
	for (size_t i = 0; i < r->n_pages; i++) {
		collect_page *p = &r->pages[i];
		if (p->space_id != space)
			continue;
		p->first = p->last = NULL;
		p->n_entries = 0;
		if (p->mtr_seq == seq)
			continue;
		p->init_lsn = 0;
	}
}

/* Track the running offset of WRITE/MEMSET/MEMMOVE for the page-0 size rule. */
static size_t advance_pos(const redo_rec *h, size_t pos, uint32_t page, collector *r)
{
	uint8_t t = h->type;
	if (t == REDO_T_INIT_PAGE || t == REDO_T_EXTENDED)
		return 24;
	if (t != REDO_T_WRITE && t != REDO_T_MEMSET && t != REDO_T_MEMMOVE)
		return pos;
	uint32_t rel, n = 0;
	int l = redo_varint_decode(h->body, h->body_len, &rel);
	if (l <= 0)
		return pos;
	pos += rel;
	if (t == REDO_T_WRITE) {
		size_t k = h->body_len - (size_t)l;
		if (page == 0)
			page0_write(r, h->space_id, h->body + l, k, pos);
		return pos + k;
	}
	if (redo_varint_decode(h->body + l, h->body_len - (size_t)l, &n) <= 0)
		return pos;
	return pos + n;
}

/* First pass: assign records to pages, apply the discard rules, count
 * bytes. Adjacent records of one page form a run (a page record and the
 * same_page records after it); *nrun receives how many. */
static int split_pass1(collector *r, const uint8_t *m, uint32_t len, uint64_t lsn, size_t *nrun, char *why,
		       size_t whylen)
{
	uint32_t cur = NO_PAGE, cur_space = 0, cur_page = 0;
	size_t pos = 0, k = 0;
	collect_space *s = NULL;
	redo_rec_it it = redo_rec_mtr(m, len);
	redo_rec h;
	int st;
	while ((st = redo_rec_next(&it, &h)) != REDO_REC_DONE) {
		/* the one-byte FILE_CHECKPOINT padding (f1 00) has no room for the
		 * page identifier the collector reads in every file record: refused
		 * (the verifier takes it; the server writes no padding, doc/redo-records.md §7) */
		if (st != REDO_REC_OK || (h.padding && h.body_len < 2))
			return fail(why, whylen, "malformed record at +%zu", (size_t)h.start);
		if (h.file) {
			s = NULL;
			if (file_record(r, &h, lsn))
				return fail(why, whylen, "malformed file record at +%zu", (size_t)h.start);
			continue;
		}
		uint8_t sub = (h.type == REDO_T_EXTENDED && h.body_len) ? h.body[0] : 0;
		int kind = replay_kind_of(h.b, sub);
		if (kind < 0)
			return fail(why, whylen, "unknown record %02x at +%zu", h.b, (size_t)h.start);
		if (!h.same_page) {
			if (h.space_id != cur_space || h.page_no != cur_page)
				cur = NO_PAGE;
			pos = 0; /* a record naming its page gives an absolute offset */
			if (!s || h.space_id != cur_space)
				s = NULL;
			cur_space = h.space_id;
			cur_page = h.page_no;
		}
		uint32_t rlen = (uint32_t)(h.end - h.start);
		r->records++;
		r->parsed.count[kind]++;
		r->parsed.bytes[kind] += rlen;
		if (!s && !(s = space_get(r, cur_space)))
			return fail(why, whylen, "out of memory");
		s->records++;
		s->record_bytes += rlen;
		if (!s->first_lsn)
			s->first_lsn = lsn;
		if (kind == REPLAY_EXT_TRIM_PAGES) {
			s->trimmed = true;
			s->trim_size = cur_page;
			s->trim_lsn = lsn;
			trim_space(r, cur_space, r->seq);
			continue; /* handled on the file, not on a page */
		}
		if (cur == NO_PAGE && (cur = page_get(r, cur_space, cur_page)) == NO_PAGE)
			return fail(why, whylen, "out of memory");
		collect_page *pg = &r->pages[cur];
		if (pg->mtr_seq != r->seq) {
			pg->mtr_seq = r->seq;
			pg->mtr_len = 0;
			pg->mtr_from = (uint32_t)h.start;
			pg->mtr_entry = NULL;
		}
		if (kind == REPLAY_FREE_PAGE || kind == REPLAY_INIT_PAGE) {
			pg->first = pg->last = NULL;
			pg->n_entries = 0;
			pg->init_lsn = lsn;
			pg->mtr_len = 0;
			pg->mtr_from = (uint32_t)h.start;
		}
		if (cur_page == 0) /* only page 0 writes matter: FSP_SIZE and the flags */
			pos = advance_pos(&h, pos, cur_page, r);
		pg->mtr_len += rlen;
		if (k && r->runs[k - 1].page == cur && r->runs[k - 1].end == h.start) {
			r->runs[k - 1].end = (uint32_t)h.end;
			continue;
		}
		if (reserve_runs(r, k + 1))
			return fail(why, whylen, "out of memory");
		r->runs[k++] = (collect_run){.page = cur, .start = (uint32_t)h.start, .end = (uint32_t)h.end};
	}
	*nrun = k;
	return 0;
}

int collect_add_mtr(collector *r, const uint8_t *recs, uint32_t len, uint64_t start_lsn, uint64_t end_lsn, char *why,
		 size_t whylen)
{
	size_t nrun = 0;
	r->seq++;
	if (split_pass1(r, recs, len, start_lsn, &nrun, why, whylen))
		return -1;
	for (size_t k = 0; k < nrun; k++) {
		const collect_run *run = &r->runs[k];
		collect_page *pg = &r->pages[run->page];
		uint32_t a = run->start > pg->mtr_from ? run->start : pg->mtr_from;
		if (a >= run->end)
			continue; /* discarded by a FREE_PAGE/INIT_PAGE later in the mtr */
		if (!pg->mtr_entry) {
			collect_entry *e = arena_alloc(r, sizeof *e + pg->mtr_len);
			if (!e)
				return fail(why, whylen, "out of memory");
			e->next = NULL;
			e->start_lsn = start_lsn;
			e->end_lsn = end_lsn;
			e->len = pg->mtr_len;
			pg->mtr_entry = e;
			pg->mtr_fill = 0;
			if (pg->last)
				pg->last->next = e;
			else
				pg->first = e;
			pg->last = e;
			pg->n_entries++;
		}
		memcpy(pg->mtr_entry->recs + pg->mtr_fill, recs + a, run->end - a);
		pg->mtr_fill += run->end - a;
	}
	r->mtrs++;
	r->batch_mtrs++;
	r->log_bytes += end_lsn - start_lsn;
	if (!r->batch_first_lsn)
		r->batch_first_lsn = start_lsn;
	r->batch_end_lsn = end_lsn;
	size_t now = collect_bytes(r);
	if (now > r->peak_bytes)
		r->peak_bytes = now;
	return 0;
}

/* ---- multi-batch look-ahead */

/* What the look-ahead walk reports to. */
typedef struct note_ctx {
	collector *r;
	uint64_t lsn;
	bool oom;
} note_ctx;

/* A file record seen by the look-ahead: a drop, or the name the file has. */
static void note_file(void *arg, const redo_file_rec *rec)
{
	note_ctx *c = arg;
	if (rec->op < REDO_FILE_CREATE || rec->op > REDO_FILE_MODIFY)
		return;
	collect_space *s = space_get(c->r, rec->space_id);
	if (!s) {
		c->oom = true;
		return;
	}
	if (rec->op == REDO_FILE_DELETE)
		s->later_deleted = true;
	else if (rec->op == REDO_FILE_CREATE)
		s->later_deleted = false;
	/* RENAME: the new name is the one files are found by */
	const char *name = rec->op == REDO_FILE_RENAME ? rec->new_name : rec->name;
	if (set_name(&s->later_name, (const uint8_t *)name, strlen(name)))
		c->oom = true;
}

static void note_page(void *arg, uint32_t space, uint32_t page, uint8_t type, uint8_t ext)
{
	note_ctx *c = arg;
	collect_space *s = space_get(c->r, space);
	if (!s) {
		c->oom = true;
		return;
	}
	s->later_records = true;
	if (!s->first_lsn)
		s->first_lsn = c->lsn;
	if (type == 0x00 || type == 0x10) { /* FREE_PAGE, INIT_PAGE */
		if (later_put(c->r, space, page, c->lsn))
			c->oom = true;
	} else if (type == 0x20 && ext == 10) { /* TRIM_PAGES */
		s->later_trim_lsn = c->lsn;
	}
}

int collect_note_later(collector *r, const uint8_t *recs, uint32_t len, uint64_t start_lsn, char *why, size_t whylen)
{
	note_ctx c = {.r = r, .lsn = start_lsn};
	redo_mtr m;
	memset(&m, 0, sizeof m);
	m.start_lsn = start_lsn;
	int rc = redo_walk_mtr(recs, len, &m, note_file, note_page, &c);
	if (c.oom)
		return fail(why, whylen, "out of memory");
	if (rc != REDO_MTR_OK) {
		if (why && whylen)
			snprintf(why, whylen, "%s", m.why);
		return 1;
	}
	return 0;
}

size_t collect_drop_superseded(collector *r, const collector *facts)
{
	size_t dropped = 0;
	for (size_t i = 0; i < r->n_pages; i++) {
		collect_page *p = &r->pages[i];
		if (!p->first)
			continue;
		const collect_space *s = collect_space_find(facts, p->space_id);
		/* a later record's LSN is the start of its mtr: the mtr right after
		 * this batch starts at batch_end_lsn, and it is later too */
		if (later_get(facts, p->space_id, p->page_no) >= r->batch_end_lsn ||
		    (s && s->later_trim_lsn >= r->batch_end_lsn)) {
			p->first = p->last = NULL;
			p->n_entries = 0;
			dropped++;
		}
	}
	return dropped;
}

int collect_merge_later(collector *dst, collector *src)
{
	if (!dst->n_later) { /* the usual case: take the table as it is */
		free(dst->later);
		dst->later = src->later;
		dst->n_later = src->n_later;
		dst->cap_later = src->cap_later;
		src->later = NULL;
		src->n_later = src->cap_later = 0;
	}
	for (size_t i = 0; i < src->cap_later; i++) { /* src covers a later part of the log: its LSNs win */
		const struct collect_later *e = &src->later[i];
		if (e->lsn && later_get(dst, e->space_id, e->page_no) < e->lsn &&
		    later_put(dst, e->space_id, e->page_no, e->lsn))
			return -1;
	}
	for (size_t i = 0; i < src->cap_spaces; i++) {
		collect_space *a = &src->spaces[i];
		if (!a->used)
			continue;
		collect_space *b = space_get(dst, a->space_id);
		if (!b)
			return -1;
		if (a->later_trim_lsn > b->later_trim_lsn)
			b->later_trim_lsn = a->later_trim_lsn;
		b->later_records |= a->later_records;
		if (!b->first_lsn)
			b->first_lsn = a->first_lsn;
		if (a->later_name) { /* src saw file records for it: their outcome is the latest */
			b->later_deleted = a->later_deleted;
			free(b->later_name);
			b->later_name = a->later_name;
			a->later_name = NULL;
		}
	}
	return 0;
}
