/*
 * markers.c - carry out the DDL markers a backup leaves (spec 5.6).
 *
 * A backup copies datafiles while DDL runs; at the end it leaves markers
 * that bring the copy to the table set of the backup point:
 *   X.del  the copy X.ibd is stale (table dropped or rebuilt): delete it;
 *   X.ren  X.ibd was renamed; the marker holds the new name ("db/table");
 *   X.new  a fresh copy taken under BLOCK_DDL: it becomes X.ibd.
 * They are done in that order (deletes, renames, new copies), as mariabackup
 * does. Renames go through temporary names first, so that a swap of two
 * tables (a.ren -> b, b.ren -> a) does not overwrite one with the other.
 * Every marker is removed only after its operation, and every operation
 * tolerates having been done already: a prepare interrupted here can be run
 * again.
 */
#include "prepare_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "innodb/inventory.h"

#define REN_TMP ".xbren"

typedef struct names {
	char **v;
	size_t n;
} names;

static void names_free(names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int names_add(names *l, const char *s)
{
	char **v = realloc(l->v, (l->n + 1) * sizeof *v);
	if (!v)
		return -1;
	l->v = v;
	if (!(v[l->n] = strdup(s)))
		return -1;
	l->n++;
	return 0;
}

static bool has_ext(const char *n, const char *ext)
{
	size_t a = strlen(n), b = strlen(ext);
	return a > b && !strcmp(n + a - b, ext);
}

/* Paths (relative to dir) of files ending in ext, in dir and its subdirectories. */
static int find(const char *dir, const char *ext, names *out, xb_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return xb_err_set(err, XB_E_TARGET, "cannot read directory %s: %s", dir, strerror(errno));
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(p, &st))
			continue;
		if (S_ISREG(st.st_mode) && has_ext(e->d_name, ext)) {
			rc = names_add(out, e->d_name);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		DIR *d2 = opendir(p);
		struct dirent *e2;
		while (d2 && !rc && (e2 = readdir(d2))) {
			if (e2->d_name[0] == '.' || !has_ext(e2->d_name, ext))
				continue;
			char rel[4096];
			snprintf(rel, sizeof rel, "%s/%s", e->d_name, e2->d_name);
			rc = names_add(out, rel);
		}
		if (d2)
			closedir(d2);
	}
	closedir(d);
	return rc ? xb_err_set(err, XB_E_INTERNAL, "out of memory") : 0;
}

static int gone(const char *path, xb_error *err)
{
	if (unlink(path) && errno != ENOENT)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot delete %s: %s", path, strerror(errno));
	return 0;
}

static int do_dels(const char *dir, int *n, xb_error *err)
{
	names l = {0};
	int rc = find(dir, ".del", &l, err);
	for (size_t i = 0; i < l.n && !rc; i++) {
		char ibd[4096], marker[4096];
		if ((rc = inv_table_file_of(ibd, sizeof ibd, dir, l.v[i], err)))
			break;
		snprintf(marker, sizeof marker, "%s/%s", dir, l.v[i]);
		xb_info("Deleting %s (dropped or rebuilt during the backup)", ibd);
		rc = gone(ibd, err);
		if (!rc)
			rc = gone(marker, err);
		(*n)++;
	}
	names_free(&l);
	return rc;
}

/* The new name a .ren marker holds ("db/table"), as a path under dir. */
static int ren_target(const char *dir, const char *marker, char *out, size_t n, xb_error *err)
{
	char buf[1024];
	int fd = open(marker, O_RDONLY | O_CLOEXEC);
	ssize_t k = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (k <= 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot read the rename marker %s", marker);
	buf[k] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	if (!*buf || buf[0] == '/' || strstr(buf, ".."))
		return xb_err_set(err, XB_E_TARGET, "rename marker %s holds an unusable name \"%s\"", marker, buf);
	return inv_table_file(out, n, dir, buf, err);
}

static int do_rens(const char *dir, int *n, xb_error *err)
{
	names l = {0};
	int rc = find(dir, ".ren", &l, err);
	char src[4096], tmp[4200], dst[4096], marker[4096];
	for (size_t i = 0; i < l.n && !rc; i++) { /* step 1: every source to a temporary name */
		if ((rc = inv_table_file_of(src, sizeof src, dir, l.v[i], err)))
			break;
		snprintf(tmp, sizeof tmp, "%s%s", src, REN_TMP);
		if (rename(src, tmp) && errno != ENOENT)
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s: %s", src, strerror(errno));
	}
	for (size_t i = 0; i < l.n && !rc; i++) { /* step 2: temporary names to the targets */
		if ((rc = inv_table_file_of(src, sizeof src, dir, l.v[i], err)))
			break;
		snprintf(tmp, sizeof tmp, "%s%s", src, REN_TMP);
		snprintf(marker, sizeof marker, "%s/%s", dir, l.v[i]);
		rc = ren_target(dir, marker, dst, sizeof dst, err);
		if (rc)
			break;
		xb_info("Renaming %s to %s (renamed during the backup)", src, dst);
		if (rename(tmp, dst) && errno != ENOENT)
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", tmp, dst, strerror(errno));
		if (!rc)
			rc = gone(marker, err);
		(*n)++;
	}
	names_free(&l);
	return rc;
}

static int do_news(const char *dir, int *n, xb_error *err)
{
	names l = {0};
	int rc = find(dir, ".new", &l, err);
	for (size_t i = 0; i < l.n && !rc; i++) {
		char from[4096], to[4096];
		snprintf(from, sizeof from, "%s/%s", dir, l.v[i]);
		if ((rc = inv_table_file_of(to, sizeof to, dir, l.v[i], err)))
			break;
		xb_info("Renaming %s to %s", from, to);
		if (rename(from, to))
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", from, to, strerror(errno));
		(*n)++;
	}
	names_free(&l);
	return rc;
}

int markers_apply(const char *dir, int *n, xb_error *err)
{
	*n = 0;
	int rc = do_dels(dir, n, err);
	if (!rc)
		rc = do_rens(dir, n, err);
	if (!rc)
		rc = do_news(dir, n, err);
	if (!rc && *n) {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
	}
	return rc;
}
