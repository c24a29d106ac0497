/*
 * tablefilter.c - the databases and tables of a partial backup (see
 * tablefilter.h).
 *
 * Names to keep and names to leave out are held in two sets each: databases
 * (with whether the database was named only for a table of it: "db.t" keeps
 * db's directory open but not all its tables) and "db.table" names, the
 * latter sorted once built and searched by bisection. The first mention of a
 * database decides whether it stands for itself or for some tables. Regexes
 * are compiled once (POSIX extended); matching holds a mutex, as not every C
 * library's regexec may be shared between threads.
 */
#include "tablefilter.h"

#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_BYTES 192   /* a database or table name: 64 characters of up to 3 bytes */
#define TMP_PREFIX "#sql"    /* the server's temporary tables */

typedef struct db_entry {
	char *name;      /* the database, as its directory is named */
	bool has_tables; /* first named as "db.table": only the tables named are meant */
} db_entry;

/* One direction: what to keep, or what to leave out. */
typedef struct name_sets {
	db_entry *dbs;       /* databases */
	size_t ndbs, cdbs;   /* count, allocated */
	char **tables;       /* "db.table" names, sorted once built */
	size_t ntables, ctables; /* count, allocated */
	regex_t *rx;         /* compiled regexes */
	size_t nrx, crx;     /* count, allocated */
} name_sets;

struct tablefilter {
	name_sets keep;        /* --databases, --databases-file, --tables, --tables-file */
	name_sets leave;       /* --databases-exclude, --tables-exclude, ignore_db_dirs */
	bool partial;          /* one of the options was given */
	pthread_mutex_t rx_mu; /* serialises regexec */
};

static int oom(xb_error *err)
{
	return xb_err_set(err, XB_E_INTERNAL, "out of memory");
}

static int grow(void **v, size_t *cap, size_t n, size_t size, xb_error *err)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *p = realloc(*v, c * size);
	if (!p)
		return oom(err);
	*v = p;
	*cap = c;
	return 0;
}

static db_entry *find_db(const name_sets *s, const char *name, size_t len)
{
	for (size_t i = 0; i < s->ndbs; i++)
		if (strlen(s->dbs[i].name) == len && !memcmp(s->dbs[i].name, name, len))
			return &s->dbs[i];
	return NULL;
}

static int add_db(name_sets *s, const char *name, size_t len, bool has_tables, xb_error *err)
{
	if (find_db(s, name, len)) /* the first mention decides */
		return 0;
	if (grow((void **)&s->dbs, &s->cdbs, s->ndbs, sizeof *s->dbs, err))
		return XB_E_INTERNAL;
	char *n = strndup(name, len);
	if (!n)
		return oom(err);
	s->dbs[s->ndbs++] = (db_entry){.name = n, .has_tables = has_tables};
	return 0;
}

/* A name of --databases, --databases-file, --databases-exclude or --tables-file. */
static int check_name(const char *option, const char *name, size_t len, xb_error *err)
{
	if (len > NAME_MAX_BYTES) {
		xb_err_set(err, XB_E_USAGE, "--%s: name %s is too long (more than %d bytes)", option, name, NAME_MAX_BYTES);
		return xb_err_hint(err, "give database and table names as the datadir names their directories and files");
	}
	const char *p = strpbrk(name, "/\\~");
	if (p && (size_t)(p - name) < len) {
		xb_err_set(err, XB_E_USAGE, "--%s: name %s is not valid (it holds '%c')", option, name, *p);
		return xb_err_hint(err, "give db or db.table names, as the datadir names them (my-db is my@002ddb)");
	}
	return 0;
}

/* "db" or "db.table" into s. */
static int add_name(name_sets *s, const char *option, const char *name, xb_error *err)
{
	size_t len = strlen(name);
	const char *dot = strchr(name, '.');
	int rc;
	if (!dot)
		return (rc = check_name(option, name, len, err)) ? rc : add_db(s, name, len, false, err);
	if ((rc = check_name(option, name, (size_t)(dot - name), err)) ||
	    (rc = check_name(option, dot + 1, len - (size_t)(dot - name), err)) ||
	    (rc = add_db(s, name, (size_t)(dot - name), true, err)))
		return rc;
	if (grow((void **)&s->tables, &s->ctables, s->ntables, sizeof *s->tables, err))
		return XB_E_INTERNAL;
	if (!(s->tables[s->ntables] = strdup(name)))
		return oom(err);
	s->ntables++;
	return 0;
}

static int add_regex(name_sets *s, const char *option, const char *rx, xb_error *err)
{
	if (grow((void **)&s->rx, &s->crx, s->nrx, sizeof *s->rx, err))
		return XB_E_INTERNAL;
	int r = regcomp(&s->rx[s->nrx], rx, REG_EXTENDED | REG_NOSUB);
	if (r) {
		char why[160];
		regerror(r, &s->rx[s->nrx], why, sizeof why);
		xb_err_set(err, XB_E_USAGE, "--%s: %s is not a valid regular expression: %s", option, rx, why);
		return xb_err_hint(err, "give POSIX extended regular expressions separated by commas, matched against "
				   "db.table, e.g. --%s='^shop[.]orders$'", option);
	}
	s->nrx++;
	return 0;
}

typedef int (*add_fn)(name_sets *s, const char *option, const char *item, xb_error *err);

/* The items of list, split at any of delims (empty items are passed over). */
static int add_list(name_sets *s, const char *option, const char *list, const char *delims, add_fn add, xb_error *err)
{
	char *copy = strdup(list);
	if (!copy)
		return oom(err);
	char *save = NULL;
	int rc = 0;
	for (char *p = strtok_r(copy, delims, &save); p && !rc; p = strtok_r(NULL, delims, &save))
		rc = add(s, option, p, err);
	free(copy);
	return rc;
}

static int add_table_name(name_sets *s, const char *option, const char *name, xb_error *err)
{
	if (!strchr(name, '.')) {
		xb_err_set(err, XB_E_USAGE, "--%s: %s is not a db.table name", option, name);
		return xb_err_hint(err, "write one fully qualified db.table name a line");
	}
	return add_name(s, option, name, err);
}

/* Every line of file (its end of line taken off; a last line without one
 * counts as well). */
static int add_file(name_sets *s, const char *option, const char *file, add_fn add, xb_error *err)
{
	FILE *fp = fopen(file, "r");
	if (!fp) {
		xb_err_set(err, XB_E_USAGE, "--%s=%s: cannot open the file: %s", option, file, strerror(errno));
		return xb_err_hint(err, "give a readable file with one name a line");
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while (!rc && (n = getline(&line, &cap, fp)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		rc = add(s, option, line, err);
	}
	if (!rc && ferror(fp))
		rc = xb_err_set(err, XB_E_USAGE, "--%s=%s: cannot read the file: %s", option, file, strerror(errno));
	free(line);
	fclose(fp);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sets_free(name_sets *s)
{
	for (size_t i = 0; i < s->ndbs; i++)
		free(s->dbs[i].name);
	for (size_t i = 0; i < s->ntables; i++)
		free(s->tables[i]);
	for (size_t i = 0; i < s->nrx; i++)
		regfree(&s->rx[i]);
	free(s->dbs);
	free(s->tables);
	free(s->rx);
}

int tablefilter_create(const tablefilter_settings *s, tablefilter **out, xb_error *err)
{
	*out = NULL;
	tablefilter *f = calloc(1, sizeof *f);
	if (!f)
		return oom(err);
	pthread_mutex_init(&f->rx_mu, NULL);
	int rc = 0;
	if (!rc && s->databases)
		rc = add_list(&f->keep, "databases", s->databases, " \t", add_name, err);
	if (!rc && s->databases_file)
		rc = add_file(&f->keep, "databases-file", s->databases_file, add_name, err);
	if (!rc && s->databases_exclude)
		rc = add_list(&f->leave, "databases-exclude", s->databases_exclude, " \t", add_name, err);
	if (!rc && s->tables)
		rc = add_list(&f->keep, "tables", s->tables, ",", add_regex, err);
	if (!rc && s->tables_file)
		rc = add_file(&f->keep, "tables-file", s->tables_file, add_table_name, err);
	if (!rc && s->tables_exclude)
		rc = add_list(&f->leave, "tables-exclude", s->tables_exclude, ",", add_regex, err);
	if (rc) {
		tablefilter_free(f);
		return rc;
	}
	f->partial = s->databases || s->databases_file || s->databases_exclude || s->tables || s->tables_file ||
		     s->tables_exclude;
	/* qsort of an empty set would be given a NULL array, which it may not */
	if (f->keep.ntables)
		qsort(f->keep.tables, f->keep.ntables, sizeof *f->keep.tables, cmp_str);
	if (f->leave.ntables)
		qsort(f->leave.tables, f->leave.ntables, sizeof *f->leave.tables, cmp_str);
	*out = f;
	return 0;
}

static int add_dir(name_sets *s, const char *option, const char *name, xb_error *err)
{
	(void)option;
	return add_db(s, name, strlen(name), false, err);
}

int tablefilter_ignore_dirs(tablefilter *f, const char *list, xb_error *err)
{
	return list && *list ? add_list(&f->leave, "ignore-db-dirs", list, ",", add_dir, err) : 0;
}

bool tablefilter_partial(const tablefilter *f)
{
	return f && f->partial;
}

void tablefilter_free(tablefilter *f)
{
	if (!f)
		return;
	sets_free(&f->keep);
	sets_free(&f->leave);
	pthread_mutex_destroy(&f->rx_mu);
	free(f);
}

static bool empty(const name_sets *s)
{
	return !s->ndbs && !s->ntables && !s->nrx;
}

enum db_verdict {
	DB_SKIP,          /* the whole database is left out */
	DB_SOME_TABLES,   /* kept for the tables named of it */
	DB_KEEP,          /* no database filter speaks of it */
	DB_KEEP_ALL,      /* named to keep: its tables are kept unless excluded */
};

static enum db_verdict db_verdict(const tablefilter *f, const char *db, size_t len)
{
	const db_entry *e = find_db(&f->leave, db, len);
	if (e && (!e->has_tables || !f->keep.ndbs))
		return DB_SKIP;
	if (f->keep.ndbs) {
		if (!(e = find_db(&f->keep, db, len)))
			return DB_SKIP;
		return e->has_tables ? DB_SOME_TABLES : DB_KEEP_ALL;
	}
	return DB_KEEP;
}

bool tablefilter_skip_database(const tablefilter *f, const char *db)
{
	if (!f || (!f->keep.ndbs && !f->leave.ndbs))
		return false;
	return db_verdict(f, db, strlen(db)) == DB_SKIP;
}

/* Whether "db.table" is one of s's names or matches one of its regexes. */
static bool matches(tablefilter *f, const name_sets *s, const char *name)
{
	if (s->nrx) {
		bool hit = false;
		pthread_mutex_lock(&f->rx_mu);
		for (size_t i = 0; i < s->nrx && !hit; i++)
			hit = regexec(&s->rx[i], name, 0, NULL, 0) == 0;
		pthread_mutex_unlock(&f->rx_mu);
		if (hit)
			return true;
	}
	return s->ntables && bsearch(&name, s->tables, s->ntables, sizeof *s->tables, cmp_str);
}

bool tablefilter_skip_file(const tablefilter *f, const char *db, const char *name)
{
	if (!f || !db)
		return false;
	if (f->partial && !strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)))
		return true;
	if (empty(&f->keep) && empty(&f->leave))
		return false;
	enum db_verdict v = db_verdict(f, db, strlen(db));
	if (v == DB_SKIP)
		return true;
	/* "db.table": the file name up to its first dot (a dot in a name is @002e) */
	size_t dl = strlen(db), tl = strcspn(name, ".");
	char buf[2 * NAME_MAX_BYTES + 64];
	if (dl + 1 + tl >= sizeof buf)
		return v != DB_KEEP && v != DB_KEEP_ALL;
	snprintf(buf, sizeof buf, "%s.%.*s", db, (int)tl, name);
	tablefilter *mf = (tablefilter *)f; /* the regex mutex only */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) { /* a partition follows its table */
			char *p = strstr(buf + dl + 1, "#P#");
			if (!p)
				break;
			*p = '\0';
		}
		if (matches(mf, &f->leave, buf))
			return true;
		if (matches(mf, &f->keep, buf))
			return false;
	}
	if (v == DB_KEEP_ALL)
		return false;
	return v == DB_SOME_TABLES || f->keep.nrx || f->keep.ntables;
}

bool tablefilter_skip_rel(const tablefilter *f, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	if (!f || !slash)
		return false;
	const char *db = rel;
	for (const char *p = rel; p < slash; p++)
		if (*p == '/')
			db = p + 1;
	char dbuf[NAME_MAX_BYTES * 2];
	size_t dl = (size_t)(slash - db);
	if (dl >= sizeof dbuf)
		return false;
	memcpy(dbuf, db, dl);
	dbuf[dl] = '\0';
	return tablefilter_skip_file(f, dbuf, slash + 1);
}
