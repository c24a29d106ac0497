/*
 * server.h - the connection to the MariaDB server (Connector/C).
 *
 * Wraps libmariadb with our error convention: connection and query errors
 * become one-line messages that name the socket/host and the statement, with
 * hints for the usual causes (server down, wrong socket, bad credentials,
 * missing privilege). Passwords are handed to the library only, never logged.
 */
#ifndef XB_SERVER_H
#define XB_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* How to connect: plain settings, resolved from the options (the [client]
 * groups and the command line) by the command. */
typedef struct xb_conn_settings {
	const char *host;        /* --host, NULL or "localhost": the unix socket */
	unsigned port;           /* --port, 0: the default (3306) */
	const char *socket;      /* --socket, NULL: the library's default */
	const char *user;        /* --user, NULL: the library's default (the OS user) */
	const char *password;    /* --password, NULL: none; never logged */
	int protocol;            /* --protocol: XB_CONN_PROTOCOL_* */
	bool ssl;                /* --ssl */
	const char *ssl_key;     /* --ssl-key */
	const char *ssl_cert;    /* --ssl-cert */
	const char *ssl_ca;      /* --ssl-ca */
	const char *ssl_capath;  /* --ssl-capath */
	const char *ssl_cipher;  /* --ssl-cipher */
	const char *ssl_crl;     /* --ssl-crl */
	const char *ssl_crlpath; /* --ssl-crlpath */
	const char *tls_version; /* --tls-version */
	bool ssl_verify_server_cert; /* --ssl-verify-server-cert */
	unsigned read_timeout;   /* seconds a statement's answer may take before the connection is given up, 0: no limit */
} xb_conn_settings;

enum { XB_CONN_PROTOCOL_DEFAULT = 0, XB_CONN_PROTOCOL_TCP = 1, XB_CONN_PROTOCOL_SOCKET = 2 };

typedef struct xb_server {
	void *mysql;             /* MYSQL handle */
	char version[128];       /* SELECT VERSION() */
	unsigned long version_num; /* e.g. 101119 */
	char where[512];         /* "socket '/run/mysqld/mysqld.sock'" or "host:port" for messages */
	char user[256];          /* CURRENT_USER() */
	unsigned long id;        /* the server's id of this connection (CONNECTION_ID(), the processlist Id) */
} xb_server;

/* Connect with the connection settings (user, password, host, port, socket, protocol, TLS). */
int xb_server_connect(xb_server *s, const xb_conn_settings *cs, xb_error *err);
void xb_server_close(xb_server *s);

/* Run a statement and discard any result. */
int xb_server_exec(xb_server *s, const char *sql, xb_error *err);

/* Run a statement that may wait for a lock and discard any result: tick(ctx)
 * is called every tick_ms while the answer has not come (from this thread, so
 * it may use other connections: log who blocks, kill a statement). Returns
 * like xb_server_exec once the server answered. */
int xb_server_exec_wait(xb_server *s, const char *sql, unsigned tick_ms, void (*tick)(void *ctx), void *ctx,
			xb_error *err);

/* The server's error number of the last failed statement (1205: lock wait
 * timeout, 1317: interrupted by KILL QUERY), 0 when it succeeded. */
unsigned xb_server_errno(xb_server *s);

/* Run a prepared statement with n parameters (the ? of sql, in order) given
 * as text, NULL for SQL NULL; the server converts them to the columns' types.
 * The values never become part of the statement's text. */
int xb_server_exec_args(xb_server *s, const char *sql, const char *const *args, unsigned n, xb_error *err);

/* First column of the first row (malloc'ed, NULL when there is no row or the value is NULL). */
int xb_server_value(xb_server *s, const char *sql, char **out, xb_error *err);

/* A global variable's value (malloc'ed, NULL when the variable does not exist). */
int xb_server_variable(xb_server *s, const char *name, char **out, xb_error *err);

/* A global status variable's value (malloc'ed, NULL when there is no such variable). */
int xb_server_status(xb_server *s, const char *name, char **out, xb_error *err);

/* Rows as a callback: fn(ctx, ncols, names, values) for each row; fn returns 0 to continue. */
int xb_server_rows(xb_server *s, const char *sql,
		   int (*fn)(void *ctx, unsigned ncols, char **names, char **values), void *ctx, xb_error *err);

/* The InnoDB LSN from SHOW ENGINE INNODB STATUS ("Log sequence number N"). */
int xb_server_lsn(xb_server *s, uint64_t *lsn, xb_error *err);

/* How far the server's redo log is durable: the status variable Innodb_lsn_flushed. */
int xb_server_flushed_lsn(xb_server *s, uint64_t *lsn, xb_error *err);

/* Check that CURRENT_USER() holds each of the n global privileges named in
 * need (as information_schema.USER_PRIVILEGES spells them; SUPER also
 * satisfies a MONITOR or SLAVE one). Each missing one is logged as
 * "missing required privilege NAME on *.*", then the user's SHOW GRANTS (any
 * password hash left out). strict: XB_E_PRIVILEGE naming them all; else a
 * warning and 0. */
int xb_server_check_privileges(xb_server *s, const char *const *need, int n, bool strict, xb_error *err);

/* The same for privileges on one table: held on *.*, on the database (a
 * grant's wildcard database too) or on the table. Each missing one is
 * logged as "missing required privilege NAME on `db`.`table`", then SHOW
 * GRANTS; XB_E_PRIVILEGE naming them all, and what cannot be done without
 * them (e.g. "restore tables"). */
int xb_server_check_table_privileges(xb_server *s, const char *db, const char *table, const char *const *need, int n,
				     const char *what, xb_error *err);

/* v as an SQL string expression that needs no escaping: CONVERT(X'hex' USING
 * utf8mb4). False when out (n bytes) is too small. */
bool xb_server_literal(const char *v, char *out, size_t n);

/* name as an SQL identifier: in backquotes, a backquote doubled. false when
 * out (n bytes) is too small. */
bool xb_server_ident(const char *name, char *out, size_t n);

#endif
