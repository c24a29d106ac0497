/*
 * settings.h - what --copy-back or --move-back was asked to do, resolved once
 * from the options.
 *
 * cmd_copy_back() and cmd_move_back() turn the option table into a
 * restore_settings first (settings.c): the backup, the copy, and the
 * restored server's layout as its option files (the [mysqld] groups) or the
 * command line give it. restore.c and layout.c read only this struct. Values
 * were checked by the parser against the table's ranges; strings point into
 * the option table, which lives as long as the command.
 */
#ifndef XB_RESTORE_SETTINGS_H
#define XB_RESTORE_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "config/options.h"

typedef struct restore_settings {
	const char *dir;              /* --target-dir: the prepared backup */
	bool move;                    /* --move-back (else --copy-back) */
	bool force;                   /* --force-non-empty-directories */
	int parallel;                 /* --parallel: copy threads */
	const char *progress;         /* --progress: auto, meter, log, numeric or none */
	const char *datadir;          /* datadir of the restored server, or NULL */
	const char *data_home_dir;    /* innodb_data_home_dir, NULL or "": the datadir */
	const char *undo_dir;         /* innodb_undo_directory, NULL or "": the datadir */
	const char *log_dir;          /* innodb_log_group_home_dir, NULL or "": the datadir */
	const char *aria_log_dir;     /* aria_log_dir_path, NULL or "": the datadir */
	const char *data_file_path;   /* innodb_data_file_path, or NULL */
	const char *bp_filename;      /* innodb_buffer_pool_filename (default ib_buffer_pool) */
	uint64_t bp_size;             /* innodb_buffer_pool_size, bytes: how much of the dump is kept */
	bool bp_load_at_startup;      /* innodb_buffer_pool_load_at_startup */
} restore_settings;

/* Resolve the settings of --copy-back (move false) or --move-back (XB_E_USAGE
 * naming what is wrong, e.g. no --target-dir). */
int restore_settings_resolve(const xb_options *o, bool move, restore_settings *s, xb_error *err);

#endif
