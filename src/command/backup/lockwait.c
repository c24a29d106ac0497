/*
 * lockwait.c - a BACKUP STAGE statement that waits for a lock, but never
 * forever, and says what it waits for.
 *
 * lockwait_exec() sets the session's lock_wait_timeout to the stage's limit
 * (--lock-wait-timeout, or for BACKUP STAGE START --startup-wait-timeout /
 * --ftwrl-wait-timeout when given), sends the statement and, while its answer
 * has not come, every second: stops it (KILL QUERY, from a second connection)
 * when a signal asked us to stop or when the server let it wait 10 s past the
 * limit, and after 3 s, then every 10 s, logs the connections that hold it
 * up and how many connections queue behind it. When the server
 * gives up (lock wait timeout), the error names the stage, the limit and its
 * option, and those connections.
 *
 * Who holds it up: the other client connections of the processlist (not ours,
 * not daemons, binlog dump threads or replica I/O threads, not those queued
 * behind us in "Waiting for backup lock"). With the metadata_lock_info plugin
 * loaded the list is exact: connections holding a backup lock other than the
 * one every InnoDB write holds (MDL_BACKUP_TRANS_DML, which no stage waits
 * for), each with its locks. Without it, every other connection is a
 * candidate, longest first, and the hint says how to get the exact list.
 */
#include "backup_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command/command.h"
#include "common/log.h"
#include "platform/clock.h"

#define ER_LOCK_WAIT_TIMEOUT 1205 /* the server's error for a lock not granted within lock_wait_timeout */
#define FIRST_REPORT 3            /* seconds of waiting before the first "waiting for" log line */
#define REPORT_EVERY 10           /* seconds between two "waiting for" log lines */
#define CLIENT_GRACE 10           /* seconds past the limit before we stop the statement ourselves */
#define MAX_CANDIDATES 32         /* connections looked at */
#define MAX_SHOWN 3               /* connections named in one line */

/* One connection that may hold the lock. */
typedef struct candidate {
	char text[400];   /* its description (lockwait_describe) */
	unsigned long id; /* its processlist Id */
	bool holds;       /* holds a backup lock a stage may wait for (metadata_lock_info) */
} candidate;

/* What one look at the server found. */
typedef struct blockers {
	backup_ctx *c;                  /* the backup (its connections are not candidates) */
	candidate v[MAX_CANDIDATES];    /* candidates, longest running first */
	int n;                          /* how many */
	int more;                       /* candidates past MAX_CANDIDATES */
	char *locks;                    /* metadata_lock_info rows as "id\tlock\n", NULL without the plugin */
} blockers;

/* A statement being waited for. */
typedef struct waiter {
	backup_ctx *c;       /* the backup */
	const char *sql;     /* BACKUP STAGE ... */
	long limit;          /* its lock_wait_timeout, s */
	const char *option;  /* the option that set it */
	double t0;           /* when it was sent */
	double next_report;  /* seconds since t0 of the next log line */
	bool killed;         /* we stopped it with KILL QUERY */
	bool by_signal;      /* ... because a signal asked us to stop */
} waiter;

/* Copy s into out (n bytes), tabs and line breaks as spaces. */
static void flat(char *out, size_t n, const char *s)
{
	size_t i = 0;
	for (; s && s[i] && i + 1 < n; i++)
		out[i] = (s[i] == '\n' || s[i] == '\r' || s[i] == '\t') ? ' ' : s[i];
	out[i] = 0;
}

size_t lockwait_describe(char *buf, size_t n, const char *id, const char *user, const char *host,
			 const char *command, const char *time, const char *state, const char *info, bool info_cut,
			 const char *locks)
{
	char st[128], in[128 * 4 + 8];
	flat(st, sizeof st, state);
	flat(in, sizeof in, info);
	int k = snprintf(buf, n, "connection %s (%s@%s) %s for %s s%s%s%s%s%s%s%s%s", id ? id : "?", user ? user : "?",
			 host ? host : "?", command ? command : "?", time ? time : "?", st[0] ? ", state '" : "", st,
			 st[0] ? "'" : "", locks && locks[0] ? ", holds " : "", locks ? locks : "", in[0] ? ": " : "", in,
			 in[0] && info_cut ? "..." : "");
	return k < 0 ? 0 : (size_t)k >= n ? n - 1 : (size_t)k;
}

/* The second connection, opened on first need; NULL when it cannot be. */
static xb_server *watcher(backup_ctx *c)
{
	if (c->srv_watch.mysql)
		return &c->srv_watch;
	if (c->watch_failed)
		return NULL;
	xb_error e;
	xb_err_clear(&e);
	if (xb_server_connect(&c->srv_watch, &c->set.conn, &e)) {
		xb_server_close(&c->srv_watch);
		c->watch_failed = true;
		xb_warn("cannot open a second connection to see who holds the lock: %s", e.msg);
		return NULL;
	}
	char *v = NULL;
	if (xb_server_value(&c->srv_watch,
			    "SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'METADATA_LOCK_INFO' "
			    "AND PLUGIN_STATUS = 'ACTIVE'", &v, &e) == 0)
		c->have_mli = v && atoi(v) > 0;
	free(v);
	return &c->srv_watch;
}

static bool ours(const backup_ctx *c, unsigned long id)
{
	return id == c->srv.id || id == c->srv_log.id || id == c->srv_watch.id;
}

/* The locks metadata_lock_info lists for connection id, as "MDL_BACKUP_DDL,
 * MDL_SHARED_NO_READ_WRITE on test.t"; holds: one of them is a backup lock
 * a stage may wait for. */
static void locks_of(const blockers *b, unsigned long id, char *out, size_t n, bool *holds)
{
	out[0] = 0;
	*holds = false;
	for (const char *p = b->locks; p && *p;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char line[300];
		snprintf(line, sizeof line, "%.*s", (int)len, p);
		p += len + (end ? 1 : 0);
		char *tab = strchr(line, '\t');
		if (!tab || strtoul(line, NULL, 10) != id)
			continue;
		const char *lock = tab + 1;
		if (!strncmp(lock, "MDL_BACKUP_", 11) && strncmp(lock, "MDL_BACKUP_TRANS_DML", 20))
			*holds = true;
		size_t used = strlen(out);
		if (used + strlen(lock) + 3 < n)
			snprintf(out + used, n - used, "%s%s", used ? ", " : "", lock);
	}
}

static int mli_row(void *ctx, unsigned ncols, char **names, char **v)
{
	blockers *b = ctx;
	if (ncols < 5 || !v[0] || !v[1])
		return 0;
	char line[300];
	if (!strcmp(v[2] ? v[2] : "", "Backup lock"))
		snprintf(line, sizeof line, "%s\t%s\n", v[0], v[1]);
	else if (v[3] && v[3][0])
		snprintf(line, sizeof line, "%s\t%s on %s.%s\n", v[0], v[1], v[4] ? v[4] : "", v[3]);
	else
		return 0; /* schema intention locks: noise */
	size_t old = b->locks ? strlen(b->locks) : 0;
	if (old > 64 * 1024)
		return 0;
	char *grown = realloc(b->locks, old + strlen(line) + 1);
	if (!grown)
		return 0;
	b->locks = grown;
	strcpy(b->locks + old, line);
	return 0;
}

static int processlist_row(void *ctx, unsigned ncols, char **names, char **v)
{
	blockers *b = ctx;
	if (ncols < 8 || !v[0])
		return 0;
	unsigned long id = strtoul(v[0], NULL, 10);
	if (ours(b->c, id))
		return 0;
	if (b->n == MAX_CANDIDATES) {
		b->more++;
		return 0;
	}
	candidate *k = &b->v[b->n++];
	char locks[200];
	bool holds = false;
	locks_of(b, id, locks, sizeof locks, &holds);
	k->id = id;
	k->holds = holds;
	lockwait_describe(k->text, sizeof k->text, v[0], v[1], v[2], v[3], v[4], v[5], v[6],
			  v[7] && atol(v[7]) > 100, locks);
	return 0;
}

/* Look at the server: who may hold up our statement. */
static void blockers_find(backup_ctx *c, blockers *b)
{
	memset(b, 0, sizeof *b);
	b->c = c;
	xb_server *w = watcher(c);
	if (!w)
		return;
	xb_error e;
	if (c->have_mli)
		xb_server_rows(w, "SELECT THREAD_ID, LOCK_MODE, LOCK_TYPE, TABLE_NAME, TABLE_SCHEMA "
				  "FROM information_schema.METADATA_LOCK_INFO", mli_row, b, &e);
	xb_server_rows(w, "SELECT ID, USER, HOST, COMMAND, TIME, STATE, LEFT(INFO, 100), CHAR_LENGTH(INFO) "
			  "FROM information_schema.PROCESSLIST WHERE COMMAND NOT IN ('Daemon', 'Binlog Dump', 'Slave_IO') "
			  "AND COALESCE(STATE, '') <> 'Waiting for backup lock' ORDER BY TIME DESC, ID",
		       processlist_row, b, &e);
}

/* The candidates to name: with metadata_lock_info those holding a backup lock
 * (all when none does), else all. Writes "; "-separated descriptions. */
static int blockers_text(const blockers *b, char *out, size_t n, unsigned long *first_id)
{
	bool any_holds = false;
	for (int i = 0; i < b->n; i++)
		any_holds |= b->v[i].holds;
	int shown = 0, total = 0;
	out[0] = 0;
	for (int i = 0; i < b->n; i++) {
		if (any_holds && !b->v[i].holds)
			continue;
		total++;
		if (shown == MAX_SHOWN)
			continue;
		size_t used = strlen(out);
		snprintf(out + used, n - used, "%s%s", shown ? "; " : "", b->v[i].text);
		if (!shown)
			*first_id = b->v[i].id;
		shown++;
	}
	total += any_holds ? 0 : b->more;
	if (total > shown) {
		size_t used = strlen(out);
		snprintf(out + used, n - used, "; and %d more", total - shown);
	}
	return shown;
}

static void stop_statement(waiter *w, bool by_signal)
{
	xb_server *s = watcher(w->c);
	char kill[64];
	snprintf(kill, sizeof kill, "KILL QUERY %lu", w->c->srv.id);
	xb_error e;
	if (!s || xb_server_exec(s, kill, &e)) {
		if (s)
			xb_warn("cannot stop %s: %s", w->sql, e.msg);
		return; /* the read timeout of the connection ends the wait */
	}
	w->killed = true;
	w->by_signal = by_signal;
}

static void tick(void *ctx)
{
	waiter *w = ctx;
	if (w->killed)
		return;
	double waited = xb_clock_sec() - w->t0;
	if (command_interrupted(NULL)) {
		xb_info("Stopping %s: a signal asked us to stop", w->sql);
		stop_statement(w, true);
		return;
	}
	if (waited > (double)(w->limit + CLIENT_GRACE)) {
		xb_warn("the server let %s wait %.0f s, past its lock_wait_timeout of %ld s: stopping it", w->sql,
			waited, w->limit);
		stop_statement(w, false);
		return;
	}
	if (waited < w->next_report)
		return;
	w->next_report += REPORT_EVERY;
	blockers b;
	blockers_find(w->c, &b);
	char who[1024];
	unsigned long first = 0;
	if (!blockers_text(&b, who, sizeof who, &first))
		snprintf(who, sizeof who, "no other connection found");
	char queued[160] = "";
	xb_server *ws = watcher(w->c);
	char *nq = NULL;
	xb_error e;
	char q[160];
	snprintf(q, sizeof q, "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
			      "WHERE STATE = 'Waiting for backup lock' AND ID <> %lu", w->c->srv.id);
	if (ws && xb_server_value(ws, q, &nq, &e) == 0 && nq && atol(nq) > 0)
		snprintf(queued, sizeof queued, "; %ld connection(s) wait behind it (their DDL waits until it is granted or given up)",
			 atol(nq));
	free(nq);
	xb_info("Waiting for %s for %.0f s (gives up after %ld s, %s): %s%s", w->sql, waited, w->limit, w->option,
		who, queued);
	free(b.locks);
}

/* The error of a statement the server gave up on: who held it up. */
static int timeout_error(waiter *w, xb_error *err)
{
	blockers b;
	blockers_find(w->c, &b);
	char who[900];
	unsigned long first = 0;
	int shown = blockers_text(&b, who, sizeof who, &first);
	free(b.locks);
	xb_err_set(err, XB_E_LOCK_TIMEOUT, "%s was not granted within %ld s (%s=%ld): %s%s", w->sql, w->limit,
		   w->option, w->limit, shown ? "held up by " : "no other connection found holding it", shown ? who : "");
	char kill[64] = "KILL ID";
	if (shown)
		snprintf(kill, sizeof kill, "KILL %lu", first);
	return xb_err_hint(err, "end what holds the lock (%s), or take the backup when it is done%s; %s=SEC waits longer%s",
			   kill, !strcmp(w->sql, "BACKUP STAGE START") ? " (a session holding LOCK TABLES blocks it)" : "",
			   w->option, w->c->have_mli ? "" : "; INSTALL SONAME 'metadata_lock_info' names the exact holder");
}

int lockwait_exec(backup_ctx *c, const char *sql, long limit, const char *option, xb_error *err)
{
	int rc;
	if (c->session_lock_wait != limit) {
		char set[96];
		snprintf(set, sizeof set, "SET SESSION lock_wait_timeout = %ld", limit);
		if ((rc = xb_server_exec(&c->srv, set, err)))
			return rc;
		c->session_lock_wait = limit;
	}
	waiter w = {.c = c, .sql = sql, .limit = limit, .option = option, .t0 = xb_clock_sec(),
		    .next_report = FIRST_REPORT};
	rc = xb_server_exec_wait(&c->srv, sql, 1000, tick, &w, err);
	double waited = xb_clock_sec() - w.t0;
	if (!rc) {
		if (waited >= 1.0)
			xb_info("%s granted after %.0f s", sql, waited);
		return 0;
	}
	if (w.by_signal) {
		command_interrupted(err);
		return err ? err->code : XB_E_INTERRUPTED;
	}
	if (xb_server_errno(&c->srv) == ER_LOCK_WAIT_TIMEOUT || w.killed)
		return timeout_error(&w, err);
	return rc;
}

void lockwait_close(backup_ctx *c)
{
	xb_server_close(&c->srv_watch);
}
