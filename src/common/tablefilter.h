/*
 * tablefilter.h - which databases and tables a partial backup keeps.
 *
 * The six partial-backup options, with mariabackup 10.11's semantics:
 *   --databases="db db.t ..." and --databases-file (one name a line): names
 *     to keep, a database or one table of it; --databases-exclude="...":
 *     names to leave out (a database; "db.t" leaves out table t of a
 *     database kept by --databases, and all of db when --databases is not
 *     given, as mariabackup does);
 *   --tables=REGEX,... and --tables-exclude=REGEX,...: POSIX extended regular
 *     expressions searched (not anchored) in "db.table";
 *   --tables-file: "db.table" names to keep, one a line.
 * Names are as the files are named in the datadir, in the server's filename
 * encoding (database my-db is my@002ddb), compared exactly, in their case.
 * A file of a database directory, "t.frm", "t#P#p0.ibd", "t.MYD", is
 * judged by its table: the name up to its first dot, first as it is (a
 * partition can be chosen alone), then without its "#P#..." suffix (a
 * partition follows its table). Exclusions are asked first and win; a table
 * of a database kept as a whole is kept unless excluded; when any name or
 * regex to keep was given, a table none of them matches is left out.
 * Temporary tables (#sql...) are never kept by a partial backup. The
 * server's ignore_db_dirs are left out too, without making the backup
 * partial. A filter is built once from plain settings and then only read:
 * several copy threads may ask it at once (the regexes are compiled without
 * capture groups and matched with no shared state).
 */
#ifndef XB_TABLEFILTER_H
#define XB_TABLEFILTER_H

#include <stdbool.h>

#include "common/error.h"

/* The options as given (NULL: not given). */
typedef struct tablefilter_settings {
	const char *databases;         /* --databases: names separated by spaces or tabs */
	const char *databases_file;    /* --databases-file: a file, one name a line */
	const char *databases_exclude; /* --databases-exclude: names separated by spaces or tabs */
	const char *tables;            /* --tables: regexes separated by commas */
	const char *tables_file;       /* --tables-file: a file, one db.table a line */
	const char *tables_exclude;    /* --tables-exclude: regexes separated by commas */
} tablefilter_settings;

typedef struct tablefilter tablefilter;

/* Build the filter. A regex that does not compile, a name that is too long
 * or holds '/', '\' or '~', a --tables-file line without a dot, or a file
 * that cannot be read is an XB_E_USAGE error naming the option and the
 * regex, name or file. *out is NULL on error. */
int tablefilter_create(const tablefilter_settings *s, tablefilter **out, xb_error *err);

/* Leave out the databases of the server's ignore_db_dirs (a comma-separated
 * list, NULL or "" for none). */
int tablefilter_ignore_dirs(tablefilter *f, const char *list, xb_error *err);

/* Whether one of the six options was given: the backup is partial. */
bool tablefilter_partial(const tablefilter *f);

/* Whether a whole database directory (its name in the datadir) is left out. */
bool tablefilter_skip_database(const tablefilter *f, const char *db);

/* Whether the file `name` of database directory `db` is left out; db NULL:
 * a file outside the database directories, always kept. */
bool tablefilter_skip_file(const tablefilter *f, const char *db, const char *name);

/* Whether the file at `rel`, "db/name" (a path inside a backup), is left out;
 * a path without a directory is kept. */
bool tablefilter_skip_rel(const tablefilter *f, const char *rel);

void tablefilter_free(tablefilter *f);

#endif
