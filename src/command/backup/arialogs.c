/*
 * arialogs.c - the Aria control file and log files of a backup.
 *
 * All of it happens under BACKUP STAGE BLOCK_COMMIT, in this order:
 *  1. the server is asked which log files it still needs (SHOW ENGINE aria
 *     logs; engine-hooks/arialog.h reads the answer): the files before the
 *     first one its last checkpoint needs are "free", left on disk only with
 *     aria_log_purge_type=external, and no part of the backup (mariabackup
 *     --prepare drops them too). The needed files are opened at once, so a
 *     server that purges one later cannot take it from the backup.
 *  2. aria_log_control is copied: the checkpoint it names is the one of the
 *     answer or a later one, which needs the same files or fewer (the server
 *     forces the control file to disk after writing a checkpoint and only
 *     then lowers the first file it needs, so a file shown "free" is free for
 *     the checkpoint already on disk). It is
 *     copied before any Aria table, so no table copy predates its checkpoint.
 *  3. (backup.c copies the Aria tables.)
 *  4. the open log files are copied, then every file numbered after the last
 *     one copied that exists by then (a log switched to meanwhile), until
 *     there is none: the logs cover every change in the copied tables.
 * When the answer is unclear (a query error, no checkpoint yet) every log
 * file of the directory is kept.
 */
#include "backup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "arialog.h"
#include "common/log.h"
#include "common/path.h"
#include "platform/dir.h"

typedef struct aria_open_log {
	uint32_t no;   /* log file number */
	int fd;        /* open for reading, -1 once copied */
} aria_open_log;

struct aria_logs {
	uint32_t first;        /* first file number kept (0: all) */
	uint32_t last;         /* highest file number opened or copied */
	aria_open_log *v;      /* files opened at the question */
	size_t n, cap;         /* their count and capacity */
};

static int needed_row(void *ctx, unsigned ncols, char **names, char **values)
{
	const char *name = NULL, *status = NULL;
	for (unsigned i = 0; i < ncols; i++) {
		if (!strcasecmp(names[i], "Name"))
			name = values[i];
		else if (!strcasecmp(names[i], "Status"))
			status = values[i];
	}
	arialog_needed_row(ctx, name, status);
	return 0;
}

static int open_log(void *ctx, const xb_dirent *e, xb_error *err)
{
	struct aria_logs *a = ctx;
	uint32_t no = arialog_number(e->name);
	if (!no || no < a->first)
		return 0;
	int fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) /* a free file the server purged meanwhile: never needed */
			return 0;
		return xb_err_set(err, XB_E_IO_READ, "cannot open Aria log file %s: %s", e->path, strerror(errno));
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		aria_open_log *v = realloc(a->v, cap * sizeof *v);
		if (!v) {
			close(fd);
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = (aria_open_log){.no = no, .fd = fd};
	if (no > a->last)
		a->last = no;
	return 0;
}

static int by_number(const void *x, const void *y)
{
	const aria_open_log *a = x, *b = y;
	return a->no < b->no ? -1 : a->no > b->no;
}

int aria_logs_begin(backup_ctx *c, xb_error *err)
{
	struct aria_logs *a = calloc(1, sizeof *a);
	if (!a)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	c->aria = a;
	arialog_needed need = {0};
	xb_error qerr;
	xb_err_clear(&qerr);
	if (xb_server_rows(&c->srv, "SHOW ENGINE aria logs", needed_row, &need, &qerr)) {
		xb_warn("SHOW ENGINE aria logs failed (%s): every Aria log file in %s is copied", qerr.msg,
			c->lay.aria_log_dir);
	} else {
		a->first = arialog_first_needed(&need);
		if (a->first)
			xb_info("Aria log files the server still needs: from aria_log.%08u on (older ones are free)",
				(unsigned)a->first);
		else
			xb_info("The server names no free Aria log file: every Aria log file in %s is copied",
				c->lay.aria_log_dir);
	}
	int rc = xb_dir_each(c->lay.aria_log_dir, XB_DIR_MISSING_OK, open_log, a, err);
	if (rc)
		return rc;
	qsort(a->v, a->n, sizeof *a->v, by_number);
	char path[4096];
	if ((rc = xb_path_join(path, sizeof path, c->lay.aria_log_dir, "aria_log_control", err)))
		return rc;
	bfile control = {.src = path, .rel = "aria_log_control"};
	return copy_plain(c, &control, 0, err);
}

/* The path of log file number no in the Aria log directory; its name into name. */
static int log_path(const backup_ctx *c, uint32_t no, char *name, char *path, size_t n, xb_error *err)
{
	arialog_name(no, name);
	return xb_path_join(path, n, c->lay.aria_log_dir, name, err);
}

int aria_logs_finish(backup_ctx *c, xb_error *err)
{
	struct aria_logs *a = c->aria;
	if (!a)
		return 0;
	int rc = 0;
	char name[ARIALOG_NAME_SIZE], src[4096];
	for (size_t i = 0; i < a->n && !rc; i++) {
		int fd = a->v[i].fd;
		a->v[i].fd = -1;
		if ((rc = log_path(c, a->v[i].no, name, src, sizeof src, err))) {
			close(fd);
			break;
		}
		xb_info("Copying %s", src);
		rc = copy_fd(c, fd, src, name, err);
	}
	/* files the server switched to while the others were copied */
	while (!rc && a->last) {
		if ((rc = log_path(c, a->last + 1, name, src, sizeof src, err)))
			break;
		int fd = open(src, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT)
				rc = xb_err_set(err, XB_E_IO_READ, "cannot open Aria log file %s: %s", src, strerror(errno));
			break;
		}
		a->last++;
		xb_info("%s was started during the copy: copying it", src);
		rc = copy_fd(c, fd, src, name, err);
	}
	if (!rc)
		xb_info("Aria logs: %zu files copied up to aria_log.%08u", a->n, (unsigned)a->last);
	return rc;
}

void aria_logs_free(backup_ctx *c)
{
	struct aria_logs *a = c->aria;
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].fd >= 0)
			close(a->v[i].fd);
	free(a->v);
	free(a);
	c->aria = NULL;
}
