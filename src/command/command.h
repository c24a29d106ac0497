/*
 * command.h - what every command shares: the entry points, the begin and
 * end log lines, and interruption by signals.
 */
#ifndef XB_COMMAND_H
#define XB_COMMAND_H

#include <stdbool.h>

#include "common/error.h"
#include "config/options.h"

/* Commands (one directory each under src/command/). */
int cmd_backup(const xb_options *o, xb_error *err);
int cmd_prepare(const xb_options *o, xb_error *err);
int cmd_copy_back(const xb_options *o, xb_error *err);
int cmd_move_back(const xb_options *o, xb_error *err);
int cmd_print_param(const xb_options *o, xb_error *err);     /* --print-param */
int cmd_sort_dump(const xb_options *o, xb_error *err);
int cmd_decode(const xb_options *o, xb_error *err);          /* --decompress / --decrypt of --target-dir */
int cmd_xbstream_extract(const xb_options *o, xb_error *err); /* xbstream -x */
int cmd_xbstream_list(const xb_options *o, xb_error *err);    /* xbstream --list */
int cmd_verify(const xb_options *o, xb_error *err);          /* --verify: a backup checked against its manifest */
int cmd_xbstream_create(const xb_options *o, xb_error *err);  /* xbstream -c FILE... */
int cmd_restore_tables(const xb_options *o, xb_error *err);  /* --restore-tables=LIST: tables of an exported backup into the live server */

/* Invoked as "xbstream" or "mbstream": rewrite mbstream's short options that differ from
 * ours (-p N is --parallel=N there, --password here) before parsing. Returns
 * a new argv (argc updated) or the same one. */
char **xbstream_argv(int *argc, char **argv);

/* Install SIGINT/SIGTERM/SIGHUP handlers that request a clean stop. */
void command_signals_init(void);

/* True once a stop was requested; sets XB_E_INTERRUPTED in err. */
bool command_interrupted(xb_error *err);

#endif
