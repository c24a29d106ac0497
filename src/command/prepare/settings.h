/*
 * settings.h - what --prepare was asked to do, resolved once from the options.
 *
 * cmd_prepare() turns the option table into a prepare_settings first
 * (settings.c); the rest of the command reads only this struct. Values were
 * checked by the parser against the table's ranges; strings point into the
 * option table, which lives as long as the command.
 */
#ifndef XB_PREPARE_SETTINGS_H
#define XB_PREPARE_SETTINGS_H

#include <stddef.h>

#include "common/error.h"
#include "config/options.h"

typedef struct prepare_settings {
	const char *dir;        /* --target-dir: the backup to prepare */
	const char *inc_dir;    /* --incremental-dir: the incremental to apply to it, or NULL */
	int threads;            /* --parallel, else the number of CPUs (at most 8): threads applying redo */
	size_t use_memory;      /* --use-memory, bytes */
	bool durable;           /* --prepare-fsync: the journal fsynced before pages are written in place */
	const char *progress;   /* --progress: auto, meter, log, numeric or none */
	const char *stats_file; /* --stats-file: also write the statistics there as JSON, or NULL */
	int force_recovery;     /* --innodb-force-recovery, limited to 1 (damaged pages left as copied) */
	bool force_limited;     /* a value above 1 was asked for and limited to 1 */
	bool partial;           /* a partial-backup option (--databases*, --tables*) was given: the backup is partial */
	bool export_tables;     /* --export: make the tables importable (export.c) */
	const char *mariadbd;   /* --mariadbd: the server program --export starts, or NULL to look for it */
	unsigned export_timeout; /* --export-timeout: seconds for that server's start, and again for its shutdown */
	const char *tmpdir;     /* --tmpdir: where that server's private directory goes, or NULL */
} prepare_settings;

/* Resolve the settings of --prepare (XB_E_USAGE naming what is wrong, e.g. no --target-dir). */
int prepare_settings_resolve(const xb_options *o, prepare_settings *s, xb_error *err);

#endif
