/*
 * restore.c - the --copy-back and --move-back commands: put a prepared backup
 * where a server will start from it.
 *
 * Sequence: the backup must be prepared (xtrabackup_checkpoints says
 * log-applied) and match its manifest (command/verify/verify.h); the layout comes from the option files (layout.c); the plan
 * is built and checked before anything is written, so a refused restore
 * changes nothing. Then --parallel workers take files largest first. A copy
 * goes to "<dst>.xbrestore" (data extents only, so sparse files stay sparse,
 * copied inside the kernel where it can), is fsynced and renamed to its
 * name without replacing anything (platform/file.h). A move is a rename when
 * the backup and the destination share a file system, else the same copy
 * followed by removing the source: a file is always whole in at least one of
 * the two places, so a --move-back that fails part-way loses nothing. Every
 * destination directory is fsynced at the end. The buffer-pool dump of the
 * backup (warm.c) is sorted, cleaned and written to innodb_buffer_pool_filename.
 * The redo log goes last, alone, after every other file is whole and
 * fsynced: a datadir that a restore stopped in (even by kill -9) has no
 * ib_logfile0, so the server refuses it instead of starting on part of the
 * backup. On failure the log says how many files were and were not
 * restored, and which was the first not restored; a failed --copy-back then
 * removes the files it had copied (and the directories it leaves empty), so
 * the datadir is as it was before the run. The workers are
 * common/parallel.h's.
 */
#include "restore_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/command.h"
#include "command/filecopy.h"
#include "innodb/inventory.h"
#include "innodb/recovery/journal.h"
#include "innodb/warm.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/path.h"
#include "common/progress.h"
#include "info/export_pending.h"
#include "info/inc_pending.h"
#include "info/binlog_info.h"
#include "info/checkpoints.h"
#include "command/verify/verify.h"
#include "info/mru.h"
#include "info/statcache.h"
#include "info/slave_info.h"
#include "platform/dir.h"
#include "platform/file.h"


typedef struct rctx {
	rplan *plan;                /* what to do */
	bool move;                  /* --move-back */
	_Atomic size_t done_files;  /* entries finished */
	_Atomic uint64_t done_bytes; /* their bytes */
	volatile uint64_t *progress; /* progress counter, may be NULL */
} rctx;

/* The directories above path (mkdir -p of its parent). */
static int parent_dirs(const char *path, xb_error *err)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return 0;
	char dir[PATH_MAX * 2];
	size_t n = (size_t)(slash - path);
	if (n >= sizeof dir)
		return xb_err_set(err, XB_E_USAGE, "path too long (%zu bytes, at most %zu): %.*s", n, sizeof dir - 1, (int)n,
				  path);
	memcpy(dir, path, n);
	dir[n] = '\0';
	return xb_mkdir_p(dir, 0750, err);
}

/* Copy f->src to f->dst through a temporary name; holes stay holes. */
static int copy_file(rctx *c, const rfile *f, xb_error *err)
{
	char tmp[PATH_MAX * 2 + 16];
	if (snprintf(tmp, sizeof tmp, "%s.xbrestore", f->dst) >= (int)sizeof tmp)
		return xb_err_set(err, XB_E_USAGE, "path too long (at most %zu bytes): %s.xbrestore", sizeof tmp - 1, f->dst);
	int in = open(f->src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", f->src, strerror(errno));
	struct stat st;
	if (fstat(in, &st)) {
		close(in);
		return xb_err_set(err, XB_E_IO_READ, "cannot stat %s: %s", f->src, strerror(errno));
	}
	int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 0777);
	if (out < 0) {
		close(in);
		return xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", tmp, strerror(errno));
	}
	int rc = filecopy_data(in, out, f->src, tmp, c->progress, err);
	if (close(out) && !rc)
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", tmp, strerror(errno));
	close(in);
	if (!rc && xb_file_rename(XB_FILE_CWD, tmp, XB_FILE_CWD, f->dst, false))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", tmp, f->dst, strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

static int restore_one(rctx *c, rfile *f, int worker, xb_error *err)
{
	int rc = parent_dirs(f->dst, err);
	if (rc)
		return rc;
	if (f->kind == RF_DIR) {
		if ((rc = xb_mkdir_p(f->dst, 0750, err)))
			return rc;
		if (c->move && rmdir(f->src) && errno != ENOENT)
			xb_warn("cannot remove the empty directory %s from the backup: %s", f->src, strerror(errno));
		return 0;
	}
	xb_log(worker, "%s %s to %s", c->move ? "Moving" : "Copying", f->rel, f->dst);
	if (c->move) {
		if (xb_file_rename(XB_FILE_CWD, f->src, XB_FILE_CWD, f->dst, false) == 0) {
			if (c->progress)
				__atomic_fetch_add(c->progress, f->size, __ATOMIC_RELAXED);
			return 0;
		}
		if (errno != EXDEV)
			return xb_err_set(err, XB_E_IO_WRITE, "cannot move %s to %s: %s", f->src, f->dst, strerror(errno));
	}
	if ((rc = copy_file(c, f, err)))
		return rc;
	if (c->move && unlink(f->src))
		xb_warn("%s was copied to %s but cannot be removed from the backup: %s", f->src, f->dst,
			strerror(errno));
	return 0;
}

/* One entry of the plan, on a worker of the run; a signal stops the run. */
static int restore_job(xb_parallel *par, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	rctx *c = ctx;
	if (command_interrupted(err))
		return XB_E_INTERRUPTED;
	rfile *f = &c->plan->v[i];
	int rc = restore_one(c, f, worker, err);
	if (!rc && f->kind != RF_DIR && xb_fault(XB_FAULT_RESTORE_FILE_COPIED))
		rc = xb_err_set(err, XB_E_IO_WRITE, "restoring %s: failed by fault point restore-file-copied", f->dst);
	if (rc)
		return rc;
	f->state = 1;
	atomic_fetch_add(&c->done_files, 1);
	atomic_fetch_add(&c->done_bytes, f->size);
	return 0;
}

/* fsync every directory that received an entry (and the layout's own). */
static void sync_dirs(const rplan *p, const restore_layout *l)
{
	const char *fixed[] = {l->datadir, l->data_home, l->undo_dir, l->log_dir, l->aria_log_dir};
	for (size_t i = 0; i < p->n + sizeof fixed / sizeof *fixed; i++) {
		if (i >= p->n) {
			(void)xb_dir_sync(fixed[i - p->n]);
			continue;
		}
		const char *dst = p->v[i].dst, *slash = strrchr(dst, '/');
		char dir[PATH_MAX * 2];
		if (!p->v[i].state || !slash || slash == dst || (size_t)(slash - dst) >= sizeof dir)
			continue;
		memcpy(dir, dst, (size_t)(slash - dst));
		dir[slash - dst] = '\0';
		(void)xb_dir_sync(dir);
	}
}

/* After --move-back: the database directories it emptied go too (rmdir
 * fails on anything still holding a file, which is what we want). */
static void remove_empty_dirs(const rplan *p, const char *backup_dir)
{
	size_t top = strlen(backup_dir);
	for (size_t i = 0; i < p->n; i++) {
		char dir[PATH_MAX * 2];
		if (snprintf(dir, sizeof dir, "%s", p->v[i].src) >= (int)sizeof dir)
			continue; /* no such directory */
		for (char *slash = strrchr(dir, '/'); slash && (size_t)(slash - dir) > top; slash = strrchr(dir, '/')) {
			*slash = 0;
			if (rmdir(dir))
				break;
		}
	}
}

static double gib(uint64_t b)
{
	return (double)b / (1024.0 * 1024 * 1024);
}

/* A failed --copy-back takes back what it restored: every file it put in
 * place is removed, then the directories it leaves empty (rmdir, so a
 * directory holding anything else stays), and the datadir is as before. */
static size_t take_back(rplan *p, const restore_layout *l)
{
	size_t removed = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].state && p->v[i].kind != RF_DIR && unlink(p->v[i].dst) == 0) {
			p->v[i].state = 0;
			removed++;
		}
	const char *fixed[] = {l->datadir, l->data_home, l->undo_dir, l->log_dir, l->aria_log_dir};
	for (size_t i = p->n; i-- > 0;) {
		char dir[PATH_MAX * 2];
		if (snprintf(dir, sizeof dir, "%s", p->v[i].dst) >= (int)sizeof dir)
			continue;
		if (p->v[i].kind != RF_DIR) {
			char *slash = strrchr(dir, '/');
			if (!slash || slash == dir)
				continue;
			*slash = '\0';
		}
		for (;;) { /* up to, not including, the layout's own directories */
			bool top = false;
			for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
				top |= fixed[k] && !strcmp(fixed[k], dir);
			if (top || rmdir(dir))
				break;
			char *slash = strrchr(dir, '/');
			if (!slash || slash == dir)
				break;
			*slash = '\0';
		}
	}
	return removed;
}

/* Report a failed run: what is where now. */
static void report_failure(const rctx *c, const char *backup_dir, xb_error *err)
{
	const rplan *p = c->plan;
	size_t done = atomic_load(&c->done_files);
	const char *first = NULL;
	for (size_t i = 0; i < p->n && !first; i++)
		if (!p->v[i].state)
			first = p->v[i].rel;
	xb_warn("%s stopped: %zu of %zu files %s (%.2f of %.2f GiB); not %s: %zu, the first being %s",
		c->move ? "--move-back" : "--copy-back", done, p->n, c->move ? "moved" : "copied",
		gib(atomic_load(&c->done_bytes)), gib(p->bytes), c->move ? "moved" : "copied", p->n - done,
		first ? first : "-");
	if (c->move)
		xb_err_hint(err, "every file is whole either in the datadir or still in %s: fix the cause and run "
				 "--move-back again with --force-non-empty-directories to move the rest",
			    backup_dir);
	else
		xb_err_hint(err, "the files copied were removed again, the datadir is as it was: fix the cause and run "
				 "--copy-back again");
}

/* Say who must own the files for the server to start. */
static void ownership_hint(const restore_layout *l)
{
	struct stat st;
	if (stat(l->datadir, &st))
		return;
	const struct passwd *me = getpwuid(st.st_uid);
	const struct passwd *mysql = getpwnam("mysql");
	if (mysql && st.st_uid == mysql->pw_uid)
		return;
	char dirs[PATH_MAX * 6];
	int k = snprintf(dirs, sizeof dirs, "%s", l->datadir);
	const char *more[] = {l->data_home, l->undo_dir, l->log_dir, l->aria_log_dir};
	for (size_t i = 0; i < sizeof more / sizeof *more && k > 0 && (size_t)k < sizeof dirs; i++) {
		bool seen = strncmp(more[i], l->datadir, strlen(l->datadir)) == 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(more[i], more[j]);
		if (!seen)
			k += snprintf(dirs + k, sizeof dirs - (size_t)k, " %s", more[i]);
	}
	xb_info("The restored files belong to %s. The server must own them before it starts: "
		"chown -R %s:%s %s (or the user the server runs as)",
		me ? me->pw_name : "?", mysql ? "mysql" : "<server user>", mysql ? "mysql" : "<server group>", dirs);
}

/* How to make the restored server a replica: from xtrabackup_binlog_info (the
 * source's position) and xtrabackup_slave_info (when the source was a replica). */
static void replica_hint(const xb_binlog_info *bi, const xb_slave_info *si)
{
	if (bi) {
		if (bi->gtid[0])
			xb_info("To make the restored server a replica of the backup's source: SET GLOBAL "
				"gtid_slave_pos = '%s'; CHANGE MASTER TO MASTER_HOST='<source>', MASTER_PORT=<port>, "
				"MASTER_USER='<user>', MASTER_PASSWORD='<password>', MASTER_USE_GTID=slave_pos; START SLAVE;",
				bi->gtid);
		xb_info("%s by binary log position: CHANGE MASTER TO MASTER_LOG_FILE='%s', MASTER_LOG_POS=%llu, ...",
			bi->gtid[0] ? "Or," : "To make it a replica of the backup's source,", bi->file, bi->pos);
	}
	if (si) {
		xb_text t = {0};
		xb_slave_info_format(si, &t);
		while (t.n && t.s[t.n - 1] == '\n')
			t.s[--t.n] = '\0';
		xb_info("The backup was taken on a replica; to replicate from the same primary "
			"(" XB_SLAVE_INFO_FILE "): %s",
			t.s ? t.s : "");
		xb_text_free(&t);
	}
}

/* Whether a file for replica_hint() was read (rc of its reader): an absent
 * one is quietly not, a malformed one is a warning, not a failed restore. */
static bool got(int rc, const xb_error *e)
{
	if (rc && rc != XB_E_MISSING_FILE)
		xb_warn("%s", e->msg);
	return !rc;
}

static int run(const xb_options *o, bool move, xb_error *err)
{
	restore_settings s;
	int rc = restore_settings_resolve(o, move, &s, err);
	if (rc)
		return rc;
	const char *dir = s.dir;
	xb_checkpoints cp;
	rc = xb_checkpoints_read(dir, &cp, err);
	if (rc)
		return rc;
	if (!strcmp(cp.backup_type, "incremental")) {
		xb_err_set(err, XB_E_NOT_PREPARED, "the backup in %s is an incremental backup: nothing was restored", dir);
		return xb_err_hint(err, "an incremental is restored through its full backup: xtrabackup --prepare "
				   "--target-dir=FULL, then --prepare --target-dir=FULL --incremental-dir=%s for each "
				   "incremental in order, then --copy-back --target-dir=FULL", dir);
	}
	if (strcmp(cp.backup_type, "log-applied")) {
		xb_err_set(err, XB_E_NOT_PREPARED, "the backup in %s is not prepared (backup_type = %s): nothing was restored",
			   dir, cp.backup_type);
		return xb_err_hint(err, "run xtrabackup --prepare --target-dir=%s first", dir);
	}
	if ((rc = xb_inc_pending_refuse(dir, move ? "--move-back" : "--copy-back", err)) ||
	    (rc = xb_export_pending_refuse(dir, move ? "--move-back" : "--copy-back", err)))
		return rc;
	char jpath[PATH_MAX];
	if ((rc = xb_path_join(jpath, sizeof jpath, dir, JOURNAL_NAME, err)))
		return rc;
	if (access(jpath, F_OK) == 0) {
		xb_err_set(err, XB_E_NOT_PREPARED, "%s: a --prepare of this backup was interrupted while writing pages: "
			   "nothing was restored", jpath);
		return xb_err_hint(err, "run xtrabackup --prepare --target-dir=%s again first", dir);
	}
	verify_result vr;
	xb_manifest m;
	xb_manifest_init(&m);
	rc = verify_backup(dir, move ? "--move-back" : "--copy-back", cp.backup_type, s.parallel, 0, NULL, &m, &vr, err);
	verify_result_free(&vr);
	if (rc) {
		xb_manifest_free(&m);
		return rc;
	}
	restore_layout l;
	rplan p;
	memset(&p, 0, sizeof p);
	if ((rc = layout_resolve(&s, dir, &l, err)))
		goto out;
	if ((rc = plan_build(dir, &l, &p, err)))
		goto out;
	bool force = s.force;
	if ((rc = plan_check(&p, &l, dir, force, err)))
		goto out;
	warm_result warm;
	memset(&warm, 0, sizeof warm);
	if (p.dump) {
		struct stat st;
		if (lstat(l.bp_file, &st) == 0) {
			rc = xb_err_set(err, XB_E_TARGET, "%s already exists: nothing was restored", l.bp_file);
			xb_err_hint(err, "an existing file is never overwritten: move it away first");
			goto out;
		}
		/* read and clean it now: with --move-back the tablespaces leave the backup.
		 * The copy in recency order (--prepare keeps one) decides what a smaller
		 * buffer pool keeps. */
		char mru[PATH_MAX];
		if ((rc = xb_mru_path(mru, sizeof mru, dir, err)))
			goto out;
		bool have_mru = access(mru, R_OK) == 0;
		size_t pool_pages = warm_pool_pages(dir, s.bp_size);
		if ((rc = warm_load(dir, have_mru ? mru : p.dump, pool_pages, &warm, err)))
			goto out;
	}
	/* read now: --move-back takes xtrabackup_slave_info away */
	xb_error e;
	xb_binlog_info binlog_info;
	xb_slave_info slave_info;
	bool have_binlog_info = got(xb_binlog_info_read(dir, &binlog_info, &e), &e);
	bool have_slave_info = got(xb_slave_info_read(dir, &slave_info, &e), &e);
	int threads = s.parallel;
	xb_info("%s: %zu files (%.2f GiB) from %s into %s with %d thread(s)", move ? "Moving" : "Copying", p.n,
		gib(p.bytes), dir, l.datadir, threads);
	if ((rc = xb_mkdir_p(l.datadir, 0750, err)))
		goto out_warm;
	/* a --move-back that stops part-way leaves files moved: its rerun takes them as such */
	if (move && vr.have_manifest && m.state != XB_MANIFEST_MOVING &&
	    (rc = verify_mark(dir, &m, XB_MANIFEST_MOVING, err)))
		goto out_warm;

	rctx c;
	memset(&c, 0, sizeof c);
	c.plan = &p;
	c.move = move;
	xb_progress *prog = NULL;
	if ((rc = xb_progress_start(&prog, s.progress, move ? "moved" : "copied", NULL, NULL, err)))
		goto out_warm;
	xb_progress_add_total(prog, p.bytes);
	c.progress = xb_progress_counter(prog);
	/* the redo log last, once every other file is whole and fsynced: a
	 * restore stopped before (even by kill -9) leaves no ib_logfile0, and the
	 * server refuses to start on such a datadir instead of running on part
	 * of the backup */
	size_t last = p.n;
	for (size_t i = 0; i < p.n; i++)
		if (p.v[i].kind != RF_DIR && inv_is_redo_name(p.v[i].rel)) {
			rfile t = p.v[i];
			memmove(&p.v[i], &p.v[i + 1], (p.n - i - 1) * sizeof p.v[0]);
			p.v[p.n - 1] = t;
			last = p.n - 1;
			break;
		}
	xb_parallel_cfg run_cfg = {.threads = threads, .jobs = last, .ctx = &c, .job = restore_job};
	xb_error run_err;
	xb_err_clear(&run_err);
	int failed = xb_parallel_run(&run_cfg, &run_err);
	sync_dirs(&p, &l);
	if (!failed && last < p.n && !command_interrupted(NULL))
		failed = restore_job(NULL, &c, last, 0, NULL, &run_err);
	xb_progress_stop(prog);
	sync_dirs(&p, &l);
	if (failed || command_interrupted(NULL)) {
		if (failed)
			*err = run_err;
		else
			command_interrupted(err);
		rc = err->code ? err->code : XB_E_INTERRUPTED;
		report_failure(&c, dir, err);
		if (!move) {
			size_t n = take_back(&p, &l);
			xb_warn("--copy-back: the %zu files it had copied into %s are removed again", n, l.datadir);
		}
		goto out_warm;
	}
	if (p.dump) {
		if ((rc = warm_place(&warm, l.bp_file, s.bp_load_at_startup, err)))
			goto out_warm;
		if (move) {
			unlink(p.dump);
			if (p.dump_other)
				unlink(p.dump_other);
			char mru[PATH_MAX];
			if (!xb_mru_path(mru, sizeof mru, dir, NULL))
				unlink(mru);
		}
	} else {
		xb_info("The backup holds no buffer-pool dump: the restored server starts with a cold buffer pool");
	}
	if (move) {
		remove_empty_dirs(&p, dir);
		(void)xb_statcache_remove(dir, NULL); /* it vouched for files that are gone */
	}
	xb_info("%s %zu files (%.2f GiB) into %s", move ? "Moved" : "Copied", p.n, gib(p.bytes), l.datadir);
	ownership_hint(&l);
	replica_hint(have_binlog_info ? &binlog_info : NULL, have_slave_info ? &slave_info : NULL);
out_warm:
	xb_slave_info_free(&slave_info);
	warm_free(&warm);
out:
	plan_free(&p);
	layout_free(&l);
	xb_manifest_free(&m);
	return rc;
}

int cmd_copy_back(const xb_options *o, xb_error *err)
{
	return run(o, false, err);
}

int cmd_move_back(const xb_options *o, xb_error *err)
{
	return run(o, true, err);
}
