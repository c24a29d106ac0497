/*
 * redo_follower.c - the redo log follower thread (see redo_follower.h).
 *
 * State: `scan_lsn` (== copied_lsn) is where the next mtr starts; only the
 * follower thread moves it (and redo_follower_stop after joining it). A
 * round (follow_round) is: notice a replaced log file; re-read the checkpoint
 * blocks and check for overwrite (an overwritten position looks like the end
 * of the log); scan; warn about headroom; log progress. The scan repeats the
 * overwrite check after reading each chunk, against that chunk's start: the
 * checkpoint's end LSN is a lower bound of the server's write position, so if
 * it is less than a capacity past the chunk, the chunk was intact when read
 * (a stale mtr from two passes ago would carry a valid CRC and the right
 * sequence bit; only this bookkeeping catches it).
 *
 * The log is read with direct I/O when the file system allows it: the server
 * writes its log with direct I/O (innodb_log_file_buffering=OFF, the default),
 * and on Linux a buffered read racing with a direct write can leave a stale
 * page in the page cache, which a buffered reader would then keep seeing
 * (the kernel only warns "Page cache invalidation failure on direct I/O").
 * Reads are therefore whole 4 KiB blocks into aligned buffers,
 * from the 4 KiB-aligned offset at or below scan_lsn (4 KiB is a multiple of
 * every log block size the server uses, 512..4096), starting with 64 KiB and
 * doubling while whole chunks parse, up to CHUNK_MAX. The
 * mtrs found are copied into an output buffer with their termination byte
 * set to 0x01 (the copy is linear: one pass) and handed to the sink chunk by
 * chunk, then copied_lsn is published and waiters are woken.
 *
 * The main thread's regular redo_follower_check also compares the server's
 * position with the copy: an overwrite is reported there as soon as the
 * server's LSN shows it (the follower may be asleep between polls or deep in
 * a long read), and the headroom warning is given ahead of time when the
 * server's redo rate would use it up before the next poll (forecast).
 *
 * Where the copy may stop: the server writes the block holding the end of its
 * log in full, and the bytes after the end are whatever its log buffer held
 * (older mini-transactions, or ones another thread is appending while the
 * write runs), so they can parse as valid mtrs, with a good CRC and the right
 * sequence bit, that the server later overwrites with different ones. A copy
 * that took them would wait forever for an mtr boundary that does not exist.
 * So each round first asks the server how far its log is durable
 * (cfg.durable_lsn, the server's flushed LSN) and only then reads: every mtr
 * ending at or below that LSN is final on disk, and nothing past it is copied.
 * If the log does not parse below that LSN for a while, it is corrupt, and
 * the follower says so instead of waiting. Without the callback (tests), the
 * tail is guarded by a second read of its last bytes and by holding back a
 * chain that does not end with the server's end marker.
 */
#include "redo_follower.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "platform/clock.h"
#include "redo.h"
#include "platform/file.h"
#include "innodb/inventory.h"

#define ALIGN 4096u
#define CHUNK_MIN (64u * 1024)
#define CHUNK_MAX (4u * 1024 * 1024) /* > REDO_MTR_SIZE_MAX + ALIGN */
#define REREAD_TRIES 3               /* re-reads of a not-yet-valid block per round */
#define SCAN_ROUND_MAX (64u * 1024 * 1024) /* bytes per round before re-checking the server */
#define SCANNED_LOG_INTERVAL 5       /* seconds between ">> log scanned up to" lines */
#define HEADROOM_WARN 0.2
#define STOP_ROUNDS 16               /* rounds of the last read in redo_follower_stop */
#define TAIL_CONFIRM (16u * 1024)    /* bytes before the end of the log that are read twice */
#define TAIL_HOLD (64u * 1024)       /* bytes held back when the log does not end with its end marker */
#define SHORT_MAX 10                 /* seconds the log may fail to parse below the durable LSN */
#define DURABLE_FAIL_MAX 60          /* seconds the durable LSN may be unreadable */

struct redo_follower {
	/* configuration */
	char *log_path;   /* the server's ib_logfile0 */
	xb_sink *sink;    /* where the copy goes */
	xb_sink_file *out; /* the copy, NULL once closed */
	unsigned poll_ms; /* poll interval */
	void (*on_file_op)(void *, int, uint32_t, const char *, const char *, uint64_t); /* DDL callback */
	void *ctx;        /* its context */
	int (*durable_fn)(void *, uint64_t *, xb_error *); /* the server's durable LSN, or NULL */
	void *durable_ctx; /* its context */

	/* the log file; touched by the follower thread only (or by stop after the join) */
	int fd;              /* open descriptor of the log */
	bool direct;         /* fd bypasses the page cache */
	dev_t dev;           /* identity of the file behind fd, to notice a replaced log */
	ino_t ino;           /* same */
	uint64_t first_lsn;  /* header first_lsn */
	uint64_t file_size;  /* bytes of the file */
	bool encrypted;      /* nonce layout */
	uint64_t scan_lsn;   /* next mtr starts here (== copied_lsn) */
	uint8_t *buf;        /* read buffer, CHUNK_MAX + ALIGN bytes */
	uint8_t *obuf;       /* output staging, same size */
	uint8_t *tbuf;       /* second read of the tail, TAIL_CONFIRM + 2 * ALIGN bytes */
	size_t olen;         /* bytes staged in obuf */
	time_t last_log;     /* when ">> log scanned up to" was last printed (xb_clock_sec, whole seconds) */
	uint64_t last_logged_lsn; /* and the LSN it printed */
	uint64_t durable;    /* largest durable LSN the server reported */
	time_t durable_fail_since; /* start of a run of failed durable_fn calls, 0 if none (as last_log) */
	time_t short_since;  /* since when the log has ended below `durable` (0: it does not; as last_log) */
	uint64_t cb_limit;   /* file records of mtrs ending past this LSN are not reported (yet) */

	/* shared with other threads */
	uint64_t checkpoint_lsn;       /* start of the copy (constant after start) */
	uint64_t checkpoint_end_lsn;   /* its end_lsn (constant after start) */
	_Atomic uint64_t copied_lsn;   /* end of the last mtr handed to the sink */
	_Atomic uint64_t server_lsn;   /* noted by the main thread */
	_Atomic uint64_t cp_end_lsn;   /* largest checkpoint end_lsn seen in the log */
	_Atomic uint64_t capacity;     /* bytes of the circular area */
	atomic_bool warned_headroom;   /* the headroom warning was given (by either thread) */

	pthread_t thread;        /* the follower thread */
	bool thread_running;     /* thread was created and not yet joined */
	pthread_mutex_t mu;      /* protects the fields below */
	pthread_cond_t wake;     /* wakes the thread (stop, kick) */
	pthread_cond_t progress; /* signalled when copied_lsn moves or the thread fails/ends */
	bool stop_req;           /* stop asked */
	bool kick;               /* poll now */
	bool thread_done;        /* the thread has left its loop */
	int failed;              /* XB_E_* once the follower has failed */
	xb_error error;          /* its error */
	double fc_t;             /* redo_follower_check: time of the previous sample (0: none) */
	uint64_t fc_server;      /* and the server's position then */
};

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* ---- file access */

static int read_full(int fd, uint8_t *dst, size_t n, uint64_t off, const char *path, xb_error *err)
{
	while (n) {
		ssize_t r = pread(fd, dst, n, (off_t)off);
		if (r < 0) {
			if (errno == EINTR || (errno == EINVAL && xb_file_drop_direct(fd)))
				continue;
			return xb_err_set(err, XB_E_IO_READ, "cannot read %s at offset %llu: %s", path,
					  (unsigned long long)off, strerror(errno));
		}
		if (r == 0)
			return xb_err_set(err, XB_E_IO_READ, "cannot read %s at offset %llu: unexpected end of file",
					  path, (unsigned long long)off);
		dst += r;
		off += (uint64_t)r;
		n -= (size_t)r;
	}
	return 0;
}

/* Read n bytes of log starting at LSN lsn, unwrapping the circle. */
static int read_lsn_range(redo_follower *rf, uint64_t lsn, uint8_t *dst, size_t n, xb_error *err)
{
	uint64_t cap = atomic_load(&rf->capacity);
	while (n) {
		uint64_t off = redo_lsn_to_offset(lsn, rf->first_lsn, cap); /* aligned: see scan() */
		size_t k = n;
		if (k > rf->file_size - off)
			k = (size_t)(rf->file_size - off);
		int rc = read_full(rf->fd, dst, k, off, rf->log_path, err);
		if (rc)
			return rc;
		dst += k;
		lsn += k;
		n -= k;
	}
	return 0;
}

/* Open path (direct I/O when possible) and parse its header area. */
static int open_log(const char *path, int *fd_out, bool *direct, struct stat *st, redo_log_info *li, xb_error *err)
{
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ | XB_FILE_DIRECT, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, errno == ENOENT ? XB_E_MISSING_FILE : XB_E_IO_READ, "cannot open redo log %s: %s",
				  path, strerror(errno));
	uint8_t area[REDO_HEADER_SIZE] __attribute__((aligned(ALIGN)));
	int rc = 0;
	if (fstat(fd, st) != 0)
		rc = xb_err_set(err, XB_E_IO_READ, "cannot stat %s: %s", path, strerror(errno));
	else if ((uint64_t)st->st_size <= REDO_HEADER_SIZE)
		rc = xb_err_set(err, XB_E_REDO_FORMAT, "%s: redo log is too small (%llu bytes)", path,
				(unsigned long long)st->st_size);
	else if ((uint64_t)st->st_size % ALIGN)
		xb_file_drop_direct(fd); /* not a log the server wrote in blocks: no aligned reads possible */
	if (!rc && !(rc = read_full(fd, area, sizeof area, 0, path, err)))
		rc = redo_log_parse(area, sizeof area, (uint64_t)st->st_size, path, li, err);
	if (rc) {
		close(fd);
		return rc;
	}
	*direct = xb_file_is_direct(fd);
	*fd_out = fd;
	return 0;
}

/* Re-read the checkpoint blocks; remember the largest end_lsn. Failures are ignored (next round). */
static void refresh_checkpoint(redo_follower *rf)
{
	uint8_t area[REDO_HEADER_SIZE] __attribute__((aligned(ALIGN)));
	if (read_full(rf->fd, area + REDO_CHECKPOINT_1, 2 * 4096, REDO_CHECKPOINT_1, rf->log_path, NULL))
		return;
	redo_checkpoint cp;
	if (redo_checkpoint_pick(area, rf->first_lsn, rf->log_path, &cp, NULL) == 0 &&
	    cp.end_lsn > atomic_load(&rf->cp_end_lsn))
		atomic_store(&rf->cp_end_lsn, cp.end_lsn);
}

/* ---- checks */

static uint64_t server_position(const redo_follower *rf)
{
	return max_u64(atomic_load(&rf->server_lsn), atomic_load(&rf->cp_end_lsn));
}

/* Fail when the server is a whole capacity ahead of `lsn` (unread log overwritten). */
static int check_overwrite(redo_follower *rf, uint64_t lsn, xb_error *err)
{
	uint64_t server = server_position(rf), cap = atomic_load(&rf->capacity);
	if (server <= lsn || server - lsn < cap)
		return 0;
	xb_err_set(err, XB_E_REDO_OVERWRITTEN,
		   "redo log was overwritten before it was copied: copied up to LSN %llu, server at LSN %llu",
		   (unsigned long long)lsn, (unsigned long long)server);
	return xb_err_hint(err, "increase innodb_log_file_size (now %llu bytes) or reduce the write load/--throttle",
			   (unsigned long long)rf->file_size);
}

static double headroom_of(uint64_t server, uint64_t copied, uint64_t cap)
{
	if (server <= copied || cap == 0)
		return 1.0;
	uint64_t lag = server - copied;
	return lag >= cap ? 0.0 : 1.0 - (double)lag / (double)cap;
}

/* ---- scanning */

static void file_rec_cb(void *ctx, const redo_file_rec *r)
{
	redo_follower *rf = ctx;
	if (r->op == REDO_FILE_CHECKPOINT || !rf->on_file_op || r->end_lsn > rf->cb_limit)
		return; /* an mtr that is not copied in this read is reported when it is */
	rf->on_file_op(rf->ctx, r->op, r->space_id, r->name, r->new_name, r->end_lsn);
}

/* Hand the staged mtrs to the sink and publish the new copied LSN. */
static int flush_out(redo_follower *rf, uint64_t lsn, xb_error *err)
{
	if (rf->olen) {
		int rc = xb_sink_write(rf->out, rf->obuf, rf->olen, err);
		if (rc)
			return rc;
		rf->olen = 0;
	}
	if (lsn != atomic_load(&rf->copied_lsn)) {
		pthread_mutex_lock(&rf->mu);
		atomic_store(&rf->copied_lsn, lsn);
		pthread_cond_broadcast(&rf->progress);
		pthread_mutex_unlock(&rf->mu);
	}
	return 0;
}

/* The end of the valid mtrs in buf, parsing from pos (LSN lsn) without copying. */
static size_t parse_end(redo_follower *rf, size_t pos, size_t n, uint64_t lsn, uint64_t cap, int *st, int *reason)
{
	redo_mtr m;
	while ((*st = redo_parse_mtr(rf->buf + pos, n - pos, lsn, rf->first_lsn, cap, rf->encrypted, &m, NULL, NULL)) ==
	       REDO_MTR_OK) {
		pos += m.len;
		lsn = m.end_lsn;
	}
	*reason = m.end_reason;
	return pos;
}

/* Where the log ends in buf (read from LSN read_lsn, n bytes), the bytes
 * near the end confirmed by a second read. A read that races with the
 * server writing the block at the end of its log can be torn: newly written
 * bytes followed by what the block held before, and that older content can
 * be stale mini-transactions of the server's log buffer that still carry a
 * valid CRC and sequence bit. The server then writes different bytes there,
 * and a copy that took them would wait forever for an LSN boundary that does
 * not exist. So the last TAIL_CONFIRM bytes before the end are read again; the
 * end is cut back to the first byte on which the two reads differ (the next
 * round reads that part again). Returns the confirmed end position in buf. */
static int confirmed_end(redo_follower *rf, uint64_t read_lsn, size_t skip, size_t n, size_t end, size_t *out,
			 xb_error *err)
{
	*out = end;
	if (end <= skip)
		return 0;
	size_t from = end > TAIL_CONFIRM ? (end - TAIL_CONFIRM) / ALIGN * ALIGN : 0;
	size_t to = (end + 1 + ALIGN - 1) / ALIGN * ALIGN; /* the end marker too */
	if (to > n)
		to = n;
	usleep(200); /* let a write in progress complete */
	int rc = read_lsn_range(rf, read_lsn + from, rf->tbuf, to - from, err);
	if (rc)
		return rc;
	size_t lim = end < to ? end + 1 : end; /* the byte after the last mtr must agree too */
	for (size_t i = from; i < lim; i++)
		if (rf->buf[i] != rf->tbuf[i - from]) {
			*out = i > skip ? i : skip;
			return 0;
		}
	return 0;
}

/* Ask the server how far its log is durable. A failure is retried next
 * round; DURABLE_FAIL_MAX seconds of failures end the follower. */
static int refresh_durable(redo_follower *rf, xb_error *err)
{
	uint64_t d = 0;
	xb_error e;
	xb_err_clear(&e);
	if (rf->durable_fn(rf->durable_ctx, &d, &e) == 0) {
		if (rf->durable_fail_since)
			xb_info("The server's flushed LSN is readable again (%llu)", (unsigned long long)d);
		rf->durable_fail_since = 0;
		if (d > rf->durable)
			rf->durable = d;
		redo_follower_note_server_lsn(rf, d);
		return 0;
	}
	time_t now = (time_t)xb_clock_sec();
	if (!rf->durable_fail_since) {
		rf->durable_fail_since = now;
		xb_warn("cannot read the server's flushed LSN, retrying: %s", e.msg);
	} else if (now - rf->durable_fail_since >= DURABLE_FAIL_MAX) {
		xb_err_set(err, e.code ? e.code : XB_E_QUERY,
			   "the redo log copy stopped at LSN %llu: the server's flushed LSN could not be read for %d s: %s",
			   (unsigned long long)rf->scan_lsn, DURABLE_FAIL_MAX, e.msg);
		return xb_err_hint(err, "check that the server is up and that the backup user can run SHOW GLOBAL STATUS");
	}
	return 0;
}

/* Copy mtrs from scan_lsn until the end of the log (or SCAN_ROUND_MAX bytes);
 * *caught_up tells whether the end was reached. */
static int scan(redo_follower *rf, bool *caught_up, xb_error *err)
{
	size_t want = CHUNK_MIN;
	int rereads = 0;
	uint64_t start = rf->scan_lsn;
	bool gated = rf->durable_fn != NULL;
	int rc;
	*caught_up = false;
	if (gated && (rc = refresh_durable(rf, err))) /* before any read: see the top of the file */
		return rc;
	while (rf->scan_lsn - start < SCAN_ROUND_MAX) {
		uint64_t cap = atomic_load(&rf->capacity);
		uint64_t lsn = rf->scan_lsn;
		uint64_t off = redo_lsn_to_offset(lsn, rf->first_lsn, cap);
		size_t skip = (size_t)(off % ALIGN);
		uint64_t read_lsn = lsn - skip;
		size_t n = (want + skip + ALIGN - 1) / ALIGN * ALIGN;
		if (n > cap)
			n = (size_t)cap;
		if ((rc = read_lsn_range(rf, read_lsn, rf->buf, n, err)))
			return rc;
		/* the chunk must have been read before the server wrote a whole log past it */
		refresh_checkpoint(rf);
		if ((rc = check_overwrite(rf, lsn, err)))
			return rc;
		size_t limit = n;
		if (gated) {
			rf->cb_limit = rf->durable;
		} else {
			int st, reason = REDO_END_NONE;
			limit = parse_end(rf, skip, n, lsn, cap, &st, &reason);
			if (st == REDO_MTR_END && (rc = confirmed_end(rf, read_lsn, skip, n, limit, &limit, err)))
				return rc;
			/* The server ends its log with a 0x00 byte after the last mtr. A chain
			 * that ends otherwise (CRC, sequence bit) may end in stale mtrs of a
			 * block being rewritten: its last TAIL_HOLD bytes wait for a later read. */
			if (st == REDO_MTR_END && reason != REDO_END_MARKER)
				limit = limit > skip + TAIL_HOLD ? limit - TAIL_HOLD : skip;
			rf->cb_limit = read_lsn + limit;
		}
		size_t pos = skip;
		bool at_durable = false;
		int st;
		redo_mtr m;
		for (;;) {
			st = redo_parse_mtr(rf->buf + pos, n - pos, lsn, rf->first_lsn, cap, rf->encrypted, &m,
					    file_rec_cb, rf);
			if (st == REDO_MTR_OK && (pos + m.len > limit || (gated && m.end_lsn > rf->durable))) {
				at_durable = gated; /* not durable, or not confirmed yet: read again */
				st = REDO_MTR_END;
				m.end_reason = REDO_END_CRC;
				break;
			}
			if (st != REDO_MTR_OK)
				break;
			memcpy(rf->obuf + rf->olen, rf->buf + pos, m.len);
			rf->obuf[rf->olen + m.records_len] = 0x01;
			rf->olen += m.len;
			pos += m.len;
			lsn = m.end_lsn;
		}
		bool progress = lsn != rf->scan_lsn;
		rf->scan_lsn = lsn;
		if ((rc = flush_out(rf, lsn, err)))
			return rc;
		if (st == REDO_MTR_CORRUPT)
			return xb_err_set(err, XB_E_REDO_CORRUPT, "%s: corrupt mini-transaction at LSN %llu: %s",
					  rf->log_path, (unsigned long long)lsn, m.why);
		if (st == REDO_MTR_NEED_MORE) {
			if (!progress && n >= cap)
				return xb_err_set(err, XB_E_REDO_CORRUPT,
						  "%s: mini-transaction at LSN %llu does not fit in the log", rf->log_path,
						  (unsigned long long)lsn);
			want = want * 2 > CHUNK_MAX ? CHUNK_MAX : want * 2;
			rereads = 0;
			continue;
		}
		/* REDO_MTR_END */
		if (progress) {
			rereads = 0;
			rf->short_since = 0;
		}
		if (at_durable || (gated && lsn >= rf->durable) ||
		    (!gated && (m.end_reason == REDO_END_MARKER || rereads >= REREAD_TRIES))) {
			rf->short_since = gated ? 0 : rf->short_since;
			*caught_up = true;
			return 0;
		}
		if (gated && rereads >= REREAD_TRIES) {
			/* everything below the durable LSN is on disk: it must parse */
			time_t now = (time_t)xb_clock_sec();
			if (!rf->short_since)
				rf->short_since = now;
			else if (now - rf->short_since >= SHORT_MAX)
				return xb_err_set(err, XB_E_REDO_CORRUPT,
						  "%s: the log does not parse at LSN %llu (%s), below LSN %llu which the "
						  "server has made durable",
						  rf->log_path, (unsigned long long)lsn, m.why,
						  (unsigned long long)rf->durable);
			*caught_up = true;
			return 0;
		}
		rereads++; /* the block may be being written right now */
		usleep(1000);
	}
	return 0;
}

/* Follow ib_logfile0 being replaced by an online resize: drain the old file, reopen. */
static int check_replaced(redo_follower *rf, xb_error *err)
{
	struct stat st;
	if (stat(rf->log_path, &st) != 0 || (st.st_ino == rf->ino && st.st_dev == rf->dev))
		return 0;
	bool caught_up = false;
	int rc;
	while (!caught_up)
		if ((rc = scan(rf, &caught_up, err)))
			return rc;
	int fd;
	redo_log_info li;
	xb_error e2;
	bool direct;
	if (open_log(rf->log_path, &fd, &direct, &st, &li, &e2))
		return 0; /* not readable yet: next round */
	if ((li.hdr.encrypted != rf->encrypted)) {
		close(fd);
		return xb_err_set(err, XB_E_REDO_FORMAT, "%s: redo log was replaced by one with a different encryption",
				  rf->log_path);
	}
	if (rf->scan_lsn < li.hdr.first_lsn) {
		close(fd);
		return xb_err_set(err, XB_E_REDO_OVERWRITTEN,
				  "redo log was resized before it was copied: copied up to LSN %llu, the new log starts at "
				  "LSN %llu",
				  (unsigned long long)rf->scan_lsn, (unsigned long long)li.hdr.first_lsn);
	}
	close(rf->fd);
	rf->fd = fd;
	rf->direct = direct;
	rf->dev = st.st_dev;
	rf->ino = st.st_ino;
	rf->first_lsn = li.hdr.first_lsn;
	rf->file_size = li.file_size;
	atomic_store(&rf->capacity, li.capacity);
	atomic_store(&rf->cp_end_lsn, max_u64(atomic_load(&rf->cp_end_lsn), li.cp.end_lsn));
	xb_info("Redo log %s was replaced (online resize to %llu bytes, starting at LSN %llu); continuing at LSN %llu",
		rf->log_path, (unsigned long long)li.file_size, (unsigned long long)li.hdr.first_lsn,
		(unsigned long long)rf->scan_lsn);
	return 0;
}

/* One poll round. */
static int follow_round(redo_follower *rf, bool *caught_up, xb_error *err)
{
	int rc;
	if ((rc = check_replaced(rf, err)))
		return rc;
	/* an overwritten position looks like the end of the log: check before believing it */
	refresh_checkpoint(rf);
	if ((rc = check_overwrite(rf, rf->scan_lsn, err)))
		return rc;
	if ((rc = scan(rf, caught_up, err)))
		return rc;

	uint64_t copied = rf->scan_lsn, cap = atomic_load(&rf->capacity);
	double h = headroom_of(server_position(rf), copied, cap);
	if (h < HEADROOM_WARN && !atomic_exchange(&rf->warned_headroom, true)) {
		xb_warn("redo log headroom is %.0f%%: the server is %llu bytes ahead of the copy in a %llu-byte log; "
			"the backup fails if it gets a whole log ahead (increase innodb_log_file_size or --throttle)",
			100.0 * h, (unsigned long long)(server_position(rf) - copied), (unsigned long long)cap);
	}
	time_t now = (time_t)xb_clock_sec();
	if (copied != rf->last_logged_lsn && now - rf->last_log >= SCANNED_LOG_INTERVAL) {
		xb_info(">> log scanned up to (%llu)", (unsigned long long)copied);
		rf->last_log = now;
		rf->last_logged_lsn = copied;
	}
	return 0;
}

static void *follower_main(void *arg)
{
	redo_follower *rf = arg;
	pthread_mutex_lock(&rf->mu);
	while (!rf->stop_req) {
		pthread_mutex_unlock(&rf->mu);
		xb_error e;
		xb_err_clear(&e);
		bool caught_up = false;
		int rc = follow_round(rf, &caught_up, &e);
		pthread_mutex_lock(&rf->mu);
		if (rc) {
			rf->failed = rc;
			rf->error = e;
			break;
		}
		if (caught_up && !rf->kick && !rf->stop_req) {
			struct timespec ts = xb_clock_after_ms(rf->poll_ms);
			pthread_cond_timedwait(&rf->wake, &rf->mu, &ts);
		}
		rf->kick = false;
	}
	rf->thread_done = true;
	pthread_cond_broadcast(&rf->progress);
	pthread_mutex_unlock(&rf->mu);
	return NULL;
}

/* ---- API */

static int init_sync(redo_follower *rf)
{
	int rc = pthread_mutex_init(&rf->mu, NULL) || xb_clock_cond_init(&rf->wake) || xb_clock_cond_init(&rf->progress);
	return rc ? -1 : 0;
}

int redo_follower_start(const redo_follower_cfg *cfg, redo_follower **out, xb_error *err)
{
	*out = NULL;
	redo_follower *rf = calloc(1, sizeof *rf);
	if (!rf || init_sync(rf) != 0) {
		free(rf);
		return xb_err_set(err, XB_E_INTERNAL, "cannot set up the redo follower");
	}
	rf->fd = -1;
	rf->sink = cfg->sink;
	rf->poll_ms = cfg->poll_interval_ms ? cfg->poll_interval_ms : 50;
	rf->on_file_op = cfg->on_file_op;
	rf->ctx = cfg->ctx;
	rf->durable_fn = cfg->durable_lsn;
	rf->durable_ctx = cfg->durable_ctx;
	rf->log_path = strdup(cfg->log_path);
	void *b1 = NULL, *b2 = NULL;
	if (posix_memalign(&b1, ALIGN, CHUNK_MAX + ALIGN) == 0)
		rf->buf = b1;
	if (posix_memalign(&b2, ALIGN, CHUNK_MAX + ALIGN) == 0)
		rf->obuf = b2;
	void *b3 = NULL;
	if (posix_memalign(&b3, ALIGN, TAIL_CONFIRM + 2 * ALIGN) == 0)
		rf->tbuf = b3;
	if (!rf->log_path || !rf->buf || !rf->obuf || !rf->tbuf) {
		redo_follower_free(rf);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory for the redo follower");
	}
	struct stat st;
	redo_log_info li;
	int rc = open_log(rf->log_path, &rf->fd, &rf->direct, &st, &li, err);
	if (rc) {
		redo_follower_free(rf);
		return rc;
	}
	rf->dev = st.st_dev;
	rf->ino = st.st_ino;
	rf->first_lsn = li.hdr.first_lsn;
	rf->file_size = li.file_size;
	rf->encrypted = li.hdr.encrypted;
	atomic_store(&rf->capacity, li.capacity);
	rf->checkpoint_lsn = li.cp.checkpoint_lsn;
	rf->checkpoint_end_lsn = li.cp.end_lsn;
	rf->scan_lsn = li.cp.checkpoint_lsn;
	atomic_store(&rf->copied_lsn, li.cp.checkpoint_lsn);
	atomic_store(&rf->cp_end_lsn, li.cp.end_lsn);

	uint8_t hdr[REDO_HEADER_SIZE];
	redo_build_backup_header_ex(hdr, li.cp.checkpoint_lsn, li.cp.end_lsn,
				    cfg->creator ? cfg->creator : REDO_BACKUP_CREATOR, li.hdr.format,
				    li.hdr.encrypted ? li.hdr.crypt_info : NULL);
	if (!(rf->out = xb_sink_open(rf->sink, INV_REDO_NAME, err)) ||
	    (rc = xb_sink_write(rf->out, hdr, sizeof hdr, err))) {
		rc = err && err->code ? err->code : XB_E_IO_WRITE;
		redo_follower_free(rf);
		return rc;
	}
	xb_info("Redo log (from LSN %llu) is copied from %s (%s, %llu-byte log, checkpoint end LSN %llu%s)",
		(unsigned long long)li.cp.checkpoint_lsn, rf->log_path,
		li.hdr.encrypted ? "encrypted" : "not encrypted", (unsigned long long)li.file_size,
		(unsigned long long)li.cp.end_lsn, rf->direct ? ", direct I/O" : "");

	bool caught_up;
	if ((rc = follow_round(rf, &caught_up, err))) {
		redo_follower_free(rf);
		return rc;
	}
	if (pthread_create(&rf->thread, NULL, follower_main, rf) != 0) {
		redo_follower_free(rf);
		return xb_err_set(err, XB_E_INTERNAL, "cannot start the redo follower thread");
	}
	rf->thread_running = true;
	*out = rf;
	return 0;
}

uint64_t redo_follower_checkpoint_lsn(const redo_follower *rf)
{
	return rf->checkpoint_lsn;
}

uint64_t redo_follower_copied_lsn(const redo_follower *rf)
{
	return atomic_load(&((redo_follower *)rf)->copied_lsn);
}

void redo_follower_note_server_lsn(redo_follower *rf, uint64_t lsn)
{
	uint64_t cur = atomic_load(&rf->server_lsn);
	while (lsn > cur && !atomic_compare_exchange_weak(&rf->server_lsn, &cur, lsn))
		;
}

double redo_follower_headroom(const redo_follower *rf)
{
	redo_follower *m = (redo_follower *)rf;
	return headroom_of(server_position(m), atomic_load(&m->copied_lsn), atomic_load(&m->capacity));
}

/* Under rf->mu, from redo_follower_check: warn once when, at the rate the
 * server's LSN moved since the previous check, the log not yet copied would
 * fill HEADROOM_WARN of the capacity before the follower reads again (a poll
 * and a check from now): a fast writer can use up the headroom between two
 * polls, so the follower's own warning would come too late. */
static void forecast(redo_follower *rf, uint64_t server, uint64_t copied, uint64_t cap)
{
	double now = xb_clock_sec();
	double dt = now - rf->fc_t;
	if (rf->fc_t > 0 && dt > 0 && server >= rf->fc_server && server > copied && cap &&
	    !atomic_load(&rf->warned_headroom)) {
		double rate = (double)(server - rf->fc_server) / dt;
		double horizon = rf->poll_ms / 1000.0 + 1.0;
		double lag = (double)(server - copied), ahead = lag + rate * horizon;
		if (ahead >= (1.0 - HEADROOM_WARN) * (double)cap && !atomic_exchange(&rf->warned_headroom, true)) {
			double left = rate > 0 ? ((double)cap - lag) / rate : 0;
			xb_warn("redo log headroom is %.0f%% and falling: the server writes %.1f MiB/s of redo into a "
				"%llu-byte log and the copy is %llu bytes behind; at this rate it overwrites the log not "
				"yet copied in about %.1f s, which fails the backup (increase innodb_log_file_size, "
				"reduce the write load or --log-copy-interval)",
				100.0 * (1.0 - lag / (double)cap), rate / 1048576.0, (unsigned long long)cap,
				(unsigned long long)(server - copied), left > 0 ? left : 0.0);
		}
	}
	rf->fc_t = now;
	rf->fc_server = server;
}

int redo_follower_check(redo_follower *rf, xb_error *err)
{
	pthread_mutex_lock(&rf->mu);
	int rc = rf->failed;
	if (!rc && rf->thread_running && !rf->thread_done) {
		/* the follower may be asleep or in a long read: the overwrite is
		 * seen here, from the server's position, as soon as it happens */
		uint64_t copied = atomic_load(&rf->copied_lsn), cap = atomic_load(&rf->capacity);
		xb_error e;
		xb_err_clear(&e);
		if ((rc = check_overwrite(rf, copied, &e)) != 0) {
			rf->failed = rc;
			rf->error = e;
			pthread_cond_broadcast(&rf->progress);
		} else {
			forecast(rf, server_position(rf), copied, cap);
		}
	}
	if (rc && err)
		*err = rf->error;
	pthread_mutex_unlock(&rf->mu);
	return rc;
}

int redo_follower_wait_for(redo_follower *rf, uint64_t lsn, unsigned timeout_s, bool (*should_stop)(xb_error *err),
			   xb_error *err)
{
	double give_up = xb_clock_sec() + timeout_s;
	int rc = 0;
	pthread_mutex_lock(&rf->mu);
	while (atomic_load(&rf->copied_lsn) < lsn) {
		if (should_stop && should_stop(err)) {
			rc = err ? err->code : XB_E_INTERRUPTED;
			break;
		}
		if (rf->failed) {
			rc = rf->failed;
			if (err)
				*err = rf->error;
			break;
		}
		if (rf->thread_done || !rf->thread_running) {
			rc = xb_err_set(err, XB_E_INTERNAL, "the redo follower is not running");
			break;
		}
		rf->kick = true;
		pthread_cond_signal(&rf->wake);
		struct timespec slice = xb_clock_after_ms(1000); /* a second, then should_stop again */
		if (pthread_cond_timedwait(&rf->progress, &rf->mu, &slice) == ETIMEDOUT && xb_clock_sec() >= give_up &&
		    atomic_load(&rf->copied_lsn) < lsn) {
			rc = xb_err_set(err, XB_E_REDO_CORRUPT,
					"was only able to copy the redo log from LSN %llu to %llu, not %llu, in %u s",
					(unsigned long long)rf->checkpoint_lsn,
					(unsigned long long)atomic_load(&rf->copied_lsn), (unsigned long long)lsn,
					timeout_s);
			xb_err_hint(err, "the server may not have written its log (FLUSH ENGINE LOGS), or its log "
					 "was overwritten: try a larger innodb_log_file_size");
			break;
		}
	}
	pthread_mutex_unlock(&rf->mu);
	return rc;
}

static void join_thread(redo_follower *rf)
{
	if (!rf->thread_running)
		return;
	pthread_mutex_lock(&rf->mu);
	rf->stop_req = true;
	pthread_cond_signal(&rf->wake);
	pthread_mutex_unlock(&rf->mu);
	pthread_join(rf->thread, NULL);
	rf->thread_running = false;
}

int redo_follower_stop(redo_follower *rf, uint64_t *last_lsn, xb_error *err)
{
	join_thread(rf);
	int rc = redo_follower_check(rf, err);
	if (!rc && rf->out) {
		/* last read, in this thread: everything the server has written by now */
		bool caught_up = false;
		xb_error e;
		xb_err_clear(&e);
		for (int round = 0; !rc && !caught_up && round < STOP_ROUNDS; round++)
			rc = follow_round(rf, &caught_up, &e);
		if (rc) {
			pthread_mutex_lock(&rf->mu);
			rf->failed = rc;
			rf->error = e;
			pthread_mutex_unlock(&rf->mu);
			if (err)
				*err = e;
		}
	}
	if (!rc && rf->out) {
		xb_sink_file *f = rf->out;
		rf->out = NULL;
		if ((rc = xb_sink_close(f, err)) != 0 && !(err && err->code))
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot finish the redo log copy");
	}
	if (rc)
		return rc;
	uint64_t last = atomic_load(&rf->copied_lsn);
	if (last_lsn)
		*last_lsn = last;
	xb_info("Redo log (from LSN %llu to %llu) was copied.", (unsigned long long)rf->checkpoint_lsn,
		(unsigned long long)last);
	return 0;
}

void redo_follower_free(redo_follower *rf)
{
	if (!rf)
		return;
	join_thread(rf);
	if (rf->out)
		xb_sink_abort(rf->out);
	if (rf->fd >= 0)
		close(rf->fd);
	free(rf->buf);
	free(rf->obuf);
	free(rf->tbuf);
	free(rf->log_path);
	pthread_mutex_destroy(&rf->mu);
	pthread_cond_destroy(&rf->wake);
	pthread_cond_destroy(&rf->progress);
	free(rf);
}
