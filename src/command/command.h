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
int cmd_sort_dump(const xb_options *o, xb_error *err);

/* Install SIGINT/SIGTERM/SIGHUP handlers that request a clean stop. */
void command_signals_init(void);

/* True once a stop was requested; sets XB_E_INTERRUPTED in err. */
bool command_interrupted(xb_error *err);

#endif
