/*
 * localserver.c - a private server on a backup directory (see
 * localserver.h). The start polls, every 200 ms, whether the process still
 * runs and whether its socket takes a connection; the stop sends SHUTDOWN on
 * that connection and polls for the end of the process. Both log what they
 * wait for every 10 s and give up at the timeout.
 */
#include "db/localserver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/path.h"
#include "platform/clock.h"

int localserver_find(const char *given, char *out, size_t n, xb_error *err)
{
	if (given) {
		if (!xb_is_executable(given))
			return xb_err_set(err, XB_E_EXPORT, "--mariadbd=%s is not an executable file", given),
			       xb_err_hint(err, "name the MariaDB server program, e.g. --mariadbd=/usr/sbin/mariadbd");
		snprintf(out, n, "%s", given);
		return 0;
	}
	static const char *const names[] = {"mariadbd", "mysqld"};
	static const char *const fixed[] = {"/usr/sbin", "/usr/local/sbin", "/usr/local/mysql/bin", "/usr/bin"};
	const char *path = getenv("PATH");
	for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
		for (const char *p = path; p && *p;) {
			const char *e = strchr(p, ':');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			if (l && (size_t)snprintf(out, n, "%.*s/%s", (int)l, p, names[k]) < n && xb_is_executable(out))
				return 0;
			p = e ? e + 1 : NULL;
		}
		for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
			if ((size_t)snprintf(out, n, "%s/%s", fixed[i], names[k]) < n && xb_is_executable(out))
				return 0;
	}
	xb_err_set(err, XB_E_EXPORT, "no MariaDB server program (mariadbd) found on PATH or in /usr/sbin");
	return xb_err_hint(err, "install the server of the backup's version (Debian: mariadb-server) or name it with "
				"--mariadbd=PATH: --export starts it on the prepared backup to roll back and describe the "
				"tables");
}

void localserver_first_error(const localserver *ls, char *out, size_t n)
{
	*out = 0;
	FILE *f = fopen(ls->log, "r");
	if (!f)
		return;
	char line[1024];
	while (fgets(line, sizeof line, f))
		if (strstr(line, "[ERROR]")) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, n, "%s", line);
			break;
		}
	fclose(f);
}

/* err gets the server's first error line and the log's name. */
static int server_failed(localserver *ls, xb_error *err, const char *what)
{
	char first[1024];
	localserver_first_error(ls, first, sizeof first);
	ls->keep_log = true;
	xb_err_set(err, XB_E_EXPORT, "%s (%s)%s%s", what, ls->binary, *first ? ": " : "", first);
	return xb_err_hint(err, "its log is %s; the backup itself is prepared: --export can be run again", ls->log);
}

static bool try_connect(localserver *ls)
{
	xb_conn_settings cs = {.socket = ls->sock, .user = "root", .protocol = XB_CONN_PROTOCOL_SOCKET,
			       .read_timeout = ls->timeout};
	xb_error e;
	if (xb_server_connect(&ls->conn, &cs, &e) == 0)
		return true;
	xb_server_close(&ls->conn);
	return false;
}

int localserver_start(const localserver_settings *s, localserver *ls, xb_error *err)
{
	memset(ls, 0, sizeof *ls);
	ls->timeout = s->timeout ? s->timeout : 1;
	int rc = localserver_find(s->binary, ls->binary, sizeof ls->binary, err);
	if (rc)
		return rc;
	/* the server takes relative paths from its own base directory: all absolute */
	char cwd[4096], dir[4096], defaults[4200];
	if (!getcwd(cwd, sizeof cwd))
		return xb_err_set(err, XB_E_EXPORT, "cannot tell the current directory: %s", strerror(errno));
	if ((rc = xb_path_resolve(dir, sizeof dir, cwd, s->dir, err)) ||
	    (s->defaults && (rc = xb_path_resolve(defaults, sizeof defaults, cwd, s->defaults, err))))
		return rc;
	const char *base = s->tmp_base ? s->tmp_base : getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	if (xb_private_dir(base, "xtrabackup-export.", ls->priv, sizeof ls->priv))
		return xb_err_set(err, XB_E_EXPORT, "cannot make a private directory in %s: %s", base, strerror(errno));
	snprintf(ls->sock, sizeof ls->sock, "%s/mysqld.sock", ls->priv);
	snprintf(ls->log, sizeof ls->log, "%s/mysqld.log", ls->priv);
	if (strlen(ls->sock) >= 100) {
		localserver_abort(ls);
		xb_err_set(err, XB_E_EXPORT, "the server's socket path %s is too long for a socket", ls->sock);
		return xb_err_hint(err, "set TMPDIR to a shorter directory");
	}
	char user[256];
	bool root;
	xb_user_name(user, sizeof user, &root);
	char a_def[4300], a_dir[4200], a_data[4200], a_log[4200], a_undo[4200], a_sock[4300], a_pid[4300], a_err[4300],
		a_tmp[4300], a_user[300], a_bp[64], a_force[64];
	int k = 0;
	char *argv[40];
	argv[k++] = ls->binary;
	if (s->defaults) {
		snprintf(a_def, sizeof a_def, "--defaults-file=%s", defaults);
		argv[k++] = a_def;
	} else {
		argv[k++] = "--no-defaults";
	}
	snprintf(a_dir, sizeof a_dir, "--datadir=%s", dir);
	snprintf(a_data, sizeof a_data, "--innodb-data-home-dir=%s", dir);
	snprintf(a_log, sizeof a_log, "--innodb-log-group-home-dir=%s", dir);
	snprintf(a_undo, sizeof a_undo, "--innodb-undo-directory=%s", dir);
	snprintf(a_sock, sizeof a_sock, "--socket=%s", ls->sock);
	snprintf(a_pid, sizeof a_pid, "--pid-file=%s/mysqld.pid", ls->priv);
	snprintf(a_err, sizeof a_err, "--log-error=%s", ls->log);
	snprintf(a_tmp, sizeof a_tmp, "--tmpdir=%s", ls->priv);
	snprintf(a_bp, sizeof a_bp, "--innodb-buffer-pool-size=%zu", s->buffer_pool < (32u << 20) ? (size_t)32 << 20 : s->buffer_pool);
	argv[k++] = a_dir;
	argv[k++] = a_data;
	argv[k++] = a_log;
	argv[k++] = a_undo;
	argv[k++] = a_sock;
	argv[k++] = a_pid;
	argv[k++] = a_err;
	argv[k++] = a_tmp;
	argv[k++] = a_bp;
	if (root && *user) {
		snprintf(a_user, sizeof a_user, "--user=%s", user);
		argv[k++] = a_user;
	}
	if (s->force_recovery) {
		snprintf(a_force, sizeof a_force, "--innodb-force-recovery=%d", s->force_recovery);
		argv[k++] = a_force;
	}
	static char *const fixed[] = {"--skip-networking",
				      "--skip-grant-tables",
				      "--skip-log-bin",
				      "--skip-slave-start",
				      "--event-scheduler=DISABLED",
				      "--innodb-fast-shutdown=0",
				      "--innodb-buffer-pool-dump-at-shutdown=0",
				      "--innodb-buffer-pool-load-at-startup=0",
				      "--loose-wsrep-on=0",
				      "--loose-innodb-purge-rseg-truncate-frequency=1",
				      "--skip-stack-trace",
				      NULL};
	for (size_t i = 0; fixed[i]; i++)
		argv[k++] = fixed[i];
	argv[k] = NULL;
	if (xb_child_start(&ls->child, ls->binary, argv, ls->log)) {
		int e = errno;
		localserver_abort(ls);
		return xb_err_set(err, XB_E_EXPORT, "cannot start %s: %s", ls->binary, strerror(e));
	}
	xb_info("started %s (pid %ld) on %s, socket %s", ls->binary, ls->child.pid, dir, ls->sock);
	double t0 = xb_clock_sec(), said = t0;
	for (;;) {
		if (xb_child_ended(&ls->child)) {
			char what[128];
			snprintf(what, sizeof what, "the server started on the backup ended with status %d before it was ready",
				 ls->child.status);
			rc = server_failed(ls, err, what);
			localserver_abort(ls);
			return rc;
		}
		if (access(ls->sock, F_OK) == 0 && try_connect(ls))
			break;
		double now = xb_clock_sec();
		if (now - t0 >= ls->timeout) {
			char what[128];
			snprintf(what, sizeof what, "the server started on the backup was not ready after %u s", ls->timeout);
			rc = server_failed(ls, err, what);
			localserver_abort(ls);
			return rc;
		}
		if (now - said >= 10) {
			xb_info("waiting for the server on the backup to start (its crash recovery): %.0f s of %u", now - t0,
				ls->timeout);
			said = now;
		}
		struct timespec ts = {0, 200 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	xb_info("the server on the backup is ready (%s) after %.1f s", ls->conn.version, xb_clock_sec() - t0);
	return 0;
}

int localserver_stop(localserver *ls, xb_error *err)
{
	double t0 = xb_clock_sec(), said = t0;
	xb_error e;
	if (ls->conn.mysql && xb_server_exec(&ls->conn, "SHUTDOWN", &e))
		xb_warn("SHUTDOWN on the server on the backup: %s; sending it a TERM signal", e.msg);
	xb_server_close(&ls->conn);
	while (!xb_child_wait(&ls->child, 200)) {
		double now = xb_clock_sec();
		if (now - t0 >= ls->timeout) {
			xb_child_kill(&ls->child);
			char what[160];
			snprintf(what, sizeof what,
				 "the server on the backup did not finish its slow shutdown (rollback and purge) within %u s "
				 "and was killed",
				 ls->timeout);
			return server_failed(ls, err, what);
		}
		if (now - said >= 10) {
			xb_info("waiting for the server on the backup to finish its rollback and purge and shut down: %.0f s of %u",
				now - t0, ls->timeout);
			said = now;
		}
	}
	if (ls->child.status != 0) {
		char what[128];
		snprintf(what, sizeof what, "the server on the backup ended with status %d", ls->child.status);
		return server_failed(ls, err, what);
	}
	xb_info("the server on the backup shut down after %.1f s", xb_clock_sec() - t0);
	xb_private_dir_remove(ls->priv);
	ls->priv[0] = 0;
	return 0;
}

void localserver_abort(localserver *ls)
{
	xb_server_close(&ls->conn);
	xb_child_kill(&ls->child);
	if (ls->priv[0] && !ls->keep_log)
		xb_private_dir_remove(ls->priv);
	ls->priv[0] = 0;
}
