/*
 * driver.h - crash recovery of a backup directory: the InnoDB part of
 * --prepare, and the driver of the modules under recovery/: the collector
 * (collect.h: redo split per page within a memory budget), batch apply
 * (batch.h: a batch's pages applied in parallel) and page replay (replay.h:
 * every record type applied to one page). Its API keeps the name of the
 * whole, recovery_*.
 *
 * recovery_run() reads the backup's redo copy (ib_logfile0; an incremental's
 * when log_dir names one, doc/incremental.md §2) from its
 * checkpoint to its end and collects page records (collect.h) until the memory
 * budget is reached. A verifier thread checks the whole log meanwhile;
 * nothing is changed before it is done (then before_apply runs and the
 * tablespaces are scanned). Each batch is then applied to the tablespace
 * files (batch.h) on a thread of its own while the next is collected.
 * Each batch's pages go through the prepare journal (journal.h), which a
 * rerun after an interruption replays first, so no page is left torn.
 * At the end the files are fsynced and the log is replaced with the small,
 * logically empty one mariabackup leaves (header, checkpoint at end - 16,
 * one FILE_CHECKPOINT mini-transaction), so the server finds nothing to
 * recover. Everything it measured goes into recovery_stats.
 */
#ifndef XB_INNODB_RECOVERY_DRIVER_H
#define XB_INNODB_RECOVERY_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "innodb/recovery/replay.h"
#include "innodb/recovery/batch.h"
#include "innodb/recovery/deltas.h"

#define RECOVERY_TOP_SPACES 10

typedef struct recovery_opts {
	const char *dir;            /* the backup directory */
	const char *log_dir;        /* where the redo copy to apply is (NULL: dir); the empty log is written to dir */
	const char *data_file_path; /* innodb_data_file_path from backup-my.cnf, NULL for the default */
	size_t use_memory;          /* bytes recovery may hold (--use-memory) */
	int threads;                /* apply threads */
	int compression_level;      /* page_compressed zlib level */
	uint64_t expect_end_lsn;    /* last_lsn of xtrabackup_checkpoints (0: unknown) */
	const char *progress;       /* --progress mode */
	bool (*should_stop)(void);  /* polled; true stops recovery with XB_E_INTERRUPTED (may be NULL) */
	bool durable;               /* the prepare journal fsynced before pages are written in place (journal.h) */
	int force_recovery;         /* innodb_force_recovery (0 or 1): 1 leaves a page that fails its checksum before apply as copied */
	bool partial;               /* a partial backup: a tablespace with redo records but no file is expected (its records are passed over, with a warning) */
	/* called once the whole log is checked, before any file is looked at or
	 * changed (may be NULL); non-zero (with err set) stops recovery */
	int (*before_apply)(void *ctx, xb_error *err);
	void *before_apply_ctx;
	/* called at the end, before the files are fsynced, with the path of
	 * every file of a tablespace this recovery wrote or resized (may be NULL) */
	void (*on_written)(void *ctx, const char *path);
	void *on_written_ctx;
} recovery_opts;

typedef struct recovery_space_stat {
	uint32_t space_id;
	char name[256];
	uint64_t records, bytes;
} recovery_space_stat;

typedef struct recovery_stats {
	uint64_t checkpoint_lsn;    /* where recovery started */
	uint64_t end_lsn;           /* end of the log */
	uint64_t log_bytes;         /* end_lsn - checkpoint_lsn */
	uint64_t mtrs, records, batches;
	uint64_t file_records[5];   /* FILE_CREATE, DELETE, RENAME, MODIFY, CHECKPOINT */
	replay_stats parsed;        /* page records parsed, by kind */
	batch_stats apply;          /* what the apply phase did */
	uint64_t ns_read_log, ns_parse, ns_lookahead, ns_fsync, ns_total;
	uint64_t ns_apply_wall;     /* the applier thread's time on batches (overlaps parsing) */
	uint64_t ns_wait_apply;     /* what the parser waited for the applier */
	size_t peak_recv_bytes;     /* most memory held by collected records */
	uint64_t journal_bytes;     /* bytes written to the prepare journal (journal.h) */
	size_t budget;              /* the record budget derived from use_memory */
	int threads;
	recovery_space_stat top[RECOVERY_TOP_SPACES];
	bool has_binlog_pos;        /* the binlog position InnoDB recovered (xtrabackup_binlog_pos_innodb) */
	char binlog_name[520];
	uint64_t binlog_offset;
	int n_top;
	bool incremental;           /* an incremental was applied first: deltas holds that phase */
	deltas_stats deltas;        /* filled by the caller (deltas.h) */
} recovery_stats;

int recovery_run(const recovery_opts *o, recovery_stats *st, xb_error *err);

#endif
