/*
 * settings.h - what --restore-tables was asked to do, resolved once from the
 * options.
 *
 * cmd_restore_tables() turns the option table into a restore_tables_settings
 * before anything else (settings.c); the command reads only this struct. The
 * connection is resolved as --backup's (command/conn_settings.h). Strings
 * point into the option table, which lives as long as the command.
 */
#ifndef XB_RT_SETTINGS_H
#define XB_RT_SETTINGS_H

#include "common/error.h"
#include "config/options.h"
#include "db/server.h"

typedef struct restore_tables_settings {
	const char *dir;         /* --target-dir: the exported backup */
	const char *tables;      /* --restore-tables: the list as given */
	const char *renames;     /* --rename: the pairs as given, NULL when not given */
	xb_conn_settings conn;   /* how to reach the server */
	long lock_wait_timeout;  /* --lock-wait-timeout: the session's lock_wait_timeout, s */
} restore_tables_settings;

/* Resolve the settings (XB_E_USAGE for an option that has no meaning here). */
int restore_tables_settings_resolve(const xb_options *o, restore_tables_settings *s, xb_error *err);

#endif
