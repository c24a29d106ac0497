/*
 * server.c - Connector/C wrapper (see server.h).
 *
 * Connections are made with explicit options only: option files are read
 * by our own reader (config/mycnf.c) so that every tool group and rule is
 * honoured the same way for the connection as for everything else.
 */
#include "server.h"

#include <mysql.h>
#include <errmsg.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

#define M(s) ((MYSQL *)(s)->mysql)

static int conn_error(xb_server *s, MYSQL *m, xb_error *err)
{
	unsigned no = mysql_errno(m);
	xb_err_set(err, XB_E_CONNECT, "cannot connect to the server through %s: %s", s->where, mysql_error(m));
	if (no == 1045)
		xb_err_hint(err, "check user and password in the [client] or [xtrabackup] group of your option file "
				 "(--defaults-file); the password is never taken from the command line in scripts");
	else if (no == CR_CONNECTION_ERROR || no == CR_CONN_HOST_ERROR || no == 2002 || no == 2003)
		xb_err_hint(err, "is the server running? check --socket/--host/--port, or the [client] group of the option files");
	return XB_E_CONNECT;
}

int xb_server_connect(xb_server *s, const xb_conn_settings *cs, xb_error *err)
{
	memset(s, 0, sizeof *s);
	MYSQL *m = mysql_init(NULL);
	if (!m)
		return xb_err_set(err, XB_E_INTERNAL, "mysql_init failed: out of memory");
	s->mysql = m;
	const char *host = cs->host, *sock = cs->socket;
	const char *user = cs->user, *pass = cs->password;
	unsigned port = cs->port;
	if (cs->protocol != XB_CONN_PROTOCOL_DEFAULT) {
		unsigned p = cs->protocol == XB_CONN_PROTOCOL_TCP ? MYSQL_PROTOCOL_TCP : MYSQL_PROTOCOL_SOCKET;
		mysql_optionsv(m, MYSQL_OPT_PROTOCOL, &p);
	}
	if (cs->ssl || cs->ssl_ca || cs->ssl_cert)
		mysql_ssl_set(m, cs->ssl_key, cs->ssl_cert, cs->ssl_ca, cs->ssl_capath, cs->ssl_cipher);
	if (cs->ssl_crl)
		mysql_optionsv(m, MYSQL_OPT_SSL_CRL, cs->ssl_crl);
	if (cs->ssl_crlpath)
		mysql_optionsv(m, MYSQL_OPT_SSL_CRLPATH, cs->ssl_crlpath);
	if (cs->tls_version)
		mysql_optionsv(m, MARIADB_OPT_TLS_VERSION, cs->tls_version);
	my_bool verify = cs->ssl_verify_server_cert;
	mysql_optionsv(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
	mysql_optionsv(m, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name", "xtrabackup");
	unsigned timeout = 30;
	mysql_optionsv(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	if (cs->read_timeout) {
		unsigned rw = cs->read_timeout;
		mysql_optionsv(m, MYSQL_OPT_READ_TIMEOUT, &rw);
		mysql_optionsv(m, MYSQL_OPT_WRITE_TIMEOUT, &rw);
	}
	if (host && strcmp(host, "localhost") != 0)
		snprintf(s->where, sizeof s->where, "host '%s' port %u", host, port ? port : 3306);
	else
		snprintf(s->where, sizeof s->where, "socket '%s'", sock ? sock : "/run/mysqld/mysqld.sock");
	if (!mysql_real_connect(m, host, user, pass, NULL, port, sock, 0))
		return conn_error(s, m, err);
	snprintf(s->version, sizeof s->version, "%s", mysql_get_server_info(m));
	s->version_num = mysql_get_server_version(m);
	s->id = mysql_thread_id(m);
	char *cu = NULL;
	if (xb_server_value(s, "SELECT CURRENT_USER()", &cu, err))
		return err ? err->code : XB_E_QUERY;
	snprintf(s->user, sizeof s->user, "%s", cu ? cu : "?");
	free(cu);
	return 0;
}

void xb_server_close(xb_server *s)
{
	if (s->mysql)
		mysql_close(M(s));
	s->mysql = NULL;
}

/* An error of statement sql: the server's error number and message. */
static int sql_error(xb_server *s, const char *sql, unsigned no, const char *msg, xb_error *err)
{
	int code = (no == 1227 || no == 1044 || no == 1142 || no == 1143) ? XB_E_PRIVILEGE :
		   (no == 2006 || no == 2013) ? XB_E_CONNECT : XB_E_QUERY;
	/* a long statement (CREATE TABLE, an INSERT's columns) by its start: the server's words must fit */
	int shown = strlen(sql) > 100 ? 90 : (int)strlen(sql);
	xb_err_set(err, code, "%s'%.*s%s' failed: %s (error %u)", code == XB_E_CONNECT ? "the server went away: " : "",
		   shown, sql, sql[shown] ? " ..." : "", msg, no);
	if (code == XB_E_PRIVILEGE)
		xb_err_hint(err, "grant the privilege named above to %s", s->user);
	else if (code == XB_E_CONNECT)
		xb_err_hint(err, "the server stopped or restarted (check its error log); nothing in the target is usable: "
				 "once the server is up, run the backup again into an empty directory");
	return code;
}

static int query_error(xb_server *s, const char *sql, xb_error *err)
{
	return sql_error(s, sql, mysql_errno(M(s)), mysql_error(M(s)), err);
}

/* Read and drop every result of the statement just run. */
static int drain_results(MYSQL *m)
{
	do {
		MYSQL_RES *r = mysql_store_result(m);
		if (r)
			mysql_free_result(r);
	} while (mysql_next_result(m) == 0);
	return 0;
}

int xb_server_exec(xb_server *s, const char *sql, xb_error *err)
{
	MYSQL *m = M(s);
	if (mysql_query(m, sql))
		return query_error(s, sql, err);
	return drain_results(m);
}

int xb_server_exec_wait(xb_server *s, const char *sql, unsigned tick_ms, void (*tick)(void *ctx), void *ctx,
			xb_error *err)
{
	MYSQL *m = M(s);
	if (mysql_send_query(m, sql, (unsigned long)strlen(sql)))
		return query_error(s, sql, err);
	/* The answer is awaited on the socket, so the caller hears from us every
	 * tick; mysql_read_query_result then reads it (bounded by the read timeout). */
	struct pollfd p = {.fd = (int)mysql_get_socket(m), .events = POLLIN};
	while (p.fd >= 0) {
		int r = poll(&p, 1, (int)tick_ms);
		if (r > 0 || (r < 0 && errno != EINTR))
			break;
		if (tick)
			tick(ctx); /* a tick, or a signal (the caller may want to stop) */
	}
	if (mysql_read_query_result(m))
		return query_error(s, sql, err);
	return drain_results(m);
}

unsigned xb_server_errno(xb_server *s)
{
	return s->mysql ? mysql_errno(M(s)) : 0;
}

int xb_server_exec_args(xb_server *s, const char *sql, const char *const *args, unsigned n, xb_error *err)
{
	MYSQL_STMT *st = mysql_stmt_init(M(s));
	if (!st)
		return xb_err_set(err, XB_E_INTERNAL, "mysql_stmt_init failed: out of memory");
	MYSQL_BIND *b = calloc(n ? n : 1, sizeof *b);
	unsigned long *len = calloc(n ? n : 1, sizeof *len);
	int rc = 0;
	if (!b || !len) {
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		b[i].buffer_type = args[i] ? MYSQL_TYPE_STRING : MYSQL_TYPE_NULL;
		b[i].buffer = (void *)args[i];
		len[i] = args[i] ? (unsigned long)strlen(args[i]) : 0;
		b[i].buffer_length = len[i];
		b[i].length = &len[i];
	}
	if (mysql_stmt_prepare(st, sql, (unsigned long)strlen(sql)) ||
	    (mysql_stmt_param_count(st) == n && (mysql_stmt_bind_param(st, b) || mysql_stmt_execute(st)))) {
		rc = sql_error(s, sql, mysql_stmt_errno(st), mysql_stmt_error(st), err);
		goto out;
	}
	if (mysql_stmt_param_count(st) != n)
		rc = xb_err_set(err, XB_E_INTERNAL, "'%s' has %lu parameters, %u given", sql,
				(unsigned long)mysql_stmt_param_count(st), n);
out:
	mysql_stmt_close(st);
	free(b);
	free(len);
	return rc;
}

int xb_server_rows(xb_server *s, const char *sql,
		   int (*fn)(void *ctx, unsigned ncols, char **names, char **values), void *ctx, xb_error *err)
{
	MYSQL *m = M(s);
	if (mysql_query(m, sql))
		return query_error(s, sql, err);
	MYSQL_RES *r = mysql_store_result(m);
	if (!r) {
		if (mysql_errno(m))
			return query_error(s, sql, err);
		return 0;
	}
	unsigned n = mysql_num_fields(r);
	MYSQL_FIELD *f = mysql_fetch_fields(r);
	char **names = calloc(n ? n : 1, sizeof *names);
	if (!names) {
		mysql_free_result(r);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	for (unsigned i = 0; i < n; i++)
		names[i] = f[i].name;
	MYSQL_ROW row;
	while ((row = mysql_fetch_row(r)))
		if (fn(ctx, n, names, row))
			break;
	free(names);
	mysql_free_result(r);
	return 0;
}

static int first_value(void *ctx, unsigned n, char **names, char **values)
{
	char **out = ctx;
	if (n > 0 && values[0])
		*out = strdup(values[0]);
	return 1;
}

int xb_server_value(xb_server *s, const char *sql, char **out, xb_error *err)
{
	*out = NULL;
	return xb_server_rows(s, sql, first_value, out, err);
}

static int second_value(void *ctx, unsigned n, char **names, char **values)
{
	char **out = ctx;
	if (n > 1 && values[1])
		*out = strdup(values[1]);
	return 1;
}

int xb_server_variable(xb_server *s, const char *name, char **out, xb_error *err)
{
	char sql[256];
	*out = NULL;
	snprintf(sql, sizeof sql, "SHOW GLOBAL VARIABLES LIKE '%s'", name);
	return xb_server_rows(s, sql, second_value, out, err);
}

int xb_server_status(xb_server *s, const char *name, char **out, xb_error *err)
{
	char sql[256];
	*out = NULL;
	snprintf(sql, sizeof sql, "SHOW GLOBAL STATUS LIKE '%s'", name);
	return xb_server_rows(s, sql, second_value, out, err);
}

static int third_value(void *ctx, unsigned n, char **names, char **values)
{
	char **out = ctx;
	if (n > 2 && values[2])
		*out = strdup(values[2]);
	return 1;
}

/* A status variable holding a number (its name's _ are escaped for LIKE here). */
static int status_number(xb_server *s, const char *name, uint64_t *out, xb_error *err)
{
	char like[128], *q = like;
	for (const char *p = name; *p && q < like + sizeof like - 3; p++) {
		if (*p == '_')
			*q++ = '\\';
		*q++ = *p;
	}
	*q = '\0';
	char *v = NULL;
	int rc = xb_server_status(s, like, &v, err);
	if (rc)
		return rc;
	char *end = NULL;
	unsigned long long x = v ? strtoull(v, &end, 10) : 0;
	bool ok = v && end != v && *end == 0;
	free(v);
	if (!ok)
		return xb_err_set(err, XB_E_SERVER_STATE, "SHOW GLOBAL STATUS has no number for %s", name);
	*out = x;
	return 0;
}

int xb_server_lsn(xb_server *s, uint64_t *lsn, xb_error *err)
{
	char *status = NULL;
	int rc = xb_server_rows(s, "SHOW ENGINE INNODB STATUS", third_value, &status, err);
	if (rc == XB_E_PRIVILEGE) {
		/* no PROCESS (a --no-lock backup does without it): the status variable says the same */
		xb_err_clear(err);
		return status_number(s, "Innodb_lsn_current", lsn, err);
	}
	if (rc)
		return rc;
	const char *p = status ? strstr(status, "\nLog sequence number") : NULL;
	if (!p) {
		free(status);
		return xb_err_set(err, XB_E_SERVER_STATE, "SHOW ENGINE INNODB STATUS has no 'Log sequence number' line");
	}
	*lsn = strtoull(p + strlen("\nLog sequence number"), NULL, 10);
	free(status);
	return 0;
}

int xb_server_flushed_lsn(xb_server *s, uint64_t *lsn, xb_error *err)
{
	return status_number(s, "Innodb_lsn_flushed", lsn, err);
}

typedef struct privs {
	char have[1024]; /* " RELOAD PROCESS ... " */
} privs;

static int add_priv(void *ctx, unsigned n, char **names, char **values)
{
	privs *p = ctx;
	if (n > 0 && values[0] && strlen(p->have) + strlen(values[0]) + 2 < sizeof p->have) {
		strcat(p->have, values[0]);
		strcat(p->have, " ");
	}
	return 0;
}

static bool has_priv(const privs *p, const char *name)
{
	char pat[64];
	snprintf(pat, sizeof pat, " %s ", name);
	return strstr(p->have, pat) != NULL;
}

/* SHOW GRANTS, one line each, for the log: a password hash is left out. */
static int log_grant(void *ctx, unsigned n, char **names, char **values)
{
	int *i = ctx;
	if (n < 1 || !values[0])
		return 0;
	char line[1024];
	snprintf(line, sizeof line, "%s", values[0]);
	char *pw = strstr(line, " IDENTIFIED ");
	if (pw)
		strcpy(pw, " IDENTIFIED BY <secret left out>");
	xb_info("  %d. %s", ++*i, line);
	return 0;
}

/* The privileges of need that p lacks (super_ok: SUPER stands for the
 * MONITOR and SLAVE ones), each logged as "LEVEL: missing required privilege
 * NAME on WHERE" and listed in missing; then the user's SHOW GRANTS. false
 * when none is missing. */
static bool report_missing(xb_server *s, const privs *p, const char *const *need, int n, bool super_ok,
			   const char *level, const char *where, char *missing, size_t size)
{
	missing[0] = 0;
	for (int i = 0; i < n; i++) {
		if (has_priv(p, need[i]) ||
		    (super_ok && (strstr(need[i], "MONITOR") || strstr(need[i], "SLAVE")) && has_priv(p, "SUPER")))
			continue;
		xb_info("%s: missing required privilege %s on %s", level, need[i], where);
		if (strlen(missing) + strlen(need[i]) + 3 < size) {
			if (missing[0])
				strcat(missing, ", ");
			strcat(missing, need[i]);
		}
	}
	if (!missing[0])
		return false;
	int line = 0;
	xb_error ignore;
	xb_info("Current privileges, as reported by 'SHOW GRANTS':");
	xb_server_rows(s, "SHOW GRANTS", log_grant, &line, &ignore);
	return true;
}

int xb_server_check_privileges(xb_server *s, const char *const *need, int n, bool strict, xb_error *err)
{
	privs p = {.have = " "};
	int rc = xb_server_rows(s,
		"SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = "
		"CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', "
		"SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')", add_priv, &p, err);
	if (rc)
		return rc;
	char missing[256];
	if (!report_missing(s, &p, need, n, true, strict ? "Error" : "Warning", "*.*", missing, sizeof missing))
		return 0;
	if (!strict) {
		xb_warn("--skip-check-privileges: going on without %s; a statement that needs one of them will fail", missing);
		return 0;
	}
	xb_err_set(err, XB_E_PRIVILEGE, "user %s lacks the %s privilege%s this backup needs", s->user, missing,
		   strchr(missing, ',') ? "s" : "");
	return xb_err_hint(err, "GRANT %s ON *.* TO %s, or --skip-check-privileges to try anyway", missing, s->user);
}

bool xb_server_literal(const char *v, char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = strlen(v);
	if (n < 2 * len + 32)
		return false;
	size_t k = (size_t)sprintf(out, "CONVERT(X'");
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		out[k++] = hex[*p >> 4];
		out[k++] = hex[*p & 15];
	}
	strcpy(out + k, "' USING utf8mb4)");
	return true;
}

int xb_server_check_table_privileges(xb_server *s, const char *db, const char *table, const char *const *need, int n,
				     const char *what, xb_error *err)
{
	char ldb[600], ltab[600], sql[3072], qname[600];
	if (!xb_server_literal(db, ldb, sizeof ldb) || !xb_server_literal(table, ltab, sizeof ltab))
		return xb_err_set(err, XB_E_USAGE, "name too long: %s.%s", db, table);
	snprintf(qname, sizeof qname, "`%s`.`%s`", db, table);
	static const char grantee[] = "GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', "
				      "SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')";
	snprintf(sql, sizeof sql,
		 "SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE %s "
		 "UNION SELECT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES WHERE %s "
		 "AND (TABLE_SCHEMA = %s OR %s LIKE TABLE_SCHEMA) "
		 "UNION SELECT PRIVILEGE_TYPE FROM information_schema.TABLE_PRIVILEGES WHERE %s "
		 "AND TABLE_SCHEMA = %s AND TABLE_NAME = %s",
		 grantee, grantee, ldb, ldb, grantee, ldb, ltab);
	privs p = {.have = " "};
	int rc = xb_server_rows(s, sql, add_priv, &p, err);
	if (rc)
		return rc;
	char missing[256];
	if (!report_missing(s, &p, need, n, false, "Error", qname, missing, sizeof missing))
		return 0;
	xb_err_set(err, XB_E_PRIVILEGE, "missing required privilege%s %s on %s: user %s cannot %s",
		   strchr(missing, ',') ? "s" : "", missing, qname, s->user, what);
	return xb_err_hint(err, "GRANT %s ON `%s`.* TO %s", missing, db, s->user);
}

bool xb_server_ident(const char *name, char *out, size_t n)
{
	size_t k = 0;
	if (n < 3)
		return false;
	out[k++] = '`';
	for (const char *p = name; *p; p++) {
		if (k + (*p == '`' ? 2 : 1) + 2 > n)
			return false;
		if (*p == '`')
			out[k++] = '`';
		out[k++] = *p;
	}
	out[k++] = '`';
	out[k] = '\0';
	return true;
}
