/*
 * createstmt.h - the CREATE TABLE statement of a table, as SHOW CREATE TABLE
 * gives it: turned into the statement that creates a restored table, and
 * compared with a live table's.
 *
 * The backup records each table's statement (info/tabledefs.h). To create
 * the table under its own or another name, the name on the first line
 * ("CREATE TABLE `orders` (") is replaced; a table restored beside the live
 * one (--rename) loses its FOREIGN KEY constraints, whose names are unique in
 * a database and whose parents are the live tables. Two statements describe
 * the same table when they are equal line by line, but for that name and the
 * AUTO_INCREMENT=N table option (the next value, which the import sets from
 * the rows). Pure text work on the server's own output: no SQL is parsed.
 */
#ifndef XB_RT_CREATESTMT_H
#define XB_RT_CREATESTMT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* The statement sql with its table name replaced by qname (an already quoted
 * `db`.`t`; NULL keeps the name) and, when drop_fks, without its CONSTRAINT
 * ... FOREIGN KEY lines. *out is malloc'ed. XB_E_BACKUP_DAMAGED when sql does
 * not start with CREATE TABLE and a quoted name. */
int createstmt_target(const char *sql, const char *qname, bool drop_fks, char **out, xb_error *err);

/* Whether live and backup describe the same table (the name of the first
 * line and AUTO_INCREMENT=N left out). When not: *line is the first line that
 * differs (1-based) and a, b (n bytes each) hold it from each side
 * ("(none)" past the end of one). */
bool createstmt_same(const char *live, const char *backup, int *line, char *a, char *b, size_t n);

/* Whether sql holds the clause (e.g. "DATA DIRECTORY=", " SUBPARTITION ") outside its first line. */
bool createstmt_has(const char *sql, const char *clause);

#endif
