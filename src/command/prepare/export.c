/*
 * export.c - --prepare --export: every InnoDB table of a prepared backup
 * made importable into another server (doc/export.md §5).
 *
 * A table exported from a backup must not carry the changes of the
 * transactions that were open at the backup's point. Rolling them back
 * needs InnoDB's undo logs applied through its B-trees: the installed server
 * does that when it starts on the prepared backup, and its slow shutdown
 * finishes the rollback and the purge. So, as mariabackup starts its own
 * copy of the server, the export starts the installed one
 * (db/localserver.h) on the backup, privately. While it runs: prepared XA
 * transactions (which a start leaves for their coordinator) are rolled back
 * with a warning each, the rollback of the others is waited for
 * (information_schema.INNODB_TRX empty), and for every table that has a
 * .ibd in the backup the server's SHOW CREATE TABLE and its next
 * AUTO_INCREMENT value are read (the names decoded by the server's own
 * filename character set). After its shutdown, the scratch files it
 * made are removed, the dictionary is read from the system tablespace
 * (innodb/dict.h) and a .cfg is written beside each .ibd (innodb/cfg.h,
 * what IMPORT TABLESPACE reads), the definitions go to
 * xtrabackup_tabledefs.pmap (info/tabledefs.h, for --restore-tables), and
 * the manifest is made to describe the tree. xtrabackup_export_pending
 * (info/export_pending.h) is there from before the server starts until the
 * manifest is rewritten; running --prepare --export again completes an
 * export that was interrupted. The backup stays a consistent prepared
 * backup: a later --copy-back restores it whole, without the rolled-back
 * changes.
 */
#include "prepare_int.h"
#include "settings.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "command/verify/verify.h"
#include "common/log.h"
#include "common/path.h"
#include "db/localserver.h"
#include "info/backup_cnf.h"
#include "info/export_pending.h"
#include "info/statcache.h"
#include "info/tabledefs.h"
#include "innodb/cfg.h"
#include "innodb/dict.h"
#include "innodb/page.h"
#include "platform/clock.h"
#include "platform/dir.h"
#include "platform/file.h"

/* One table with .ibd files in the backup: "db/t", filename-encoded. */
typedef struct export_table {
	char *path;        /* "db/t" (a partitioned table once, without #P#) */
	uint64_t autoinc;  /* the server's next AUTO_INCREMENT value, 0 when it has none */
	bool described;    /* SHOW CREATE TABLE answered */
} export_table;

typedef struct export_list {
	export_table *v;
	size_t n, cap;
	char **isl;        /* the .isl files of the backup ("db/t.isl"), hidden or not */
	size_t n_isl, cap_isl;
	bool nomem;
} export_list;

static void list_free(export_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	for (size_t i = 0; i < l->n_isl; i++)
		free(l->isl[i]);
	free(l->isl);
	memset(l, 0, sizeof *l);
}

static int table_cmp(const void *a, const void *b)
{
	return strcmp(((const export_table *)a)->path, ((const export_table *)b)->path);
}

static export_table *list_find(const export_list *l, const char *path)
{
	export_table key = {.path = (char *)path};
	return l->n ? bsearch(&key, l->v, l->n, sizeof *l->v, table_cmp) : NULL;
}

static void list_add(export_list *l, const char *path)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		export_table *v = realloc(l->v, cap * sizeof *v);
		if (!v) {
			l->nomem = true;
			return;
		}
		l->v = v, l->cap = cap;
	}
	if (!(l->v[l->n].path = strdup(path))) {
		l->nomem = true;
		return;
	}
	l->v[l->n].autoinc = 0;
	l->v[l->n].described = false;
	l->n++;
}

/* The table a file name of a database directory belongs to ("t#P#p0.ibd" ->
 * "t"), or false for what is no table's tablespace. */
static bool ibd_table(const char *name, char *out, size_t n)
{
	size_t l = strlen(name);
	if (l <= 4 || strcmp(name + l - 4, ".ibd") || !strncmp(name, "#sql", 4) || l - 4 >= n)
		return false;
	memcpy(out, name, l - 4);
	out[l - 4] = 0;
	char *p = strstr(out, "#P#");
	if (!p)
		p = strstr(out, "#p#");
	if (p)
		*p = 0;
	return *out != 0;
}

typedef struct walk {
	export_list *l;
	const char *db;
} walk;

#define ISL_HIDDEN ".xbexport" /* the suffix of a .isl file while the server runs */

/* A .isl file ("t.isl", or "t.isl.xbexport" left hidden by an export that
 * was interrupted), recorded as "db/t.isl". */
static void isl_add(export_list *l, const char *db, const char *name)
{
	size_t n = strlen(name), h = strlen(ISL_HIDDEN);
	if (n > h && !strcmp(name + n - h, ISL_HIDDEN))
		n -= h;
	if (n <= 4 || strncmp(name + n - 4, ".isl", 4))
		return;
	if (l->n_isl == l->cap_isl) {
		size_t cap = l->cap_isl ? 2 * l->cap_isl : 16;
		char **v = realloc(l->isl, cap * sizeof *v);
		if (!v) {
			l->nomem = true;
			return;
		}
		l->isl = v, l->cap_isl = cap;
	}
	char *p = malloc(strlen(db) + n + 2);
	if (!p) {
		l->nomem = true;
		return;
	}
	sprintf(p, "%s/%.*s", db, (int)n, name);
	l->isl[l->n_isl++] = p;
}

static int db_entry(void *ctx, const xb_dirent *e, xb_error *err)
{
	walk *w = ctx;
	char t[NAME_MAX + 1], path[2 * NAME_MAX + 2];
	if (e->is_file)
		isl_add(w->l, w->db, e->name);
	if (!e->is_file || !ibd_table(e->name, t, sizeof t))
		return 0;
	snprintf(path, sizeof path, "%s/%s", w->db, t);
	list_add(w->l, path);
	return 0;
}

static int top_entry(void *ctx, const xb_dirent *e, xb_error *err)
{
	walk *w = ctx;
	if (!e->is_dir || e->name[0] == '.')
		return 0;
	walk inner = {.l = w->l, .db = e->name};
	return xb_dir_each(e->path, 0, db_entry, &inner, err);
}

/* Every table with a .ibd in a database directory of dir, sorted, once. */
static int list_tables(const char *dir, export_list *l, xb_error *err)
{
	walk w = {.l = l};
	int rc = xb_dir_each(dir, 0, top_entry, &w, err);
	if (!rc && l->nomem)
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	if (rc)
		return rc;
	if (l->n)
		qsort(l->v, l->n, sizeof *l->v, table_cmp);
	size_t k = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (k && !strcmp(l->v[k - 1].path, l->v[i].path)) {
			free(l->v[i].path);
			continue;
		}
		l->v[k++] = l->v[i];
	}
	l->n = k;
	return 0;
}

/* A name as the datadir spells it ("my@002ddb") as SQL does ("my-db"),
 * decoded by the server's own filename character set. */
static int sql_name(xb_server *srv, const char *file, char *out, size_t n, xb_error *err)
{
	char lit[4 * NAME_MAX], q[5 * NAME_MAX];
	if (!xb_server_literal(file, lit, sizeof lit))
		return xb_err_set(err, XB_E_USAGE, "name too long: %s", file);
	/* the bytes taken as the filename character set, then spelled in utf8mb4 */
	snprintf(q, sizeof q, "SELECT CONVERT(CONVERT(CAST(%s AS BINARY) USING filename) USING utf8mb4)", lit);
	char *v = NULL;
	int rc = xb_server_value(srv, q, &v, err);
	if (!rc && (!v || !*v || strlen(v) >= n))
		rc = xb_err_set(err, XB_E_USAGE, "the server decodes no name from %s", file);
	if (!rc)
		strcpy(out, v);
	free(v);
	return rc;
}

/* SHOW CREATE TABLE's second column. */
static int create_row(void *ctx, unsigned ncols, char **names, char **values)
{
	char **sql = ctx;
	if (ncols >= 2 && values[1] && !*sql)
		*sql = strdup(values[1]);
	return 0;
}

/* The DATA DIRECTORY of table path ("db/t") as its .isl names it (hidden or
 * not): the .isl holds DIR/db/t.ibd. false when it has none. */
static bool isl_data_dir(const char *dir, const char *path, char *out, size_t n)
{
	char isl[PATH_MAX], text[PATH_MAX];
	snprintf(isl, sizeof isl, "%s/%s.isl%s", dir, path, ISL_HIDDEN);
	FILE *f = fopen(isl, "r");
	if (!f) {
		isl[strlen(isl) - strlen(ISL_HIDDEN)] = 0;
		f = fopen(isl, "r");
	}
	if (!f)
		return false;
	size_t k = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[k] = 0;
	text[strcspn(text, "\n")] = 0;
	size_t tl = strlen(text), pl = strlen(path);
	if (tl <= pl + 5 || strcmp(text + tl - 4, ".ibd") || strncmp(text + tl - 4 - pl, path, pl) ||
	    text[tl - 5 - pl] != '/')
		return false;
	snprintf(out, n, "%.*s", (int)(tl - 4 - pl), text); /* "DIR/" */
	return true;
}

/* The server on the backup does not see a DATA DIRECTORY table's .isl (it is
 * hidden): its SHOW CREATE TABLE lacks the clause the source's has, which
 * the server prints last among the table options. Put it back there. */
static char *with_data_dir(const char *sql, const char *data_dir)
{
	if (strstr(sql, "PARTITION BY") || strstr(sql, "DATA DIRECTORY="))
		return NULL; /* a partitioned table carries it per partition */
	char *out = NULL;
	if (asprintf(&out, "%s DATA DIRECTORY='%s'", sql, data_dir) < 0)
		return NULL;
	return out;
}

/* The definitions and AUTO_INCREMENT values of the tables, from the server. */
static int describe(const char *dir, xb_server *srv, export_list *l, xb_tabledefs *defs, size_t *undescribed,
		    xb_error *err)
{
	for (size_t i = 0; i < l->n; i++) {
		export_table *t = &l->v[i];
		char db[4 * NAME_MAX], tb[4 * NAME_MAX], q[20 * NAME_MAX + 200];
		const char *slash = strchr(t->path, '/');
		snprintf(db, sizeof db, "%.*s", (int)(slash - t->path), t->path);
		xb_error e;
		if (sql_name(srv, db, db, sizeof db, &e) || sql_name(srv, slash + 1, tb, sizeof tb, &e)) {
			xb_warn("%s: its name cannot be spelled in SQL here (%s): its .cfg is written without its "
				"AUTO_INCREMENT value and its definition is not recorded",
				t->path, e.msg);
			(*undescribed)++;
			continue;
		}
		char qdb[2 * sizeof db + 3], qtb[2 * sizeof tb + 3], ldb[2 * sizeof db + 32], ltb[2 * sizeof tb + 32];
		char *sql = NULL;
		if (!xb_server_ident(db, qdb, sizeof qdb) || !xb_server_ident(tb, qtb, sizeof qtb) ||
		    !xb_server_literal(db, ldb, sizeof ldb) || !xb_server_literal(tb, ltb, sizeof ltb))
			continue; /* cannot be: the buffers hold any name */
		snprintf(q, sizeof q, "SHOW CREATE TABLE %s.%s", qdb, qtb);
		if (xb_server_rows(srv, q, create_row, &sql, &e) || !sql) {
			xb_warn("%s: SHOW CREATE TABLE failed on the server started on the backup (%s): its definition is "
				"not recorded (a partial backup without its .frm?)",
				t->path, sql ? "no answer" : e.msg);
			free(sql);
			(*undescribed)++;
			continue;
		}
		char ddir[PATH_MAX];
		char *full = isl_data_dir(dir, t->path, ddir, sizeof ddir) ? with_data_dir(sql, ddir) : NULL;
		xb_tabledefs_put(defs, t->path, full ? full : sql);
		free(full);
		free(sql);
		t->described = true;
		snprintf(q, sizeof q, "SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND "
			 "TABLE_NAME = %s", ldb, ltb);
		char *ai = NULL;
		if (!xb_server_value(srv, q, &ai, &e) && ai)
			t->autoinc = strtoull(ai, NULL, 10);
		free(ai);
	}
	if (defs->nomem)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	return 0;
}

/* One prepared XA transaction: rolled back, with a warning. */
static int xa_row(void *ctx, unsigned ncols, char **names, char **values)
{
	xb_server *srv = ctx;
	if (ncols < 4 || !values[3])
		return 0;
	char q[1024];
	snprintf(q, sizeof q, "XA ROLLBACK %s", values[3]);
	xb_error e;
	if (xb_server_exec(srv, q, &e))
		xb_warn("the prepared XA transaction %s could not be rolled back: %s", values[3], e.msg);
	else
		xb_warn("the XA transaction %s was prepared and not committed at the backup's point: rolled back, so "
			"that no table exports its changes",
			values[3]);
	return 0;
}

/* Wait until the server has rolled back every transaction recovered from
 * the backup (their rows locked, their changes still in the pages). */
static int wait_rollback(xb_server *srv, unsigned timeout, xb_error *err)
{
	double t0 = xb_clock_sec(), said = t0;
	for (;;) {
		char *n = NULL;
		int rc = xb_server_value(srv, "SELECT COUNT(*) FROM information_schema.INNODB_TRX", &n, err);
		long left = n ? strtol(n, NULL, 10) : 0;
		free(n);
		if (rc)
			return rc;
		if (!left)
			return 0;
		double now = xb_clock_sec();
		if (now - t0 >= timeout) {
			xb_err_set(err, XB_E_EXPORT,
				   "the server on the backup had not rolled back %ld transaction(s) after %u s", left, timeout);
			return xb_err_hint(err, "raise --export-timeout (a large transaction takes as long to roll back as "
						"it took to run)");
		}
		if (now - said >= 10) {
			xb_info("waiting for the server on the backup to roll back %ld transaction(s) open at the backup's "
				"point: %.0f s of %u",
				left, now - t0, timeout);
			said = now;
		}
		struct timespec ts = {0, 200 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* Files a server start makes in its datadir that a backup does not hold. */
static void remove_scratch(const char *dir)
{
	static const char *const scratch[] = {"multi-master.info", "ibtmp1", "ddl_recovery.log",
					      "ddl_recovery-backup.log", "tc.log", "aria_log.tmp", NULL};
	for (size_t i = 0; scratch[i]; i++) {
		char p[PATH_MAX];
		if (!xb_path_join(p, sizeof p, dir, scratch[i], NULL) && access(p, F_OK) == 0 && xb_file_remove(p))
			xb_warn("cannot remove %s, which the server on the backup made: %s", p, strerror(errno));
	}
}

/* A DATA DIRECTORY table's .isl names the source server's own file: the
 * server on the backup would open that one. Each is hidden (renamed with
 * ISL_HIDDEN) while it runs, so that it opens the copy in the backup
 * (db/t.ibd, where InnoDB looks when there is no .isl). hide false: put back. */
static int isl_hide(const char *dir, const export_list *l, bool hide, xb_error *err)
{
	for (size_t i = 0; i < l->n_isl; i++) {
		char shown[PATH_MAX], hidden[PATH_MAX + 16];
		if (xb_path_join(shown, sizeof shown, dir, l->isl[i], err))
			return err ? err->code : XB_E_USAGE;
		snprintf(hidden, sizeof hidden, "%s%s", shown, ISL_HIDDEN);
		const char *from = hide ? shown : hidden, *to = hide ? hidden : shown;
		if (access(from, F_OK))
			continue; /* already as wanted (a rerun) */
		if (xb_file_rename(XB_FILE_CWD, from, XB_FILE_CWD, to, false))
			return xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", from, to, strerror(errno));
	}
	if (l->n_isl && xb_dir_sync(dir) == 0)
		for (size_t i = 0; i < l->n_isl; i++) {
			char d[PATH_MAX];
			if (!xb_path_join(d, sizeof d, dir, l->isl[i], NULL)) {
				*strrchr(d, '/') = 0;
				xb_dir_sync(d);
			}
		}
	if (l->n_isl)
		xb_info("%zu DATA DIRECTORY table(s): their .isl files %s", l->n_isl,
			hide ? "hidden while the server runs on the backup (it opens the copies in the backup, never "
			       "the source's files)"
			     : "put back");
	return 0;
}

/* The server's part: roll back, describe, shut down. */
static int run_server(const prepare_settings *s, const char *dir, export_list *l, xb_tabledefs *defs, xb_error *err)
{
	char cnf[PATH_MAX];
	int rc = xb_path_join(cnf, sizeof cnf, dir, XB_BACKUP_CNF_FILE, err);
	if (rc)
		return rc;
	char bin[PATH_MAX];
	if ((rc = localserver_find(s->mariadbd, bin, sizeof bin, err)))
		return rc;
	localserver_settings ls_s = {.binary = bin,
				     .dir = dir,
				     .defaults = access(cnf, R_OK) == 0 ? cnf : NULL,
				     .tmp_base = s->tmpdir,
				     .buffer_pool = s->use_memory,
				     .force_recovery = s->force_recovery,
				     .timeout = s->export_timeout};
	localserver ls;
	if ((rc = isl_hide(dir, l, true, err)))
		return rc;
	if ((rc = localserver_start(&ls_s, &ls, err)))
		return isl_hide(dir, l, false, NULL), rc;
	xb_error e;
	if (xb_server_rows(&ls.conn, "XA RECOVER FORMAT='SQL'", xa_row, &ls.conn, &e))
		xb_warn("XA RECOVER on the server on the backup failed: %s", e.msg);
	rc = wait_rollback(&ls.conn, ls.timeout, err);
	size_t undescribed = 0;
	if (!rc)
		rc = describe(dir, &ls.conn, l, defs, &undescribed, err);
	if (rc) {
		localserver_abort(&ls);
		return isl_hide(dir, l, false, NULL), rc;
	}
	xb_info("%zu table(s) described by the server%s", l->n - undescribed, undescribed ? " (see the warnings)" : "");
	if ((rc = localserver_stop(&ls, err))) {
		localserver_abort(&ls);
		return isl_hide(dir, l, false, NULL), rc;
	}
	remove_scratch(dir);
	return isl_hide(dir, l, false, err);
}

/* The .cfg of one table of the dictionary whose .ibd is at ibd. */
static int write_cfg(const dict *d, const dict_table *t, const char *ibd, const char *out, const char *host,
		     uint64_t autoinc, xb_error *err)
{
	static uint8_t buf[4 * 65536];
	FILE *f = fopen(ibd, "rb");
	if (!f)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", ibd, strerror(errno));
	size_t got = fread(buf, 1, sizeof buf, f);
	fclose(f);
	innodb_space_info si;
	int rc = innodb_page0_parse(buf, got, &si, err);
	if (rc)
		return xb_err_prefix(err, "%s", ibd);
	dict_instant inst;
	if ((rc = dict_instant_read_file(t, ibd, &inst, err)))
		return rc;
	cfg c;
	rc = cfg_from_table(t, &inst, d->page_size, &si, host, autoinc, &c, err);
	dict_instant_free(&inst);
	if (rc)
		return rc;
	rc = cfg_write_file(&c, out, err);
	cfg_free(&c);
	return rc;
}

/* The table part of a dictionary name ("db/t#P#p0" -> "db/t"). */
static void table_of(const char *name, char *out, size_t n)
{
	snprintf(out, n, "%s", name);
	char *p = strstr(out, "#P#");
	if (!p)
		p = strstr(out, "#p#");
	if (p)
		*p = 0;
}

/* A .cfg beside every .ibd of a table of the dictionary. */
static int write_cfgs(const char *dir, const export_list *l, size_t *n_cfg, xb_error *err)
{
	char *dfp = NULL;
	int level = 6;
	int rc = prepare_backup_cnf(dir, &dfp, &level, err);
	dict d;
	if (!rc)
		rc = dict_read(dir, dfp, &d, err);
	free(dfp);
	if (rc)
		return xb_err_prefix(err, "reading the data dictionary of %s", dir);
	char host[256];
	if (gethostname(host, sizeof host))
		snprintf(host, sizeof host, "Hostname unknown");
	host[sizeof host - 1] = 0;
	for (size_t i = 0; !rc && i < d.n; i++) {
		const dict_table *t = &d.table[i];
		char ibd[PATH_MAX], out[PATH_MAX], tname[PATH_MAX];
		if (!strchr(t->name, '/') || strstr(t->name, "/#sql"))
			continue;
		if (xb_path_join3(ibd, sizeof ibd, dir, t->name, ".ibd", NULL) ||
		    xb_path_join3(out, sizeof out, dir, t->name, ".cfg", NULL) || access(ibd, F_OK))
			continue;
		table_of(t->name, tname, sizeof tname);
		const export_table *et = list_find(l, tname);
		rc = write_cfg(&d, t, ibd, out, host, et ? et->autoinc : 0, err);
		if (!rc)
			(*n_cfg)++;
	}
	dict_free(&d);
	return rc;
}

/* The manifest made to describe the exported tree (files the server did
 * not touch keep their entries; tablespaces it wrote are checked by their
 * pages from now on; the rest is read). */
static int refresh_manifest(const prepare_settings *s, const char *dir, xb_error *err)
{
	xb_manifest m;
	xb_manifest_init(&m);
	int rc = xb_manifest_read(dir, &m, err);
	if (rc == XB_E_MISSING_FILE) {
		xb_manifest_free(&m);
		return 0; /* a backup without one (another tool's): nothing to describe */
	}
	xb_statcache sc;
	xb_statcache_init(&sc);
	xb_error e;
	bool cached = !rc && xb_statcache_read(dir, &sc, &e) == 0;
	if (!rc)
		rc = verify_refresh(dir, &m, s->threads, cached ? &sc : NULL, NULL, NULL, err);
	xb_statcache_free(&sc);
	xb_manifest_free(&m);
	return rc;
}

int prepare_export(const prepare_settings *s, const char *dir, xb_error *err)
{
	double t0 = xb_clock_sec();
	export_list l = {0};
	xb_tabledefs defs;
	xb_tabledefs_init(&defs);
	char bin[PATH_MAX];
	int rc = localserver_find(s->mariadbd, bin, sizeof bin, err); /* before any change */
	if (!rc)
		rc = list_tables(dir, &l, err);
	if (!rc)
		xb_info("--export: %zu table(s) with tablespaces in %s; starting the server on the backup to roll back "
			"what was not committed at the backup's point",
			l.n, dir);
	if (!rc)
		rc = xb_export_pending_write(dir, err);
	if (!rc)
		rc = run_server(s, dir, &l, &defs, err);
	size_t n_cfg = 0;
	if (!rc)
		rc = write_cfgs(dir, &l, &n_cfg, err);
	if (!rc)
		rc = xb_tabledefs_write(dir, &defs, err);
	if (!rc)
		rc = refresh_manifest(s, dir, err);
	if (!rc)
		rc = xb_export_pending_remove(dir, err);
	if (!rc)
		xb_info("--export: %zu .cfg file(s) written for %zu table(s), %zu definition(s) in %s, in %.1f s", n_cfg,
			l.n, defs.n, XB_TABLEDEFS_FILE, xb_clock_sec() - t0);
	xb_tabledefs_free(&defs);
	list_free(&l);
	return rc;
}
