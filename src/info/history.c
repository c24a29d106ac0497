/*
 * history.c - mysql.mariadb_backup_history (see history.h).
 *
 * One table of the columns, in the table's order, says for each how its value
 * comes from xtrabackup_info: most are the file's own text for the key of the
 * same name (xb_xbinfo_value, so both say the same thing), a few are converted
 * to what the column holds. The INSERT's column list is built from the table.
 */
#include "info/history.h"

#include <string.h>

enum col_kind {
	C_FILE,   /* the file's text for the key */
	C_START,  /* start_time as seconds since the epoch, inserted through FROM_UNIXTIME */
	C_END,    /* end_time, the same way */
	C_BINLOG, /* the file's text, NULL without binary log, at most BINLOG_MAX characters */
	C_FORMAT, /* file, tar or mbstream */
	C_YN,     /* compressed: Y or N */
};

typedef struct column {
	const char *name;   /* column, and the key of xtrabackup_info */
	enum col_kind kind; /* how the value is made */
} column;

static const column columns[XB_HISTORY_COLUMNS] = {
	{"uuid", C_FILE},           {"name", C_FILE},          {"tool_name", C_FILE},
	{"tool_command", C_FILE},   {"tool_version", C_FILE},  {"ibbackup_version", C_FILE},
	{"server_version", C_FILE}, {"start_time", C_START},   {"end_time", C_END},
	{"lock_time", C_FILE},      {"binlog_pos", C_BINLOG},  {"innodb_from_lsn", C_FILE},
	{"innodb_to_lsn", C_FILE},  {"partial", C_FILE},       {"incremental", C_FILE},
	{"format", C_FORMAT},       {"compressed", C_YN},
};

#define BINLOG_MAX 128 /* binlog_pos VARCHAR(128) */

const char xb_history_create_sql[] =
	"CREATE TABLE IF NOT EXISTS " XB_HISTORY_TABLE " ("
	"uuid VARCHAR(40) NOT NULL, "
	"name VARCHAR(255) DEFAULT NULL, "
	"tool_name VARCHAR(255) DEFAULT NULL, "
	"tool_command TEXT DEFAULT NULL, "
	"tool_version VARCHAR(255) DEFAULT NULL, "
	"ibbackup_version VARCHAR(255) DEFAULT NULL, "
	"server_version VARCHAR(255) DEFAULT NULL, "
	"start_time TIMESTAMP NULL DEFAULT NULL, "
	"end_time TIMESTAMP NULL DEFAULT NULL, "
	"lock_time BIGINT UNSIGNED DEFAULT NULL, "
	"binlog_pos VARCHAR(128) DEFAULT NULL, "
	"innodb_from_lsn BIGINT UNSIGNED DEFAULT NULL, "
	"innodb_to_lsn BIGINT UNSIGNED DEFAULT NULL, "
	"partial ENUM('Y','N') DEFAULT NULL, "
	"incremental ENUM('Y','N') DEFAULT NULL, "
	"format ENUM('file','tar','mbstream') DEFAULT NULL, "
	"compressed ENUM('Y','N') DEFAULT NULL, "
	"PRIMARY KEY (uuid)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci";

const char xb_history_format_type_sql[] =
	"SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'mysql' "
	"AND TABLE_NAME = 'mariadb_backup_history' AND COLUMN_NAME = 'format'";

const char xb_history_upgrade_sql[] =
	"ALTER TABLE " XB_HISTORY_TABLE " MODIFY format ENUM('file','tar','mbstream') DEFAULT NULL";

const char xb_history_key_sql[] = "SET @xb_history_key = ?";

const char xb_history_base_by_name_sql[] =
	"SELECT innodb_to_lsn FROM " XB_HISTORY_TABLE " WHERE name = @xb_history_key "
	"AND innodb_to_lsn IS NOT NULL ORDER BY innodb_to_lsn DESC LIMIT 1";

const char xb_history_base_by_uuid_sql[] =
	"SELECT innodb_to_lsn FROM " XB_HISTORY_TABLE " WHERE uuid = @xb_history_key "
	"AND innodb_to_lsn IS NOT NULL ORDER BY innodb_to_lsn DESC LIMIT 1";

bool xb_history_format_current(const char *column_type)
{
	return column_type && strstr(column_type, "'mbstream'") != NULL;
}

void xb_history_insert_sql(xb_text *t, bool explain)
{
	xb_text_add(t, "%sINSERT INTO " XB_HISTORY_TABLE " (", explain ? "EXPLAIN " : "");
	for (int i = 0; i < XB_HISTORY_COLUMNS; i++)
		xb_text_add(t, "%s%s", i ? ", " : "", columns[i].name);
	xb_text_add(t, ") VALUES (");
	for (int i = 0; i < XB_HISTORY_COLUMNS; i++)
		xb_text_add(t, "%s%s", i ? ", " : "", columns[i].kind == C_START || columns[i].kind == C_END ? "FROM_UNIXTIME(?)" : "?");
	xb_text_add(t, ")");
}

int xb_history_row_make(const xb_xbinfo *x, xb_history_row *r, xb_error *err)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < XB_HISTORY_COLUMNS; i++) {
		const column *c = &columns[i];
		xb_text *t = &r->text[i];
		switch (c->kind) {
		case C_FILE:
			xb_xbinfo_value(x, c->name, t);
			break;
		case C_START:
		case C_END:
			xb_text_add(t, "%lld", (long long)(c->kind == C_START ? x->start_time : x->end_time));
			break;
		case C_BINLOG:
			if (!x->has_binlog)
				continue; /* NULL */
			xb_xbinfo_value(x, c->name, t);
			if (t->s && t->n > BINLOG_MAX) {
				t->s[BINLOG_MAX] = '\0', t->n = BINLOG_MAX;
				r->truncated = true;
			}
			break;
		case C_FORMAT:
			xb_text_add(t, "%s", !strcmp(x->format, "xbstream") ? "mbstream" : x->format);
			break;
		case C_YN:
			xb_text_add(t, "%s", x->compressed ? "Y" : "N");
			break;
		}
		if (t->nomem)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory making the row of " XB_HISTORY_TABLE);
		r->v[i] = t->s ? t->s : "";
	}
	return 0;
}

void xb_history_row_free(xb_history_row *r)
{
	for (int i = 0; i < XB_HISTORY_COLUMNS; i++)
		xb_text_free(&r->text[i]);
	memset(r->v, 0, sizeof r->v);
}
