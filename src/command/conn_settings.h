/*
 * conn_settings.h - how a command that talks to the server connects to it,
 * resolved from the options for every such command (--backup,
 * --restore-tables).
 *
 * The values come from the [client] groups, our own groups and the command
 * line (the option parser already merged them by precedence); here they only
 * become the plain struct the connection takes (db/server.h), so that the
 * commands connect the same way and name the same options.
 */
#ifndef XB_CONN_SETTINGS_H
#define XB_CONN_SETTINGS_H

#include "config/options.h"
#include "db/server.h"

/* Fill cs from --user, --password, --host, --port, --socket, --protocol and
 * the TLS options; a statement's answer may take --lock-wait-timeout and a
 * minute. Pointers into o. */
void conn_settings_resolve(const xb_options *o, xb_conn_settings *cs);

#endif
