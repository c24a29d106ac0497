/*
 * backup.c - the --backup command.
 *
 * The sequence (see docs in README "How a backup works"):
 *  1. check the target, connect, learn the server's layout, check privileges;
 *  2. start the redo follower at the current checkpoint (before any datafile
 *     is read, so the copied log covers every change the copies may miss);
 *  3. BACKUP STAGE START, copy the InnoDB datafiles with --parallel threads,
 *     largest first, while the main thread feeds the follower the server's
 *     LSN (for the headroom check) and watches for its failure; then ask the
 *     server for a buffer-pool dump and store it (bufpool.c);
 *  4. BACKUP STAGE FLUSH and BLOCK_DDL: reconcile tablespaces changed by DDL
 *     during the copy (ddl.c), copy table definitions and non-InnoDB tables;
 *  5. BACKUP STAGE BLOCK_COMMIT: copy Aria tables and logs, record the binlog
 *     position and GTID (and replica / Galera positions), make the redo
 *     durable and copy it up to the server's LSN, stop the follower;
 *  6. BACKUP STAGE END, write the metadata files, xtrabackup_checkpoints last.
 * Any error unwinds: the connection is closed (releasing the stage locks),
 * and no completion marker is written.
 */
#include "backup_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/command.h"
#include "common/iogate.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/throttle.h"
#include "innodb/datafile.h"
#include "innodb/inventory.h"
#include "innodb/redo.h"
#include "innodb/redo_follower.h"
#include "platform/ioprio.h"
#include "sink/sink_dir_ext.h"

/* ---- layout ---------------------------------------------------------- */

static void resolve_dir(char *out, size_t n, const char *datadir, const char *v)
{
	if (!v || !*v || !strcmp(v, "./") || !strcmp(v, "."))
		snprintf(out, n, "%s", datadir);
	else if (v[0] == '/')
		snprintf(out, n, "%s", v);
	else
		snprintf(out, n, "%s/%s", datadir, v[0] == '.' && v[1] == '/' ? v + 2 : v);
	size_t l = strlen(out);
	while (l > 1 && out[l - 1] == '/')
		out[--l] = '\0';
}

static int get_var(backup_ctx *c, const char *name, char *out, size_t n, xb_error *err)
{
	char *v = NULL;
	int rc = xb_server_variable(&c->srv, name, &v, err);
	if (rc)
		return rc;
	snprintf(out, n, "%s", v ? v : "");
	free(v);
	return 0;
}

static int read_layout(backup_ctx *c, xb_error *err)
{
	server_layout *l = &c->lay;
	char v[4096];
	int rc;
	if ((rc = get_var(c, "datadir", v, sizeof v, err)))
		return rc;
	const char *ov = c->set.datadir;
	resolve_dir(l->datadir, sizeof l->datadir, "/", ov ? ov : v);
	if ((rc = get_var(c, "innodb_data_home_dir", v, sizeof v, err)))
		return rc;
	ov = c->set.data_home_dir;
	resolve_dir(l->data_home_dir, sizeof l->data_home_dir, l->datadir, ov ? ov : v);
	if ((rc = get_var(c, "innodb_data_file_path", l->data_file_path, sizeof l->data_file_path, err)))
		return rc;
	if ((rc = get_var(c, "innodb_undo_directory", v, sizeof v, err)))
		return rc;
	ov = c->set.undo_dir;
	resolve_dir(l->undo_dir, sizeof l->undo_dir, l->datadir, ov ? ov : v);
	if ((rc = get_var(c, "innodb_log_group_home_dir", v, sizeof v, err)))
		return rc;
	ov = c->set.log_dir;
	resolve_dir(l->log_dir, sizeof l->log_dir, l->datadir, ov ? ov : v);
	if ((rc = get_var(c, "aria_log_dir_path", v, sizeof v, err)))
		return rc;
	resolve_dir(l->aria_log_dir, sizeof l->aria_log_dir, l->datadir, v);
	if ((rc = get_var(c, "innodb_page_size", v, sizeof v, err)))
		return rc;
	l->page_size = (uint32_t)strtoul(v, NULL, 10);
	if ((rc = get_var(c, "innodb_log_file_size", v, sizeof v, err)))
		return rc;
	l->log_file_size = strtoull(v, NULL, 10);
	if ((rc = get_var(c, "innodb_checksum_algorithm", l->checksum_algorithm, sizeof l->checksum_algorithm, err)))
		return rc;
	if ((rc = get_var(c, "innodb_undo_tablespaces", v, sizeof v, err)))
		return rc;
	l->undo_tablespaces = atoi(v);
	if ((rc = get_var(c, "innodb_compression_level", v, sizeof v, err)))
		return rc;
	l->compression_level = *v ? atoi(v) : 6;
	if ((rc = get_var(c, "log_bin", v, sizeof v, err)))
		return rc;
	l->log_bin = !strcasecmp(v, "ON") || !strcmp(v, "1");
	snprintf(l->version, sizeof l->version, "%s", c->srv.version);
	if (c->srv.version_num < 100800 || c->srv.version_num >= 110000)
		xb_warn("server version %s: this tool is made for MariaDB 10.11 (10.8 redo format)", c->srv.version);
	xb_info("Server %s, datadir %s, InnoDB page size %u, redo log %s/ib_logfile0 (%llu bytes)", c->srv.version,
		l->datadir, l->page_size, l->log_dir, (unsigned long long)l->log_file_size);
	return 0;
}

/* ---- copying ----------------------------------------------------------- */

static xb_throttle *throttle;

int copy_plain(backup_ctx *c, const bfile *f, int worker, xb_error *err)
{
	int fd = open(f->src, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0; /* dropped meanwhile: DDL is blocked now, so it is really gone */
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", f->src, strerror(errno));
	}
	xb_sink_file *out = xb_sink_open(c->sink, f->rel, err);
	if (!out) {
		close(fd);
		return err ? err->code : XB_E_IO_WRITE;
	}
	static __thread char buf[1 << 20];
	int rc = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", f->src, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if ((rc = xb_sink_write(out, buf, (size_t)n, err)))
			break;
		if (c->progress)
			atomic_fetch_add((_Atomic uint64_t *)xb_progress_counter(c->progress), (uint64_t)n);
	}
	close(fd);
	if (rc) {
		xb_sink_abort(out);
		return rc;
	}
	return xb_sink_close(out, err);
}

int copy_innodb_one(backup_ctx *c, bfile *f, const char *rel, int worker, xb_error *err)
{
	datafile_copy_opts o;
	innodb_datafile_opts_init(&o);
	o.worker = worker;
	o.throttle = throttle;
	o.system_space = f->system_space;
	o.first_page_no = f->first_page_no;
	o.should_stop = command_interrupted;
	o.gate = c->iogate;
	if (c->iogate)
		o.chunk_bytes = c->batch_bytes;
	innodb_space_info sys;
	if (f->system_space && f->first_page_no > 0) {
		/* a later system tablespace file: the page size and format come from page 0 of the first */
		const bfile *first = NULL;
		for (size_t i = 0; i < c->files.n && !first; i++)
			if (c->files.v[i].system_space && c->files.v[i].first_page_no == 0)
				first = &c->files.v[i];
		if (!first || inv_read_page0(first->src, &sys, err))
			return xb_err_set(err, XB_E_IO_READ, "cannot read page 0 of the system tablespace for %s", f->src);
		o.space = &sys;
	}
	datafile_copy_stats st;
	memset(&st, 0, sizeof st);
	int rc = innodb_datafile_copy(f->src, rel, c->sink, &o, &st,
				      c->progress ? xb_progress_counter(c->progress) : NULL, err);
	if (rc && access(f->src, F_OK) && errno == ENOENT) {
		xb_err_clear(err);
		f->missing = true;
		xb_log(worker, "%s disappeared before it was copied (DROP or RENAME): handled at BLOCK_DDL", f->src);
		return 0;
	}
	if (rc)
		return rc;
	if (st.deferred) {
		f->deferred = true;
		xb_log(worker, "%s is not ready (%s): copied at BLOCK_DDL", f->src, st.why);
		return 0;
	}
	f->copied = true;
	if (f->space_id == UINT32_MAX)
		read_space_id(f->src, &f->space_id);
	return 0;
}

typedef struct pool {
	backup_ctx *c;            /* backup */
	bfile **todo;             /* InnoDB files, largest first */
	size_t n;                 /* count */
	_Atomic size_t next;      /* next index to take */
	_Atomic int failed;       /* an error occurred: stop taking work */
	_Atomic int running;      /* workers still running */
	pthread_mutex_t mu;       /* protects err and done signalling */
	pthread_cond_t cv;        /* signalled when a worker ends */
	xb_error err;             /* first error */
} pool;

typedef struct worker_arg {
	pool *p;     /* shared pool */
	int id;      /* 1.. */
} worker_arg;

/* Memory for read/write batches (see common/iogate.h), shared by the copy
 * threads: measured on a virtual disk, a copy moving 256 MiB between
 * switches ran 13% faster than one streaming 4 MiB chunks. */
#define BATCH_BUDGET ((size_t)256 << 20)
#define BATCH_MAX ((size_t)64 << 20)
#define BATCH_MIN ((size_t)16 << 20)

static void *worker_main(void *arg)
{
	worker_arg *w = arg;
	pool *p = w->p;
	if (xb_ioprio_apply(p->c->set.io_class) && w->id == 1)
		xb_warn("cannot lower the I/O priority of the copy threads (--io-priority=%s)", p->c->set.io_priority);
	for (;;) {
		if (atomic_load(&p->failed) || command_interrupted(NULL))
			break;
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		xb_error e;
		xb_err_clear(&e);
		if (copy_innodb_one(p->c, p->todo[i], p->todo[i]->rel, w->id, &e)) {
			pthread_mutex_lock(&p->mu);
			if (!atomic_load(&p->failed))
				p->err = e;
			atomic_store(&p->failed, 1);
			pthread_mutex_unlock(&p->mu);
			break;
		}
	}
	pthread_mutex_lock(&p->mu);
	atomic_fetch_sub(&p->running, 1);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int by_size_desc(const void *a, const void *b)
{
	const bfile *x = *(bfile *const *)a, *y = *(bfile *const *)b;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

/* Feed the follower and the pacer the server's LSN; check that the follower is healthy. */
static int watch_redo(backup_ctx *c, pacer *pc, xb_error *err)
{
	uint64_t lsn;
	if (xb_server_lsn(&c->srv, &lsn, err) == 0) {
		redo_follower_note_server_lsn(c->rf, lsn);
		pace_tick(c, pc, lsn);
	} else {
		xb_err_clear(err);
	}
	return redo_follower_check(c->rf, err);
}

static int copy_innodb_all(backup_ctx *c, pacer *pc, xb_error *err)
{
	pool p;
	memset(&p, 0, sizeof p);
	p.c = c;
	p.todo = calloc(c->files.n ? c->files.n : 1, sizeof *p.todo);
	if (!p.todo)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	uint64_t total = 0;
	for (size_t i = 0; i < c->files.n; i++)
		if (c->files.v[i].kind == BF_INNODB) {
			p.todo[p.n++] = &c->files.v[i];
			total += c->files.v[i].size;
		}
	qsort(p.todo, p.n, sizeof *p.todo, by_size_desc);
	xb_progress_add_total(c->progress, total);
	int nthreads = c->set.parallel;
	if (nthreads < 1)
		nthreads = 1;
	if ((size_t)nthreads > p.n && p.n > 0)
		nthreads = (int)p.n;
	/* Read/write phases pay off when several threads share one device and
	 * nothing limits the rate: a plain local target (no stream, no filter
	 * between copy and disk), no --throttle, no pacing of a busy server (its
	 * own I/O is better served by a steady, limited read rate). One thread
	 * keeps read-ahead: alone, it would leave the device idle while it writes. */
	if (c->target_is_local_dir && nthreads >= 2 && !c->set.throttle && !pc->active &&
	    (c->iogate = xb_iogate_new()) != NULL) {
		c->batch_bytes = BATCH_BUDGET / (size_t)nthreads;
		if (c->batch_bytes > BATCH_MAX)
			c->batch_bytes = BATCH_MAX;
		if (c->batch_bytes < BATCH_MIN)
			c->batch_bytes = BATCH_MIN;
	}
	if (c->iogate)
		xb_info("Copying %zu InnoDB files (%.1f MiB) with %d threads, reading and writing in turns of %zu MiB a thread",
			p.n, (double)total / 1048576.0, nthreads, c->batch_bytes >> 20);
	else
		xb_info("Copying %zu InnoDB files (%.1f MiB) with %d thread%s", p.n, (double)total / 1048576.0, nthreads,
			nthreads > 1 ? "s" : "");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t holes0 = xb_sink_dir_holes(c->sink);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	pthread_t *th = calloc((size_t)nthreads, sizeof *th);
	worker_arg *wa = calloc((size_t)nthreads, sizeof *wa);
	int started = 0;
	for (int i = 0; th && wa && i < nthreads; i++) {
		wa[i].p = &p;
		wa[i].id = i + 1;
		atomic_fetch_add(&p.running, 1);
		if (pthread_create(&th[i], NULL, worker_main, &wa[i])) {
			atomic_fetch_sub(&p.running, 1);
			break;
		}
		started++;
	}
	int rc = 0;
	if (!started)
		rc = xb_err_set(err, XB_E_INTERNAL, "cannot start copy threads");
	/* Meanwhile: every half second, watch the redo follower and pace the copy. */
	pthread_mutex_lock(&p.mu);
	while (atomic_load(&p.running) > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 500000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p.cv, &p.mu, &ts);
		pthread_mutex_unlock(&p.mu);
		if (!rc && (watch_redo(c, pc, err) || command_interrupted(err))) {
			rc = err ? err->code : XB_E_INTERNAL;
			atomic_store(&p.failed, 1);
		}
		pthread_mutex_lock(&p.mu);
	}
	pthread_mutex_unlock(&p.mu);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (!rc && atomic_load(&p.failed)) {
		if (err)
			*err = p.err;
		rc = p.err.code ? p.err.code : XB_E_INTERNAL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	uint64_t holes = xb_sink_dir_holes(c->sink) - holes0;
	if (!rc && holes)
		xb_info("Copied the InnoDB files in %.1f s (%.0f MB/s); %.1f MiB of never-used zero blocks were left as holes",
			secs, secs > 0 ? (double)total / secs / 1e6 : 0.0, (double)holes / 1048576.0);
	else if (!rc)
		xb_info("Copied the InnoDB files in %.1f s (%.0f MB/s)", secs, secs > 0 ? (double)total / secs / 1e6 : 0.0);
	free(th);
	free(wa);
	free(p.todo);
	xb_iogate_free(c->iogate);
	c->iogate = NULL;
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);
	return rc;
}

static int copy_kind(backup_ctx *c, int kind, xb_error *err)
{
	for (size_t i = 0; i < c->files.n; i++) {
		bfile *f = &c->files.v[i];
		if (f->kind != kind)
			continue;
		if (command_interrupted(err))
			return err ? err->code : XB_E_INTERRUPTED;
		int rc = copy_plain(c, f, 0, err);
		if (rc)
			return rc;
		f->copied = true;
	}
	return 0;
}

/* ---- locks and positions ----------------------------------------------- */

static int stage(backup_ctx *c, const char *name, xb_error *err)
{
	if (c->set.no_lock)
		return 0;
	char sql[64];
	snprintf(sql, sizeof sql, "BACKUP STAGE %s", name);
	xb_info("Starting %s", sql);
	int rc = xb_server_exec(&c->srv, sql, err);
	if (!rc)
		xb_info("Acquired %s", sql);
	return rc;
}

static int master_status_row(void *ctx, unsigned n, char **names, char **values)
{
	backup_ctx *c = ctx;
	if (n >= 2 && values[0] && values[1]) {
		snprintf(c->binlog_file, sizeof c->binlog_file, "%s", values[0]);
		c->binlog_pos = strtoull(values[1], NULL, 10);
		c->have_binlog = true;
	}
	return 1;
}

static int record_binlog(backup_ctx *c, xb_error *err)
{
	if (!c->lay.log_bin)
		return 0;
	int rc = xb_server_rows(&c->srv, "SHOW MASTER STATUS", master_status_row, c, err);
	if (rc)
		return rc;
	char *gtid = NULL;
	if ((rc = xb_server_variable(&c->srv, "gtid_current_pos", &gtid, err)))
		return rc;
	snprintf(c->gtid, sizeof c->gtid, "%s", gtid ? gtid : "");
	free(gtid);
	if (c->have_binlog)
		xb_info("Binary log position: file '%s', position %llu, GTID '%s'", c->binlog_file, c->binlog_pos, c->gtid);
	return 0;
}

static int open_temp_tables_row(void *ctx, unsigned n, char **names, char **values)
{
	long *v = ctx;
	if (n >= 2 && values[1])
		*v = atol(values[1]);
	return 1;
}

static int count_row(void *ctx, unsigned n, char **names, char **values)
{
	(*(long *)ctx)++;
	return 0;
}

static int safe_slave_stop(backup_ctx *c, xb_error *err)
{
	if (!c->set.safe_slave_backup)
		return 0;
	long replicas = 0;
	int rc = xb_server_rows(&c->srv, "SHOW ALL SLAVES STATUS", count_row, &replicas, err);
	if (rc)
		return rc;
	if (!replicas) {
		xb_info("--safe-slave-backup: the server is not a replica, nothing to stop");
		return 0;
	}
	xb_info("--safe-slave-backup: stopping the replica SQL thread");
	if ((rc = xb_server_exec(&c->srv, "STOP ALL SLAVES SQL_THREAD", err)))
		return rc;
	c->slave_stopped = true;
	long timeout = c->set.safe_slave_timeout;
	for (long waited = 0;; waited++) {
		long open = 0;
		if ((rc = xb_server_rows(&c->srv, "SHOW GLOBAL STATUS LIKE 'Slave_open_temp_tables'", open_temp_tables_row,
					 &open, err)))
			return rc;
		if (open == 0)
			return 0;
		if (waited >= timeout)
			return xb_err_set(err, XB_E_SERVER_STATE,
					  "the replica still has %ld open temporary tables after %ld seconds", open, timeout),
			       xb_err_hint(err, "raise --safe-slave-backup-timeout or take the backup when the replica is idle");
		if (waited % 10 == 0)
			xb_info("--safe-slave-backup: waiting for %ld temporary tables to close", open);
		sleep(1);
	}
}

static void safe_slave_restart(backup_ctx *c)
{
	if (!c->slave_stopped)
		return;
	xb_error e;
	if (xb_server_exec(&c->srv, "START ALL SLAVES SQL_THREAD", &e))
		xb_log_error(&e);
	else
		xb_info("--safe-slave-backup: replica SQL thread started again");
	c->slave_stopped = false;
}

static void headroom_extra(void *ctx, char *buf, size_t n)
{
	backup_ctx *c = ctx;
	if (c->rf)
		snprintf(buf, n, "redo headroom %.0f%%", 100.0 * redo_follower_headroom(c->rf));
}

/* The redo follower's durable_lsn callback: its own connection, its thread only. */
static int durable_lsn(void *ctx, uint64_t *lsn, xb_error *err)
{
	backup_ctx *c = ctx;
	return xb_server_flushed_lsn(&c->srv_log, lsn, err);
}

static int finish_redo(backup_ctx *c, xb_error *err)
{
	uint64_t lsn;
	int rc = xb_server_lsn(&c->srv, &lsn, err);
	if (!rc)
		rc = xb_server_exec(&c->srv, "FLUSH NO_WRITE_TO_BINLOG ENGINE LOGS", err);
	if (rc)
		return rc;
	xb_info("Waiting for the redo log copy to reach LSN %llu", (unsigned long long)lsn);
	if ((rc = redo_follower_wait_for(c->rf, lsn, 600, err)))
		return rc;
	if ((rc = record_binlog(c, err)))
		return rc;
	if ((rc = meta_write_slave_info(c, err)) || (rc = meta_write_galera_info(c, err)))
		return rc;
	/* the last checkpoint of the server: the start point of an incremental backup */
	char logpath[4200];
	snprintf(logpath, sizeof logpath, "%s/ib_logfile0", c->lay.log_dir);
	uint64_t cp = 0, end = 0;
	if ((rc = redo_read_checkpoint(logpath, &cp, &end, err)))
		return rc;
	if ((rc = redo_follower_stop(c->rf, &c->last_lsn, err)))
		return rc;
	c->to_lsn = cp < c->last_lsn ? cp : c->last_lsn;
	if (c->to_lsn < c->start_checkpoint)
		c->to_lsn = c->start_checkpoint;
	return 0;
}

/* ---- the command ------------------------------------------------------- */

static double mono_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(backup_ctx *c, xb_error *err)
{
	const backup_settings *s = &c->set;
	int rc;
	if ((rc = target_check(&s->target, err)))
		return rc;
	if ((rc = xb_server_connect(&c->srv, &s->conn, err)))
		return rc;
	xb_info("Connected to the server through %s as %s", c->srv.where, c->srv.user);
	if ((rc = read_layout(c, err)))
		return rc;
	if ((rc = xb_server_check_privileges(&c->srv, c->lay.log_bin, s->slave_info, err)))
		return rc;
	if ((rc = target_open(c, err)))
		return rc;
	if (s->no_lock)
		xb_warn("--no-lock: no BACKUP STAGE locks: DDL and writes to non-InnoDB tables during the backup "
			"are not protected, and xtrabackup_binlog_info may not match the data");
	if (s->throttle) {
		if ((rc = xb_throttle_create(s->throttle, &throttle, err)))
			return rc;
	} else if (s->pace && !(throttle = xb_throttle_new_adjustable())) {
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	if (s->checkpoint_now) {
		xb_error ignore;
		if (xb_server_exec(&c->srv, "SET GLOBAL innodb_log_checkpoint_now=ON", &ignore) == 0)
			xb_info("Asked the server for a checkpoint (innodb_log_checkpoint_now)");
	}

	/* 2. redo follower */
	char logpath[4200];
	snprintf(logpath, sizeof logpath, "%s/ib_logfile0", c->lay.log_dir);
	redo_follower_cfg rcfg;
	memset(&rcfg, 0, sizeof rcfg);
	rcfg.log_path = logpath;
	rcfg.sink = c->sink;
	rcfg.poll_interval_ms = s->log_copy_interval;
	rcfg.on_file_op = ddl_note_file_op;
	rcfg.ctx = c;
	rcfg.durable_lsn = durable_lsn;
	rcfg.durable_ctx = c;
	if ((rc = xb_server_connect(&c->srv_log, &s->conn, err)))
		return rc;
	if ((rc = redo_follower_start(&rcfg, &c->rf, err)))
		return rc;
	c->start_checkpoint = redo_follower_checkpoint_lsn(c->rf);
	if ((rc = xb_progress_start(&c->progress, s->progress, "copied", headroom_extra, c, err)))
		return rc;

	/* 3. InnoDB datafiles */
	if ((rc = stage(c, "START", err)))
		return rc;
	pacer pc;
	pace_start(c, &pc, s->throttle ? NULL : throttle);
	if ((rc = scan_innodb(c, &c->files, err)) || (rc = copy_innodb_all(c, &pc, err)))
		return rc;
	if (throttle && !s->throttle)
		xb_throttle_set_rate(throttle, 0); /* pacing is for the datafile copy only */
	if ((rc = bufpool_dump(c, err)))
		return rc;

	/* 4. DDL blocked: reconcile, then non-InnoDB files */
	if ((rc = safe_slave_stop(c, err)) || (rc = stage(c, "FLUSH", err)) || (rc = stage(c, "BLOCK_DDL", err)))
		return rc;
	if ((rc = ddl_reconcile(c, err)))
		return rc;
	if ((rc = scan_other(c, &c->files, err)) || (rc = copy_kind(c, BF_PLAIN, err)))
		return rc;

	/* 5. commits blocked: the consistency point */
	if ((rc = stage(c, "BLOCK_COMMIT", err)))
		return rc;
	double lock_t0 = mono_seconds();
	if ((rc = copy_kind(c, BF_AT_COMMIT, err)) || (rc = finish_redo(c, err)))
		return rc;
	if ((rc = stage(c, "END", err)))
		return rc;
	c->lock_seconds = mono_seconds() - lock_t0;
	xb_info("Commits were blocked for %.0f ms (BACKUP STAGE BLOCK_COMMIT to END)", c->lock_seconds * 1000.0);
	safe_slave_restart(c);
	xb_progress_stop(c->progress);
	c->progress = NULL;

	/* 6. metadata, completion marker last */
	c->end_time = time(NULL);
	if ((rc = meta_write_binlog_info(c, err)) || (rc = meta_write_backup_cnf(c, err)) ||
	    (rc = meta_write_info(c, err)) || (rc = target_finish(c, err)))
		return rc;
	if ((rc = meta_write_checkpoints(c, err)) || (rc = target_finish(c, err)))
		return rc;
	return 0;
}

int cmd_backup(const xb_options *o, xb_error *err)
{
	backup_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	int rc = backup_settings_resolve(o, &c->set, err);
	if (rc) {
		free(c);
		return rc;
	}
	c->start_time = time(NULL);
	rc = run(c, err);
	if (c->progress)
		xb_progress_stop(c->progress);
	if (c->rf) {
		if (rc) {
			uint64_t dummy;
			xb_error ignore;
			redo_follower_stop(c->rf, &dummy, &ignore);
		}
		redo_follower_free(c->rf);
	}
	safe_slave_restart(c);
	xb_server_close(&c->srv); /* closing the connection also ends a BACKUP STAGE */
	xb_server_close(&c->srv_log);
	target_close(c);
	if (throttle)
		xb_throttle_free(throttle);
	throttle = NULL;
	bfile_list_free(&c->files);
	free(c);
	return rc;
}
