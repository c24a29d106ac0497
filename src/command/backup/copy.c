/*
 * copy.c - copying the files of a backup into its sink.
 *
 * InnoDB datafiles are copied page by page with validation
 * (engine-hooks/innodb/datafile.c), largest first, by --parallel workers of
 * the parallel executor; meanwhile the main thread ticks every half second:
 * it feeds the redo follower and the pacer the server's LSN and stops the
 * copy when the server went away, the follower failed or a signal came: the
 * copy threads see it between chunks (copy_should_stop), not between files,
 * so a dead server or an overwritten redo log ends the backup within about a
 * second. The copies under a stage lock are watched the same way. A file
 * that grew since the scan raises the progress total as it is copied. A file that vanished
 * (DROP, RENAME) or whose page 0 is written but not valid yet is left for
 * BLOCK_DDL (ddl.c); one whose page 0 was never written (a table created
 * recently) is copied as it is at once (see innodb/datafile.h). Other files
 * are copied as bytes by the --parallel workers, under the stage lock that
 * keeps them still. --throttle and --pace=auto share one
 * rate limiter, made here.
 */
#include "backup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command/command.h"
#include "common/iogate.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/progress.h"
#include "common/throttle.h"
#include "innodb/datafile.h"
#include "innodb/inventory.h"
#include "innodb/redo_follower.h"
#include "platform/clock.h"
#include "platform/ioprio.h"
#include "sink/sink_dir_ext.h"
#include "sink/sink_sum.h"

int copy_limiter_open(backup_ctx *c, xb_error *err)
{
	if (c->set.throttle)
		return xb_throttle_create(c->set.throttle, &c->limiter, err);
	if (c->set.pace && !(c->limiter = xb_throttle_new_adjustable()))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	return 0;
}

void copy_limiter_close(backup_ctx *c)
{
	if (c->limiter)
		xb_throttle_free(c->limiter);
	c->limiter = NULL;
}

int copy_plain(backup_ctx *c, const bfile *f, int worker, xb_error *err)
{
	int fd = open(f->src, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0; /* dropped meanwhile: DDL is blocked now, so it is really gone */
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", f->src, strerror(errno));
	}
	return copy_fd(c, fd, f->src, f->rel, err);
}

/* Each piece copied counts in the progress display. */
static void count_progress(void *ctx, const void *buf, size_t n)
{
	backup_ctx *c = ctx;
	if (c->progress)
		atomic_fetch_add((_Atomic uint64_t *)xb_progress_counter(c->progress), (uint64_t)n);
}

int copy_fd(backup_ctx *c, int fd, const char *src, const char *rel, xb_error *err)
{
	int rc = xb_sink_put_fd(c->sink, rel, fd, src, count_progress, c, err);
	close(fd);
	return rc;
}

/* A datafile copy stops between chunks on a signal, or once the backup
 * failed elsewhere (the server went away, the redo copy failed, another
 * thread's copy failed): the error that stopped it is reported, not this one. */
static bool copy_should_stop(void *ctx, xb_error *err)
{
	backup_ctx *c = ctx;
	if (command_interrupted(err))
		return true;
	if (!atomic_load(&c->copy_stop))
		return false;
	xb_err_set(err, XB_E_INTERRUPTED, "the copy was stopped: the backup failed");
	return true;
}

int copy_innodb_one(backup_ctx *c, bfile *f, const char *rel, int worker, bool whole, xb_error *err)
{
	datafile_copy_opts o;
	innodb_datafile_opts_init(&o);
	o.worker = worker;
	o.throttle = c->limiter;
	o.system_space = f->system_space;
	o.first_page_no = f->first_page_no;
	o.should_stop = copy_should_stop;
	o.stop_ctx = c;
	if (c->progress) {
		o.progress_total = xb_progress_total_counter(c->progress);
		o.expected_bytes = f->size;
	}
	/* incremental: pages newer than the base into rel.delta (rel.meta with
	 * the metadata). A file whose page 0 was never written waits for
	 * BLOCK_DDL, where it is copied whole as a .new: prepare would ignore a
	 * plain copy in an incremental backup. */
	o.delta = c->set.incremental && !whole;
	o.delta_lsn = c->inc_lsn;
	o.meta_sink = c->meta_sink;
	o.copy_unwritten = !o.delta;
	o.gate = c->iogate;
	o.pagecomp_readable = c->lay.pagecomp_readable;
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
	if (o.delta && !st.deferred) {
		atomic_fetch_add(&c->inc_pages, st.pages);
		atomic_fetch_add(&c->inc_delta_pages, st.delta_pages);
		atomic_fetch_add(&c->inc_delta_bytes, st.bytes);
	}
	if (st.deferred) {
		f->deferred = true;
		xb_log(worker, "%s is not ready (%s): copied at BLOCK_DDL", f->src, st.why);
		return 0;
	}
	f->copied = true;
	if (st.unwritten) {
		f->unwritten = true; /* no space id yet: ddl.c knows it by its inode */
		return 0;
	}
	if (f->space_id == UINT32_MAX)
		read_space_id(f->src, &f->space_id);
	return 0;
}

/* Memory for read/write batches (see common/iogate.h), shared by the copy
 * threads: measured on a virtual disk, a copy moving 256 MiB between
 * switches ran 13% faster than one streaming 4 MiB chunks. */
#define BATCH_BUDGET ((size_t)256 << 20)
#define BATCH_MAX ((size_t)64 << 20)
#define BATCH_MIN ((size_t)16 << 20)

/* The datafile copy: its files and what the ticks need. */
typedef struct copy_run {
	backup_ctx *c;  /* backup */
	pacer *pc;      /* --pace=auto */
	bfile **todo;   /* InnoDB files, largest first */
} copy_run;

static int copy_start(void *ctx, int worker, void **wstate, xb_error *err)
{
	copy_run *r = ctx;
	if (xb_ioprio_apply(r->c->set.io_class) && worker == 1)
		xb_warn("cannot lower the I/O priority of the copy threads (--io-priority=%s)", r->c->set.io_priority);
	return 0;
}

static int copy_job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	copy_run *r = ctx;
	if (command_interrupted(err))
		return err ? err->code : XB_E_INTERRUPTED;
	int rc = copy_innodb_one(r->c, r->todo[i], r->todo[i]->rel, worker, false, err);
	if (rc)
		atomic_store(&r->c->copy_stop, true); /* the other threads stop at their next chunk */
	return rc;
}

int copy_watch(backup_ctx *c, pacer *pc, xb_error *err)
{
	uint64_t lsn;
	int rc = 0;
	if (c->lay.innodb_off) {
		/* nothing to follow: a ping tells whether the server is still there */
		rc = xb_server_exec(&c->srv, "DO 1", err);
	} else if ((rc = xb_server_lsn(&c->srv, &lsn, err)) == 0) {
		if (c->rf)
			redo_follower_note_server_lsn(c->rf, lsn);
		if (pc)
			pace_tick(c, pc, lsn);
	}
	if (rc && rc != XB_E_CONNECT) {
		xb_err_clear(err); /* a statement that failed once: asked again next time */
		rc = 0;
	}
	if (!rc && c->rf)
		rc = redo_follower_check(c->rf, err);
	if (!rc && command_interrupted(err))
		rc = err ? err->code : XB_E_INTERRUPTED;
	if (rc)
		atomic_store(&c->copy_stop, true);
	return rc;
}

/* Every half second during the datafile copy (see copy_watch). */
static int copy_tick(void *ctx, xb_error *err)
{
	copy_run *r = ctx;
	return copy_watch(r->c, r->pc, err);
}

static int by_size_desc(const void *a, const void *b)
{
	const bfile *x = *(bfile *const *)a, *y = *(bfile *const *)b;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

int copy_innodb_all(backup_ctx *c, pacer *pc, xb_error *err)
{
	copy_run r = {.c = c, .pc = pc, .todo = calloc(c->files.n ? c->files.n : 1, sizeof *r.todo)};
	if (!r.todo)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	size_t n = 0;
	uint64_t total = 0;
	for (size_t i = 0; i < c->files.n; i++)
		if (c->files.v[i].kind == BF_INNODB) {
			r.todo[n++] = &c->files.v[i];
			total += c->files.v[i].size;
		}
	qsort(r.todo, n, sizeof *r.todo, by_size_desc);
	xb_progress_add_total(c->progress, total);
	xb_parallel_cfg cfg = {.threads = c->set.parallel, .jobs = n, .ctx = &r, .job = copy_job,
			       .worker_start = copy_start, .tick = copy_tick, .tick_ms = 500};
	int nthreads = xb_parallel_threads(&cfg);
	/* Read/write phases pay off when several threads share one device and
	 * nothing limits the rate: a plain local target (no stream, no filter
	 * between copy and disk), no --throttle, no pacing of a busy server (its
	 * own I/O is better served by a steady, limited read rate). One thread
	 * keeps read-ahead: alone, it would leave the device idle while it writes.
	 * An incremental backup writes a few percent of what it reads: its
	 * threads keep their reads in flight (read-ahead) and need no batches. */
	if (c->target_is_local_dir && nthreads >= 2 && !c->set.throttle && !pc->active && !c->set.incremental &&
	    (c->iogate = xb_iogate_new()) != NULL) {
		c->batch_bytes = BATCH_BUDGET / (size_t)nthreads;
		if (c->batch_bytes > BATCH_MAX)
			c->batch_bytes = BATCH_MAX;
		if (c->batch_bytes < BATCH_MIN)
			c->batch_bytes = BATCH_MIN;
	}
	if (c->iogate)
		xb_info("Copying %zu InnoDB files (%.1f MiB) with %d threads, reading and writing in turns of %zu MiB a thread",
			n, (double)total / 1048576.0, nthreads, c->batch_bytes >> 20);
	else
		xb_info("Copying %zu InnoDB files (%.1f MiB) with %d thread%s", n, (double)total / 1048576.0, nthreads,
			nthreads > 1 ? "s" : "");
	double t0 = xb_clock_sec();
	uint64_t holes0 = xb_sink_dir_holes(xb_sink_sum_inner(c->sink));
	int rc = xb_parallel_run(&cfg, err);
	double secs = xb_clock_sec() - t0;
	uint64_t holes = xb_sink_dir_holes(xb_sink_sum_inner(c->sink)) - holes0;
	if (!rc && holes)
		xb_info("Copied the InnoDB files in %.1f s (%.0f MB/s); %.1f MiB of never-used zero blocks were left as holes",
			secs, secs > 0 ? (double)total / secs / 1e6 : 0.0, (double)holes / 1048576.0);
	else if (!rc)
		xb_info("Copied the InnoDB files in %.1f s (%.0f MB/s)", secs, secs > 0 ? (double)total / secs / 1e6 : 0.0);
	free(r.todo);
	xb_iogate_free(c->iogate);
	c->iogate = NULL;
	if (!rc && c->limiter && !c->set.throttle)
		xb_throttle_set_rate(c->limiter, 0); /* pacing is for the datafile copy only */
	return rc;
}

/* The files of one kind, copied as bytes. */
typedef struct kind_run {
	backup_ctx *c; /* backup */
	bfile **todo;  /* the files */
} kind_run;

static int kind_job(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	kind_run *r = ctx;
	if (command_interrupted(err))
		return err ? err->code : XB_E_INTERRUPTED;
	int rc = copy_plain(r->c, r->todo[i], worker, err);
	if (!rc)
		r->todo[i]->copied = true;
	return rc;
}

/* Every half second while files are copied under a stage lock: the server
 * is still there, the redo copy has not failed, no signal came. */
static int kind_tick(void *ctx, xb_error *err)
{
	kind_run *r = ctx;
	return copy_watch(r->c, NULL, err);
}

int copy_kind(backup_ctx *c, int kind, xb_error *err)
{
	kind_run r = {.c = c, .todo = calloc(c->files.n ? c->files.n : 1, sizeof *r.todo)};
	if (!r.todo)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	size_t n = 0;
	uint64_t total = 0;
	for (size_t i = 0; i < c->files.n; i++)
		if (c->files.v[i].kind == kind) {
			r.todo[n++] = &c->files.v[i];
			total += c->files.v[i].size;
		}
	if (c->progress)
		xb_progress_add_total(c->progress, total);
	/* Under a stage lock: each file is small, there can be tens of thousands */
	xb_parallel_cfg cfg = {.threads = c->set.parallel, .jobs = n, .ctx = &r, .job = kind_job,
			       .tick = kind_tick, .tick_ms = 500};
	int rc = n ? xb_parallel_run(&cfg, err) : 0;
	free(r.todo);
	return rc;
}
