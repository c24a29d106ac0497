/*
 * xbinfo.c - xtrabackup_info (see xbinfo.h).
 *
 * Both directions go through one table of the keys, in the file's order,
 * with the kind of each value and where it lives in the struct: the writer
 * prints every key of the table, the reader finds the key of each line in it.
 */
#include "info/xbinfo.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum kind {
	K_STR,     /* char[] field */
	K_COMMAND, /* tool_command */
	K_TIME,    /* time_t, "YYYY-MM-DD HH:MM:SS" local time */
	K_SECONDS, /* double, written rounded */
	K_BINLOG,  /* has_binlog + binlog */
	K_LSN,     /* unsigned long long */
	K_YN,      /* bool, "Y" or "N" */
	K_COMPRESSED, /* bool, "compressed" or "N" */
};

typedef struct field {
	const char *key; /* the key in the file */
	enum kind kind;  /* how its value is written */
	size_t off;      /* where it is in xb_xbinfo */
	size_t size;     /* K_STR: the size of the array */
} field;

#define F(key, kind, member) {#key, kind, offsetof(xb_xbinfo, member), sizeof(((xb_xbinfo *)0)->member)}

static const field fields[] = {
	F(uuid, K_STR, uuid),
	F(name, K_STR, name),
	F(tool_name, K_STR, tool_name),
	F(tool_command, K_COMMAND, tool_command),
	F(tool_version, K_STR, tool_version),
	F(ibbackup_version, K_STR, ibbackup_version),
	F(server_version, K_STR, server_version),
	F(start_time, K_TIME, start_time),
	F(end_time, K_TIME, end_time),
	F(lock_time, K_SECONDS, lock_time),
	F(binlog_pos, K_BINLOG, binlog),
	F(innodb_from_lsn, K_LSN, from_lsn),
	F(innodb_to_lsn, K_LSN, to_lsn),
	F(partial, K_YN, partial),
	F(incremental, K_YN, incremental),
	F(format, K_STR, format),
	F(compressed, K_COMPRESSED, compressed),
	F(encrypted, K_YN, encrypted),
};

#define TIME_FMT "%Y-%m-%d %H:%M:%S"
#define BINLOG_FILE "filename '"
#define BINLOG_POS "', position '"
#define BINLOG_GTID "', GTID of the last change '"

static void add_value(xb_text *t, const xb_xbinfo *x, const field *f)
{
	const void *p = (const char *)x + f->off;
	char buf[64];
	struct tm tm;
	switch (f->kind) {
	case K_STR:
		xb_text_add(t, "%s", (const char *)p);
		break;
	case K_COMMAND:
		xb_text_add(t, "%s", x->tool_command ? x->tool_command : "");
		break;
	case K_TIME:
		localtime_r(p, &tm);
		strftime(buf, sizeof buf, TIME_FMT, &tm);
		xb_text_add(t, "%s", buf);
		break;
	case K_SECONDS:
		xb_text_add(t, "%.0f", x->lock_time);
		break;
	case K_BINLOG:
		if (x->has_binlog)
			xb_text_add(t, BINLOG_FILE "%s" BINLOG_POS "%llu" BINLOG_GTID "%s'", x->binlog.file, x->binlog.pos,
				    x->binlog.gtid);
		break;
	case K_LSN:
		xb_text_add(t, "%llu", *(const unsigned long long *)p);
		break;
	case K_YN:
		xb_text_add(t, "%s", *(const bool *)p ? "Y" : "N");
		break;
	case K_COMPRESSED:
		xb_text_add(t, "%s", *(const bool *)p ? "compressed" : "N");
		break;
	}
}

void xb_xbinfo_format(const xb_xbinfo *x, xb_text *t)
{
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		xb_text_add(t, "%s = ", fields[i].key);
		add_value(t, x, &fields[i]);
		xb_text_add(t, "\n");
	}
}

bool xb_xbinfo_value(const xb_xbinfo *x, const char *key, xb_text *t)
{
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		if (!strcmp(fields[i].key, key)) {
			add_value(t, x, &fields[i]);
			return true;
		}
	return false;
}

/* Take the literal word w off the front of *v. */
static bool eat(xb_span *v, const char *w)
{
	size_t n = strlen(w);
	if (v->n < n || memcmp(v->s, w, n))
		return false;
	v->s += n, v->n -= n;
	return true;
}

/* Take the text up to the next quote (excluded) off the front of *v. */
static bool upto_quote(xb_span *v, xb_span *out)
{
	const char *q = memchr(v->s, '\'', v->n);
	if (!q)
		return false;
	*out = (xb_span){v->s, (size_t)(q - v->s)};
	v->n -= out->n, v->s = q;
	return true;
}

/* "filename 'F', position 'N', GTID of the last change 'G'" (mariabackup
 * leaves the GTID part out when there is none), or "". */
static bool parse_binlog(xb_span v, xb_xbinfo *x)
{
	xb_span file, pos, gtid = {"", 0};
	uint64_t p;
	x->has_binlog = v.n > 0;
	if (!v.n)
		return true;
	if (!eat(&v, BINLOG_FILE) || !upto_quote(&v, &file) || !eat(&v, BINLOG_POS) || !upto_quote(&v, &pos) ||
	    !xb_span_u64(pos, &p))
		return false;
	xb_span g = v;
	if (eat(&g, BINLOG_GTID) && upto_quote(&g, &gtid) && eat(&g, "'"))
		v = g;
	else if (!eat(&v, "'"))
		return false;
	x->binlog.pos = p;
	return !v.n && xb_span_copy(file, x->binlog.file, sizeof x->binlog.file) &&
	       xb_span_copy(gtid, x->binlog.gtid, sizeof x->binlog.gtid);
}

static bool parse_value(xb_span v, xb_xbinfo *x, const field *f)
{
	void *p = (char *)x + f->off;
	char buf[64], *rest;
	struct tm tm;
	uint64_t u;
	switch (f->kind) {
	case K_STR:
		return xb_span_copy(v, p, f->size);
	case K_COMMAND:
		free((void *)x->tool_command);
		return (x->tool_command = strndup(v.s, v.n)) != NULL;
	case K_TIME:
		memset(&tm, 0, sizeof tm);
		if (!xb_span_copy(v, buf, sizeof buf) || !(rest = strptime(buf, TIME_FMT, &tm)) || *rest)
			return false;
		tm.tm_isdst = -1;
		*(time_t *)p = mktime(&tm);
		return true;
	case K_SECONDS:
		if (!v.n || !xb_span_copy(v, buf, sizeof buf))
			return false;
		x->lock_time = strtod(buf, &rest);
		return !*rest && isfinite(x->lock_time);
	case K_BINLOG:
		return parse_binlog(v, x);
	case K_LSN:
		if (!xb_span_u64(v, &u))
			return false;
		*(unsigned long long *)p = u;
		return true;
	case K_YN:
	case K_COMPRESSED:
		*(bool *)p = !xb_span_is(v, "N");
		return xb_span_is(v, "N") || xb_span_is(v, "Y") || (f->kind == K_COMPRESSED && xb_span_is(v, "compressed"));
	}
	return false;
}

static bool take(xb_span key, xb_span val, void *value)
{
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		if (xb_span_is(key, fields[i].key))
			return parse_value(val, value, &fields[i]);
	return true; /* a key of another tool */
}

int xb_xbinfo_read(const char *dir, xb_xbinfo *x, xb_error *err)
{
	memset(x, 0, sizeof *x);
	return xb_metafile_load_kv(dir, XB_XBINFO_FILE, XB_E_IO_READ, take, x, err);
}

void xb_xbinfo_free(xb_xbinfo *x)
{
	free((void *)x->tool_command);
	x->tool_command = NULL;
}
