/*
 * redo_follower.h - the redo log follower thread of --backup.
 *
 * It copies the server's circular ib_logfile0, from the checkpoint current at
 * start to wherever the backup ends, into a linear "ib_logfile0" in the sink:
 * the 12 KiB backup header (redo_build_backup_header) and then every complete,
 * CRC-valid mini-transaction with its termination byte forced to 0x01, which
 * is the file mariabackup --prepare (and our own prepare) recovers from.
 *
 * A thread polls the log every poll_interval_ms: it asks the server how far
 * its log is durable, reads write-size aligned chunks with pread (unwrapping
 * the circle), frames mtrs up to that LSN, and reports file records (DDL)
 * through a callback. Each round it re-reads the checkpoint blocks; if the server
 * (its checkpoint end LSN, or the LSN the main thread noted from SHOW ENGINE
 * INNODB STATUS) is a whole log capacity ahead of the copy, unread log has
 * been overwritten and the follower fails with XB_E_REDO_OVERWRITTEN (also
 * noticed by redo_follower_check). It warns once when less than 20% of the
 * capacity is left, or is about to be (redo_follower_check), logs
 * ">> log scanned up to (LSN)" every few seconds, and follows an online log
 * resize (ib_logfile0 replaced by a new file) by draining the old file and
 * reopening the new one. Accessors are thread-safe.
 */
#ifndef XB_INNODB_REDO_FOLLOWER_H
#define XB_INNODB_REDO_FOLLOWER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "sink/sink.h"

typedef struct redo_follower redo_follower;

typedef struct redo_follower_cfg {
	const char *log_path;      /* server's ib_logfile0 */
	xb_sink *sink;             /* the copy is written to "ib_logfile0" in this sink */
	unsigned poll_interval_ms; /* default (0) 50 ms: must keep up with a heavy write load */
	/* DDL tracking, called from the follower thread (or from redo_follower_stop's
	 * last read): op is REDO_FILE_CREATE/DELETE/RENAME/MODIFY, REDO_INIT_PAGE0 or
	 * REDO_TRIM_PAGES (redo.h; FILE_CHECKPOINT is not passed on), name/new_name
	 * as the server wrote them ("./db/t.ibd", NULL when the op has none), lsn =
	 * end LSN of the mini-transaction. May be NULL. */
	void (*on_file_op)(void *ctx, int op, uint32_t space_id, const char *name, const char *new_name,
			   uint64_t lsn);
	void *ctx;           /* passed to on_file_op */
	const char *creator; /* creator string of the copy's header; NULL: REDO_BACKUP_CREATOR */
	/* The server's durable LSN (Innodb_lsn_flushed), called from the follower
	 * thread once per round before it reads: only mtrs ending at or below it
	 * are copied. Bytes past it can be garbage that still parses as valid mtrs
	 * (the server writes its last block in full, with whatever its log buffer
	 * held after the end), which a copy must never take. Returns 0 on success.
	 * May be NULL (tests): the follower then relies on re-reads of the tail. */
	int (*durable_lsn)(void *ctx, uint64_t *lsn, xb_error *err);
	void *durable_ctx; /* passed to durable_lsn */
} redo_follower_cfg;

/* Open the log, pick the checkpoint, write the 12 KiB backup header, copy
 * what is there, start the thread; logs "Redo log (from LSN X) ...".
 * Errors: XB_E_MISSING_FILE, XB_E_IO_READ, XB_E_REDO_FORMAT, XB_E_IO_WRITE
 * (sink), XB_E_INTERNAL (thread). */
int redo_follower_start(const redo_follower_cfg *cfg, redo_follower **out, xb_error *err);

/* Start of the copy: the checkpoint LSN picked at start. */
uint64_t redo_follower_checkpoint_lsn(const redo_follower *rf);

/* End of the last complete mtr copied. */
uint64_t redo_follower_copied_lsn(const redo_follower *rf);

/* The main thread tells it the server's LSN from SHOW ENGINE INNODB STATUS, for headroom. */
void redo_follower_note_server_lsn(redo_follower *rf, uint64_t lsn);

/* Fraction of log capacity still free for us, 0..1: 1 - (server LSN - copied LSN) / capacity,
 * with the server LSN the larger of the noted one and the checkpoint end LSN. */
double redo_follower_headroom(const redo_follower *rf);

/* 0 while the follower is healthy; else its error (copied into err). Called
 * regularly (every half second) by the main thread: it fails the follower
 * with XB_E_REDO_OVERWRITTEN as soon as the server's position is a whole log
 * ahead of the copy, and warns once when, at the server's current redo rate,
 * the headroom would fall under 20% before the follower reads again. */
int redo_follower_check(redo_follower *rf, xb_error *err);

/* Wait until copied_lsn >= lsn (waking the thread to poll at once). Every
 * second of the wait, should_stop (may be NULL) is asked whether to give up
 * (a signal): its error is returned. Other errors: the follower's own, or
 * XB_E_REDO_CORRUPT when timeout_s pass first. */
int redo_follower_wait_for(redo_follower *rf, uint64_t lsn, unsigned timeout_s, bool (*should_stop)(xb_error *err),
			   xb_error *err);

/* Last read, stop the thread, close the copy (it appears in the sink);
 * *last_lsn = end of the copy. Error if the follower failed (the copy is then
 * discarded). Logs "Redo log (from LSN A to B) was copied". */
int redo_follower_stop(redo_follower *rf, uint64_t *last_lsn, xb_error *err);

/* Stop the thread if still running, discard an unclosed copy, release everything. NULL is fine. */
void redo_follower_free(redo_follower *rf);

#endif
