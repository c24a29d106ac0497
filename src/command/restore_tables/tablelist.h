/*
 * tablelist.h - the tables --restore-tables is asked for, and the new names
 * --rename gives some of them.
 *
 * --restore-tables=LIST is "db.t" items separated by commas; a name may be
 * quoted with backquotes as in SQL (`my-db`.`a,b` and `` for a backquote in
 * it), spaces around an item are ignored. --rename=LIST is "db.t:db.t2" pairs
 * separated by commas, each naming an item of the list. Names are kept as SQL
 * names (unquoted, as the user wrote them); the file names of the backup are
 * the server's filename encoding of them, which the command asks the server
 * for. Everything that one option or the two together cannot mean is refused
 * here, before anything is read or changed: an item that is not db.t, a name
 * longer than 64 characters, a table given twice, a rename of a table not in
 * the list or renamed twice, two tables restored under one name.
 */
#ifndef XB_RT_TABLELIST_H
#define XB_RT_TABLELIST_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define RT_NAME_MAX 260 /* bytes of a name and its NUL: 64 characters of up to 4 bytes */

/* One table to restore. */
typedef struct rt_table {
	char db[RT_NAME_MAX];      /* its database in the backup, an SQL name unquoted */
	char name[RT_NAME_MAX];    /* its name in the backup */
	char to_db[RT_NAME_MAX];   /* the database it is restored into (db unless renamed) */
	char to_name[RT_NAME_MAX]; /* the name it is restored as (name unless renamed) */
	bool renamed;              /* --rename gave it another name */
} rt_table;

/* The tables, in the order given. */
typedef struct rt_list {
	rt_table *v; /* the tables */
	size_t n;    /* how many */
} rt_list;

/* Parse --restore-tables (tables) and --rename (renames, NULL when not given)
 * into l (freed with rt_list_free, also after an error). XB_E_USAGE naming
 * the option and the item otherwise. */
int rt_list_parse(const char *tables, const char *renames, rt_list *l, xb_error *err);
void rt_list_free(rt_list *l);


/* "`db`.`name`" for messages and statements (out of at least 2 * 2 * RT_NAME_MAX + 8 bytes). */
void rt_qualified(const char *db, const char *name, char *out, size_t n);

#endif
