/*
 * bufpool.c - a fresh buffer-pool dump in every backup, so that the restored
 * server starts warm (--dump-innodb-buffer-pool, on by default).
 *
 * When the InnoDB datafiles are copied, the server is asked to dump its
 * buffer pool (SET GLOBAL innodb_buffer_pool_dump_now=ON) with
 * innodb_buffer_pool_dump_pct raised to --dump-innodb-buffer-pool-pct
 * (default 100: the restored server should be warm wherever the source was)
 * and put back afterwards, whatever happens. The dump is done when
 * Innodb_buffer_pool_dump_status says "completed" and the file is newer than
 * the request (the status text alone can repeat within a second). The file
 * (innodb_buffer_pool_filename in innodb_data_home_dir, else the datadir) is
 * then stored in the backup as ib_buffer_pool; --prepare and --copy-back
 * sort and clean it. A backup user without the privilege to ask for a dump
 * (SUPER) is normal for a least-privilege setup: the server's own last dump
 * is stored instead, as mariabackup copies it, and the log says once, at info
 * level, that it is older than the backup. Other failures (a timeout, no
 * file) are warnings: the backup is still good, only colder.
 */
#include "backup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "command/command.h"
#include "common/log.h"
#include "innodb/bpdump.h"
#include "common/path.h"
#include "platform/clock.h"

static char *status_value(backup_ctx *c)
{
	char *v = NULL;
	xb_error e;
	if (xb_server_status(&c->srv, "Innodb_buffer_pool_dump_status", &v, &e))
		return NULL;
	return v;
}

static bool newer_than(const char *path, const struct timespec *t)
{
	struct stat st;
	if (stat(path, &st))
		return false;
	return st.st_mtim.tv_sec > t->tv_sec || (st.st_mtim.tv_sec == t->tv_sec && st.st_mtim.tv_nsec >= t->tv_nsec);
}

/* A dump has one line per page. */
static void count_lines(void *ctx, const void *buf, size_t n)
{
	size_t *pages = ctx;
	for (const char *p = buf, *end = p + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		++*pages;
}

/* Store the dump file in the backup as ib_buffer_pool; *pages = its lines. */
static int store(backup_ctx *c, const char *path, size_t *pages, xb_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	*pages = 0;
	int rc = xb_sink_put_fd(c->meta_sink, BP_TEXT_NAME, fd, path, count_lines, pages, err);
	close(fd);
	return rc;
}

/* No fresh dump: store the server's last one if it has one (older than the
 * backup: the restored server warms with what was cached then). */
static int store_last_dump(backup_ctx *c, const char *path, const char *why, xb_error *err)
{
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		xb_info("No buffer-pool dump in this backup (the restored server starts cold): %s, and the server "
			"has no dump of its own in %s", why, path);
		return 0;
	}
	size_t pages = 0;
	int rc = store(c, path, &pages, err);
	if (rc)
		return rc;
	char when[32];
	struct tm tm;
	localtime_r(&st.st_mtime, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	xb_info("Buffer-pool dump: %s, so the server's own last dump (written %s, older than this backup) is "
		"stored as ib_buffer_pool: %zu pages", why, when, pages);
	return 0;
}

static bool privilege_error(const char *msg)
{
	return strstr(msg, "SUPER") || strstr(msg, "Access denied") || strstr(msg, "privilege");
}

int bufpool_dump(backup_ctx *c, xb_error *err)
{
	if (!c->set.bp_dump)
		return 0;
	long long pct = c->set.bp_dump_pct;
	long long timeout = c->set.bp_dump_timeout;
	char *old_pct = NULL, *fname = NULL;
	xb_error e;
	xb_err_clear(&e);
	if (xb_server_variable(&c->srv, "innodb_buffer_pool_dump_pct", &old_pct, &e) ||
	    xb_server_variable(&c->srv, "innodb_buffer_pool_filename", &fname, &e) || !old_pct || !fname) {
		xb_warn("no buffer-pool dump in this backup (the restored server starts cold): %s",
			e.msg[0] ? e.msg : "the server has no innodb_buffer_pool_dump_pct");
		free(old_pct);
		free(fname);
		return 0;
	}
	char path[8300];
	if (xb_path_join(path, sizeof path, c->lay.data_home_dir[0] ? c->lay.data_home_dir : c->lay.datadir, fname, &e)) {
		xb_warn("no buffer-pool dump in this backup (the restored server starts cold): %s", e.msg);
		free(old_pct);
		free(fname);
		return 0;
	}
	char sql[128];
	bool raised = false;
	if (atoll(old_pct) != pct) {
		snprintf(sql, sizeof sql, "SET GLOBAL innodb_buffer_pool_dump_pct = %lld", pct);
		if (xb_server_exec(&c->srv, sql, &e)) {
			int rc = 0;
			if (privilege_error(e.msg))
				rc = store_last_dump(c, path, "the backup user may not ask for a fresh one (no SUPER)", err);
			else
				xb_warn("no buffer-pool dump in this backup (the restored server starts cold): %s", e.msg);
			free(old_pct);
			free(fname);
			return rc;
		}
		raised = true;
	}
	struct timespec asked; /* wall clock, as file time stamps */
	timespec_get(&asked, TIME_UTC);
	asked.tv_sec -= 1; /* file time stamps may be coarser than the clock */
	char *before = status_value(c);
	int rc = xb_server_exec(&c->srv, "SET GLOBAL innodb_buffer_pool_dump_now = ON", &e);
	bool done = false;
	char *status = NULL;
	if (!rc) {
		xb_info("Asked the server for a buffer-pool dump (%lld%% of the pool) into %s", pct, path);
		uint64_t t0 = xb_clock_ns() / 1000000000u; /* whole seconds, as the timeout */
		useconds_t pause = 5000; /* a small pool is dumped in milliseconds: look soon, then less often */
		for (;;) {
			free(status);
			status = status_value(c);
			if (status && strstr(status, "completed") &&
			    ((before && strcmp(status, before)) || newer_than(path, &asked))) {
				done = newer_than(path, &asked);
				break;
			}
			if ((long long)(xb_clock_ns() / 1000000000u - t0) >= timeout || command_interrupted(NULL))
				break;
			usleep(pause);
			if (pause < 100 * 1000)
				pause *= 2;
		}
	}
	if (raised) {
		snprintf(sql, sizeof sql, "SET GLOBAL innodb_buffer_pool_dump_pct = %lld", atoll(old_pct));
		xb_error e2;
		if (xb_server_exec(&c->srv, sql, &e2))
			xb_warn("could not put innodb_buffer_pool_dump_pct back to %s: %s", old_pct, e2.msg);
	}
	bool no_priv = rc && privilege_error(e.msg);
	if (rc && !no_priv)
		xb_warn("no buffer-pool dump in this backup (the restored server starts cold): %s", e.msg);
	else if (!rc && !done)
		xb_warn("no buffer-pool dump in this backup (the restored server starts cold): the server did not "
			"finish it within --dump-innodb-buffer-pool-timeout=%lld s (status: %s)",
			timeout, status ? status : "unknown");
	free(before);
	free(status);
	free(old_pct);
	free(fname);
	if (no_priv)
		return store_last_dump(c, path, "the backup user may not ask for a fresh one (no SUPER)", err);
	if (rc || !done)
		return 0;
	size_t pages = 0;
	if ((rc = store(c, path, &pages, err)))
		return rc;
	xb_info("Buffer-pool dump stored in the backup as ib_buffer_pool: %zu pages (%.0f MiB to warm at restore)",
		pages, (double)pages * (c->lay.page_size ? c->lay.page_size : 16384) / 1048576.0);
	return 0;
}
