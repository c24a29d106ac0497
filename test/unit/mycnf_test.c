/*
 * mycnf_test.c - the option-file reader against MariaDB's rules: one test
 * per rule (comments, quotes, escapes, blanks, groups, includes, depth limit,
 * world-writable files, missing files, argv handling, group suffix, name
 * normalisation, prefixes, override order, --print-defaults output). Files
 * are written under a mkdtemp() directory or come from test/fixtures/mycnf/;
 * the syntax fixture is also compared byte for byte with MariaDB's
 * my_print_defaults when that program is installed, and the real Debian
 * /etc/mysql/my.cnf is read when present.
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/mycnf.h"

static char tmpdir[] = "/tmp/mycnf_test.XXXXXX";
static char fixdir[4096];

/* ---- helpers ---- */

/* Write text to tmpdir/name with the given mode; returns the full path (static buffer rotation). */
static const char *put(const char *name, const char *text, mode_t mode)
{
	static char paths[8][4096];
	static int next;
	char *path = paths[next++ % 8];
	snprintf(path, sizeof paths[0], "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

static const char *tpath(const char *name)
{
	static char paths[8][4096];
	static int next;
	char *path = paths[next++ % 8];
	snprintf(path, sizeof paths[0], "%s/%s", tmpdir, name);
	return path;
}

/* Load only `path` (as --defaults-file). */
static int load_file(mycnf *cnf, const char *path, xb_error *err)
{
	mycnf_args a;
	memset(&a, 0, sizeof a);
	a.defaults_file = path;
	xb_err_clear(err);
	return mycnf_load(cnf, &a, err);
}

/* Value of name in one group, or "(absent)". NULL value (no '=') comes back as "(none)". */
static const char *val(const mycnf *cnf, const char *group, const char *name)
{
	const char *groups[] = {group, NULL};
	const mycnf_opt *o = mycnf_find(cnf, groups, name);
	return !o ? "(absent)" : o->value ? o->value : "(none)";
}

/* stderr capture, to check warnings. */
static int saved_stderr = -1;
static char capture_path[4096];

static void capture_begin(void)
{
	snprintf(capture_path, sizeof capture_path, "%s/stderr.txt", tmpdir);
	fflush(stderr);
	saved_stderr = dup(2);
	int fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
}

/* Returns the captured text (malloc'ed). */
static char *capture_end(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	FILE *f = fopen(capture_path, "r");
	char *buf = calloc(1, 65536);
	if (f && buf) {
		size_t n = fread(buf, 1, 65535, f);
		buf[n] = '\0';
	}
	if (f)
		fclose(f);
	return buf;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int suite_init(void)
{
	if (!mkdtemp(tmpdir))
		return -1;
	/* fixtures: from the repository root (make), or found from the binary in build/test/ */
	char exe[2048] = "", c3[2200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(c3, sizeof c3, "%s/../../test/fixtures/mycnf", exe);
	const char *cands[] = {"test/fixtures/mycnf", "../fixtures/mycnf", c3, NULL};
	for (int i = 0; cands[i]; i++) {
		char probe[4096];
		snprintf(probe, sizeof probe, "%s/syntax.cnf", cands[i]);
		if (access(probe, R_OK) == 0) {
			if (!realpath(cands[i], fixdir))
				return -1;
			break;
		}
	}
	if (!fixdir[0])
		return -1;
	unsetenv("MYSQL_GROUP_SUFFIX");
	return 0;
}

static int suite_clean(void)
{
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *fixture(const char *name)
{
	static char path[sizeof fixdir + 256];
	snprintf(path, sizeof path, "%s/%s", fixdir, name);
	return path;
}

/* ---- syntax ---- */

static void test_comments(void)
{
	mycnf cnf;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, fixture("syntax.cnf"), &err), 0);
	/* no comment text became an option */
	for (size_t i = 0; i < cnf.n; i++) {
		CU_ASSERT(cnf.opts[i].raw_name[0] != '#' && cnf.opts[i].raw_name[0] != ';');
		CU_ASSERT(strstr(cnf.opts[i].raw_name, "whole") == NULL);
		CU_ASSERT(strstr(cnf.opts[i].raw_name, "comment") == NULL);
	}
	const char *g[] = {"comments", NULL};
	const mycnf_opt **list;
	size_t n = mycnf_select(&cnf, g, &list);
	CU_ASSERT_EQUAL(n, 7);
	free(list);
	/* the first option of [whitespace] is on line 8, after 7 comment/blank/group lines */
	CU_ASSERT_STRING_EQUAL(cnf.opts[0].name, "plain");
	CU_ASSERT_EQUAL(cnf.opts[0].line, 8);
	mycnf_free(&cnf);
}

static void test_trailing_comment(void)
{
	mycnf cnf;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, fixture("syntax.cnf"), &err), 0);
	CU_ASSERT_STRING_EQUAL(val(&cnf, "comments", "trail"), "value");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "comments", "tight"), "value");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "comments", "dq"), "value # not a comment");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "comments", "sq"), "value # not a comment");
	/* a lone quote opens a quoted part to the end of the line */
	CU_ASSERT_STRING_EQUAL(val(&cnf, "comments", "unbalanced"), "it's # not a comment either");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "comments", "escaped_quote"), "a\"#b");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "comments", "outside_escape"), "x\"y # kept, the quote opened");
	mycnf_free(&cnf);
}

static void test_quotes(void)
{
	mycnf cnf;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, fixture("syntax.cnf"), &err), 0);
	CU_ASSERT_STRING_EQUAL(val(&cnf, "quotes", "dq"), "double");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "quotes", "sq"), "single");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "quotes", "mixed"), "\"mixed'");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "quotes", "lone"), "\"");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "quotes", "empty_dq"), "");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "quotes", "inner"), "a\"b");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "quotes", "keep_spaces"), "  padded  ");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "quotes", "only_start"), "\"start");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "quotes", "only_end"), "end\"");
	mycnf_free(&cnf);
}

static void test_escapes(void)
{
	mycnf cnf;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, fixture("syntax.cnf"), &err), 0);
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "n"), "a\nb");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "t"), "a\tb");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "r"), "a\rb");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "b"), "a\bb");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "s"), "a b");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "dq"), "a\"b");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "sq"), "a'b");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "bs"), "a\\b");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "unknown"), "a\\xb");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "trailing"), "ab\\");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "quoted_trailing"), "ab\\");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "escapes", "quoted_escapes"), " \\'");
	mycnf_free(&cnf);
}

static void test_whitespace(void)
{
	mycnf cnf;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, fixture("syntax.cnf"), &err), 0);
	CU_ASSERT_STRING_EQUAL(val(&cnf, "whitespace", "plain"), "1");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "whitespace", "spaced_name"), "spaced value");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "whitespace", "tabbed"), "tab value");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "whitespace", "no_value"), "(none)");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "whitespace", "no_value_spaced"), "(none)");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "whitespace", "empty_value"), "");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "whitespace", "empty_spaced"), "");
	/* group names: case ignored, trailing blanks dropped, leading blanks kept */
	CU_ASSERT_STRING_EQUAL(val(&cnf, "case_group", "x"), "1");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "CASE_GROUP", "x"), "1");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "leading_space", "y"), "(absent)");
	CU_ASSERT_STRING_EQUAL(val(&cnf, " leading_space", "y"), "1");
	mycnf_free(&cnf);

	/* CRLF line ends, and 0xA0 counted as a blank as in MariaDB's latin1 table */
	const char *p = put("crlf.cnf", "[client]\r\nuser = bob \r\n\xa0host=h\xa0\r\n", 0644);
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, p, &err), 0);
	CU_ASSERT_STRING_EQUAL(val(&cnf, "client", "user"), "bob");
	CU_ASSERT_STRING_EQUAL(val(&cnf, "client", "host"), "h");
	mycnf_free(&cnf);
}

/* The fixture read by us and by MariaDB's own my_print_defaults must print the same. */
static void test_matches_my_print_defaults(void)
{
	const char *tool = "/usr/bin/my_print_defaults";
	if (access(tool, X_OK) != 0) {
		printf("(my_print_defaults not installed: comparison skipped) ");
		return;
	}
	mycnf cnf;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, fixture("syntax.cnf"), &err), 0);
	const char *groups[] = {"whitespace", "comments", "quotes", "escapes", "case_group", " leading_space", "names"};
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
		char cmd[8192];
		snprintf(cmd, sizeof cmd, "%s --defaults-file='%s' '%s' 2>&1", tool, fixture("syntax.cnf"), groups[i]);
		FILE *pp = popen(cmd, "r");
		CU_ASSERT_PTR_NOT_NULL_FATAL(pp);
		char theirs[16384];
		size_t n = fread(theirs, 1, sizeof theirs - 1, pp);
		theirs[n] = '\0';
		pclose(pp);
		const char *one[] = {groups[i], NULL};
		char *ours = mycnf_format_args(&cnf, one);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ours);
		CU_ASSERT_STRING_EQUAL(ours, theirs);
		if (strcmp(ours, theirs))
			printf("\n[%s] ours:\n%s\ntheirs:\n%s\n", groups[i], ours, theirs);
		free(ours);
	}
	mycnf_free(&cnf);
}

static void test_option_before_group(void)
{
	mycnf cnf;
	xb_error err;
	const char *p = put("nogroup.cnf", "# comment\n\nsocket=/tmp/s\n[client]\nuser=x\n", 0644);
	CU_ASSERT_EQUAL(load_file(&cnf, p, &err), XB_E_CONFIG);
	CU_ASSERT_EQUAL(err.code, XB_E_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, p));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 3"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "without preceding group"));
	CU_ASSERT_EQUAL(cnf.n, 0); /* nothing kept on error */
	mycnf_free(&cnf);

	/* a "[" without "]" is an error too */
	p = put("badgroup.cnf", "[client]\nuser=x\n[mysqld\n", 0644);
	CU_ASSERT_EQUAL(load_file(&cnf, p, &err), XB_E_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 3"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, p));
	mycnf_free(&cnf);

	/* also in a standard (optional) file */
	const char *files[] = {p, NULL};
	mycnf_args a;
	memset(&a, 0, sizeof a);
	a.default_files = files;
	CU_ASSERT_EQUAL(mycnf_load(&cnf, &a, &err), XB_E_CONFIG);
	mycnf_free(&cnf);
}

static void test_include(void)
{
	mycnf cnf;
	xb_error err;
	char text[8192];
	put("inc_child.cnf", "[client]\nchild=1\n[mysqld]\nserver=1\n", 0644);
	put("inc_bad.cnf", "[client]\nbad_before=1\n[oops\nbad_after=1\n", 0644);
	snprintf(text, sizeof text,
		 "!include %s\n"                 /* before any group: allowed */
		 "[client]\nparent=1\n"
		 "!include %s\n"                 /* its groups do not leak back */
		 "after=1\n"
		 "!include %s/missing.cnf\n"     /* missing: silently skipped */
		 "  !  include   %s   \n"        /* blanks around the directive */
		 "!include %s\n"                 /* error inside: only that file ends */
		 "last=1\n"
		 "!includes x\n!foo bar\n",      /* unknown directives are ignored */
		 tpath("inc_child.cnf"), tpath("inc_child.cnf"), tmpdir, tpath("inc_child.cnf"),
		 tpath("inc_bad.cnf"));
	const char *p = put("inc_parent.cnf", text, 0644);
	capture_begin();
	int rc = load_file(&cnf, p, &err);
	char *log = capture_end();
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	const char *g[] = {"client", NULL};
	char *out = mycnf_format_args(&cnf, g);
	CU_ASSERT_STRING_EQUAL(out, "--child=1\n--parent=1\n--child=1\n--after=1\n--child=1\n--bad_before=1\n--last=1\n");
	free(out);
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, (const char *[]){"mysqld", NULL}, "server"), "1");
	/* options know their file and line */
	const mycnf_opt *o = mycnf_find(&cnf, g, "after");
	CU_ASSERT_STRING_EQUAL(o->file, p);
	CU_ASSERT_EQUAL(o->line, 5);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "wrong group definition"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "inc_bad.cnf"));
	free(log);
	mycnf_free(&cnf);

	/* "!include" without a name is an error */
	p = put("inc_empty.cnf", "[client]\n!include   \n", 0644);
	CU_ASSERT_EQUAL(load_file(&cnf, p, &err), XB_E_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 2"));
	mycnf_free(&cnf);
}

static void test_includedir(void)
{
	mycnf cnf;
	xb_error err;
	char dir[4096], text[8192];
	snprintf(dir, sizeof dir, "%s/conf.d", tmpdir);
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
	const char *names[] = {"b.cnf", "a.b.cnf", ".hidden.cnf", "c.CNF", "d.cnf.bak", "e.ini",
			       "f.cnf~", "10.cnf", "9.cnf", "noext"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char name[256], body[256];
		snprintf(name, sizeof name, "conf.d/%s", names[i]);
		snprintf(body, sizeof body, "[client]\nfrom=%s\n", names[i]);
		put(name, body, 0644);
	}
	snprintf(text, sizeof text, "%s/conf.d/sub.cnf", tmpdir);
	CU_ASSERT_EQUAL_FATAL(mkdir(text, 0755), 0); /* a directory named *.cnf gives nothing */
	snprintf(text, sizeof text, "[client]\nfirst=1\n!includedir %s/\nlast=1\n", dir);
	const char *p = put("incdir.cnf", text, 0644);
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, p, &err), 0);
	const char *g[] = {"client", NULL};
	char *out = mycnf_format_args(&cnf, g);
	CU_ASSERT_STRING_EQUAL(out, "--first=1\n--from=.hidden.cnf\n--from=10.cnf\n--from=9.cnf\n"
				    "--from=a.b.cnf\n--from=b.cnf\n--last=1\n");
	free(out);
	/* the file names are dir + "/" + name */
	char want[sizeof dir + 16];
	snprintf(want, sizeof want, "%s/b.cnf", dir);
	CU_ASSERT_STRING_EQUAL(cnf.opts[5].file, want);
	mycnf_free(&cnf);

	/* an unreadable !includedir in the file named is an error naming the directory */
	snprintf(text, sizeof text, "[client]\n!includedir %s/nodir\n", tmpdir);
	p = put("incdir_missing.cnf", text, 0644);
	CU_ASSERT_EQUAL(load_file(&cnf, p, &err), XB_E_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nodir"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 2"));
	mycnf_free(&cnf);
}

static void test_depth_limit(void)
{
	mycnf cnf;
	xb_error err;
	/* d0 includes d1 ... d12: d0..d10 are read (10 levels below the top file), d11 is not */
	for (int i = 0; i <= 12; i++) {
		char name[64], body[8192];
		snprintf(name, sizeof name, "depth%d.cnf", i);
		snprintf(body, sizeof body, "[client]\nlevel%d=1\n!include %s/depth%d.cnf\n", i, tmpdir, i + 1);
		put(name, body, 0644);
	}
	capture_begin();
	int rc = load_file(&cnf, tpath("depth0.cnf"), &err);
	char *log = capture_end();
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	const char *g[] = {"client", NULL};
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, g, "level10"), "1");
	CU_ASSERT_PTR_NULL(mycnf_get(&cnf, g, "level11"));
	CU_ASSERT_EQUAL(cnf.n, 11);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "maximum include recursion level"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "depth10.cnf"));
	free(log);
	mycnf_free(&cnf);
}

static void test_world_writable(void)
{
	mycnf cnf;
	xb_error err;
	char text[8192];
	const char *ww = put("ww.cnf", "[client]\nfrom_ww=1\n", 0666);
	chmod(ww, 0666);
	const char *ok = put("ok.cnf", "[client]\nfrom_ok=1\n", 0644);
	const char *files[] = {ww, ok, NULL};
	mycnf_args a;
	memset(&a, 0, sizeof a);
	a.default_files = files;
	capture_begin();
	int rc = mycnf_load(&cnf, &a, &err);
	char *log = capture_end();
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	const char *g[] = {"client", NULL};
	CU_ASSERT_PTR_NULL(mycnf_get(&cnf, g, "from_ww"));
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, g, "from_ok"), "1");
	snprintf(text, sizeof text, "Warning: World-writable config file '%s' is ignored", ww);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, text));
	free(log);
	mycnf_free(&cnf);

	/* as --defaults-file: skipped with the warning, not an error; likewise when included */
	capture_begin();
	rc = load_file(&cnf, ww, &err);
	log = capture_end();
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(cnf.n, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "World-writable"));
	free(log);
	mycnf_free(&cnf);
	snprintf(text, sizeof text, "[client]\n!include %s\nmine=1\n", ww);
	const char *p = put("inc_ww.cnf", text, 0644);
	capture_begin();
	rc = load_file(&cnf, p, &err);
	free(capture_end());
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(cnf.n, 1);
	mycnf_free(&cnf);
}

static void test_missing_files(void)
{
	mycnf cnf;
	xb_error err;
	mycnf_args a;
	char missing[4096];
	snprintf(missing, sizeof missing, "%s/no-such.cnf", tmpdir);

	memset(&a, 0, sizeof a);
	a.defaults_file = missing;
	CU_ASSERT_EQUAL(mycnf_load(&cnf, &a, &err), XB_E_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, missing));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.hint, "--defaults-file"));
	mycnf_free(&cnf);

	const char *ok = put("present.cnf", "[client]\nx=1\n", 0644);
	const char *files[] = {missing, ok, "~/.my.cnf", NULL}; /* missing standard files are fine */
	memset(&a, 0, sizeof a);
	a.default_files = files;
	a.home = tmpdir;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(mycnf_load(&cnf, &a, &err), 0);
	CU_ASSERT_EQUAL(cnf.n, 1);
	mycnf_free(&cnf);

	a.defaults_extra_file = missing;
	CU_ASSERT_EQUAL(mycnf_load(&cnf, &a, &err), XB_E_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, missing));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.hint, "--defaults-extra-file"));
	mycnf_free(&cnf);
	/* works without an error object too */
	CU_ASSERT_EQUAL(mycnf_load(&cnf, &a, NULL), XB_E_CONFIG);
	mycnf_free(&cnf);
}

/* ---- command line ---- */

static int parse(char **argv, mycnf_args *a, int *pd, int *used, xb_error *err)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	xb_err_clear(err);
	return mycnf_parse_argv(argc, argv, a, pd, used, err);
}

static void test_no_defaults_first(void)
{
	mycnf_args a;
	xb_error err;
	int pd, used;
	char *v1[] = {"xb", "--no-defaults", "--backup", NULL};
	CU_ASSERT_EQUAL(parse(v1, &a, &pd, &used, &err), 0);
	CU_ASSERT_EQUAL(a.no_defaults, 1);
	CU_ASSERT_EQUAL(used, 1);
	CU_ASSERT_EQUAL(pd, 0);
	mycnf cnf;
	CU_ASSERT_EQUAL(mycnf_load(&cnf, &a, &err), 0);
	CU_ASSERT_EQUAL(cnf.n, 0);
	mycnf_free(&cnf);

	char *v2[] = {"xb", "--no-defaults", "--print-defaults", NULL};
	CU_ASSERT_EQUAL(parse(v2, &a, &pd, &used, &err), 0);
	CU_ASSERT_EQUAL(pd, 1);
	CU_ASSERT_EQUAL(used, 2);

	char *v3[] = {"xb", "--backup", "--no-defaults", NULL};
	CU_ASSERT_EQUAL(parse(v3, &a, &pd, &used, &err), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--no-defaults"));

	char *v4[] = {"xb", "--defaults-file=/x", "--no-defaults", NULL};
	CU_ASSERT_EQUAL(parse(v4, &a, &pd, &used, &err), XB_E_USAGE);

	char *v5[] = {"xb", "--no-defaults", "--defaults-file=/x", NULL};
	CU_ASSERT_EQUAL(parse(v5, &a, &pd, &used, &err), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot be combined"));
}

static void test_file_options_first(void)
{
	mycnf_args a;
	xb_error err;
	int pd, used;
	char *v1[] = {"xb", "--defaults-group-suffix=_x", "--defaults-extra-file=/e", "--defaults-file=/f",
		      "--print-defaults", "--backup", "--target-dir=/t", NULL};
	CU_ASSERT_EQUAL(parse(v1, &a, &pd, &used, &err), 0);
	CU_ASSERT_EQUAL(used, 4);
	CU_ASSERT_EQUAL(pd, 1);
	CU_ASSERT_STRING_EQUAL(a.defaults_file, "/f");
	CU_ASSERT_STRING_EQUAL(a.defaults_extra_file, "/e");
	CU_ASSERT_STRING_EQUAL(a.group_suffix, "_x");
	CU_ASSERT_EQUAL(a.no_defaults, 0);

	char *v2[] = {"xb", "--backup", NULL};
	CU_ASSERT_EQUAL(parse(v2, &a, &pd, &used, &err), 0);
	CU_ASSERT_EQUAL(used, 0);
	CU_ASSERT_PTR_NULL(a.defaults_file);

	char *v3[] = {"xb", "--backup", "--defaults-file=/f", NULL};
	CU_ASSERT_EQUAL(parse(v3, &a, &pd, &used, &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--defaults-file must be specified first on the command line");

	char *v4[] = {"xb", "--backup", "--defaults_extra_file=/f", NULL};
	CU_ASSERT_EQUAL(parse(v4, &a, &pd, &used, &err), XB_E_USAGE);

	char *v5[] = {"xb", "--backup", "--print-defaults", NULL};
	CU_ASSERT_EQUAL(parse(v5, &a, &pd, &used, &err), XB_E_USAGE);

	char *v6[] = {"xb", "--print-defaults", "--defaults-file=/f", NULL};
	CU_ASSERT_EQUAL(parse(v6, &a, &pd, &used, &err), XB_E_USAGE);

	char *v7[] = {"xb", "--defaults-file=/f", "--defaults-file=/g", NULL};
	CU_ASSERT_EQUAL(parse(v7, &a, &pd, &used, &err), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "more than once"));

	char *v8[] = {"xb", "--defaults-file", "/f", NULL};
	CU_ASSERT_EQUAL(parse(v8, &a, &pd, &used, &err), XB_E_USAGE);

	/* after "--" nothing is an option */
	char *v9[] = {"xb", "--backup", "--", "--defaults-file=/f", NULL};
	CU_ASSERT_EQUAL(parse(v9, &a, &pd, &used, &err), 0);

	/* the suffix also comes from $MYSQL_GROUP_SUFFIX, the command line wins */
	setenv("MYSQL_GROUP_SUFFIX", "_env", 1);
	CU_ASSERT_EQUAL(parse(v2, &a, &pd, &used, &err), 0);
	CU_ASSERT_STRING_EQUAL(a.group_suffix, "_env");
	CU_ASSERT_EQUAL(parse(v1, &a, &pd, &used, &err), 0);
	CU_ASSERT_STRING_EQUAL(a.group_suffix, "_x");
	unsetenv("MYSQL_GROUP_SUFFIX");
}

/* ---- groups, names, order ---- */

static void test_group_suffix(void)
{
	mycnf cnf;
	xb_error err;
	const char *p = put("suffix.cnf",
			    "[client_s]\na=1\n[client]\na=2\n[mysqld_s]\nb=1\n[CLIENT_S]\nc=3\n[client_t]\nd=4\n", 0644);
	mycnf_args a;
	memset(&a, 0, sizeof a);
	a.defaults_file = p;
	a.group_suffix = "_s";
	CU_ASSERT_EQUAL_FATAL(mycnf_load(&cnf, &a, &err), 0);
	const char *g[] = {"client", NULL};
	char *out = mycnf_format_args(&cnf, g);
	CU_ASSERT_STRING_EQUAL(out, "--a=1\n--a=2\n--c=3\n"); /* file order, both groups */
	free(out);
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, g, "a"), "2");
	mycnf_free(&cnf);

	a.group_suffix = NULL;
	CU_ASSERT_EQUAL_FATAL(mycnf_load(&cnf, &a, &err), 0);
	out = mycnf_format_args(&cnf, g);
	CU_ASSERT_STRING_EQUAL(out, "--a=2\n");
	free(out);
	mycnf_free(&cnf);
}

static void test_name_normalisation(void)
{
	mycnf cnf;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, fixture("syntax.cnf"), &err), 0);
	const char *g[] = {"names", NULL};
	const mycnf_opt **list;
	size_t n = mycnf_select(&cnf, g, &list);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(list[0]->name, "innodb_log_group_home_dir");
	CU_ASSERT_STRING_EQUAL(list[0]->raw_name, "Innodb-Log-Group_Home-Dir");
	CU_ASSERT_STRING_EQUAL(list[1]->name, "loose_skip_innodb");
	free(list);
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, g, "innodb-log-group-home-dir"), "/logs");
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, g, "innodb_log_group_home_dir"), "/logs");
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, g, "skip-innodb"), "1"); /* found through loose- */
	mycnf_free(&cnf);
}

static int known_opt(const char *name, void *ctx)
{
	for (const char *const *k = ctx; *k; k++)
		if (!strcmp(*k, name))
			return 1;
	return 0;
}

static void test_prefixes(void)
{
	int f, w;
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("loose_skip_foo", &f), "foo");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_LOOSE | MYCNF_PFX_SKIP);
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("loose_foo", &f), "foo");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_LOOSE);
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("disable-foo", &f), "foo");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_DISABLE);
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("enable_foo", &f), "foo");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_ENABLE);
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("maximum_foo", &f), "foo");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_MAXIMUM);
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("LOOSE-Skip-foo", &f), "foo");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_LOOSE | MYCNF_PFX_SKIP);
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("foo", &f), "foo");
	CU_ASSERT_EQUAL(f, 0);
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("skipper", &f), "skipper");
	CU_ASSERT_EQUAL(f, 0);
	/* only the last prefix stripped counts: skip-loose-x is x (MariaDB sets it on) */
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("skip_loose_foo", &f), "foo");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_LOOSE);
	CU_ASSERT_STRING_EQUAL(mycnf_split_prefix("skip_enable_foo", &f), "foo");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_ENABLE);
	CU_ASSERT_STRING_EQUAL(mycnf_strip_prefix("skip_foo", &w), "foo");
	CU_ASSERT_EQUAL(w, MYCNF_PFX_SKIP);
	CU_ASSERT_PTR_NULL(mycnf_strip_prefix("foo", &w));

	/* resolution against known names, as the option parser does */
	const char *known[] = {"skip_name_resolve", "name_resolve", "compress", NULL};
	CU_ASSERT_STRING_EQUAL(mycnf_resolve_name("skip_name_resolve", known_opt, known, &f), "skip_name_resolve");
	CU_ASSERT_EQUAL(f, 0);
	CU_ASSERT_STRING_EQUAL(mycnf_resolve_name("loose_skip_name_resolve", known_opt, known, &f),
			       "skip_name_resolve");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_LOOSE);
	CU_ASSERT_STRING_EQUAL(mycnf_resolve_name("disable_compress", known_opt, known, &f), "compress");
	CU_ASSERT_EQUAL(f, MYCNF_PFX_DISABLE);
	CU_ASSERT_PTR_NULL(mycnf_resolve_name("loose_unknown", known_opt, known, &f));
	CU_ASSERT_EQUAL(f, MYCNF_PFX_LOOSE);
	CU_ASSERT_PTR_NULL(mycnf_resolve_name("skip_unknown", known_opt, known, &f));
	CU_ASSERT_EQUAL(f, 0);

	/* values through skip/disable/enable, including double negation */
	CU_ASSERT_STRING_EQUAL(mycnf_prefixed_value(MYCNF_PFX_SKIP, NULL), "0");
	CU_ASSERT_STRING_EQUAL(mycnf_prefixed_value(MYCNF_PFX_SKIP, "1"), "0");
	CU_ASSERT_STRING_EQUAL(mycnf_prefixed_value(MYCNF_PFX_SKIP, "0"), "1");
	CU_ASSERT_STRING_EQUAL(mycnf_prefixed_value(MYCNF_PFX_DISABLE | MYCNF_PFX_LOOSE, NULL), "0");
	CU_ASSERT_STRING_EQUAL(mycnf_prefixed_value(MYCNF_PFX_ENABLE, NULL), "1");
	CU_ASSERT_STRING_EQUAL(mycnf_prefixed_value(MYCNF_PFX_ENABLE, "off"), "1");
	CU_ASSERT_STRING_EQUAL(mycnf_prefixed_value(MYCNF_PFX_ENABLE, "0"), "0");
	CU_ASSERT_STRING_EQUAL(mycnf_prefixed_value(MYCNF_PFX_LOOSE, "v"), "v");
}

static void test_override_order(void)
{
	mycnf cnf;
	xb_error err;
	/* a fixture: the later of two equal options wins */
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, fixture("override.cnf"), &err), 0);
	const char *client[] = {"client", NULL}, *both[] = {"client", "mysqld", NULL};
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, client, "user"), "second");
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, both, "user"), "second");
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, (const char *[]){"mysqld", NULL}, "user"), "server");
	mycnf_free(&cnf);

	/* standard order: global files, the extra file, then ~/.my.cnf */
	char home[4096];
	snprintf(home, sizeof home, "%s/home", tmpdir);
	CU_ASSERT_EQUAL_FATAL(mkdir(home, 0755), 0);
	put("home/.my.cnf", "[client]\nsrc=home\nhome_only=1\n", 0600);
	const char *g1 = put("global1.cnf", "[client]\nsrc=global1\nport=1\n", 0644);
	const char *g2 = put("global2.cnf", "[client]\nsrc=global2\n", 0644);
	const char *ex = put("extra.cnf", "[client]\nsrc=extra\nport=2\n", 0644);
	const char *files[] = {g1, g2, "", "~/.my.cnf", NULL};
	mycnf_args a;
	memset(&a, 0, sizeof a);
	a.default_files = files;
	a.home = home;
	a.defaults_extra_file = ex;
	CU_ASSERT_EQUAL_FATAL(mycnf_load(&cnf, &a, &err), 0);
	char *out = mycnf_format_args(&cnf, client);
	CU_ASSERT_STRING_EQUAL(out, "--src=global1\n--port=1\n--src=global2\n--src=extra\n--port=2\n"
				    "--src=home\n--home_only=1\n");
	free(out);
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, client, "src"), "home");
	CU_ASSERT_STRING_EQUAL(mycnf_get(&cnf, client, "port"), "2");
	CU_ASSERT_EQUAL(cnf.nfiles, 4);
	mycnf_free(&cnf);

	/* without a "" slot the extra file comes last; a file listed twice is read at its last place */
	const char *files2[] = {g1, g2, g1, NULL};
	a.default_files = files2;
	CU_ASSERT_EQUAL_FATAL(mycnf_load(&cnf, &a, &err), 0);
	out = mycnf_format_args(&cnf, client);
	CU_ASSERT_STRING_EQUAL(out, "--src=global2\n--src=global1\n--port=1\n--src=extra\n--port=2\n");
	free(out);
	mycnf_free(&cnf);

	/* --defaults-file reads only that file, even with an extra file given */
	a.defaults_file = g2;
	CU_ASSERT_EQUAL_FATAL(mycnf_load(&cnf, &a, &err), 0);
	CU_ASSERT_EQUAL(cnf.n, 1);
	mycnf_free(&cnf);
}

static void test_print_defaults(void)
{
	mycnf cnf;
	xb_error err;
	const char *p = put("print.cnf",
			    "[mysqld]\ndatadir = /var/lib/mysql\nskip-name-resolve\n"
			    "[client]\nsocket=\"/run/my sock\"\n[mariabackup]\nUser = root\npassword=\n", 0644);
	CU_ASSERT_EQUAL_FATAL(load_file(&cnf, p, &err), 0);
	const char *g[] = {"mysqld", "mariabackup", NULL};
	char *out = mycnf_format_args(&cnf, g);
	CU_ASSERT_STRING_EQUAL(out, "--datadir=/var/lib/mysql\n--skip-name-resolve\n--User=root\n--password=\n");
	free(out);
	const char *none[] = {"nothing", NULL};
	out = mycnf_format_args(&cnf, none);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	mycnf_free(&cnf);

	/* the file list as --help shows it */
	mycnf_args a;
	memset(&a, 0, sizeof a);
	unsetenv("MARIADB_HOME");
	unsetenv("MYSQL_HOME");
	out = mycnf_format_default_files(&a);
	CU_ASSERT_STRING_EQUAL(out, "/etc/my.cnf /etc/mysql/my.cnf ~/.my.cnf ");
	free(out);
	setenv("MYSQL_HOME", "/opt/my/", 1);
	a.defaults_extra_file = "/x/extra.cnf";
	out = mycnf_format_default_files(&a);
	CU_ASSERT_STRING_EQUAL(out, "/etc/my.cnf /etc/mysql/my.cnf /opt/my/my.cnf /x/extra.cnf ~/.my.cnf ");
	free(out);
	setenv("MARIADB_HOME", "/etc", 1); /* wins over MYSQL_HOME; a repeated file moves to the end */
	out = mycnf_format_default_files(&a);
	CU_ASSERT_STRING_EQUAL(out, "/etc/mysql/my.cnf /etc/my.cnf /x/extra.cnf ~/.my.cnf ");
	free(out);
	unsetenv("MARIADB_HOME");
	unsetenv("MYSQL_HOME");
	a.defaults_file = "/only.cnf";
	out = mycnf_format_default_files(&a);
	CU_ASSERT_STRING_EQUAL(out, "/only.cnf");
	free(out);
}

/* The real Debian/Ubuntu layout: [client-server] socket plus two !includedir lines. */
static void test_real_debian_my_cnf(void)
{
	if (access("/etc/mysql/my.cnf", R_OK) != 0) {
		printf("(no /etc/mysql/my.cnf: skipped) ");
		return;
	}
	mycnf cnf;
	xb_error err;
	mycnf_args a;
	memset(&a, 0, sizeof a);
	a.home = tmpdir; /* no ~/.my.cnf of the user running the tests */
	unsetenv("MARIADB_HOME");
	unsetenv("MYSQL_HOME");
	CU_ASSERT_EQUAL_FATAL(mycnf_load(&cnf, &a, &err), 0);
	const char *g[] = {"client-server", NULL};
	const mycnf_opt *o = mycnf_find(&cnf, g, "socket");
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_STRING_EQUAL(o->value, "/run/mysqld/mysqld.sock");
	/* the includedirs were followed: more than one file was read */
	CU_ASSERT(cnf.nfiles > 1);
	mycnf_free(&cnf);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("mycnf", suite_init, suite_clean);
	CU_add_test(s, "comments", test_comments);
	CU_add_test(s, "trailing comment outside quotes only", test_trailing_comment);
	CU_add_test(s, "quotes stripped", test_quotes);
	CU_add_test(s, "escapes", test_escapes);
	CU_add_test(s, "whitespace and group names", test_whitespace);
	CU_add_test(s, "same output as my_print_defaults", test_matches_my_print_defaults);
	CU_add_test(s, "option before group is an error", test_option_before_group);
	CU_add_test(s, "!include", test_include);
	CU_add_test(s, "!includedir", test_includedir);
	CU_add_test(s, "include depth limit 10", test_depth_limit);
	CU_add_test(s, "world-writable file skipped", test_world_writable);
	CU_add_test(s, "missing files", test_missing_files);
	CU_add_test(s, "--no-defaults only first", test_no_defaults_first);
	CU_add_test(s, "file options must come first", test_file_options_first);
	CU_add_test(s, "group suffix", test_group_suffix);
	CU_add_test(s, "name normalisation", test_name_normalisation);
	CU_add_test(s, "prefixes", test_prefixes);
	CU_add_test(s, "override order", test_override_order);
	CU_add_test(s, "print-defaults format", test_print_defaults);
	CU_add_test(s, "real /etc/mysql/my.cnf", test_real_debian_my_cnf);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
