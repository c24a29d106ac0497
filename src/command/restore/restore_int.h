/*
 * restore_int.h - what the files of --copy-back and --move-back share.
 *
 * layout.c works out where the server expects each kind of file (datadir,
 * innodb_data_home_dir, innodb_undo_directory, innodb_log_group_home_dir,
 * aria_log_dir_path, DATA DIRECTORY tables named by .isl files) from the
 * option files, and turns the backup directory into a plan: one entry per
 * file with its source and destination, plus the empty directories to create.
 * It also checks the plan before anything is written: an unprepared backup,
 * a datadir that is not empty, or any destination file that already exists
 * stops the restore with nothing changed. restore.c carries the plan out
 * (parallel copy or move, fsync, progress, what to do on failure), places
 * the buffer-pool dump and tells the DBA what to chown.
 */
#ifndef XB_RESTORE_INT_H
#define XB_RESTORE_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "settings.h"

/* Where the server keeps things (absolute paths, no trailing slash). */
typedef struct restore_layout {
	char datadir[PATH_MAX];      /* datadir */
	char data_home[PATH_MAX];    /* innodb_data_home_dir (default: datadir) */
	char undo_dir[PATH_MAX];     /* innodb_undo_directory (default: datadir) */
	char log_dir[PATH_MAX];      /* innodb_log_group_home_dir (default: datadir) */
	char aria_log_dir[PATH_MAX]; /* aria_log_dir_path (default: datadir) */
	char bp_file[PATH_MAX];      /* innodb_buffer_pool_filename, resolved */
	char **sys_names;            /* system tablespace file names (innodb_data_file_path) */
	int n_sys;                   /* how many */
} restore_layout;

enum { RF_FILE = 1, RF_DIR = 2 };

/* One thing to restore. */
typedef struct rfile {
	char *src;      /* path in the backup */
	char *rel;      /* path relative to the backup directory (messages) */
	char *dst;      /* destination path */
	uint64_t size;  /* bytes (files) */
	int kind;       /* RF_FILE or RF_DIR (an empty directory to create) */
	int state;      /* 0 pending, 1 done (set by the worker that did it) */
} rfile;

typedef struct rplan {
	rfile *v;            /* entries, files largest first after plan_build */
	size_t n, cap;       /* count, allocated */
	uint64_t bytes;      /* total bytes of the files */
	char *dump;          /* the backup's buffer-pool dump (ib_buffer_pool or ib_lru_dump), NULL if none */
	char *dump_other;    /* the other dump file when the backup has both (moved away too) */
} rplan;

/* Resolve the layout from the settings (datadir required). */
int layout_resolve(const restore_settings *s, const char *backup_dir, restore_layout *l, xb_error *err);
void layout_free(restore_layout *l);

/* List the backup directory into a plan, destinations per the layout. */
int plan_build(const char *backup_dir, const restore_layout *l, rplan *p, xb_error *err);

/* Before anything is written: the backup and the destinations do not overlap,
 * the datadir is empty (unless force), no destination file exists. */
int plan_check(const rplan *p, const restore_layout *l, const char *backup_dir, bool force, xb_error *err);

void plan_free(rplan *p);

#endif
