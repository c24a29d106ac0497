/*
 * tabledefs.c - writing and reading xtrabackup_tabledefs.pmap (see
 * tabledefs.h). The reader walks the text by the lengths the "def" lines
 * give, checks that each definition ends with its newline, that the paths
 * are sorted and unique and that the "end" count matches: a cut or edited
 * file is refused with the line that is wrong.
 */
#include "info/tabledefs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/path.h"

#define TABLEDEFS_HEAD "xtrabackup-tabledefs 1"
#define TABLEDEFS_MAX (1ull << 30)
#define SQL_MAX (64u << 20) /* a definition longer than this is not one */

void xb_tabledefs_init(xb_tabledefs *d)
{
	memset(d, 0, sizeof *d);
}

void xb_tabledefs_free(xb_tabledefs *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].path);
		free(d->v[i].sql);
	}
	free(d->v);
	xb_tabledefs_init(d);
}

void xb_tabledefs_put(xb_tabledefs *d, const char *path, const char *sql)
{
	if (d->n == d->cap) {
		size_t nc = d->cap ? 2 * d->cap : 64;
		xb_tabledef *nv = realloc(d->v, nc * sizeof *nv);
		if (!nv) {
			d->nomem = 1;
			return;
		}
		d->v = nv;
		d->cap = nc;
	}
	char *p = strdup(path), *q = strdup(sql);
	if (!p || !q) {
		free(p);
		free(q);
		d->nomem = 1;
		return;
	}
	d->v[d->n] = (xb_tabledef){.path = p, .sql = q, .seq = d->n};
	d->n++;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const xb_tabledef *)a)->path, ((const xb_tabledef *)b)->path);
}

static int by_path_seq(const void *a, const void *b)
{
	const xb_tabledef *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

void xb_tabledefs_sort(xb_tabledefs *d)
{
	if (d->n < 2)
		return;
	qsort(d->v, d->n, sizeof *d->v, by_path_seq);
	size_t out = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (i + 1 < d->n && !strcmp(d->v[i].path, d->v[i + 1].path)) {
			free(d->v[i].path);
			free(d->v[i].sql);
			continue;
		}
		d->v[out++] = d->v[i];
	}
	d->n = out;
}

const xb_tabledef *xb_tabledefs_find(const xb_tabledefs *d, const char *path)
{
	xb_tabledef key = {.path = (char *)path};
	return d->n ? bsearch(&key, d->v, d->n, sizeof *d->v, by_path) : NULL;
}

void xb_tabledefs_format(xb_tabledefs *d, xb_text *t)
{
	xb_tabledefs_sort(d);
	xb_text_add(t, "%s\n", TABLEDEFS_HEAD);
	for (size_t i = 0; i < d->n; i++)
		xb_text_add(t, "def %s %zu\n%s\n", d->v[i].path, strlen(d->v[i].sql), d->v[i].sql);
	xb_text_add(t, "end %zu\n", d->n);
}

/* A table path: "db/table", no blank, no control character, exactly one '/'. */
static int good_path(const char *p)
{
	const char *slash = strchr(p, '/');
	if (!slash || slash == p || !slash[1] || strchr(slash + 1, '/'))
		return 0;
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c <= ' ')
			return 0;
	return strcmp(p, "..") && strncmp(p, "../", 3) && !strstr(p, "/..");
}

int xb_tabledefs_parse(const char *name, const char *text, size_t len, xb_tabledefs *d, xb_error *err)
{
	xb_tabledefs_init(d);
	xb_lines l = {name, text, text + len, 0};
	xb_span line;
	if (!xb_lines_next(&l, &line))
		return xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s is empty", name);
	if (!xb_span_is(line, TABLEDEFS_HEAD))
		return xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "expected \"%s\"", TABLEDEFS_HEAD);
	int rc = 0;
	for (;;) {
		if (!xb_lines_next(&l, &line)) {
			rc = xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s: cut short after line %d (no \"end\" line)", name,
					l.no);
			break;
		}
		if (line.n >= 4 && !memcmp(line.s, "end ", 4)) {
			uint64_t count;
			if (!xb_span_u64((xb_span){line.s + 4, line.n - 4}, &count) || count != d->n)
				rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "expected \"end %zu\"", d->n);
			else if (xb_lines_next(&l, &line))
				rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "text after the \"end\" line");
			break;
		}
		char path[4096];
		const char *sp = line.n > 4 && !memcmp(line.s, "def ", 4) ? memchr(line.s + 4, ' ', line.n - 4) : NULL;
		uint64_t n;
		if (!sp || !xb_span_copy((xb_span){line.s + 4, (size_t)(sp - line.s - 4)}, path, sizeof path) ||
		    !xb_span_u64((xb_span){sp + 1, (size_t)(line.s + line.n - sp - 1)}, &n) || n > SQL_MAX) {
			rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "expected \"def PATH LENGTH\"");
			break;
		}
		if (!good_path(path)) {
			rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "bad table path");
			break;
		}
		if (d->n && strcmp(d->v[d->n - 1].path, path) >= 0) {
			rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "path out of order or repeated");
			break;
		}
		/* the definition: n bytes, then its newline */
		if ((uint64_t)(l.end - l.p) < n + 1 || l.p[n] != '\n') {
			rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err,
					    "the definition is not %llu bytes followed by a newline", (unsigned long long)n);
			break;
		}
		char *sql = malloc(n + 1);
		if (!sql) {
			rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
			break;
		}
		memcpy(sql, l.p, n);
		sql[n] = '\0';
		if (strlen(sql) != n) {
			free(sql);
			rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "the definition holds a NUL byte");
			break;
		}
		xb_tabledefs_put(d, path, sql);
		free(sql);
		if (d->nomem) {
			rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
			break;
		}
		/* skip the definition's lines */
		const char *after = l.p + n + 1;
		for (const char *c = l.p; c < after; c++)
			l.no += *c == '\n';
		l.p = after;
	}
	if (rc)
		xb_tabledefs_free(d);
	return rc;
}

int xb_tabledefs_read(const char *dir, xb_tabledefs *d, xb_error *err)
{
	char *buf, path[4200];
	size_t len;
	xb_tabledefs_init(d);
	int rc = xb_metafile_read_all(dir, XB_TABLEDEFS_FILE, TABLEDEFS_MAX, &buf, &len, err);
	if (rc)
		return rc;
	rc = xb_path_join(path, sizeof path, dir, XB_TABLEDEFS_FILE, err);
	if (!rc)
		rc = xb_tabledefs_parse(path, buf, len, d, err);
	free(buf);
	return rc;
}

int xb_tabledefs_write(const char *dir, xb_tabledefs *d, xb_error *err)
{
	xb_text t = {0};
	xb_tabledefs_format(d, &t);
	int rc = d->nomem ? xb_err_set(err, XB_E_INTERNAL, "out of memory") : xb_metafile_rewrite(dir, XB_TABLEDEFS_FILE, &t, err);
	xb_text_free(&t);
	return rc;
}
