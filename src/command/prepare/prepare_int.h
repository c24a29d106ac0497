/*
 * prepare_int.h - what the files of the --prepare command share.
 *
 * prepare.c runs the sequence (checks, lock, DDL markers, InnoDB recovery,
 * metadata), cnf.c reads the settings of backup-my.cnf, markers.c carries out the .del/.ren/.new markers a backup
 * leaves for DDL that ran during the copy, report.c prints the recovery
 * statistics and writes them as JSON, incremental.c applies an incremental
 * backup to a prepared full backup (doc/incremental.md §2).
 */
#ifndef XB_PREPARE_INT_H
#define XB_PREPARE_INT_H

#include <stdio.h>

#include "common/error.h"
#include "innodb/recovery/driver.h"

#include "info/checkpoints.h"
#include "info/manifest.h"
#include "info/statcache.h"
#include "settings.h"

/* What the recovery of an incremental's apply needs (incremental.c). */
typedef struct prepare_inc {
	const char *dir;                 /* the incremental: its redo copy is applied */
	unsigned long long to_lsn;       /* its to_lsn and last_lsn, the backup's once prepared */
	unsigned long long last_lsn;
	/* called once the incremental's redo copy is known whole, before the
	 * first change (the delta phase); non-zero stops the prepare */
	int (*before_apply)(void *ctx, xb_error *err);
	void *ctx;
	/* called with the checkpoints about to be written, once every other
	 * file is (the pending mark records them) */
	int (*before_checkpoints)(void *ctx, const xb_checkpoints *c, xb_error *err);
	const deltas_stats *deltas;      /* what that phase did, for the statistics */
} prepare_inc;

/* The recovery and the metadata of a prepare of dir (checked, locked):
 * m its manifest and checked the files its check found good (both NULL
 * when it has none); inc NULL for a full backup, else the incremental
 * applied to it (its redo copy, xtrabackup_checkpoints with its LSNs, the
 * pending mark removed last). */
int prepare_run(const prepare_settings *s, const char *dir, xb_checkpoints *c, xb_manifest *m,
		const xb_statcache *checked, const prepare_inc *inc, xb_error *err);

/* Take the exclusive lock of the backup dir (*fd, close it to release). */
int prepare_lock(const char *dir, int *fd, xb_error *err);

/* --export on the prepared backup dir, locked (export.c). */
int prepare_export(const prepare_settings *s, const char *dir, xb_error *err);

/* --prepare --incremental-dir (incremental.c). */
int prepare_incremental(const prepare_settings *s, xb_error *err);

/* Apply the DDL markers under dir: X.del deletes X.ibd, X.ren renames X.ibd to
 * the name it holds, X.new replaces X.ibd. Each marker is removed once done, so
 * an interrupted run can be repeated. *n receives how many were applied. */
int markers_apply(const char *dir, int *n, xb_error *err);

/* innodb_data_file_path (*data_file_path: malloc'd, or left NULL for the
 * server's default) and innodb_compression_level (*level, left as it is when
 * not given) from dir/backup-my.cnf. A file missing, unreadable or lacking
 * one is a warning naming it; XB_E_CONFIG naming the setting needed when the
 * default does not fit the backup (page size, system tablespace files). */
int prepare_backup_cnf(const char *dir, char **data_file_path, int *level, xb_error *err);

/* Whether dir/xtrabackup_info says "partial = Y" (false when it is missing
 * or cannot be read). */
bool prepare_backup_partial(const char *dir);

/* The statistics as log lines. */
void report_log(const recovery_stats *st);

/* The statistics as a JSON object (to a file). */
int report_json(const recovery_stats *st, const char *path, xb_error *err);

#endif
