/*
 * backup_int.h - state shared by the parts of the --backup command.
 *
 * backup.c runs the sequence (connect, redo follower, copy, locks, finish);
 * layout.c learns where the server keeps its files; scan.c finds the files
 * to copy; copy.c copies them; stage.c takes the BACKUP STAGE locks; ddl.c
 * reconciles tablespaces created, renamed or dropped while they were being
 * copied; meta.c writes the metadata files, history.c the --history row;
 * incremental.c finds the base of an incremental backup.
 * They share this context.
 */
#ifndef XB_BACKUP_INT_H
#define XB_BACKUP_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/error.h"
#include "db/server.h"
#include "info/manifest.h"
#include "info/xbinfo.h"
#include "settings.h"
#include "sink/sink.h"

enum bfile_kind {
	BF_INNODB,      /* a tablespace file of the inventory: copied page by page with validation */
	BF_PLAIN,       /* copied as bytes under BLOCK_DDL (.frm, MyISAM, CSV, ...) */
	BF_AT_COMMIT,   /* Aria tables and logs, log tables: copied under BLOCK_COMMIT */
};

typedef struct bfile {
	char *src;            /* absolute source path */
	char *rel;            /* path inside the backup */
	uint64_t size;        /* size when scanned */
	int kind;             /* enum bfile_kind */
	bool system_space;    /* part of the system tablespace */
	uint32_t first_page_no; /* first page number of a system tablespace file */
	uint32_t space_id;    /* InnoDB space id (from page 0), or UINT32_MAX */
	bool copied;          /* copy finished */
	bool missing;         /* vanished before it could be copied */
	bool deferred;        /* page 0 not readable yet: retry later */
	bool unwritten;       /* copied as it was, page 0 never written yet: the redo log recreates it */
	uint64_t dev, ino;    /* InnoDB: device and inode when page 0 was read at the scan (0: unknown) */
} bfile;

typedef struct bfile_list {
	bfile *v;             /* files */
	size_t n, cap;        /* count and capacity */
} bfile_list;

typedef struct server_layout {
	char datadir[4096];            /* server datadir, with trailing '/' removed */
	char data_home_dir[4096];      /* innodb_data_home_dir (datadir when empty) */
	char data_file_path[1024];     /* innodb_data_file_path */
	char undo_dir[4096];           /* innodb_undo_directory */
	char log_dir[4096];            /* innodb_log_group_home_dir */
	char log_file[4200];           /* the redo log in it */
	char aria_log_dir[4096];       /* aria_log_dir_path */
	uint32_t page_size;            /* innodb_page_size */
	uint64_t log_file_size;        /* innodb_log_file_size */
	char checksum_algorithm[64];   /* innodb_checksum_algorithm */
	int undo_tablespaces;          /* innodb_undo_tablespaces */
	int compression_level;         /* innodb_compression_level */
	bool log_bin;                  /* binary logging on */
	bool innodb_off;               /* the server runs without InnoDB: its files lie still, nothing to follow */
	unsigned pagecomp_readable;    /* bit N: the server reads page_compressed algorithm N (zlib, and those whose provider_ plugin is loaded) */
	char version[128];             /* SELECT VERSION() */
} server_layout;

struct xb_throttle;

/* State of --pace=auto (pace.c). */
typedef struct pacer {
	struct xb_throttle *limiter; /* adjustable read limiter shared by the copy threads, NULL = no pacing */
	bool watch;                /* the server's rate is being watched (pacing on, first LSNs read) */
	bool active;               /* the server is busy: the copy is paced against its baseline */
	double baseline;           /* its redo rate before the copy, bytes/s */
	double prev_t;             /* time of the previous sample */
	uint64_t prev_lsn;         /* server LSN then */
	uint64_t prev_bytes;       /* datafile bytes copied then */
	double best_copy;          /* fastest copy rate seen, MiB/s */
	double last_log;           /* when pacing last logged */
	double ratio;              /* redo rate of the last sample / baseline */
	int slow_ticks;            /* samples in a row under the slow-down threshold */
	int quiet_ticks;           /* samples in a row with (almost) no redo */
} pacer;

/* Why pace_step changed the limit (or not). */
typedef enum pace_why { PACE_SAME, PACE_SLOWER, PACE_FASTER, PACE_IDLE, PACE_REBASE, PACE_WOKE, PACE_STALL } pace_why;

typedef struct backup_ctx {
	backup_settings set;           /* what was asked, resolved from the options at the start */
	xb_server srv;                 /* connection */
	xb_server srv_log;             /* second connection, for the redo follower thread only */
	xb_server srv_watch;           /* third connection, opened when a lock wait needs it: who holds the lock, KILL QUERY */
	bool watch_failed;             /* srv_watch could not be opened: not tried again */
	bool have_mli;                 /* the server has the metadata_lock_info plugin (learnt on srv_watch) */
	long session_lock_wait;        /* lock_wait_timeout set on srv, s (0: not set yet) */
	bool stage_held;               /* a BACKUP STAGE is held on srv: BACKUP STAGE END releases it */
	server_layout lay;             /* where the server keeps things */
	xb_sink *sink;                 /* where data files and the redo copy go (compressed, encrypted as asked) */
	xb_sink *meta_sink;            /* where metadata files go: like sink, never compressed */
	bfile_list files;              /* files found by the scan */
	struct redo_follower *rf;      /* redo follower */
	uint64_t start_checkpoint;     /* checkpoint LSN the redo copy starts at */
	uint64_t to_lsn;               /* checkpoint LSN at the end */
	uint64_t last_lsn;             /* end of the redo copy */
	char binlog_file[512];         /* SHOW MASTER STATUS File */
	unsigned long long binlog_pos; /* SHOW MASTER STATUS Position */
	char gtid[4096];               /* gtid_current_pos */
	bool have_binlog;              /* binlog info recorded */
	time_t start_time, end_time;   /* wall clock */
	double lock_seconds;           /* time under BLOCK_COMMIT */
	double ddl_seconds;            /* time DDL was blocked (BLOCK_DDL to END) */
	uint64_t scan_lsn;             /* the server's LSN before the InnoDB files were listed */
	char **touched;                /* paths a create, delete or rename in the redo log named (ddl.c) */
	uint64_t *touched_lsn;         /* the LSN of each */
	size_t touched_n, touched_cap; /* their count, allocated */
	bool touched_lost;             /* one could not be remembered (out of memory) */
	bool slave_stopped;            /* --safe-slave-backup stopped the SQL thread */
	struct xb_progress *progress;  /* progress display */
	bool target_is_local_dir;      /* the data sink is a plain directory: no stream, no filter */
	struct xb_iogate *iogate;      /* read/write phases of the datafile copy; NULL = read-ahead streaming */
	size_t batch_bytes;            /* with iogate: bytes each copy thread reads and writes at a time */
	struct xb_throttle *limiter;   /* --throttle, or the adjustable limiter of --pace=auto; NULL = neither */
	xb_xbinfo info;                /* what xtrabackup_info says, made once (meta_write_info): also the history row */
	struct aria_logs *aria;        /* the Aria log files held open under BLOCK_COMMIT (arialogs.c), NULL outside */
	_Atomic bool copy_stop;        /* the backup failed (server gone, redo copy failed, a copy failed, a signal): copies stop at their next chunk */
	const char *step;              /* what the backup is doing now, named in the error of a signal */
	xb_manifest manifest;          /* every file the sinks published, with size and CRC-32C (meta_note_file) */
	pthread_mutex_t manifest_lock; /* serialises the copy threads' additions to manifest */
	uint64_t inc_lsn;              /* incremental backup (set.incremental): pages newer than this LSN go into the deltas */
	char inc_base[4200];           /* what the base is, for the log ("backup DIR", "history row of series NAME") */
	_Atomic uint64_t inc_pages;    /* incremental: pages read for the deltas */
	_Atomic uint64_t inc_delta_pages; /* incremental: pages written into them */
	_Atomic uint64_t inc_delta_bytes; /* incremental: bytes of the deltas, as they went into the sink */
	struct tablefilter *filter;    /* the databases and tables kept (--databases*, --tables*, the server's ignore_db_dirs) */
} backup_ctx;

/* scan.c; scan_filter_open: the partial-backup filter from the settings and
 * the server's ignore_db_dirs; scan_innodb: the InnoDB files the filter keeps
 * (their page 0 read on --parallel workers; known, when not NULL, tells the
 * files known unchanged, whose page 0 is not read); scan_other: the other
 * files of the database directories the filter keeps */
int scan_filter_open(backup_ctx *c, xb_error *err);
int scan_innodb(backup_ctx *c, bfile_list *out,
		bool (*known)(void *ctx, const char *rel, uint64_t dev, uint64_t ino, uint32_t *space_id), void *known_ctx,
		xb_error *err);
int scan_other(backup_ctx *c, bfile_list *out, xb_error *err);
void bfile_list_free(bfile_list *l);
int bfile_add(bfile_list *l, const char *src, const char *rel, int kind, xb_error *err);
int read_space_id(const char *path, uint32_t *space_id);

/* arialogs.c, under BLOCK_COMMIT: aria_logs_begin() asks the server which Aria
 * log files it still needs, opens them and copies aria_log_control (before any
 * Aria table); aria_logs_finish() copies those files, then any newer ones that
 * appeared meanwhile; aria_logs_free() closes what is still open (any path) */
int aria_logs_begin(backup_ctx *c, xb_error *err);
int aria_logs_finish(backup_ctx *c, xb_error *err);
void aria_logs_free(backup_ctx *c);

/* layout.c: where the server keeps its files (its variables; our directory options win) */
int layout_read(backup_ctx *c, xb_error *err);

/* copy.c: the rate limiter of --throttle / --pace=auto (c->limiter); a file
 * copied as bytes; one InnoDB datafile (page by page, validated; a vanished or
 * unready file is marked for BLOCK_DDL); every InnoDB file on --parallel
 * workers while the redo follower is watched; every file of a kind, in order */
int copy_limiter_open(backup_ctx *c, xb_error *err);
void copy_limiter_close(backup_ctx *c);
int copy_plain(backup_ctx *c, const bfile *f, int worker, xb_error *err);
/* copy.c: an open file (src names it in messages) to rel in the backup, from
 * where fd stands to its end; fd is closed */
int copy_fd(backup_ctx *c, int fd, const char *src, const char *rel, xb_error *err);
/* copy_innodb_one: in an incremental backup the file becomes rel.delta and
 * rel.meta, unless whole (a .new copy prepare takes as it is) */
int copy_innodb_one(backup_ctx *c, bfile *f, const char *rel, int worker, bool whole, xb_error *err);
int copy_innodb_all(backup_ctx *c, struct pacer *pc, xb_error *err);
int copy_kind(backup_ctx *c, int kind, xb_error *err);
/* copy.c: the watch of a running copy (every half second): the server is
 * asked its LSN (fed to the redo follower, and to pc when not NULL); a
 * server that went away, a failed redo copy or a signal fails it (and sets
 * copy_stop) */
int copy_watch(backup_ctx *c, struct pacer *pc, xb_error *err);

/* stage.c: take BACKUP STAGE name (nothing with --no-lock), waiting at most
 * --lock-wait-timeout (START: --startup-wait-timeout/--ftwrl-wait-timeout when
 * given; lockwait.c); stage_release: BACKUP STAGE END after a failure, when a
 * stage is held; --safe-slave-backup's
 * stop and restart of the replica SQL thread; under BLOCK_COMMIT, the redo made
 * durable and copied, positions recorded, the follower stopped (to_lsn, last_lsn) */
int stage_enter(backup_ctx *c, const char *name, xb_error *err);
void stage_release(backup_ctx *c);
int stage_replica_stop(backup_ctx *c, xb_error *err);
void stage_replica_restart(backup_ctx *c);
int stage_finish_redo(backup_ctx *c, xb_error *err);

/* lockwait.c: run a BACKUP STAGE statement on c->srv with lock_wait_timeout
 * = limit (s; option: the option that set it, for messages), logging every
 * 10 s who holds it up; XB_E_LOCK_TIMEOUT naming them when the server gives
 * up, XB_E_INTERRUPTED when a signal stopped it. lockwait_close closes the
 * watching connection. lockwait_describe formats one processlist row (info:
 * the statement's first 100 characters, info_cut: it is longer; locks: what
 * metadata_lock_info says it holds, or NULL) into buf; returns its length. */
int lockwait_exec(backup_ctx *c, const char *sql, long limit, const char *option, xb_error *err);
void lockwait_close(backup_ctx *c);
size_t lockwait_describe(char *buf, size_t n, const char *id, const char *user, const char *host,
			 const char *command, const char *time, const char *state, const char *info, bool info_cut,
			 const char *locks);

/* ddl.c: under BLOCK_DDL, .del markers and .new copies for what DDL changed
 * during the copy; the redo follower's file-operation callback (runs on its
 * thread; remembers deleted and renamed paths); freeing what it remembered */
int ddl_reconcile(backup_ctx *c, xb_error *err);
void ddl_note_file_op(void *ctx, int op, uint32_t space_id, const char *name, const char *new_name, uint64_t lsn);
void ddl_touched_free(backup_ctx *c);

/* target.c: check the target (before connecting), build the sink chains
 * into c->sink and c->meta_sink, finish them, free them (target_resolve()
 * reads its options: settings.h) */
int target_check(const target_settings *t, xb_error *err);
int target_open(backup_ctx *c, xb_error *err);
int target_finish(backup_ctx *c, xb_error *err);
void target_close(backup_ctx *c);

/* bufpool.c: ask the server for a buffer-pool dump and store it (warnings only, unless the sink fails) */
int bufpool_dump(backup_ctx *c, xb_error *err);

/* pace.c: total = the datafile bytes to copy (a small copy is never paced) */
void pace_start(backup_ctx *c, pacer *p, struct xb_throttle *limiter, uint64_t total);
void pace_tick(backup_ctx *c, pacer *p, uint64_t server_lsn);
/* The decision alone, for a sample at time t (seconds): the server's LSN,
 * the datafile bytes copied so far and the current limit (MiB/s, 0 = none).
 * Returns the new limit. No I/O: unit-tested. */
unsigned pace_step(pacer *p, double t, uint64_t server_lsn, uint64_t copied_bytes, unsigned cap, pace_why *why);

/* meta.c */
int meta_write_binlog_info(backup_ctx *c, xb_error *err);
int meta_write_slave_info(backup_ctx *c, xb_error *err);
int meta_write_galera_info(backup_ctx *c, xb_error *err);
int meta_write_backup_cnf(backup_ctx *c, xb_error *err);
int meta_write_info(backup_ctx *c, xb_error *err);
int meta_write_checkpoints(backup_ctx *c, xb_error *err);
/* the checksumming filter's report of a published file (sink/sink_sum.h; any
 * thread): into c->manifest, with the space id and page count of a
 * tablespace; the manifest written, just before xtrabackup_checkpoints */
void meta_note_file(void *ctx, const char *relpath, uint64_t size, uint32_t crc, const uint8_t *head, size_t head_len);
int meta_write_manifest(backup_ctx *c, xb_error *err);

/* incremental.c: the base LSN of an incremental backup (c->inc_lsn, from
 * --incremental-basedir, --incremental-lsn or the history table), checked
 * against the server's current LSN, before anything is copied (nothing done
 * for a full backup); incremental_report logs what went into the deltas */
int incremental_resolve(backup_ctx *c, xb_error *err);
void incremental_report(backup_ctx *c);

/* history.c: --history. Before the copy, make sure the table exists in the
 * current definition and that the user may insert into it (a missing
 * privilege fails the backup before anything is copied); at the end, insert
 * the row of c->info. */
int history_prepare(backup_ctx *c, xb_error *err);
int history_write(backup_ctx *c, xb_error *err);

#endif
