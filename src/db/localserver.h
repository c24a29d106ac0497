/*
 * localserver.h - the installed MariaDB server started on a backup
 * directory, privately, for --prepare --export.
 *
 * The server rolls back the transactions that were active at the backup's
 * point when it starts on a prepared backup, and answers SHOW CREATE TABLE;
 * its slow shutdown (innodb_fast_shutdown = 0) finishes the rollback and
 * the purge. localserver_start() runs it with backup-my.cnf as its only
 * option file, the backup as its datadir (and InnoDB's directories), no
 * networking, no binary log, no replication, no events, no grant tables
 * (nobody else can reach it: its socket is in a directory only this user
 * can enter), no buffer-pool dump or load (the backup's sorted dump stays
 * as it is), and connects to it over its socket, waiting at most the
 * timeout and saying what it waits for. localserver_stop() asks it to shut
 * down and waits for it, at most the timeout; a server that does not end in
 * time is killed and the error says so. Its log goes to a file in the
 * private directory; an error quotes its first [ERROR] line and names the
 * file, which is kept then.
 */
#ifndef XB_LOCALSERVER_H
#define XB_LOCALSERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "db/server.h"
#include "platform/child.h"

/* How to start it. */
typedef struct localserver_settings {
	const char *binary;       /* the server program (NULL: mariadbd, then mysqld, on PATH and in /usr/sbin, /usr/local/sbin, /usr/local/mysql/bin) */
	const char *dir;          /* the backup directory: datadir, InnoDB data, log and undo directory */
	const char *defaults;     /* its option file (backup-my.cnf), or NULL */
	const char *tmp_base;     /* where the private directory goes (NULL: $TMPDIR or /tmp) */
	size_t buffer_pool;       /* innodb_buffer_pool_size, bytes */
	int force_recovery;       /* innodb_force_recovery, 0 for none */
	unsigned timeout;         /* seconds each of start and shutdown may take */
} localserver_settings;

/* A started server. */
typedef struct localserver {
	xb_child child;           /* the process */
	xb_server conn;           /* the connection to it (conn.mysql NULL when none) */
	char binary[4096];        /* the program that runs */
	char priv[4096];          /* the private directory: socket, pid file, log, tmpdir */
	char sock[4200];          /* the socket */
	char log[4200];           /* the server's log */
	unsigned timeout;         /* from the settings */
	bool keep_log;            /* an error named the log: keep the private directory */
} localserver;

/* Start the server on s->dir and connect to it. XB_E_EXPORT on failure
 * (after killing it), naming the program, the log and its first error. */
int localserver_start(const localserver_settings *s, localserver *ls, xb_error *err);

/* Slow shutdown and wait for the end of the process (exit status 0
 * expected); then remove the private directory. XB_E_EXPORT when it failed
 * or did not end in time (it is killed then). */
int localserver_stop(localserver *ls, xb_error *err);

/* After a failure: kill the server if it runs, close the connection and
 * remove the private directory unless an error named its log. */
void localserver_abort(localserver *ls);

/* The first line of the server's log holding "[ERROR]" (empty when none). */
void localserver_first_error(const localserver *ls, char *out, size_t n);

#endif
