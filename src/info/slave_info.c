/*
 * slave_info.c - xtrabackup_slave_info (see slave_info.h).
 *
 * The parser walks each line with a cursor that must match the fixed words
 * of the statement exactly and takes the quoted parts up to their closing
 * quote: the file holds what the writer wrote, nothing looser.
 */
#include "info/slave_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SET_GTID "SET GLOBAL gtid_slave_pos = '"
#define CHANGE "CHANGE MASTER "
#define BY_GTID "TO master_use_gtid = slave_pos;"
#define BY_FILE "TO MASTER_LOG_FILE='"
#define BY_POS "', MASTER_LOG_POS="

int xb_slave_info_add(xb_slave_info *si, const xb_slave_channel *ch, xb_error *err)
{
	xb_slave_channel *v = realloc(si->ch, (si->n + 1) * sizeof *v);
	if (!v)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	si->ch = v;
	si->ch[si->n++] = *ch;
	return 0;
}

void xb_slave_info_free(xb_slave_info *si)
{
	free(si->ch);
	si->ch = NULL;
	si->n = 0;
}

void xb_slave_info_settle(xb_slave_info *si, const char *gtid_slave_pos)
{
	si->has_gtid_slave_pos = false;
	snprintf(si->gtid_slave_pos, sizeof si->gtid_slave_pos, "%s", gtid_slave_pos ? gtid_slave_pos : "");
	for (size_t i = 0; i < si->n; i++) {
		si->ch[i].use_gtid = si->ch[i].use_gtid && si->gtid_slave_pos[0];
		si->has_gtid_slave_pos |= si->ch[i].use_gtid;
	}
}

void xb_slave_info_describe(const xb_slave_info *si, xb_text *t)
{
	xb_text_add(t, "MySQL slave binlog position: ");
	if (si->has_gtid_slave_pos)
		xb_text_add(t, "gtid_slave_pos '%s'", si->gtid_slave_pos);
	for (size_t i = 0; i < si->n; i++) {
		const xb_slave_channel *c = &si->ch[i];
		xb_text_add(t, "%smaster '%s' ", i || si->has_gtid_slave_pos ? "; " : "", c->name);
		if (c->use_gtid)
			xb_text_add(t, "master_use_gtid = slave_pos");
		else
			xb_text_add(t, "filename '%s' position '%llu'", c->file, c->pos);
	}
}

void xb_slave_info_format(const xb_slave_info *si, xb_text *t)
{
	if (si->has_gtid_slave_pos)
		xb_text_add(t, SET_GTID "%s';\n", si->gtid_slave_pos);
	for (size_t i = 0; i < si->n; i++) {
		const xb_slave_channel *c = &si->ch[i];
		char who[sizeof c->name + 3] = "";
		if (c->name[0])
			snprintf(who, sizeof who, "'%s' ", c->name);
		if (c->use_gtid)
			xb_text_add(t, CHANGE "%s" BY_GTID "\n", who);
		else
			xb_text_add(t, CHANGE "%s" BY_FILE "%s" BY_POS "%llu;\n", who, c->file, c->pos);
	}
}

/* A cursor over one line. */
typedef struct cur {
	const char *p;   /* next byte */
	const char *end; /* end of the line */
} cur;

/* Take the literal word w. */
static bool eat(cur *c, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n))
		return false;
	c->p += n;
	return true;
}

/* Take the text up to the next quote (not included) into out. */
static bool quoted(cur *c, char *out, size_t size)
{
	const char *q = memchr(c->p, '\'', (size_t)(c->end - c->p));
	if (!q || !xb_span_copy((xb_span){c->p, (size_t)(q - c->p)}, out, size))
		return false;
	c->p = q;
	return true;
}

/* Take a decimal number. */
static bool number(cur *c, unsigned long long *v)
{
	const char *s = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	uint64_t x;
	if (!xb_span_u64((xb_span){s, (size_t)(c->p - s)}, &x))
		return false;
	*v = x;
	return true;
}

/* One CHANGE MASTER statement after its first word. */
static bool change(cur *c, xb_slave_channel *ch)
{
	memset(ch, 0, sizeof *ch);
	if (eat(c, "'") && !(quoted(c, ch->name, sizeof ch->name) && ch->name[0] && eat(c, "' ")))
		return false;
	if (eat(c, BY_GTID))
		return ch->use_gtid = true, c->p == c->end;
	return eat(c, BY_FILE) && quoted(c, ch->file, sizeof ch->file) && eat(c, BY_POS) && number(c, &ch->pos) &&
	       eat(c, ";") && c->p == c->end;
}

static int parse(xb_lines *l, void *value, xb_error *err)
{
	xb_slave_info *si = value;
	xb_span line;
	while (xb_lines_next(l, &line)) {
		cur c = {line.s, line.s + line.n};
		xb_slave_channel ch;
		if (!line.n)
			continue;
		if (eat(&c, SET_GTID)) {
			if (l->no != 1 || !quoted(&c, si->gtid_slave_pos, sizeof si->gtid_slave_pos) || !eat(&c, "';") ||
			    c.p != c.end)
				return xb_lines_error(l, XB_E_IO_READ, line, err,
						      "expected SET GLOBAL gtid_slave_pos = '...'; as the first line");
			si->has_gtid_slave_pos = true;
		} else if (!eat(&c, CHANGE) || !change(&c, &ch)) {
			return xb_lines_error(l, XB_E_IO_READ, line, err,
					      "expected CHANGE MASTER ['NAME' ]TO master_use_gtid = slave_pos; or "
					      "... TO MASTER_LOG_FILE='FILE', MASTER_LOG_POS=N;");
		} else if (xb_slave_info_add(si, &ch, err)) {
			return XB_E_INTERNAL;
		}
	}
	return 0;
}

int xb_slave_info_read(const char *dir, xb_slave_info *si, xb_error *err)
{
	memset(si, 0, sizeof *si);
	return xb_metafile_load(dir, XB_SLAVE_INFO_FILE, parse, si, err);
}
