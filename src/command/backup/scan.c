/*
 * scan.c - find the files a backup copies.
 *
 * InnoDB: the files the inventory finds on the server
 * (engine-hooks/innodb/inventory.h): the system tablespace files, the undo
 * tablespaces and the tables of the datadir's database directories, a table
 * created with DATA DIRECTORY being copied into the database directory of
 * the backup like any other.
 * Other files: the table-definition and non-InnoDB table files of each
 * database directory, chosen by extension (engine-hooks/filerules.c); Aria
 * tables and the log tables (mysql.general_log, mysql.slow_log), which keep
 * changing until commits are blocked, are marked for copying under
 * BLOCK_COMMIT. An empty database directory gets an empty db.opt, so the
 * database is in the backup. The Aria control file and logs are chosen there, by arialogs.c. Binary and relay logs, the temporary
 * tablespace, pid and socket files are not part of a backup.
 */
#include "backup_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/tablefilter.h"
#include "info/metafile.h"
#include "filerules.h"
#include "innodb/inventory.h"
#include "common/path.h"

int scan_filter_open(backup_ctx *c, xb_error *err)
{
	int rc = tablefilter_create(&c->set.filter, &c->filter, err);
	if (rc)
		return rc;
	/* the server's ignore_db_dirs are no databases: left out as mariabackup does */
	char *dirs = NULL;
	xb_error ignore;
	if (xb_server_variable(&c->srv, "ignore_db_dirs", &dirs, &ignore))
		dirs = NULL;
	rc = tablefilter_ignore_dirs(c->filter, dirs, err);
	free(dirs);
	if (!rc && tablefilter_partial(c->filter))
		xb_info("Partial backup: only the databases and tables the filter options keep (--databases, "
			"--databases-file, --databases-exclude, --tables, --tables-file, --tables-exclude)");
	return rc;
}

/* inv_server's skip: a database directory (name NULL) or a file of one the filter leaves out. */
static bool scan_skip(void *ctx, const char *db, const char *name)
{
	backup_ctx *c = ctx;
	return name ? tablefilter_skip_file(c->filter, db, name) : tablefilter_skip_database(c->filter, db);
}

/* A file of size bytes (stat'ed by the caller) at the end of l. */
static int bfile_push(bfile_list *l, const char *src, const char *rel, int kind, uint64_t size, xb_error *err)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		bfile *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	bfile *f = &l->v[l->n];
	memset(f, 0, sizeof *f);
	f->src = strdup(src);
	f->rel = strdup(rel);
	f->kind = kind;
	f->space_id = UINT32_MAX;
	f->size = size;
	if (!f->src || !f->rel) {
		free(f->src);
		free(f->rel);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	l->n++;
	return 0;
}

int bfile_add(bfile_list *l, const char *src, const char *rel, int kind, xb_error *err)
{
	struct stat st;
	return bfile_push(l, src, rel, kind, stat(src, &st) == 0 ? (uint64_t)st.st_size : 0, err);
}

void bfile_list_free(bfile_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].src);
		free(l->v[i].rel);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

int read_space_id(const char *path, uint32_t *space_id)
{
	innodb_space_info si;
	if (inv_read_page0(path, &si, NULL))
		return -1;
	*space_id = si.space_id;
	return 0;
}

/* Database directories of the datadir. */
static int for_each_db(backup_ctx *c, int (*fn)(backup_ctx *, const char *db, const char *path, bfile_list *, xb_error *),
		       bfile_list *out, xb_error *err)
{
	DIR *d = opendir(c->lay.datadir);
	if (!d)
		return xb_err_set(err, XB_E_IO_READ, "cannot open datadir %s: %s", c->lay.datadir, strerror(errno)),
		       xb_err_hint(err, "run the backup as a user that can read the server's datadir (e.g. mysql or root)");
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		if (!inv_is_database_name(e->d_name) || tablefilter_skip_database(c->filter, e->d_name))
			continue;
		char path[4096];
		if ((rc = xb_path_join(path, sizeof path, c->lay.datadir, e->d_name, err)))
			break;
		struct stat st;
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		rc = fn(c, e->d_name, path, out, err);
	}
	closedir(d);
	return rc;
}

int scan_innodb(backup_ctx *c, bfile_list *out,
		bool (*known)(void *ctx, const char *rel, uint64_t dev, uint64_t ino, uint32_t *space_id), void *known_ctx,
		xb_error *err)
{
	inv_server srv = {.datadir = c->lay.datadir, .data_home_dir = c->lay.data_home_dir, .undo_dir = c->lay.undo_dir,
			  .log_dir = c->lay.log_dir, .data_file_path = c->lay.data_file_path, .page_size = c->lay.page_size,
			  .threads = c->set.parallel, .known = known, .known_ctx = known_ctx,
			  .skip = c->filter ? scan_skip : NULL, .skip_ctx = c};
	inventory inv;
	int rc = inv_scan_server(&srv, &inv, err);
	for (size_t i = 0; !rc && i < inv.n; i++) {
		const inv_file *f = &inv.v[i];
		if (f->kind == INV_REDO) /* followed and copied by the redo follower */
			continue;
		if ((rc = bfile_push(out, f->path, f->rel, BF_INNODB, f->size, err)))
			break;
		bfile *b = &out->v[out->n - 1];
		b->system_space = f->kind == INV_SYSTEM;
		b->first_page_no = (uint32_t)f->first_page;
		b->space_id = f->space_id;
		b->dev = f->dev;
		b->ino = f->ino;
	}
	inv_free(&inv);
	return rc;
}

static int db_other(backup_ctx *c, const char *db, const char *path, bfile_list *out, xb_error *err)
{
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	struct dirent *e;
	int rc = 0;
	bool empty = true;
	while (!rc && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
		int kind = filerule_classify(e->d_name);
		if ((kind == FR_ARIA || kind == FR_PLAIN) && !scan_skip(c, db, e->d_name)) {
			char src[4096], rel[4096];
			if ((rc = xb_path_join(src, sizeof src, path, e->d_name, err)) ||
			    (rc = xb_path_join(rel, sizeof rel, db, e->d_name, err)))
				break;
			/* the general and slow query log tables are written until commits are blocked */
			bool log_table = !strcmp(db, "mysql") &&
					 (!strncmp(e->d_name, "general_log.", 12) || !strncmp(e->d_name, "slow_log.", 9));
			rc = bfile_add(out, src, rel, kind == FR_ARIA || log_table ? BF_AT_COMMIT : BF_PLAIN, err);
		}
	}
	closedir(d);
	if (!rc && empty) {
		/* an empty database directory: an empty db.opt keeps it in the backup, as mariabackup does */
		char rel[4096];
		xb_text none = {0};
		if (!(rc = xb_path_join(rel, sizeof rel, db, "db.opt", err)))
			rc = xb_metafile_put(c->meta_sink, rel, &none, err);
	}
	return rc;
}

int scan_other(backup_ctx *c, bfile_list *out, xb_error *err)
{
	return for_each_db(c, db_other, out, err);
}
