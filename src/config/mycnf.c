/*
 * mycnf.c - read MariaDB option files (see mycnf.h for the rules).
 *
 * mycnf_load() builds the list of files to read (only --defaults-file, or
 * the standard list with the extra file slotted in before ~/.my.cnf), then
 * reads each one line by line: comments and blank lines are dropped, "!"
 * lines are include directives handled by reading the named file(s) one
 * level deeper, "[" lines change the current group, and everything else is
 * an option stored with the group, file and line it came from. File and
 * group strings are kept once in the mycnf object and shared by the options.
 * The quirks that decide compatibility are kept on purpose: a '#' inside
 * quotes is data, quotes are only stripped when both ends match, unknown
 * escapes keep their backslash, an error inside an included file only ends
 * that file, and byte 0xA0 counts as a blank.
 */
#include "config/mycnf.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/log.h"

/* How deep !include / !includedir may nest below a file named directly. */
#define MYCNF_MAX_DEPTH 10

/* read_file() result for a file that cannot be opened (errors are XB_E_* codes > 0). */
#define RD_MISSING (-1)

/* Blank as in MariaDB's latin1 table: ASCII white space and no-break space. */
static int is_blank(char ch)
{
	unsigned char c = (unsigned char)ch;
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == 0xA0;
}

static char *skip_blanks(char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

/* Append a copy of s[0..len) to a string pool; returns the copy or NULL. */
static char *pool_add(char ***pool, size_t *n, const char *s, size_t len)
{
	char *copy = strndup(s, len);
	if (!copy)
		return NULL;
	char **grown = realloc(*pool, (*n + 1) * sizeof **pool);
	if (!grown) {
		free(copy);
		return NULL;
	}
	grown[(*n)++] = copy;
	*pool = grown;
	return copy;
}

static int oom(xb_error *err, const char *file)
{
	return xb_err_set(err, XB_E_INTERNAL, "out of memory while reading option file %s", file);
}

/* Store name as written, name normalised (lower case, '_' for '-') and value. */
static int add_opt(mycnf *cnf, const char *group, const char *file, int line,
		   const char *name, size_t name_len, char *value)
{
	if (cnf->n == cnf->cap) {
		size_t cap = cnf->cap ? cnf->cap * 2 : 64;
		mycnf_opt *grown = realloc(cnf->opts, cap * sizeof *grown);
		if (!grown)
			return -1;
		cnf->opts = grown;
		cnf->cap = cap;
	}
	char *raw = strndup(name, name_len), *norm = strndup(name, name_len);
	if (!raw || !norm) {
		free(raw);
		free(norm);
		return -1;
	}
	for (char *p = norm; *p; p++)
		*p = *p == '-' ? '_' : (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
	mycnf_opt *o = &cnf->opts[cnf->n++];
	o->group = group;
	o->name = norm;
	o->raw_name = raw;
	o->value = value;
	o->file = file;
	o->line = line;
	return 0;
}

/*
 * Cut a trailing comment: the first '#' not inside quotes ends the line.
 * A quote opens anywhere on the line; inside quotes a backslash protects
 * the next character. Returns the new end of the string.
 */
static char *cut_comment(char *s)
{
	char open = 0;      /* the quote we are inside, 0 when outside */
	int escaped = 0;    /* previous character was a protecting backslash */
	for (; *s; s++) {
		if (!escaped && (*s == '"' || *s == '\'')) {
			if (!open)
				open = *s;
			else if (open == *s)
				open = 0;
		}
		if (!open && *s == '#') {
			*s = '\0';
			return s;
		}
		escaped = open && !escaped && *s == '\\';
	}
	return s;
}

/* Decode value text v[0..len): strip one pair of equal quotes, then the escapes. */
static char *decode_value(const char *v, size_t len)
{
	if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
		v++;
		len -= 2;
	}
	char *out = malloc(len + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (v[i] != '\\' || i + 1 == len) {
			*o++ = v[i];
			continue;
		}
		char c = v[++i];
		switch (c) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'b': *o++ = '\b'; break;
		case 's': *o++ = ' '; break;
		case '"': case '\'': case '\\': *o++ = c; break;
		default: *o++ = '\\'; *o++ = c; break;
		}
	}
	*o = '\0';
	return out;
}

/* Parse an option line p (first character not blank) of the current group. */
static int parse_option(mycnf *cnf, char *p, const char *group, const char *file, int line, xb_error *err)
{
	char *end = cut_comment(p);
	char *eq = strchr(p, '=');
	char *name_end = eq ? eq : end;
	while (name_end > p && is_blank(name_end[-1]))
		name_end--;
	char *value = NULL;
	if (eq) {
		char *v = skip_blanks(eq + 1);
		char *ve = v + strlen(v);
		while (ve > v && is_blank(ve[-1]))
			ve--;
		if (!(value = decode_value(v, (size_t)(ve - v))))
			return oom(err, file);
	}
	if (add_opt(cnf, group, file, line, p, (size_t)(name_end - p), value)) {
		free(value);
		return oom(err, file);
	}
	return 0;
}

static int read_file(mycnf *cnf, const char *path, int depth, int *sys_errno, xb_error *err);

/* Read an included file; its errors end only that file and are logged. */
static int read_included(mycnf *cnf, const char *path, int depth)
{
	xb_error sub;
	int sys_errno = 0;
	xb_err_clear(&sub);
	if (read_file(cnf, path, depth, &sys_errno, &sub) > 0) {
		if (sub.code == XB_E_INTERNAL)
			return -1;
		xb_warn("%s (rest of the included file ignored)", sub.msg);
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read the *.cnf files of dir in name order. */
static int include_dir(mycnf *cnf, const char *dir, const char *file, int line, int depth, xb_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return xb_err_set(err, XB_E_CONFIG, "cannot read directory '%s' of !includedir in config file %s at line %d: %s",
				  dir, file, line, strerror(errno));
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	const struct dirent *de;
	while (!rc && (de = readdir(d))) {
		const char *dot = strrchr(de->d_name, '.');
		if (dot && !strcmp(dot, ".cnf") && !pool_add(&names, &n, de->d_name, strlen(de->d_name)))
			rc = oom(err, file);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, by_name);
	size_t dlen = strlen(dir);
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	for (size_t i = 0; i < n && !rc; i++) {
		char *path;
		if (asprintf(&path, "%.*s%s%s", (int)dlen, dir, dir[dlen - 1] == '/' ? "" : "/", names[i]) < 0) {
			rc = oom(err, file);
			break;
		}
		if (read_included(cnf, path, depth))
			rc = oom(err, file);
		free(path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* Handle a "!" line (p points at the '!'). */
static int directive(mycnf *cnf, char *p, const char *file, int line, int depth, xb_error *err)
{
	if (depth >= MYCNF_MAX_DEPTH) {
		char *e = p + strlen(p);
		while (e > p && is_blank(e[-1]))
			e--;
		*e = '\0';
		xb_warn("skipping '%s' directive as maximum include recursion level was reached in file %s at line %d",
			p, file, line);
		return 0;
	}
	char *kw = skip_blanks(p + 1), *arg;
	int is_dir = 0;
	if (!strncmp(kw, "includedir", 10) && is_blank(kw[10])) {
		is_dir = 1;
		arg = kw + 10;
	} else if (!strncmp(kw, "include", 7) && is_blank(kw[7])) {
		arg = kw + 7;
	} else {
		return 0; /* unknown directives are ignored, as MariaDB does */
	}
	arg = skip_blanks(arg);
	char *e = arg + strlen(arg);
	while (e > arg && is_blank(e[-1]))
		e--;
	*e = '\0';
	if (!*arg)
		return xb_err_set(err, XB_E_CONFIG, "wrong '!%s' directive in config file %s at line %d: no name given",
				  is_dir ? "includedir" : "include", file, line);
	if (is_dir)
		return include_dir(cnf, arg, file, line, depth + 1, err);
	return read_included(cnf, arg, depth + 1) ? oom(err, file) : 0;
}

/*
 * Read one file: 0 when read (or skipped as world-writable), RD_MISSING
 * (with *sys_errno) when it cannot be opened, else the XB_E_* code set in err.
 */
static int read_file(mycnf *cnf, const char *path, int depth, int *sys_errno, xb_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		*sys_errno = errno;
		return RD_MISSING;
	}
	if (S_ISREG(st.st_mode) && (st.st_mode & S_IWOTH)) {
		xb_warn("World-writable config file '%s' is ignored", path);
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return 0; /* MariaDB opens it and reads no line */
	FILE *f = fopen(path, "re");
	if (!f) {
		*sys_errno = errno;
		return RD_MISSING;
	}
	const char *file = pool_add(&cnf->files, &cnf->nfiles, path, strlen(path));
	if (!file) {
		fclose(f);
		return oom(err, path);
	}
	char *buf = NULL;
	size_t cap = 0;
	const char *group = NULL; /* NULL until the first [group] */
	int line = 0, rc = 0;
	while (!rc && getline(&buf, &cap, f) >= 0) {
		line++;
		char *p = skip_blanks(buf);
		if (*p == '#' || *p == ';' || !*p)
			continue;
		if (*p == '!') {
			rc = directive(cnf, p, file, line, depth, err);
		} else if (*p == '[') {
			char *close = strchr(p + 1, ']');
			if (!close) {
				rc = xb_err_set(err, XB_E_CONFIG, "wrong group definition in config file %s at line %d: no ']'",
						file, line);
				break;
			}
			while (close > p + 1 && is_blank(close[-1]))
				close--;
			if (!(group = pool_add(&cnf->strs, &cnf->nstrs, p + 1, (size_t)(close - p - 1))))
				rc = oom(err, file);
		} else if (!group) {
			rc = xb_err_set(err, XB_E_CONFIG, "option without preceding group in config file %s at line %d",
					file, line);
			xb_err_hint(err, "put a [group] line such as [mysqld] or [mariabackup] before the first option");
		} else {
			rc = parse_option(cnf, p, group, file, line, err);
		}
	}
	if (!rc && ferror(f))
		rc = xb_err_set(err, XB_E_CONFIG, "reading config file %s failed: %s", file, strerror(errno));
	free(buf);
	fclose(f);
	return rc;
}

/* A file that must exist (--defaults-file, --defaults-extra-file). */
static int read_required(mycnf *cnf, const char *path, const char *opt, xb_error *err)
{
	int sys_errno = 0;
	int rc = read_file(cnf, path, 0, &sys_errno, err);
	if (rc == RD_MISSING) {
		xb_err_set(err, XB_E_CONFIG, "could not open required defaults file %s: %s", path, strerror(sys_errno));
		xb_err_hint(err, "check the path given to --%s", opt);
		return XB_E_CONFIG;
	}
	return rc > 0 ? rc : 0;
}

/* One entry of the list of files to read. */
typedef struct cand {
	char *path;     /* file to open; NULL when it cannot be named (no home directory) */
	char *display;  /* name as --help shows it */
	int extra;      /* the --defaults-extra-file slot */
} cand;

static void free_cands(cand *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].path);
		free(c[i].display);
	}
	free(c);
}

static int push_cand(cand **c, size_t *n, const char *display, const char *home)
{
	cand *grown = realloc(*c, (*n + 1) * sizeof **c);
	if (!grown)
		return -1;
	*c = grown;
	cand *e = &grown[*n];
	memset(e, 0, sizeof *e);
	e->extra = !*display;
	if (!(e->display = strdup(display)))
		return -1;
	(*n)++;
	if (e->extra)
		return 0;
	if (display[0] == '~' && display[1] == '/') {
		if (!home || !*home)
			return 0;
		size_t hl = strlen(home);
		while (hl > 1 && home[hl - 1] == '/')
			hl--;
		return asprintf(&e->path, "%.*s%s", (int)hl, home, display + 1) < 0 ? (e->path = NULL, -1) : 0;
	}
	return (e->path = strdup(display)) ? 0 : -1;
}

/*
 * The files to read in order. A file listed twice is read only at its last
 * place, as MariaDB moves a repeated directory to the end of its list.
 */
static int build_cands(const mycnf_args *args, cand **out, size_t *nout)
{
	const char *home = args->home ? args->home : getenv("HOME");
	cand *c = NULL;
	size_t n = 0;
	int rc = 0, have_extra = 0;
	if (args->default_files) {
		for (const char *const *f = args->default_files; *f && !rc; f++)
			rc = push_cand(&c, &n, *f, home);
	} else {
		const char *mh = getenv("MARIADB_HOME");
		if (!mh || !*mh)
			mh = getenv("MYSQL_HOME");
		rc = push_cand(&c, &n, "/etc/my.cnf", home);
		if (!rc)
			rc = push_cand(&c, &n, "/etc/mysql/my.cnf", home);
		if (!rc && mh && *mh) {
			size_t ml = strlen(mh);
			while (ml > 1 && mh[ml - 1] == '/')
				ml--;
			char *p;
			if (asprintf(&p, "%.*s%smy.cnf", (int)ml, mh, mh[ml - 1] == '/' ? "" : "/") < 0) {
				rc = -1;
			} else {
				rc = push_cand(&c, &n, p, home);
				free(p);
			}
		}
		if (!rc)
			rc = push_cand(&c, &n, "", home);
		if (!rc)
			rc = push_cand(&c, &n, "~/.my.cnf", home);
	}
	for (size_t i = 0; i < n; i++)
		have_extra |= c[i].extra;
	if (!rc && !have_extra)
		rc = push_cand(&c, &n, "", home);
	if (rc) {
		free_cands(c, n);
		return -1;
	}
	/* drop earlier duplicates */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int dup = 0;
		for (size_t j = i + 1; j < n && !dup; j++)
			dup = !strcmp(c[i].display, c[j].display);
		if (dup) {
			free(c[i].path);
			free(c[i].display);
		} else {
			c[k++] = c[i];
		}
	}
	*out = c;
	*nout = k;
	return 0;
}

int mycnf_load(mycnf *cnf, const mycnf_args *args, xb_error *err)
{
	static const mycnf_args none;
	memset(cnf, 0, sizeof *cnf);
	if (!args)
		args = &none;
	if (args->no_defaults)
		return 0;
	if (args->group_suffix && !(cnf->group_suffix = strdup(args->group_suffix)))
		return oom(err, "(group suffix)");
	int rc = 0;
	if (args->defaults_file) {
		rc = read_required(cnf, args->defaults_file, "defaults-file", err);
	} else {
		cand *c;
		size_t n;
		if (build_cands(args, &c, &n))
			return oom(err, "(default file list)");
		for (size_t i = 0; i < n && !rc; i++) {
			if (c[i].extra) {
				if (args->defaults_extra_file)
					rc = read_required(cnf, args->defaults_extra_file, "defaults-extra-file", err);
			} else if (c[i].path) {
				int sys_errno = 0;
				rc = read_file(cnf, c[i].path, 0, &sys_errno, err);
				if (rc == RD_MISSING)
					rc = 0; /* standard files are optional */
			}
		}
		free_cands(c, n);
	}
	if (rc)
		mycnf_free(cnf);
	return rc;
}

/* Does group g match one of groups (or group + suffix), ignoring case? */
static int group_wanted(const char *g, const char *const *groups, const char *suffix)
{
	for (; *groups; groups++) {
		if (!strcasecmp(g, *groups))
			return 1;
		size_t n = strlen(*groups);
		if (suffix && !strncasecmp(g, *groups, n) && !strcasecmp(g + n, suffix))
			return 1;
	}
	return 0;
}

size_t mycnf_select(const mycnf *cnf, const char *const *groups, const mycnf_opt ***out)
{
	*out = NULL;
	size_t count = 0;
	const char *last = NULL;
	int last_ok = 0;
	for (size_t i = 0; i < cnf->n; i++) {
		if (cnf->opts[i].group != last) {
			last = cnf->opts[i].group;
			last_ok = group_wanted(last, groups, cnf->group_suffix);
		}
		count += (size_t)last_ok;
	}
	if (!count)
		return 0;
	const mycnf_opt **list = malloc(count * sizeof *list);
	if (!list)
		return 0;
	size_t k = 0;
	last = NULL;
	for (size_t i = 0; i < cnf->n; i++) {
		if (cnf->opts[i].group != last) {
			last = cnf->opts[i].group;
			last_ok = group_wanted(last, groups, cnf->group_suffix);
		}
		if (last_ok)
			list[k++] = &cnf->opts[i];
	}
	*out = list;
	return k;
}

/* Compare option names: case and '-'/'_' do not matter. */
static int name_eq(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return 0;
		if (!x)
			return 1;
	}
}

const mycnf_opt *mycnf_find(const mycnf *cnf, const char *const *groups, const char *name)
{
	for (size_t i = cnf->n; i-- > 0;) {
		const mycnf_opt *o = &cnf->opts[i];
		const char *n = o->name, *rest;
		int which;
		while (!name_eq(n, name) && (rest = mycnf_strip_prefix(n, &which)) && which == MYCNF_PFX_LOOSE)
			n = rest;
		if (name_eq(n, name) && group_wanted(o->group, groups, cnf->group_suffix))
			return o;
	}
	return NULL;
}

const char *mycnf_get(const mycnf *cnf, const char *const *groups, const char *name)
{
	const mycnf_opt *o = mycnf_find(cnf, groups, name);
	return !o ? NULL : o->value ? o->value : "";
}

void mycnf_free(mycnf *cnf)
{
	if (!cnf)
		return;
	for (size_t i = 0; i < cnf->n; i++) {
		free(cnf->opts[i].name);
		free(cnf->opts[i].raw_name);
		free(cnf->opts[i].value);
	}
	free(cnf->opts);
	for (size_t i = 0; i < cnf->nfiles; i++)
		free(cnf->files[i]);
	free(cnf->files);
	for (size_t i = 0; i < cnf->nstrs; i++)
		free(cnf->strs[i]);
	free(cnf->strs);
	free(cnf->group_suffix);
	memset(cnf, 0, sizeof *cnf);
}

/* The file-handling options, as names without the leading "--". */
static const char *const file_opts[] = {
	"no-defaults", "print-defaults", "defaults-file", "defaults-extra-file", "defaults-group-suffix", NULL
};

/* Index in file_opts of the option argument a names, or -1. */
static int file_opt_index(const char *a)
{
	if (a[0] != '-' || a[1] != '-')
		return -1;
	const char *name = a + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	for (int i = 0; file_opts[i]; i++) {
		char buf[64];
		if (len >= sizeof buf)
			continue;
		memcpy(buf, name, len);
		buf[len] = '\0';
		if (name_eq(buf, file_opts[i]))
			return i;
	}
	return -1;
}

static const char *after_prefix(const char *a, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(a, prefix, n) ? NULL : a + n;
}

int mycnf_parse_argv(int argc, char **argv, mycnf_args *args, int *print_defaults, int *consumed,
		     xb_error *err)
{
	memset(args, 0, sizeof *args);
	*print_defaults = 0;
	*consumed = 0;
	int i = 1, suffix_given;
	if (i < argc && !strcmp(argv[i], "--no-defaults")) {
		args->no_defaults = 1;
		i++;
	} else {
		for (; i < argc; i++) {
			const char *v;
			if (!args->defaults_file && (v = after_prefix(argv[i], "--defaults-file=")))
				args->defaults_file = v;
			else if (!args->defaults_extra_file && (v = after_prefix(argv[i], "--defaults-extra-file=")))
				args->defaults_extra_file = v;
			else if (!args->group_suffix && (v = after_prefix(argv[i], "--defaults-group-suffix=")))
				args->group_suffix = v;
			else
				break;
		}
	}
	if (i < argc && !strcmp(argv[i], "--print-defaults")) {
		*print_defaults = 1;
		i++;
	}
	*consumed = i - 1;
	suffix_given = args->group_suffix != NULL;
	if (!args->group_suffix)
		args->group_suffix = getenv("MYSQL_GROUP_SUFFIX");

	for (int j = i; j < argc && strcmp(argv[j], "--"); j++) {
		int k = file_opt_index(argv[j]);
		if (k < 0)
			continue;
		const char *o = file_opts[k];
		if (k == 0)
			xb_err_set(err, XB_E_USAGE, "--no-defaults must be the first option on the command line");
		else if (k == 1)
			xb_err_set(err, XB_E_USAGE, "--print-defaults must come first on the command line, "
				   "right after --no-defaults or the --defaults-* options");
		else if (!strchr(argv[j], '='))
			xb_err_set(err, XB_E_USAGE, "--%s must be given as --%s=VALUE at the start of the command line", o, o);
		else if (args->no_defaults)
			xb_err_set(err, XB_E_USAGE, "--%s cannot be combined with --no-defaults", o);
		else if ((k == 2 && args->defaults_file) || (k == 3 && args->defaults_extra_file) ||
			 (k == 4 && suffix_given))
			xb_err_set(err, XB_E_USAGE, "--%s given more than once on the command line", o);
		else
			xb_err_set(err, XB_E_USAGE, "--%s must be specified first on the command line", o);
		xb_err_hint(err, "order: --no-defaults or --defaults-file= / --defaults-extra-file= / "
			    "--defaults-group-suffix=, then --print-defaults, then the other options");
		return XB_E_USAGE;
	}
	return 0;
}

/* A growing string buffer. */
typedef struct sbuf {
	char *s;    /* text, NUL-terminated; NULL after a failed allocation */
	size_t n;   /* length */
	size_t cap; /* allocated bytes */
} sbuf;

static void sb_add(sbuf *b, const char *s)
{
	if (!b->s)
		return;
	size_t len = strlen(s);
	if (b->n + len + 1 > b->cap) {
		size_t cap = (b->n + len + 1) * 2;
		char *grown = realloc(b->s, cap);
		if (!grown) {
			free(b->s);
			b->s = NULL;
			return;
		}
		b->s = grown;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, len + 1);
	b->n += len;
}

static int sb_init(sbuf *b)
{
	b->cap = 256;
	b->n = 0;
	b->s = malloc(b->cap);
	if (b->s)
		b->s[0] = '\0';
	return b->s ? 0 : -1;
}

char *mycnf_format_args(const mycnf *cnf, const char *const *groups)
{
	sbuf b;
	if (sb_init(&b))
		return NULL;
	const mycnf_opt **list;
	size_t n = mycnf_select(cnf, groups, &list);
	for (size_t i = 0; i < n; i++) {
		sb_add(&b, "--");
		sb_add(&b, list[i]->raw_name);
		if (list[i]->value) {
			sb_add(&b, "=");
			sb_add(&b, list[i]->value);
		}
		sb_add(&b, "\n");
	}
	free(list);
	return b.s;
}

char *mycnf_format_default_files(const mycnf_args *args)
{
	static const mycnf_args none;
	if (!args)
		args = &none;
	if (args->defaults_file)
		return strdup(args->defaults_file);
	cand *c;
	size_t n;
	if (build_cands(args, &c, &n))
		return NULL;
	sbuf b;
	if (!sb_init(&b)) {
		for (size_t i = 0; i < n; i++) {
			if (c[i].extra && !args->defaults_extra_file)
				continue;
			sb_add(&b, c[i].extra ? args->defaults_extra_file : c[i].display);
			sb_add(&b, " ");
		}
	}
	free_cands(c, n);
	return b.s;
}

static const struct {
	const char *word;  /* prefix word, followed by '-' or '_' */
	int flag;          /* MYCNF_PFX_* */
} prefixes[] = {
	{"skip", MYCNF_PFX_SKIP},
	{"disable", MYCNF_PFX_DISABLE},
	{"enable", MYCNF_PFX_ENABLE},
	{"maximum", MYCNF_PFX_MAXIMUM},
	{"loose", MYCNF_PFX_LOOSE},
};

const char *mycnf_strip_prefix(const char *name, int *which)
{
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t n = strlen(prefixes[i].word);
		if (!strncasecmp(name, prefixes[i].word, n) && (name[n] == '-' || name[n] == '_')) {
			*which = prefixes[i].flag;
			return name + n + 1;
		}
	}
	return NULL;
}

const char *mycnf_resolve_name(const char *name, int (*known)(const char *name, void *ctx), void *ctx,
			       int *prefix_flags)
{
	int flags = 0, which = 0;
	const char *cur = name, *rest;
	if (known && known(cur, ctx)) {
		*prefix_flags = 0;
		return cur;
	}
	while ((rest = mycnf_strip_prefix(cur, &which))) {
		cur = rest;
		if (which == MYCNF_PFX_LOOSE)
			flags |= MYCNF_PFX_LOOSE;
		if (!known || known(cur, ctx)) {
			int more;
			if (!known && mycnf_strip_prefix(cur, &more))
				continue;
			*prefix_flags = flags | (which == MYCNF_PFX_LOOSE ? 0 : which);
			return cur;
		}
	}
	*prefix_flags = flags;
	return known ? NULL : cur;
}

const char *mycnf_split_prefix(const char *name, int *prefix_flags)
{
	return mycnf_resolve_name(name, NULL, NULL, prefix_flags);
}

const char *mycnf_prefixed_value(int prefix_flags, const char *value)
{
	int zero = value && !strcmp(value, "0");
	if (prefix_flags & (MYCNF_PFX_SKIP | MYCNF_PFX_DISABLE))
		return zero ? "1" : "0";
	if (prefix_flags & MYCNF_PFX_ENABLE)
		return zero ? "0" : "1";
	return value;
}
