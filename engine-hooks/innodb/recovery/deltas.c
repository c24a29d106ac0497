/*
 * deltas.c - applying an incremental backup's deltas to a prepared full
 * backup (see deltas.h and doc/incremental.md §2).
 *
 * The plan is a sorted array of target names, each with its source in the
 * incremental. The apply keeps the target's tablespace files as the
 * inventory found them (name, space id) in an array it updates as it
 * renames, moves aside and creates files, so a later delta finds a file
 * where an earlier one put it, whatever order the deltas come in. Every
 * delta is resolved so first, on the calling thread; then the pages are
 * written on the parallel executor, one file per job (the system
 * tablespace's files in one job, in order: page 0 of the first may extend
 * the last), each run of consecutive pages in one write, each file fsynced
 * by its job; the directories whose names changed are fsynced at the end.
 * A copy of a whole file is staged (dst.xbtmp written, its write-back
 * started) and committed (fsynced, renamed) in two calls, so a caller can
 * stage many files before it waits for any; staging can keep a dst that
 * already holds the source's bytes.
 */
#include "innodb/recovery/deltas.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/path.h"
#include "info/markers.h"
#include "innodb/inventory.h"
#include "innodb/page.h"
#include "platform/clock.h"
#include "platform/dir.h"
#include "platform/file.h"

#define NEW_DELTA ".new" INNODB_DELTA_SUFFIX    /* the delta of a table created during the backup */
#define NEW_META ".new" INNODB_DELTA_META_SUFFIX
#define TMP_SUFFIX ".xbtmp"
#define INITIAL_PAGES 4                          /* the server's size of a new tablespace file, in pages */
#define COPY_BUF (1u << 20)
#define WRITEBACK_PAGES 256                      /* pages written between two starts of write-back */
#define PREFETCH_BYTES ((off_t)64 << 20)         /* of a delta a worker takes next, read ahead */

/* ---------------------------------------------------------------- plan */

static int by_name(const void *a, const void *b)
{
	return strcmp(((const deltas_item *)a)->name, ((const deltas_item *)b)->name);
}

void deltas_plan_free(deltas_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].src);
	}
	free(p->v);
	memset(p, 0, sizeof *p);
}

static deltas_item *find_linear(deltas_plan *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].name, name))
			return &p->v[i];
	return NULL;
}

static void drop(deltas_plan *p, const char *name)
{
	deltas_item *it = find_linear(p, name);
	if (!it)
		return;
	free(it->name);
	free(it->src);
	*it = p->v[--p->n];
}

/* Put name -> src (replacing an entry of that name). */
static int put(deltas_plan *p, const char *name, const char *src, const innodb_delta_meta *m, xb_error *err)
{
	drop(p, name);
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		deltas_item *v = realloc(p->v, cap * sizeof *v);
		if (!v)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		p->v = v, p->cap = cap;
	}
	deltas_item *it = &p->v[p->n];
	memset(it, 0, sizeof *it);
	it->name = strdup(name);
	it->src = strdup(src);
	if (!it->name || !it->src) {
		free(it->name);
		free(it->src);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	if (m)
		it->meta = *m;
	else
		it->whole = true;
	p->n++;
	return 0;
}

/* The incremental's files by kind, relative to it. */
typedef struct inc_files {
	const char *inc;
	char **v[5];             /* DELTA, NEWDELTA, DEL, REN, NEW */
	size_t n[5];
} inc_files;
enum { K_DELTA, K_NEWDELTA, K_DEL, K_REN, K_NEW };

static int kind_of(const char *name)
{
	if (xb_path_has_suffix(name, NEW_DELTA))
		return K_NEWDELTA;
	if (xb_path_has_suffix(name, INNODB_DELTA_SUFFIX))
		return K_DELTA;
	if (xb_path_has_suffix(name, XB_MARKER_DEL))
		return K_DEL;
	if (xb_path_has_suffix(name, XB_MARKER_REN))
		return K_REN;
	if (xb_path_has_suffix(name, XB_MARKER_NEW))
		return K_NEW;
	return -1;
}

static int files_add(inc_files *f, int k, const char *rel, xb_error *err)
{
	char **v = realloc(f->v[k], (f->n[k] + 1) * sizeof *v);
	if (!v)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	f->v[k] = v;
	if (!(v[f->n[k]] = strdup(rel)))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	f->n[k]++;
	return 0;
}

static int list_sub(void *ctx, const xb_dirent *e, xb_error *err)
{
	inc_files *f = ctx;
	int k = e->is_file ? kind_of(e->name) : -1;
	if (k < 0)
		return 0;
	char rel[4096];
	const char *db = xb_path_base(e->dir);
	if (xb_path_join(rel, sizeof rel, db, e->name, err))
		return err ? err->code : XB_E_USAGE;
	return files_add(f, k, rel, err);
}

static int list_top(void *ctx, const xb_dirent *e, xb_error *err)
{
	inc_files *f = ctx;
	if (e->is_dir)
		return inv_is_database_name(e->name) ? xb_dir_each(e->path, 0, list_sub, f, err) : 0;
	int k = e->is_file ? kind_of(e->name) : -1;
	return k < 0 ? 0 : files_add(f, k, e->name, err);
}

static void files_free(inc_files *f)
{
	for (int k = 0; k < 5; k++) {
		for (size_t i = 0; i < f->n[k]; i++)
			free(f->v[k][i]);
		free(f->v[k]);
	}
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The meta of the delta at inc/rel whose .meta is inc/meta_rel. */
static int add_delta(deltas_plan *p, const char *inc, const char *name, const char *rel, const char *meta_rel,
		     xb_error *err)
{
	char src[4096], mpath[4096];
	innodb_delta_meta m;
	int rc = xb_path_join(src, sizeof src, inc, rel, err);
	if (!rc)
		rc = xb_path_join(mpath, sizeof mpath, inc, meta_rel, err);
	if (!rc)
		rc = innodb_delta_meta_read(mpath, &m, err);
	if (rc)
		return rc == XB_E_IO_READ && err ? xb_err_hint(err, "every %s of an incremental backup needs its %s: "
							      "take the incremental backup again",
						       INNODB_DELTA_SUFFIX, INNODB_DELTA_META_SUFFIX)
						 : rc;
	return put(p, name, src, &m, err);
}

/* rel with its ending (len bytes) replaced by rep, into out. */
static int swap_end(char *out, size_t n, const char *rel, size_t len, const char *rep, xb_error *err)
{
	size_t keep = strlen(rel) - len;
	if (keep + strlen(rep) + 1 > n)
		return xb_err_set(err, XB_E_USAGE, "path too long: %s", rel);
	memcpy(out, rel, keep);
	strcpy(out + keep, rep);
	return 0;
}

/* What a .ren marker asks: from (its table's file) -> to, relative to inc. */
typedef struct ren { char from[4096], to[4096]; deltas_item item; bool had; } ren;

int deltas_plan_build(const char *inc, deltas_plan *p, xb_error *err)
{
	memset(p, 0, sizeof *p);
	inc_files f = {.inc = inc};
	int rc = xb_dir_each(inc, 0, list_top, &f, err);
	for (int k = 0; k < 5; k++)
		if (f.n[k] > 1)
			qsort(f.v[k], f.n[k], sizeof *f.v[k], str_cmp);
	char name[4096], meta[4096];
	/* X.delta names X */
	for (size_t i = 0; !rc && i < f.n[K_DELTA]; i++) {
		const char *rel = f.v[K_DELTA][i];
		if (!(rc = swap_end(name, sizeof name, rel, strlen(INNODB_DELTA_SUFFIX), "", err)) &&
		    !(rc = swap_end(meta, sizeof meta, rel, strlen(INNODB_DELTA_SUFFIX), INNODB_DELTA_META_SUFFIX, err)))
			rc = add_delta(p, inc, name, rel, meta, err);
	}
	/* X.del: the table was dropped or rebuilt during the incremental backup */
	for (size_t i = 0; !rc && i < f.n[K_DEL]; i++) {
		if (!(rc = inv_table_file_of(name, sizeof name, NULL, f.v[K_DEL][i], err)))
			drop(p, name);
		p->markers++;
	}
	/* X.ren: every rename at once (a swap of two names works) */
	size_t nr = f.n[K_REN];
	ren *r = nr ? calloc(nr, sizeof *r) : NULL;
	if (nr && !r && !rc)
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	size_t il = strlen(inc);
	for (size_t i = 0; !rc && i < nr; i++) {
		char to[4096];
		if ((rc = inv_table_file_of(r[i].from, sizeof r[i].from, NULL, f.v[K_REN][i], err)) ||
		    (rc = xb_marker_ren_read(inc, f.v[K_REN][i], to, sizeof to, err)))
			break;
		snprintf(r[i].to, sizeof r[i].to, "%s", strncmp(to, inc, il) || to[il] != '/' ? to : to + il + 1);
		deltas_item *it = find_linear(p, r[i].from);
		if (it) {
			r[i].item = *it, r[i].had = true;
			*it = p->v[--p->n]; /* taken out, name and src now owned by r[i].item */
		}
		p->markers++;
	}
	for (size_t i = 0; i < nr; i++) {
		if (!r[i].had)
			continue;
		if (!rc)
			rc = put(p, r[i].to, r[i].item.src, &r[i].item.meta, err);
		free(r[i].item.name);
		free(r[i].item.src);
	}
	free(r);
	/* X.new.delta: the table was created or rebuilt during the backup; its delta is X's */
	for (size_t i = 0; !rc && i < f.n[K_NEWDELTA]; i++) {
		const char *rel = f.v[K_NEWDELTA][i];
		char marker[4096]; /* "db/t.new", the name of the table's whole copy */
		if (!(rc = swap_end(marker, sizeof marker, rel, strlen(NEW_DELTA), XB_MARKER_NEW, err)) &&
		    !(rc = inv_table_file_of(name, sizeof name, NULL, marker, err)) &&
		    !(rc = swap_end(meta, sizeof meta, rel, strlen(NEW_DELTA), NEW_META, err)))
			rc = add_delta(p, inc, name, rel, meta, err);
		p->markers++;
	}
	/* X.new: a whole copy replaces X */
	for (size_t i = 0; !rc && i < f.n[K_NEW]; i++) {
		char src[4096];
		if (!(rc = inv_table_file_of(name, sizeof name, NULL, f.v[K_NEW][i], err)) &&
		    !(rc = xb_path_join(src, sizeof src, inc, f.v[K_NEW][i], err)))
			rc = put(p, name, src, NULL, err);
		p->markers++;
	}
	files_free(&f);
	if (rc)
		deltas_plan_free(p);
	else if (p->n > 1)
		qsort(p->v, p->n, sizeof *p->v, by_name);
	return rc;
}

const deltas_item *deltas_plan_find(const deltas_plan *p, const char *name)
{
	deltas_item key = {.name = (char *)name};
	return p->n ? bsearch(&key, p->v, p->n, sizeof *p->v, by_name) : NULL;
}

/* ---------------------------------------------------------------- apply */

/* A tablespace file of the target as the apply knows it. */
typedef struct tfile {
	char *rel;          /* its name now (NULL: deleted) */
	uint32_t id;        /* space id from page 0 */
	bool identified;    /* page 0 gave the id */
	bool claimed;       /* a delta of the plan resolved to it */
	inv_kind kind;      /* what the inventory found it to be */
	uint64_t first_page; /* INV_SYSTEM: its first page */
} tfile;

typedef struct applier {
	const char *target;
	tfile *f;
	size_t n, cap;
	uint32_t logical;   /* the server's page size */
	deltas_stats *st;
	char **dirs;        /* directories (relative, "" the target) whose names changed */
	size_t ndirs;
	/* the writing of the pages, once every delta is resolved */
	const deltas_plan *p;
	size_t *order;      /* the plan's deltas: the system tablespace's first, then the others */
	size_t norder;
	size_t nsys;        /* how many of order are the system tablespace's (one job, in order) */
	size_t *tf;         /* per plan entry: index in f of its file */
	uint64_t *pages;    /* per plan entry: pages written */
	bool *done;         /* per plan entry: applied and fsynced */
	bool (*after_file)(void);
	int threads;        /* workers writing pages */
} applier;

static tfile *by_rel(applier *a, const char *rel)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->f[i].rel && !strcmp(a->f[i].rel, rel))
			return &a->f[i];
	return NULL;
}

static tfile *by_id(applier *a, uint32_t id)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->f[i].rel && a->f[i].identified && a->f[i].id == id && a->f[i].kind == INV_TABLE)
			return &a->f[i];
	return NULL;
}

static int tfile_add(applier *a, const char *rel, uint32_t id, bool identified, inv_kind kind, uint64_t first)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		tfile *v = realloc(a->f, cap * sizeof *v);
		if (!v)
			return -1;
		a->f = v, a->cap = cap;
	}
	tfile *t = &a->f[a->n];
	memset(t, 0, sizeof *t);
	if (!(t->rel = strdup(rel)))
		return -1;
	t->id = id, t->identified = identified, t->kind = kind, t->first_page = first;
	a->n++;
	return 0;
}

static int set_rel(tfile *t, const char *rel, xb_error *err)
{
	char *s = strdup(rel);
	if (!s)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	free(t->rel);
	t->rel = s;
	return 0;
}

/* The directory of rel (a name in it changed) is fsynced at the end. */
static int touched(applier *a, const char *rel, xb_error *err)
{
	const char *slash = strrchr(rel, '/');
	size_t len = slash ? (size_t)(slash - rel) : 0;
	for (size_t i = 0; i < a->ndirs; i++)
		if (strlen(a->dirs[i]) == len && !strncmp(a->dirs[i], rel, len))
			return 0;
	char **v = realloc(a->dirs, (a->ndirs + 1) * sizeof *v);
	if (!v)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	a->dirs = v;
	if (!(v[a->ndirs] = strndup(rel, len)))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	a->ndirs++;
	return 0;
}

/* The database directory of rel under the target, created when missing. */
static int db_dir(const applier *a, const char *rel, xb_error *err)
{
	const char *slash = strrchr(rel, '/');
	if (!slash)
		return 0;
	char db[4096], path[4096];
	snprintf(db, sizeof db, "%.*s", (int)(slash - rel), rel);
	int rc = xb_path_join(path, sizeof path, a->target, db, err);
	return rc ? rc : xb_mkdir_p(path, 0750, err);
}

static int move(applier *a, tfile *t, const char *to, xb_error *err)
{
	char from_p[4096], to_p[4096];
	int rc = xb_path_join(from_p, sizeof from_p, a->target, t->rel, err);
	if (!rc)
		rc = xb_path_join(to_p, sizeof to_p, a->target, to, err);
	if (!rc)
		rc = db_dir(a, to, err);
	if (!rc)
		rc = touched(a, t->rel, err);
	if (!rc)
		rc = touched(a, to, err);
	if (rc)
		return rc;
	xb_info("Renaming %s to %s", from_p, to_p);
	if (xb_file_rename(XB_FILE_CWD, from_p, XB_FILE_CWD, to_p, true))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", from_p, to_p, strerror(errno));
	return set_rel(t, to, err);
}

/* The file size at least bytes (never shrunk). */
static int extend_to(int fd, const char *path, uint64_t bytes, xb_error *err)
{
	off_t size = xb_file_size(fd);
	if (size < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot stat %s: %s", path, strerror(errno));
	if ((uint64_t)size >= bytes)
		return 0;
	if (xb_file_truncate(fd, (off_t)bytes))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot extend %s to %llu bytes: %s", path,
				  (unsigned long long)bytes, strerror(errno));
	return 0;
}

/* The file the delta of it goes to (its index in a->f into *out), found or
 * made as deltas.h says. */
static int resolve(applier *a, const deltas_item *it, size_t *out, xb_error *err)
{
	char path[4096];
	int rc = xb_path_join(path, sizeof path, a->target, it->name, err);
	if (rc)
		return rc;
	tfile *at = by_rel(a, it->name);
	uint32_t id = it->meta.space_id;
	if (!inv_is_table_file(xb_path_base(it->name))) {
		/* the system tablespace and undo files: by name */
		if (!at)
			return xb_err_set(err, XB_E_MISSING_FILE, "%s has no %s for the incremental's %s", a->target,
					  it->name, it->src);
		*out = (size_t)(at - a->f);
		return 0;
	}
	if (at && at->identified && (at->id == id || id == INNODB_DELTA_NO_SPACE)) {
		*out = (size_t)(at - a->f);
		return 0;
	}
	if (at && at->identified) {
		char tmp[4200];
		const char *slash = strrchr(it->name, '/');
		int dl = slash ? (int)(slash - it->name) + 1 : 0;
		if ((size_t)snprintf(tmp, sizeof tmp, "%.*sxtrabackup_tmp_#%u.ibd", dl, it->name, at->id) >= sizeof tmp)
			return xb_err_set(err, XB_E_USAGE, "path too long: %s", it->name);
		if ((rc = move(a, at, tmp, err)))
			return rc;
		a->st->moved_aside++;
	} else if (at) {
		/* no valid page 0: no tablespace the incremental can know */
		if ((rc = touched(a, it->name, err)))
			return rc;
		if (xb_file_remove(path) && errno != ENOENT)
			return xb_err_set(err, XB_E_IO_WRITE, "cannot delete %s: %s", path, strerror(errno));
		free(at->rel);
		at->rel = NULL;
	}
	if (id == INNODB_DELTA_NO_SPACE)
		return xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s: the .meta gives no space_id, so the tablespace cannot be "
				  "matched in %s", it->src, a->target);
	tfile *t = by_id(a, id);
	if (t && t->claimed) {
		xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s and the delta of %s are both of space %u", it->src, t->rel, id);
		return xb_err_hint(err, "take the incremental backup again");
	}
	if (t) {
		if ((rc = move(a, t, it->name, err)))
			return rc;
		a->st->renamed++;
		*out = (size_t)(t - a->f);
		return 0;
	}
	/* a tablespace the target does not have: created as the server would */
	if ((rc = db_dir(a, it->name, err)) || (rc = touched(a, it->name, err)))
		return rc;
	xb_info("Creating %s (space %u)", path, id);
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_TRUNC, 0640, NULL);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", path, strerror(errno));
	rc = extend_to(fd, path, (uint64_t)INITIAL_PAGES * a->logical, err);
	close(fd);
	if (rc)
		return rc;
	if (tfile_add(a, it->name, id, true, INV_TABLE, 0))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	a->st->created++;
	*out = a->n - 1;
	return 0;
}

/* The last file of the system tablespace, NULL when none. */
static tfile *system_last(applier *a)
{
	tfile *last = NULL;
	for (size_t i = 0; i < a->n; i++)
		if (a->f[i].kind == INV_SYSTEM && (!last || a->f[i].first_page > last->first_page))
			last = &a->f[i];
	return last;
}

/* Page 0 of a delta: the tablespace is FSP_SIZE pages long (the system
 * tablespace's last file grows; a file is never shrunk). */
static int size_from_page0(applier *a, tfile *t, int fd, const char *path, const uint8_t *pg, uint32_t ps,
			   xb_error *err)
{
	uint64_t pages = be32_get(pg + FSP_SIZE);
	if (be32_get(pg + FIL_PAGE_SPACE_ID) || t->kind != INV_SYSTEM)
		return extend_to(fd, path, pages * ps, err);
	if (t->first_page)
		return 0; /* page 0 of a later system file is not the tablespace's */
	tfile *last = system_last(a);
	if (!last || pages <= last->first_page)
		return 0;
	if (last == t)
		return extend_to(fd, path, (pages - last->first_page) * ps, err);
	char lp[4096];
	int rc = xb_path_join(lp, sizeof lp, a->target, last->rel, err);
	if (rc)
		return rc;
	int lfd = xb_file_open(XB_FILE_CWD, lp, XB_FILE_WRITE, 0, NULL);
	if (lfd < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot open %s: %s", lp, strerror(errno));
	rc = extend_to(lfd, lp, (pages - last->first_page) * ps, err);
	if (!rc && xb_file_sync(lfd, false))
		rc = xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", lp, strerror(errno));
	close(lfd);
	return rc;
}

/* The pages of plan entry i written to its file (each run of consecutive
 * pages in one write), then fsynced; on worker `worker`. */
static int apply_file(applier *a, xb_parallel *pp, size_t i, int worker, xb_error *err)
{
	const deltas_item *it = &a->p->v[i];
	tfile *t = &a->f[a->tf[i]];
	char path[4096];
	int rc = xb_path_join(path, sizeof path, a->target, it->name, err);
	if (rc)
		return rc;
	innodb_delta_reader *r = innodb_delta_reader_open(it->src, it->meta.page_size, err);
	if (!r)
		return err ? err->code : XB_E_IO_READ;
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_RDWR, 0, NULL);
	if (fd < 0) {
		innodb_delta_reader_close(r);
		return xb_err_set(err, XB_E_IO_WRITE, "cannot open %s: %s", path, strerror(errno));
	}
	xb_log(worker, "Applying %s to %s", it->src, path);
	uint32_t ps = it->meta.page_size, first, count, unwritten = 0;
	uint64_t pages = 0;
	const uint8_t *pg;
	while ((rc = innodb_delta_reader_next_run(r, &first, &count, &pg, err)) == 1) {
		if (pp && xb_parallel_stopping(pp)) {
			rc = XB_E_INTERNAL; /* another file failed: its error is the run's */
			break;
		}
		if (first == 0 && (rc = size_from_page0(a, t, fd, path, pg, ps, err)))
			break;
		if (xb_file_pwrite_all(fd, pg, (size_t)count * ps, (off_t)first * ps)) {
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write pages %u to %u of %s: %s", first,
					first + count - 1, path, strerror(errno));
			break;
		}
		pages += count;
		if ((unwritten += count) >= WRITEBACK_PAGES) {
			xb_file_writeback(fd, 0, 0); /* the fsync below then has less left to wait for */
			unwritten = 0;
		}
	}
	if (!rc && xb_file_sync(fd, false))
		rc = xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", path, strerror(errno));
	close(fd);
	innodb_delta_reader_close(r);
	a->pages[i] = pages;
	if (rc)
		return rc;
	a->done[i] = true;
	if (a->after_file && a->after_file())
		return xb_err_set(err, XB_E_IO_WRITE, "applying %s: injected fault", it->src);
	return 0;
}

/* Start reading the first PREFETCH_BYTES of the delta at path (best effort). */
static void prefetch(const char *path)
{
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd >= 0) {
		xb_file_advise(fd, 0, PREFETCH_BYTES, XB_ADVISE_WILLNEED);
		close(fd);
	}
}

/* Job 0 is the system tablespace's files, in order (page 0 of the first may
 * extend the last); every other job one file. */
static int apply_job(xb_parallel *pp, void *ctx, size_t j, int worker, void *wstate, xb_error *err)
{
	(void)wstate;
	applier *a = ctx;
	size_t from = j, to = j + 1;
	if (a->nsys)
		from = j ? a->nsys + j - 1 : 0, to = j ? from + 1 : a->nsys;
	/* the file a worker takes next is read ahead meanwhile */
	size_t ahead = to - 1 + (size_t)a->threads;
	if (ahead < a->norder && ahead >= to)
		prefetch(a->p->v[a->order[ahead]].src);
	for (size_t k = from; k < to; k++) {
		int rc = apply_file(a, pp, a->order[k], worker, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Do the files in and dst_fd hold the same bytes (both size bytes long)? */
static int same_bytes(int in, const char *src, int dst_fd, const char *dst, off_t size, uint8_t *buf, bool *same,
		      xb_error *err)
{
	const size_t half = COPY_BUF / 2;
	*same = false;
	for (off_t off = 0; off < size;) {
		ssize_t a = xb_file_pread_all(in, buf, half, off);
		if (a < 0)
			return xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", src, strerror(errno));
		ssize_t b = xb_file_pread_all(dst_fd, buf + half, half, off);
		if (b < 0)
			return xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", dst, strerror(errno));
		if (a != b || !a || memcmp(buf, buf + half, (size_t)a))
			return 0;
		off += a;
	}
	*same = true;
	return 0;
}

static int stage_file(const char *src, const char *tmp, bool keep_same, const char *dst, bool *same,
		      uint64_t *bytes, xb_error *err)
{
	int in = xb_file_open(XB_FILE_CWD, src, XB_FILE_READ, 0, NULL);
	if (in < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", src, strerror(errno));
	int rc = 0, out = -1;
	uint8_t *buf = malloc(COPY_BUF);
	if (!buf)
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	if (!rc && keep_same) {
		int d = xb_file_open(XB_FILE_CWD, dst, XB_FILE_READ, 0, NULL);
		if (d >= 0) {
			off_t ss = xb_file_size(in), ds = xb_file_size(d);
			if (ss < 0)
				rc = xb_err_set(err, XB_E_IO_READ, "cannot stat %s: %s", src, strerror(errno));
			else if (ss == ds)
				rc = same_bytes(in, src, d, dst, ss, buf, same, err);
			close(d);
		}
	}
	if (!rc && !*same) {
		out = xb_file_open(XB_FILE_CWD, tmp, XB_FILE_WRITE | XB_FILE_CREATE | XB_FILE_TRUNC, 0640, NULL);
		if (out < 0)
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", tmp, strerror(errno));
	}
	for (off_t off = 0; !rc && out >= 0;) {
		ssize_t got = xb_file_pread_all(in, buf, COPY_BUF, off);
		if (got < 0)
			rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", src, strerror(errno));
		else if (got == 0)
			break;
		else if (xb_file_pwrite_all(out, buf, (size_t)got, off))
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", tmp, strerror(errno));
		else
			off += got, *bytes += (uint64_t)got;
	}
	if (!rc && out >= 0)
		xb_file_writeback(out, 0, 0);
	free(buf);
	close(in);
	if (out >= 0)
		close(out);
	if (rc && out >= 0)
		(void)xb_file_remove(tmp);
	return rc;
}

int deltas_copy_stage(const char *src, const char *dst, bool keep_same, bool *same, uint64_t *bytes, xb_error *err)
{
	char tmp[4200];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s%s", dst, TMP_SUFFIX) >= sizeof tmp)
		return xb_err_set(err, XB_E_USAGE, "path too long: %s", dst);
	*same = false;
	return stage_file(src, tmp, keep_same, dst, same, bytes, err);
}

int deltas_copy_commit(const char *dst, xb_error *err)
{
	char tmp[4200];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s%s", dst, TMP_SUFFIX) >= sizeof tmp)
		return xb_err_set(err, XB_E_USAGE, "path too long: %s", dst);
	int rc = 0, fd = xb_file_open(XB_FILE_CWD, tmp, XB_FILE_WRITE, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot open %s: %s", tmp, strerror(errno));
	if (xb_file_sync(fd, false))
		rc = xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", tmp, strerror(errno));
	close(fd);
	if (!rc && xb_file_rename(XB_FILE_CWD, tmp, XB_FILE_CWD, dst, true))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", tmp, dst, strerror(errno));
	if (rc)
		(void)xb_file_remove(tmp);
	return rc;
}

void deltas_copy_abort(const char *dst)
{
	char tmp[4200];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s%s", dst, TMP_SUFFIX) < sizeof tmp)
		(void)xb_file_remove(tmp);
}

int deltas_copy_file(const char *src, const char *dst, uint64_t *bytes, xb_error *err)
{
	bool same;
	int rc = deltas_copy_stage(src, dst, false, &same, bytes, err);
	return rc ? rc : deltas_copy_commit(dst, err);
}

/* A whole copy (X.new) copied in as X. */
static int copy_whole(applier *a, const deltas_item *it, xb_error *err)
{
	char dst[4096];
	int rc = xb_path_join(dst, sizeof dst, a->target, it->name, err);
	if (!rc)
		rc = db_dir(a, it->name, err);
	if (!rc)
		rc = touched(a, it->name, err);
	if (rc)
		return rc;
	xb_info("Copying %s to %s", it->src, dst);
	if (!(rc = deltas_copy_file(it->src, dst, &a->st->bytes, err)))
		a->st->copied++;
	return rc;
}

/* Every delta's file found or made, in the plan's order (renames, moves
 * aside and creations depend on it); the order of the writing made. */
static int resolve_all(applier *a, xb_error *err)
{
	const deltas_plan *p = a->p;
	size_t *other = p->n ? calloc(p->n, sizeof *other) : NULL;
	if (p->n && (!other || !(a->order = calloc(p->n, sizeof *a->order)) ||
		     !(a->tf = calloc(p->n, sizeof *a->tf)) || !(a->pages = calloc(p->n, sizeof *a->pages)) ||
		     !(a->done = calloc(p->n, sizeof *a->done)))) {
		free(other);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	size_t nother = 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < p->n; i++) {
		if (p->v[i].whole)
			continue;
		if ((rc = resolve(a, &p->v[i], &a->tf[i], err)))
			break;
		tfile *t = &a->f[a->tf[i]];
		t->claimed = true;
		if (t->kind == INV_SYSTEM)
			a->order[a->nsys++] = i;
		else
			other[nother++] = i;
	}
	if (!rc && nother)
		memcpy(a->order + a->nsys, other, nother * sizeof *other);
	a->norder = a->nsys + nother;
	free(other);
	return rc;
}

/* fsync the directories whose names changed, the target's own last. */
static int sync_dirs(applier *a, xb_error *err)
{
	if (!a->ndirs)
		return 0;
	int rc = 0;
	for (size_t i = 0; !rc && i <= a->ndirs; i++) {
		char path[4096];
		const char *d = i < a->ndirs ? a->dirs[i] : "";
		if (i < a->ndirs && !*d)
			continue;
		if (*d)
			rc = xb_path_join(path, sizeof path, a->target, d, err);
		else
			snprintf(path, sizeof path, "%s", a->target);
		if (!rc && xb_dir_sync(path))
			rc = xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", path, strerror(errno));
	}
	return rc;
}

int deltas_apply(const deltas_plan *p, const char *target, const char *data_file_path, int threads,
		 bool (*after_file)(void), deltas_stats *st, xb_error *err)
{
	uint64_t t0 = xb_clock_ns();
	memset(st, 0, sizeof *st);
	applier a = {.target = target, .st = st, .logical = 16384, .p = p, .after_file = after_file};
	int rc = 0;
	for (size_t i = 0; !rc && i < p->n; i++)
		if (p->v[i].whole)
			rc = copy_whole(&a, &p->v[i], err);
	inventory inv;
	memset(&inv, 0, sizeof inv);
	if (!rc)
		rc = inv_scan_backup(target, data_file_path, &inv, err);
	if (!rc && inv.page_size)
		a.logical = inv.page_size;
	for (size_t i = 0; !rc && i < inv.n; i++) {
		const inv_file *f = &inv.v[i];
		if (f->kind != INV_SYSTEM && f->kind != INV_UNDO && f->kind != INV_TABLE)
			continue;
		if (tfile_add(&a, f->rel, f->space_id, f->identified || f->kind == INV_SYSTEM, f->kind, f->first_page))
			rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	inv_free(&inv);
	if (!rc)
		rc = resolve_all(&a, err);
	if (!rc && a.norder) {
		xb_parallel_cfg cfg = {.threads = threads, .jobs = a.nsys ? a.norder - a.nsys + 1 : a.norder,
				       .ctx = &a, .job = apply_job};
		a.threads = xb_parallel_threads(&cfg);
		rc = xb_parallel_run(&cfg, err);
	}
	for (size_t i = 0; i < a.norder; i++) {
		size_t k = a.order[i];
		st->pages += a.pages[k];
		st->bytes += a.pages[k] * p->v[k].meta.page_size;
		st->files += a.done[k];
	}
	/* tables the incremental does not have: dropped between the backups */
	for (size_t i = 0; !rc && i < a.n; i++) {
		tfile *t = &a.f[i];
		if (!t->rel || t->kind != INV_TABLE || deltas_plan_find(p, t->rel))
			continue;
		char path[4096];
		if ((rc = xb_path_join(path, sizeof path, target, t->rel, err)) || (rc = touched(&a, t->rel, err)))
			break;
		xb_info("Deleting %s (not in the incremental backup: dropped since the base)", path);
		if (xb_file_remove(path) && errno != ENOENT)
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot delete %s: %s", path, strerror(errno));
		else
			st->deleted++;
	}
	if (!rc)
		rc = sync_dirs(&a, err);
	for (size_t i = 0; i < a.n; i++)
		free(a.f[i].rel);
	free(a.f);
	for (size_t i = 0; i < a.ndirs; i++)
		free(a.dirs[i]);
	free(a.dirs);
	free(a.order);
	free(a.tf);
	free(a.pages);
	free(a.done);
	st->ns = xb_clock_ns() - t0;
	return rc;
}
