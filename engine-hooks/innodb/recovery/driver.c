/*
 * driver.c - the recovery driver: read the redo copy, batch it, apply it,
 * replace the log.
 *
 * The log copy of a backup is linear: its header's first LSN is the
 * checkpoint and the file holds the records from there on without wrapping.
 * It is read sequentially through a 4 MiB window by the parser, which hands
 * every mini-transaction to the collector, and by the verifier (below),
 * which checks each completely (redo.h: termination byte, CRC-32C, record
 * rules) ahead of it. When the collector holds half its budget, the batch is
 * detached and applied on the applier thread (below) while the parser goes
 * on with the next. The end of the log must not come
 * before the LSN xtrabackup_checkpoints promises (last_lsn): a log that ends
 * early is a truncated or damaged copy, and that is an error, not a shorter
 * recovery. After the last batch the files are fsynced and the log is
 * replaced (temporary file, fsync, rename, fsync of the directory).
 */
#include "innodb/recovery/driver.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/log.h"
#include "common/path.h"
#include "common/progress.h"
#include "innodb/crc32c.h"
#include "innodb/recovery/collect.h"
#include "innodb/redo.h"
#include "innodb/spaces.h"
#include "innodb/trxsys.h"
#include "platform/clock.h"
#include "platform/file.h"
#include "innodb/inventory.h"

#define WINDOW (4u << 20)
#define LOG_NAME INV_REDO_NAME

/* The log being read. */
typedef struct logrd {
	int fd;
	char path[4096];
	redo_log_info info;
	uint8_t *buf;     /* window */
	size_t have;      /* bytes in buf */
	size_t pos;       /* parse position in buf */
	uint64_t buf_lsn; /* LSN of buf[0] */
	uint64_t file_end_lsn; /* LSN just past the last byte of the file */
	bool found_checkpoint;
} logrd;

static int log_open(logrd *l, const char *dir, xb_error *err)
{
	int rc = xb_path_join(l->path, sizeof l->path, dir, LOG_NAME, err);
	if (rc)
		return rc;
	l->fd = open(l->path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0)
		return xb_err_set(err, errno == ENOENT ? XB_E_MISSING_FILE : XB_E_IO_READ, "cannot open %s: %s", l->path,
				  strerror(errno)),
		       xb_err_hint(err, "the backup's redo copy is needed to make it consistent: put it back from another "
				   "copy of this backup, or take a new backup");
	uint8_t area[REDO_HEADER_SIZE];
	struct stat st;
	ssize_t n = fstat(l->fd, &st) ? -1 : pread(l->fd, area, sizeof area, 0);
	if (n < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", l->path, strerror(errno));
	if ((rc = redo_log_parse(area, (size_t)n, (uint64_t)st.st_size, l->path, &l->info, err)))
		return rc;
	if (l->info.hdr.encrypted) {
		xb_err_set(err, XB_E_REDO_FORMAT, "%s is an encrypted redo log: this version cannot decrypt it", l->path);
		return xb_err_hint(err, "prepare this backup with mariabackup and the key management plugin");
	}
	uint64_t cp = l->info.cp.checkpoint_lsn;
	if (cp - l->info.hdr.first_lsn > l->info.capacity)
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: checkpoint LSN %llu is outside the log", l->path,
				  (unsigned long long)cp);
	l->file_end_lsn = l->info.hdr.first_lsn + l->info.capacity;
	l->buf = malloc(WINDOW);
	if (!l->buf)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	l->buf_lsn = cp;
	return 0;
}

/* Slide the window so that at least REDO_MTR_SIZE_MAX + 16 bytes are ahead of pos (or the file ends). */
static int log_fill(logrd *l, uint64_t *ns, xb_error *err)
{
	size_t ahead = l->have - l->pos;
	if (ahead >= REDO_MTR_SIZE_MAX + 16)
		return 0;
	uint64_t next_lsn = l->buf_lsn + l->have;
	if (next_lsn >= l->file_end_lsn)
		return 0;
	uint64_t t = xb_clock_ns();
	memmove(l->buf, l->buf + l->pos, ahead);
	l->buf_lsn += l->pos;
	l->pos = 0;
	l->have = ahead;
	size_t want = WINDOW - l->have;
	if (want > l->file_end_lsn - next_lsn)
		want = (size_t)(l->file_end_lsn - next_lsn);
	off_t off = (off_t)redo_lsn_to_offset(next_lsn, l->info.hdr.first_lsn, l->info.capacity);
	while (want) {
		ssize_t k = pread(l->fd, l->buf + l->have, want, off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return xb_err_set(err, XB_E_IO_READ, "cannot read %s at offset %lld: %s", l->path, (long long)off,
					  strerror(errno));
		if (k == 0)
			break;
		l->have += (size_t)k;
		want -= (size_t)k;
		off += k;
	}
	*ns += xb_clock_ns() - t;
	return 0;
}

/* The log ended at lsn for the reason in m: fine at or after the promised end, an error before it. */
static int log_end(const logrd *l, const recovery_opts *o, uint64_t lsn, const char *why, xb_error *err)
{
	if (o->expect_end_lsn && lsn < o->expect_end_lsn) {
		xb_err_set(err, XB_E_REDO_CORRUPT,
			   "%s ends at LSN %llu (file offset %llu: %s) but xtrabackup_checkpoints says the copy reaches "
			   "LSN %llu",
			   l->path, (unsigned long long)lsn,
			   (unsigned long long)redo_lsn_to_offset(lsn, l->info.hdr.first_lsn, l->info.capacity), why,
			   (unsigned long long)o->expect_end_lsn);
		return xb_err_hint(err, "the redo copy is truncated or damaged; copy the backup again or take a new one");
	}
	if (!l->found_checkpoint && lsn > l->info.cp.end_lsn) {
		xb_err_set(err, XB_E_REDO_CORRUPT, "%s: no FILE_CHECKPOINT for the checkpoint at LSN %llu before LSN %llu",
			   l->path, (unsigned long long)l->info.cp.checkpoint_lsn, (unsigned long long)lsn);
		return xb_err_hint(err, "the redo copy is damaged; take a new backup");
	}
	return 0;
}

/* The verifier: a second thread that reads the whole log ahead of the
 * parser, checks every mini-transaction completely (framing, CRC-32C,
 * record rules), checks that the log reaches the end xtrabackup_checkpoints
 * promises, and notes the FREE_PAGE/INIT_PAGE/TRIM_PAGES records and file
 * operations that multi-batch recovery needs to know in advance. The parser
 * then skips the CRC of everything below verified_lsn, and nothing is
 * applied before the verifier has finished without error.
 *
 * A parser that has filled its memory before the verifier is done helps
 * instead of waiting (verifier_help): it looks for an mtr boundary half way
 * through what is left (a position where two consecutive mini-transactions
 * frame with valid CRC-32C and sequence bits), asks the thread to stop
 * there (stop_lsn) and checks the rest itself. The split counts only if the
 * thread, walking mtr by mtr, lands exactly on that LSN: if it steps over
 * it (the boundary was a false one) or has finished already, the helper's
 * work is dropped and the thread's own walk to the end stands. */
typedef struct vrun {
	logrd l;                      /* its own window over the same file */
	collector notes;              /* only the look-ahead tables are used */
	uint64_t lsn;                 /* where it starts, then where it stopped */
	uint64_t mtrs;
	int rc;
	xb_error err;
	bool hit_stop;                /* stopped exactly at stop_lsn */
} vrun;

typedef struct verifier {
	vrun main;                     /* the thread, from the checkpoint */
	vrun help;                     /* the parser, from the split point */
	const recovery_opts *o;
	_Atomic uint64_t verified_lsn; /* every mtr ending at or below is checked */
	_Atomic uint64_t stop_lsn;     /* 0, or where the thread should stop (the split) */
	_Atomic bool finished;         /* verify_main has returned (joined or not) */
	uint64_t t0, ns;
	uint64_t split_lsn;            /* where the helper started */
	pthread_t tid;
	bool started, helped;
} verifier;

#define HELP_MIN (16u << 20)        /* less log left than this: not worth a split */
#define SPLIT_SEARCH (1u << 20)     /* how far past the half way point a boundary is looked for */

/* Check mini-transactions from vr->lsn on until the log ends, or (main run) until stop_lsn is reached. */
static void verify_run(verifier *v, vrun *vr, bool main_run)
{
	uint64_t io = 0;
	for (;;) {
		if ((vr->rc = log_fill(&vr->l, &io, &vr->err)))
			break;
		redo_mtr m;
		int s = redo_frame_mtr(vr->l.buf + vr->l.pos, vr->l.have - vr->l.pos, vr->lsn, vr->l.info.hdr.first_lsn,
				       vr->l.info.capacity, false, true, &m);
		if (s != REDO_MTR_OK) {
			vr->l.found_checkpoint = true; /* checked by the parser */
			vr->rc = log_end(&vr->l, v->o, vr->lsn,
					 s == REDO_MTR_END ? m.why : "the file ends inside a mini-transaction", &vr->err);
			break;
		}
		/* one walk checks the records and notes what later batches need */
		char why[200];
		int n = collect_note_later(&vr->notes, vr->l.buf + vr->l.pos, m.records_len, vr->lsn, why, sizeof why);
		if (n < 0) {
			vr->rc = xb_err_set(&vr->err, XB_E_INTERNAL, "%s", why);
			break;
		}
		if (n > 0) {
			xb_err_set(&vr->err, XB_E_REDO_CORRUPT, "%s: malformed mini-transaction at LSN %llu: %s",
				   vr->l.path, (unsigned long long)vr->lsn, why);
			vr->rc = xb_err_hint(&vr->err, "the redo copy is damaged; take a new backup");
			break;
		}
		vr->l.pos += m.len;
		vr->lsn = m.end_lsn;
		vr->mtrs++;
		if (!main_run)
			continue;
		if (!(vr->mtrs & 63))
			atomic_store(&v->verified_lsn, vr->lsn);
		uint64_t stop = atomic_load_explicit(&v->stop_lsn, memory_order_relaxed);
		if (stop && vr->lsn >= stop) {
			if (vr->lsn == stop) {
				vr->hit_stop = true;
				break;
			}
			atomic_store(&v->stop_lsn, 0); /* stepped over it: not a boundary */
		}
	}
}

static void *verify_main(void *arg)
{
	verifier *v = arg;
	uint64_t t = xb_clock_ns();
	verify_run(v, &v->main, true);
	if (!v->main.rc && !v->main.hit_stop)
		atomic_store(&v->verified_lsn, v->main.lsn);
	v->ns = xb_clock_ns() - t;
	atomic_store(&v->finished, true);
	return NULL;
}

static int verifier_start(verifier *v, const logrd *l, const recovery_opts *o, xb_error *err)
{
	memset(v, 0, sizeof *v);
	v->main.l = *l;
	v->o = o;
	v->main.l.buf = malloc(WINDOW);
	if (!v->main.l.buf || collect_init(&v->main.notes, 0))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	v->main.l.have = v->main.l.pos = 0;
	v->main.lsn = l->buf_lsn;
	v->t0 = xb_clock_ns();
	if (pthread_create(&v->tid, NULL, verify_main, v))
		return xb_err_set(err, XB_E_INTERNAL, "cannot start a thread");
	v->started = true;
	return 0;
}

/* Whether an mtr boundary is at h->l.buf[x]: it and the next one frame with a valid CRC-32C. */
static bool boundary_at(vrun *h, size_t x)
{
	const logrd *l = &h->l;
	uint64_t lsn = l->buf_lsn + x;
	redo_mtr m;
	for (int k = 0; k < 2; k++) {
		if (x >= l->have || l->buf[x] <= 1 ||
		    redo_frame_mtr(l->buf + x, l->have - x, lsn, l->info.hdr.first_lsn, l->info.capacity, false, true,
				   &m) != REDO_MTR_OK)
			return false;
		x += m.len;
		lsn = m.end_lsn;
	}
	return true;
}

/* The parser has nothing to do until the verifier is done: check the second half of what is left. */
static void verifier_help(verifier *v)
{
	uint64_t from = atomic_load(&v->verified_lsn), end = v->main.l.file_end_lsn;
	if (v->o->expect_end_lsn > from && v->o->expect_end_lsn < end)
		end = v->o->expect_end_lsn;
	if (!v->started || v->helped || atomic_load(&v->finished) || end <= from || end - from < HELP_MIN)
		return;
	vrun *h = &v->help;
	h->l = v->main.l;
	h->l.buf = malloc(WINDOW);
	if (!h->l.buf || collect_init(&h->notes, 0))
		return;
	h->l.buf_lsn = from + (end - from) / 2;
	h->l.have = h->l.pos = 0;
	uint64_t io = 0;
	xb_error e;
	if (log_fill(&h->l, &io, &e))
		return;
	size_t x = 0;
	while (x < SPLIT_SEARCH && x < h->l.have && !boundary_at(h, x))
		x++;
	if (x >= SPLIT_SEARCH || x >= h->l.have)
		return;
	h->l.pos = x;
	h->lsn = v->split_lsn = h->l.buf_lsn + x;
	v->helped = true;
	atomic_store(&v->stop_lsn, h->lsn);
	xb_info("memory for records is full before the log is checked (at LSN %llu): the parser checks it from LSN %llu "
		"on", (unsigned long long)from, (unsigned long long)h->lsn);
	verify_run(v, h, false);
}

/* Wait for the verifier (helping it first when it has a long way to go); hand its notes to r. */
static int verifier_join(verifier *v, collector *r, recovery_stats *st, bool help, xb_error *err)
{
	if (!v->started)
		return 0;
	uint64_t t = xb_clock_ns();
	if (help)
		verifier_help(v);
	pthread_join(v->tid, NULL);
	v->started = false;
	st->ns_lookahead += xb_clock_ns() - t; /* what the parser waited for it (or helped) */
	if (v->main.rc) {
		*err = v->main.err;
		return v->main.rc;
	}
	bool split = v->helped && v->main.hit_stop;
	if (split && v->help.rc) {
		*err = v->help.err;
		return v->help.rc;
	}
	if (collect_merge_later(r, &v->main.notes) || (split && collect_merge_later(r, &v->help.notes)))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	uint64_t end = split ? v->help.lsn : v->main.lsn, mtrs = v->main.mtrs + (split ? v->help.mtrs : 0);
	atomic_store(&v->verified_lsn, end);
	if (split)
		xb_info("log verified to LSN %llu (%llu mini-transactions) in %.2f s, in parallel with parsing, the part "
			"from LSN %llu by the parser once its memory was full; %zu pages are freed or rebuilt somewhere "
			"in it",
			(unsigned long long)end, (unsigned long long)mtrs, (double)(xb_clock_ns() - v->t0) / 1e9,
			(unsigned long long)v->split_lsn, r->n_later);
	else
		xb_info("log verified to LSN %llu (%llu mini-transactions) in %.2f s, in parallel with parsing; "
			"%zu pages are freed or rebuilt somewhere in it",
			(unsigned long long)end, (unsigned long long)mtrs, (double)v->ns / 1e9, r->n_later);
	return 0;
}

static void verifier_free(verifier *v)
{
	if (v->started) {
		pthread_join(v->tid, NULL);
		v->started = false;
	}
	for (vrun *vr = &v->main; vr <= &v->help; vr++) {
		free(vr->l.buf);
		vr->l.buf = NULL;
		collect_free(&vr->notes);
	}
}

/* The applier: batches are applied on their own thread, one at a time and
 * in log order, while the parser collects the next one. A full batch is
 * detached from the collector (collect_detach_batch) and waits as "pending"
 * until the verifier has checked the whole log and the previous batch is
 * applied; the memory of the pending and the running batch counts against
 * the budget (collector.reserved), so the parser stops when both together with
 * its own reach it. A batch is detached at half the budget, so that the two
 * halves alternate, or earlier (at a quarter of that, 64 MiB at least) when
 * the applier would otherwise wait: with a large budget the first batch then
 * starts as soon as the log is checked, and the last one, which nothing
 * overlaps, is small. */
typedef struct applier {
	collector *pending;     /* detached, not started */
	size_t pending_bytes;
	collector *running;     /* being applied by the thread */
	size_t running_bytes;
	pthread_t tid;
	_Atomic bool done;      /* the thread has finished running */
	uint64_t started;       /* batches started so far */
	bool verified;          /* the verifier was joined without error */
	spaces *sp;
	journal *jr;            /* the prepare journal every batch goes through */
	const recovery_opts *o;
	recovery_stats *st;
	volatile uint64_t *prog;
	int rc;                 /* the first failed batch's error */
	xb_error err;
} applier;

static void *applier_main(void *arg)
{
	applier *a = arg;
	batch_opts ro = {.threads = a->o->threads,
			   .compression_level = a->o->compression_level,
			   .progress = a->prog,
			   .should_stop = a->o->should_stop,
			   .check_first = a->started == 1,
			   .force_recovery = a->o->force_recovery > 0,
			   .partial = a->o->partial,
			   .journal = a->jr};
	uint64_t t = xb_clock_ns();
	a->rc = batch_apply(a->running, a->sp, &ro, &a->st->apply, &a->err);
	a->st->ns_apply_wall += xb_clock_ns() - t;
	atomic_store(&a->done, true);
	return NULL;
}

/* Wait for the running batch (if any) and free it. */
static int applier_join(applier *a, collector *r)
{
	if (!a->running)
		return 0;
	uint64_t t = xb_clock_ns();
	pthread_join(a->tid, NULL);
	a->st->ns_wait_apply += xb_clock_ns() - t;
	collect_free(a->running);
	free(a->running);
	a->running = NULL;
	r->reserved -= a->running_bytes;
	a->running_bytes = 0;
	return a->rc;
}

/* Start the pending batch on the applier thread (the verifier is joined and nothing runs). */
static int applier_start(applier *a, collector *r, xb_error *err)
{
	collector *b = a->pending;
	a->pending = NULL;
	a->running = b;
	a->running_bytes = a->pending_bytes;
	a->pending_bytes = 0;
	if (collect_refresh_later(b, r))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	size_t later = collect_drop_superseded(b, r);
	if (later)
		xb_info("%zu pages of this batch are freed or rebuilt later in the log: not applied now", later);
	a->started++;
	a->st->batches = a->started;
	xb_info("applying batch %llu: LSN %llu to %llu, %zu pages, %.1f MiB of records", (unsigned long long)a->started,
		(unsigned long long)b->batch_first_lsn, (unsigned long long)b->batch_end_lsn, b->n_pages,
		(double)a->running_bytes / 1048576.0);
	atomic_store(&a->done, false);
	if (pthread_create(&a->tid, NULL, applier_main, a)) {
		collect_free(b);
		free(b);
		a->running = NULL;
		r->reserved -= a->running_bytes;
		a->running_bytes = 0;
		return xb_err_set(err, XB_E_INTERNAL, "cannot start a thread");
	}
	return 0;
}

/* Detach the collector's batch as the pending one (there is none). */
static int applier_detach(applier *a, collector *r, xb_error *err)
{
	if (!r->n_pages && !r->batch_mtrs)
		return 0;
	size_t bytes = collect_batch_bytes(r);
	collector *b = collect_detach_batch(r);
	if (!b)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	a->pending = b;
	a->pending_bytes = bytes;
	r->reserved += bytes;
	return 0;
}

/* The whole log is checked: the caller's last step before files change
 * (o->before_apply: the DDL markers of a backup), then the tablespaces are
 * found and every one the log needs must be there. */
static int applier_verified(applier *a, collector *r, verifier *v, xb_error *err)
{
	int rc = verifier_join(v, r, a->st, true, err);
	if (!rc && a->o->before_apply)
		rc = a->o->before_apply(a->o->before_apply_ctx, err);
	if (!rc)
		rc = spaces_scan(a->sp, a->o->dir, a->o->data_file_path, err);
	if (rc)
		return rc;
	xb_info("%zu tablespaces in %s", a->sp->n, a->o->dir);
	if ((rc = batch_check_spaces(r, a->sp, a->o->partial ? BATCH_MISSING_WARN : BATCH_MISSING_REFUSE, err)))
		return rc;
	a->verified = true;
	return 0;
}

#define MIN_BATCH (64u << 20) /* a batch handed to an idle applier early holds at least this */

/* Move the pipeline on. wait: block until the collector is under its budget
 * (or, with drain, until everything detached has been applied). */
static int applier_step(applier *a, collector *r, verifier *v, bool drain, xb_error *err)
{
	int rc;
	if (a->running && atomic_load(&a->done) && (rc = applier_join(a, r)))
		goto failed;
	size_t own = collect_batch_bytes(r), fixed = collect_bytes(r) - own - r->reserved;
	/* half the memory; or less when the applier would otherwise sit idle, so
	 * that it starts as soon as the log is checked and the last batch, which
	 * nothing overlaps, is small */
	size_t half = (r->budget > fixed ? r->budget - fixed : 0) / 2, least = half / 4 > MIN_BATCH ? half / 4 : MIN_BATCH;
	bool idle = !a->running && atomic_load(&v->finished) && own >= least;
	if (!a->pending && (drain || collect_full(r) || own >= half || idle) &&
	    (rc = applier_detach(a, r, err)))
		return rc;
	for (;;) {
		if (!a->verified && (drain || (a->pending && !a->running && (atomic_load(&v->finished) || collect_full(r)))) &&
		    (rc = applier_verified(a, r, v, err)))
			return rc;
		if (a->pending && !a->running && a->verified && (rc = applier_start(a, r, err)))
			return rc;
		bool blocked = drain ? (a->running || a->pending) : collect_full(r) && (a->running || a->pending);
		if (!blocked)
			return 0;
		if (a->running && (rc = applier_join(a, r)))
			goto failed;
		if (drain && !a->pending && collect_batch_bytes(r) && (rc = applier_detach(a, r, err)))
			return rc;
	}
failed:
	*err = a->err;
	return rc;
}

/* Stop the pipeline after an error elsewhere: wait for the running batch, drop the pending one. */
static void applier_abort(applier *a, collector *r)
{
	if (a->running)
		(void)applier_join(a, r);
	if (a->pending) {
		collect_free(a->pending);
		free(a->pending);
		a->pending = NULL;
		r->reserved -= a->pending_bytes;
		a->pending_bytes = 0;
	}
}

/* Parse the whole log, handing a batch to the applier whenever the collector
 * is half full. Nothing is applied before the verifier has checked the whole log. */
static int parse_and_apply(logrd *l, collector *r, const recovery_opts *o, recovery_stats *st, verifier *v,
			   applier *a, volatile uint64_t *prog, xb_error *err)
{
	uint64_t lsn = l->info.cp.checkpoint_lsn;
	char why[200];
	for (;;) {
		int rc = log_fill(l, &st->ns_read_log, err);
		if (rc)
			return rc;
		redo_mtr m;
		bool checked = atomic_load(&v->verified_lsn) > lsn;
		int s = redo_frame_mtr(l->buf + l->pos, l->have - l->pos, lsn, l->info.hdr.first_lsn, l->info.capacity,
				       false, !checked, &m);
		if (s == REDO_MTR_NEED_MORE && l->buf_lsn + l->have < l->file_end_lsn)
			return xb_err_set(err, XB_E_INTERNAL, "log window too small at LSN %llu", (unsigned long long)lsn);
		if (s == REDO_MTR_NEED_MORE || s == REDO_MTR_END) {
			st->end_lsn = lsn;
			l->found_checkpoint = r->found_checkpoint;
			if ((rc = verifier_join(v, r, st, false, err)))
				return rc;
			return log_end(l, o, lsn, s == REDO_MTR_END ? m.why : "the file ends inside a mini-transaction",
				       err);
		}
		if (collect_add_mtr(r, l->buf + l->pos, m.records_len, lsn, m.end_lsn, why, sizeof why)) {
			if ((rc = verifier_join(v, r, st, false, err))) /* its message is the better one */
				return rc;
			xb_err_set(err, XB_E_REDO_CORRUPT, "%s: mini-transaction at LSN %llu: %s", l->path,
				   (unsigned long long)lsn, why);
			return xb_err_hint(err, "the redo copy is damaged; take a new backup");
		}
		if (prog)
			__atomic_add_fetch(prog, m.len, __ATOMIC_RELAXED);
		l->pos += m.len;
		lsn = m.end_lsn;
		if (o->should_stop && !(r->mtrs & 4095) && o->should_stop())
			return xb_err_set(err, XB_E_INTERRUPTED, "interrupted while reading the redo log at LSN %llu",
					  (unsigned long long)lsn);
		if ((rc = applier_step(a, r, v, false, err)))
			return rc;
	}
}

/* The log mariabackup leaves after --prepare: checkpoint at end - 16 and one FILE_CHECKPOINT mtr. */
static int write_empty_log(const char *dir, uint64_t end_lsn, xb_error *err)
{
	uint64_t cp = end_lsn - 16;
	uint8_t *b = calloc(1, REDO_HEADER_SIZE + 16);
	if (!b)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	redo_build_backup_header(b, cp, cp, REDO_BACKUP_CREATOR);
	uint8_t *m = b + REDO_HEADER_SIZE;
	m[0] = 0xfa; /* FILE_CHECKPOINT, length 10: space 0, page 0, 8-byte LSN */
	be64_put(m + 3, cp);
	m[11] = 1; /* termination byte: sequence bit of the first pass */
	be32_put(m + 12, crc32c(m, 11));
	char tmp[4096], path[4096];
	int rc = xb_path_join3(tmp, sizeof tmp, dir, LOG_NAME, ".xbtmp", err);
	if (!rc)
		rc = xb_path_join(path, sizeof path, dir, LOG_NAME, err);
	if (rc) {
		free(b);
		return rc;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0 || write(fd, b, REDO_HEADER_SIZE + 16) != REDO_HEADER_SIZE + 16 || fsync(fd))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", tmp, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(b);
	if (!rc && rename(tmp, path))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
	int dfd = rc ? -1 : xb_dir_open(XB_FILE_CWD, dir, false);
	if (dfd >= 0) {
		if (fsync(dfd))
			rc = xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", dir, strerror(errno));
		close(dfd);
	}
	return rc;
}

static int cmp_top(const void *a, const void *b)
{
	const recovery_space_stat *x = a, *y = b;
	return x->records < y->records ? 1 : x->records > y->records ? -1 : 0;
}

/* The tablespaces with the most records (partial selection, then sorted). */
static void top_spaces(const collector *r, const spaces *sp, recovery_stats *st)
{
	st->n_top = 0;
	for (size_t i = 0; i < r->cap_spaces; i++) {
		const collect_space *rs = &r->spaces[i];
		if (!rs->used || !rs->records)
			continue;
		int k = st->n_top;
		if (k == RECOVERY_TOP_SPACES) {
			k = RECOVERY_TOP_SPACES - 1;
			for (int j = 0; j < RECOVERY_TOP_SPACES; j++)
				if (st->top[j].records < st->top[k].records)
					k = j;
			if (st->top[k].records >= rs->records)
				continue;
		} else {
			st->n_top++;
		}
		recovery_space_stat *t = &st->top[k];
		t->space_id = rs->space_id;
		t->records = rs->records;
		t->bytes = rs->record_bytes;
		const space_file *f = spaces_find(sp, rs->space_id);
		snprintf(t->name, sizeof t->name, "%s", f ? f->rel : rs->name ? rs->name : "(no file)");
	}
	qsort(st->top, (size_t)st->n_top, sizeof st->top[0], cmp_top);
}

int recovery_run(const recovery_opts *o, recovery_stats *st, xb_error *err)
{
	uint64_t t0 = xb_clock_ns();
	memset(st, 0, sizeof *st);
	logrd l;
	memset(&l, 0, sizeof l);
	l.fd = -1;
	collector r;
	spaces sp;
	memset(&sp, 0, sizeof sp);
	xb_progress *prog = NULL;
	size_t io = (size_t)(o->threads < 1 ? 1 : o->threads) * (1u << 20) + 3 * WINDOW; /* + the verifier's two */
	/* what the program itself holds (code, libraries, stacks) besides the records and buffers */
	size_t base = 12u << 20;
	st->budget = o->use_memory > io + base + (4u << 20) ? o->use_memory - io - base : (4u << 20);
	st->threads = o->threads < 1 ? 1 : o->threads;
	int rc = collect_init(&r, st->budget) ? xb_err_set(err, XB_E_INTERNAL, "out of memory") : 0;
	if (!rc)
		rc = log_open(&l, o->log_dir ? o->log_dir : o->dir, err);
	if (!rc) {
		st->checkpoint_lsn = l.info.cp.checkpoint_lsn;
		xb_info("redo log %s: checkpoint LSN %llu, %llu bytes of records to read, up to %.0f MiB held at once",
			l.path, (unsigned long long)st->checkpoint_lsn,
			(unsigned long long)(l.file_end_lsn - st->checkpoint_lsn), (double)st->budget / 1048576.0);
		if (xb_progress_start(&prog, o->progress ? o->progress : "auto", "prepare", NULL, NULL, NULL) == 0)
			xb_progress_add_total(prog, 2 * (l.file_end_lsn - st->checkpoint_lsn));
	}
	volatile uint64_t *pc = prog ? xb_progress_counter(prog) : NULL;
	verifier v;
	memset(&v, 0, sizeof v);
	journal jr = {.fd = -1, .durable = o->durable};
	applier a = {.sp = &sp, .jr = &jr, .o = o, .st = st, .prog = pc};
	if (!rc) {
		/* a batch an interrupted prepare committed is made whole before anything reads its pages */
		uint64_t replayed = 0;
		rc = journal_replay(o->dir, &replayed, err);
		if (!rc && replayed)
			xb_info("%.1f MiB of pages written again from the prepare journal", (double)replayed / 1048576.0);
	}
	if (!rc)
		rc = verifier_start(&v, &l, o, err);
	if (!rc) {
		r.want_checkpoint = l.info.cp.checkpoint_lsn;
		uint64_t t = xb_clock_ns();
		rc = parse_and_apply(&l, &r, o, st, &v, &a, pc, err);
		uint64_t all = xb_clock_ns() - t, other = st->ns_read_log + st->ns_wait_apply + st->ns_lookahead;
		st->ns_parse = all > other ? all - other : 0;
	}
	if (!rc)
		rc = applier_step(&a, &r, &v, true, err);
	applier_abort(&a, &r);
	if (rc)
		journal_discard(&jr);
	else
		rc = journal_end(&jr, err);
	st->journal_bytes = jr.bytes;
	verifier_free(&v);
	if (prog)
		xb_progress_stop(prog);
	if (!rc && o->on_written)
		spaces_each_written(&sp, o->on_written, o->on_written_ctx);
	if (!rc) {
		uint64_t t = xb_clock_ns();
		rc = spaces_sync(&sp, o->threads < 4 ? 4 : o->threads, err);
		st->ns_fsync = xb_clock_ns() - t;
	}
	if (!rc)
		rc = trxsys_binlog_pos(&sp, st->binlog_name, sizeof st->binlog_name, &st->binlog_offset,
				       &st->has_binlog_pos, err);
	if (!rc)
		rc = write_empty_log(o->dir, st->end_lsn, err);
	st->log_bytes = st->end_lsn > st->checkpoint_lsn ? st->end_lsn - st->checkpoint_lsn : 0;
	st->mtrs = r.mtrs;
	st->records = r.records;
	st->parsed = r.parsed;
	memcpy(st->file_records, r.file_records, sizeof st->file_records);
	st->peak_recv_bytes = r.peak_bytes;
	top_spaces(&r, &sp, st);
	collect_free(&r);
	spaces_free(&sp);
	if (l.fd >= 0)
		close(l.fd);
	free(l.buf);
	st->ns_total = xb_clock_ns() - t0;
	return rc;
}
