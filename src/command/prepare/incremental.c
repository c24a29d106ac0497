/*
 * incremental.c - --prepare --target-dir=FULL --incremental-dir=INC: apply an
 * incremental backup to a prepared full backup (doc/incremental.md §2).
 *
 * Checks first, nothing changed: INC is an incremental backup, FULL a full
 * backup that is prepared, FULL's to_lsn is INC's from_lsn, both match their
 * manifests. Then the prepare's recovery runs (prepare.c) with INC's redo
 * copy; once that copy is known whole, before the first change, FULL gets
 * its pending mark (info/inc_pending.h), then the delta phase
 * (innodb/recovery/deltas.h: INC's DDL markers, deltas, whole copies,
 * tables dropped in between) and the non-InnoDB files (FULL's database
 * directories lose those INC lacks and get INC's, a file already holding
 * INC's bytes being kept, INC's metadata files are copied, databases
 * dropped in between are removed). The recovery then applies INC's
 * redo; the mark then records the checkpoints to write (done), which
 * xtrabackup_checkpoints gets (INC's to_lsn and last_lsn), and the mark is
 * removed last. INC is only read, so a prepare killed anywhere is
 * completed by running it again: the delta phase is repeated whole (pages
 * are written as INC holds them), then the redo from INC's checkpoint; a
 * mark that says done leaves only xtrabackup_checkpoints to write.
 */
#include "prepare_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fault.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/path.h"
#include "command/verify/verify.h"
#include "info/inc_pending.h"
#include "innodb/inventory.h"
#include "platform/clock.h"
#include "platform/dir.h"
#include "platform/file.h"

/* Files of a database directory that are the incremental's, whole (not InnoDB's). */
static const char *const db_exts[] = {".frm", ".isl", ".MYD", ".MYI", ".MAD", ".MAI", ".MRG", ".TRG",
				      ".TRN", ".ARM", ".ARZ", ".CSM", ".CSV", ".opt", ".par", NULL};
/* Metadata files at the top that describe the incremental's point. */
static const char *const top_files[] = {"xtrabackup_binlog_info", "xtrabackup_galera_info", "donor_galera_info",
					"xtrabackup_slave_info", "xtrabackup_info", "ib_lru_dump", NULL};
#define ARIA_LOG_PREFIX "aria_log"

/* A non-InnoDB file of the incremental that the target gets. */
typedef struct other {
	char *src;                /* its path in the incremental */
	char *rel;                /* its name in both ("db/t.frm", "xtrabackup_info") */
	bool same;                /* the target already had these bytes: kept */
} other;

typedef struct inc_run {
	const prepare_settings *s;
	const char *target, *inc;
	xb_inc_pending pend;      /* the mark written before the first change */
	deltas_stats ds;
	other *o;                 /* the incremental's non-InnoDB files, sorted by rel */
	size_t no, co;            /* count, allocated */
	uint64_t other_files;     /* non-InnoDB files copied from the incremental */
	uint64_t other_same;      /* non-InnoDB files the target already had, byte for byte */
	uint64_t other_ns;        /* wall time of the non-InnoDB files */
} inc_run;

static bool fault_delta_applied(void)
{
	return xb_fault(XB_FAULT_PREPARE_DELTA_APPLIED);
}

static bool ends_in(const char *name, const char *const *exts)
{
	for (int i = 0; exts[i]; i++)
		if (xb_path_has_suffix(name, exts[i]))
			return true;
	return false;
}

/* ---- the target's database directories cleared of what the incremental replaces */

typedef struct walk {
	inc_run *r;
	const char *db;           /* the database directory's name */
	size_t files;             /* files left in it */
	size_t removed;           /* files removed from it */
} walk;

static int other_cmp(const void *a, const void *b)
{
	return strcmp(((const other *)a)->rel, ((const other *)b)->rel);
}

/* Is rel one of the incremental's non-InnoDB files? */
static bool inc_has_other(const inc_run *r, const char *rel)
{
	other key = {.rel = (char *)rel};
	return r->no && bsearch(&key, r->o, r->no, sizeof *r->o, other_cmp);
}

/* A file the incremental also has stays (replaced later unless its bytes are
 * the same); every other one that is not InnoDB's goes. */
static int clear_file(void *ctx, const xb_dirent *e, xb_error *err)
{
	walk *w = ctx;
	if (e->is_dir) {
		w->files++;
		return 0;
	}
	if (xb_path_has_suffix(e->name, ".ibd") || xb_path_has_suffix(e->name, INNODB_DELTA_SUFFIX) ||
	    xb_path_has_suffix(e->name, INNODB_DELTA_META_SUFFIX)) {
		w->files++;
		return 0;
	}
	char rel[4096];
	int rc = xb_path_join(rel, sizeof rel, w->db, e->name, err);
	if (rc)
		return rc;
	if (inc_has_other(w->r, rel)) {
		w->files++;
		return 0;
	}
	if (xb_file_remove(e->path) && errno != ENOENT)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot delete %s: %s", e->path, strerror(errno));
	w->removed++;
	return 0;
}

/* Does the incremental have database directory db? */
static bool inc_has_dir(const inc_run *r, const char *db)
{
	char p[4096];
	struct stat st;
	return !xb_path_join(p, sizeof p, r->inc, db, NULL) && !stat(p, &st) && S_ISDIR(st.st_mode);
}

static int clear_db(void *ctx, const xb_dirent *e, xb_error *err)
{
	inc_run *r = ctx;
	if (!e->is_dir || !inv_is_database_name(e->name))
		return 0;
	walk w = {.r = r, .db = e->name};
	int rc = xb_dir_each(e->path, 0, clear_file, &w, err);
	/* a database directory left empty that the incremental lacks: dropped in between */
	if (!rc && !w.files && !inc_has_dir(r, e->name)) {
		xb_info("Removing %s (the database was dropped since the base)", e->path);
		if (rmdir(e->path) && errno != ENOENT)
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot remove %s: %s", e->path, strerror(errno));
	} else if (!rc && w.removed && xb_dir_sync(e->path)) {
		rc = xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", e->path, strerror(errno));
	}
	return rc;
}

/* ---- the incremental's non-InnoDB files copied over
 *
 * Listed first (the clearing above keeps what is listed), then staged on the
 * parallel executor: a target file with the same bytes is kept, the others
 * are written to .xbtmp with their write-back started; then fsynced and
 * renamed in place, again in parallel; the directories last. */

static int other_add(inc_run *r, const char *src, const char *rel, xb_error *err)
{
	if (r->no == r->co) {
		size_t cap = r->co ? 2 * r->co : 256;
		other *v = realloc(r->o, cap * sizeof *v);
		if (!v)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		r->o = v, r->co = cap;
	}
	other *o = &r->o[r->no];
	memset(o, 0, sizeof *o);
	if (!(o->src = strdup(src)) || !(o->rel = strdup(rel))) {
		free(o->src);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	r->no++;
	return 0;
}

static void others_free(inc_run *r)
{
	for (size_t i = 0; i < r->no; i++) {
		free(r->o[i].src);
		free(r->o[i].rel);
	}
	free(r->o);
	r->o = NULL;
	r->no = r->co = 0;
}

static int list_db_file(void *ctx, const xb_dirent *e, xb_error *err)
{
	walk *w = ctx;
	if (!e->is_file || !ends_in(e->name, db_exts))
		return 0;
	char rel[4096];
	int rc = xb_path_join(rel, sizeof rel, w->db, e->name, err);
	return rc ? rc : other_add(w->r, e->path, rel, err);
}

static int list_other(void *ctx, const xb_dirent *e, xb_error *err)
{
	inc_run *r = ctx;
	if (e->is_file) {
		bool top = !strncmp(e->name, ARIA_LOG_PREFIX, strlen(ARIA_LOG_PREFIX));
		for (int i = 0; !top && top_files[i]; i++)
			top = !strcmp(e->name, top_files[i]);
		return top ? other_add(r, e->path, e->name, err) : 0;
	}
	if (!e->is_dir || !inv_is_database_name(e->name))
		return 0;
	walk w = {.r = r, .db = e->name};
	return xb_dir_each(e->path, 0, list_db_file, &w, err);
}

/* The target's database directories the incremental has (created when missing). */
static int make_db(void *ctx, const xb_dirent *e, xb_error *err)
{
	inc_run *r = ctx;
	if (!e->is_dir || !inv_is_database_name(e->name))
		return 0;
	char dir[4096];
	int rc = xb_path_join(dir, sizeof dir, r->target, e->name, err);
	return rc ? rc : xb_mkdir_p(dir, 0750, err);
}

static int stage_job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	(void)p, (void)worker, (void)wstate;
	inc_run *r = ctx;
	char dst[4096];
	uint64_t bytes = 0;
	int rc = xb_path_join(dst, sizeof dst, r->target, r->o[i].rel, err);
	return rc ? rc : deltas_copy_stage(r->o[i].src, dst, true, &r->o[i].same, &bytes, err);
}

static int commit_job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	(void)p, (void)worker, (void)wstate;
	inc_run *r = ctx;
	if (r->o[i].same)
		return 0;
	char dst[4096];
	int rc = xb_path_join(dst, sizeof dst, r->target, r->o[i].rel, err);
	return rc ? rc : deltas_copy_commit(dst, err);
}

/* fsync the database directories where a file was replaced. */
static int sync_other_dirs(inc_run *r, xb_error *err)
{
	const char *last = NULL;
	size_t last_len = 0;
	for (size_t i = 0; i < r->no; i++) {
		const char *rel = r->o[i].rel, *slash = strchr(rel, '/');
		if (r->o[i].same || !slash)
			continue;
		size_t len = (size_t)(slash - rel);
		if (last && len == last_len && !strncmp(last, rel, len))
			continue; /* sorted: a directory's files are together */
		last = rel, last_len = len;
		char db[4096], path[4096];
		snprintf(db, sizeof db, "%.*s", (int)len, rel);
		int rc = xb_path_join(path, sizeof path, r->target, db, err);
		if (rc)
			return rc;
		if (xb_dir_sync(path))
			return xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", path, strerror(errno));
	}
	return 0;
}

static int copy_others(inc_run *r, xb_error *err)
{
	int rc = xb_dir_each(r->inc, 0, make_db, r, err);
	if (rc || !r->no)
		return rc;
	xb_parallel_cfg cfg = {.threads = r->s->threads, .jobs = r->no, .ctx = r, .job = stage_job};
	if (!(rc = xb_parallel_run(&cfg, err))) {
		cfg.job = commit_job;
		rc = xb_parallel_run(&cfg, err);
	}
	for (size_t i = 0; rc && i < r->no; i++) {
		char dst[4096];
		if (!r->o[i].same && !xb_path_join(dst, sizeof dst, r->target, r->o[i].rel, NULL))
			deltas_copy_abort(dst); /* staged, not committed: no .xbtmp left behind */
	}
	if (rc)
		return rc;
	for (size_t i = 0; i < r->no; i++)
		r->o[i].same ? r->other_same++ : r->other_files++;
	return sync_other_dirs(r, err);
}

/* ---- the step before the first change */

static int first_change(void *ctx, xb_error *err)
{
	inc_run *r = ctx;
	int rc = xb_inc_pending_write(r->target, &r->pend, err);
	if (rc)
		return rc;
	xb_info("%s: applying the incremental backup %s (LSN %llu to %llu)", r->target, r->inc, r->pend.from_lsn,
		r->pend.to_lsn);
	char *dfp = NULL;
	int level = 6;
	deltas_plan p;
	if ((rc = prepare_backup_cnf(r->target, &dfp, &level, err)))
		return rc;
	if (!(rc = deltas_plan_build(r->inc, &p, err))) {
		xb_info("%zu tablespaces in the incremental backup (%d DDL markers of it carried out)", p.n, p.markers);
		rc = deltas_apply(&p, r->target, dfp, r->s->threads, fault_delta_applied, &r->ds, err);
		deltas_plan_free(&p);
	}
	free(dfp);
	uint64_t t0 = xb_clock_ns();
	if (!rc)
		rc = xb_dir_each(r->inc, 0, list_other, r, err);
	if (!rc && r->no > 1)
		qsort(r->o, r->no, sizeof *r->o, other_cmp);
	if (!rc)
		rc = xb_dir_each(r->target, 0, clear_db, r, err);
	if (!rc)
		rc = copy_others(r, err);
	others_free(r);
	if (!rc)
		rc = xb_dir_sync(r->target) ? xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", r->target, strerror(errno))
					    : 0;
	if (rc)
		return rc;
	r->other_ns = xb_clock_ns() - t0;
	xb_info("Deltas applied: %llu files, %llu pages (%.1f MiB); tablespaces %llu created, %llu renamed, %llu moved "
		"aside, %llu copied whole, %llu deleted, in %.2f s (%d threads); other files: %llu copied, %llu already "
		"identical, in %.2f s",
		(unsigned long long)r->ds.files, (unsigned long long)r->ds.pages, (double)r->ds.bytes / 1048576.0,
		(unsigned long long)r->ds.created, (unsigned long long)r->ds.renamed,
		(unsigned long long)r->ds.moved_aside, (unsigned long long)r->ds.copied,
		(unsigned long long)r->ds.deleted, (double)r->ds.ns / 1e9, r->s->threads < 1 ? 1 : r->s->threads,
		(unsigned long long)r->other_files, (unsigned long long)r->other_same, (double)r->other_ns / 1e9);
	xb_fault(XB_FAULT_PREPARE_DELTAS_DONE);
	return 0;
}

/* Every file written: the mark says what xtrabackup_checkpoints gets. */
static int before_checkpoints(void *ctx, const xb_checkpoints *c, xb_error *err)
{
	inc_run *r = ctx;
	r->pend.done = true;
	r->pend.last_lsn = c->last_lsn;
	return xb_inc_pending_write(r->target, &r->pend, err);
}

/* A run killed between its last mark and the removal of the mark: only
 * xtrabackup_checkpoints is left to write. */
static int finish_done(const char *target, const char *inc, xb_checkpoints *tc, const xb_inc_pending *pend,
		       xb_error *err)
{
	xb_info("%s: every file of the apply of %s was written: writing %s and removing the mark", target, inc,
		XB_CHECKPOINTS_FILE);
	snprintf(tc->backup_type, sizeof tc->backup_type, "log-applied");
	tc->to_lsn = pend->to_lsn;
	tc->last_lsn = pend->last_lsn;
	tc->has_last = true;
	int rc = xb_checkpoints_rewrite(target, tc, err);
	if (!rc)
		rc = xb_inc_pending_remove(target, err);
	if (!rc)
		xb_info("the backup in %s is prepared: backup_type = log-applied, LSN %llu", target, tc->last_lsn);
	return rc;
}

/* ---- the checks */

static int check_inc(const char *inc, const char *target, xb_checkpoints *ic, xb_error *err)
{
	int rc = xb_checkpoints_read(inc, ic, err);
	if (rc)
		return rc == XB_E_TARGET && err && !err->hint[0]
			       ? xb_err_hint(err, "--incremental-dir names the incremental backup to apply to %s", target)
			       : rc;
	if (strcmp(ic->backup_type, "incremental")) {
		xb_err_set(err, XB_E_TARGET, "%s is not an incremental backup (backup_type = %s in %s): nothing to apply "
			   "to %s", inc, ic->backup_type, XB_CHECKPOINTS_FILE, target);
		return xb_err_hint(err, "--incremental-dir names an incremental backup (taken with --backup "
				   "--incremental-basedir); a full backup is prepared with --prepare --target-dir=%s", inc);
	}
	return 0;
}

static int check_target(const char *target, const char *inc, const xb_checkpoints *tc, const xb_checkpoints *ic,
			xb_error *err)
{
	if (!strcmp(tc->backup_type, "incremental") || tc->from_lsn) {
		xb_err_set(err, XB_E_TARGET, "%s is an incremental backup, not a full one: %s cannot be applied to it",
			   target, inc);
		return xb_err_hint(err, "--target-dir names the prepared full backup of the chain: xtrabackup --prepare "
				   "--target-dir=FULL --incremental-dir=%s", inc);
	}
	if (!strcmp(tc->backup_type, "full-backuped")) {
		xb_err_set(err, XB_E_NOT_PREPARED, "applying incremental backup needs a prepared target: %s is not "
			   "prepared (backup_type = full-backuped), %s was not applied", target, inc);
		return xb_err_hint(err, "prepare the full backup first: xtrabackup --prepare --target-dir=%s, then "
				   "xtrabackup --prepare --target-dir=%s --incremental-dir=%s", target, target, inc);
	}
	if (strcmp(tc->backup_type, "log-applied")) {
		xb_err_set(err, XB_E_TARGET, "%s/%s: unknown backup_type \"%s\" (log-applied expected)", target,
			   XB_CHECKPOINTS_FILE, tc->backup_type);
		return xb_err_hint(err, "the backup's completion marker is damaged or of another tool: put back %s "
				   "from another copy of this backup", XB_CHECKPOINTS_FILE);
	}
	if (tc->to_lsn != ic->from_lsn) {
		xb_err_set(err, XB_E_TARGET, "This incremental backup seems not to be proper for the target. Check "
			   "'to_lsn' of the target and 'from_lsn' of the incremental: to_lsn of %s is %llu, from_lsn "
			   "of %s is %llu", target, tc->to_lsn, inc, ic->from_lsn);
		return xb_err_hint(err, "apply the incrementals of a chain in order, each to the backup prepared with "
				   "the one before (its from_lsn is the to_lsn of the backup it was taken on)");
	}
	return 0;
}

int prepare_incremental(const prepare_settings *s, xb_error *err)
{
	const char *target = s->dir, *inc = s->inc_dir;
	xb_checkpoints ic, tc;
	int rc = check_inc(inc, target, &ic, err);
	if (!rc)
		rc = xb_checkpoints_read(target, &tc, err);
	if (rc)
		return rc;
	xb_inc_pending pend;
	bool resume;
	if ((rc = xb_inc_pending_read(target, &pend, &resume, err)))
		return rc;
	if (resume && (pend.from_lsn != ic.from_lsn || pend.to_lsn != ic.to_lsn)) {
		xb_err_set(err, XB_E_NOT_PREPARED, "%s: the incremental backup %s (LSN %llu to %llu) was being applied "
			   "and did not finish; %s (LSN %llu to %llu) is another one", target, pend.inc_dir,
			   pend.from_lsn, pend.to_lsn, inc, ic.from_lsn, ic.to_lsn);
		return xb_err_hint(err, "complete that one first: xtrabackup --prepare --target-dir=%s "
				   "--incremental-dir=%s", target, pend.inc_dir);
	}
	int dfd;
	if ((rc = prepare_lock(target, &dfd, err)))
		return rc;
	if (resume && pend.done) {
		rc = finish_done(target, inc, &tc, &pend, err);
		close(dfd);
		return rc;
	}
	if (resume)
		xb_info("%s: the apply of %s did not finish: it is done again whole", target, inc);
	rc = check_target(target, inc, &tc, &ic, err);
	verify_result ivr, vr;
	memset(&ivr, 0, sizeof ivr);
	memset(&vr, 0, sizeof vr);
	xb_manifest im, m;
	xb_manifest_init(&im);
	xb_manifest_init(&m);
	bool have_m = false;
	if (!rc)
		rc = verify_backup(inc, "--prepare", ic.backup_type, s->threads, VERIFY_QUICK, NULL, &im, &ivr, err);
	if (!rc && !resume) {
		rc = verify_backup(target, "--prepare", tc.backup_type, s->threads, VERIFY_QUICK, NULL, &m, &vr, err);
		have_m = vr.have_manifest;
	} else if (!rc) {
		/* files changed by the apply that did not finish: read whole again at the end */
		int mr = xb_manifest_read(target, &m, err);
		have_m = !mr;
		if (mr && err)
			xb_err_clear(err);
	}
	if (!rc) {
		xb_fault(XB_FAULT_PREPARE_STARTED);
		inc_run r = {.s = s, .target = target, .inc = inc};
		snprintf(r.pend.inc_dir, sizeof r.pend.inc_dir, "%s", inc);
		r.pend.from_lsn = ic.from_lsn;
		r.pend.to_lsn = ic.to_lsn;
		prepare_inc pi = {.dir = inc, .to_lsn = ic.to_lsn, .last_lsn = ic.has_last ? ic.last_lsn : ic.to_lsn,
				  .before_apply = first_change, .ctx = &r, .deltas = &r.ds,
				  .before_checkpoints = before_checkpoints};
		rc = prepare_run(s, target, &tc, have_m ? &m : NULL, &vr.checked, &pi, err);
	}
	verify_result_free(&ivr);
	verify_result_free(&vr);
	xb_manifest_free(&im);
	xb_manifest_free(&m);
	close(dfd);
	return rc;
}
