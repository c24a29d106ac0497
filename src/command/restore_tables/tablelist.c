/*
 * tablelist.c - parsing --restore-tables and --rename (see tablelist.h).
 *
 * A small scanner reads one name at a time: a backquoted identifier up to its
 * closing backquote (a doubled one stands for itself), or a bare run of
 * characters up to the next '.', ',', ':' or blank. An item is two names
 * joined by a dot; a rename is two items joined by a colon.
 */
#include "tablelist.h"

#include "db/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Characters of a UTF-8 string (bytes that do not continue a character). */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

/* One name at *pp into out; advances *pp past it. 0, or XB_E_USAGE naming the option. */
static int scan_name(const char **pp, char *out, const char *opt, const char *item, xb_error *err)
{
	const char *p = *pp;
	size_t n = 0;
	if (*p == '`') {
		for (p++;; p++) {
			if (*p == '\0')
				return xb_err_set(err, XB_E_USAGE, "--%s: unclosed backquote in '%s'", opt, item);
			if (*p == '`' && p[1] != '`')
				break;
			if (*p == '`')
				p++; /* `` is one backquote */
			if (n + 1 >= RT_NAME_MAX)
				return xb_err_set(err, XB_E_USAGE, "--%s: name too long in '%s'", opt, item);
			out[n++] = *p;
		}
		p++;
	} else {
		for (; *p && !strchr(".,: \t\n`", *p); p++) {
			if (n + 1 >= RT_NAME_MAX)
				return xb_err_set(err, XB_E_USAGE, "--%s: name too long in '%s'", opt, item);
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	if (n == 0)
		return xb_err_set(err, XB_E_USAGE, "--%s: '%s' is not db.table", opt, item),
		       xb_err_hint(err, "name each table with its database: --restore-tables=shop.orders,shop.order_items");
	if (utf8_chars(out) > 64)
		return xb_err_set(err, XB_E_USAGE, "--%s: name longer than 64 characters in '%s'", opt, item);
	*pp = p;
	return 0;
}

/* One "db.name" at *pp. */
static int scan_table(const char **pp, char *db, char *name, const char *opt, const char *item, xb_error *err)
{
	int rc = scan_name(pp, db, opt, item, err);
	if (rc)
		return rc;
	if (**pp != '.')
		return xb_err_set(err, XB_E_USAGE, "--%s: '%s' is not db.table", opt, item),
		       xb_err_hint(err, "name each table with its database: --restore-tables=shop.orders,shop.order_items");
	(*pp)++;
	return scan_name(pp, name, opt, item, err);
}

/* The next comma-separated item of s (quotes respected) copied into item; NULL at the end. */
static const char *next_item(const char *s, char *item, size_t n)
{
	s = skip_blanks(s);
	if (*s == '\0')
		return NULL;
	size_t k = 0;
	bool quoted = false;
	for (; *s && (quoted || *s != ','); s++) {
		if (*s == '`')
			quoted = !quoted; /* `` closes and opens again: the same */
		if (k + 1 < n)
			item[k++] = *s;
	}
	while (k > 0 && strchr(" \t\n", item[k - 1]))
		k--;
	item[k] = '\0';
	return *s == ',' ? s + 1 : s;
}

static bool same(const char *db1, const char *n1, const char *db2, const char *n2)
{
	return !strcmp(db1, db2) && !strcmp(n1, n2);
}

/* The table db.name of l, or NULL. */
static rt_table *find(rt_list *l, const char *db, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (same(l->v[i].db, l->v[i].name, db, name))
			return &l->v[i];
	return NULL;
}

/* Parse the whole text of one item: a table, or a pair with a colon. */
static int parse_item(const char *item, bool pair, const char *opt, char *db, char *name, char *db2, char *name2,
		      xb_error *err)
{
	const char *p = item;
	int rc = scan_table(&p, db, name, opt, item, err);
	if (rc)
		return rc;
	p = skip_blanks(p);
	if (pair) {
		if (*p != ':')
			return xb_err_set(err, XB_E_USAGE, "--rename: '%s' is not db.table:db.new_table", item),
			       xb_err_hint(err, "e.g. --rename=shop.orders:shop.orders_restored");
		p = skip_blanks(p + 1);
		if ((rc = scan_table(&p, db2, name2, opt, item, err)))
			return rc;
		p = skip_blanks(p);
	}
	if (*p != '\0')
		return xb_err_set(err, XB_E_USAGE, "--%s: '%s' is not %s", opt, item,
				  pair ? "db.table:db.new_table" : "db.table");
	return 0;
}

int rt_list_parse(const char *tables, const char *renames, rt_list *l, xb_error *err)
{
	memset(l, 0, sizeof *l);
	char item[4 * RT_NAME_MAX];
	int rc;
	for (const char *s = tables ? tables : ""; (s = next_item(s, item, sizeof item));) {
		if (!*item)
			continue; /* "a.b,,c.d": an empty item is no table */
		rt_table t;
		memset(&t, 0, sizeof t);
		if ((rc = parse_item(item, false, "restore-tables", t.db, t.name, NULL, NULL, err)))
			return rc;
		if (find(l, t.db, t.name))
			return xb_err_set(err, XB_E_USAGE, "--restore-tables names %s.%s twice", t.db, t.name);
		memcpy(t.to_db, t.db, sizeof t.db);
		memcpy(t.to_name, t.name, sizeof t.name);
		rt_table *v = realloc(l->v, (l->n + 1) * sizeof *v);
		if (!v)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		l->v = v;
		l->v[l->n++] = t;
	}
	if (l->n == 0)
		return xb_err_set(err, XB_E_USAGE, "--restore-tables names no table"),
		       xb_err_hint(err, "e.g. --restore-tables=shop.orders,shop.order_items --target-dir=/backups/full");
	for (const char *s = renames ? renames : ""; (s = next_item(s, item, sizeof item));) {
		char db[RT_NAME_MAX], name[RT_NAME_MAX], db2[RT_NAME_MAX], name2[RT_NAME_MAX];
		if (!*item)
			continue;
		if ((rc = parse_item(item, true, "rename", db, name, db2, name2, err)))
			return rc;
		rt_table *t = find(l, db, name);
		if (!t)
			return xb_err_set(err, XB_E_USAGE, "--rename: %s.%s is not in --restore-tables", db, name),
			       xb_err_hint(err, "a renamed table is one of the tables restored: add it to --restore-tables");
		if (t->renamed)
			return xb_err_set(err, XB_E_USAGE, "--rename: %s.%s is renamed twice", db, name);
		if (same(db, name, db2, name2))
			return xb_err_set(err, XB_E_USAGE, "--rename: %s.%s is renamed to itself", db, name);
		memcpy(t->to_db, db2, sizeof db2);
		memcpy(t->to_name, name2, sizeof name2);
		t->renamed = true;
	}
	/* two tables must not land on one name (a rename onto another restored table) */
	for (size_t i = 0; i < l->n; i++)
		for (size_t j = i + 1; j < l->n; j++)
			if (same(l->v[i].to_db, l->v[i].to_name, l->v[j].to_db, l->v[j].to_name))
				return xb_err_set(err, XB_E_USAGE, "%s.%s and %s.%s would both be restored as %s.%s",
						  l->v[i].db, l->v[i].name, l->v[j].db, l->v[j].name, l->v[i].to_db,
						  l->v[i].to_name);
	return 0;
}

void rt_list_free(rt_list *l)
{
	free(l->v);
	memset(l, 0, sizeof *l);
}

void rt_qualified(const char *db, const char *name, char *out, size_t n)
{
	char a[2 * RT_NAME_MAX + 3], b[2 * RT_NAME_MAX + 3];
	xb_server_ident(db, a, sizeof a);
	xb_server_ident(name, b, sizeof b);
	snprintf(out, n, "%s.%s", a, b);
}
