/*
 * layout.c - where a restored file goes, and the checks made before the
 * first byte is written (see restore_int.h).
 *
 * The server's directories come from the option files (the [mysqld] family
 * of groups) or the command line; relative ones are taken from the datadir,
 * as the server takes them. Each file of the backup is then placed by kind,
 * the way the server looks for it: undoNNN in innodb_undo_directory,
 * ib_logfile0 in innodb_log_group_home_dir, the system tablespace files of
 * innodb_data_file_path in innodb_data_home_dir, aria_log* in
 * aria_log_dir_path, a tablespace with a .isl file where that file points
 * (DATA DIRECTORY), everything else at the same relative path under the
 * datadir. The backup's own metadata (xtrabackup_checkpoints,
 * xtrabackup_binlog_info, backup-my.cnf: info/metafile.h says which) stays
 * behind, as with mariabackup; the buffer-pool dump is set aside for
 * restore.c, which sorts it and puts it where the server loads it from.
 */
#include "restore_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/path.h"
#include "info/backup_cnf.h"
#include "info/metafile.h"
#include "innodb/bpdump.h"
#include "innodb/inventory.h"

/* ---- paths */

static int absolute(const char *base, const char *path, char *out, size_t n, const char *what, xb_error *err)
{
	if (xb_path_resolve(out, n, base, path, NULL))
		return xb_err_set(err, XB_E_USAGE, "%s is too long: %s", what, path);
	return 0;
}

/* A directory setting: unset or empty means the datadir. */
static int dir_opt(const char *v, const char *datadir, char *out, const char *what, xb_error *err)
{
	return absolute(datadir, v && *v ? v : ".", out, PATH_MAX, what, err);
}

/* Names of the system tablespace files in an innodb_data_file_path value
 * (one the server would not take places nothing: a warning). */
static void add_sys_names(restore_layout *l, const char *spec)
{
	if (!spec || !*spec)
		return;
	inv_dfp d;
	xb_error e;
	if (inv_dfp_parse(spec, 0, &d, &e)) {
		xb_warn("%s: ignored", e.msg);
		return;
	}
	for (int k = 0; k < d.n && l->n_sys < 64; k++) {
		char *name = strdup(d.part[k].name);
		bool dup = false;
		for (int i = 0; name && i < l->n_sys; i++)
			dup |= !strcmp(l->sys_names[i], name);
		char **nv = dup || !name ? NULL : realloc(l->sys_names, sizeof *nv * (size_t)(l->n_sys + 1));
		if (nv) {
			nv[l->n_sys++] = name;
			l->sys_names = nv;
		} else {
			free(name);
		}
	}
	inv_dfp_free(&d);
}

/* innodb_data_file_path as the backup recorded it in backup-my.cnf (one
 * that cannot be read counts as absent). */
static void backup_sys_names(restore_layout *l, const char *backup_dir)
{
	xb_backup_cnf cnf;
	if (!xb_backup_cnf_read(backup_dir, &cnf, NULL) && (cnf.have & XB_CNF_DATA_FILE_PATH))
		add_sys_names(l, cnf.data_file_path);
}

int layout_resolve(const restore_settings *s, const char *backup_dir, restore_layout *l, xb_error *err)
{
	memset(l, 0, sizeof *l);
	const char *dd = s->datadir;
	if (!dd || !*dd) {
		xb_err_set(err, XB_E_USAGE, "no datadir to restore into: neither --datadir nor datadir in the server's "
					    "option files");
		return xb_err_hint(err, "give --datadir=DIR, or --defaults-file=FILE naming the restored server's "
					"my.cnf (its [mysqld] datadir)");
	}
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		return xb_err_set(err, XB_E_USAGE, "cannot get the current directory: %s", strerror(errno));
	int rc;
	if ((rc = absolute(cwd, dd, l->datadir, sizeof l->datadir, "--datadir", err)) ||
	    (rc = dir_opt(s->undo_dir, l->datadir, l->undo_dir, "innodb_undo_directory", err)) ||
	    (rc = dir_opt(s->log_dir, l->datadir, l->log_dir, "innodb_log_group_home_dir", err)) ||
	    (rc = dir_opt(s->aria_log_dir, l->datadir, l->aria_log_dir, "aria_log_dir_path", err)) ||
	    (rc = dir_opt(s->data_home_dir, l->datadir, l->data_home, "innodb_data_home_dir", err)))
		return rc;
	/* the server looks for its dump in innodb_data_home_dir (the datadir when unset or empty) */
	const char *bp = s->bp_filename;
	if (xb_path_join(l->bp_file, sizeof l->bp_file, l->data_home, bp && *bp ? bp : BP_TEXT_NAME, NULL))
		return xb_err_set(err, XB_E_USAGE, "innodb_buffer_pool_filename is too long: %s", bp);
	add_sys_names(l, s->data_file_path);
	backup_sys_names(l, backup_dir);
	if (l->n_sys == 0)
		add_sys_names(l, INV_DATA_FILE_PATH_DEFAULT);
	return 0;
}

void layout_free(restore_layout *l)
{
	for (int i = 0; i < l->n_sys; i++)
		free(l->sys_names[i]);
	free(l->sys_names);
	l->sys_names = NULL;
	l->n_sys = 0;
}

/* ---- the plan */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* Files of the backup that are not restored. */
static bool skipped(const char *name, bool top)
{
	static const char *const suffixes[] = {".qp", ".pmap", ".tmp", ".xbtmp", NULL};
	if (top && xb_metafile_stays_behind(name))
		return true;
	for (int i = 0; suffixes[i]; i++)
		if (ends_with(name, suffixes[i]))
			return true;
	return false;
}

static int add(rplan *p, const char *src, const char *rel, const char *dst, uint64_t size, int kind, xb_error *err)
{
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		rfile *nv = realloc(p->v, nc * sizeof *nv);
		if (!nv)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		p->v = nv;
		p->cap = nc;
	}
	rfile *f = &p->v[p->n];
	memset(f, 0, sizeof *f);
	f->src = strdup(src);
	f->rel = strdup(rel);
	f->dst = strdup(dst);
	if (!f->src || !f->rel || !f->dst) {
		free(f->src);
		free(f->rel);
		free(f->dst);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	f->size = size;
	f->kind = kind;
	p->n++;
	p->bytes += kind == RF_FILE ? size : 0;
	return 0;
}

static int place_top(const restore_layout *l, const char *name, char *dst, size_t n)
{
	const char *dir = l->datadir;
	if (inv_is_undo_name(name))
		dir = l->undo_dir;
	else if (inv_is_redo_name(name))
		dir = l->log_dir;
	else if (!strncmp(name, "aria_log", 8))
		dir = l->aria_log_dir;
	for (int i = 0; i < l->n_sys; i++) {
		const char *s = l->sys_names[i];
		if (!strcmp(xb_path_base(s), name)) /* innodb_data_home_dir="" with absolute paths: the path itself */
			return (s[0] == '/' ? xb_path_resolve(dst, n, "/", s, NULL) : xb_path_join(dst, n, l->data_home, s, NULL))
				       ? -1
				       : 0;
	}
	return xb_path_join(dst, n, dir, name, NULL) ? -1 : 0;
}

static int walk(const char *root, const char *rel, const restore_layout *l, rplan *p, xb_error *err)
{
	char dpath[PATH_MAX];
	snprintf(dpath, sizeof dpath, "%s%s%s", root, *rel ? "/" : "", rel);
	DIR *d = opendir(dpath);
	if (!d)
		return xb_err_set(err, XB_E_IO_READ, "cannot list %s: %s", dpath, strerror(errno));
	struct dirent *e;
	int rc = 0, entries = 0;
	bool top = !*rel;
	while (!rc && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		entries++;
		char srel[PATH_MAX], src[PATH_MAX * 2], dst[PATH_MAX * 2];
		snprintf(srel, sizeof srel, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if ((rc = xb_path_join(src, sizeof src, root, srel, err)))
			break;
		struct stat st;
		if (lstat(src, &st)) {
			rc = xb_err_set(err, XB_E_IO_READ, "cannot stat %s: %s", src, strerror(errno));
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			rc = walk(root, srel, l, p, err);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			xb_warn("%s is not a regular file: not restored", src);
			continue;
		}
		if (skipped(e->d_name, top))
			continue;
		if (top && (!strcmp(e->d_name, BP_TEXT_NAME) || !strcmp(e->d_name, BP_LRU_NAME))) {
			/* the server's copy is sorted and placed by restore.c; a backup with both
			 * (an old one that was prepared) uses ib_buffer_pool */
			char **slot = !strcmp(e->d_name, BP_TEXT_NAME) || !p->dump ? &p->dump : &p->dump_other;
			if (slot == &p->dump && p->dump) {
				free(p->dump_other);
				p->dump_other = p->dump;
			}
			*slot = strdup(src);
			continue;
		}
		int k;
		if (top) {
			k = place_top(l, e->d_name, dst, sizeof dst);
		} else if (inv_is_table_file(e->d_name)) {
			char isl[PATH_MAX * 2];
			if ((rc = inv_link_file_of(isl, sizeof isl, NULL, src, err)))
				break;
			if (access(isl, F_OK) == 0) {
				if ((rc = inv_link_target(isl, dst, sizeof dst, err))) /* DATA DIRECTORY */
					break;
				k = 0;
			} else {
				k = xb_path_join(dst, sizeof dst, l->datadir, srel, NULL) ? -1 : 0;
			}
		} else {
			k = xb_path_join(dst, sizeof dst, l->datadir, srel, NULL) ? -1 : 0;
		}
		if (k) {
			rc = xb_err_set(err, XB_E_USAGE, "destination path too long for %s", srel);
			break;
		}
		rc = add(p, src, srel, dst, (uint64_t)st.st_size, RF_FILE, err);
	}
	closedir(d);
	if (!rc && entries == 0 && *rel) {
		char dst[PATH_MAX * 2];
		if (!(rc = xb_path_join(dst, sizeof dst, l->datadir, rel, err)))
			rc = add(p, dpath, rel, dst, 0, RF_DIR, err);
	}
	return rc;
}

static int by_size_desc(const void *a, const void *b)
{
	const rfile *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind == RF_DIR ? -1 : 1; /* directories first */
	return x->size < y->size ? 1 : x->size > y->size ? -1 : strcmp(x->rel, y->rel);
}

int plan_build(const char *backup_dir, const restore_layout *l, rplan *p, xb_error *err)
{
	memset(p, 0, sizeof *p);
	int rc = walk(backup_dir, "", l, p, err);
	if (rc)
		return rc;
	if (p->n > 1)
		qsort(p->v, p->n, sizeof *p->v, by_size_desc);
	return 0;
}

void plan_free(rplan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].src);
		free(p->v[i].rel);
		free(p->v[i].dst);
	}
	free(p->v);
	free(p->dump);
	free(p->dump_other);
	memset(p, 0, sizeof *p);
}

/* ---- checks */

/* First entry of a directory other than ., .. and skip (may be ""), or NULL
 * (absent, or nothing else in it). */
static const char *first_entry(const char *dir, const char *skip, char *buf, size_t n)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	struct dirent *e;
	const char *found = NULL;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, skip)) {
			snprintf(buf, n, "%s", e->d_name);
			found = buf;
			break;
		}
	closedir(d);
	return found;
}

/* True if path is dir or below it (both absolute, no trailing slash). */
static bool inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == 0 || path[n] == '/' || n == 1);
}

enum { N_DEST_DIRS = 5 };

/* Where the backup is, seen from one destination directory. */
typedef struct backup_in {
	char path[PATH_MAX * 2]; /* the backup's path under the directory as the layout spells it, "" when not below it */
	char entry[256];         /* the directory's entry that holds the backup ("" when not below it) */
} backup_in;

/* The backup and the destination directories: a destination inside the
 * backup (or the same directory) is refused; the backup may sit below a
 * destination (Galera's joiner receives it in $datadir/.sst and moves it into
 * the datadir itself): then in[i] says where, so that the emptiness check
 * leaves it out and no file is planned into the backup. */
static int locate_backup(const char *const *dirs, const char *backup_dir, backup_in *in, xb_error *err)
{
	char real[PATH_MAX];
	memset(in, 0, N_DEST_DIRS * sizeof *in);
	if (!realpath(backup_dir, real))
		return 0;
	for (size_t i = 0; i < N_DEST_DIRS; i++) {
		char rd[PATH_MAX];
		const char *d = realpath(dirs[i], rd) ? rd : dirs[i];
		if (inside(d, real)) {
			xb_err_set(err, XB_E_TARGET, "the backup %s and the destination %s overlap: nothing was restored",
				   real, dirs[i]);
			return xb_err_hint(err, "keep the backup outside the server's directories, or in a directory of "
						"its own below one of them");
		}
		if (!inside(real, d))
			continue;
		const char *below = real + strlen(d) + (strcmp(d, "/") ? 1 : 0); /* "x/y" of d/x/y */
		size_t first = strcspn(below, "/");
		if (first >= sizeof in[i].entry ||
		    xb_path_join(in[i].path, sizeof in[i].path, dirs[i], below, err))
			return xb_err_set(err, XB_E_USAGE, "backup path too long: %s", real);
		memcpy(in[i].entry, below, first);
		in[i].entry[first] = '\0';
	}
	return 0;
}

int plan_check(const rplan *p, const restore_layout *l, const char *backup_dir, bool force, xb_error *err)
{
	char name[256];
	const char *dirs[N_DEST_DIRS] = {l->datadir, l->data_home, l->undo_dir, l->log_dir, l->aria_log_dir};
	backup_in in[N_DEST_DIRS];
	int rc = locate_backup(dirs, backup_dir, in, err);
	if (rc)
		return rc;
	for (size_t k = 0; k < p->n; k++)
		for (size_t i = 0; i < N_DEST_DIRS; i++)
			if (in[i].path[0] && inside(p->v[k].dst, in[i].path)) {
				xb_err_set(err, XB_E_TARGET, "%s of the backup would be restored into the backup itself "
					   "(%s): nothing was restored", p->v[k].rel, p->v[k].dst);
				return xb_err_hint(err, "keep the backup outside the server's directories");
			}
	if (in[0].entry[0])
		xb_info("The backup is in %s, below the datadir: %s is left out of the datadir's checks",
			in[0].path, in[0].entry);
	if (!force && first_entry(l->datadir, in[0].entry, name, sizeof name)) {
		xb_err_set(err, XB_E_TARGET, "the datadir %s is not empty (it holds '%s'): nothing was restored",
			   l->datadir, name);
		return xb_err_hint(err, "restore into an empty directory, or add --force-non-empty-directories "
					"(files that exist are never overwritten)");
	}
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		struct stat st;
		if (stat(dirs[i], &st) == 0 && !S_ISDIR(st.st_mode))
			return xb_err_set(err, XB_E_TARGET, "%s is not a directory: nothing was restored", dirs[i]);
	}
	size_t exist = 0;
	const char *first = NULL;
	for (size_t i = 0; i < p->n; i++) {
		struct stat st;
		if (p->v[i].kind == RF_FILE && lstat(p->v[i].dst, &st) == 0) {
			if (!exist)
				first = p->v[i].dst;
			exist++;
		}
	}
	if (exist) {
		xb_err_set(err, XB_E_TARGET,
			   "%zu file%s of the backup already exist%s in the destination (first: %s): nothing was restored",
			   exist, exist == 1 ? "" : "s", exist == 1 ? "s" : "", first);
		return xb_err_hint(err, "an existing file is never overwritten: move it away, or restore into "
					"empty directories");
	}
	return 0;
}
