/*
 * metafile.c - the plumbing the metadata file modules share (see metafile.h).
 *
 * The files are small text files: they are formatted in memory and put in
 * one piece, and read in one piece and walked line by line, so a message can
 * always name the line it is about.
 */
#include "info/metafile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/path.h"
#include "info/backup_cnf.h"
#include "info/binlog_info.h"
#include "info/checkpoints.h"
#include "info/manifest.h"
#include "info/statcache.h"
#include "info/export_pending.h"
#include "info/tabledefs.h"
#include "info/mru.h"
#include "platform/file.h"

#define READ_MAX (1u << 20) /* a metadata file larger than this is not one */

void xb_text_add(xb_text *t, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int m = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (m < 0) {
			t->nomem = true;
			return;
		}
		if (t->s && t->n + (size_t)m < t->cap) {
			t->n += (size_t)m;
			return;
		}
		size_t cap = (t->cap + (size_t)m + 256) * 2;
		char *s = realloc(t->s, cap);
		if (!s) {
			t->nomem = true;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
}

void xb_text_free(xb_text *t)
{
	free(t->s);
	memset(t, 0, sizeof *t);
}

int xb_metafile_put(xb_sink *s, const char *name, const xb_text *t, xb_error *err)
{
	if (t->nomem)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory while writing %s", name);
	return xb_sink_put(s, name, t->s ? t->s : "", t->n, err);
}

int xb_metafile_rewrite(const char *dir, const char *name, const xb_text *t, xb_error *err)
{
	char path[4096], tmp[4096];
	int rc = xb_path_join(path, sizeof path, dir, name, err);
	if (!rc)
		rc = xb_path_join3(tmp, sizeof tmp, dir, name, ".xbtmp", err);
	if (!rc && t->nomem)
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory while writing %s", path);
	int fd = rc ? -1 : xb_file_open(XB_FILE_CWD, tmp, XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_TRUNC, 0640, NULL);
	if (!rc && (fd < 0 || write(fd, t->s ? t->s : "", t->n) != (ssize_t)t->n || fsync(fd)))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", tmp, strerror(errno));
	if (fd >= 0 && close(fd) && !rc)
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", tmp, strerror(errno));
	if (!rc && xb_file_rename(XB_FILE_CWD, tmp, XB_FILE_CWD, path, true))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s: %s", tmp, strerror(errno));
	if (rc && fd >= 0)
		unlink(tmp);
	if (!rc)
		(void)xb_dir_sync(dir);
	return rc;
}

/* dir/name whole into *buf (malloc'ed, NUL-terminated), its length in *len. */
static int slurp(const char *dir, const char *name, char *path, size_t pathn, char **buf, size_t *len,
		 uint64_t max, xb_error *err)
{
	*buf = NULL;
	*len = 0;
	int rc = xb_path_join(path, pathn, dir, name, err);
	if (rc)
		return rc;
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, errno == ENOENT ? XB_E_MISSING_FILE : XB_E_IO_READ, "cannot open %s: %s", path,
				  strerror(errno));
	struct stat st;
	char *b = NULL;
	size_t n = 0, want = 0;
	if (fstat(fd, &st))
		rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path, strerror(errno));
	else if ((uint64_t)st.st_size > max)
		rc = xb_err_set(err, XB_E_IO_READ, "%s holds %llu bytes: too large for a metadata file", path,
				(unsigned long long)st.st_size);
	else if (!(b = malloc((want = (size_t)st.st_size) + 1)))
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	while (!rc && n < want) {
		ssize_t k = read(fd, b + n, want - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path, strerror(errno));
		else if (k == 0)
			break;
		else
			n += (size_t)k;
	}
	close(fd);
	if (rc) {
		free(b);
		return rc;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

bool xb_span_is(xb_span v, const char *word)
{
	return strlen(word) == v.n && !memcmp(v.s, word, v.n);
}

bool xb_span_u64(xb_span v, uint64_t *out)
{
	uint64_t x = 0;
	if (!v.n)
		return false;
	for (size_t i = 0; i < v.n; i++) {
		if (v.s[i] < '0' || v.s[i] > '9')
			return false;
		unsigned d = (unsigned)(v.s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*out = x;
	return true;
}

bool xb_span_i64(xb_span v, int64_t *out)
{
	bool neg = v.n && v.s[0] == '-';
	uint64_t x;
	if (!xb_span_u64((xb_span){v.s + neg, v.n - neg}, &x) || x > (uint64_t)INT64_MAX + neg)
		return false;
	*out = neg ? (int64_t)(0 - x) : (int64_t)x;
	return true;
}

bool xb_span_copy(xb_span v, char *out, size_t size)
{
	if (v.n >= size)
		return false;
	memcpy(out, v.s, v.n);
	out[v.n] = '\0';
	return true;
}

bool xb_lines_next(xb_lines *l, xb_span *line)
{
	if (l->p >= l->end)
		return false;
	const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	const char *stop = nl ? nl : l->end;
	line->s = l->p;
	line->n = (size_t)(stop - l->p);
	if (nl && line->n && stop[-1] == '\r')
		line->n--;
	l->p = nl ? nl + 1 : l->end;
	l->no++;
	return true;
}

static int bad_line(int code, xb_error *err, const char *name, int no, xb_span line, const char *fmt, va_list ap)
{
	char what[512], shown[64];
	vsnprintf(what, sizeof what, fmt, ap);
	size_t k = line.n < sizeof shown - 1 ? line.n : sizeof shown - 1;
	for (size_t i = 0; i < k; i++)
		shown[i] = line.s[i] >= 0x20 && line.s[i] < 0x7f ? line.s[i] : '?';
	shown[k] = '\0';
	return xb_err_set(err, code, "%s: line %d: %s, got \"%s%s\"", name, no, what, shown, line.n > k ? "..." : "");
}

int xb_lines_error(const xb_lines *l, int code, xb_span line, xb_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = bad_line(code, err, l->name, l->no, line, fmt, ap);
	va_end(ap);
	return rc;
}

int xb_metafile_bad(int code, xb_error *err, const char *name, int no, const char *text, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = bad_line(code, err, name, no, (xb_span){text, strlen(text)}, fmt, ap);
	va_end(ap);
	return rc;
}

int xb_metafile_load(const char *dir, const char *name, xb_lines_parser parse, void *value, xb_error *err)
{
	char path[4096], *buf;
	size_t len;
	int rc = slurp(dir, name, path, sizeof path, &buf, &len, READ_MAX, err);
	if (rc)
		return rc;
	xb_lines l = {path, buf, buf + len, 0};
	rc = parse(&l, value, err);
	free(buf);
	return rc;
}

int xb_metafile_read_all(const char *dir, const char *name, uint64_t max, char **buf, size_t *len, xb_error *err)
{
	char path[4096];
	return slurp(dir, name, path, sizeof path, buf, len, max, err);
}

/* What the two shaped readers pass through xb_metafile_load(). */
typedef struct shaped {
	int code;                /* error code */
	xb_kv_parser kv;         /* "key = value" lines */
	xb_fields_parser fields; /* or one line of fields */
	char sep;                /* separating them */
	size_t max;              /* at most this many */
	const char *form;        /* what the line should look like */
	void *value;             /* the module's struct */
} shaped;

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* "key = value" into its two parts. */
static bool kv_split(xb_span line, xb_span *key, xb_span *val)
{
	size_t i = 0, k, len = line.n;
	const char *s = line.s;
	while (i < len && blank(s[i]))
		i++;
	for (k = i; k < len && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '_');)
		k++;
	*key = (xb_span){s + i, k - i};
	while (k < len && blank(s[k]))
		k++;
	if (!key->n || k == len || s[k] != '=')
		return false;
	for (k++; k < len && blank(s[k]);)
		k++;
	while (len > k && blank(s[len - 1]))
		len--;
	*val = (xb_span){s + k, len - k};
	return true;
}

static int parse_kv(xb_lines *l, void *ctx, xb_error *err)
{
	const shaped *sh = ctx;
	xb_span line, key, val;
	while (xb_lines_next(l, &line)) {
		if (!line.n)
			continue;
		if (!kv_split(line, &key, &val))
			return xb_lines_error(l, sh->code, line, err, "expected \"key = value\"");
		if (!sh->kv(key, val, sh->value))
			return xb_lines_error(l, sh->code, line, err, "bad value of %.*s", (int)key.n, key.s);
	}
	return 0;
}

int xb_metafile_load_kv(const char *dir, const char *name, int code, xb_kv_parser parse, void *value, xb_error *err)
{
	shaped sh = {.code = code, .kv = parse, .value = value};
	return xb_metafile_load(dir, name, parse_kv, &sh, err);
}

static int parse_line(xb_lines *l, void *ctx, xb_error *err)
{
	const shaped *sh = ctx;
	xb_span line, more, f[8];
	if (!xb_lines_next(l, &line))
		return xb_err_set(err, XB_E_IO_READ, "%s is empty", l->name);
	xb_lines rest = *l;
	while (xb_lines_next(&rest, &more))
		if (more.n)
			return xb_lines_error(&rest, XB_E_IO_READ, more, err, "expected one line");
	size_t k = 0;
	for (xb_span r = line; k < sh->max && k < sizeof f / sizeof *f; k++) {
		const char *sep = k + 1 < sh->max ? memchr(r.s, sh->sep, r.n) : NULL;
		f[k] = (xb_span){r.s, sep ? (size_t)(sep - r.s) : r.n};
		if (!sep) {
			k++;
			break;
		}
		r = (xb_span){sep + 1, r.n - f[k].n - 1};
	}
	if (!sh->fields(f, k, sh->value))
		return xb_lines_error(l, XB_E_IO_READ, line, err, "expected %s", sh->form);
	return 0;
}

int xb_metafile_load_line(const char *dir, const char *name, char sep, size_t max, xb_fields_parser parse,
			  const char *form, void *value, xb_error *err)
{
	shaped sh = {.fields = parse, .sep = sep, .max = max, .form = form, .value = value};
	return xb_metafile_load(dir, name, parse_line, &sh, err);
}

bool xb_metafile_stays_behind(const char *name)
{
	static const char *const names[] = {XB_BACKUP_CNF_FILE,   "xtrabackup_binary", XB_BINLOG_INFO_FILE,
					    XB_CHECKPOINTS_FILE, XB_MRU_FILE,         XB_MANIFEST_FILE,
					    XB_STATCACHE_FILE,   XB_TABLEDEFS_FILE,   XB_EXPORT_PENDING_FILE, NULL};
	for (int i = 0; names[i]; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

int xb_metafile_remove(const char *dir, const char *name, bool durable, xb_error *err)
{
	char path[4200];
	int rc = xb_path_join(path, sizeof path, dir, name, err);
	if (rc)
		return rc;
	if (unlink(path) && errno != ENOENT)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot remove %s: %s", path, strerror(errno));
	if (durable && xb_dir_sync(dir))
		return xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", dir, strerror(errno));
	return 0;
}
