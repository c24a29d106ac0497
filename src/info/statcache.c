/*
 * statcache.c - writing and reading the stat cache (see statcache.h,
 * doc/backup-directory.md §18).
 *
 * Entries are appended, then sorted once by path (the last put of a path
 * kept) before they are written or searched, as the manifest's are. The
 * reader checks every field and the trailer: a cache that is not whole is
 * not used at all.
 */
#include "info/statcache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/path.h"
#include "info/metafile.h"

#define STATCACHE_MAX (1ull << 30)
#define STATCACHE_HEAD "xtrabackup-statcache 1"

void xb_statcache_init(xb_statcache *c)
{
	memset(c, 0, sizeof *c);
}

void xb_statcache_free(xb_statcache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	xb_statcache_init(c);
}

void xb_statcache_put(xb_statcache *c, const char *path, const xb_file_stamp *st, uint32_t crc, bool pages)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 256;
		xb_statcache_entry *nv = realloc(c->v, nc * sizeof *nv);
		if (!nv) {
			c->nomem = true;
			return;
		}
		c->v = nv;
		c->cap = nc;
	}
	char *p = strdup(path);
	if (!p) {
		c->nomem = true;
		return;
	}
	c->v[c->n] = (xb_statcache_entry){.path = p, .st = *st, .crc = pages ? 0 : crc, .pages = pages, .seq = c->n};
	c->n++;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const xb_statcache_entry *)a)->path, ((const xb_statcache_entry *)b)->path);
}

/* By path, then by the order of the puts. */
static int by_path_seq(const void *a, const void *b)
{
	const xb_statcache_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

void xb_statcache_sort(xb_statcache *c)
{
	if (c->n < 2)
		return;
	qsort(c->v, c->n, sizeof *c->v, by_path_seq);
	size_t out = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (i + 1 < c->n && !strcmp(c->v[i].path, c->v[i + 1].path)) {
			free(c->v[i].path); /* a later put of the same path follows */
			continue;
		}
		c->v[out++] = c->v[i];
	}
	c->n = out;
}

const xb_statcache_entry *xb_statcache_find(const xb_statcache *c, const char *path)
{
	xb_statcache_entry key = {.path = (char *)path};
	return c->n ? bsearch(&key, c->v, c->n, sizeof *c->v, by_path) : NULL;
}

static bool hex32(xb_span v, uint32_t *out)
{
	if (v.n != 8)
		return false;
	uint32_t x = 0;
	for (size_t i = 0; i < 8; i++) {
		char ch = v.s[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
		if (d < 0)
			return false;
		x = x << 4 | (uint32_t)d;
	}
	*out = x;
	return true;
}

/* The next blank-separated field from *pos (rest: the rest of the line). */
static bool field(xb_span line, size_t *pos, bool rest, xb_span *out)
{
	size_t i = *pos, j;
	if (i >= line.n || line.s[i] == ' ')
		return false;
	for (j = i; !rest && j < line.n && line.s[j] != ' ';)
		j++;
	if (rest)
		j = line.n;
	*out = (xb_span){line.s + i, j - i};
	*pos = j < line.n ? j + 1 : j;
	return rest || j < line.n;
}

static int parse_entry(xb_lines *l, xb_span line, xb_statcache *c, xb_error *err)
{
	xb_span f[7];
	size_t pos = 0;
	for (int i = 0; i < 7; i++)
		if (!field(line, &pos, i == 6, &f[i]))
			return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err,
					      "expected \"CHECK DEV INO SIZE MTIME_NS CTIME_NS PATH\"");
	uint32_t crc = 0;
	bool pages = xb_span_is(f[0], "pages");
	if (!pages && !hex32(f[0], &crc))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "bad check (8 hex digits or \"pages\")");
	uint64_t dev, ino, size;
	int64_t mt, ct;
	if (!xb_span_u64(f[1], &dev) || !xb_span_u64(f[2], &ino) || !xb_span_u64(f[3], &size) ||
	    !xb_span_i64(f[4], &mt) || !xb_span_i64(f[5], &ct))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "bad number");
	char path[4096];
	if (!xb_span_copy(f[6], path, sizeof path) || path[0] == '/')
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "bad path");
	if (c->n && strcmp(c->v[c->n - 1].path, path) >= 0)
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "path out of order or repeated");
	xb_file_stamp st = {.dev = dev, .ino = ino, .size = size, .mtime_ns = mt, .ctime_ns = ct};
	xb_statcache_put(c, path, &st, crc, pages);
	if (c->nomem)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	return 0;
}

int xb_statcache_parse(const char *name, const char *text, size_t len, xb_statcache *c, xb_error *err)
{
	xb_statcache_init(c);
	xb_lines l = {name, text, text + len, 0};
	xb_span line;
	if (!xb_lines_next(&l, &line))
		return xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s is empty", name);
	if (!xb_span_is(line, STATCACHE_HEAD))
		return xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "expected \"%s\"", STATCACHE_HEAD);
	int rc = 0;
	for (;;) {
		if (!xb_lines_next(&l, &line)) {
			rc = xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s: cut short after line %d (no \"end\" line)", name,
					l.no);
			break;
		}
		if (line.n >= 4 && !memcmp(line.s, "end ", 4)) {
			uint64_t count;
			if (!xb_span_u64((xb_span){line.s + 4, line.n - 4}, &count) || count != c->n)
				rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "expected \"end %zu\"", c->n);
			else if (xb_lines_next(&l, &line))
				rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "text after the \"end\" line");
			break;
		}
		if ((rc = parse_entry(&l, line, c, err)))
			break;
	}
	if (rc)
		xb_statcache_free(c);
	return rc;
}

int xb_statcache_read(const char *dir, xb_statcache *c, xb_error *err)
{
	char *buf, path[4200];
	size_t len;
	xb_statcache_init(c);
	int rc = xb_metafile_read_all(dir, XB_STATCACHE_FILE, STATCACHE_MAX, &buf, &len, err);
	if (rc)
		return rc;
	rc = xb_path_join(path, sizeof path, dir, XB_STATCACHE_FILE, err);
	if (!rc)
		rc = xb_statcache_parse(path, buf, len, c, err);
	free(buf);
	return rc;
}

int xb_statcache_write(const char *dir, xb_statcache *c, xb_error *err)
{
	xb_statcache_sort(c);
	xb_text t = {0};
	xb_text_add(&t, "%s\n", STATCACHE_HEAD);
	for (size_t i = 0; i < c->n; i++) {
		const xb_statcache_entry *e = &c->v[i];
		char check[12];
		if (e->pages)
			snprintf(check, sizeof check, "pages");
		else
			snprintf(check, sizeof check, "%08x", e->crc);
		xb_text_add(&t, "%s %llu %llu %llu %lld %lld %s\n", check, e->st.dev, e->st.ino, e->st.size,
			    e->st.mtime_ns, e->st.ctime_ns, e->path);
	}
	xb_text_add(&t, "end %zu\n", c->n);
	int rc = xb_metafile_rewrite(dir, XB_STATCACHE_FILE, &t, err);
	xb_text_free(&t);
	return rc;
}

int xb_statcache_remove(const char *dir, xb_error *err)
{
	return xb_metafile_remove(dir, XB_STATCACHE_FILE, false, err);
}
