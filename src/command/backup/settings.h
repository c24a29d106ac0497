/*
 * settings.h - what --backup was asked to do, resolved once from the options.
 *
 * cmd_backup() turns the option table into a backup_settings before anything
 * else (settings.c; the target's part in target.c), and the parts of the
 * command read only this struct, never the options. Each value was checked
 * by the parser against the table's range or choices; what is checked here
 * is what no single option can say (--backup needs --target-dir or --stream,
 * --stream and a remote target exclude each other ...). Strings point into
 * the option table, which lives as long as the command.
 */
#ifndef XB_BACKUP_SETTINGS_H
#define XB_BACKUP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/tablefilter.h"
#include "config/options.h"
#include "db/server.h"
#include "sink/sink_crypt.h"
#include "sink/sink_remote.h"

/* The container every file of the backup goes to. */
typedef enum target_kind {
	TARGET_DIR,      /* a local directory: --target-dir=DIR */
	TARGET_REMOTE,   /* another host: --target-dir=sftp://... or scp://... */
	TARGET_XBSTREAM, /* stdout as xbstream: --stream=xbstream */
	TARGET_TAR,      /* stdout as tar: --stream=tar */
} target_kind;

/* Where the backup goes and through which filters (target.c). */
typedef struct target_settings {
	target_kind kind;          /* the container */
	const char *dir;           /* --target-dir: the directory or URL; with --stream unused (NULL when not given) */
	const char *stream;        /* --stream: "xbstream" or "tar", NULL for a directory or a remote target */
	const char *tmpdir;        /* TARGET_TAR: where large files are spooled (--tmpdir, $TMPDIR, /tmp) */
	bool compress;             /* --compress: zstd on the data files and the redo copy */
	int compress_level;        /* --compress-level */
	int compress_threads;      /* --compress-threads */
	size_t compress_chunk;     /* --compress-chunk-size, bytes */
	bool encrypt;              /* --encrypt=AES256: every file */
	xb_crypt_settings crypt;   /* with encrypt: where the key comes from */
	xb_remote_settings remote; /* TARGET_REMOTE: keys, retries, timeout, connections */
} target_settings;

/* The InnoDB settings the option files give ([mysqld], [xtrabackup] ..., the
 * command line): what a backup records when the server runs without InnoDB
 * (skip-innodb) and so shows none of these variables. Unset: NULL or 0. */
typedef struct innodb_cnf_settings {
	const char *data_file_path;     /* innodb_data_file_path */
	const char *checksum_algorithm; /* innodb_checksum_algorithm */
	uint64_t page_size;             /* innodb_page_size */
	uint64_t log_file_size;         /* innodb_log_file_size */
	int undo_tablespaces;           /* innodb_undo_tablespaces */
	int compression_level;          /* innodb_compression_level, -1 unset */
} innodb_cnf_settings;

/* What an incremental backup is based on: at most one of the four is given
 * (incremental.c resolves it to an LSN). */
typedef struct incremental_settings {
	const char *basedir;      /* --incremental-basedir: a backup (or an --extra-lsndir), NULL when not given */
	bool have_lsn;            /* --incremental-lsn was given */
	unsigned long long lsn;   /* its value */
	const char *lsn_text;     /* its text, for messages */
	const char *history_name; /* --incremental-history-name, NULL when not given */
	const char *history_uuid; /* --incremental-history-uuid, NULL when not given */
	bool force_scan;          /* --incremental-force-scan (every page is scanned anyway) */
} incremental_settings;

typedef struct backup_settings {
	target_settings target;      /* where the backup goes */
	xb_conn_settings conn;       /* how to reach the server */
	const char *datadir;         /* --datadir on the command line (wins over the server's answer), else NULL */
	const char *data_home_dir;   /* the same for --innodb-data-home-dir */
	const char *undo_dir;        /* the same for --innodb-undo-directory */
	const char *log_dir;         /* the same for --innodb-log-group-home-dir */
	innodb_cnf_settings innodb_cnf; /* InnoDB settings of the option files, for a server without InnoDB */
	int parallel;                /* --parallel: datafile copy threads */
	long open_files_limit;       /* --open-files-limit: raise the process's limit to this, 0: leave it */
	unsigned throttle;           /* --throttle: reads of 1 MiB per second, 0: no fixed limit */
	bool pace;                   /* --pace=auto: pace the copy against the server's redo rate (without a throttle) */
	int io_class;                /* --io-priority as XB_IOPRIO_* (platform/ioprio.h) */
	const char *io_priority;     /* its name, for messages */
	const char *progress;        /* --progress: auto, meter, log, numeric or none */
	unsigned log_copy_interval;  /* --log-copy-interval: redo follower poll, ms */
	bool checkpoint_now;         /* --innodb-log-checkpoint-now */
	bool no_lock;                /* --no-lock: no BACKUP STAGE locks */
	long lock_wait_timeout;      /* --lock-wait-timeout: the longest a BACKUP STAGE waits for a lock, s */
	long start_wait_timeout;     /* --startup-wait-timeout / --ftwrl-wait-timeout: BACKUP STAGE START's wait, s (0: lock_wait_timeout) */
	const char *start_wait_option; /* the option start_wait_timeout came from, for messages */
	bool slave_info;             /* --slave-info */
	bool safe_slave_backup;      /* --safe-slave-backup */
	long safe_slave_timeout;     /* --safe-slave-backup-timeout, s */
	bool galera_info;            /* --galera-info */
	bool binlog_info;            /* --binlog-info other than off: write xtrabackup_binlog_info */
	bool check_privileges;       /* --check-privileges: a missing privilege fails the backup (else a warning) */
	bool bp_dump;                /* --dump-innodb-buffer-pool */
	long long bp_dump_pct;       /* --dump-innodb-buffer-pool-pct */
	long long bp_dump_timeout;   /* --dump-innodb-buffer-pool-timeout, s */
	const char *extra_lsndir;    /* --extra-lsndir, or NULL */
	const char *tool_command;    /* the command line with secrets masked (xtrabackup_info) */
	tablefilter_settings filter;  /* --databases*, --tables*: a partial backup (common/tablefilter.h) */
	bool history;                /* --history: record the backup in mysql.mariadb_backup_history */
	const char *history_name;    /* its NAME ("" when given alone or not at all): xtrabackup_info's name */
	incremental_settings inc;    /* --incremental-*: the base of an incremental backup */
	bool incremental;            /* one of them was given: an incremental backup */
} backup_settings;

/* Resolve every setting of --backup from o (XB_E_USAGE naming what is wrong). */
int backup_settings_resolve(const xb_options *o, backup_settings *s, xb_error *err);

/* target.c: the target part of backup_settings_resolve. */
int target_resolve(const xb_options *o, target_settings *t, xb_error *err);

#endif
