/*
 * verify.c - a backup directory checked against its manifest (see verify.h).
 *
 * The directory is listed whole (recursively), then every listed file is
 * matched with its manifest entry by path. Files whose content must be
 * checked are read on --parallel workers (common/parallel.h), each with its
 * own 1 MiB buffer, and their CRC-32C compared; the others are only
 * stat'ed, or have page 0's space id read. Findings are counted by kind
 * (missing, extra, changed) and the first few named, so the one error line
 * says where to look however large the damage.
 */
#include "verify.h"
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/command.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/path.h"
#include "info/checkpoints.h"
#include "info/export_pending.h"
#include "info/inc_pending.h"
#include "info/binlog_info.h"
#include "info/markers.h"
#include "info/mru.h"
#include "info/statcache.h"
#include "innodb/bpdump.h"
#include "innodb/crc32c.h"
#include "innodb/inventory.h"
#include "innodb/page.h"
#include "innodb/recovery/journal.h"
#include "platform/clock.h"
#include "platform/dir.h"
#include "platform/file.h"
#include "sink/sink_crypt.h"
#include "sink/sink_dir_ext.h"
#include "sink/sink_null.h"
#include "sink/sink_qpress.h"
#include "sink/sink_sum.h"
#include "sink/sink_zstd.h"

#define NAMED_MAX 4           /* files named in the error line */
#define READ_BUF (1u << 20)   /* bytes a reader reads at a time */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

bool verify_prepare_writes(const char *rel)
{
	const char *base = xb_path_base(rel);
	bool top = base == rel;
	if (inv_is_innodb_name(base))
		return true;
	if (ends_with(base, XB_MARKER_DEL) || ends_with(base, XB_MARKER_REN) || ends_with(base, XB_MARKER_NEW) ||
	    ends_with(base, ".xbtmp") || ends_with(base, ".xbren"))
		return true;
	return top && (!strcmp(base, BP_TEXT_NAME) || !strcmp(base, BP_LRU_NAME) || !strcmp(base, XB_MRU_FILE) ||
		       !strcmp(base, XB_BINLOG_POS_INNODB_FILE) || !strcmp(base, JOURNAL_NAME));
}

/* ---- listing the directory */

typedef struct dfile {
	char *rel;                    /* path inside the backup (decoded: without .xbcrypt, .zst, .qp) */
	char *enc;                    /* the encoded file's path when it is one, else NULL */
	uint64_t size;                /* its size */
	const xb_manifest_entry *e;   /* its entry, NULL: extra */
	xb_file_stamp st;             /* its stamp when listed */
	bool read;                    /* its checksum is to be computed (or its pages checked) */
	bool cached;                  /* not read: the stat cache vouches for it (unchanged stamp) */
	bool foreign;                 /* below a foreign entry: not the backup's */
	uint32_t crc;                 /* computed checksum */
	uint64_t bad_page;            /* a tablespace checked by pages: the first bad one (UINT64_MAX: none) */
	char why[128];                /* and what is wrong with it */
} dfile;

typedef struct listing {
	const char *top;              /* the backup directory */
	dfile *v;                     /* the files */
	size_t n, cap;                /* count, capacity */
	size_t encoded, encrypted;    /* files compressed or encrypted, and encrypted */
} listing;

/* rel without its encoding suffixes (.xbcrypt, then .zst or .qp), in out;
 * false when it has none. */
static bool decoded_name(const char *rel, char *out, size_t n, bool *encrypted)
{
	size_t len = strlen(rel);
	*encrypted = ends_with(rel, ".xbcrypt") && len > 8;
	if (*encrypted)
		len -= 8;
	if (len > 4 && !strncmp(rel + len - 4, ".zst", 4))
		len -= 4;
	else if (len > 3 && !strncmp(rel + len - 3, ".qp", 3))
		len -= 3;
	if (len == strlen(rel) || len >= n)
		return false;
	memcpy(out, rel, len);
	out[len] = '\0';
	return true;
}

static int list_dir(listing *l, const char *rel, xb_error *err);

static int list_entry(void *ctx, const xb_dirent *e, xb_error *err)
{
	listing *l = ctx;
	const char *rel0 = strlen(e->path) > strlen(l->top) ? e->path + strlen(l->top) + 1 : e->name;
	if (e->is_dir)
		return list_dir(l, rel0, err);
	if (!e->is_file)
		return 0;
	char dec[4096];
	bool encrypted, encoded = decoded_name(rel0, dec, sizeof dec, &encrypted);
	const char *name = encoded ? dec : rel0;
	if (!strchr(name, '/') && (!strcmp(name, XB_MANIFEST_FILE) || !strcmp(name, XB_CHECKPOINTS_FILE) ||
				   !strcmp(name, XB_INC_PENDING_FILE) || !strcmp(name, XB_STATCACHE_FILE) ||
				   !strcmp(name, XB_EXPORT_PENDING_FILE)))
		return 0;
	xb_file_stamp st;
	if (xb_file_stamp_of(e->path, &st))
		return xb_err_set(err, XB_E_IO_READ, "cannot stat %s: %s", e->path, strerror(errno));
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 256;
		dfile *nv = realloc(l->v, nc * sizeof *nv);
		if (!nv)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		l->v = nv;
		l->cap = nc;
	}
	dfile *f = &l->v[l->n];
	memset(f, 0, sizeof *f);
	if (!(f->rel = strdup(name)) || (encoded && !(f->enc = strdup(rel0)))) {
		free(f->rel);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	f->size = st.size;
	f->st = st;
	f->bad_page = UINT64_MAX;
	l->n++;
	l->encoded += encoded;
	l->encrypted += encrypted;
	return 0;
}

static int list_dir(listing *l, const char *rel, xb_error *err)
{
	char path[4096];
	int rc = rel ? xb_path_join(path, sizeof path, l->top, rel, err) : 0;
	if (rc)
		return rc;
	return xb_dir_each(rel ? path : l->top, 0, list_entry, l, err);
}

static void listing_free(listing *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].rel);
		free(l->v[i].enc);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* ---- reading */

typedef struct reader {
	listing *l;                   /* the files */
	size_t *todo;                 /* indexes of the files to read */
	uint64_t bytes;               /* bytes read (atomic) */
	xb_sink *chain;               /* encoded files: decrypt -> unzstd -> unqpress -> sum -> null */
} reader;

static int by_rel(const void *a, const void *b);

/* The checksumming filter's report of a decoded file: into its dfile. */
static void decoded(void *ctx, const char *rel, uint64_t size, uint32_t crc, const uint8_t *head, size_t head_len)
{
	listing *l = ctx;
	dfile key = {.rel = (char *)rel};
	dfile *f = bsearch(&key, l->v, l->n, sizeof *l->v, by_rel);
	if (f) {
		f->size = size;
		f->crc = crc;
	}
}

/* The chain that decodes in memory (key: decrypt too). */
static xb_sink *decoding_chain(listing *l, const uint8_t *key, xb_error *err)
{
	xb_sink *s = xb_sink_null_open(err);
	if (s)
		s = xb_sink_sum_open(s, decoded, l, err);
	for (int i = 0; s && i < 2; i++) {
		xb_sink *w = i == 0 ? xb_sink_unqpress_open(s, err) : xb_sink_unzstd_open(s, err);
		if (!w)
			xb_sink_free(s);
		s = w;
	}
	if (s && key) {
		xb_sink *d = xb_sink_decrypt_open(s, key, err);
		if (!d)
			xb_sink_free(s);
		s = d;
	}
	return s;
}

/* Decode the encoded file f (path: where it is) through the chain. */
static int decode_file(reader *r, dfile *f, const char *path, char *buf, xb_error *err)
{
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	f->crc = 0;
	f->size = UINT64_MAX; /* set by decoded() when the file decodes whole */
	int rc = xb_sink_put_fd(r->chain, f->enc, fd, path, NULL, NULL, err);
	close(fd);
	return rc;
}

static int reader_start(void *ctx, int worker, void **wstate, xb_error *err)
{
	if (!(*wstate = malloc(READ_BUF)))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	return 0;
}

static void reader_end(void *ctx, int worker, void *wstate)
{
	free(wstate);
}

/* CRC-32C of the file path (its size: *size). */
static int file_crc(const char *path, char *buf, uint32_t *crc, uint64_t *size, xb_error *err)
{
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	xb_file_advise(fd, 0, 0, XB_ADVISE_SEQUENTIAL);
	uint32_t c = 0;
	uint64_t n = 0;
	int rc = 0;
	for (;;) {
		ssize_t k = xb_file_pread_all(fd, buf, READ_BUF, (off_t)n);
		if (k < 0) {
			rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path, strerror(errno));
			break;
		}
		c = crc32c_update(c, buf, (size_t)k);
		n += (uint64_t)k;
		if ((size_t)k < READ_BUF)
			break; /* the end of the file */
	}
	close(fd);
	*crc = c;
	*size = n;
	return rc;
}

/* The pages of the tablespace path (f: its manifest entry says "pages")
 * checked with InnoDB's checksums and page numbers: the first bad one in
 * f->bad_page and f->why. */
static int pages_check(const char *path, char *buf, dfile *f, uint64_t *bytes, xb_error *err)
{
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	xb_file_advise(fd, 0, 0, XB_ADVISE_SEQUENTIAL);
	innodb_space_info si;
	uint32_t ps = 0;
	uint64_t off = 0;
	int rc = 0;
	for (;;) {
		ssize_t k = xb_file_pread_all(fd, buf, READ_BUF, (off_t)off);
		if (k < 0) {
			rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path, strerror(errno));
			break;
		}
		if (!ps) {
			xb_error e;
			xb_err_clear(&e);
			if (innodb_page0_parse((const uint8_t *)buf, (size_t)k, &si, &e)) {
				f->bad_page = 0;
				snprintf(f->why, sizeof f->why, "%.120s", e.msg);
				break;
			}
			ps = si.physical_size;
			if (f->e->pages && f->e->size / f->e->pages != ps) {
				f->bad_page = 0;
				snprintf(f->why, sizeof f->why, "its pages are of %u bytes, the manifest says %llu", ps,
					 (unsigned long long)(f->e->size / f->e->pages));
				break;
			}
		}
		size_t whole = (size_t)k - (size_t)k % ps;
		if (!innodb_pages_valid((const uint8_t *)buf, whole, off / ps, &si, &f->bad_page, f->why,
					sizeof f->why))
			break;
		off += (uint64_t)k;
		if ((size_t)k < READ_BUF)
			break; /* the end of the file */
	}
	close(fd);
	*bytes = off;
	return rc;
}

static int reader_job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	reader *r = ctx;
	dfile *f = &r->l->v[r->todo[i]];
	char path[4096];
	int rc = xb_path_join(path, sizeof path, r->l->top, f->enc ? f->enc : f->rel, err);
	uint64_t n = 0;
	if (!rc && f->enc) {
		rc = decode_file(r, f, path, wstate, err);
		n = f->size == UINT64_MAX ? 0 : f->size;
	} else if (!rc && f->e && f->e->by_pages) {
		rc = pages_check(path, wstate, f, &n, err);
	} else if (!rc) {
		rc = file_crc(path, wstate, &f->crc, &n, err);
		f->size = n;
	}
	__atomic_fetch_add(&r->bytes, n, __ATOMIC_RELAXED);
	return rc;
}

/* Compute the checksum of every file marked read (the encoded ones decoded
 * in memory; key: to decrypt). */
static int read_all(listing *l, int threads, const uint8_t *key, uint64_t *bytes, xb_error *err)
{
	reader r = {.l = l};
	size_t n = 0;
	if (l->encoded && !(r.chain = decoding_chain(l, key, err)))
		return err && err->code ? err->code : XB_E_INTERNAL;
	if (l->n && !(r.todo = malloc(l->n * sizeof *r.todo))) {
		xb_sink_free(r.chain);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].read)
			r.todo[n++] = i;
	xb_parallel_cfg cfg = {.threads = threads < 1 ? 1 : threads,
			       .jobs = n,
			       .ctx = &r,
			       .job = reader_job,
			       .worker_start = reader_start,
			       .worker_end = reader_end};
	int rc = n ? xb_parallel_run(&cfg, err) : 0;
	free(r.todo);
	xb_sink_free(r.chain);
	*bytes = r.bytes;
	return rc;
}

/* ---- the check */

typedef struct findings {
	size_t missing, extra, changed; /* counts */
	bool added_ok;                  /* extra files are not damage: listed in added */
	size_t added;                   /* extra files, when added_ok */
	char added_named[NAMED_MAX][300]; /* the first few of them */
	char named[NAMED_MAX][320];     /* the first few, described */
	size_t n_named;                 /* how many are in named */
} findings;

static void found(findings *fd, size_t *count, const char *what, const char *rel, const char *detail)
{
	(*count)++;
	if (fd->n_named < NAMED_MAX)
		snprintf(fd->named[fd->n_named++], sizeof fd->named[0], "%s %s%s%s", rel, what, detail ? ": " : "",
			 detail ? detail : "");
}

/* Does a DDL marker of the manifest remove or rename the tablespace rel (db/t.ibd)? */
static bool marker_covers(const xb_manifest *m, const char *rel)
{
	if (!ends_with(rel, ".ibd"))
		return false;
	char base[4096];
	size_t n = strlen(rel) - 4;
	if (n + 5 > sizeof base)
		return false;
	static const char *const ext[] = {XB_MARKER_DEL, XB_MARKER_REN, XB_MARKER_NEW};
	for (int i = 0; i < 3; i++) {
		snprintf(base, sizeof base, "%.*s%s", (int)n, rel, ext[i]);
		if (xb_manifest_find(m, base))
			return true;
	}
	return false;
}

/* The space id and physical page size (fallback when the flags say none)
 * the first page of path gives, or false; *first_no (may be NULL): the
 * page number that page says it is (not 0 for a later file of a system
 * tablespace made of several). */
static bool head_of3(const char *top, const char *rel, uint32_t fallback, uint32_t *space, uint32_t *phys,
		     uint32_t *first_no)
{
	char path[4096];
	uint8_t head[FSP_SPACE_FLAGS + 4];
	if (xb_path_join(path, sizeof path, top, rel, NULL))
		return false;
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd < 0)
		return false;
	ssize_t k = xb_file_pread_all(fd, head, sizeof head, 0);
	close(fd);
	if (first_no && k == (ssize_t)sizeof head)
		*first_no = innodb_page_no(head);
	return k == (ssize_t)sizeof head && innodb_page0_head(head, sizeof head, fallback, space, phys);
}

static bool head_of(const char *top, const char *rel, uint32_t fallback, uint32_t *space, uint32_t *phys)
{
	return head_of3(top, rel, fallback, space, phys, NULL);
}

/* Does rel start with a valid page 0 (what a check by pages starts from)? */
static bool page0_valid(const char *top, const char *rel)
{
	char path[4096];
	if (xb_path_join(path, sizeof path, top, rel, NULL))
		return false;
	uint8_t *buf = malloc(INNODB_PAGE_SIZE_MAX);
	int fd = buf ? xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL) : -1;
	ssize_t k = fd < 0 ? -1 : xb_file_pread_all(fd, buf, INNODB_PAGE_SIZE_MAX, 0);
	if (fd >= 0)
		close(fd);
	innodb_space_info si;
	bool ok = k > 0 && !innodb_page0_parse(buf, (size_t)k, &si, NULL);
	free(buf);
	return ok;
}

static bool space_of(const char *top, const char *rel, uint32_t *space)
{
	uint32_t phys;
	return head_of(top, rel, 16384, space, &phys);
}

/* A file whose content is not checked, only its presence: a .isl says where
 * a tablespace is restored, and may be edited for that before a restore. */
static bool presence_only(const char *rel)
{
	return ends_with(rel, ".isl");
}

/* Does the stat cache's line ce vouch for f, whose entry is e: the same
 * stamp, recorded with the same check as the manifest's? */
static bool vouched(const xb_statcache_entry *ce, const dfile *f, const xb_manifest_entry *e)
{
	return ce && !f->enc && xb_file_stamp_same(&ce->st, &f->st) && ce->pages == e->by_pages &&
	       (e->by_pages || ce->crc == e->crc);
}

/* cache (may be NULL): files it vouches for are not read. */
static int compare(const char *dir, const xb_manifest *m, listing *l, bool relaxed, const xb_statcache *cache,
		   findings *fd, xb_error *err)
{
	bool moving = m->state == XB_MANIFEST_MOVING;
	/* extra files, and which files to read */
	for (size_t i = 0; i < l->n; i++) {
		dfile *f = &l->v[i];
		if (xb_manifest_is_foreign(m, f->rel)) {
			f->e = NULL;
			f->foreign = true;
			continue;
		}
		f->e = xb_manifest_find(m, f->rel);
		bool soft = relaxed && verify_prepare_writes(f->rel);
		if (!f->e) {
			if (!soft && fd->added_ok) {
				if (fd->added < NAMED_MAX)
					snprintf(fd->added_named[fd->added], sizeof fd->added_named[0], "%s", f->rel);
				fd->added++;
			} else if (!soft) {
				found(fd, &fd->extra, "is not in the manifest", f->rel, NULL);
			}
			continue;
		}
		if (soft || presence_only(f->rel))
			continue;
		if (!f->enc && f->size != f->e->size) {
			char d[96];
			snprintf(d, sizeof d, "%llu bytes, the manifest says %llu", (unsigned long long)f->size,
				 (unsigned long long)f->e->size);
			found(fd, &fd->changed, "changed", f->rel, d);
			continue;
		}
		if (cache && vouched(xb_statcache_find(cache, f->rel), f, f->e))
			f->cached = true;
		else
			f->read = true;
	}
	/* missing files, and what a prepare never changes */
	for (size_t i = 0; i < m->n; i++) {
		const xb_manifest_entry *e = &m->v[i];
		const dfile *f = NULL;
		if (e->foreign)
			continue;
		for (size_t lo = 0, hi = l->n; lo < hi;) { /* l is sorted by path (below) */
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(l->v[mid].rel, e->path);
			if (!c) {
				f = &l->v[mid];
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		bool soft = relaxed && verify_prepare_writes(e->path);
		const char *base = xb_path_base(e->path);
		bool tablespace = inv_is_innodb_name(base) && !inv_is_redo_name(base);
		if (!f) {
			if (!strcmp(base, "db.opt") && !moving) {
				/* the server runs a database without one (its defaults apply) */
				xb_warn("%s/%s, listed in the manifest, is missing: the database takes the server's default "
					"character set and collation", dir, e->path);
				continue;
			}
			if (!moving && (!soft || (tablespace && !marker_covers(m, e->path))))
				found(fd, &fd->missing, "is missing", e->path, NULL);
			continue;
		}
		if (!soft || !tablespace)
			continue;
		if (inv_is_table_file(base) && f->size < e->size) {
			char d[96];
			snprintf(d, sizeof d, "%llu bytes, smaller than the %llu of the manifest",
				 (unsigned long long)f->size, (unsigned long long)e->size);
			found(fd, &fd->changed, "changed", e->path, d);
			continue;
		}
		uint32_t space;
		if (e->space_id != XB_MANIFEST_NO_SPACE && inv_is_table_file(base) &&
		    (!space_of(dir, e->path, &space) || space != e->space_id)) {
			char d[96];
			snprintf(d, sizeof d, "its space id is not the %u of the manifest", e->space_id);
			found(fd, &fd->changed, "changed", e->path, d);
		}
	}
	return 0;
}

static int by_rel(const void *a, const void *b)
{
	return strcmp(((const dfile *)a)->rel, ((const dfile *)b)->rel);
}

static int damaged(const char *dir, const char *command, const findings *fd, xb_error *err)
{
	char list[NAMED_MAX * 330] = "";
	size_t off = 0;
	for (size_t i = 0; i < fd->n_named; i++)
		off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? "; " : "", fd->named[i]);
	size_t total = fd->missing + fd->extra + fd->changed;
	xb_err_set(err, XB_E_BACKUP_DAMAGED,
		   "the backup in %s does not match its manifest (%zu missing, %zu changed, %zu extra): %s%s; %s "
		   "changed nothing",
		   dir, fd->missing, fd->changed, fd->extra, list, total > fd->n_named ? "; ..." : "", command);
	return xb_err_hint(err, "the backup was altered or damaged since it was written: use another copy of it "
				"(or put back what changed), or take a new backup; --verify --target-dir=%s checks it again",
			   dir);
}

static bool exists(const char *dir, const char *name, const char *ext)
{
	char path[4200];
	return !xb_path_join3(path, sizeof path, dir, name, ext, NULL) && access(path, F_OK) == 0;
}

/* The manifest of dir, decrypted in memory when only its .xbcrypt is there. */
static int read_manifest(const char *dir, const uint8_t *key, xb_manifest *m, xb_error *err)
{
	xb_manifest_init(m);
	if (exists(dir, XB_MANIFEST_FILE, "") || !exists(dir, XB_MANIFEST_FILE, ".xbcrypt"))
		return xb_manifest_read(dir, m, err);
	char enc[4200];
	int rc = xb_path_join3(enc, sizeof enc, dir, XB_MANIFEST_FILE, ".xbcrypt", err);
	if (rc)
		return rc;
	if (!key)
		return xb_err_set(err, XB_E_USAGE, "%s is encrypted: give --decrypt=AES256 and the key to check the backup",
				  enc),
		       xb_err_hint(err, "xtrabackup --verify --decrypt=AES256 --encrypt-key-file=FILE --target-dir=%s", dir);
	xb_sink *keep = xb_sink_null_open_keep(XB_MANIFEST_FILE, (size_t)1 << 30, err);
	xb_sink *chain = keep ? xb_sink_decrypt_open(keep, key, err) : NULL;
	if (!chain) {
		xb_sink_free(keep);
		return err && err->code ? err->code : XB_E_INTERNAL;
	}
	int fd = xb_file_open(XB_FILE_CWD, enc, XB_FILE_READ, 0, NULL);
	if (fd < 0)
		rc = xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", enc, strerror(errno));
	else
		rc = xb_sink_put_fd(chain, XB_MANIFEST_FILE ".xbcrypt", fd, enc, NULL, NULL, err);
	if (fd >= 0)
		close(fd);
	size_t len;
	const char *text = rc ? NULL : xb_sink_null_kept(keep, &len);
	if (!rc && !text)
		rc = xb_err_set(err, XB_E_INTERNAL, "%s decoded to nothing", enc);
	if (!rc)
		rc = xb_manifest_parse(enc, text, len, m, err);
	xb_sink_free(chain);
	return rc;
}

/* An incremental applied by another tool (mariabackup --prepare
 * --incremental-dir) changes files a prepare of a full backup never does:
 * the manifest then describes a tree that is gone, which the to_lsn of
 * xtrabackup_checkpoints tells (an incremental we apply rewrites both, with
 * its pending mark in place meanwhile). */
static bool applied_elsewhere(const char *dir, const xb_manifest *m)
{
	char path[4200];
	xb_checkpoints cp;
	xb_error e;
	xb_err_clear(&e);
	if (!m->to_lsn || m->state == XB_MANIFEST_PREPARING || m->state == XB_MANIFEST_MOVING ||
	    xb_path_join(path, sizeof path, dir, XB_INC_PENDING_FILE, NULL) || access(path, F_OK) == 0 ||
	    xb_checkpoints_read_lsns(dir, &cp, &e) || cp.to_lsn == m->to_lsn)
		return false;
	xb_warn("%s: its manifest describes the backup at to_lsn %llu, but %s says %llu: another tool applied an "
		"incremental backup to it since, so its files cannot be checked against the manifest",
		dir, (unsigned long long)m->to_lsn, XB_CHECKPOINTS_FILE, (unsigned long long)cp.to_lsn);
	return true;
}

int verify_backup(const char *dir, const char *command, const char *backup_type, int threads, unsigned flags,
		  const uint8_t *key, xb_manifest *out, verify_result *res, xb_error *err)
{
	memset(res, 0, sizeof *res);
	double t0 = xb_clock_sec();
	xb_manifest m;
	int rc = read_manifest(dir, key, &m, err);
	if (rc == XB_E_MISSING_FILE) {
		xb_warn("%s holds no %s (a backup taken by mariabackup or an older xtrabackup): its files cannot be "
			"checked",
			dir, XB_MANIFEST_FILE);
		if (err)
			xb_err_clear(err);
		return 0;
	}
	if (rc) {
		if (rc != XB_E_BACKUP_DAMAGED)
			return rc;
		return xb_err_hint(err, "the manifest is damaged, so the backup cannot be checked: use another copy of "
					"the backup; %s changed nothing",
				   command);
	}
	if (applied_elsewhere(dir, &m)) {
		xb_manifest_free(&m);
		return 0;
	}
	res->have_manifest = true;
	res->state = m.state;
	bool prepared = backup_type && !strcmp(backup_type, "log-applied");
	res->relaxed = m.state == XB_MANIFEST_PREPARING || m.state == XB_MANIFEST_MOVING ||
		       (m.state == XB_MANIFEST_BACKUP && prepared);
	if (m.state == XB_MANIFEST_MOVING)
		xb_info("A --move-back of %s began: the files still there are checked, those gone are taken as moved",
			dir);
	else if (m.state == XB_MANIFEST_PREPARING)
		xb_info("A --prepare of %s began and did not finish: the files it writes are checked for what it never "
			"changes (presence, space id, size), the others in full",
			dir);
	else if (res->relaxed)
		xb_info("%s was prepared by another tool: its manifest describes the backup before the prepare, so the "
			"files a prepare writes are checked for presence, space id and size, the others in full",
			dir);
	listing l = {.top = dir};
	findings fd;
	memset(&fd, 0, sizeof fd);
	fd.added_ok = flags & VERIFY_ADDED_OK;
	xb_statcache cache;
	xb_statcache_init(&cache);
	if (flags & VERIFY_QUICK) {
		xb_error ce;
		xb_err_clear(&ce);
		int cr = xb_statcache_read(dir, &cache, &ce);
		if (cr && cr != XB_E_MISSING_FILE)
			xb_info("%s (not used: the files are read)", ce.msg);
	}
	if (!(rc = list_dir(&l, NULL, err))) {
		if (l.n > 1)
			qsort(l.v, l.n, sizeof *l.v, by_rel);
		rc = compare(dir, &m, &l, res->relaxed, (flags & VERIFY_QUICK) ? &cache : NULL, &fd, err);
	}
	xb_statcache_free(&cache);
	if (!rc && l.encrypted && !key)
		rc = xb_err_set(err, XB_E_USAGE, "%s holds encrypted files (*.xbcrypt): %s decodes them in memory with "
				"--decrypt=AES256 and the key", dir, command),
		xb_err_hint(err, "xtrabackup --verify --decrypt=AES256 --encrypt-key-file=FILE --target-dir=%s", dir);
	if (!rc && l.encoded)
		xb_info("%zu compressed or encrypted files are decoded in memory and their plain bytes checked", l.encoded);
	if (!rc)
		rc = read_all(&l, threads, key, &res->bytes, err);
	for (size_t i = 0; !rc && i < l.n; i++) {
		const dfile *f = &l.v[i];
		if (!f->read)
			continue;
		if (f->size != f->e->size) {
			char d[96];
			snprintf(d, sizeof d, "%llu bytes, the manifest says %llu", (unsigned long long)f->size,
				 (unsigned long long)f->e->size);
			found(&fd, &fd.changed, "changed", f->rel, d);
		} else if (f->e->by_pages && f->bad_page != UINT64_MAX) {
			char d[200];
			snprintf(d, sizeof d, "page %llu is damaged (%s)", (unsigned long long)f->bad_page, f->why);
			found(&fd, &fd.changed, "changed", f->rel, d);
		} else if (!f->e->by_pages && f->crc != f->e->crc) {
			char d[96];
			snprintf(d, sizeof d, "CRC-32C %08x, the manifest says %08x", f->crc, f->e->crc);
			found(&fd, &fd.changed, "changed", f->rel, d);
		}
	}
	/* the files found good, with their stamps: what a later check need not read */
	xb_statcache_init(&res->checked);
	for (size_t i = 0; !rc && i < l.n; i++) {
		const dfile *f = &l.v[i];
		if ((f->read || f->cached) && !f->enc && f->e && f->size == f->e->size &&
		    (f->cached || (f->e->by_pages ? f->bad_page == UINT64_MAX : f->crc == f->e->crc)))
			xb_statcache_put(&res->checked, f->rel, &f->st, f->e->crc, f->e->by_pages);
	}
	xb_statcache_sort(&res->checked);
	for (size_t i = 0; i < l.n; i++) {
		res->files += !l.v[i].foreign;
		res->cached += l.v[i].cached;
	}
	listing_free(&l);
	if (!rc && fd.missing + fd.extra + fd.changed)
		rc = damaged(dir, command, &fd, err);
	if (!rc && fd.added) {
		char list[NAMED_MAX * 310] = "";
		for (size_t i = 0; i < fd.added && i < NAMED_MAX; i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", fd.added_named[i]);
		xb_warn("%s holds %zu file(s) the backup did not write: %s%s; %s leaves them as they are and counts them "
			"in the backup from now on",
			dir, fd.added, list, fd.added > NAMED_MAX ? ", ..." : "", command);
	}
	res->seconds = xb_clock_sec() - t0;
	if (!rc && res->cached)
		xb_info("Checked %s against its manifest: %llu files, %llu of them unchanged since they were last "
			"checked or written (%s), %llu bytes read in %.1f s",
			dir, (unsigned long long)res->files, (unsigned long long)res->cached, XB_STATCACHE_FILE,
			(unsigned long long)res->bytes, res->seconds);
	else if (!rc)
		xb_info("Checked %s against its manifest: %llu files, %llu bytes read in %.1f s", dir,
			(unsigned long long)res->files, (unsigned long long)res->bytes, res->seconds);
	if (rc)
		xb_statcache_free(&res->checked);
	if (!rc && out)
		*out = m;
	else
		xb_manifest_free(&m);
	return rc;
}

int verify_mark(const char *dir, xb_manifest *m, xb_manifest_state state, xb_error *err)
{
	m->state = state;
	return xb_manifest_rewrite(dir, m, err);
}

/* Is the listed file f, whose entry at the check was e, as the check found
 * it: the stamp it had then (checked), no write of this prepare reported? */
static bool unchanged(const dfile *f, const xb_manifest_entry *e, const xb_statcache *checked,
		      bool (*written)(void *ctx, const char *rel), void *written_ctx)
{
	const xb_statcache_entry *ce = e && checked ? xb_statcache_find(checked, f->rel) : NULL;
	return ce && xb_file_stamp_same(&ce->st, &f->st) && ce->pages == e->by_pages &&
	       (e->by_pages || ce->crc == e->crc) && !(written && written(written_ctx, f->rel));
}

int verify_refresh(const char *dir, xb_manifest *m, int threads, const xb_statcache *checked,
		   bool (*written)(void *ctx, const char *rel), void *written_ctx, xb_error *err)
{
	listing l = {.top = dir};
	int rc = list_dir(&l, NULL, err);
	uint64_t bytes = 0, by_pages = 0;
	/* what each file becomes: kept (unchanged), "pages" (a tablespace written), or read */
	enum { KEEP, PAGES, READ } *how = rc || !l.n ? NULL : calloc(l.n, sizeof *how);
	uint32_t *space = how ? calloc(l.n, sizeof *space) : NULL;
	uint64_t *pages = space ? calloc(l.n, sizeof *pages) : NULL;
	if (!rc && l.n && !pages)
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	for (size_t i = 0; !rc && i < l.n; i++) {
		dfile *f = &l.v[i];
		const xb_manifest_entry *e = xb_manifest_find(m, f->rel);
		const char *base = xb_path_base(f->rel);
		f->foreign = xb_manifest_is_foreign(m, f->rel);
		space[i] = XB_MANIFEST_NO_SPACE;
		if (f->foreign)
			continue;
		if (unchanged(f, e, checked, written, written_ctx)) {
			how[i] = KEEP;
			continue;
		}
		uint32_t phys, first_no = 1;
		bool tablespace = inv_is_innodb_name(base) && !inv_is_redo_name(base) &&
				  head_of3(dir, f->rel, 16384, &space[i], &phys, &first_no);
		if (tablespace) {
			/* a .ibd's own flags (its page 0 may have been all zero when the
			 * backup copied it); the system and undo files follow the server's
			 * page size, which the backup found */
			if (e && e->pages && !inv_is_table_file(base))
				phys = (uint32_t)(e->size / e->pages);
			pages[i] = phys ? f->size / phys : 0;
		} else {
			space[i] = XB_MANIFEST_NO_SPACE;
		}
		/* a tablespace file written by the prepare that starts with its page
		 * 0 (a later file of a system tablespace in several does not):
		 * checked by its pages later rather than read whole again now */
		how[i] = tablespace && pages[i] && first_no == 0 && (e ? e->space_id == space[i] : true) &&
				 page0_valid(dir, f->rel)
			 ? PAGES
			 : READ;
		f->read = how[i] == READ;
	}
	if (!rc)
		rc = read_all(&l, threads, NULL, &bytes, err);
	xb_manifest fresh;
	xb_manifest_init(&fresh);
	xb_statcache sc;
	xb_statcache_init(&sc);
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].foreign)
			xb_manifest_put_foreign(&fresh, m->v[i].path);
	for (size_t i = 0; !rc && i < l.n; i++) {
		const dfile *f = &l.v[i];
		const xb_manifest_entry *e = xb_manifest_find(m, f->rel);
		if (f->foreign)
			continue;
		if (how[i] == KEEP) {
			if (e->by_pages)
				xb_manifest_put_pages(&fresh, e->path, e->size, e->space_id, e->pages);
			else
				xb_manifest_put(&fresh, e->path, e->size, e->crc, e->space_id, e->pages);
			xb_statcache_put(&sc, f->rel, &f->st, e->crc, e->by_pages);
		} else if (how[i] == PAGES) {
			xb_manifest_put_pages(&fresh, f->rel, f->size, space[i], pages[i]);
			xb_statcache_put(&sc, f->rel, &f->st, 0, true);
			by_pages++;
		} else {
			xb_manifest_put(&fresh, f->rel, f->size, f->crc, space[i], pages[i]);
			xb_statcache_put(&sc, f->rel, &f->st, f->crc, false);
		}
	}
	listing_free(&l);
	free(how);
	free(space);
	free(pages);
	if (!rc && fresh.nomem)
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	if (!rc) {
		fresh.state = XB_MANIFEST_PREPARED;
		fresh.to_lsn = m->to_lsn;
		rc = xb_manifest_rewrite(dir, &fresh, err);
	}
	if (!rc)
		xb_info("Manifest rewritten for the prepared backup: %zu entries, %llu tablespaces written by the "
			"prepare to be checked by their pages, %llu bytes read again",
			fresh.n, (unsigned long long)by_pages, (unsigned long long)bytes);
	/* the cache last: it vouches for the manifest just written */
	xb_error ce;
	xb_err_clear(&ce);
	if (!rc && xb_statcache_write(dir, &sc, &ce))
		xb_warn("%s (a later check reads every file)", ce.msg);
	xb_statcache_free(&sc);
	xb_manifest_free(&fresh);
	return rc;
}

int verify_record(const char *dir, verify_result *res)
{
	xb_error e;
	xb_err_clear(&e);
	if (!res->have_manifest || !res->checked.n || !xb_statcache_write(dir, &res->checked, &e))
		return 0;
	xb_info("%s (a later check reads every file again)", e.msg);
	return e.code;
}

void verify_result_free(verify_result *res)
{
	xb_statcache_free(&res->checked);
}

/* ---- --verify */

int cmd_verify(const xb_options *o, xb_error *err)
{
	verify_settings s;
	int rc = verify_settings_resolve(o, &s, err);
	if (rc)
		return rc;
	uint8_t keybuf[XB_CRYPT_KEY_LEN];
	const uint8_t *key = NULL;
	if (s.decrypt) {
		if ((rc = xb_crypt_key_load(&s.crypt, keybuf, err)))
			return rc;
		key = keybuf;
	}
	/* the completion marker; a compressed or encrypted backup is never prepared */
	const char *type = "full-backuped";
	bool encoded = exists(s.dir, XB_CHECKPOINTS_FILE, ".xbcrypt") || exists(s.dir, INV_REDO_NAME, ".zst") ||
		       exists(s.dir, INV_REDO_NAME, ".zst.xbcrypt");
	xb_checkpoints cp;
	if (encoded && !exists(s.dir, XB_CHECKPOINTS_FILE, "") && !exists(s.dir, XB_CHECKPOINTS_FILE, ".xbcrypt"))
		rc = xb_err_set(err, XB_E_TARGET, "%s is not a complete backup: it has no %s", s.dir, XB_CHECKPOINTS_FILE);
	else if (!encoded && !(rc = xb_checkpoints_read(s.dir, &cp, err)))
		type = cp.backup_type;
	if (!rc)
		rc = xb_inc_pending_refuse(s.dir, "--verify", err);
	if (!rc)
		rc = xb_export_pending_refuse(s.dir, "--verify", err);
	if (!rc && !exists(s.dir, XB_MANIFEST_FILE, "") && !exists(s.dir, XB_MANIFEST_FILE, ".xbcrypt")) {
		rc = xb_err_set(err, XB_E_MISSING_FILE, "%s/%s: no manifest, so the backup cannot be checked", s.dir,
				XB_MANIFEST_FILE);
		xb_err_hint(err, "backups by mariabackup and by older versions of xtrabackup have none; a backup of this "
				 "version that lacks it was damaged");
	}
	verify_result res;
	memset(&res, 0, sizeof res);
	xb_manifest m;
	xb_manifest_init(&m);
	if (!rc)
		rc = verify_backup(s.dir, "--verify", type, s.threads, 0, key, &m, &res, err);
	if (!rc)
		(void)verify_record(s.dir, &res);
	verify_result_free(&res);
	xb_manifest_free(&m);
	memset(keybuf, 0, sizeof keybuf);
	if (rc)
		return rc;
	xb_log_raw("verified %llu files, %llu bytes%s", (unsigned long long)res.files, (unsigned long long)res.bytes,
		   res.relaxed ? " (the files a prepare writes: presence, space id and size only)" : "");
	return 0;
}
