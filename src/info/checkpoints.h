/*
 * checkpoints.h - xtrabackup_checkpoints, the file that says what a backup
 * directory holds: backup_type (full-backuped after --backup, log-applied
 * after --prepare, incremental), from_lsn, to_lsn, last_lsn and
 * recover_binlog_info, one "key = value" line each, in mariabackup's format.
 * --prepare reads and rewrites it (last, so a prepare that did not finish
 * never looks done); --copy-back and --move-back read it to refuse a backup
 * that is not prepared.
 */
#ifndef XB_INFO_CHECKPOINTS_H
#define XB_INFO_CHECKPOINTS_H

#include <stdbool.h>

#include "common/error.h"

#define XB_CHECKPOINTS_FILE "xtrabackup_checkpoints"

typedef struct xb_checkpoints {
	char backup_type[128];         /* full-backuped, log-applied, incremental */
	unsigned long long from_lsn;   /* 0 for a full backup */
	unsigned long long to_lsn;     /* checkpoint LSN at the end of the backup */
	unsigned long long last_lsn;   /* end of the redo copy (when has_last) */
	int recover_binlog_info;       /* 1 only for a "lockless" binlog position */
	bool has_last;                 /* last_lsn was present */
} xb_checkpoints;

/* Read dir/xtrabackup_checkpoints. XB_E_TARGET when dir is not a backup
 * (no file: with a hint) or the file lacks backup_type/from_lsn/to_lsn. */
int xb_checkpoints_read(const char *dir, xb_checkpoints *c, xb_error *err);

/* Rewrite it with c's values: a temporary file, fsync, rename, fsync of dir. */
int xb_checkpoints_write(const char *dir, const xb_checkpoints *c, xb_error *err);

#endif
