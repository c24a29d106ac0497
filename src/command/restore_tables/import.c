/*
 * import.c - one table restored into the live server (see
 * restore_tables_int.h).
 *
 * A plain table: created from the backup's definition when the server lacks
 * it, ALTER TABLE ... DISCARD TABLESPACE, the backup's .ibd and .cfg placed
 * under the table's file name (place.h), ALTER TABLE ... IMPORT TABLESPACE.
 * A MariaDB 10.11 server neither discards nor imports a partitioned table's
 * tablespaces (ERROR 1031 for the table, no PARTITION clause), so each
 * partition is imported into a work table of the same columns (CREATE TABLE
 * ... LIKE, REMOVE PARTITIONING) and then swapped in with ALTER TABLE ...
 * EXCHANGE PARTITION; every work table is imported before the first swap,
 * and a swap that fails is undone by swapping the earlier ones back, so the
 * live table gets all its partitions or none. Then CHECK TABLE must say OK
 * and the rows are counted for the log.
 *
 * A failure is cleaned up as far as it is safe: a table this run created is
 * dropped again, files placed for a failed import are removed, work tables
 * are dropped. A live table whose tablespace was discarded cannot get its
 * rows back from us: the message says so and how to retry.
 */
#include "restore_tables_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/log.h"
#include "common/path.h"
#include "platform/clock.h"
#include "place.h"

/* The files of one tablespace: src_dir/src_base.{ibd,cfg} -> dst_dir/dst_base.{ibd,cfg}. */
typedef struct space_files {
	char src_dir[PATH_MAX];  /* the backup's database directory */
	char src_base[2 * RT_FS_MAX]; /* the backup's file name without extension */
	char dst_dir[PATH_MAX];  /* the datadir's database directory */
	char dst_base[2 * RT_FS_MAX]; /* the file name the table has there */
	char isl_dir[PATH_MAX];  /* DATA DIRECTORY: the datadir's database directory, for the .isl ("" otherwise) */
} space_files;

static const char *const exts[] = {".ibd", ".cfg"};

/* Remove what was placed for a table (after a failed import). */
static void unplace(const space_files *f)
{
	char name[2 * RT_FS_MAX + 8];
	xb_error ignore;
	for (size_t i = 0; i < 2; i++) {
		snprintf(name, sizeof name, "%s%s", f->dst_base, exts[i]);
		if (place_remove(f->dst_dir, name, &ignore))
			xb_warn("%s", ignore.msg);
	}
	snprintf(name, sizeof name, "%s.isl", f->dst_base);
	if (f->isl_dir[0] && place_remove(f->isl_dir, name, &ignore))
		xb_warn("%s", ignore.msg);
}

/* Discard q's tablespace, place the files, import. *discarded: q's tablespace
 * is discarded and not imported (its files are removed again). */
static int import_space(rt_ctx *c, const char *q, const space_files *f, bool *discarded, xb_error *err)
{
	int rc = rt_exec(c, err, "ALTER TABLE %s DISCARD TABLESPACE", q);
	if (rc)
		return rc;
	*discarded = true;
	for (size_t i = 0; i < 2; i++) {
		char src[PATH_MAX], name[2 * RT_FS_MAX + 8], sname[2 * RT_FS_MAX + 8];
		snprintf(sname, sizeof sname, "%s%s", f->src_base, exts[i]);
		snprintf(name, sizeof name, "%s%s", f->dst_base, exts[i]);
		if ((rc = xb_path_join(src, sizeof src, f->src_dir, sname, err)) ||
		    (rc = place_file(src, f->dst_dir, name, f->isl_dir[0] ? f->isl_dir : NULL, err))) {
			unplace(f);
			return rc;
		}
	}
	/* DISCARD may remove the .isl of a DATA DIRECTORY table, and without
	 * one the import looks for the file in the datadir: one naming the
	 * placed .ibd is written when there is none, or another */
	if (f->isl_dir[0]) {
		char isl[2 * RT_FS_MAX + 8], ibd[PATH_MAX + 2 * RT_FS_MAX + 8], have[sizeof ibd] = "", path[PATH_MAX];
		snprintf(isl, sizeof isl, "%s.isl", f->dst_base);
		snprintf(ibd, sizeof ibd, "%s/%s.ibd", f->dst_dir, f->dst_base);
		FILE *in = xb_path_join(path, sizeof path, f->isl_dir, isl, NULL) ? NULL : fopen(path, "r");
		if (in) {
			size_t k = fread(have, 1, sizeof have - 1, in);
			have[k] = 0;
			have[strcspn(have, "\n")] = 0;
			fclose(in);
		}
		if (strcmp(have, ibd) && ((have[0] && (rc = place_remove(f->isl_dir, isl, err))) ||
					  (rc = place_text(ibd, f->isl_dir, isl, err)))) {
			unplace(f);
			return rc;
		}
	}
	xb_info("placed %s/%s.ibd and .cfg as %s/%s.ibd and .cfg", f->src_dir, f->src_base, f->dst_dir, f->dst_base);
	if ((rc = rt_exec(c, err, "ALTER TABLE %s IMPORT TABLESPACE", q))) {
		unplace(f);
		return rc;
	}
	*discarded = false;
	/* the .cfg served the import; the server does not remove it */
	char cfg[2 * RT_FS_MAX + 8];
	xb_error ignore;
	snprintf(cfg, sizeof cfg, "%s.cfg", f->dst_base);
	if (place_remove(f->dst_dir, cfg, &ignore))
		xb_warn("%s", ignore.msg);
	return 0;
}

static int files_of(rt_ctx *c, const rt_item *it, const char *src_suffix, const char *dst_fname, space_files *f,
		    xb_error *err)
{
	int rc;
	if ((rc = xb_path_join(f->src_dir, sizeof f->src_dir, c->set->dir, it->fdb, err)) ||
	    (rc = xb_path_join(f->dst_dir, sizeof f->dst_dir, c->datadir, it->to_fdb, err)))
		return rc;
	snprintf(f->src_base, sizeof f->src_base, "%s%s", it->fname, src_suffix);
	snprintf(f->dst_base, sizeof f->dst_base, "%s", dst_fname);
	f->isl_dir[0] = 0;
	if (it->remote[0] && !it->partitioned) {
		snprintf(f->isl_dir, sizeof f->isl_dir, "%s", f->dst_dir);
		snprintf(f->dst_dir, sizeof f->dst_dir, "%s", it->remote);
	}
	return 0;
}

/* CHECK TABLE's rows: any that is not "status OK" is kept in ctx (a char[1024]). */
static int check_row(void *ctx, unsigned n, char **names, char **values)
{
	char *bad = ctx;
	if (n < 4 || !values[2] || !values[3])
		return 0;
	if (!strcmp(values[2], "status") && !strcmp(values[3], "OK"))
		return 0;
	if (!strcasecmp(values[2], "note") || !strcasecmp(values[2], "info"))
		return 0;
	size_t l = strlen(bad);
	snprintf(bad + l, 1024 - l, "%s%s: %s", l ? "; " : "", values[2], values[3]);
	return 0;
}

/* REPAIR TABLE, whose rows must all say OK. */
static int repair(rt_ctx *c, rt_item *it, xb_error *err)
{
	char sql[RT_Q_MAX + 64], bad[1024] = "";
	snprintf(sql, sizeof sql, "REPAIR TABLE %s", it->qto);
	xb_info("executing %s", sql);
	int rc = xb_server_rows(&c->srv, sql, check_row, bad, err);
	if (!rc && bad[0])
		rc = xb_err_set(err, XB_E_SERVER_STATE, "REPAIR TABLE %s of the placed files: %s", it->qto, bad);
	return rc;
}

/* CHECK TABLE and the row count of the restored table. */
static int verify(rt_ctx *c, rt_item *it, xb_error *err)
{
	char sql[RT_Q_MAX + 64], bad[1024] = "";
	snprintf(sql, sizeof sql, "CHECK TABLE %s", it->qto);
	int rc = xb_server_rows(&c->srv, sql, check_row, bad, err);
	if (rc)
		return rc;
	if (bad[0])
		return xb_err_set(err, XB_E_SERVER_STATE, "CHECK TABLE %s after the import: %s", it->qto, bad);
	char *v = NULL;
	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", it->qto);
	if ((rc = xb_server_value(&c->srv, sql, &v, err)))
		return rc;
	it->rows = v ? strtoull(v, NULL, 10) : 0;
	free(v);
	return 0;
}

/* The state a failed table is left in, after the error, into it->why. */
static void failed(rt_item *it, const xb_error *err, const char *state)
{
	snprintf(it->why, sizeof it->why, "%s; %s", err && err->msg[0] ? err->msg : "failed", state);
	it->state = RT_FAILED;
}

/* Create the target from the backup's definition, in its database (so that
 * the unqualified names of its foreign keys' parents are that database's). */
static int create_target(rt_ctx *c, rt_item *it, xb_error *err)
{
	char qdb[2 * RT_NAME_MAX + 3];
	xb_server_ident(it->t->to_db, qdb, sizeof qdb);
	int rc = rt_exec(c, err, "USE %s", qdb);
	if (!rc)
		rc = rt_exec(c, err, "%s", it->create);
	return rc;
}

/* Drop a table this run created after its import failed; the state for the message. */
static const char *drop_created(rt_ctx *c, const char *q)
{
	xb_error e2;
	xb_err_clear(&e2);
	if (rt_exec(c, &e2, "DROP TABLE %s", q)) {
		xb_warn("%s", e2.msg);
		return "the table was created by this run, and dropping it again failed: drop it by hand";
	}
	return "the table was created by this run and is dropped again";
}

static int import_plain(rt_ctx *c, rt_item *it, bool created, xb_error *err)
{
	space_files f;
	int rc = files_of(c, it, "", it->to_fname, &f, err);
	bool discarded = false;
	if (!rc)
		rc = import_space(c, it->qto, &f, &discarded, err);
	if (!rc)
		return 0;
	static char state[16384];
	if (created)
		snprintf(state, sizeof state, "%s", drop_created(c, it->qto));
	else if (discarded)
		snprintf(state, sizeof state,
			 "the live table %s is left with its tablespace discarded (its rows cannot be read): retry with "
			 "xtrabackup --restore-tables=%s.%s --target-dir=%s, or copy %s/%s.ibd and .cfg into %s/ and run "
			 "ALTER TABLE %s IMPORT TABLESPACE",
			 it->qto, it->t->to_db, it->t->to_name, c->set->dir, f.src_dir, f.src_base, f.dst_dir, it->qto);
	else
		snprintf(state, sizeof state, "the live table %s is unchanged", it->qto);
	failed(it, err, state);
	return rc;
}

/* The work table of partition k: a name no user table has, in the target's database. */
static void work_name(size_t k, char *fname, size_t n)
{
	snprintf(fname, n, "xbrt_%ld_%zu", (long)getpid(), k);
}

static void drop_work(rt_ctx *c, const rt_item *it, size_t upto)
{
	for (size_t k = 0; k < upto; k++) {
		char w[64], q[RT_Q_MAX];
		work_name(k, w, sizeof w);
		rt_qualified(it->t->to_db, w, q, sizeof q);
		xb_error e2;
		if (rt_exec(c, &e2, "DROP TABLE IF EXISTS %s", q))
			xb_warn("%s", e2.msg);
	}
}

static int import_partitioned(rt_ctx *c, rt_item *it, bool created, xb_error *err)
{
	int rc = 0;
	size_t made = 0, swapped = 0;
	const char *state = "the live table is unchanged";
	for (size_t k = 0; !rc && k < it->nparts; k++) {
		char w[64], q[RT_Q_MAX], suffix[RT_FS_MAX + 8];
		work_name(k, w, sizeof w);
		rt_qualified(it->t->to_db, w, q, sizeof q);
		if ((rc = rt_exec(c, err, "CREATE TABLE %s LIKE %s", q, it->qto)))
			break;
		made = k + 1;
		if ((rc = rt_exec(c, err, "ALTER TABLE %s REMOVE PARTITIONING", q)))
			break;
		space_files f;
		snprintf(suffix, sizeof suffix, "#P#%s", it->parts[k]);
		bool discarded = false;
		if ((rc = files_of(c, it, suffix, w, &f, err)))
			break;
		rc = import_space(c, q, &f, &discarded, err);
	}
	for (size_t k = 0; !rc && k < it->nparts; k++) {
		char w[64], q[RT_Q_MAX], qp[2 * RT_NAME_MAX + 3];
		work_name(k, w, sizeof w);
		rt_qualified(it->t->to_db, w, q, sizeof q);
		xb_server_ident(it->parts[k], qp, sizeof qp);
		if (!(rc = rt_exec(c, err, "ALTER TABLE %s EXCHANGE PARTITION %s WITH TABLE %s", it->qto, qp, q)))
			swapped = k + 1;
	}
	if (rc && swapped) {
		/* the same swap again puts the live rows back */
		for (size_t k = 0; k < swapped; k++) {
			char w[64], q[RT_Q_MAX], qp[2 * RT_NAME_MAX + 3];
			work_name(k, w, sizeof w);
			rt_qualified(it->t->to_db, w, q, sizeof q);
			xb_server_ident(it->parts[k], qp, sizeof qp);
			xb_error e2;
			if (rt_exec(c, &e2, "ALTER TABLE %s EXCHANGE PARTITION %s WITH TABLE %s", it->qto, qp, q)) {
				xb_warn("%s", e2.msg);
				state = "some partitions hold the backup's rows, others the live ones: the work tables "
					"xbrt_* of the database, which hold the rest, are left for you";
				made = 0;
			}
		}
	}
	drop_work(c, it, made);
	if (!rc)
		return 0;
	failed(it, err, created ? drop_created(c, it->qto) : state);
	return rc;
}

/* A MyISAM or Aria table the server lacks: its files placed under the
 * target's name (a failure removes those placed). */
static int place_engine_files(rt_ctx *c, rt_item *it, xb_error *err)
{
	char src_dir[PATH_MAX], dst_dir[PATH_MAX];
	int rc;
	if ((rc = xb_path_join(src_dir, sizeof src_dir, c->set->dir, it->fdb, err)) ||
	    (rc = xb_path_join(dst_dir, sizeof dst_dir, c->datadir, it->to_fdb, err)))
		return rc;
	size_t k = 0;
	for (; !rc && it->engine_files[k]; k++) {
		char src[PATH_MAX], sname[2 * RT_FS_MAX + 8], dname[2 * RT_FS_MAX + 8];
		snprintf(sname, sizeof sname, "%s%s", it->fname, it->engine_files[k]);
		snprintf(dname, sizeof dname, "%s%s", it->to_fname, it->engine_files[k]);
		if (!(rc = xb_path_join(src, sizeof src, src_dir, sname, err)))
			rc = place_file(src, dst_dir, dname, NULL, err);
	}
	if (!rc) {
		xb_info("placed %s/%s%s and the rest of its files as %s/%s", src_dir, it->fname, it->engine_files[0], dst_dir,
			it->to_fname);
		return 0;
	}
	/* the file that failed left nothing: the ones before it go */
	for (size_t j = 0; j + 1 < k; j++) {
		char dname[2 * RT_FS_MAX + 8];
		xb_error ignore;
		snprintf(dname, sizeof dname, "%s%s", it->to_fname, it->engine_files[j]);
		if (place_remove(dst_dir, dname, &ignore))
			xb_warn("%s", ignore.msg);
	}
	failed(it, err, "its files were removed again: the server still lacks the table");
	return rc;
}

int rt_import(rt_ctx *c, rt_item *it, xb_error *err)
{
	double t0 = xb_clock_sec();
	bool created = false;
	int rc = 0;
	const char *left = "the imported table is left as it is";
	if (it->engine_files) {
		if ((rc = place_engine_files(c, it, err)))
			return rc;
		left = "the table's files are left in place";
		/* an Aria table from another server must be zerofilled before use: REPAIR does it */
		if (!strcmp(it->engine_files[1], ".MAD") && (rc = repair(c, it, err))) {
			failed(it, err, left);
			return rc;
		}
	} else {
		if (!it->exists) {
			if ((rc = create_target(c, it, err))) {
				failed(it, err, "creating it failed: it does not exist");
				return rc;
			}
			created = true;
		}
		rc = it->partitioned ? import_partitioned(c, it, created, err) : import_plain(c, it, created, err);
		if (rc)
			return rc;
	}
	if ((rc = verify(c, it, err))) {
		failed(it, err, left);
		return rc;
	}
	it->secs = xb_clock_sec() - t0;
	it->state = RT_RESTORED;
	xb_info("restored %s.%s%s%s from %s/%s/%s%s: %llu rows, %.1f s", it->t->db, it->t->name,
		it->t->renamed ? " as " : "", it->t->renamed ? it->qto : "", c->set->dir, it->fdb, it->fname,
		it->engine_files ? it->engine_files[0] : it->partitioned ? "#P#* (every partition)" : ".ibd", it->rows,
		it->secs);
	return 0;
}
