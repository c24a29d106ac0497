/*
 * stage.c - the server's BACKUP STAGE locks and what is done under them.
 *
 * stage_enter() takes the next stage (START, FLUSH, BLOCK_DDL, BLOCK_COMMIT,
 * END; nothing with --no-lock), each wait bounded by lockwait.c; after a
 * failure stage_release() ends a stage still held; --safe-slave-backup stops a replica's SQL
 * thread before DDL is blocked and starts it again at the end; under
 * BLOCK_COMMIT, stage_finish_redo() makes the server's redo durable, waits for
 * the follower to copy it, records the binary log position, GTID and replica
 * / Galera positions, and stops the follower at that point: the backup's
 * consistency point.
 */
#include "backup_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command/command.h"
#include "common/log.h"
#include "innodb/redo.h"
#include "innodb/redo_follower.h"

int stage_enter(backup_ctx *c, const char *name, xb_error *err)
{
	if (c->set.no_lock)
		return 0;
	char sql[64];
	snprintf(sql, sizeof sql, "BACKUP STAGE %s", name);
	xb_info("Starting %s", sql);
	int rc;
	if (!strcmp(name, "END")) {
		rc = xb_server_exec(&c->srv, sql, err); /* releases: never waits */
	} else {
		bool start = !strcmp(name, "START") && c->set.start_wait_timeout > 0;
		char option[64];
		snprintf(option, sizeof option, "--%s", start ? c->set.start_wait_option : "lock-wait-timeout");
		rc = lockwait_exec(c, sql, start ? c->set.start_wait_timeout : c->set.lock_wait_timeout, option, err);
	}
	if (rc)
		return rc;
	c->stage_held = strcmp(name, "END") != 0;
	xb_info("Acquired %s", sql);
	return 0;
}

void stage_release(backup_ctx *c)
{
	if (!c->stage_held || !c->srv.mysql)
		return;
	c->stage_held = false;
	xb_error e;
	if (xb_server_exec(&c->srv, "BACKUP STAGE END", &e))
		xb_warn("BACKUP STAGE END failed (closing the connection releases the locks): %s", e.msg);
	else
		xb_info("Released the backup locks (BACKUP STAGE END)");
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

int stage_replica_stop(backup_ctx *c, xb_error *err)
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

void stage_replica_restart(backup_ctx *c)
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

int stage_finish_redo(backup_ctx *c, xb_error *err)
{
	uint64_t lsn = 0;
	/* without InnoDB no one writes the redo log: the copy already has all of it */
	int rc = c->lay.innodb_off ? 0 : xb_server_lsn(&c->srv, &lsn, err);
	if (!rc)
		rc = xb_server_exec(&c->srv, "FLUSH NO_WRITE_TO_BINLOG ENGINE LOGS", err);
	if (rc == XB_E_PRIVILEGE && c->set.no_lock) {
		/* no RELOAD: the server writes its log out within a second by itself */
		xb_warn("no RELOAD privilege for FLUSH ENGINE LOGS: waiting for the server to write its redo log");
		xb_err_clear(err);
		rc = 0;
	}
	if (rc)
		return rc;
	if (!c->lay.innodb_off) {
		xb_info("Waiting for the redo log copy to reach LSN %llu", (unsigned long long)lsn);
		if ((rc = redo_follower_wait_for(c->rf, lsn, 600, command_interrupted, err)))
			return rc;
	}
	if ((rc = record_binlog(c, err)))
		return rc;
	if ((rc = meta_write_slave_info(c, err)) || (rc = meta_write_galera_info(c, err)))
		return rc;
	/* the last checkpoint of the server: the start point of an incremental backup */
	uint64_t cp = 0, end = 0;
	if ((rc = redo_read_checkpoint(c->lay.log_file, &cp, &end, err)))
		return rc;
	if ((rc = redo_follower_stop(c->rf, &c->last_lsn, err)))
		return rc;
	c->to_lsn = cp < c->last_lsn ? cp : c->last_lsn;
	if (c->to_lsn < c->start_checkpoint)
		c->to_lsn = c->start_checkpoint;
	return 0;
}

