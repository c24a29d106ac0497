/*
 * createstmt.c - CREATE TABLE text: a new name, foreign keys left out, and
 * the comparison of two definitions (see createstmt.h). Each statement is
 * cut into lines; the first line's quoted name is found by walking its
 * quotes (a doubled quote stands for itself), the AUTO_INCREMENT=N option is
 * taken out of the line of table options, the one starting with ')'.
 */
#include "createstmt.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char create_prefix[] = "CREATE TABLE ";

/* The end of the quoted name starting at p (its closing quote + 1), or NULL. */
static const char *name_end(const char *p)
{
	char q = *p;
	if (q != '`' && q != '"')
		return NULL;
	for (p++; *p; p++) {
		if (*p == q && p[1] == q)
			p++;
		else if (*p == q)
			return p + 1;
	}
	return NULL;
}

/* Where the name ends on the first line (after "CREATE TABLE "), or NULL. */
static const char *after_name(const char *sql)
{
	if (strncmp(sql, create_prefix, sizeof create_prefix - 1))
		return NULL;
	return name_end(sql + sizeof create_prefix - 1);
}

static bool is_fk_line(const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	while (p < end && *p == ' ')
		p++;
	if ((size_t)(end - p) < 11 || strncmp(p, "CONSTRAINT ", 11))
		return false;
	const char *e = name_end(p + 11);
	return e && e < end && (size_t)(end - e) >= 13 && !strncmp(e, " FOREIGN KEY ", 13);
}

/* A growing string. */
typedef struct buf {
	char *s;    /* the text, NUL-terminated */
	size_t n;   /* its length */
	size_t cap; /* bytes allocated */
	bool nomem; /* an append ran out of memory */
} buf;

static void put(buf *b, const char *s, size_t n)
{
	if (b->nomem)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *t = realloc(b->s, cap);
		if (!t) {
			b->nomem = true;
			return;
		}
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

int createstmt_target(const char *sql, const char *qname, bool drop_fks, char **out, xb_error *err)
{
	*out = NULL;
	const char *rest = after_name(sql);
	if (!rest)
		return xb_err_set(err, XB_E_BACKUP_DAMAGED, "a recorded table definition does not start with "
				  "CREATE TABLE and a quoted name: '%.40s'", sql);
	buf b = {0};
	if (qname) {
		put(&b, create_prefix, sizeof create_prefix - 1);
		put(&b, qname, strlen(qname));
	} else {
		put(&b, sql, (size_t)(rest - sql));
	}
	/* the lines after the name; a line left out may leave a comma before ')' */
	const char *p = rest;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (drop_fks && is_fk_line(p, len)) {
			p += len + (nl != NULL);
			continue;
		}
		if (*p == ')' && b.n > 1 && b.s && b.s[b.n - 1] == '\n' && b.s[b.n - 2] == ',') {
			b.s[b.n - 2] = '\n';
			b.s[--b.n] = '\0';
		}
		put(&b, p, len + (nl != NULL));
		p += len + (nl != NULL);
	}
	if (b.nomem || !b.s) {
		free(b.s);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	*out = b.s;
	return 0;
}

/* Line k (0-based) of s normalised into out: the first without its name, the
 * options line without AUTO_INCREMENT=N. False past the last line. */
static bool norm_line(const char *s, int k, char *out, size_t n)
{
	const char *p = s;
	for (int i = 0; i < k; i++) {
		p = strchr(p, '\n');
		if (!p)
			return false;
		p++;
	}
	const char *nl = strchr(p, '\n');
	size_t len = nl ? (size_t)(nl - p) : strlen(p);
	char line[4096];
	if (len >= sizeof line)
		len = sizeof line - 1;
	memcpy(line, p, len);
	line[len] = '\0';
	if (k == 0) {
		const char *rest = after_name(line);
		if (rest)
			memmove(line + sizeof create_prefix - 1, rest, strlen(rest) + 1);
	} else if (line[0] == ')') {
		char *a = strstr(line, " AUTO_INCREMENT=");
		if (a) {
			char *e = a + 16;
			while (isdigit((unsigned char)*e))
				e++;
			memmove(a, e, strlen(e) + 1);
		}
	}
	snprintf(out, n, "%s", line);
	return true;
}

bool createstmt_same(const char *live, const char *backup, int *line, char *a, char *b, size_t n)
{
	char la[4096], lb[4096];
	for (int k = 0;; k++) {
		bool ha = norm_line(live, k, la, sizeof la), hb = norm_line(backup, k, lb, sizeof lb);
		if (!ha && !hb)
			return true;
		if (ha && hb && !strcmp(la, lb))
			continue;
		*line = k + 1;
		snprintf(a, n, "%s", ha ? la : "(none)");
		snprintf(b, n, "%s", hb ? lb : "(none)");
		return false;
	}
}

bool createstmt_has(const char *sql, const char *clause)
{
	const char *nl = strchr(sql, '\n');
	return nl && strstr(nl, clause) != NULL;
}
