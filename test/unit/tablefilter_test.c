/*
 * tablefilter_test.c - the partial-backup filter (src/common/tablefilter.c)
 * over the names a 10.11 datadir really holds: include and exclude
 * precedence, regex lists, --databases "db.table" entries, --tables-file and
 * --databases-file, partitions (t#P#p0.ibd), names in the server's filename
 * encoding (my@002ddb), #sql temporary tables, ignore_db_dirs, and the
 * errors: a bad regex, a missing file, an unqualified --tables-file line.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/tablefilter.h"

static tablefilter *make(tablefilter_settings s)
{
	tablefilter *f = NULL;
	xb_error e;
	xb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(tablefilter_create(&s, &f, &e), 0);
	return f;
}

static void test_none(void)
{
	tablefilter *f = make((tablefilter_settings){0});
	CU_ASSERT_FALSE(tablefilter_partial(f));
	CU_ASSERT_FALSE(tablefilter_skip_database(f, "mysql"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "test", "t1.ibd"));
	/* a full backup keeps even temporary tables: the DDL reconciliation handles them */
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "test", "#sql-alter-1a2b-3.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_rel(NULL, "test/t1.ibd"));
	tablefilter_free(f);
}

static void test_tables_regex(void)
{
	/* unanchored, as regexec searches: test.*1 also matches test.t21 and mytest.x1 */
	tablefilter *f = make((tablefilter_settings){.tables = "test.*1"});
	CU_ASSERT_TRUE(tablefilter_partial(f));
	CU_ASSERT_FALSE(tablefilter_skip_database(f, "test"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "test", "t1.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "test", "t1.frm"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "test", "t21.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "mytest", "x1.MYD"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "test", "t2.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "test", "db.opt"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "mysql", "user.MAD"));
	/* files outside the database directories are always kept */
	CU_ASSERT_FALSE(tablefilter_skip_file(f, NULL, "ibdata1"));
	CU_ASSERT_FALSE(tablefilter_skip_rel(f, "undo001"));
	CU_ASSERT_FALSE(tablefilter_skip_rel(f, "test/t1.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_rel(f, "test/t2.ibd"));
	/* case counts */
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "TEST", "T1.ibd"));
	tablefilter_free(f);
	/* a list, separated by commas */
	f = make((tablefilter_settings){.tables = "^d1[.]a$,^d2[.]"});
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d1", "a.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d1", "ab.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "anything.MYI"));
	tablefilter_free(f);
}

static void test_partitions(void)
{
	/* a partition follows its table ... */
	tablefilter *f = make((tablefilter_settings){.tables = "d2[.]p$"});
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "p#P#p0.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "p#P#p1#SP#p1sp0.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "p.par"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "p.frm"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d2", "q#P#p0.ibd"));
	tablefilter_free(f);
	/* ... or is chosen alone */
	f = make((tablefilter_settings){.tables = "^d2[.]p#P#p1"});
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "p#P#p1.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d2", "p#P#p0.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d2", "p.frm"));
	tablefilter_free(f);
	/* an excluded partition, its table kept */
	f = make((tablefilter_settings){.databases = "d2", .tables_exclude = "p#P#p0"});
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d2", "p#P#p0.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "p#P#p1.ibd"));
	tablefilter_free(f);
}

static void test_databases(void)
{
	tablefilter *f = make((tablefilter_settings){.databases = "d1 \td2.i  d2.m"});
	CU_ASSERT_FALSE(tablefilter_skip_database(f, "d1"));
	CU_ASSERT_FALSE(tablefilter_skip_database(f, "d2"));
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "mysql"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d1", "anything.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d1", "db.opt"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "i.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "m.MYD"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d2", "a.MAD"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d2", "db.opt"));
	/* exact names: no prefix match */
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d2", "ii.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "d"));
	tablefilter_free(f);
	/* the first mention of a database decides: d1 named whole, then d1.t */
	f = make((tablefilter_settings){.databases = "d1 d1.t"});
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d1", "u.ibd"));
	tablefilter_free(f);
	f = make((tablefilter_settings){.databases = "d1.t d1"});
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d1", "u.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d1", "t.ibd"));
	tablefilter_free(f);
}

static void test_exclusions_win(void)
{
	tablefilter *f = make((tablefilter_settings){.databases = "d1 d2", .databases_exclude = "d2",
						     .tables = "d1[.]", .tables_exclude = "d1[.]x"});
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "d2"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d2", "t.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d1", "x.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d1", "xy.frm"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d1", "t.ibd"));
	tablefilter_free(f);
	/* excluding one table of a database kept by --databases: the table goes */
	f = make((tablefilter_settings){.databases = "d1", .databases_exclude = "d1.t"});
	CU_ASSERT_TRUE(tablefilter_partial(f));
	CU_ASSERT_FALSE(tablefilter_skip_database(f, "d1"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d1", "t.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d1", "u.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "mysql", "user.MAD"));
	tablefilter_free(f);
	/* without --databases, a db.table of --databases-exclude leaves its whole
	 * database out (as mariabackup 10.11 does) */
	f = make((tablefilter_settings){.databases_exclude = "d1.t"});
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "d1"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "mysql", "user.MAD"));
	tablefilter_free(f);
	/* ... but with --databases, an excluded db.table names the whole database */
	f = make((tablefilter_settings){.databases = "d2", .databases_exclude = "d1.t"});
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "d1"));
	tablefilter_free(f);
	/* only exclusions: everything else is kept */
	f = make((tablefilter_settings){.tables_exclude = "test.*2"});
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "test", "t2.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "test", "t1.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "mysql", "db.MAI"));
	tablefilter_free(f);
}

static void test_encoded_names(void)
{
	/* names are matched as the datadir spells them: my-db is my@002ddb */
	tablefilter *f = make((tablefilter_settings){.databases = "my@002ddb"});
	CU_ASSERT_FALSE(tablefilter_skip_database(f, "my@002ddb"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "my@002ddb", "t@002d2.ibd"));
	tablefilter_free(f);
	f = make((tablefilter_settings){.databases = "my-db"});
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "my@002ddb"));
	tablefilter_free(f);
	f = make((tablefilter_settings){.tables = "^my@002ddb[.]t@002d2$"});
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "my@002ddb", "t@002d2.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "my@002ddb", "t1.ibd"));
	/* a dot in a table name is @002e: the name ends at the first real dot */
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "my@002ddb", "t@002d2@002ex.ibd"));
	tablefilter_free(f);
}

static void test_sql_names(void)
{
	tablefilter *f = make((tablefilter_settings){.databases = "test"});
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "test", "#sql-alter-1a2b-3.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "test", "#sql-backup-1a2b-3.frm"));
	CU_ASSERT_TRUE(tablefilter_skip_rel(f, "test/#sql-ib123.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "test", "sql.ibd"));
	tablefilter_free(f);
}

static void test_ignore_dirs(void)
{
	tablefilter *f = make((tablefilter_settings){0});
	xb_error e;
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(tablefilter_ignore_dirs(f, "db3,db4", &e), 0);
	CU_ASSERT_FALSE(tablefilter_partial(f));
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "db3"));
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "db4"));
	CU_ASSERT_FALSE(tablefilter_skip_database(f, "db5"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "db5", "t.ibd"));
	CU_ASSERT_EQUAL(tablefilter_ignore_dirs(f, "", &e), 0);
	tablefilter_free(f);
}

static char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/tablefilter_test.XXXXXX");
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_files(void)
{
	char *p = write_tmp("test.t1\nd2.i\nmy@002ddb.t@002d2"); /* the last line without its newline counts */
	tablefilter *f = make((tablefilter_settings){.tables_file = p});
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "test", "t1.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "i.frm"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "my@002ddb", "t@002d2.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "test", "t2.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "test", "t11.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "mysql"));
	tablefilter_free(f);
	unlink(p);
	p = write_tmp("d1\nd2.t\n");
	f = make((tablefilter_settings){.databases_file = p});
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d1", "x.ibd"));
	CU_ASSERT_FALSE(tablefilter_skip_file(f, "d2", "t.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_file(f, "d2", "u.ibd"));
	CU_ASSERT_TRUE(tablefilter_skip_database(f, "d3"));
	tablefilter_free(f);
	unlink(p);
}

static void test_errors(void)
{
	tablefilter *f = (tablefilter *)1;
	xb_error e;
	xb_err_clear(&e);
	tablefilter_settings s = {.tables = "ok,[("};
	CU_ASSERT_EQUAL(tablefilter_create(&s, &f, &e), XB_E_USAGE);
	CU_ASSERT_PTR_NULL(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "--tables: [( is not a valid regular expression"));
	CU_ASSERT_PTR_NOT_NULL(strstr(e.hint, "POSIX extended"));
	xb_err_clear(&e);
	s = (tablefilter_settings){.tables_exclude = "a(b"};
	CU_ASSERT_EQUAL(tablefilter_create(&s, &f, &e), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "--tables-exclude: a(b is not a valid regular expression"));
	xb_err_clear(&e);
	s = (tablefilter_settings){.tables_file = "/nonexistent/tables.txt"};
	CU_ASSERT_EQUAL(tablefilter_create(&s, &f, &e), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(e.msg, "--tables-file=/nonexistent/tables.txt: cannot open the file: No such file or directory");
	xb_err_clear(&e);
	s = (tablefilter_settings){.databases_file = "/nonexistent/dbs.txt"};
	CU_ASSERT_EQUAL(tablefilter_create(&s, &f, &e), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "--databases-file=/nonexistent/dbs.txt"));
	xb_err_clear(&e);
	char *p = write_tmp("test.t1\nt2\n");
	s = (tablefilter_settings){.tables_file = p};
	CU_ASSERT_EQUAL(tablefilter_create(&s, &f, &e), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(e.msg, "--tables-file: t2 is not a db.table name");
	unlink(p);
	xb_err_clear(&e);
	s = (tablefilter_settings){.databases = "etc/x"};
	CU_ASSERT_EQUAL(tablefilter_create(&s, &f, &e), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(e.msg, "--databases: name etc/x is not valid (it holds '/')");
	xb_err_clear(&e);
	char longname[300];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	s = (tablefilter_settings){.databases_exclude = longname};
	CU_ASSERT_EQUAL(tablefilter_create(&s, &f, &e), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is too long"));
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("tablefilter", NULL, NULL);
	CU_add_test(s, "no option: nothing left out", test_none);
	CU_add_test(s, "--tables: regexes searched in db.table", test_tables_regex);
	CU_add_test(s, "partitions follow their table or are chosen alone", test_partitions);
	CU_add_test(s, "--databases: databases and db.table names", test_databases);
	CU_add_test(s, "exclusions win", test_exclusions_win);
	CU_add_test(s, "names in the filename encoding", test_encoded_names);
	CU_add_test(s, "#sql temporary tables never in a partial backup", test_sql_names);
	CU_add_test(s, "ignore_db_dirs", test_ignore_dirs);
	CU_add_test(s, "--tables-file and --databases-file", test_files);
	CU_add_test(s, "errors name the option and the value", test_errors);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
