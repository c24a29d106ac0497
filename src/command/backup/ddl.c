/*
 * ddl.c - tablespaces created, renamed, truncated or dropped during the copy.
 *
 * While datafiles are copied, DDL keeps running. Under BACKUP STAGE
 * BLOCK_DDL no more DDL can start, so the InnoDB files are scanned again and
 * compared by space id with what was copied:
 *   - a copied file whose path no longer holds the same tablespace (dropped,
 *     renamed away, or replaced by TRUNCATE / a rebuilding ALTER) gets an empty
 *     "<name>.del" marker, so prepare deletes the stale copy;
 *   - a tablespace now at a path where it was not copied (created, renamed
 *     in, or rebuilt) is copied now as "<name>.new", which prepare renames to
 *     "<name>.ibd" before applying the redo log.
 * A rename is thus carried as a delete plus a fresh copy: simpler than a
 * rename marker and safe, at the price of copying a renamed table twice.
 * A tablespace created so recently that its page 0 is not on disk yet is
 * copied byte for byte, without waiting, during the copy phase already: the
 * redo log holds everything it contains. Having no space id to compare, such
 * a copy still stands at BLOCK_DDL when the path holds the same file (device
 * and inode) and the redo log names no create, delete or rename of that path
 * since the files were listed (an inode number can be reused by a table
 * created anew); the
 * follower is first brought up to the server's durable LSN, so every file
 * operation done on disk before DDL was blocked has been seen.
 * The rescan does not read page 0 again of a file copied from the same inode
 * whose path the redo log has not named in a create, delete or rename since
 * (no tablespace changes at a path without one: DROP, RENAME, TRUNCATE, a
 * rebuilding ALTER and DISCARD all log theirs); it stats those and reads page 0 of the others,
 * and the copies are made, on the --parallel workers: DDL is blocked
 * meanwhile, so this is kept short.
 * In an incremental backup the .new copies are whole files too (prepare moves
 * them into the base), and a .del makes prepare delete the base's file.
 * These are the markers mariabackup --prepare understands. The redo follower
 * reports the file operations it sees (ddl_note_file_op), which are logged as
 * they happen and remembered by path.
 */
#include "backup_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command/command.h"
#include "common/log.h"
#include "common/parallel.h"
#include "info/markers.h"
#include "innodb/inventory.h"
#include "innodb/redo_follower.h"

enum { FOP_CREATE = 1, FOP_DELETE = 2, FOP_RENAME = 3, FOP_MODIFY = 4 };

/* Paths the redo log created, deleted or renamed (from or to), as the backup
 * names them ("./db/t.ibd" -> "db/t.ibd"; an absolute path, DATA DIRECTORY,
 * as is), with the LSN. Only those at or after c->scan_lsn, the server's LSN
 * before the files were listed, count: an operation logged before was done
 * on disk before the listing (a delete, a rename: the log is written first,
 * the file changed next), or its file is gone and the CREATE at that path
 * that follows is after. A table dropped and created again before the backup
 * (its delete in the log the redo copy starts from) is not copied twice. */
static pthread_mutex_t touched_mu = PTHREAD_MUTEX_INITIALIZER;

static void touch(backup_ctx *c, const char *name, uint64_t lsn)
{
	if (!name || !*name)
		return;
	if (!strncmp(name, "./", 2))
		name += 2;
	pthread_mutex_lock(&touched_mu);
	if (c->touched_n == c->touched_cap) {
		size_t cap = c->touched_cap ? c->touched_cap * 2 : 16;
		char **v = realloc(c->touched, cap * sizeof *v);
		uint64_t *l = v ? realloc(c->touched_lsn, cap * sizeof *l) : NULL;
		if (v)
			c->touched = v;
		if (l)
			c->touched_lsn = l;
		if (!v || !l) {
			c->touched_lost = true; /* every copy is then checked by page 0, every unwritten one made again */
			pthread_mutex_unlock(&touched_mu);
			return;
		}
		c->touched_cap = cap;
	}
	if (!(c->touched[c->touched_n] = strdup(name))) {
		c->touched_lost = true;
	} else {
		c->touched_lsn[c->touched_n] = lsn;
		c->touched_n++;
	}
	pthread_mutex_unlock(&touched_mu);
}

static bool touched(backup_ctx *c, const bfile *f)
{
	pthread_mutex_lock(&touched_mu);
	bool hit = c->touched_lost;
	for (size_t i = 0; i < c->touched_n && !hit; i++)
		hit = c->touched_lsn[i] >= c->scan_lsn && (!strcmp(c->touched[i], f->rel) || !strcmp(c->touched[i], f->src));
	pthread_mutex_unlock(&touched_mu);
	return hit;
}

void ddl_touched_free(backup_ctx *c)
{
	for (size_t i = 0; i < c->touched_n; i++)
		free(c->touched[i]);
	free(c->touched);
	free(c->touched_lsn);
	c->touched = NULL;
	c->touched_lsn = NULL;
	c->touched_n = c->touched_cap = 0;
}

void ddl_note_file_op(void *ctx, int op, uint32_t space_id, const char *name, const char *new_name, uint64_t lsn)
{
	backup_ctx *c = ctx;
	switch (op) {
	case FOP_CREATE:
		xb_info("DDL tracking : create %u \"%s\" at LSN %llu", space_id, name, (unsigned long long)lsn);
		touch(c, name, lsn);
		break;
	case FOP_DELETE:
		xb_info("DDL tracking : delete %u \"%s\" at LSN %llu", space_id, name, (unsigned long long)lsn);
		touch(c, name, lsn);
		break;
	case FOP_RENAME:
		xb_info("DDL tracking : rename %u \"%s\",\"%s\" at LSN %llu", space_id, name, new_name ? new_name : "",
			(unsigned long long)lsn);
		touch(c, name, lsn);
		touch(c, new_name, lsn);
		break;
	default:
		break;
	}
}

static int by_rel(const void *a, const void *b)
{
	return strcmp((*(const bfile *const *)a)->rel, (*(const bfile *const *)b)->rel);
}

/* The InnoDB files of l, sorted by path in the backup, for find_rel. */
static bfile **index_rel(const bfile_list *l, size_t *n)
{
	bfile **v = malloc((l->n ? l->n : 1) * sizeof *v);
	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == BF_INNODB)
			v[(*n)++] = &l->v[i];
	qsort(v, *n, sizeof *v, by_rel);
	return v;
}

static bfile *find_rel(bfile **idx, size_t n, const char *rel)
{
	bfile key = {.rel = (char *)rel}, *k = &key;
	bfile **hit = bsearch(&k, idx, n, sizeof *idx, by_rel);
	return hit ? *hit : NULL;
}

/* What scan_innodb asks under BLOCK_DDL. */
typedef struct known_ctx {
	backup_ctx *c;   /* backup */
	bfile **idx;     /* its files by path in the backup */
	size_t n;        /* how many */
} known_ctx;

/* A file copied from this very inode, whose path no create, delete or rename
 * in the redo log named since the listing: the same tablespace, page 0 need
 * not be read again. */
static bool known(void *ctx, const char *rel, uint64_t dev, uint64_t ino, uint32_t *space_id)
{
	known_ctx *k = ctx;
	const bfile *old = find_rel(k->idx, k->n, rel);
	if (!old || !old->copied || !old->ino || old->ino != ino || old->dev != dev || touched(k->c, old))
		return false;
	*space_id = old->space_id;
	return true;
}

/* Whether the copy old still holds what is at its path now. */
static bool still_there(backup_ctx *c, const bfile *old, const bfile *now)
{
	if (!now || !old->copied)
		return false;
	if (old->space_id != UINT32_MAX)
		return old->space_id == now->space_id;
	/* copied before its page 0 was written: no space id to compare */
	return old->unwritten && old->ino && old->ino == now->ino && old->dev == now->dev && !touched(c, old);
}

/* The tablespaces copied (again) under BLOCK_DDL. */
typedef struct recopy {
	backup_ctx *c;   /* backup */
	bfile **f;       /* files, from the rescan */
	char **rel;      /* the name each is copied as */
	size_t n;        /* how many */
} recopy;

static int recopy_job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	recopy *r = ctx;
	bfile *f = r->f[i];
	/* a .new is taken whole by prepare, also in an incremental backup; an
	 * undo tablespace keeps its name, as a delta there */
	int rc = copy_innodb_one(r->c, f, r->rel[i], worker, !inv_is_undo_name(f->rel), err);
	if (!rc && f->deferred) {
		/* DDL is blocked: nothing is being created, and page 0 was written
		 * (not zeros) yet stayed invalid through the re-reads */
		xb_err_set(err, XB_E_CORRUPT_PAGE, "page 0 of %s is corrupt: it stays invalid with DDL blocked", f->src);
		return xb_err_hint(err, "check the server's file with: innochecksum %s", f->src);
	}
	return rc;
}

/* The follower up to what the server has made durable: every file operation
 * done on disk before DDL was blocked has been reported to ddl_note_file_op. */
static int catch_up(backup_ctx *c, xb_error *err)
{
	uint64_t lsn;
	if (c->lay.innodb_off)
		return 0;  /* no InnoDB: no file operation to catch up with */
	if (!c->rf || xb_server_flushed_lsn(&c->srv, &lsn, err))
		return c->rf ? (err ? err->code : XB_E_SERVER_STATE) : 0;
	return redo_follower_wait_for(c->rf, lsn, 600, command_interrupted, err);
}

int ddl_reconcile(backup_ctx *c, xb_error *err)
{
	bfile_list now = {0};
	size_t n_old = 0, n_now = 0;
	bfile **old_idx = NULL, **now_idx = NULL;
	recopy r = {.c = c};
	int rc = catch_up(c, err);
	if (!rc && !(old_idx = index_rel(&c->files, &n_old)))
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	known_ctx k = {.c = c, .idx = old_idx, .n = n_old};
	if (!rc)
		rc = scan_innodb(c, &now, known, &k, err);
	if (!rc && (!(now_idx = index_rel(&now, &n_now)) || !(r.f = calloc(now.n ? now.n : 1, sizeof *r.f)) ||
		    !(r.rel = calloc(now.n ? now.n : 1, sizeof *r.rel))))
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	int dels = 0;
	/* copied files that no longer hold the same tablespace */
	for (size_t i = 0; i < c->files.n && !rc; i++) {
		bfile *f = &c->files.v[i];
		if (f->kind != BF_INNODB || f->system_space || !f->copied)
			continue;
		if (still_there(c, f, find_rel(now_idx, n_now, f->rel)))
			continue;
		if (inv_is_undo_name(f->rel))
			continue;
		char del[4096];
		if ((rc = inv_marker_name(del, sizeof del, NULL, f->rel, XB_MARKER_DEL, err)))
			break;
		xb_info("Tablespace %u at %s was dropped, renamed or rebuilt during the backup: writing %s",
			f->space_id, f->rel, del);
		rc = xb_marker_put_del(c->meta_sink, del, err);
		dels++;
	}
	/* tablespaces not copied at their current path */
	for (size_t i = 0; i < now.n && !rc; i++) {
		bfile *n = &now.v[i];
		if (n->system_space)
			continue;
		const bfile *old = find_rel(old_idx, n_old, n->rel);
		if (old && still_there(c, old, n))
			continue;
		char rel[4096];
		if (inv_is_undo_name(n->rel))
			snprintf(rel, sizeof rel, "%s", n->rel); /* undo files are never renamed: copy in place */
		else if ((rc = inv_marker_name(rel, sizeof rel, NULL, n->rel, XB_MARKER_NEW, err)))
			break;
		xb_info("Tablespace %u at %s was created, renamed or rebuilt during the backup: copying it as %s",
			n->space_id, n->rel, rel);
		r.f[r.n] = n;
		if (!(r.rel[r.n++] = strdup(rel)))
			rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	if (!rc && r.n) {
		xb_parallel_cfg cfg = {.threads = c->set.parallel, .jobs = r.n, .ctx = &r, .job = recopy_job};
		rc = xb_parallel_run(&cfg, err);
	}
	if (!rc && (dels || r.n))
		xb_info("DDL during the backup: %d stale tablespace copies marked for deletion, %zu copied again", dels,
			r.n);
	for (size_t i = 0; i < r.n; i++)
		free(r.rel[i]);
	free(r.rel);
	free(r.f);
	free(old_idx);
	free(now_idx);
	bfile_list_free(&now);
	return rc;
}
