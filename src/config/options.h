/*
 * options.h - the parsed options of one run.
 *
 * Options come from options.def (one table). Values are read, lowest
 * precedence first, from the server groups of the option files (only the
 * options flagged OF_SERVER, everything else there is the server's own and
 * ignored), then the client groups (OF_CONN options), then our own groups
 * [xtrabackup] [mariabackup] [mariadb-backup] (strict: an unknown option is
 * an error unless it has the loose- prefix), then the command line (strict
 * too). Values are kept as strings with their source ("command line" or
 * "file:line") for error messages, and read through typed accessors that
 * apply the table's defaults. Every value is checked as it is stored against
 * its type and the table's range or choices, with one message for all:
 *   invalid value for --parallel: '0' (command line): use 1 to 64
 * Each command reads the options it needs once, at its start, into its own
 * settings struct (src/command/<command>/settings.h); nothing else reads them.
 */
#ifndef XB_OPTIONS_H
#define XB_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "config/mycnf.h"

typedef enum xb_opt_id {
#define XB_OPT(id, name, sh, type, def, flags, min, max, choices, arg, help) XB_OPT_##id,
#include "options.def"
#undef XB_OPT
	XB_OPT__COUNT
} xb_opt_id;

typedef struct xb_options {
	char *val[XB_OPT__COUNT];       /* value as given, NULL when unset */
	char *src[XB_OPT__COUNT];       /* where it was set: "command line" or "file:line" */
	int command;                    /* XB_OPT_BACKUP, XB_OPT_PREPARE, ... or -1 */
	char *tool_command;             /* the command line with secrets masked */
	mycnf cnf;                      /* the option files read */
	int print_defaults;             /* --print-defaults was given */
	char **operands;                /* the arguments that are not options: only after xbstream -c (its files) */
	int noperands;                  /* how many */
} xb_options;

/* Parse option files and argv. argv entries holding secrets are wiped in place. */
int xb_options_parse(xb_options *o, int argc, char **argv, xb_error *err);
/* Secrets off the process's own command line, first thing in main(): returns
 * a private copy of argv (argc words and a NULL) for the parse, then
 * overwrites with 'x', in place in argv, every value of a secret option
 * (--password, -p, --encrypt-key, with the loose- prefix too; "--password
 * pwd" and "-p pwd" take the next word), so that ps and /proc/PID/cmdline
 * never show them. short_p: -p is --password (false under the xbstream
 * names, where it is --parallel). NULL when out of memory (argv untouched).
 * xb_argv_free wipes and frees the copy. */
char **xb_argv_protect(int argc, char **argv, bool short_p);
void xb_argv_free(char **argv);
void xb_options_free(xb_options *o);

/* Typed accessors; unset options give the table's default (NULL/0/false when none). */
const char *xb_opt_str(const xb_options *o, xb_opt_id id);
long long xb_opt_int(const xb_options *o, xb_opt_id id);
bool xb_opt_bool(const xb_options *o, xb_opt_id id);
uint64_t xb_opt_size(const xb_options *o, xb_opt_id id);
bool xb_opt_isset(const xb_options *o, xb_opt_id id);
const char *xb_opt_name(xb_opt_id id);

/* Parse a size such as 100M / 2G / 16384 (also used for server variables). */
int xb_parse_size(const char *s, uint64_t *out);

/* --print-defaults: a header line, then the options of every group read, on one line, secrets masked. */
void xb_options_print_defaults(const xb_options *o, FILE *f);

/* --help text and the troff man page, both generated from options.def and error.def. */
void xb_options_help(FILE *f);
void xb_options_man(FILE *f);

/* The groups, for other modules (NULL-terminated). */
extern const char *const xb_groups_server[];
extern const char *const xb_groups_client[];
extern const char *const xb_groups_tool[];

#endif
