/*
 * restore_tables_int.h - what the parts of --restore-tables share: the run's
 * context and one entry per table, filled by the checks of restore_tables.c,
 * acted on by import.c (one table's discard, placement and import) and read
 * by fkcheck.c (the foreign keys afterwards).
 */
#ifndef XB_RT_INT_H
#define XB_RT_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "db/server.h"
#include "settings.h"
#include "tablelist.h"

#define RT_FS_MAX (5 * 64 + 1)           /* a filename-encoded name: @XXXX per character at most */
#define RT_Q_MAX (4 * RT_NAME_MAX + 8)   /* `db`.`t` with every backquote doubled */

/* What became of a table. */
typedef enum rt_state {
	RT_PENDING,  /* not attempted (an earlier table failed) */
	RT_RESTORED, /* imported and checked */
	RT_FAILED,   /* its restore failed: why says what state it is in */
} rt_state;

/* One table to restore. */
typedef struct rt_item {
	const rt_table *t;          /* the names asked for */
	const char *def;            /* the backup's CREATE TABLE of it */
	char fdb[RT_FS_MAX];        /* its database as a file name */
	char fname[RT_FS_MAX];      /* its name as a file name */
	char to_fdb[RT_FS_MAX];     /* the target database as a file name */
	char to_fname[RT_FS_MAX];   /* the target name as a file name */
	char qto[RT_Q_MAX];         /* the target, quoted: `db`.`t` */
	bool partitioned;           /* a partitioned table: one tablespace per partition */
	const char *const *engine_files; /* a MyISAM or Aria table: the extensions of its files (.frm first), else NULL */
	char **parts;               /* its partitions' names, as in the file names after #P# */
	size_t nparts;              /* how many */
	bool exists;                /* the target is a table of the live server */
	char remote[PATH_MAX];      /* DATA DIRECTORY: the directory its .ibd goes into ("" for the datadir) */
	char *create;               /* the statement creating the target (malloc'ed) */
	rt_state state;             /* what became of it */
	char why[20480];            /* RT_FAILED: the error and the state the table is left in */
	unsigned long long rows;    /* RT_RESTORED: rows counted after the import */
	double secs;                /* RT_RESTORED: time taken */
} rt_item;

/* The run. */
typedef struct rt_ctx {
	const restore_tables_settings *set; /* the options */
	xb_server srv;              /* the connection */
	char datadir[PATH_MAX];     /* the server's @@datadir, without a trailing slash */
	rt_item *items;             /* the tables, in the order given */
	size_t n;                   /* how many */
} rt_ctx;

/* Run a statement (printf style), logged first. */
int rt_exec(rt_ctx *c, xb_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* import.c: restore one checked table (create it when missing, discard,
 * place, import, CHECK TABLE, count). On failure it->why tells the error and
 * what was done about it, and the table is left as it was when possible. */
int rt_import(rt_ctx *c, rt_item *it, xb_error *err);

/* fkcheck.c: with foreign_key_checks on again, warn for each foreign key of a
 * restored table (as child or as parent) whose child rows lack a parent row. */
void rt_fk_report(rt_ctx *c);

#endif
