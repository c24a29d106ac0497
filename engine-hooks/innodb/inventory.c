/*
 * inventory.c - the InnoDB files of a server or of a backup (see inventory.h).
 *
 * innodb_data_file_path is parsed once, by hand, part by part: the name up
 * to the first ':', a size (digits, then K, M or G, or bytes without a
 * unit), optionally "newraw" or "raw", ":autoextend" and ":max:" with a
 * second size. The scans list directories with xb_dir_each(), in the order
 * the file system returns their entries, and read the first 64 KiB of each
 * tablespace file (page 0 sits at offset 0 whatever the page size) for
 * innodb_page0_parse(), once the directories are listed, on several workers
 * of the parallel executor. The two scans differ where a live server and a
 * finished backup differ: a server's files may vanish or be half-created
 * while it is scanned (such a file is passed over or left unidentified),
 * a backup's must all be readable.
 */
#include "innodb/inventory.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/parallel.h"
#include "common/path.h"
#include "platform/dir.h"

#define PAGE0_READ 65536u
#define BACKUP_PROBE_THREADS 8 /* page-0 reads at once in a backup directory (waiting on the disk, not the CPU) */

#define TABLE_END ".ibd"    /* a table's tablespace file */
#define LINK_END ".isl"     /* a DATA DIRECTORY table's link file */
#define REDO_NAME INV_REDO_NAME
#define UNDO_PREFIX "undo"

#define READ_HINT "run the backup as a user that can read the server's datadir (e.g. mysql or root)"

/* ---- innodb_data_file_path */

static int bad_spec(xb_error *err, const char *spec, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad_spec(xb_error *err, const char *spec, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return xb_err_set(err, XB_E_CONFIG, "cannot parse innodb_data_file_path '%s': %s", spec, why);
}

/* Digits and an optional K, M or G at *p; *p moves past them. */
static bool read_size(const char **p, uint64_t *bytes)
{
	const char *s = *p;
	uint64_t v = 0;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	uint64_t unit = 1;
	switch (*s) {
	case 'K': case 'k': unit = 1ull << 10; s++; break;
	case 'M': case 'm': unit = 1ull << 20; s++; break;
	case 'G': case 'g': unit = 1ull << 30; s++; break;
	default: break;
	}
	if (v > UINT64_MAX / unit)
		return false;
	*bytes = v * unit;
	*p = s;
	return true;
}

/* One part (no ';'), NUL-terminated in t. */
static int parse_part(const char *spec, char *t, inv_sys_part *p, xb_error *err)
{
	char *colon = strchr(t, ':');
	if (!colon)
		return bad_spec(err, spec, "'%s' has no size", t);
	if (colon == t)
		return bad_spec(err, spec, "a file has no name ('%s')", t);
	const char *s = colon + 1;
	if (!read_size(&s, &p->size))
		return bad_spec(err, spec, "'%.*s' has no valid size ('%s')", (int)(colon - t), t, colon + 1);
	if (!strncasecmp(s, "newraw", 6))
		s += 6, p->raw = true;
	else if (!strncasecmp(s, "raw", 3))
		s += 3, p->raw = true;
	if (!strncasecmp(s, ":autoextend", 11)) {
		s += 11;
		p->autoextend = true;
		if (!strncasecmp(s, ":max:", 5)) {
			s += 5;
			if (!read_size(&s, &p->max))
				return bad_spec(err, spec, "'%.*s' has no valid maximum size", (int)(colon - t), t);
		}
	}
	if (*s)
		return bad_spec(err, spec, "'%.*s' is followed by '%s', not a size or :autoextend[:max:size]",
				(int)(colon - t), t, s);
	if (!p->size)
		return bad_spec(err, spec, "'%.*s' has a size of 0", (int)(colon - t), t);
	p->name = strndup(t, (size_t)(colon - t));
	p->opts = strdup(colon);
	if (!p->name || !p->opts)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	return 0;
}

int inv_dfp_parse(const char *spec, uint32_t page_size, inv_dfp *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	if (!spec || !*spec)
		spec = INV_DATA_FILE_PATH_DEFAULT;
	if (!page_size)
		page_size = 16384;
	char *copy = strdup(spec);
	if (!copy)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	int rc = 0;
	uint64_t page = 0;
	for (char *t = copy, *end; !rc && t; t = end ? end + 1 : NULL) {
		end = strchr(t, ';');
		if (end)
			*end = '\0';
		if (!*t)
			continue;
		inv_sys_part *v = realloc(out->part, (size_t)(out->n + 1) * sizeof *v);
		if (!v) {
			rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
			break;
		}
		out->part = v;
		inv_sys_part *p = &v[out->n++];
		memset(p, 0, sizeof *p);
		rc = parse_part(spec, t, p, err);
		p->first_page = page;
		page += p->size / page_size;
	}
	for (int i = 0; !rc && i + 1 < out->n; i++)
		if (out->part[i].autoextend)
			rc = bad_spec(err, spec, "only the last file may autoextend, not '%s'", out->part[i].name);
	if (!rc && !out->n)
		rc = bad_spec(err, spec, "no file");
	free(copy);
	if (rc)
		inv_dfp_free(out);
	return rc;
}

void inv_dfp_free(inv_dfp *d)
{
	for (int i = 0; i < d->n; i++) {
		free(d->part[i].name);
		free(d->part[i].opts);
	}
	free(d->part);
	memset(d, 0, sizeof *d);
}

int inv_dfp_for_backup(const char *spec, char *out, size_t n, xb_error *err)
{
	inv_dfp d;
	int rc = inv_dfp_parse(spec, 0, &d, err);
	size_t l = 0;
	if (n)
		out[0] = '\0';
	for (int i = 0; !rc && i < d.n; i++) {
		int k = snprintf(out + l, n - l, "%s%s%s", i ? ";" : "", xb_path_base(d.part[i].name), d.part[i].opts);
		if (k < 0 || (size_t)k >= n - l)
			rc = xb_err_set(err, XB_E_CONFIG, "innodb_data_file_path is too long: %s", spec);
		else
			l += (size_t)k;
	}
	inv_dfp_free(&d);
	return rc;
}

/* ---- names */

static bool has_end(const char *name, const char *end)
{
	return xb_path_has_suffix(name, end);
}

bool inv_is_undo_name(const char *name)
{
	size_t l = strlen(UNDO_PREFIX);
	return !strncmp(name, UNDO_PREFIX, l) && strlen(name) == l + 3 && strspn(name + l, "0123456789") == 3;
}

bool inv_is_innodb_name(const char *name)
{
	static const char sys[] = "ibdata";
	size_t l = sizeof sys - 1;
	bool system = !strncmp(name, sys, l) && name[l] && strspn(name + l, "0123456789") == strlen(name + l);
	return system || inv_is_redo_name(name) || inv_is_undo_name(name) || inv_is_table_file(name);
}

bool inv_is_table_file(const char *name)
{
	return has_end(name, TABLE_END);
}

bool inv_is_link_file(const char *name)
{
	return has_end(name, LINK_END);
}

bool inv_is_database_name(const char *name)
{
	return name[0] != '.' && name[0] != '#' && strcmp(name, "lost+found");
}

bool inv_is_redo_name(const char *name)
{
	return !strcmp(name, REDO_NAME);
}

/* dir "/" name with its first keep bytes and then end (dir NULL: without it). */
static int spell(char *out, size_t n, const char *dir, const char *name, size_t keep, const char *end, xb_error *err)
{
	char buf[PATH_MAX];
	int k = snprintf(buf, sizeof buf, "%.*s%s", (int)keep, name, end);
	if (k < 0 || (size_t)k >= sizeof buf)
		return xb_err_set(err, XB_E_USAGE, "path too long: %s%s", name, end);
	if (dir)
		return xb_path_join(out, n, dir, buf, err);
	if ((size_t)k >= n) {
		if (n)
			out[0] = '\0';
		return xb_err_set(err, XB_E_USAGE, "path too long: %s", buf);
	}
	memcpy(out, buf, (size_t)k + 1);
	return 0;
}

/* Length of name without its ending (from the last '.' of its last component). */
static size_t stem(const char *name)
{
	const char *base = xb_path_base(name), *dot = strrchr(base, '.');
	return dot ? (size_t)(dot - name) : strlen(name);
}

int inv_table_file(char *out, size_t n, const char *dir, const char *table, xb_error *err)
{
	return spell(out, n, dir, table, strlen(table), TABLE_END, err);
}

int inv_table_file_of(char *out, size_t n, const char *dir, const char *name, xb_error *err)
{
	return spell(out, n, dir, name, stem(name), TABLE_END, err);
}

int inv_link_file_of(char *out, size_t n, const char *dir, const char *ibd, xb_error *err)
{
	size_t l = strlen(ibd);
	return spell(out, n, dir, ibd, inv_is_table_file(ibd) ? l - strlen(TABLE_END) : l, LINK_END, err);
}

int inv_marker_name(char *out, size_t n, const char *dir, const char *ibd, const char *ending, xb_error *err)
{
	size_t l = strlen(ibd);
	return spell(out, n, dir, ibd, inv_is_table_file(ibd) ? l - strlen(TABLE_END) : l, ending, err);
}

int inv_redo_file(char *out, size_t n, const char *dir, xb_error *err)
{
	return xb_path_join(out, n, dir, REDO_NAME, err);
}

/* ---- reading */

/* Size of path and page 0 into f: 0 identified, 1 not (no valid page 0),
 * else XB_E_IO_READ. */
static int probe(const char *path, inv_file *f, xb_error *err)
{
	f->identified = false;
	memset(&f->info, 0, sizeof f->info);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	struct stat st;
	uint8_t buf[PAGE0_READ]; /* on the stack: a scan reads page 0 of thousands of tables */
	ssize_t n = fstat(fd, &st) == 0 ? pread(fd, buf, PAGE0_READ, 0) : -1;
	int saved = errno;
	close(fd);
	if (n < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path, strerror(saved));
	f->size = (uint64_t)st.st_size;
	f->dev = (uint64_t)st.st_dev;
	f->ino = (uint64_t)st.st_ino;
	int rc = innodb_page0_parse(buf, (size_t)n, &f->info, NULL);
	if (rc) {
		memset(&f->info, 0, sizeof f->info);
		return 1;
	}
	f->identified = true;
	f->space_id = f->info.space_id;
	f->fs_block = st.st_blksize >= 512 && st.st_blksize <= 65536 ? (uint32_t)st.st_blksize : 4096;
	return 0;
}

int inv_read_page0(const char *path, innodb_space_info *info, xb_error *err)
{
	inv_file f;
	memset(&f, 0, sizeof f);
	int rc = probe(path, &f, err);
	if (!rc)
		*info = f.info;
	return rc;
}

/* xb_dir_each: a system tablespace file name other than ibdata1 ("ibdata" and digits) ends the walk. */
static int other_ibdata(void *ctx, const xb_dirent *e, xb_error *err)
{
	const char *n = e->name;
	if (!e->is_file || strncmp(n, "ibdata", 6) || !n[6] || strspn(n + 6, "0123456789") != strlen(n + 6) ||
	    !strcmp(n, "ibdata1"))
		return 0;
	snprintf(ctx, 256, "%s", n);
	return 1;
}

int inv_backup_check_defaults(const char *dir, bool page_size, bool data_file_path, xb_error *err)
{
	char path[PATH_MAX];
	int rc = xb_path_join(path, sizeof path, dir, "ibdata1", err);
	if (rc)
		return rc;
	inv_file f;
	memset(&f, 0, sizeof f);
	if (access(path, F_OK) && errno == ENOENT)
		return data_file_path ? xb_err_set(err, XB_E_CONFIG,
						   "%s is not there, the one file of the default system tablespace (%s): "
						   "innodb_data_file_path is needed",
						   path, INV_DATA_FILE_PATH_DEFAULT)
				      : 0;
	rc = probe(path, &f, err);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (page_size && f.info.logical_size != 16384)
		return xb_err_set(err, XB_E_CONFIG,
				  "%s has %u-byte pages, not the default 16384: innodb_page_size=%uk is needed", path,
				  f.info.logical_size, f.info.logical_size / 1024);
	if (!data_file_path)
		return 0;
	uint64_t pages = f.info.physical_size ? f.size / f.info.physical_size : 0;
	if (f.size < (12u << 20))
		return xb_err_set(err, XB_E_CONFIG,
				  "%s is %llu bytes, less than the 12 MiB of the default %s: innodb_data_file_path is "
				  "needed",
				  path, (unsigned long long)f.size, INV_DATA_FILE_PATH_DEFAULT);
	if (f.info.fsp_size > pages)
		return xb_err_set(err, XB_E_CONFIG,
				  "%s holds %llu pages of a system tablespace of %u (its page 0): the tablespace spans more "
				  "files than the default %s; innodb_data_file_path is needed",
				  path, (unsigned long long)pages, f.info.fsp_size, INV_DATA_FILE_PATH_DEFAULT);
	char other[256] = "";
	rc = xb_dir_each(dir, 0, other_ibdata, other, err);
	if (rc < 0 || rc > 1)
		return rc;
	if (rc == 1)
		return xb_err_set(err, XB_E_CONFIG,
				  "%s/%s is there: the system tablespace spans more files than the default %s; "
				  "innodb_data_file_path is needed",
				  dir, other, INV_DATA_FILE_PATH_DEFAULT);
	return 0;
}

int inv_link_read(const char *link_path, char *out, size_t n, xb_error *err)
{
	FILE *f = fopen(link_path, "r");
	if (!f)
		return xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", link_path, strerror(errno));
	size_t k = n ? fread(out, 1, n - 1, f) : 0;
	fclose(f);
	if (!n)
		return 0;
	out[k] = '\0';
	k = strcspn(out, "\r\n");
	out[k] = '\0';
	while (k && out[k - 1] == ' ')
		out[--k] = '\0';
	return 0;
}

int inv_link_target(const char *link_path, char *out, size_t n, xb_error *err)
{
	char buf[PATH_MAX];
	int rc = inv_link_read(link_path, buf, sizeof buf, err);
	if (rc)
		return rc;
	if (buf[0] != '/') {
		xb_err_set(err, XB_E_TARGET, "%s does not hold an absolute path (\"%s\")", link_path, buf);
		return xb_err_hint(err, "a " LINK_END " file names where a DATA DIRECTORY tablespace lives; fix or remove it");
	}
	return xb_path_resolve(out, n, "/", buf, err);
}

/* ---- the list */

static inv_file *add(inventory *inv, inv_kind kind, const char *path, const char *rel, xb_error *err)
{
	if (inv->n == inv->cap) {
		size_t cap = inv->cap ? inv->cap * 2 : 64;
		inv_file *v = realloc(inv->v, cap * sizeof *v);
		if (!v)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory"), NULL;
		inv->v = v;
		inv->cap = cap;
	}
	inv_file *f = &inv->v[inv->n];
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->space_id = kind == INV_SYSTEM ? 0 : UINT32_MAX;
	f->path = strdup(path);
	f->rel = strdup(rel);
	if (!f->path || !f->rel) {
		free(f->path);
		free(f->rel);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory"), NULL;
	}
	inv->n++;
	return f;
}

void inv_free(inventory *inv)
{
	for (size_t i = 0; i < inv->n; i++) {
		free(inv->v[i].path);
		free(inv->v[i].rel);
	}
	free(inv->v);
	memset(inv, 0, sizeof *inv);
}

const inv_file *inv_system_first(const inventory *inv)
{
	for (size_t i = 0; i < inv->n; i++)
		if (inv->v[i].kind == INV_SYSTEM && inv->v[i].part == 0)
			return &inv->v[i];
	return NULL;
}

static uint64_t size_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

static int add_redo(inventory *inv, const char *dir, xb_error *err)
{
	char path[PATH_MAX];
	struct stat st;
	if (inv_redo_file(path, sizeof path, dir, NULL) || stat(path, &st))
		return 0;
	inv_file *f = add(inv, INV_REDO, path, REDO_NAME, err);
	if (!f)
		return err ? err->code : XB_E_INTERNAL;
	f->size = (uint64_t)st.st_size;
	return 0;
}

/* A directory listing whose failure to open is said the way the caller
 * words it: "<what> DIR: reason", with code (and hint). */
typedef struct listing {
	int (*fn)(void *ctx, const xb_dirent *e, xb_error *err); /* the caller's function */
	void *ctx;           /* its context */
	bool entered;        /* fn was called: the directory could be opened */
} listing;

static int listing_entry(void *ctx, const xb_dirent *e, xb_error *err)
{
	listing *l = ctx;
	l->entered = true;
	return l->fn(l->ctx, e, err);
}

static int list(const char *dir, int flags, int (*fn)(void *, const xb_dirent *, xb_error *), void *ctx,
		int code, const char *what, const char *hint, xb_error *err)
{
	listing l = {.fn = fn, .ctx = ctx};
	int rc = xb_dir_each(dir, flags, listing_entry, &l, err);
	if (!rc || l.entered || rc != XB_E_IO_READ || !err)
		return rc;
	/* xb_dir_each says "cannot open DIR: reason" */
	char head[PATH_MAX + 16], reason[256];
	int k = snprintf(head, sizeof head, "cannot open %s: ", dir);
	if (k <= 0 || (size_t)k >= sizeof head || strncmp(err->msg, head, (size_t)k))
		return rc;
	snprintf(reason, sizeof reason, "%s", err->msg + k);
	rc = xb_err_set(err, code, "%s %s: %s", what, dir, reason);
	return hint ? xb_err_hint(err, "%s", hint) : rc;
}

/* ---- a live server */

typedef struct server_scan {
	inventory *inv;      /* the result */
	const inv_server *srv; /* the server, and its skip() */
	const char *db;      /* the database directory being listed */
	size_t db_first;     /* its first file in inv */
	bool links;          /* a link file of it is in inv: look for a second file of a table */
} server_scan;

static int server_system(const inv_server *srv, inventory *inv, xb_error *err)
{
	inv_dfp d;
	int rc = inv_dfp_parse(srv->data_file_path, srv->page_size, &d, err);
	if (rc)
		return rc;
	uint32_t page_size = srv->page_size ? srv->page_size : 16384;
	inv->page_size = page_size;
	uint64_t page = 0;
	for (int i = 0; !rc && i < d.n; i++) {
		const char *name = d.part[i].name;
		char path[PATH_MAX];
		if (name[0] == '/')
			rc = xb_path_resolve(path, sizeof path, "/", name, err);
		else
			rc = xb_path_join(path, sizeof path, srv->data_home_dir, name, err);
		inv_file *f = rc ? NULL : add(inv, INV_SYSTEM, path, xb_path_base(name), err);
		if (!f) {
			rc = rc ? rc : err ? err->code : XB_E_INTERNAL;
			break;
		}
		f->part = i;
		f->first_page = page;
		f->size = size_of(path);
		if (access(path, R_OK)) {
			rc = xb_err_set(err, XB_E_IO_READ, "cannot read system tablespace file %s: %s", path, strerror(errno));
			xb_err_hint(err, READ_HINT);
		}
		page += f->size / page_size;
	}
	inv_dfp_free(&d);
	return rc;
}

/* Page 0 of a server's file: one whose page 0 is not valid now (being
 * created) keeps no space id; the copy finds out more. One that cannot be
 * opened any more (dropped) is marked gone. */
typedef struct probe_run {
	inventory *inv;           /* the files */
	const inv_server *srv;    /* the server, and its known() */
} probe_run;

static int server_probe_job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	probe_run *r = ctx;
	inv_file *f = &r->inv->v[i];
	if (f->kind != INV_UNDO && f->kind != INV_TABLE && f->kind != INV_REMOTE)
		return 0;
	struct stat st;
	uint32_t id;
	if (r->srv->known) {
		if (stat(f->path, &st)) {
			f->kind = 0; /* gone */
			return 0;
		}
		if (r->srv->known(r->srv->known_ctx, f->rel, (uint64_t)st.st_dev, (uint64_t)st.st_ino, &id)) {
			f->size = (uint64_t)st.st_size;
			f->dev = (uint64_t)st.st_dev;
			f->ino = (uint64_t)st.st_ino;
			f->space_id = id;
			return 0;
		}
	}
	xb_error perr;
	int rc = probe(f->path, f, &perr);
	if (rc && rc != 1) { /* could not be read */
		if (stat(f->path, &st))
			f->kind = 0; /* gone */
		else
			f->size = (uint64_t)st.st_size;
	}
	return 0;
}

/* Page 0 of every tablespace of the server on `threads` workers; the files
 * found gone are taken out of the list. */
static int server_probe_all(inventory *inv, const inv_server *srv, xb_error *err)
{
	probe_run r = {.inv = inv, .srv = srv};
	xb_parallel_cfg cfg = {.threads = srv->threads > 1 ? srv->threads : 1, .jobs = inv->n, .ctx = &r,
			       .job = server_probe_job};
	int rc = inv->n ? xb_parallel_run(&cfg, err) : 0;
	size_t k = 0;
	for (size_t i = 0; i < inv->n; i++) {
		if (inv->v[i].kind) {
			inv->v[k++] = inv->v[i];
		} else {
			free(inv->v[i].path);
			free(inv->v[i].rel);
		}
	}
	inv->n = k;
	return rc;
}

static int server_undo(void *ctx, const xb_dirent *e, xb_error *err)
{
	server_scan *s = ctx;
	if (!inv_is_undo_name(e->name))
		return 0;
	inv_file *f = add(s->inv, INV_UNDO, e->path, e->name, err);
	return f ? 0 : err ? err->code : XB_E_INTERNAL;
}

static int server_db_file(void *ctx, const xb_dirent *e, xb_error *err)
{
	server_scan *s = ctx;
	char target[PATH_MAX], rel[PATH_MAX];
	const char *path = e->path;
	inv_kind kind = INV_TABLE;
	int rc;
	if (inv_is_table_file(e->name)) {
		rc = xb_path_join(rel, sizeof rel, s->db, e->name, err);
	} else if (inv_is_link_file(e->name)) {
		if (inv_link_read(e->path, target, sizeof target, NULL) || !target[0])
			return 0;
		path = target;
		kind = INV_REMOTE;
		rc = inv_table_file_of(rel, sizeof rel, s->db, e->name, err);
	} else {
		return 0;
	}
	if (rc)
		return rc;
	if (s->srv->skip && s->srv->skip(s->srv->skip_ctx, s->db, e->name))
		return 0;
	/* The .ibd and a link file for one table: the first one found. Only a
	 * link file can be the second (a directory holds one t.ibd), so only
	 * tables with one are looked for: no search through thousands of .ibd. */
	if (s->links)
		for (size_t i = s->db_first; i < s->inv->n; i++)
			if (!strcmp(s->inv->v[i].rel, rel))
				return 0;
	if (kind == INV_REMOTE) {
		struct stat st;
		if (stat(path, &st))
			return 0; /* points to no file */
		for (size_t i = s->db_first; i < s->inv->n; i++)
			if (!strcmp(s->inv->v[i].rel, rel))
				return 0;
		s->links = true;
	}
	inv_file *f = add(s->inv, kind, path, rel, err);
	return f ? 0 : err ? err->code : XB_E_INTERNAL;
}

static int server_db(void *ctx, const xb_dirent *e, xb_error *err)
{
	server_scan *s = ctx;
	if (!inv_is_database_name(e->name) || !e->is_dir)
		return 0;
	if (s->srv->skip && s->srv->skip(s->srv->skip_ctx, e->name, NULL))
		return 0;
	s->db = e->name;
	s->db_first = s->inv->n;
	s->links = false;
	return xb_dir_each(e->path, XB_DIR_MISSING_OK, server_db_file, s, err);
}

int inv_scan_server(const inv_server *srv, inventory *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	server_scan s = {.inv = out, .srv = srv};
	int rc = server_system(srv, out, err);
	if (!rc)
		rc = list(srv->undo_dir, 0, server_undo, &s, XB_E_IO_READ, "cannot open innodb_undo_directory", NULL,
			  err);
	if (!rc)
		rc = list(srv->datadir, 0, server_db, &s, XB_E_IO_READ, "cannot open datadir", READ_HINT, err);
	if (!rc)
		rc = server_probe_all(out, srv, err);
	if (!rc)
		rc = add_redo(out, srv->log_dir, err);
	return rc;
}

/* ---- a backup directory */

typedef struct backup_scan {
	inventory *inv;      /* the result */
	const char *sub;     /* the subdirectory being listed */
} backup_scan;

/* A tablespace of the backup; its page 0 is read later (backup_probe_all). */
static int backup_file(inventory *inv, inv_kind kind, const char *path, const char *rel, xb_error *err)
{
	inv_file *f = add(inv, kind, path, rel, err);
	return f ? 0 : err ? err->code : XB_E_INTERNAL;
}

static int backup_probe_job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	inv_file *f = &((inventory *)ctx)->v[i];
	if (f->kind != INV_UNDO && f->kind != INV_TABLE)
		return 0;
	int rc = probe(f->path, f, err);
	return rc == 1 ? 0 : rc;
}

/* Page 0 of every undo tablespace and table of a backup, BACKUP_PROBE_THREADS
 * reads at a time: a prepare of 10,000 tables spent 3 s reading them one by
 * one from a cold cache. */
static int backup_probe_all(inventory *inv, xb_error *err)
{
	xb_parallel_cfg cfg = {.threads = BACKUP_PROBE_THREADS, .jobs = inv->n, .ctx = inv, .job = backup_probe_job};
	return inv->n ? xb_parallel_run(&cfg, err) : 0;
}

static int backup_system(const char *dir, const char *spec, inventory *inv, xb_error *err)
{
	inv_dfp d;
	int rc = inv_dfp_parse(spec, 0, &d, err);
	if (rc)
		return rc;
	uint64_t page = 0;
	for (int i = 0; !rc && i < d.n; i++) {
		char path[PATH_MAX];
		if ((rc = xb_path_join(path, sizeof path, dir, d.part[i].name, err)))
			break;
		struct stat st;
		if (i == 0 && access(path, F_OK))
			break; /* no system tablespace: reported when the log needs it */
		if (i > 0 && stat(path, &st)) {
			rc = xb_err_set(err, XB_E_MISSING_FILE, "system tablespace file %s is missing", path);
			break;
		}
		inv_file *f = add(inv, INV_SYSTEM, path, d.part[i].name, err);
		if (!f) {
			rc = err ? err->code : XB_E_INTERNAL;
			break;
		}
		f->part = i;
		f->first_page = page;
		if (i == 0) {
			rc = probe(path, f, err);
			if (rc == 1)
				rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: page 0 of the system tablespace is not valid", path);
			if (rc)
				break;
			f->space_id = 0;
			inv->page_size = f->info.physical_size;
		} else {
			f->size = (uint64_t)st.st_size;
		}
		page += f->size / inv->page_size;
	}
	inv_dfp_free(&d);
	return rc;
}

static int backup_sub_entry(void *ctx, const xb_dirent *e, xb_error *err)
{
	backup_scan *s = ctx;
	if (e->name[0] == '.' || !inv_is_table_file(e->name))
		return 0;
	char rel[PATH_MAX];
	int rc = xb_path_join(rel, sizeof rel, s->sub, e->name, err);
	return rc ? rc : backup_file(s->inv, INV_TABLE, e->path, rel, err);
}

static int backup_top_entry(void *ctx, const xb_dirent *e, xb_error *err)
{
	backup_scan *s = ctx;
	if (e->name[0] == '.')
		return 0;
	if (inv_is_undo_name(e->name))
		return backup_file(s->inv, INV_UNDO, e->path, e->name, err);
	if (inv_is_table_file(e->name))
		return backup_file(s->inv, INV_TABLE, e->path, e->name, err);
	if (!e->is_dir)
		return 0;
	s->sub = e->name;
	return list(e->path, 0, backup_sub_entry, s, XB_E_IO_READ, "cannot read directory", NULL, err);
}

int inv_scan_backup(const char *dir, const char *data_file_path, inventory *out, xb_error *err)
{
	memset(out, 0, sizeof *out);
	backup_scan s = {.inv = out};
	int rc = backup_system(dir, data_file_path, out, err);
	if (!rc)
		rc = list(dir, 0, backup_top_entry, &s, XB_E_TARGET, "cannot read directory", NULL, err);
	if (!rc)
		rc = backup_probe_all(out, err);
	if (!rc)
		rc = add_redo(out, dir, err);
	return rc;
}
