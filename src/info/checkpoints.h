/*
 * checkpoints.h - xtrabackup_checkpoints, the file that says what a backup
 * directory holds: backup_type (full-backuped after --backup, log-applied
 * after --prepare, incremental), from_lsn, to_lsn, last_lsn and
 * recover_binlog_info, one "key = value" line each, in mariabackup's format.
 * --backup writes it last, as the completion marker; --prepare reads it and
 * rewrites it (last, so a prepare that did not finish never looks done);
 * --copy-back and --move-back read it to refuse a backup that is not
 * prepared. Both writers format it with the same function.
 */
#ifndef XB_INFO_CHECKPOINTS_H
#define XB_INFO_CHECKPOINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "info/metafile.h"

#define XB_CHECKPOINTS_FILE "xtrabackup_checkpoints"

typedef struct xb_checkpoints {
	char backup_type[128];         /* full-backuped, log-applied, incremental */
	unsigned long long from_lsn;   /* 0 for a full backup */
	unsigned long long to_lsn;     /* checkpoint LSN at the end of the backup */
	unsigned long long last_lsn;   /* end of the redo copy (when has_last) */
	int recover_binlog_info;       /* 1 only for a "lockless" binlog position */
	bool has_last;                 /* last_lsn was present */
} xb_checkpoints;

/* The file's text: "backup_type = T\nfrom_lsn = N\nto_lsn = N\nlast_lsn = N\n
 * recover_binlog_info = N\n" (last_lsn always written). --backup puts it
 * into its sink (xb_metafile_put); --prepare rewrites it with the next. */
void xb_checkpoints_format(const xb_checkpoints *c, xb_text *t);

/* Rewrite dir/xtrabackup_checkpoints with c's values (--prepare): a
 * temporary file, fsync, rename, fsync of dir (xb_metafile_rewrite). */
int xb_checkpoints_rewrite(const char *dir, const xb_checkpoints *c, xb_error *err);

/* Read dir/xtrabackup_checkpoints. Lines are "key = value"; blank lines and
 * unknown keys are skipped; backup_type, from_lsn and to_lsn are required.
 * XB_E_TARGET when dir is not a backup (no file: with a hint), for a line
 * that is not "key = value" or a value that is not a number ("PATH: line N:
 * ...") and when a required key is missing; XB_E_MISSING_FILE when dir still
 * holds compressed or encrypted files. */
int xb_checkpoints_read(const char *dir, xb_checkpoints *c, xb_error *err);

/* The same, whatever else dir holds: the base of an incremental backup,
 * whose LSNs alone are needed, may still be compressed or encrypted (its
 * xtrabackup_checkpoints never is compressed), or be an --extra-lsndir. */
int xb_checkpoints_read_lsns(const char *dir, xb_checkpoints *c, xb_error *err);

#endif
