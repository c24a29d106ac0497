/*
 * cfg.c - making, writing, reading and comparing .cfg files (see cfg.h).
 *
 * The layout (doc/export.md §4) is a sequence of big-endian 4-byte numbers
 * (8 bytes for the AUTO_INCREMENT value and index ids) and strings written as
 * a 4-byte length that counts a terminating NUL, then the bytes and the NUL.
 * The encoder appends to a growing buffer; the decoder walks a cursor that
 * refuses to pass the end of the input, so a truncated file is reported with
 * the part being read and its byte offset.
 */
#include "innodb/cfg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "platform/file.h"

#define PAGE_ROOT_AUTO_INC 56u /* PAGE_HEADER + 18: the persisted AUTO_INCREMENT value on a root page */

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

void cfg_free(cfg *c)
{
	if (c->col)
		for (uint32_t i = 0; i < c->n_cols; i++)
			free(c->col[i].name);
	if (c->index)
		for (uint32_t i = 0; i < c->n_indexes; i++) {
			if (c->index[i].field)
				for (uint32_t f = 0; f < c->index[i].n_fields; f++)
					free(c->index[i].field[f].name);
			free(c->index[i].field);
			free(c->index[i].name);
		}
	free(c->col);
	free(c->index);
	free(c->hostname);
	free(c->table_name);
	memset(c, 0, sizeof *c);
}

uint64_t cfg_autoinc(const uint8_t *root, bool has_autoinc)
{
	return has_autoinc ? be64_get(root + PAGE_ROOT_AUTO_INC) + 1 : 0;
}

int cfg_from_table(const dict_table *t, const dict_instant *inst, uint32_t page_size, const innodb_space_info *page0,
		   const char *hostname, uint64_t autoinc, cfg *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	if (page0 && page0->space_id != t->space)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: its tablespace has space id %u, the dictionary says %u",
				  t->name, page0->space_id, t->space);
	if (page0 && page0->logical_size != page_size)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "table %s: its tablespace has %u-byte pages, the server %u-byte ones",
				  t->name, page0->logical_size, page_size);
	dict_mtable m;
	int rc = dict_build(t, inst, &m, err);
	if (rc)
		return rc;
	out->version = CFG_VERSION_V1;
	out->hostname = xstrdup(hostname ? hostname : "Hostname unknown");
	out->table_name = xstrdup(t->name);
	out->autoinc = autoinc;
	out->page_size = page_size;
	out->flags = t->flags;
	out->n_cols = m.n_cols;
	out->col = calloc(m.n_cols, sizeof *out->col);
	out->n_indexes = m.n_index;
	out->index = calloc(m.n_index ? m.n_index : 1, sizeof *out->index);
	bool oom = !out->hostname || !out->table_name || !out->col || !out->index;
	for (uint32_t i = 0; i < m.n_cols && !oom; i++) {
		const dict_mcol *s = &m.col[i];
		cfg_col *c = &out->col[i];
		c->prtype = s->prtype, c->mtype = s->mtype, c->len = s->len;
		c->mbminmaxlen = s->mbmaxlen * 5 + s->mbminlen;
		c->ind = s->ind, c->ord_part = s->ord_part, c->max_prefix = s->max_prefix;
		oom = !(c->name = xstrdup(s->name));
	}
	for (uint32_t i = 0; i < m.n_index && !oom; i++) {
		const dict_mindex *s = &m.index[i];
		cfg_index *x = &out->index[i];
		x->id = s->def->id, x->space = t->space, x->page = s->def->page, x->type = s->def->type;
		x->trx_id_offset = s->trx_id_offset, x->n_user_defined_cols = s->n_user_defined_cols;
		x->n_uniq = s->n_uniq, x->n_nullable = s->n_nullable, x->n_fields = s->n_fields;
		x->name = xstrdup(s->def->name);
		x->field = calloc(s->n_fields ? s->n_fields : 1, sizeof *x->field);
		oom = !x->name || !x->field;
		for (uint32_t f = 0; f < s->n_fields && !oom; f++) {
			x->field[f].prefix_len = s->field[f].prefix_len;
			x->field[f].fixed_len = s->field[f].fixed_len | (s->field[f].descending ? 1u << 31 : 0);
			oom = !(x->field[f].name = xstrdup(s->field[f].name));
		}
	}
	dict_mtable_free(&m);
	if (oom) {
		cfg_free(out);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	return 0;
}

/* ---- encoding */

typedef struct obuf {
	uint8_t *p;     /* bytes */
	size_t n, cap;  /* used, allocated */
	bool oom;       /* an allocation failed */
} obuf;

static uint8_t *ob_room(obuf *o, size_t k)
{
	if (o->oom)
		return NULL;
	if (o->n + k > o->cap) {
		size_t nc = o->cap ? o->cap * 2 : 1024;
		while (nc < o->n + k)
			nc *= 2;
		uint8_t *np = realloc(o->p, nc);
		if (!np) {
			o->oom = true;
			return NULL;
		}
		o->p = np, o->cap = nc;
	}
	uint8_t *at = o->p + o->n;
	o->n += k;
	return at;
}

static void put32(obuf *o, uint32_t v)
{
	uint8_t *p = ob_room(o, 4);
	if (p)
		be32_put(p, v);
}

static void put64(obuf *o, uint64_t v)
{
	uint8_t *p = ob_room(o, 8);
	if (p)
		be64_put(p, v);
}

static void put_str(obuf *o, const char *s)
{
	size_t l = strlen(s) + 1;
	put32(o, (uint32_t)l);
	uint8_t *p = ob_room(o, l);
	if (p)
		memcpy(p, s, l);
}

int cfg_encode(const cfg *c, uint8_t **buf, size_t *len, xb_error *err)
{
	obuf o = {0};
	put32(&o, c->version);
	put_str(&o, c->hostname);
	put_str(&o, c->table_name);
	put64(&o, c->autoinc);
	put32(&o, c->page_size);
	put32(&o, c->flags);
	put32(&o, c->n_cols);
	for (uint32_t i = 0; i < c->n_cols; i++) {
		const cfg_col *k = &c->col[i];
		put32(&o, k->prtype);
		put32(&o, k->mtype);
		put32(&o, k->len);
		put32(&o, k->mbminmaxlen);
		put32(&o, k->ind);
		put32(&o, k->ord_part);
		put32(&o, k->max_prefix);
		put_str(&o, k->name);
	}
	put32(&o, c->n_indexes);
	for (uint32_t i = 0; i < c->n_indexes; i++) {
		const cfg_index *x = &c->index[i];
		put64(&o, x->id);
		put32(&o, x->space);
		put32(&o, x->page);
		put32(&o, x->type);
		put32(&o, x->trx_id_offset);
		put32(&o, x->n_user_defined_cols);
		put32(&o, x->n_uniq);
		put32(&o, x->n_nullable);
		put32(&o, x->n_fields);
		put_str(&o, x->name);
		for (uint32_t f = 0; f < x->n_fields; f++) {
			put32(&o, x->field[f].prefix_len);
			put32(&o, x->field[f].fixed_len);
			put_str(&o, x->field[f].name);
		}
	}
	if (o.oom) {
		free(o.p);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	*buf = o.p;
	*len = o.n;
	return 0;
}

/* ---- decoding */

typedef struct cursor {
	const uint8_t *p;   /* input */
	size_t n, at;       /* its size, the read position */
	const char *what;   /* the file, for messages */
	xb_error *err;      /* where errors go */
	int rc;             /* the first error */
} cursor;

static bool need(cursor *c, size_t k, const char *part)
{
	if (c->rc)
		return false;
	if (c->n - c->at < k) {
		c->rc = xb_err_set(c->err, XB_E_STREAM_CORRUPT, "%s: truncated in %s at byte %zu (the file has %zu bytes)", c->what,
				   part, c->at, c->n);
		xb_err_hint(c->err, "the .cfg file is incomplete: export the table again");
		return false;
	}
	return true;
}

static uint32_t get32(cursor *c, const char *part)
{
	if (!need(c, 4, part))
		return 0;
	c->at += 4;
	return be32_get(c->p + c->at - 4);
}

static uint64_t get64(cursor *c, const char *part)
{
	if (!need(c, 8, part))
		return 0;
	c->at += 8;
	return be64_get(c->p + c->at - 8);
}

static char *get_str(cursor *c, const char *part)
{
	size_t start = c->at;
	uint32_t l = get32(c, part);
	if (c->rc)
		return NULL;
	if (l == 0 || l > 65536) {
		c->rc = xb_err_set(c->err, XB_E_STREAM_CORRUPT, "%s: bad length %u of the %s at byte %zu", c->what, l, part,
				   start);
		return NULL;
	}
	if (!need(c, l, part))
		return NULL;
	if (c->p[c->at + l - 1] != 0) {
		c->rc = xb_err_set(c->err, XB_E_STREAM_CORRUPT, "%s: the %s at byte %zu does not end in a NUL", c->what,
				   part, start);
		return NULL;
	}
	char *s = malloc(l);
	if (!s) {
		c->rc = xb_err_set(c->err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	memcpy(s, c->p + c->at, l);
	c->at += l;
	return s;
}

/* A count read from the file, checked against what the rest could hold. */
static uint32_t get_count(cursor *c, const char *part, size_t min_each)
{
	size_t start = c->at;
	uint32_t k = get32(c, part);
	if (!c->rc && (uint64_t)k * min_each > c->n - c->at) {
		c->rc = xb_err_set(c->err, XB_E_STREAM_CORRUPT, "%s: truncated in %s at byte %zu (%u announced, %zu bytes left)",
				   c->what, part, start, k, c->n - c->at);
		xb_err_hint(c->err, "the .cfg file is incomplete: export the table again");
	}
	return c->rc ? 0 : k;
}

int cfg_decode(const uint8_t *buf, size_t len, const char *what, cfg *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	cursor c = {buf, len, 0, what, err, 0};
	out->version = get32(&c, "the version");
	if (!c.rc && out->version != CFG_VERSION_V1) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "%s: unsupported .cfg version %u", what, out->version);
		xb_err_hint(err, "only version %u, the one MariaDB 10.11 writes, is known", CFG_VERSION_V1);
		return XB_E_STREAM_CORRUPT;
	}
	out->hostname = get_str(&c, "the hostname");
	out->table_name = get_str(&c, "the table name");
	out->autoinc = get64(&c, "the header");
	out->page_size = get32(&c, "the header");
	out->flags = get32(&c, "the header");
	out->n_cols = 0;
	uint32_t n_cols = get32(&c, "the header");
	if (!c.rc && (uint64_t)n_cols * 33 > c.n - c.at) {
		c.rc = xb_err_set(err, XB_E_STREAM_CORRUPT, "%s: truncated in the columns at byte %zu (%u announced)", what,
				  c.at, n_cols);
		xb_err_hint(err, "the .cfg file is incomplete: export the table again");
	}
	if (!c.rc && n_cols) {
		out->col = calloc(n_cols, sizeof *out->col);
		if (!out->col)
			c.rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
		else
			out->n_cols = n_cols;
	}
	for (uint32_t i = 0; i < out->n_cols && !c.rc; i++) {
		cfg_col *k = &out->col[i];
		k->prtype = get32(&c, "the columns");
		k->mtype = get32(&c, "the columns");
		k->len = get32(&c, "the columns");
		k->mbminmaxlen = get32(&c, "the columns");
		k->ind = get32(&c, "the columns");
		k->ord_part = get32(&c, "the columns");
		k->max_prefix = get32(&c, "the columns");
		k->name = get_str(&c, "column name");
	}
	uint32_t n_idx = get_count(&c, "the index count", 45);
	if (!c.rc && n_idx) {
		out->index = calloc(n_idx, sizeof *out->index);
		if (!out->index)
			c.rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
		else
			out->n_indexes = n_idx;
	}
	for (uint32_t i = 0; i < out->n_indexes && !c.rc; i++) {
		cfg_index *x = &out->index[i];
		x->id = get64(&c, "the indexes");
		x->space = get32(&c, "the indexes");
		x->page = get32(&c, "the indexes");
		x->type = get32(&c, "the indexes");
		x->trx_id_offset = get32(&c, "the indexes");
		x->n_user_defined_cols = get32(&c, "the indexes");
		x->n_uniq = get32(&c, "the indexes");
		x->n_nullable = get32(&c, "the indexes");
		uint32_t nf = get32(&c, "the indexes");
		x->name = get_str(&c, "index name");
		if (!c.rc && (uint64_t)nf * 13 > c.n - c.at) {
			c.rc = xb_err_set(err, XB_E_STREAM_CORRUPT, "%s: truncated in the fields of index %s at byte %zu", what,
					  x->name, c.at);
			xb_err_hint(err, "the .cfg file is incomplete: export the table again");
		}
		if (!c.rc && nf) {
			x->field = calloc(nf, sizeof *x->field);
			if (!x->field)
				c.rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
			else
				x->n_fields = nf;
		}
		for (uint32_t f = 0; f < x->n_fields && !c.rc; f++) {
			x->field[f].prefix_len = get32(&c, "the index fields");
			x->field[f].fixed_len = get32(&c, "the index fields");
			x->field[f].name = get_str(&c, "field name");
		}
	}
	if (!c.rc && c.at != c.n) {
		c.rc = xb_err_set(err, XB_E_STREAM_CORRUPT, "%s: %zu bytes after the last index", what, c.n - c.at);
	}
	if (c.rc)
		cfg_free(out);
	return c.rc;
}

/* ---- files */

int cfg_write_file(const cfg *c, const char *path, xb_error *err)
{
	uint8_t *buf;
	size_t len;
	int rc = cfg_encode(c, &buf, &len, err);
	if (rc)
		return rc;
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_TRUNC, 0644, NULL);
	if (fd < 0) {
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", path, strerror(errno));
	} else {
		if (xb_file_pwrite_all(fd, buf, len, 0) != 0)
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", path, strerror(errno));
		if (close(fd) != 0 && !rc)
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", path, strerror(errno));
	}
	free(buf);
	return rc;
}

int cfg_read_file(const char *path, cfg *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, errno == ENOENT ? XB_E_MISSING_FILE : XB_E_IO_READ, "cannot open %s: %s", path,
				  strerror(errno));
	off_t end = lseek(fd, 0, SEEK_END);
	if (end < 0 || end > (64 << 20)) {
		close(fd);
		return xb_err_set(err, XB_E_IO_READ, "%s: %s", path, end < 0 ? strerror(errno) : "too large for a .cfg file");
	}
	uint8_t *buf = malloc(end ? (size_t)end : 1);
	ssize_t got = buf ? xb_file_pread_all(fd, buf, (size_t)end, 0) : -1;
	close(fd);
	int rc;
	if (got != end)
		rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s", path);
	else
		rc = cfg_decode(buf, (size_t)end, path, out, err);
	free(buf);
	return rc;
}

/* ---- comparing */

#define DIFF(...) (snprintf(diff, n, __VA_ARGS__), 1)

static int cmp_str(const char *what, const char *a, const char *b, char *diff, size_t n)
{
	if (strcmp(a ? a : "", b ? b : "") == 0)
		return 0;
	return DIFF("%s: '%s' != '%s'", what, a ? a : "", b ? b : "");
}

static int cmp_u(const char *what, uint64_t a, uint64_t b, char *diff, size_t n)
{
	if (a == b)
		return 0;
	return DIFF("%s: %llu != %llu", what, (unsigned long long)a, (unsigned long long)b);
}

int cfg_compare(const cfg *a, const cfg *b, unsigned ignore, char *diff, size_t n)
{
	char w[256];
	if (n)
		diff[0] = 0;
	if (cmp_u("version", a->version, b->version, diff, n))
		return 1;
	if (!(ignore & CFG_CMP_HOSTNAME) && cmp_str("hostname", a->hostname, b->hostname, diff, n))
		return 1;
	if (cmp_str("table name", a->table_name, b->table_name, diff, n))
		return 1;
	if (!(ignore & CFG_CMP_AUTOINC) && cmp_u("autoinc", a->autoinc, b->autoinc, diff, n))
		return 1;
	if (cmp_u("page size", a->page_size, b->page_size, diff, n) || cmp_u("flags", a->flags, b->flags, diff, n) ||
	    cmp_u("n_cols", a->n_cols, b->n_cols, diff, n))
		return 1;
	for (uint32_t i = 0; i < a->n_cols; i++) {
		const cfg_col *x = &a->col[i], *y = &b->col[i];
		snprintf(w, sizeof w, "column %u (%s)", i, x->name);
		char f[300];
#define CMPF(field)                                                                \
	(snprintf(f, sizeof f, "%s %s", w, #field), cmp_u(f, x->field, y->field, diff, n))
		if (cmp_str(w, x->name, y->name, diff, n) || CMPF(prtype) || CMPF(mtype) || CMPF(len) ||
		    CMPF(mbminmaxlen) || CMPF(ind) || CMPF(ord_part) || CMPF(max_prefix))
			return 1;
#undef CMPF
	}
	if (cmp_u("number of indexes", a->n_indexes, b->n_indexes, diff, n))
		return 1;
	for (uint32_t i = 0; i < a->n_indexes; i++) {
		const cfg_index *x = &a->index[i], *y = &b->index[i];
		snprintf(w, sizeof w, "index %u (%s)", i, x->name);
		char f[300];
#define CMPF(field)                                                                \
	(snprintf(f, sizeof f, "%s %s", w, #field), cmp_u(f, x->field, y->field, diff, n))
		if (cmp_str(w, x->name, y->name, diff, n) || CMPF(id) || CMPF(space) || CMPF(page) || CMPF(type) ||
		    CMPF(trx_id_offset) || CMPF(n_user_defined_cols) || CMPF(n_uniq) || CMPF(n_nullable) ||
		    CMPF(n_fields))
			return 1;
#undef CMPF
		for (uint32_t k = 0; k < x->n_fields; k++) {
			const cfg_field *p = &x->field[k], *q = &y->field[k];
			snprintf(f, sizeof f, "index %s field %u (%s)", x->name, k, p->name);
			char g[340];
			if (cmp_str(f, p->name, q->name, diff, n))
				return 1;
			snprintf(g, sizeof g, "%s prefix_len", f);
			if (cmp_u(g, p->prefix_len, q->prefix_len, diff, n))
				return 1;
			snprintf(g, sizeof g, "%s fixed_len", f);
			if (cmp_u(g, p->fixed_len, q->fixed_len, diff, n))
				return 1;
		}
	}
	return 0;
}
