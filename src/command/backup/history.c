/*
 * history.c - --history: the backup recorded in mysql.mariadb_backup_history
 * (the table and its row: info/history.h).
 *
 * Two steps on the backup's connection. Before anything is copied, the table
 * is created when missing, an older one (whose format column does not know
 * mbstream) is altered, and an EXPLAIN of the INSERT makes the server check
 * the INSERT privilege without writing: a user who may not record the backup
 * learns it at once, not after hours of copying. After the completion marker,
 * the row of xtrabackup_info's facts is inserted. If that still fails, the
 * backup itself is complete: the error says so.
 */
#include "backup_int.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "info/history.h"

/* A failed statement on the table: say what --history needs (privs: the
 * privileges the statement needs). */
static int history_error(backup_ctx *c, int rc, const char *privs, xb_error *err)
{
	if (rc == XB_E_PRIVILEGE) {
		xb_err_prefix(err, "--history: user %s may not %s " XB_HISTORY_TABLE, c->srv.user,
			      strcmp(privs, "ALTER") ? "create or write" : "alter");
		xb_err_hint(err, "GRANT %s ON " XB_HISTORY_TABLE " TO %s (or leave --history out)", privs,
			    c->srv.user);
	} else {
		xb_err_prefix(err, "--history");
	}
	return rc;
}

int history_prepare(backup_ctx *c, xb_error *err)
{
	if (!c->set.history)
		return 0;
	char *type = NULL;
	int rc = xb_server_exec(&c->srv, xb_history_create_sql, err);
	if (!rc)
		rc = xb_server_value(&c->srv, xb_history_format_type_sql, &type, err);
	if (rc) {
		free(type);
		return history_error(c, rc, "CREATE, INSERT", err);
	}
	/* a table of mariabackup before 10.11 (no column at all: the INSERT's check below says what is wrong) */
	if (type && !xb_history_format_current(type)) {
		xb_info("--history: the format column of " XB_HISTORY_TABLE " is %s, from an older mariabackup: "
			"adding mbstream", type);
		rc = xb_server_exec(&c->srv, xb_history_upgrade_sql, err);
	}
	free(type);
	if (rc)
		return history_error(c, rc, "ALTER", err);
	xb_text sql = {0};
	xb_history_insert_sql(&sql, true);
	const char *none[XB_HISTORY_COLUMNS] = {0};
	rc = sql.nomem ? xb_err_set(err, XB_E_INTERNAL, "out of memory")
		       : xb_server_exec_args(&c->srv, sql.s, none, XB_HISTORY_COLUMNS, err);
	xb_text_free(&sql);
	return rc ? history_error(c, rc, "CREATE, INSERT", err) : 0;
}

int history_write(backup_ctx *c, xb_error *err)
{
	if (!c->set.history)
		return 0;
	xb_history_row row;
	xb_text sql = {0};
	int rc = xb_history_row_make(&c->info, &row, err);
	if (!rc) {
		if (row.truncated)
			xb_warn("--history: binlog_pos is longer than its column: cut to 128 characters in "
				XB_HISTORY_TABLE " (xtrabackup_info has it whole)");
		xb_history_insert_sql(&sql, false);
		rc = sql.nomem ? xb_err_set(err, XB_E_INTERNAL, "out of memory")
			       : xb_server_exec_args(&c->srv, sql.s, row.v, XB_HISTORY_COLUMNS, err);
		if (rc) {
			history_error(c, rc, "CREATE, INSERT", err);
			xb_err_prefix(err, "the backup is complete, but it is not recorded");
		}
	}
	xb_text_free(&sql);
	xb_history_row_free(&row);
	if (!rc)
		xb_info("Recorded the backup in " XB_HISTORY_TABLE " (uuid %s%s%s)", c->info.uuid,
			c->info.name[0] ? ", name " : "", c->info.name);
	return rc;
}
