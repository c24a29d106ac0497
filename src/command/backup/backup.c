/*
 * backup.c - the --backup command.
 *
 * This file only sequences; the parts live beside it: layout.c (where the
 * server keeps its files), scan.c (which files to copy), copy.c (the copy and
 * its threads), pace.c (--pace=auto), stage.c (BACKUP STAGE locks and what is
 * done under them), ddl.c (DDL during the copy), bufpool.c (the buffer-pool
 * dump), meta.c (the metadata files), history.c (--history), target.c
 * (where the backup goes).
 *
 * The sequence (see README "How a backup works"):
 *  1. check the target, connect, learn the server's layout, check privileges,
 *     find the base of an incremental backup (incremental.c: its InnoDB files
 *     are then copied as deltas) and, with --history, check that the history
 *     table can be written (history.c);
 *  2. start the redo follower at the current checkpoint (before any datafile
 *     is read, so the copied log covers every change the copies may miss);
 *  3. BACKUP STAGE START, copy the InnoDB datafiles with --parallel threads,
 *     largest first, while the main thread feeds the follower the server's
 *     LSN (for the headroom check) and watches for its failure; then ask the
 *     server for a buffer-pool dump and store it (bufpool.c);
 *  4. BACKUP STAGE FLUSH and BLOCK_DDL: reconcile tablespaces changed by DDL
 *     during the copy (ddl.c), copy table definitions and non-InnoDB tables
 *     (both on --parallel workers; how long DDL stayed blocked is logged);
 *  5. BACKUP STAGE BLOCK_COMMIT: copy the Aria control file, tables and the
 *     log files the server still needs (arialogs.c), record the binlog
 *     position and GTID (and replica / Galera positions), make the redo
 *     durable and copy it up to the server's LSN, stop the follower;
 *  6. BACKUP STAGE END, write the metadata files, then the manifest (every
 *     file written, with its size and CRC-32C computed on the way out:
 *     target.c puts the checksumming filter first in both chains), then
 *     xtrabackup_checkpoints last;
 *     with --history, then insert the backup's row (history.c).
 * No lock wait is unbounded (--lock-wait-timeout; lockwait.c names who holds
 * the lock). A signal (SIGINT, SIGTERM, SIGHUP) is honoured at every step
 * until the completion marker: step() checks for it between the steps (the
 * copies and lock waits check it within theirs), and the error names the
 * step it came in. Any error unwinds: BACKUP STAGE END releases a stage still held,
 * the connections are closed, and no completion marker is written.
 */
#include "backup_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command/command.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/tablefilter.h"
#include "innodb/redo_follower.h"
#include "platform/clock.h"
#include "platform/file.h"

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

/* The global privileges the statements this backup will run need: those of
 * the copy itself (checked before the target is made), then those of the
 * replica options (checked once the target exists, as mariabackup, which
 * fails on them later, leaves one). */
static int check_privileges(backup_ctx *c, bool replica, xb_error *err)
{
	const backup_settings *s = &c->set;
	const char *need[4];
	int n = 0;
	if (!replica) {
		if (!s->no_lock) {
			need[n++] = "RELOAD";  /* BACKUP STAGE, FLUSH ENGINE LOGS */
			need[n++] = "PROCESS"; /* SHOW ENGINE INNODB STATUS */
		}
		if (c->lay.log_bin)
			need[n++] = "BINLOG MONITOR"; /* SHOW MASTER STATUS */
	} else {
		if (s->safe_slave_backup)
			need[n++] = "REPLICATION SLAVE ADMIN"; /* STOP / START ALL SLAVES SQL_THREAD */
		if (s->slave_info || s->safe_slave_backup)
			need[n++] = "SLAVE MONITOR"; /* SHOW ALL SLAVES STATUS */
	}
	return n ? xb_server_check_privileges(&c->srv, need, n, s->check_privileges, err) : 0;
}

/* Where the backup stands now (named in the error when a signal stops it);
 * fails when a signal came since the previous step. */
static int step(backup_ctx *c, const char *now, xb_error *err)
{
	if (command_interrupted(err))
		return XB_E_INTERRUPTED;
	c->step = now;
	return 0;
}

static int run(backup_ctx *c, xb_error *err)
{
	const backup_settings *s = &c->set;
	int rc;
	c->step = "connecting to the server";
	if ((rc = target_check(&s->target, err)))
		return rc;
	if ((rc = xb_server_connect(&c->srv, &s->conn, err)))
		return rc;
	xb_info("Connected to the server through %s as %s", c->srv.where, c->srv.user);
	if ((rc = layout_read(c, err)))
		return rc;
	if ((rc = check_privileges(c, false, err)) || (rc = step(c, "connected, nothing copied yet", err)))
		return rc;
	xb_fault(XB_FAULT_BACKUP_CONNECTED);
	if ((rc = step(c, "checking the options against the server", err)) || (rc = scan_filter_open(c, err)) ||
	    (rc = incremental_resolve(c, err)) || (rc = history_prepare(c, err)))
		return rc;
	if ((rc = step(c, "making the target", err)) || (rc = target_open(c, err)) ||
	    (rc = check_privileges(c, true, err)))
		return rc;
	if (s->no_lock)
		xb_warn("--no-lock: no BACKUP STAGE locks: DDL and writes to non-InnoDB tables during the backup "
			"are not protected, and xtrabackup_binlog_info may not match the data");
	if ((rc = copy_limiter_open(c, err)))
		return rc;
	if (s->checkpoint_now) {
		xb_error ignore;
		if (xb_server_exec(&c->srv, "SET GLOBAL innodb_log_checkpoint_now=ON", &ignore) == 0)
			xb_info("Asked the server for a checkpoint (innodb_log_checkpoint_now)");
	}

	/* 2. redo follower */
	redo_follower_cfg rcfg;
	memset(&rcfg, 0, sizeof rcfg);
	rcfg.log_path = c->lay.log_file;
	rcfg.sink = c->sink;
	rcfg.poll_interval_ms = s->log_copy_interval;
	rcfg.on_file_op = ddl_note_file_op;
	rcfg.ctx = c;
	/* without InnoDB nothing writes the log: all of it is durable, read it to its end marker */
	rcfg.durable_lsn = c->lay.innodb_off ? NULL : durable_lsn;
	rcfg.durable_ctx = c;
	if ((rc = step(c, "starting the redo log copy", err)) || (rc = xb_server_connect(&c->srv_log, &s->conn, err)))
		return rc;
	if ((rc = redo_follower_start(&rcfg, &c->rf, err)))
		return rc;
	c->start_checkpoint = redo_follower_checkpoint_lsn(c->rf);
	if ((rc = xb_progress_start(&c->progress, s->progress, "copied", headroom_extra, c, err)))
		return rc;

	/* 3. InnoDB datafiles */
	if ((rc = step(c, "BACKUP STAGE START", err)) || (rc = stage_enter(c, "START", err)))
		return rc;
	/* the LSN of the file listing (a server without InnoDB has none: its files lie still) */
	if (c->lay.innodb_off)
		c->scan_lsn = c->start_checkpoint;
	else if ((rc = xb_server_lsn(&c->srv, &c->scan_lsn, err)))
		return rc;
	if ((rc = step(c, "BACKUP STAGE START, listing the InnoDB files", err)))
		return rc;
	xb_fault(XB_FAULT_BACKUP_REDO_STARTED);
	if ((rc = step(c, "listing the InnoDB files", err)) || (rc = scan_innodb(c, &c->files, NULL, NULL, err)))
		return rc;
	uint64_t total = 0;
	for (size_t i = 0; i < c->files.n; i++)
		total += c->files.v[i].size;
	pacer pc;
	pace_start(c, &pc, s->throttle ? NULL : c->limiter, total);
	if ((rc = step(c, "copying the InnoDB datafiles", err)) || (rc = copy_innodb_all(c, &pc, err)))
		return rc;
	if ((rc = step(c, "storing the buffer-pool dump", err)) || (rc = bufpool_dump(c, err)))
		return rc;
	if ((rc = step(c, "InnoDB datafiles copied", err)))
		return rc;
	xb_fault(XB_FAULT_BACKUP_DATAFILES_DONE);

	/* 4. DDL blocked: reconcile, then non-InnoDB files */
	if ((rc = step(c, "BACKUP STAGE FLUSH and BLOCK_DDL", err)) || (rc = stage_replica_stop(c, err)) ||
	    (rc = stage_enter(c, "FLUSH", err)) || (rc = stage_enter(c, "BLOCK_DDL", err)))
		return rc;
	double ddl_t0 = xb_clock_sec();
	if ((rc = step(c, "under BLOCK_DDL", err)))
		return rc;
	xb_fault(XB_FAULT_BACKUP_BLOCK_DDL);
	if ((rc = step(c, "under BLOCK_DDL, checking the InnoDB files for DDL", err)) || (rc = ddl_reconcile(c, err)))
		return rc;
	double ddl_t1 = xb_clock_sec();
	if ((rc = step(c, "under BLOCK_DDL, copying the non-InnoDB files", err)) || (rc = scan_other(c, &c->files, err)) ||
	    (rc = copy_kind(c, BF_PLAIN, err)))
		return rc;
	size_t n_plain = 0;
	for (size_t i = 0; i < c->files.n; i++)
		n_plain += c->files.v[i].kind == BF_PLAIN;
	xb_info("Under BLOCK_DDL: InnoDB files checked for DDL in %.0f ms, %zu other files copied in %.0f ms",
		(ddl_t1 - ddl_t0) * 1000.0, n_plain, (xb_clock_sec() - ddl_t1) * 1000.0);

	/* 5. commits blocked: the consistency point */
	if ((rc = step(c, "BACKUP STAGE BLOCK_COMMIT", err)) || (rc = stage_enter(c, "BLOCK_COMMIT", err)))
		return rc;
	double lock_t0 = xb_clock_sec();
	if ((rc = step(c, "under BLOCK_COMMIT", err)))
		return rc;
	xb_fault(XB_FAULT_BACKUP_BLOCK_COMMIT);
	if ((rc = step(c, "under BLOCK_COMMIT, copying the Aria files", err)) || (rc = aria_logs_begin(c, err)) ||
	    (rc = copy_kind(c, BF_AT_COMMIT, err)) || (rc = aria_logs_finish(c, err)) ||
	    (rc = step(c, "under BLOCK_COMMIT, finishing the redo log copy", err)) || (rc = stage_finish_redo(c, err)))
		return rc;
	aria_logs_free(c);
	if ((rc = step(c, "BACKUP STAGE END", err)) || (rc = stage_enter(c, "END", err)))
		return rc;
	c->lock_seconds = xb_clock_sec() - lock_t0;
	c->ddl_seconds = xb_clock_sec() - ddl_t0;
	if (!s->no_lock) {
		xb_info("Commits were blocked for %.0f ms (BACKUP STAGE BLOCK_COMMIT to END)", c->lock_seconds * 1000.0);
		xb_info("DDL was blocked for %.0f ms (BACKUP STAGE BLOCK_DDL to END)", c->ddl_seconds * 1000.0);
	}
	stage_replica_restart(c);
	xb_progress_stop(c->progress);
	c->progress = NULL;
	incremental_report(c);

	/* 6. metadata, completion marker last */
	if ((rc = step(c, "BACKUP STAGE END done", err)))
		return rc;
	xb_fault(XB_FAULT_BACKUP_STAGE_END);
	c->end_time = time(NULL);
	if ((rc = step(c, "writing the metadata files", err)) || (rc = meta_write_binlog_info(c, err)) ||
	    (rc = meta_write_backup_cnf(c, err)) || (rc = meta_write_info(c, err)) || (rc = target_finish(c, err)))
		return rc;
	if ((rc = step(c, "writing the manifest", err)) || (rc = meta_write_manifest(c, err)) ||
	    (rc = target_finish(c, err)))
		return rc;
	if ((rc = step(c, "metadata written, before the completion marker", err)))
		return rc;
	xb_fault(XB_FAULT_BACKUP_BEFORE_MARKER);
	/* the last moment a signal stops the backup: after the marker it is complete */
	if ((rc = step(c, "writing the completion marker", err)) || (rc = meta_write_checkpoints(c, err)) ||
	    (rc = target_finish(c, err)))
		return rc;
	return history_write(c, err);
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
	pthread_mutex_init(&c->manifest_lock, NULL);
	if (c->set.open_files_limit > 0) {
		long got = xb_files_limit_raise(c->set.open_files_limit);
		if (got < c->set.open_files_limit)
			xb_warn("--open-files-limit=%ld: the limit of open files stays at %ld (%s)",
				c->set.open_files_limit, got, got < 0 ? strerror(errno) : "the hard limit");
		else
			xb_info("Limit of open files: %ld", got);
	}
	rc = run(c, err);
	if (rc == XB_E_INTERRUPTED && err && c->step) {
		/* where it came: the log line says at which step the backup was stopped */
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n, " (at: %s)", c->step);
	}
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
	stage_release(c);
	stage_replica_restart(c);
	lockwait_close(c);
	xb_server_close(&c->srv); /* closing the connection also ends a BACKUP STAGE */
	xb_server_close(&c->srv_log);
	target_close(c);
	copy_limiter_close(c);
	bfile_list_free(&c->files);
	ddl_touched_free(c);
	aria_logs_free(c);
	xb_manifest_free(&c->manifest);
	tablefilter_free(c->filter);
	pthread_mutex_destroy(&c->manifest_lock);
	free(c);
	return rc;
}
