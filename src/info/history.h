/*
 * history.h - the backup history table of --history: mysql.mariadb_backup_history,
 * one row per backup, the same facts as its xtrabackup_info (xbinfo.h).
 *
 * The table is mariabackup 10.11's, column for column (SHOW CREATE TABLE on
 * a table we created reads as on one it created): uuid (the key), name (the
 * series given to --history, "" without one), the tool and server versions,
 * the command line with secrets masked, start and end time, lock time, the
 * binary log position, the LSN range, partial/incremental Y or N, the format
 * (file, tar or mbstream) and compressed Y or N. It has no encrypted column.
 * This module owns the statements and the row's values; the command runs
 * them on its connection (db/server.h), the values as parameters of a
 * prepared statement, so no value is ever spliced into SQL text.
 */
#ifndef XB_INFO_HISTORY_H
#define XB_INFO_HISTORY_H

#include <stdbool.h>

#include "info/metafile.h"
#include "info/xbinfo.h"

#define XB_HISTORY_TABLE "mysql.mariadb_backup_history"

enum { XB_HISTORY_COLUMNS = 17 };

/* CREATE TABLE IF NOT EXISTS with mariabackup 10.11's definition. */
extern const char xb_history_create_sql[];

/* The type of the format column ("enum('file','tar','xbstream')" in tables
 * of mariabackup before 10.11), one row, one column. */
extern const char xb_history_format_type_sql[];

/* Whether that type accepts 'mbstream'; when not, run xb_history_upgrade_sql. */
bool xb_history_format_current(const char *column_type);

/* The format column of an older table brought to the current definition. */
extern const char xb_history_upgrade_sql[];

/* The base of an incremental backup (--incremental-history-name/-uuid):
 * xb_history_key_sql takes the name or uuid as its one parameter into a
 * session variable, then one of the two SELECTs gives the newest
 * innodb_to_lsn of that series, or of that backup (no row: none recorded). */
extern const char xb_history_key_sql[];
extern const char xb_history_base_by_name_sql[];
extern const char xb_history_base_by_uuid_sql[];

/* The INSERT of one row with XB_HISTORY_COLUMNS parameters (xb_history_row
 * order); with explain, EXPLAIN of it: the server checks the INSERT privilege
 * and writes nothing. */
void xb_history_insert_sql(xb_text *t, bool explain);

/* One row's values, in the table's column order. */
typedef struct xb_history_row {
	const char *v[XB_HISTORY_COLUMNS]; /* the values as text; NULL is SQL NULL (binlog_pos without binary log) */
	xb_text text[XB_HISTORY_COLUMNS];  /* where the values formatted here are kept */
	bool truncated;                    /* binlog_pos was cut to the column's 128 characters */
} xb_history_row;

/* The row of the backup x describes: the file's values, except the times
 * (seconds since the epoch, for FROM_UNIXTIME), compressed (Y or N) and
 * the format (the stream format xbstream is the column's mbstream).
 * XB_E_INTERNAL when out of memory. Free it with xb_history_row_free(), also
 * after an error. */
int xb_history_row_make(const xb_xbinfo *x, xb_history_row *r, xb_error *err);
void xb_history_row_free(xb_history_row *r);

#endif
