/*
 * restore_tables.c - --restore-tables: single tables of an exported backup
 * put back into the running server on this host (README, "Restoring single
 * tables"). MyISAM and Aria tables the server lacks get their files put in place
 * (an Aria one zerofilled by REPAIR TABLE).
 *
 * Everything is checked before anything changes: the list (tablelist.h),
 * the backup (prepared: backup_type = log-applied; exported: its
 * xtrabackup_tabledefs.pmap, with the .ibd and .cfg of every table or
 * partition asked for), the server (on this host, its datadir writable by
 * us), the user's privileges on each target, and each target that exists
 * already: its live SHOW CREATE TABLE must equal the backup's definition but
 * for AUTO_INCREMENT=N, or the run is refused naming the first differing
 * line (--rename restores the table beside it). Then the tables are restored
 * one after the other (import.c) in one session with foreign_key_checks off
 * and lock_wait_timeout set to --lock-wait-timeout, so a statement waiting
 * on another session's metadata lock ends instead of hanging; the first
 * failure stops the run. The foreign keys of the restored tables are checked
 * afterwards (fkcheck.c), and one summary line per table says restored or
 * not, and why.
 */
#include "restore_tables_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/command.h"
#include "common/log.h"
#include "common/path.h"
#include "createstmt.h"
#include "info/checkpoints.h"
#include "info/tabledefs.h"
#include "place.h"
#include "platform/dir.h"

int rt_exec(rt_ctx *c, xb_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = NULL;
	int k = vasprintf(&sql, fmt, ap);
	va_end(ap);
	if (k < 0)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	const char *nl = strchr(sql, '\n');
	if (nl)
		xb_info("executing %.*s ...", (int)(nl - sql), sql);
	else
		xb_info("executing %s", sql);
	int rc = xb_server_exec(&c->srv, sql, err);
	free(sql);
	return rc;
}

/* The server's file name of an SQL name (its filename encoding: my-db is my@002ddb). */
static int fs_name(rt_ctx *c, const char *name, char *out, size_t n, xb_error *err)
{
	char lit[2 * RT_NAME_MAX + 40], sql[2 * RT_NAME_MAX + 120];
	if (!xb_server_literal(name, lit, sizeof lit))
		return xb_err_set(err, XB_E_USAGE, "name too long: %s", name);
	snprintf(sql, sizeof sql, "SELECT CAST(CONVERT(%s USING filename) AS BINARY)", lit);
	char *v = NULL;
	int rc = xb_server_value(&c->srv, sql, &v, err);
	if (rc)
		return rc;
	if (!v || strlen(v) >= n) {
		free(v);
		return xb_err_set(err, XB_E_USAGE, "the server has no file name for '%s'", name);
	}
	strcpy(out, v);
	free(v);
	return 0;
}

/* The backup must be prepared and exported. */
static int check_backup(const char *dir, xb_tabledefs *defs, xb_error *err)
{
	xb_checkpoints cp;
	int rc = xb_checkpoints_read(dir, &cp, err);
	if (rc)
		return rc;
	if (strcmp(cp.backup_type, "log-applied"))
		return xb_err_set(err, XB_E_NOT_PREPARED, "the backup %s is not prepared (backup_type = %s in %s)", dir,
				  cp.backup_type, XB_CHECKPOINTS_FILE),
		       xb_err_hint(err, "run xtrabackup --prepare --export --target-dir=%s first", dir);
	rc = xb_tabledefs_read(dir, defs, err);
	if (rc == XB_E_MISSING_FILE)
		return xb_err_set(err, XB_E_MISSING_FILE, "the backup %s is not exported: it has no %s, so its tables cannot "
				  "be imported", dir, XB_TABLEDEFS_FILE),
		       xb_err_hint(err, "run xtrabackup --prepare --export --target-dir=%s first", dir);
	if (!rc)
		xb_tabledefs_sort(defs);
	return rc;
}

/* Whether the file dir/name exists. */
static bool file_exists(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;
	xb_error ignore;
	return !xb_path_join(p, sizeof p, dir, name, &ignore) && !stat(p, &st);
}

/* Collecting a partitioned table's partitions from the backup's database directory. */
typedef struct part_scan {
	rt_item *it;        /* the table */
	const char *dir;    /* the backup's database directory */
	bool sub;           /* a subpartition was found */
} part_scan;

static int part_entry(void *ctx, const xb_dirent *e, xb_error *err)
{
	part_scan *ps = ctx;
	size_t fl = strlen(ps->it->fname);
	if (strncmp(e->name, ps->it->fname, fl) || strncasecmp(e->name + fl, "#P#", 3) ||
	    !xb_path_has_suffix(e->name, ".ibd"))
		return 0;
	const char *p = e->name + fl + 3;
	size_t len = strlen(p) - 4;
	char part[RT_FS_MAX];
	if (len == 0 || len >= sizeof part)
		return 0;
	memcpy(part, p, len);
	part[len] = '\0';
	if (strcasestr(part, "#SP#")) {
		ps->sub = true;
		return 0;
	}
	char **v = realloc(ps->it->parts, (ps->it->nparts + 1) * sizeof *v);
	if (!v || !(v[ps->it->nparts] = strdup(part))) {
		if (v)
			ps->it->parts = v;
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	ps->it->parts = v;
	ps->it->nparts++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The backup's files of a table: .ibd and .cfg, of each partition for a partitioned one. */
static int backup_files(rt_ctx *c, rt_item *it, xb_error *err)
{
	char dir[PATH_MAX], name[2 * RT_FS_MAX + 16];
	int rc = xb_path_join(dir, sizeof dir, c->set->dir, it->fdb, err);
	if (rc)
		return rc;
	const char *hint = "the backup was not prepared with --export, or the table is not an InnoDB table of its own "
			   "tablespace (file-per-table)";
	if (!it->partitioned) {
		for (int i = 0; i < 2; i++) {
			snprintf(name, sizeof name, "%s%s", it->fname, i ? ".cfg" : ".ibd");
			if (!file_exists(dir, name))
				return xb_err_set(err, XB_E_MISSING_FILE, "%s.%s: the backup has no %s/%s", it->t->db,
						  it->t->name, dir, name),
				       xb_err_hint(err, "%s", hint);
		}
		return 0;
	}
	part_scan ps = {.it = it, .dir = dir};
	if ((rc = xb_dir_each(dir, 0, part_entry, &ps, err)))
		return rc;
	if (ps.sub)
		return xb_err_set(err, XB_E_USAGE, "%s.%s is subpartitioned: --restore-tables cannot exchange "
				  "subpartitions", it->t->db, it->t->name),
		       xb_err_hint(err, "import each subpartition into a table of its own by hand (DISCARD/IMPORT TABLESPACE)");
	if (!it->nparts)
		return xb_err_set(err, XB_E_MISSING_FILE, "%s.%s: the backup has no %s/%s#P#*.ibd", it->t->db, it->t->name,
				  dir, it->fname),
		       xb_err_hint(err, "%s", hint);
	qsort(it->parts, it->nparts, sizeof *it->parts, cmp_str);
	for (size_t k = 0; k < it->nparts; k++) {
		if (strchr(it->parts[k], '@'))
			return xb_err_set(err, XB_E_USAGE, "%s.%s: partition %s has a name outside [A-Za-z0-9_], which "
					  "--restore-tables does not decode", it->t->db, it->t->name, it->parts[k]);
		snprintf(name, sizeof name, "%s#P#%s.cfg", it->fname, it->parts[k]);
		if (!file_exists(dir, name))
			return xb_err_set(err, XB_E_MISSING_FILE, "%s.%s: the backup has no %s/%s", it->t->db,
					  it->t->name, dir, name),
			       xb_err_hint(err, "%s", hint);
	}
	return 0;
}

/* "1" when the query's first value is a count above 0. */
static int exists(rt_ctx *c, const char *sql, bool *yes, xb_error *err)
{
	char *v = NULL;
	int rc = xb_server_value(&c->srv, sql, &v, err);
	*yes = !rc && v && strtoull(v, NULL, 10) > 0;
	free(v);
	return rc;
}

static int second_value(void *ctx, unsigned n, char **names, char **values)
{
	char **out = ctx;
	if (n >= 2 && values[1] && !*out)
		*out = strdup(values[1]);
	return 0;
}

/* A target the server has already: the same definition, or refused. */
static int compare_live(rt_ctx *c, rt_item *it, xb_error *err)
{
	char sql[RT_Q_MAX + 32], *live = NULL, *want = NULL;
	snprintf(sql, sizeof sql, "SHOW CREATE TABLE %s", it->qto);
	int rc = xb_server_rows(&c->srv, sql, second_value, &live, err);
	if (!rc && !live)
		rc = xb_err_set(err, XB_E_QUERY, "SHOW CREATE TABLE %s gave no definition", it->qto);
	if (!rc)
		rc = createstmt_target(it->def, NULL, it->t->renamed, &want, err);
	if (!rc) {
		int line = 0;
		char a[1024], b[1024];
		if (!createstmt_same(live, want, &line, a, b, sizeof a)) {
			rc = xb_err_set(err, XB_E_SERVER_STATE, "%s differs from the backup's definition of %s.%s at line %d: "
					"live '%s', backup '%s'; it is not restored over", it->qto, it->t->db, it->t->name,
					line, a, b);
			xb_err_hint(err, "restore it beside the live table with --rename=%s.%s:%s.%s_restored, compare, "
				    "and copy the rows you need", it->t->db, it->t->name, it->t->to_db, it->t->to_name);
		}
	}
	free(live);
	free(want);
	return rc;
}

/* A DATA DIRECTORY table's directory for its .ibd: DATA DIRECTORY/db of the
 * backup's definition (which a live target shares); it must be writable by
 * us. "" for a table in the datadir. */
static int remote_dir(rt_ctx *c, rt_item *it, xb_error *err)
{
	it->remote[0] = 0;
	/* a live table has the backup's definition (compare_live), DATA DIRECTORY included */
	const char *p = strstr(it->def, "DATA DIRECTORY='");
	if (p) {
		p += strlen("DATA DIRECTORY='");
		const char *e = strchr(p, '\'');
		if (!e || e == p || (size_t)(e - p) + strlen(it->to_fdb) + 2 >= sizeof it->remote)
			return xb_err_set(err, XB_E_USAGE, "%s.%s: its DATA DIRECTORY cannot be read from the backup's "
					  "definition", it->t->db, it->t->name);
		snprintf(it->remote, sizeof it->remote, "%.*s%s%s", (int)(e - p), p, e[-1] == '/' ? "" : "/", it->to_fdb);
	}
	if (!it->remote[0])
		return 0;
	/* a table to be created gets its directory from the server: its parent must be writable then */
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", it->remote);
	const char *check = it->remote;
	if (!it->exists && !place_dir_writable(it->remote)) {
		*strrchr(parent, '/') = 0;
		check = parent;
	}
	if (!place_dir_writable(check))
		return xb_err_set(err, XB_E_TARGET, "%s.%s is a DATA DIRECTORY table whose files go into %s, which this "
				  "process cannot write", it->t->db, it->t->name, it->remote),
		       xb_err_hint(err, "run --restore-tables as the server's user (or root) on the server's host");
	xb_info("%s.%s: DATA DIRECTORY table, its .ibd goes into %s", it->t->db, it->t->name, it->remote);
	return 0;
}

/* The target's database must exist; it->exists: the server has the target table. */
static int target_state(rt_ctx *c, rt_item *it, xb_error *err)
{
	const rt_table *t = it->t;
	char ld[600], lt[600], sql[1500];
	if (!xb_server_literal(t->to_db, ld, sizeof ld) || !xb_server_literal(t->to_name, lt, sizeof lt))
		return xb_err_set(err, XB_E_USAGE, "name too long: %s.%s", t->to_db, t->to_name);
	bool db_there = false;
	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s", ld);
	int rc = exists(c, sql, &db_there, err);
	if (rc)
		return rc;
	if (!db_there)
		return xb_err_set(err, XB_E_SERVER_STATE, "the server has no database `%s` to restore %s.%s into", t->to_db,
				  t->db, t->name),
		       xb_err_hint(err, "create it first: CREATE DATABASE `%s`", t->to_db);
	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s",
		 ld, lt);
	return exists(c, sql, &it->exists, err);
}

static const char *engine_name(const rt_item *it)
{
	return strcmp(it->engine_files[1], ".MYD") ? "Aria" : "MyISAM";
}

/* A table of the backup without a tablespace: a MyISAM or Aria table has
 * its files (.frm, data, index), which the server opens as they are once
 * they are in its database directory; put back only where the server lacks
 * the table (replacing the files of an open one is not safe). */
static int resolve_engine_files(rt_ctx *c, rt_item *it, const char *path, xb_error *err)
{
	static const char *const myisam[] = {".frm", ".MYD", ".MYI", NULL};
	static const char *const aria[] = {".frm", ".MAD", ".MAI", NULL};
	static const char *const *const engines[] = {myisam, aria};
	const rt_table *t = it->t;
	char dir[PATH_MAX];
	int rc = xb_path_join(dir, sizeof dir, c->set->dir, it->fdb, err);
	if (rc)
		return rc;
	for (size_t e = 0; e < 2 && !it->engine_files; e++) {
		bool all = true;
		for (const char *const *x = engines[e]; *x && all; x++) {
			char name[2 * RT_FS_MAX + 8];
			snprintf(name, sizeof name, "%s%s", it->fname, *x);
			all = file_exists(dir, name);
		}
		if (all)
			it->engine_files = engines[e];
	}
	if (!it->engine_files)
		return xb_err_set(err, XB_E_MISSING_FILE, "table %s.%s is not in the backup %s (%s has no %s, and %s has "
				  "no MyISAM or Aria files of it)", t->db, t->name, c->set->dir, XB_TABLEDEFS_FILE, path, dir),
		       xb_err_hint(err, "name the tables as the backed-up server named them");
	if ((rc = target_state(c, it, err)))
		return rc;
	if (it->exists)
		return xb_err_set(err, XB_E_USAGE, "%s.%s is a %s table the server has: --restore-tables puts one back only "
				  "where the server lacks it (its files cannot be replaced while it may be open)", t->to_db,
				  t->to_name, engine_name(it)),
		       xb_err_hint(err, "restore it beside the live one: --rename=%s.%s:%s.%s_restored", t->db, t->name,
				   t->to_db, t->to_name);
	rt_qualified(t->to_db, t->to_name, it->qto, sizeof it->qto);
	xb_info("%s.%s: %s table, its files in the backup; the server lacks it: they are put in its database directory",
		t->db, t->name, engine_name(it));
	return 0;
}

/* Everything about one table that can be known before anything changes. */
static int resolve_item(rt_ctx *c, const xb_tabledefs *defs, rt_item *it, xb_error *err)
{
	const rt_table *t = it->t;
	int rc;
	if ((rc = fs_name(c, t->db, it->fdb, sizeof it->fdb, err)) ||
	    (rc = fs_name(c, t->name, it->fname, sizeof it->fname, err)) ||
	    (rc = fs_name(c, t->to_db, it->to_fdb, sizeof it->to_fdb, err)) ||
	    (rc = fs_name(c, t->to_name, it->to_fname, sizeof it->to_fname, err)))
		return rc;
	rt_qualified(t->to_db, t->to_name, it->qto, sizeof it->qto);
	char path[2 * RT_FS_MAX + 2];
	snprintf(path, sizeof path, "%s/%s", it->fdb, it->fname);
	const xb_tabledef *d = xb_tabledefs_find(defs, path);
	if (!d)
		return resolve_engine_files(c, it, path, err);
	it->def = d->sql;
	it->partitioned = createstmt_has(it->def, "PARTITION BY ");
	if (it->partitioned && createstmt_has(it->def, "DATA DIRECTORY="))
		return xb_err_set(err, XB_E_USAGE, "%s.%s is partitioned with a DATA DIRECTORY: --restore-tables does not "
				  "place partitions outside the datadir", t->db, t->name),
		       xb_err_hint(err, "restore it by hand (doc/export.md §6): each partition through a plain table and "
				   "ALTER TABLE ... EXCHANGE PARTITION");
	if ((rc = backup_files(c, it, err)))
		return rc;
	if ((rc = target_state(c, it, err)))
		return rc;
	char q[RT_Q_MAX];
	rt_qualified(t->to_db, t->to_name, q, sizeof q);
	if ((rc = createstmt_target(it->def, q, t->renamed, &it->create, err)))
		return rc;
	if (it->exists && (rc = compare_live(c, it, err)))
		return rc;
	if (!it->partitioned && (rc = remote_dir(c, it, err)))
		return rc;
	xb_info("%s.%s: %s%s, %s in the backup; the server %s", t->db, t->name, it->partitioned ? "partitioned, " : "",
		t->renamed ? "restored under another name" : "restored under its name",
		it->partitioned ? "one tablespace per partition" : "one tablespace",
		it->exists ? "has the table with the same definition: its rows are replaced" : "lacks it: it is created");
	return 0;
}

/* The minimum: ALTER (DISCARD/IMPORT), SELECT (CHECK TABLE, the row count);
 * CREATE and DROP for a table created (and dropped again after a failure);
 * CREATE, DROP and INSERT for a partitioned one (the work tables, EXCHANGE PARTITION). */
static int check_privileges(rt_ctx *c, const rt_item *it, xb_error *err)
{
	const char *need[5];
	int n = 0;
	if (it->engine_files) { /* files put in place: a table created, (Aria) repaired, checked */
		need[n++] = "CREATE";
		need[n++] = "SELECT";
		if (!strcmp(it->engine_files[1], ".MAD"))
			need[n++] = "INSERT";
		return xb_server_check_table_privileges(&c->srv, it->t->to_db, it->t->to_name, need, n, "restore tables",
							err);
	}
	need[n++] = "ALTER";
	need[n++] = "SELECT";
	if (!it->exists || it->partitioned) {
		need[n++] = "CREATE";
		need[n++] = "DROP";
	}
	if (it->partitioned)
		need[n++] = "INSERT";
	return xb_server_check_table_privileges(&c->srv, it->t->to_db, it->t->to_name, need, n, "restore tables", err);
}

/* The server must be on this host and its datadir writable here. */
static int check_datadir(rt_ctx *c, xb_error *err)
{
	char *dd = NULL, *host = NULL, here[256] = "";
	int rc = xb_server_variable(&c->srv, "datadir", &dd, err);
	if (!rc)
		rc = xb_server_variable(&c->srv, "hostname", &host, err);
	if (!rc && (!dd || strlen(dd) >= sizeof c->datadir))
		rc = xb_err_set(err, XB_E_SERVER_STATE, "the server did not tell its datadir");
	if (!rc) {
		snprintf(c->datadir, sizeof c->datadir, "%s", dd);
		size_t l = strlen(c->datadir);
		while (l > 1 && c->datadir[l - 1] == '/')
			c->datadir[--l] = '\0';
		gethostname(here, sizeof here - 1);
		if (host && strcmp(host, here))
			rc = xb_err_set(err, XB_E_SERVER_STATE, "the server runs on host %s, this is %s: --restore-tables "
					"places files in the server's datadir and must run on its host", host, here);
	}
	free(dd);
	free(host);
	if (rc)
		return rc;
	for (size_t i = 0; i < c->n; i++) {
		char dir[PATH_MAX], frm[2 * RT_FS_MAX];
		if ((rc = xb_path_join(dir, sizeof dir, c->datadir, c->items[i].to_fdb, err)))
			return rc;
		if (!place_dir_writable(dir))
			return xb_err_set(err, XB_E_TARGET, "the server's database directory %s is not a directory this "
					  "process can write in (%s)", dir, strerror(errno)),
			       xb_err_hint(err, "run --restore-tables on the server's host as a user who may write its "
					   "datadir (root, or the user the server runs as)");
		snprintf(frm, sizeof frm, "%s.frm", c->items[i].to_fname);
		if (c->items[i].exists && !file_exists(dir, frm))
			return xb_err_set(err, XB_E_SERVER_STATE, "%s has no %s although the server has the table %s: this "
					  "is not the server's datadir", dir, frm, c->items[i].qto),
			       xb_err_hint(err, "run --restore-tables on the server's host");
	}
	return 0;
}

static void summary(const rt_ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const rt_item *it = &c->items[i];
		char as[RT_Q_MAX + 8] = "";
		if (it->t->renamed)
			snprintf(as, sizeof as, " as %s", it->qto);
		switch (it->state) {
		case RT_RESTORED:
			xb_info("restored: %s.%s%s (%llu rows, %.1f s)", it->t->db, it->t->name, as, it->rows, it->secs);
			break;
		case RT_FAILED:
			xb_info("not restored: %s.%s%s: %s", it->t->db, it->t->name, as, it->why);
			break;
		default:
			xb_info("not restored: %s.%s%s: not attempted after the failure above; nothing was done to it",
				it->t->db, it->t->name, as);
			break;
		}
	}
}

static void items_free(rt_ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		for (size_t k = 0; k < c->items[i].nparts; k++)
			free(c->items[i].parts[k]);
		free(c->items[i].parts);
		free(c->items[i].create);
	}
	free(c->items);
}

/* A refusal by the checks: its hint says too that nothing was changed. */
static int nothing_changed(xb_error *err)
{
	if (!err)
		return XB_E_INTERNAL;
	if (!err->hint[0])
		return xb_err_hint(err, "nothing was changed");
	char h[sizeof err->hint];
	snprintf(h, sizeof h, "%s", err->hint);
	return xb_err_hint(err, "nothing was changed; %s", h);
}

/* The checks, then the restores. */
static int run(rt_ctx *c, const rt_list *l, const xb_tabledefs *defs, xb_error *err)
{
	int rc;
	char set[128];
	snprintf(set, sizeof set, "SET SESSION lock_wait_timeout = %ld", c->set->lock_wait_timeout);
	if ((rc = xb_server_exec(&c->srv, set, err)) ||
	    (rc = xb_server_exec(&c->srv, "SET SESSION sql_quote_show_create = 1", err)))
		return rc;
	if (!(c->items = calloc(l->n, sizeof *c->items)))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	c->n = l->n;
	for (size_t i = 0; i < c->n; i++) {
		c->items[i].t = &l->v[i];
		if ((rc = resolve_item(c, defs, &c->items[i], err)) || (rc = check_privileges(c, &c->items[i], err)))
			return nothing_changed(err);
	}
	if ((rc = check_datadir(c, err)))
		return nothing_changed(err);
	xb_info("checks passed: restoring %zu table%s from %s into the server's datadir %s", c->n, c->n == 1 ? "" : "s",
		c->set->dir, c->datadir);
	if ((rc = rt_exec(c, err, "SET SESSION foreign_key_checks = 0")))
		return rc;
	for (size_t i = 0; i < c->n && !rc; i++)
		if (!(rc = command_interrupted(err) ? XB_E_INTERRUPTED : 0))
			rc = rt_import(c, &c->items[i], err);
	xb_error fkerr;
	bool any = false;
	for (size_t i = 0; i < c->n; i++)
		any |= c->items[i].state == RT_RESTORED;
	if (any)
		rt_fk_report(c);
	else
		(void)rt_exec(c, &fkerr, "SET SESSION foreign_key_checks = 1");
	summary(c);
	return rc;
}

int cmd_restore_tables(const xb_options *o, xb_error *err)
{
	restore_tables_settings set;
	int rc = restore_tables_settings_resolve(o, &set, err);
	if (rc)
		return rc;
	rt_list l;
	if ((rc = rt_list_parse(set.tables, set.renames, &l, err))) {
		rt_list_free(&l);
		return rc;
	}
	xb_tabledefs defs;
	xb_tabledefs_init(&defs);
	if ((rc = check_backup(set.dir, &defs, err))) {
		xb_tabledefs_free(&defs);
		rt_list_free(&l);
		return rc;
	}
	rt_ctx c;
	memset(&c, 0, sizeof c);
	c.set = &set;
	if (!(rc = xb_server_connect(&c.srv, &set.conn, err))) {
		xb_info("connected to the server %s through %s as %s", c.srv.version, c.srv.where, c.srv.user);
		rc = run(&c, &l, &defs, err);
		xb_server_close(&c.srv);
	}
	items_free(&c);
	xb_tabledefs_free(&defs);
	rt_list_free(&l);
	return rc;
}
