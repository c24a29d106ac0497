/*
 * prepare.c - the --prepare command: make a backup consistent.
 *
 * Sequence: check that --target-dir is a full backup (xtrabackup_checkpoints),
 * take an exclusive lock on the directory so two prepares never run on it at
 * once, read backup-my.cnf (cnf.c: a missing setting is warned about and
 * refused when the default does not fit the backup), check the directory
 * against its manifest (command/verify/verify.h: a damaged backup is refused
 * untouched), and once the redo copy is known whole mark the manifest
 * "preparing" (so a rerun after an interruption checks the files a prepare
 * writes only for what it never changes), carry out the DDL markers
 * (markers.c), run InnoDB crash recovery on the directory
 * (innodb/recovery/driver.h: the redo copy is applied to the datafiles,
 * which are fsynced, and the log is replaced by an empty one), then rewrite
 * the manifest to describe the prepared tree (the files it did not change
 * keep their entries; the tables' tablespaces it wrote are to be checked by
 * their pages) and xtrabackup_checkpoints with backup_type = log-applied,
 * last. The check at the start reads only the files whose stamps changed
 * since this tool last checked or wrote them (info/statcache.h).
 * Every step can be repeated: pages that already carry a record's LSN skip
 * it, markers are removed when done, the log is replaced atomically. So a
 * prepare that was killed can simply be run again, and preparing a prepared
 * backup applies nothing. The statistics are printed at the end (report.c).
 * With --incremental-dir, incremental.c checks both directories and runs the
 * same recovery with the incremental's redo copy after its delta phase.
 */
#include "prepare_int.h"
#include "settings.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/command.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/path.h"
#include "innodb/recovery/journal.h"
#include "innodb/warm.h"
#include "info/binlog_info.h"
#include "info/checkpoints.h"
#include "info/export_pending.h"
#include "info/inc_pending.h"
#include "command/verify/verify.h"
#include "platform/file.h"

typedef xb_checkpoints checkpoints;

static bool stop_requested(void)
{
	return command_interrupted(NULL);
}

/* What the step before the first change needs. */
typedef struct first_change {
	const char *dir;            /* the backup */
	xb_manifest *m;             /* its manifest, checked (NULL: none) */
	bool marked;                /* do_markers marked it "preparing" */
	xb_manifest_state was;      /* and its state before */
	int nmarkers;               /* DDL markers carried out */
} first_change;

/* Once the redo copy is known to be whole (a damaged log leaves the backup
 * untouched): the manifest marked "preparing" (a rerun then checks the files
 * a prepare writes only for what it never changes), then the DDL markers. */
static int do_markers(void *ctx, xb_error *err)
{
	first_change *fc = ctx;
	int rc;
	if (fc->m && fc->m->state != XB_MANIFEST_PREPARING) {
		fc->was = fc->m->state;
		if ((rc = verify_mark(fc->dir, fc->m, XB_MANIFEST_PREPARING, err)))
			return rc;
		fc->marked = true;
	}
	rc = markers_apply(fc->dir, &fc->nmarkers, err);
	if (!rc && fc->nmarkers)
		xb_info("%d DDL markers carried out", fc->nmarkers);
	return rc;
}

/* A prepare that failed before its first change (a full disk at the first
 * batch's reservation): the manifest's mark is taken back, so the refused
 * prepare leaves the backup byte-identical. */
static void unmark_unchanged(first_change *fc, const recovery_stats *st)
{
	char jpath[PATH_MAX];
	xb_error e;
	if (!fc->marked || fc->nmarkers || st->apply.pages_written || st->apply.files_extended ||
	    st->apply.files_truncated || xb_path_join(jpath, sizeof jpath, fc->dir, JOURNAL_NAME, &e) ||
	    access(jpath, F_OK) == 0)
		return;
	if (verify_mark(fc->dir, fc->m, fc->was, &e))
		xb_warn("%s", e.msg);
}

/* The tablespace files this prepare wrote (names relative to the backup),
 * so that the manifest's rewrite reads only those again. */
typedef struct written_set {
	const char *dir;  /* the backup */
	char **v;         /* the names, sorted once complete */
	size_t n, cap;
	bool unknown;     /* a name outside dir, or out of memory: read every file */
} written_set;

static void written_add(void *ctx, const char *path)
{
	written_set *w = ctx;
	size_t dl = strlen(w->dir);
	if (strncmp(path, w->dir, dl) || path[dl] != '/') {
		w->unknown = true;
		return;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		char **v = realloc(w->v, cap * sizeof *v);
		if (!v) {
			w->unknown = true;
			return;
		}
		w->v = v, w->cap = cap;
	}
	const char *rel = path + dl + 1;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	if (!(w->v[w->n] = strdup(rel)))
		w->unknown = true;
	else
		w->n++;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool written_has(void *ctx, const char *rel)
{
	const written_set *w = ctx;
	return w->n && bsearch(&rel, w->v, w->n, sizeof *w->v, str_cmp) != NULL;
}

static void written_free(written_set *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
}

/* An incremental's apply: its own step before the first change, then the DDL markers. */
typedef struct inc_first {
	const prepare_inc *inc;
	first_change *fc;
} inc_first;

static int do_inc_first(void *ctx, xb_error *err)
{
	inc_first *f = ctx;
	int rc = f->inc->before_apply(f->inc->ctx, err);
	return rc ? rc : do_markers(f->fc, err);
}

/* Every file a prepare may write: when the writes were not all seen. */
static bool written_any(void *ctx, const char *rel)
{
	(void)ctx;
	return verify_prepare_writes(rel);
}

static int run_steps(const prepare_settings *s, const char *dir, checkpoints *c, xb_manifest *m,
		     const xb_statcache *checked, written_set *ws, const prepare_inc *inc, xb_error *err)
{
	int rc;
	/* an incremental's apply marks the backup with its own file (info/inc_pending.h) */
	first_change fc = {.dir = dir, .m = inc ? NULL : m};
	inc_first ifc = {.inc = inc, .fc = &fc};
	if (inc) {
		c->to_lsn = inc->to_lsn;
		c->last_lsn = inc->last_lsn;
		c->has_last = true;
	}
	recovery_opts ro = {.dir = dir,
			    .log_dir = inc ? inc->dir : NULL,
			    .before_apply = inc ? do_inc_first : do_markers,
			    .before_apply_ctx = inc ? (void *)&ifc : (void *)&fc,
			    .on_written = written_add,
			    .on_written_ctx = ws,
			    .use_memory = s->use_memory,
			    .threads = s->threads,
			    .compression_level = 6,
			    .expect_end_lsn = c->has_last ? c->last_lsn : 0,
			    .progress = s->progress,
			    .should_stop = stop_requested,
			    .durable = s->durable,
			    .force_recovery = s->force_recovery,
			    .partial = s->partial || prepare_backup_partial(dir) || (inc && prepare_backup_partial(inc->dir))};
	char *dfp = NULL;
	if ((rc = prepare_backup_cnf(dir, &dfp, &ro.compression_level, err)))
		return rc;
	ro.data_file_path = dfp;
	if (s->force_limited)
		xb_warn("--innodb-force-recovery above 1 is limited to 1 for a prepare");
	if (s->force_recovery)
		xb_info("innodb_force_recovery = %d: a page that fails its checksum is left as copied", s->force_recovery);
	xb_info("applying the redo log with %d thread(s) and --use-memory=%zu MiB", ro.threads,
		ro.use_memory >> 20);
	recovery_stats st;
	memset(&st, 0, sizeof st);
	rc = recovery_run(&ro, &st, err);
	free(dfp);
	if (rc)
		unmark_unchanged(&fc, &st);
	if (rc == XB_E_INTERRUPTED && inc)
		xb_err_hint(err, "the incremental is partly applied: run the same --prepare --incremental-dir=%s again, "
			    "it applies it whole", inc->dir);
	else if (rc == XB_E_INTERRUPTED)
		xb_err_hint(err, "the backup is partly prepared: run --prepare again, it continues where it stopped");
	if ((rc == XB_E_REDO_FORMAT || rc == XB_E_REDO_CORRUPT) && err && !err->hint[0])
		xb_err_hint(err, "the backup's redo copy (ib_logfile0) is damaged and nothing was changed: put it back "
			    "from another copy of this backup, or take a new backup");
	if (rc)
		return rc;
	if (!c->has_last || st.end_lsn > c->last_lsn)
		c->last_lsn = st.end_lsn;
	if (st.has_binlog_pos) {
		xb_info("Last binlog file %s, position %llu", st.binlog_name, (unsigned long long)st.binlog_offset);
		xb_binlog_info pos = {.pos = st.binlog_offset};
		snprintf(pos.file, sizeof pos.file, "%s", st.binlog_name);
		if ((rc = xb_binlog_pos_innodb_write(dir, &pos, err)))
			return rc;
	}
	snprintf(c->backup_type, sizeof c->backup_type, "log-applied");
	c->has_last = true;
	/* the buffer-pool dump, sorted and checked against the tablespaces: before the marker */
	if ((rc = warm_prepare(dir, err)))
		return rc;
	/* the manifest describes the prepared tree before the marker says it is
	 * prepared: a file whose stamp changed since the check was written, and
	 * so was every file the recovery says it wrote (all a prepare may write
	 * when it lost count) */
	if (ws->n)
		qsort(ws->v, ws->n, sizeof *ws->v, str_cmp);
	if (m && inc)
		m->to_lsn = inc->to_lsn; /* the checkpoints written next say so */
	if (m)
		rc = verify_refresh(dir, m, s->threads, checked, ws->unknown ? written_any : written_has, ws, err);
	if (rc)
		return rc;
	if (inc && (rc = inc->before_checkpoints(inc->ctx, c, err)))
		return rc;
	xb_fault(XB_FAULT_PREPARE_BEFORE_MARKER);
	if (command_interrupted(err)) /* a signal now still leaves the backup unmarked */
		return xb_err_hint(err, "every page is applied: run --prepare again to mark the backup prepared");
	rc = xb_checkpoints_rewrite(dir, c, err);
	if (!rc && inc)
		rc = xb_inc_pending_remove(dir, err);
	if (rc)
		return rc;
	if (inc) {
		st.incremental = true;
		st.deltas = *inc->deltas;
	}
	report_log(&st);
	const char *sf = s->stats_file;
	if (sf)
		rc = report_json(&st, sf, err);
	xb_info("the backup in %s is prepared: backup_type = log-applied, LSN %llu", dir,
		(unsigned long long)st.end_lsn);
	return rc;
}

int prepare_run(const prepare_settings *s, const char *dir, checkpoints *c, xb_manifest *m,
		const xb_statcache *checked, const prepare_inc *inc, xb_error *err)
{
	written_set ws = {.dir = dir};
	int rc = run_steps(s, dir, c, m, checked, &ws, inc, err);
	written_free(&ws);
	return rc;
}

int prepare_lock(const char *dir, int *fd, xb_error *err)
{
	int dfd = xb_dir_open(XB_FILE_CWD, dir, false);
	if (dfd < 0)
		return xb_err_set(err, XB_E_TARGET, "cannot open %s: %s", dir, strerror(errno));
	if (flock(dfd, LOCK_EX | LOCK_NB)) {
		close(dfd);
		xb_err_set(err, XB_E_TARGET, "%s is locked by another process (another --prepare running?)", dir);
		return xb_err_hint(err, "wait for it to finish");
	}
	*fd = dfd;
	return 0;
}

/* --export alone, under the backup's lock. */
static int export_locked(const prepare_settings *s, const char *dir, xb_error *err)
{
	int dfd;
	int rc = prepare_lock(dir, &dfd, err);
	if (rc)
		return rc;
	rc = prepare_export(s, dir, err);
	close(dfd);
	return rc;
}

int cmd_prepare(const xb_options *o, xb_error *err)
{
	prepare_settings s;
	int rc = prepare_settings_resolve(o, &s, err);
	if (rc)
		return rc;
	const char *dir = s.dir;
	bool resume_export = xb_export_pending_found(dir);
	if (resume_export && !s.export_tables)
		return xb_export_pending_refuse(dir, "--prepare without --export", err);
	if (s.inc_dir && resume_export) {
		xb_err_set(err, XB_E_NOT_PREPARED, "%s: a --prepare --export of it did not finish: no incremental can be "
			   "applied to it now", dir);
		return xb_err_hint(err, "run xtrabackup --prepare --export --target-dir=%s first", dir);
	}
	if (s.inc_dir) {
		rc = prepare_incremental(&s, err);
		return rc || !s.export_tables ? rc : export_locked(&s, dir, err);
	}
	checkpoints c;
	rc = xb_checkpoints_read(dir, &c, err);
	if (rc)
		return rc;
	if (!strcmp(c.backup_type, "incremental") || c.from_lsn) {
		xb_err_set(err, XB_E_TARGET, "%s is an incremental backup: it is prepared by applying it to its prepared "
			   "full backup", dir);
		return xb_err_hint(err, "xtrabackup --prepare --target-dir=FULL --incremental-dir=%s", dir);
	}
	if ((rc = xb_inc_pending_refuse(dir, "--prepare", err)))
		return rc;
	if (strcmp(c.backup_type, "full-backuped") && strcmp(c.backup_type, "log-applied")) {
		xb_err_set(err, XB_E_TARGET, "%s/%s: unknown backup_type \"%s\" (full-backuped or log-applied expected)",
			   dir, XB_CHECKPOINTS_FILE, c.backup_type);
		return xb_err_hint(err, "the backup's completion marker is damaged or of another tool: put back %s from "
				   "another copy of this backup, or take a new backup", XB_CHECKPOINTS_FILE);
	}
	if (resume_export && !strcmp(c.backup_type, "log-applied")) {
		xb_warn("%s: an earlier --prepare --export of it did not finish (%s is there): it is run again, and the "
			"files the server on the backup wrote are described as they are now",
			dir, XB_EXPORT_PENDING_FILE);
		return export_locked(&s, dir, err);
	}
	if (!strcmp(c.backup_type, "log-applied"))
		xb_info("%s is already prepared: applying its (empty) log again changes nothing", dir);
	int dfd;
	if ((rc = prepare_lock(dir, &dfd, err)))
		return rc;
	verify_result vr;
	xb_manifest m;
	xb_manifest_init(&m);
	rc = verify_backup(dir, "--prepare", c.backup_type, s.threads, VERIFY_QUICK | VERIFY_ADDED_OK, NULL, &m, &vr, err);
	if (!rc) {
		xb_fault(XB_FAULT_PREPARE_STARTED);
		rc = prepare_run(&s, dir, &c, vr.have_manifest ? &m : NULL, &vr.checked, NULL, err);
	}
	if (!rc && s.export_tables)
		rc = prepare_export(&s, dir, err);
	verify_result_free(&vr);
	xb_manifest_free(&m);
	close(dfd);
	return rc;
}
