/*
 * fkcheck.c - the foreign keys of the restored tables, checked once their
 * imports are done (see restore_tables_int.h).
 *
 * The imports run with foreign_key_checks off (a child restored before its
 * parent, or alone, would be refused otherwise), so the rows may not agree
 * with the live tables they refer to or that refer to them. For every
 * constraint whose child or parent is a restored table (from
 * information_schema.REFERENTIAL_CONSTRAINTS, its columns from
 * KEY_COLUMN_USAGE in their order), the child rows whose key is all set but
 * has no parent row are counted, and a warning names the constraint and the
 * count. Nothing is changed: which side is right is the user's call.
 */
#include "restore_tables_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

#define FK_MAX 256 /* constraints checked at most */

/* One constraint: where it is and which tables it joins. */
typedef struct fk {
	char schema[RT_NAME_MAX];   /* the child's database (the constraint's) */
	char name[RT_NAME_MAX];     /* the constraint */
	char child[RT_NAME_MAX];    /* the child table */
	char pschema[RT_NAME_MAX];  /* the parent's database */
	char parent[RT_NAME_MAX];   /* the parent table */
} fk;

typedef struct fk_set {
	fk v[FK_MAX]; /* the constraints */
	size_t n;     /* how many */
} fk_set;

static int add_fk(void *ctx, unsigned n, char **names, char **values)
{
	fk_set *s = ctx;
	if (n < 5 || s->n >= FK_MAX)
		return 0;
	for (unsigned i = 0; i < 5; i++)
		if (!values[i] || strlen(values[i]) >= RT_NAME_MAX)
			return 0;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].schema, values[0]) && !strcmp(s->v[i].name, values[1]) &&
		    !strcmp(s->v[i].child, values[2]))
			return 0; /* met from its other table */
	fk *f = &s->v[s->n++];
	strcpy(f->schema, values[0]);
	strcpy(f->name, values[1]);
	strcpy(f->child, values[2]);
	strcpy(f->pschema, values[3]);
	strcpy(f->parent, values[4]);
	return 0;
}

/* The join condition built from the key's columns, in order. */
typedef struct cond {
	char notnull[4096]; /* c.`a` IS NOT NULL AND ... */
	char match[4096];   /* p.`x` = c.`a` AND ... */
	bool toolong;       /* a column list did not fit */
} cond;

static int add_col(void *ctx, unsigned n, char **names, char **values)
{
	cond *k = ctx;
	char a[2 * RT_NAME_MAX + 3], x[2 * RT_NAME_MAX + 3];
	if (n < 2 || !values[0] || !values[1] || !xb_server_ident(values[0], a, sizeof a) ||
	    !xb_server_ident(values[1], x, sizeof x)) {
		k->toolong = true;
		return 0;
	}
	size_t l1 = strlen(k->notnull), l2 = strlen(k->match);
	int w1 = snprintf(k->notnull + l1, sizeof k->notnull - l1, "%sc.%s IS NOT NULL", l1 ? " AND " : "", a);
	int w2 = snprintf(k->match + l2, sizeof k->match - l2, "%sp.%s = c.%s", l2 ? " AND " : "", x, a);
	if (w1 < 0 || (size_t)w1 >= sizeof k->notnull - l1 || w2 < 0 || (size_t)w2 >= sizeof k->match - l2)
		k->toolong = true;
	return 0;
}

/* Count and report the orphans of one constraint. */
static void check_fk(rt_ctx *c, const fk *f)
{
	char ls[600], ln[600], lt[600], sql[12288], qc[RT_Q_MAX], qp[RT_Q_MAX], qn[2 * RT_NAME_MAX + 3];
	xb_error err;
	xb_err_clear(&err);
	if (!xb_server_literal(f->schema, ls, sizeof ls) || !xb_server_literal(f->name, ln, sizeof ln) ||
	    !xb_server_literal(f->child, lt, sizeof lt))
		return;
	snprintf(sql, sizeof sql,
		 "SELECT COLUMN_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE "
		 "WHERE CONSTRAINT_SCHEMA = %s AND CONSTRAINT_NAME = %s AND TABLE_NAME = %s "
		 "AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY ORDINAL_POSITION", ls, ln, lt);
	cond k;
	memset(&k, 0, sizeof k);
	rt_qualified(f->schema, f->child, qc, sizeof qc);
	rt_qualified(f->pschema, f->parent, qp, sizeof qp);
	xb_server_ident(f->name, qn, sizeof qn);
	if (xb_server_rows(&c->srv, sql, add_col, &k, &err) || k.toolong || !k.match[0]) {
		xb_warn("foreign key %s of %s: its columns could not be read, its rows are not checked%s%s", qn, qc,
			err.msg[0] ? ": " : "", err.msg);
		return;
	}
	snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s c WHERE %s AND NOT EXISTS (SELECT 1 FROM %s p WHERE %s)", qc,
		 k.notnull, qp, k.match);
	char *v = NULL;
	if (xb_server_value(&c->srv, sql, &v, &err)) {
		xb_warn("foreign key %s of %s: counting its rows without a parent failed: %s", qn, qc, err.msg);
		return;
	}
	unsigned long long orphans = v ? strtoull(v, NULL, 10) : 0;
	free(v);
	if (orphans)
		xb_warn("foreign key %s: %llu rows of %s have no parent row in %s (the restored rows and the live ones "
			"disagree; find them with: %s)", qn, orphans, qc, qp, sql);
	else
		xb_info("foreign key %s: every row of %s has its parent row in %s", qn, qc, qp);
}

void rt_fk_report(rt_ctx *c)
{
	xb_error err;
	xb_err_clear(&err);
	if (rt_exec(c, &err, "SET SESSION foreign_key_checks = 1"))
		xb_warn("%s", err.msg);
	fk_set *s = calloc(1, sizeof *s);
	if (!s) {
		xb_warn("out of memory: the foreign keys of the restored tables are not checked");
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		const rt_item *it = &c->items[i];
		if (it->state != RT_RESTORED)
			continue;
		char ld[600], lt[600], sql[3072];
		if (!xb_server_literal(it->t->to_db, ld, sizeof ld) || !xb_server_literal(it->t->to_name, lt, sizeof lt))
			continue;
		snprintf(sql, sizeof sql,
			 "SELECT CONSTRAINT_SCHEMA, CONSTRAINT_NAME, TABLE_NAME, UNIQUE_CONSTRAINT_SCHEMA, "
			 "REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS "
			 "WHERE (CONSTRAINT_SCHEMA = %s AND TABLE_NAME = %s) "
			 "OR (UNIQUE_CONSTRAINT_SCHEMA = %s AND REFERENCED_TABLE_NAME = %s) "
			 "ORDER BY CONSTRAINT_SCHEMA, TABLE_NAME, CONSTRAINT_NAME", ld, lt, ld, lt);
		if (xb_server_rows(&c->srv, sql, add_fk, s, &err))
			xb_warn("the foreign keys of %s could not be listed: %s", it->qto, err.msg);
	}
	for (size_t i = 0; i < s->n; i++)
		check_fk(c, &s->v[i]);
	free(s);
}
