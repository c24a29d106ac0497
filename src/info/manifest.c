/*
 * manifest.c - writing and reading the backup manifest (see manifest.h,
 * doc/backup-directory.md §13).
 *
 * Entries are kept in an array; xb_manifest_put() appends (in constant time,
 * from the copy threads), and the array is sorted once before it is written
 * or searched, the sort keeping the last put of a path written again. The reader
 * checks every field and the trailer, so a cut or edited file is refused
 * with the line that is wrong.
 */
#include "info/manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/path.h"

#define MANIFEST_MAX (1ull << 30) /* a manifest larger than this is not one */

#define N_STATES 4
static const char *const state_names[N_STATES] = {"backup", "preparing", "prepared", "moving"};

const char *xb_manifest_state_name(xb_manifest_state s)
{
	return (unsigned)s < N_STATES ? state_names[s] : "?";
}

void xb_manifest_init(xb_manifest *m)
{
	memset(m, 0, sizeof *m);
}

void xb_manifest_free(xb_manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	xb_manifest_init(m);
}

void xb_manifest_put(xb_manifest *m, const char *path, uint64_t size, uint32_t crc, uint32_t space_id,
		     uint64_t pages)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 256;
		xb_manifest_entry *nv = realloc(m->v, nc * sizeof *nv);
		if (!nv) {
			m->nomem = true;
			return;
		}
		m->v = nv;
		m->cap = nc;
	}
	char *p = strdup(path);
	if (!p) {
		m->nomem = true;
		return;
	}
	xb_manifest_entry *e = &m->v[m->n];
	e->path = p;
	e->foreign = false;
	e->by_pages = false;
	e->size = size;
	e->crc = crc;
	e->space_id = space_id;
	e->pages = space_id == XB_MANIFEST_NO_SPACE ? 0 : pages;
	e->seq = m->n++;
}

void xb_manifest_put_pages(xb_manifest *m, const char *path, uint64_t size, uint32_t space_id, uint64_t pages)
{
	size_t before = m->n;
	xb_manifest_put(m, path, size, 0, space_id, pages);
	if (m->n > before)
		m->v[before].by_pages = true;
}

void xb_manifest_put_foreign(xb_manifest *m, const char *name)
{
	size_t before = m->n;
	xb_manifest_put(m, name, 0, 0, XB_MANIFEST_NO_SPACE, 0);
	if (m->n > before)
		m->v[before].foreign = true;
}

bool xb_manifest_note_foreign(xb_manifest *m, size_t ours, const char *name)
{
	xb_manifest own = *m; /* a view of the backup's own entries */
	own.n = ours;
	if (!strcmp(name, XB_MANIFEST_FILE) || xb_manifest_find(&own, name))
		return false;
	size_t len = strlen(name);
	for (size_t i = 0; i < ours; i++) /* a directory the backup wrote into */
		if (!strncmp(m->v[i].path, name, len) && m->v[i].path[len] == '/')
			return false;
	size_t before = m->n;
	xb_manifest_put_foreign(m, name);
	return m->n > before;
}

bool xb_manifest_is_foreign(const xb_manifest *m, const char *rel)
{
	const char *slash = strchr(rel, '/');
	char top[4096];
	size_t n = slash ? (size_t)(slash - rel) : strlen(rel);
	if (n >= sizeof top)
		return false;
	memcpy(top, rel, n);
	top[n] = '\0';
	const xb_manifest_entry *e = xb_manifest_find(m, top);
	return e && e->foreign;
}

void xb_manifest_remove(xb_manifest *m, const char *path)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].path, path)) {
			free(m->v[i].path);
			memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof *m->v);
			m->n--;
			return;
		}
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const xb_manifest_entry *)a)->path, ((const xb_manifest_entry *)b)->path);
}

static int by_path_seq(const void *a, const void *b)
{
	const xb_manifest_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

void xb_manifest_sort(xb_manifest *m)
{
	if (m->n < 2)
		return;
	qsort(m->v, m->n, sizeof *m->v, by_path_seq);
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (k && !strcmp(m->v[k - 1].path, m->v[i].path)) {
			free(m->v[k - 1].path);
			m->v[k - 1] = m->v[i]; /* the later put of the same path */
		} else {
			m->v[k++] = m->v[i];
		}
	}
	m->n = k;
	for (size_t i = 0; i < m->n; i++)
		m->v[i].seq = i;
}

xb_manifest_entry *xb_manifest_find(const xb_manifest *m, const char *path)
{
	xb_manifest_entry key = {.path = (char *)path};
	return m->n ? bsearch(&key, m->v, m->n, sizeof *m->v, by_path) : NULL;
}

void xb_manifest_format(xb_manifest *m, xb_text *t)
{
	xb_manifest_sort(m);
	if (m->nomem)
		t->nomem = true;
	if (m->to_lsn)
		xb_text_add(t, "xtrabackup-manifest %d %s to_lsn=%llu\n", XB_MANIFEST_VERSION,
			    xb_manifest_state_name(m->state), (unsigned long long)m->to_lsn);
	else
		xb_text_add(t, "xtrabackup-manifest %d %s\n", XB_MANIFEST_VERSION, xb_manifest_state_name(m->state));
	for (size_t i = 0; i < m->n; i++) {
		const xb_manifest_entry *e = &m->v[i];
		if (e->foreign)
			xb_text_add(t, "-------- - - - %s\n", e->path);
		else if (e->by_pages)
			xb_text_add(t, "pages %llu %u %llu %s\n", (unsigned long long)e->size, e->space_id,
				    (unsigned long long)e->pages, e->path);
		else if (e->space_id == XB_MANIFEST_NO_SPACE)
			xb_text_add(t, "%08x %llu - - %s\n", e->crc, (unsigned long long)e->size, e->path);
		else
			xb_text_add(t, "%08x %llu %u %llu %s\n", e->crc, (unsigned long long)e->size, e->space_id,
				    (unsigned long long)e->pages, e->path);
	}
	xb_text_add(t, "end %zu\n", m->n);
}

/* The next blank-separated field of line from *pos (the last one: the rest). */
static bool field(xb_span line, size_t *pos, bool rest, xb_span *out)
{
	size_t i = *pos;
	if (i >= line.n || line.s[i] == ' ')
		return false;
	size_t j = i;
	if (rest)
		j = line.n;
	else
		while (j < line.n && line.s[j] != ' ')
			j++;
	*out = (xb_span){line.s + i, j - i};
	*pos = j < line.n ? j + 1 : j;
	return rest || j < line.n;
}

static bool hex32(xb_span v, uint32_t *out)
{
	if (v.n != 8)
		return false;
	uint32_t x = 0;
	for (size_t i = 0; i < 8; i++) {
		char c = v.s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		x = x << 4 | (uint32_t)d;
	}
	*out = x;
	return true;
}

/* A relative path of a backup: no leading '/', no empty, "." or ".."
 * component, no control character. */
static bool good_path(xb_span v)
{
	if (!v.n || v.s[0] == '/' || v.s[v.n - 1] == '/')
		return false;
	size_t start = 0;
	for (size_t i = 0; i <= v.n; i++) {
		if (i < v.n && (unsigned char)v.s[i] < 0x20)
			return false;
		if (i == v.n || v.s[i] == '/') {
			size_t k = i - start;
			if (!k || (k == 1 && v.s[start] == '.') || (k == 2 && v.s[start] == '.' && v.s[start + 1] == '.'))
				return false;
			start = i + 1;
		}
	}
	return true;
}

static int parse_entry(xb_lines *l, xb_span line, xb_manifest *m, xb_error *err)
{
	size_t pos = 0;
	xb_span f[5];
	uint32_t crc, space = XB_MANIFEST_NO_SPACE;
	uint64_t size, pages = 0, sp;
	for (int i = 0; i < 5; i++)
		if (!field(line, &pos, i == 4, &f[i]))
			return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err,
					      "expected \"CRC32C SIZE SPACE_ID PAGES PATH\"");
	bool foreign = xb_span_is(f[0], "--------");
	if (foreign && !(xb_span_is(f[1], "-") && xb_span_is(f[2], "-") && xb_span_is(f[3], "-")))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "a foreign entry is \"-------- - - - NAME\"");
	if (foreign && memchr(f[4].s, '/', f[4].n))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "a foreign entry names a top-level entry");
	bool by_pages = xb_span_is(f[0], "pages");
	if (by_pages && xb_span_is(f[2], "-"))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "\"pages\" is for a tablespace (with a space id)");
	if (foreign || by_pages)
		crc = 0, size = 0;
	else if (!hex32(f[0], &crc))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "bad checksum (8 hex digits or \"pages\")");
	if (!foreign && !xb_span_u64(f[1], &size))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "bad size");
	if (xb_span_is(f[2], "-") != xb_span_is(f[3], "-"))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "space id and page count: both or neither");
	if (!xb_span_is(f[2], "-")) {
		if (!xb_span_u64(f[2], &sp) || sp >= XB_MANIFEST_NO_SPACE)
			return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "bad space id");
		if (!xb_span_u64(f[3], &pages))
			return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "bad page count");
		space = (uint32_t)sp;
	}
	if (!good_path(f[4]))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "bad path");
	char path[4096];
	if (!xb_span_copy(f[4], path, sizeof path))
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "path too long");
	if (m->n && strcmp(m->v[m->n - 1].path, path) >= 0)
		return xb_lines_error(l, XB_E_BACKUP_DAMAGED, line, err, "path out of order or repeated");
	size_t before = m->n;
	if (foreign)
		xb_manifest_put_foreign(m, path);
	else if (by_pages)
		xb_manifest_put_pages(m, path, size, space, pages);
	else
		xb_manifest_put(m, path, size, crc, space, pages);
	if (m->nomem || m->n == before)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	return 0;
}

int xb_manifest_parse(const char *name, const char *text, size_t len, xb_manifest *m, xb_error *err)
{
	xb_manifest_init(m);
	xb_lines l = {name, text, text + len, 0};
	xb_span line;
	int rc = 0;
	if (!xb_lines_next(&l, &line))
		return xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s is empty", name);
	char head[96];
	int ver = 0;
	bool ok = xb_span_copy(line, head, sizeof head);
	size_t hl = strlen("xtrabackup-manifest ");
	ok = ok && !strncmp(head, "xtrabackup-manifest ", hl) && head[hl] >= '1' && head[hl] <= '9' &&
	     head[hl + 1] == ' ';
	if (ok) {
		ver = head[hl] - '0';
		ok = false;
		char *lsn = strstr(head + hl + 2, " to_lsn=");
		bool lsn_ok = true;
		if (lsn) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(lsn + 8, &end, 10);
			lsn_ok = !errno && end != lsn + 8 && !*end && v && lsn[8] >= '0' && lsn[8] <= '9';
			*lsn = 0;
			m->to_lsn = lsn_ok ? v : 0;
		}
		for (int s = 0; s < N_STATES && ver == XB_MANIFEST_VERSION && lsn_ok; s++)
			if (!strcmp(head + hl + 2, state_names[s])) {
				m->state = (xb_manifest_state)s;
				ok = true;
			}
	}
	if (!ok)
		return xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "expected \"xtrabackup-manifest %d STATE [to_lsn=N]\"",
				      XB_MANIFEST_VERSION);
	for (;;) {
		if (!xb_lines_next(&l, &line)) {
			rc = xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s: cut short after line %d (no \"end\" line)", name,
					l.no);
			break;
		}
		if (line.n >= 4 && !memcmp(line.s, "end ", 4)) {
			uint64_t count;
			if (!xb_span_u64((xb_span){line.s + 4, line.n - 4}, &count) || count != m->n) {
				rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "expected \"end %zu\"", m->n);
				break;
			}
			if (xb_lines_next(&l, &line))
				rc = xb_lines_error(&l, XB_E_BACKUP_DAMAGED, line, err, "text after the \"end\" line");
			break;
		}
		if ((rc = parse_entry(&l, line, m, err)))
			break;
	}
	if (rc)
		xb_manifest_free(m);
	return rc;
}

int xb_manifest_read(const char *dir, xb_manifest *m, xb_error *err)
{
	char *buf, path[4200];
	size_t len;
	xb_manifest_init(m);
	int rc = xb_metafile_read_all(dir, XB_MANIFEST_FILE, MANIFEST_MAX, &buf, &len, err);
	if (rc)
		return rc;
	rc = xb_path_join(path, sizeof path, dir, XB_MANIFEST_FILE, err);
	if (!rc)
		rc = xb_manifest_parse(path, buf, len, m, err);
	free(buf);
	return rc;
}

int xb_manifest_rewrite(const char *dir, xb_manifest *m, xb_error *err)
{
	xb_text t = {0};
	xb_manifest_format(m, &t);
	int rc = xb_metafile_rewrite(dir, XB_MANIFEST_FILE, &t, err);
	xb_text_free(&t);
	return rc;
}
