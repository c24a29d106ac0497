/*
 * deltas.h - an incremental backup's pages applied to a prepared full backup
 * (doc/incremental.md §2): the InnoDB part of --prepare --incremental-dir
 * before the incremental's redo copy is applied.
 *
 * deltas_plan_build() reads the incremental directory without changing it:
 * every X.delta (with its X.meta, delta.h) names the tablespace file X of the
 * target; the DDL markers the incremental backup left are then carried out
 * on that list in memory, in mariabackup's order: X.del drops X's delta,
 * X.ren gives it the name the marker holds (all renames at once, so swaps
 * work), X.new.delta becomes X's delta, and a whole copy X.new replaces it
 * (the tablespace is copied as it is). So the incremental can be applied
 * again after an interruption, and to another copy of the base.
 *
 * deltas_apply() brings the target's tablespace files to that list: a whole
 * copy is copied in; each delta's tablespace is found by space id first (a
 * file renamed between the backups is renamed back to the delta's name; a
 * different tablespace at that name is moved aside to
 * db/xtrabackup_tmp_#ID.ibd; a space the target lacks is created, as large
 * as the server makes a new file), the system tablespace and undo files by
 * name; its pages are written at page_no * page_size, page 0 extending the
 * file to its FSP_SIZE (never shrinking it). Then every table file of the
 * target that no entry accounts for (tables dropped between the backups,
 * files moved aside and not claimed) is deleted. Every step tolerates having
 * been done before. Files written are fsynced. Every delta is matched to its
 * file first, in order, then the pages are written on up to `threads`
 * threads (a file per job), a run of consecutive pages in one write.
 */
#ifndef XB_INNODB_RECOVERY_DELTAS_H
#define XB_INNODB_RECOVERY_DELTAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "innodb/delta.h"

/* One tablespace of the incremental. */
typedef struct deltas_item {
	char *name;               /* the target's file, relative ("db/t.ibd", "ibdata1", "undo001") */
	char *src;                /* the .delta file (or the whole copy X.new) in the incremental */
	innodb_delta_meta meta;   /* its .meta (whole copies: zero) */
	bool whole;               /* src is a whole copy of the tablespace, not a delta */
} deltas_item;

typedef struct deltas_plan {
	deltas_item *v;           /* the tablespaces, sorted by name */
	size_t n, cap;            /* count, allocated */
	int markers;              /* DDL markers of the incremental carried out on the list */
} deltas_plan;

/* What the delta phase did. */
typedef struct deltas_stats {
	uint64_t files;           /* delta files applied */
	uint64_t pages;           /* pages written */
	uint64_t bytes;           /* bytes written (pages and whole copies) */
	uint64_t created;         /* tablespace files created */
	uint64_t renamed;         /* files renamed to a delta's name (by space id) */
	uint64_t moved_aside;     /* files moved aside to xtrabackup_tmp_#ID.ibd */
	uint64_t copied;          /* whole copies (X.new) copied in */
	uint64_t deleted;         /* table files deleted (dropped between the backups) */
	uint64_t ns;              /* wall time of the phase */
} deltas_stats;

/* The plan of the incremental directory inc (nothing changed). A .delta
 * without a readable .meta or a .ren marker that cannot be read is an error
 * naming the file (XB_E_BACKUP_DAMAGED, XB_E_IO_READ, XB_E_TARGET). */
int deltas_plan_build(const char *inc, deltas_plan *p, xb_error *err);
void deltas_plan_free(deltas_plan *p);

/* The entry for name, NULL when none. */
const deltas_item *deltas_plan_find(const deltas_plan *p, const char *name);

/* Apply p to the target directory (its system tablespace as data_file_path,
 * NULL for the default), writing pages on up to threads threads. after_file
 * (may be NULL; called from those threads, so it must be thread-safe) is
 * called after each delta file is applied and fsynced; true from it fails
 * the run as an I/O error would (the fault point of the prepare). The
 * directories whose names changed are fsynced. st is filled also on failure
 * (what was done). */
int deltas_apply(const deltas_plan *p, const char *target, const char *data_file_path, int threads,
		 bool (*after_file)(void), deltas_stats *st, xb_error *err);

/* Copy the file src to dst safely: dst.xbtmp written, fsynced, renamed
 * over dst (a directory's fsync is the caller's). *bytes grows by the bytes
 * copied. XB_E_IO_READ / XB_E_IO_WRITE naming the file. */
int deltas_copy_file(const char *src, const char *dst, uint64_t *bytes, xb_error *err);

/* deltas_copy_file() in two steps, so that many files can be written before
 * the first fsync. Stage: with keep_same, a dst of src's size and bytes is
 * kept (*same true, nothing written); otherwise dst.xbtmp is written and its
 * write-back started (*bytes grows). Commit (only after a stage that wrote):
 * dst.xbtmp fsynced and renamed over dst. A failed step removes dst.xbtmp.
 * Both are thread-safe for different dst. */
int deltas_copy_stage(const char *src, const char *dst, bool keep_same, bool *same, uint64_t *bytes, xb_error *err);
int deltas_copy_commit(const char *dst, xb_error *err);

/* Remove dst.xbtmp if a stage left it (a run that stopped before its commit). */
void deltas_copy_abort(const char *dst);

#endif
