/*
 * settings.h - what --sort-dump was asked to do, resolved once from the
 * options.
 *
 * cmd_sort_dump() turns the option table into a sort_dump_settings first
 * (settings.c) and reads only this struct. --dump-format was checked by the
 * parser against the table's choices; strings point into the option table,
 * which lives as long as the command.
 */
#ifndef XB_SORT_DUMP_SETTINGS_H
#define XB_SORT_DUMP_SETTINGS_H

#include "common/error.h"
#include "config/options.h"

typedef struct sort_dump_settings {
	const char *input;    /* --dump-input: the dump to read (either format) */
	const char *output;   /* --dump-output, NULL: replace the input */
	int format;           /* --dump-format as BP_FORMAT_TEXT or BP_FORMAT_LRU (innodb/bpdump.h) */
	const char *backup;   /* --target-dir: the backup to check the pages against, or NULL */
} sort_dump_settings;

/* Resolve the settings of --sort-dump (XB_E_USAGE naming what is wrong, e.g. no --dump-input). */
int sort_dump_settings_resolve(const xb_options *o, sort_dump_settings *s, xb_error *err);

#endif
