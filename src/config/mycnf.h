/*
 * mycnf.h - the MariaDB option-file (my.cnf) reader.
 *
 * Reads option files the way MariaDB 10.11 clients and servers do (mysys'
 * defaults handling; behaviour learned, no code taken): the standard files
 * /etc/my.cnf, /etc/mysql/my.cnf, $MARIADB_HOME/my.cnf (else $MYSQL_HOME/my.cnf),
 * the --defaults-extra-file, ~/.my.cnf, in that order (or only the
 * --defaults-file, or nothing with --no-defaults), following !include and
 * !includedir up to 10 levels deep. Every option of every group is kept, in
 * the order read, with its file and line; callers then select the groups
 * they read (a --defaults-group-suffix makes group G also match G<suffix>).
 * Option names are stored with '-' turned into '_' and in lower case (MariaDB
 * 10.11 compares option names that way); values are unquoted and unescaped. Deciding what an option means (or whether it is unknown) is the
 * caller's business; mycnf_resolve_name() and friends help with MariaDB's
 * loose-/skip-/disable-/enable-/maximum- prefixes.
 *
 * Syntax accepted (as MariaDB): blank lines and lines whose first non-blank
 * is '#' or ';' are comments; "[group]" starts a group (the name runs to the
 * first ']', trailing blanks dropped, leading blanks kept, compared without
 * regard to case); "name", "name=value" with blanks around name and value
 * dropped; a '#' outside quotes starts a trailing comment; one pair of equal
 * quotes around the whole value is removed; \n \t \r \b \s(space) \" \' \\
 * are decoded in values (any other backslash is kept); "!include FILE",
 * "!includedir DIR" (its *.cnf files in name order). An option before the
 * first group of a file is an error. Blanks are the ASCII ones plus 0xA0, as
 * in MariaDB's latin1 character table.
 */
#ifndef XB_MYCNF_H
#define XB_MYCNF_H

#include <stddef.h>

#include "common/error.h"

/* Which files to read; fill with mycnf_parse_argv() or by hand (zero = the standard files). */
typedef struct mycnf_args {
	const char *defaults_file;        /* --defaults-file: read only this file (must exist), or NULL */
	const char *defaults_extra_file;  /* --defaults-extra-file: read before ~/.my.cnf (must exist), or NULL */
	const char *group_suffix;         /* --defaults-group-suffix (or $MYSQL_GROUP_SUFFIX), or NULL */
	int no_defaults;                  /* --no-defaults: read no file at all */
	const char *const *default_files; /* NULL-terminated file list replacing the standard one (tests);
	                                     "" marks where the extra file is read (else after the list),
	                                     a leading "~/" is the home directory; NULL = standard list */
	const char *home;                 /* home directory for ~/.my.cnf; NULL = $HOME */
} mycnf_args;

/* One option line. */
typedef struct mycnf_opt {
	const char *group;  /* group it was under, as written (trailing blanks removed) */
	char *name;         /* name in lower case, every '-' turned into '_' (prefixes such as loose_ kept) */
	char *raw_name;     /* name as written in the file */
	char *value;        /* decoded value; NULL when the line had no '=' */
	const char *file;   /* file it came from, as opened */
	int line;           /* line number in that file, from 1 */
} mycnf_opt;

/* Everything read. Zero-initialise, or let mycnf_load() do it. */
typedef struct mycnf {
	mycnf_opt *opts;     /* all options of all groups, in the order read */
	size_t n;            /* number of options */
	size_t cap;          /* allocated slots in opts */
	char *group_suffix;  /* the --defaults-group-suffix in effect, NULL when none */
	char **files;        /* files actually read, in order; file/group strings of opts point here */
	size_t nfiles;       /* number of entries in files */
	char **strs;         /* other shared strings (group names), freed with the object */
	size_t nstrs;        /* number of entries in strs */
} mycnf;

/* Prefix flags reported by mycnf_split_prefix() / mycnf_resolve_name(). */
enum {
	MYCNF_PFX_LOOSE   = 1,   /* loose_: an unknown option is only a warning */
	MYCNF_PFX_SKIP    = 2,   /* skip_: boolean off (see mycnf_prefixed_value) */
	MYCNF_PFX_DISABLE = 4,   /* disable_: boolean off */
	MYCNF_PFX_ENABLE  = 8,   /* enable_: boolean on */
	MYCNF_PFX_MAXIMUM = 16   /* maximum_: sets the upper limit of a variable */
};

/*
 * Read the option files chosen by args into cnf, which is overwritten, not
 * freed (pass a zeroed or mycnf_free()d object); args NULL = all defaults.
 * Missing standard files and missing !include targets are skipped silently;
 * a world-writable file is skipped with a warning; a missing --defaults-file
 * or --defaults-extra-file is XB_E_CONFIG, as is a syntax error (option before
 * any group, "[" without "]", "!include" without a name) or an unreadable
 * !includedir in a file named directly. As in MariaDB, such an error inside an
 * included file is only logged as a warning and ends the reading of that one
 * file. On error cnf is left empty.
 */
int mycnf_load(mycnf *cnf, const mycnf_args *args, xb_error *err);

/*
 * The options of the given groups (NULL-terminated list, each also matched
 * with the group suffix appended), in the order read: for a repeated option
 * the last one wins. *out gets a malloc'ed array the caller frees (NULL when
 * there are none); returns its length.
 */
size_t mycnf_select(const mycnf *cnf, const char *const *groups, const mycnf_opt ***out);

/*
 * The last occurrence of option `name` in the given groups, or NULL. Names
 * match regardless of case and of '-' versus '_', also when written with the
 * loose- prefix (skip-/enable-/... forms are not matched: see the helpers).
 */
const mycnf_opt *mycnf_find(const mycnf *cnf, const char *const *groups, const char *name);

/* The value of mycnf_find(): NULL when absent, "" when given without '='. */
const char *mycnf_get(const mycnf *cnf, const char *const *groups, const char *name);

/* Free everything; cnf is left zeroed (safe to call twice or on a zeroed cnf). */
void mycnf_free(mycnf *cnf);

/*
 * Take the option-file arguments off the front of argv (argv[0] is the
 * program), as MariaDB does: "--no-defaults" only as the very first argument;
 * otherwise any of --defaults-file=, --defaults-extra-file=,
 * --defaults-group-suffix= (each once, any order); then "--print-defaults".
 * args is cleared first; group_suffix falls back to $MYSQL_GROUP_SUFFIX.
 * *consumed gets the number of arguments taken after argv[0]. Any of these
 * options met later on the command line (before a "--") is XB_E_USAGE.
 * The strings stored in args point into argv or the environment.
 */
int mycnf_parse_argv(int argc, char **argv, mycnf_args *args, int *print_defaults, int *consumed,
		     xb_error *err);

/*
 * The effective option list of the given groups as my_print_defaults prints
 * it: "--name=value" (or "--name" without a value) per line, names as written,
 * values decoded, in read order. Malloc'ed (caller frees); NULL on no memory.
 */
char *mycnf_format_args(const mycnf *cnf, const char *const *groups);

/*
 * The files that would be read, space separated with a trailing space, as
 * MariaDB's --help shows them ("/etc/my.cnf /etc/mysql/my.cnf ~/.my.cnf ").
 * Malloc'ed; NULL on no memory.
 */
char *mycnf_format_default_files(const mycnf_args *args);

/*
 * Strip one special prefix ("loose", "skip", "disable", "enable", "maximum"
 * followed by '-' or '_') from name: returns the rest and sets *which to its
 * MYCNF_PFX_* flag, or returns NULL when name has none.
 */
const char *mycnf_strip_prefix(const char *name, int *which);

/*
 * Greedy split: strip every special prefix from the front of name (for
 * example loose_skip_foo -> foo). *prefix_flags gets MYCNF_PFX_LOOSE when a
 * loose prefix was seen, plus the last of SKIP/DISABLE/ENABLE/MAXIMUM
 * stripped. Returns a pointer into name. Use mycnf_resolve_name() when some
 * option names themselves start with such a word (skip_name_resolve).
 */
const char *mycnf_split_prefix(const char *name, int *prefix_flags);

/*
 * Resolve name like MariaDB's option parser: when known(name) it is the name
 * (flags 0); otherwise prefixes are stripped one at a time and the rest tried
 * after each step. Returns the known name (a pointer into name) with
 * *prefix_flags as for mycnf_split_prefix(), or NULL when nothing is known
 * (*prefix_flags then still says whether loose was present).
 */
const char *mycnf_resolve_name(const char *name, int (*known)(const char *name, void *ctx), void *ctx,
			       int *prefix_flags);

/*
 * The value a boolean option gets through its prefix: skip_/disable_ give "0"
 * unless the value is exactly "0" (double negation: "1"); enable_ gives "1"
 * unless the value is exactly "0". Without those prefixes value is returned.
 */
const char *mycnf_prefixed_value(int prefix_flags, const char *value);

#endif
