/*
 * restore_layout_test.c - where --copy-back puts each file of a backup, and
 * what it refuses before writing anything (src/command/restore/layout.c).
 *
 * A backup directory is built under /tmp with the kinds of files a real one
 * holds (system tablespace in two files, undo, redo copy, Aria logs, a
 * DATA DIRECTORY tablespace with its .isl, an empty database directory, the
 * metadata files, a buffer-pool dump, temporary files) and a my.cnf giving
 * the restored server's directories, relative and absolute. The plan must
 * send each file where the server looks for it, leave the metadata behind,
 * and the checks must refuse a non-empty datadir, an existing file (even with
 * force), overlapping directories (a backup below the datadir is allowed, a
 * destination inside the backup is not) and a relative .isl.
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/restore/restore_int.h"
#include "config/options.h"

static char root[] = "/tmp/xb_restore_layout.XXXXXX";
static char bdir[PATH_MAX], cnf[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX + 256], dir[PATH_MAX + 320];
	snprintf(path, sizeof path, "%s/%s", bdir, rel);
	snprintf(dir, sizeof dir, "mkdir -p \"$(dirname '%s')\"", path);
	CU_ASSERT_FATAL(system(dir) == 0);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static int parse(xb_options *o, xb_error *err, const char *cnf_text, const char *extra)
{
	FILE *f = fopen(cnf, "w");
	fputs(cnf_text, f);
	fclose(f);
	char def[PATH_MAX + 32], target[PATH_MAX + 32];
	snprintf(def, sizeof def, "--defaults-file=%s", cnf);
	snprintf(target, sizeof target, "--target-dir=%s", bdir);
	char *argv[] = {"xtrabackup", def, "--copy-back", target, (char *)extra, NULL};
	xb_err_clear(err);
	return xb_options_parse(o, extra ? 5 : 4, argv, err);
}

/* The layout from the options as --copy-back gets it: its settings first. */
static int resolve(const xb_options *o, restore_layout *l, xb_error *err)
{
	restore_settings s;
	memset(l, 0, sizeof *l);
	int rc = restore_settings_resolve(o, false, &s, err);
	return rc ? rc : layout_resolve(&s, bdir, l, err);
}

static const rfile *find(const rplan *p, const char *rel)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].rel, rel))
			return &p->v[i];
	return NULL;
}

/* The destination of rel, relative to root ("-" when not restored). */
static const char *dst(const rplan *p, const char *rel)
{
	static char buf[PATH_MAX];
	const rfile *f = find(p, rel);
	if (!f)
		return "-";
	size_t n = strlen(root);
	snprintf(buf, sizeof buf, "%s", strncmp(f->dst, root, n) ? f->dst : f->dst + n);
	return buf;
}

static void make_backup(void)
{
	snprintf(bdir, sizeof bdir, "%s/backup", root);
	snprintf(cnf, sizeof cnf, "%s/my.cnf", root);
	put("ibdata1", "x");
	put("ibdata2", "xx");
	put("undo001", "u");
	put("undo002", "u");
	put("undo1x", "not an undo tablespace");
	put("ib_logfile0", "redo");
	put("aria_log_control", "a");
	put("aria_log.00000001", "a");
	put("xtrabackup_checkpoints", "backup_type = log-applied\nfrom_lsn = 0\nto_lsn = 1\nlast_lsn = 2\n");
	put("xtrabackup_binlog_info", "b.000001\t4\t0-1-1\n");
	put("xtrabackup_info", "uuid = x\n");
	put("xtrabackup_binlog_pos_innodb", "b.000001\t4\n");
	put("backup-my.cnf", "[mysqld]\ninnodb_data_file_path=ibdata1:12M;ibdata2:12M:autoextend\n");
	put("ib_buffer_pool", "0,1\n");
	put("stray.tmp", "t");
	put("db/t.ibd", "0123456789012345678901234567890123456789012345678901234567890123456789"
			"0123456789012345678901234567890123456789012345678901234567890123456789");
	put("db/t.frm", "f");
	put("db/d.ibd", "d");
	char isl[PATH_MAX + 32];
	snprintf(isl, sizeof isl, "%s/ext/db/d.ibd\n", root);
	put("db/d.isl", isl);
	put("db/m.MYD", "m");
	char empty[PATH_MAX + 32];
	snprintf(empty, sizeof empty, "%s/emptydb", bdir);
	CU_ASSERT_FATAL(mkdir(empty, 0755) == 0);
}

static void test_placement(void)
{
	char text[PATH_MAX * 4];
	snprintf(text, sizeof text,
		 "[mysqld]\ndatadir=%s/data\ninnodb_undo_directory=undo\ninnodb_log_group_home_dir=%s/redo\n"
		 "innodb_data_home_dir=%s/home\naria_log_dir_path=aria\ninnodb_buffer_pool_filename=warm.dump\n",
		 root, root, root);
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, text, NULL), 0);
	restore_layout l;
	rplan p;
	CU_ASSERT_EQUAL_FATAL(resolve(&o, &l, &err), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(bdir, &l, &p, &err), 0);
	CU_ASSERT_STRING_EQUAL(dst(&p, "ibdata1"), "/home/ibdata1");
	CU_ASSERT_STRING_EQUAL(dst(&p, "ibdata2"), "/home/ibdata2");
	CU_ASSERT_STRING_EQUAL(dst(&p, "undo001"), "/data/undo/undo001");
	CU_ASSERT_STRING_EQUAL(dst(&p, "undo002"), "/data/undo/undo002");
	CU_ASSERT_STRING_EQUAL(dst(&p, "undo1x"), "/data/undo1x");
	CU_ASSERT_STRING_EQUAL(dst(&p, "ib_logfile0"), "/redo/ib_logfile0");
	CU_ASSERT_STRING_EQUAL(dst(&p, "aria_log_control"), "/data/aria/aria_log_control");
	CU_ASSERT_STRING_EQUAL(dst(&p, "aria_log.00000001"), "/data/aria/aria_log.00000001");
	CU_ASSERT_STRING_EQUAL(dst(&p, "xtrabackup_info"), "/data/xtrabackup_info");
	CU_ASSERT_STRING_EQUAL(dst(&p, "xtrabackup_binlog_pos_innodb"), "/data/xtrabackup_binlog_pos_innodb");
	CU_ASSERT_STRING_EQUAL(dst(&p, "db/t.ibd"), "/data/db/t.ibd");
	CU_ASSERT_STRING_EQUAL(dst(&p, "db/t.frm"), "/data/db/t.frm");
	CU_ASSERT_STRING_EQUAL(dst(&p, "db/d.ibd"), "/ext/db/d.ibd"); /* where the .isl points */
	CU_ASSERT_STRING_EQUAL(dst(&p, "db/d.isl"), "/data/db/d.isl");
	CU_ASSERT_STRING_EQUAL(dst(&p, "db/m.MYD"), "/data/db/m.MYD");
	CU_ASSERT_STRING_EQUAL(dst(&p, "emptydb"), "/data/emptydb");
	CU_ASSERT_EQUAL(find(&p, "emptydb")->kind, RF_DIR);
	/* left behind, or handled apart */
	CU_ASSERT_STRING_EQUAL(dst(&p, "xtrabackup_checkpoints"), "-");
	CU_ASSERT_STRING_EQUAL(dst(&p, "xtrabackup_binlog_info"), "-");
	CU_ASSERT_STRING_EQUAL(dst(&p, "backup-my.cnf"), "-");
	CU_ASSERT_STRING_EQUAL(dst(&p, "stray.tmp"), "-");
	CU_ASSERT_STRING_EQUAL(dst(&p, "ib_buffer_pool"), "-");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p.dump);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.dump, "/backup/ib_buffer_pool"));
	char want[PATH_MAX + 32];
	snprintf(want, sizeof want, "%s/home/warm.dump", root); /* the server's dump lives in innodb_data_home_dir */
	CU_ASSERT_STRING_EQUAL(l.bp_file, want);
	CU_ASSERT_EQUAL(p.n, 16);
	/* largest file first, directories before files */
	CU_ASSERT_EQUAL(p.v[0].kind, RF_DIR);
	CU_ASSERT_STRING_EQUAL(p.v[1].rel, "db/t.ibd");
	CU_ASSERT_EQUAL(plan_check(&p, &l, bdir, false, &err), 0);
	plan_free(&p);
	layout_free(&l);
	xb_options_free(&o);
}

static void test_defaults_and_refusals(void)
{
	char text[PATH_MAX * 2];
	snprintf(text, sizeof text, "[mysqld]\ndatadir=%s/data2\n", root);
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, text, NULL), 0);
	restore_layout l;
	rplan p;
	CU_ASSERT_EQUAL_FATAL(resolve(&o, &l, &err), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(bdir, &l, &p, &err), 0);
	CU_ASSERT_STRING_EQUAL(dst(&p, "ibdata2"), "/data2/ibdata2"); /* from backup-my.cnf's data file path */
	CU_ASSERT_STRING_EQUAL(dst(&p, "undo001"), "/data2/undo001");
	CU_ASSERT_STRING_EQUAL(dst(&p, "ib_logfile0"), "/data2/ib_logfile0");
	char want[PATH_MAX * 3];
	snprintf(want, sizeof want, "%s/data2/ib_buffer_pool", root);
	CU_ASSERT_STRING_EQUAL(l.bp_file, want);

	/* a datadir that is not empty */
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/data2", root);
	CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
	snprintf(path, sizeof path, "%s/data2/notes.txt", root);
	FILE *f = fopen(path, "w");
	fclose(f);
	CU_ASSERT_EQUAL(plan_check(&p, &l, bdir, false, &err), XB_E_TARGET);
	snprintf(want, sizeof want, "the datadir %s/data2 is not empty (it holds 'notes.txt'): nothing was restored", root);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_EQUAL(plan_check(&p, &l, bdir, true, &err), 0); /* force: other files may be there */
	/* ... but no file of the backup may exist */
	snprintf(path, sizeof path, "%s/data2/ibdata2", root);
	f = fopen(path, "w");
	fclose(f);
	CU_ASSERT_EQUAL(plan_check(&p, &l, bdir, true, &err), XB_E_TARGET);
	snprintf(want, sizeof want, "1 file of the backup already exists in the destination (first: %s): nothing was restored",
		 path);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	plan_free(&p);
	layout_free(&l);
	xb_options_free(&o);

	/* the backup inside the datadir (Galera's joiner: $datadir/.sst): allowed, its
	 * directory is no part of the datadir's emptiness; the datadir's other entries are */
	snprintf(text, sizeof text, "[mysqld]\ndatadir=%s\n", root);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, text, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(resolve(&o, &l, &err), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(bdir, &l, &p, &err), 0);
	CU_ASSERT_EQUAL(plan_check(&p, &l, bdir, true, &err), 0);
	CU_ASSERT_EQUAL(plan_check(&p, &l, bdir, false, &err), XB_E_TARGET);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is not empty"));
	CU_ASSERT_PTR_NULL(strstr(err.msg, strrchr(bdir, '/') + 1));
	plan_free(&p);
	layout_free(&l);
	xb_options_free(&o);

	/* the datadir inside the backup: refused */
	snprintf(text, sizeof text, "[mysqld]\ndatadir=%s/sub\n", bdir);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, text, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(resolve(&o, &l, &err), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(bdir, &l, &p, &err), 0);
	CU_ASSERT_EQUAL(plan_check(&p, &l, bdir, true, &err), XB_E_TARGET);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "overlap: nothing was restored"));
	plan_free(&p);
	layout_free(&l);
	xb_options_free(&o);

	/* no datadir at all */
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "[client]\n", NULL), 0);
	CU_ASSERT_EQUAL(resolve(&o, &l, &err), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no datadir to restore into"));
	layout_free(&l);
	xb_options_free(&o);

	/* --datadir on the command line, relative to the current directory */
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "[client]\n", "--datadir=rel/data"), 0);
	CU_ASSERT_EQUAL_FATAL(resolve(&o, &l, &err), 0);
	char cwd[PATH_MAX];
	CU_ASSERT_FATAL(getcwd(cwd, sizeof cwd) != NULL);
	snprintf(want, sizeof want, "%s/rel/data", cwd);
	CU_ASSERT_STRING_EQUAL(l.datadir, want);
	layout_free(&l);
	xb_options_free(&o);

	/* innodb_data_home_dir="" and absolute system tablespace paths */
	snprintf(text, sizeof text, "[mysqld]\ndatadir=%s/data4\ninnodb_data_home_dir=\ninnodb_data_file_path=%s/abs/ibdata1:12M;%s/abs/ibdata2:12M:autoextend\n",
		 root, root, root);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, text, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(resolve(&o, &l, &err), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(bdir, &l, &p, &err), 0);
	CU_ASSERT_STRING_EQUAL(dst(&p, "ibdata1"), "/abs/ibdata1");
	CU_ASSERT_STRING_EQUAL(dst(&p, "ibdata2"), "/abs/ibdata2");
	CU_ASSERT_STRING_EQUAL(dst(&p, "undo001"), "/data4/undo001");
	plan_free(&p);
	layout_free(&l);
	xb_options_free(&o);

	/* a .isl that does not hold an absolute path */
	put("db/d.isl", "relative/d.ibd\n");
	snprintf(text, sizeof text, "[mysqld]\ndatadir=%s/data3\n", root);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, text, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(resolve(&o, &l, &err), 0);
	CU_ASSERT_EQUAL(plan_build(bdir, &l, &p, &err), XB_E_TARGET);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "db/d.isl does not hold an absolute path (\"relative/d.ibd\")"));
	plan_free(&p);
	layout_free(&l);
	xb_options_free(&o);
}

int main(void)
{
	if (!mkdtemp(root))
		return 1;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("restore layout", NULL, NULL);
	CU_add_test(s, "build the backup", make_backup);
	CU_add_test(s, "each file where the server looks for it", test_placement);
	CU_add_test(s, "defaults and refusals", test_defaults_and_refusals);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		failed++;
	return failed ? 1 : 0;
}
