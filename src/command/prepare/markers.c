/*
 * markers.c - carry out the DDL markers a backup leaves (doc/backup-directory.md §10).
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
#include "common/path.h"
#include "info/markers.h"
#include "innodb/inventory.h"
#include "platform/file.h"

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
		if (xb_path_join(p, sizeof p, dir, e->d_name, err)) {
			closedir(d);
			return err ? err->code : XB_E_USAGE;
		}
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
			if (xb_path_join(rel, sizeof rel, e->d_name, e2->d_name, NULL))
				continue; /* longer than any path the server makes: not one of its markers */
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

/* One marker to carry out: its name under dir, its path, the tablespace's. */
typedef struct marker {
	const char *dir;   /* the backup */
	const char *rel;   /* the marker, relative to dir */
	char path[4096];   /* the marker */
	char space[4096];  /* the tablespace file it stands for */
} marker;

/* Call op for every marker ending in ext (each counted in *n), until one fails. */
static int each_marker(const char *dir, const char *ext, int (*op)(const marker *m, xb_error *err), int *n,
		       xb_error *err)
{
	names l = {0};
	int rc = find(dir, ext, &l, err);
	for (size_t i = 0; i < l.n && !rc; i++) {
		marker m = {.dir = dir, .rel = l.v[i]};
		if (!(rc = xb_path_join(m.path, sizeof m.path, dir, m.rel, err)) &&
		    !(rc = inv_table_file_of(m.space, sizeof m.space, dir, m.rel, err)))
			rc = op(&m, err);
		(*n)++;
	}
	names_free(&l);
	return rc;
}

/* X.del: delete X.ibd, then the marker. */
static int do_del(const marker *m, xb_error *err)
{
	xb_info("Deleting %s (dropped or rebuilt during the backup)", m->space);
	int rc = gone(m->space, err);
	return rc ? rc : gone(m->path, err);
}

/* X.ren, step 1: every source to a temporary name (not counted again). */
static int do_ren_away(const marker *m, xb_error *err)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s%s", m->space, REN_TMP);
	if (rename(m->space, tmp) && errno != ENOENT)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s: %s", m->space, strerror(errno));
	return 0;
}

/* X.ren, step 2: the temporary names to the targets, then the marker. */
static int do_ren_to(const marker *m, xb_error *err)
{
	char tmp[4200], dst[4096];
	int rc = xb_marker_ren_read(m->dir, m->rel, dst, sizeof dst, err);
	if (rc)
		return rc;
	snprintf(tmp, sizeof tmp, "%s%s", m->space, REN_TMP);
	xb_info("Renaming %s to %s (renamed during the backup)", m->space, dst);
	if (rename(tmp, dst) && errno != ENOENT)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", tmp, dst, strerror(errno));
	return gone(m->path, err);
}

/* X.new: it becomes X.ibd. */
static int do_new(const marker *m, xb_error *err)
{
	xb_info("Renaming %s to %s", m->path, m->space);
	if (rename(m->path, m->space))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", m->path, m->space, strerror(errno));
	return 0;
}

int markers_apply(const char *dir, int *n, xb_error *err)
{
	*n = 0;
	int renames = 0;
	int rc = each_marker(dir, XB_MARKER_DEL, do_del, n, err);
	if (!rc)
		rc = each_marker(dir, XB_MARKER_REN, do_ren_away, &renames, err);
	if (!rc)
		rc = each_marker(dir, XB_MARKER_REN, do_ren_to, n, err);
	if (!rc)
		rc = each_marker(dir, XB_MARKER_NEW, do_new, n, err);
	if (!rc && *n) {
		(void)xb_dir_sync(dir);
	}
	return rc;
}
