/*
 * inventory_test.c - the InnoDB file inventory (engine-hooks/innodb/inventory.c):
 * the innodb_data_file_path parser, the name helpers, and the scans of a
 * server's directories and of a backup directory.
 *
 * The directories are built under /tmp from files of real 10.11 servers:
 * the first pages of an ibdata1 (test/fixtures/innodb), page 0 of two undo
 * tablespaces, the .isl file a server wrote for a DATA DIRECTORY table and
 * that table's first pages (test/fixtures/inventory, with the server's
 * innodb_data_file_path), a whole .ibd (test/fixtures/datafile) and a redo
 * log header.
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/path.h"
#include "fixture.h"
#include "innodb/inventory.h"

static char root[] = "/tmp/xb_inventory.XXXXXX";
static char real_spec[256]; /* innodb_data_file_path of the server the fixtures come from */

/* ---- building directories */

static void mkdirs(const char *rel)
{
	char cmd[PATH_MAX * 2];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s'", root, rel);
	CU_ASSERT_FATAL(system(cmd) == 0);
}

/* root/rel holds len bytes of data (NULL: zeros). */
static void put_bytes(const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	if (data) {
		CU_ASSERT_FATAL(fwrite(data, 1, len, f) == len);
	} else {
		for (size_t i = 0; i < len; i++)
			fputc(0, f);
	}
	fclose(f);
}

/* root/rel is a copy of the fixture at fixture_dir/name ("../inventory/x"). */
static void put_fixture(const char *rel, const char *name)
{
	size_t len;
	uint8_t *b = load(name, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	put_bytes(rel, b, len);
	free(b);
}

static void put_text(const char *rel, const char *text)
{
	put_bytes(rel, text, strlen(text));
}

static const char *in_root(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", root, rel);
	return buf[k];
}

static const inv_file *find(const inventory *inv, const char *rel)
{
	for (size_t i = 0; i < inv->n; i++)
		if (!strcmp(inv->v[i].rel, rel))
			return &inv->v[i];
	return NULL;
}

static void setup_real_spec(void)
{
	size_t len;
	char *vars = (char *)load("../inventory/variables.txt", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vars);
	const char *v = strstr(vars, "innodb_data_file_path=");
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	v += strlen("innodb_data_file_path=");
	snprintf(real_spec, sizeof real_spec, "%.*s", (int)strcspn(v, "\n"), v);
	free(vars);
}

/* ---- innodb_data_file_path */

static void test_parse_good(void)
{
	xb_error err;
	inv_dfp d;
	CU_ASSERT_EQUAL_FATAL(inv_dfp_parse(NULL, 0, &d, &err), 0); /* the server's default */
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_STRING_EQUAL(d.part[0].name, "ibdata1");
	CU_ASSERT_EQUAL(d.part[0].size, 12u << 20);
	CU_ASSERT_TRUE(d.part[0].autoextend);
	CU_ASSERT_EQUAL(d.part[0].first_page, 0);
	inv_dfp_free(&d);
	CU_ASSERT_EQUAL_FATAL(inv_dfp_parse("", 0, &d, &err), 0);
	CU_ASSERT_STRING_EQUAL(d.part[0].opts, ":12M:autoextend");
	inv_dfp_free(&d);

	/* the value a real server reported: two files */
	CU_ASSERT_STRING_EQUAL(real_spec, "ibdata1:12M;ibdata2:4M:autoextend");
	CU_ASSERT_EQUAL_FATAL(inv_dfp_parse(real_spec, 16384, &d, &err), 0);
	CU_ASSERT_EQUAL_FATAL(d.n, 2);
	CU_ASSERT_STRING_EQUAL(d.part[1].name, "ibdata2");
	CU_ASSERT_EQUAL(d.part[0].size, 12u << 20);
	CU_ASSERT_FALSE(d.part[0].autoextend);
	CU_ASSERT_EQUAL(d.part[1].size, 4u << 20);
	CU_ASSERT_TRUE(d.part[1].autoextend);
	CU_ASSERT_EQUAL(d.part[1].first_page, 768);
	inv_dfp_free(&d);
	CU_ASSERT_EQUAL_FATAL(inv_dfp_parse(real_spec, 4096, &d, &err), 0);
	CU_ASSERT_EQUAL(d.part[1].first_page, 3072);
	inv_dfp_free(&d);

	/* three files, names with '/', bytes, lower-case units, a maximum, empty parts */
	CU_ASSERT_EQUAL_FATAL(
		inv_dfp_parse("/abs/ibdata1:10485760;;sub/ibdata2:1g;ibdata3:64m:autoextend:max:2G;", 0, &d, &err), 0);
	CU_ASSERT_EQUAL_FATAL(d.n, 3);
	CU_ASSERT_STRING_EQUAL(d.part[0].name, "/abs/ibdata1");
	CU_ASSERT_EQUAL(d.part[0].size, 10u << 20);
	CU_ASSERT_STRING_EQUAL(d.part[1].name, "sub/ibdata2");
	CU_ASSERT_EQUAL(d.part[1].size, 1ull << 30);
	CU_ASSERT_EQUAL(d.part[1].first_page, 640);
	CU_ASSERT_EQUAL(d.part[2].first_page, 640 + 65536);
	CU_ASSERT_TRUE(d.part[2].autoextend);
	CU_ASSERT_EQUAL(d.part[2].max, 2ull << 30);
	CU_ASSERT_STRING_EQUAL(d.part[2].opts, ":64m:autoextend:max:2G");
	inv_dfp_free(&d);

	/* a raw partition */
	CU_ASSERT_EQUAL_FATAL(inv_dfp_parse("/dev/sdb1:10Gnewraw;ibdata2:12M:autoextend", 0, &d, &err), 0);
	CU_ASSERT_TRUE(d.part[0].raw);
	CU_ASSERT_EQUAL(d.part[0].size, 10ull << 30);
	CU_ASSERT_FALSE(d.part[1].raw);
	inv_dfp_free(&d);
}

static void test_parse_bad(void)
{
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{"ibdata1", "cannot parse innodb_data_file_path 'ibdata1': 'ibdata1' has no size"},
		{":12M", "cannot parse innodb_data_file_path ':12M': a file has no name (':12M')"},
		{"ibdata1:12X", "cannot parse innodb_data_file_path 'ibdata1:12X': 'ibdata1' is followed by 'X', "
				"not a size or :autoextend[:max:size]"},
		{"ibdata1:M", "cannot parse innodb_data_file_path 'ibdata1:M': 'ibdata1' has no valid size ('M')"},
		{"ibdata1:0M", "cannot parse innodb_data_file_path 'ibdata1:0M': 'ibdata1' has a size of 0"},
		{"ibdata1:12M:autoextend;ibdata2:12M", "cannot parse innodb_data_file_path "
						       "'ibdata1:12M:autoextend;ibdata2:12M': only the last file may "
						       "autoextend, not 'ibdata1'"},
		{"ibdata1:12M:autoextend:max:", "cannot parse innodb_data_file_path 'ibdata1:12M:autoextend:max:': "
						"'ibdata1' has no valid maximum size"},
		{"ibdata1:12M;ibdata2", "cannot parse innodb_data_file_path 'ibdata1:12M;ibdata2': 'ibdata2' has no size"},
		{";;", "cannot parse innodb_data_file_path ';;': no file"},
		{"ibdata1:99999999999999999999", "cannot parse innodb_data_file_path 'ibdata1:99999999999999999999': "
						 "'ibdata1' has no valid size ('99999999999999999999')"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		xb_error err;
		xb_err_clear(&err);
		inv_dfp d;
		CU_ASSERT_EQUAL(inv_dfp_parse(bad[i].spec, 0, &d, &err), XB_E_CONFIG);
		CU_ASSERT_STRING_EQUAL(err.msg, bad[i].msg);
		CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
		CU_ASSERT_EQUAL(d.n, 0);
		CU_ASSERT_PTR_NULL(d.part);
		char out[64];
		CU_ASSERT_EQUAL(inv_dfp_for_backup(bad[i].spec, out, sizeof out, &err), XB_E_CONFIG);
	}
}

static void test_for_backup(void)
{
	xb_error err;
	char out[256];
	CU_ASSERT_EQUAL(inv_dfp_for_backup(NULL, out, sizeof out, &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "ibdata1:12M:autoextend");
	CU_ASSERT_EQUAL(inv_dfp_for_backup(real_spec, out, sizeof out, &err), 0);
	CU_ASSERT_STRING_EQUAL(out, real_spec);
	/* the names lose their directories; sizes and options stay as written */
	CU_ASSERT_EQUAL(inv_dfp_for_backup("/abs/ibdata1:12m;;x/y/ibdata2:1G:autoextend:max:2G;", out, sizeof out, &err),
			0);
	CU_ASSERT_STRING_EQUAL(out, "ibdata1:12m;ibdata2:1G:autoextend:max:2G");
	CU_ASSERT_EQUAL(inv_dfp_for_backup(real_spec, out, 10, &err), XB_E_CONFIG);
}

/* ---- names */

static void test_names(void)
{
	CU_ASSERT_TRUE(inv_is_undo_name("undo001"));
	CU_ASSERT_TRUE(inv_is_undo_name("undo127"));
	CU_ASSERT_FALSE(inv_is_undo_name("undo1"));
	CU_ASSERT_FALSE(inv_is_undo_name("undo0001"));
	CU_ASSERT_FALSE(inv_is_undo_name("undo1x"));
	CU_ASSERT_FALSE(inv_is_undo_name("undo00a"));
	CU_ASSERT_FALSE(inv_is_undo_name("db/undo001"));
	CU_ASSERT_TRUE(inv_is_table_file("t.ibd"));
	CU_ASSERT_TRUE(inv_is_table_file("db/t.ibd"));
	CU_ASSERT_FALSE(inv_is_table_file(".ibd"));
	CU_ASSERT_FALSE(inv_is_table_file("t.ibd.new"));
	CU_ASSERT_FALSE(inv_is_table_file("ibdata1"));
	CU_ASSERT_TRUE(inv_is_link_file("db/t.isl"));
	CU_ASSERT_FALSE(inv_is_link_file("db/t.ibd"));
	CU_ASSERT_TRUE(inv_is_redo_name("ib_logfile0"));
	CU_ASSERT_FALSE(inv_is_redo_name("ib_logfile1"));

	xb_error err;
	char out[64];
	CU_ASSERT_EQUAL(inv_table_file(out, sizeof out, "/b", "db/t", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "/b/db/t.ibd");
	CU_ASSERT_EQUAL(inv_table_file(out, sizeof out, NULL, "db/t", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "db/t.ibd");
	CU_ASSERT_EQUAL(inv_table_file_of(out, sizeof out, "/b", "db/t.del", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "/b/db/t.ibd");
	CU_ASSERT_EQUAL(inv_table_file_of(out, sizeof out, NULL, "d.b/t#P#p0.isl", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "d.b/t#P#p0.ibd");
	CU_ASSERT_EQUAL(inv_link_file_of(out, sizeof out, NULL, "/b/db/t.ibd", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "/b/db/t.isl");
	CU_ASSERT_EQUAL(inv_marker_name(out, sizeof out, NULL, "db/t.ibd", ".new", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "db/t.new");
	CU_ASSERT_EQUAL(inv_marker_name(out, sizeof out, "/b", "db/t.ibd", ".del", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "/b/db/t.del");
	CU_ASSERT_EQUAL(inv_redo_file(out, sizeof out, "/logs", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "/logs/ib_logfile0");
	/* never cut short */
	CU_ASSERT_EQUAL(inv_table_file(out, 8, NULL, "db/table", &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_EQUAL(inv_marker_name(out, 10, "/backup", "db/t.ibd", ".del", &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(out, "");
}

/* ---- reading */

static void test_read(void)
{
	mkdirs("read");
	put_fixture("read/undo001", "../inventory/undo001.page0");
	put_fixture("read/zero", "zero.pages");
	xb_error err;
	innodb_space_info si;
	CU_ASSERT_EQUAL(inv_read_page0(in_root("read/undo001"), &si, &err), 0);
	CU_ASSERT_EQUAL(si.space_id, 1);
	CU_ASSERT_EQUAL(si.physical_size, 16384);
	CU_ASSERT_EQUAL(inv_read_page0(in_root("read/zero"), &si, &err), 1); /* never written */
	CU_ASSERT_EQUAL(inv_read_page0(in_root("read/none"), &si, &err), XB_E_IO_READ);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "read/none: No such file or directory"));

	/* the link file a real server wrote: the path alone, no newline */
	char path[PATH_MAX];
	CU_ASSERT_EQUAL(inv_link_read(in_root("../does-not-exist.isl"), path, sizeof path, &err), XB_E_IO_READ);
	put_fixture("read/t_dd.isl", "../inventory/t_dd.isl");
	CU_ASSERT_EQUAL(inv_link_read(in_root("read/t_dd.isl"), path, sizeof path, &err), 0);
	CU_ASSERT_EQUAL(path[0], '/');
	CU_ASSERT_TRUE(xb_path_has_suffix(path, "/ext/test/t_dd.ibd"));
	put_text("read/crlf.isl", "/data/ext/db/t.ibd\r\nmore\n");
	CU_ASSERT_EQUAL(inv_link_read(in_root("read/crlf.isl"), path, sizeof path, &err), 0);
	CU_ASSERT_STRING_EQUAL(path, "/data/ext/db/t.ibd");
	put_text("read/empty.isl", "\n");
	CU_ASSERT_EQUAL(inv_link_read(in_root("read/empty.isl"), path, sizeof path, &err), 0);
	CU_ASSERT_STRING_EQUAL(path, "");

	/* where a restore puts a DATA DIRECTORY table: only an absolute path will do */
	CU_ASSERT_EQUAL(inv_link_target(in_root("read/crlf.isl"), path, sizeof path, &err), 0);
	CU_ASSERT_STRING_EQUAL(path, "/data/ext/db/t.ibd");
	put_text("read/rel.isl", "ext/db/t.ibd\n");
	CU_ASSERT_EQUAL(inv_link_target(in_root("read/rel.isl"), path, sizeof path, &err), XB_E_TARGET);
	char want[PATH_MAX + 64];
	snprintf(want, sizeof want, "%s does not hold an absolute path (\"ext/db/t.ibd\")", in_root("read/rel.isl"));
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_STRING_EQUAL(err.hint, "a .isl file names where a DATA DIRECTORY tablespace lives; fix or remove it");
	CU_ASSERT_EQUAL(inv_link_target(in_root("read/empty.isl"), path, sizeof path, &err), XB_E_TARGET);
	CU_ASSERT_EQUAL(inv_link_target(in_root("read/t_dd.isl"), path, 8, &err), XB_E_USAGE); /* never cut short */
}

/* ---- a server */

/* root/srv: datadir data/, system files in home/, undo tablespaces in undo/,
 * redo log in redo/, a DATA DIRECTORY table in ext/. */
static void make_server(void)
{
	mkdirs("srv/data/test");
	mkdirs("srv/data/mysql");
	mkdirs("srv/data/#innodb_redo");
	mkdirs("srv/data/.hidden");
	mkdirs("srv/data/lost+found");
	mkdirs("srv/home");
	mkdirs("srv/undo");
	mkdirs("srv/redo");
	mkdirs("srv/ext/test");
	put_fixture("srv/home/ibdata1", "ibdata1.pages");        /* 8 pages of a real ibdata1 */
	put_bytes("srv/home/ibdata2", NULL, 4 * 16384);            /* its second file: pages 8.. */
	put_fixture("srv/undo/undo001", "../inventory/undo001.page0");
	put_fixture("srv/undo/undo002", "../inventory/undo002.page0");
	put_text("srv/undo/undo1x", "not an undo tablespace");
	put_fixture("srv/data/test/t1.ibd", "../datafile/t1.ibd");
	put_fixture("srv/ext/test/t_dd.ibd", "../inventory/t_dd.pages");
	char isl[PATH_MAX];
	snprintf(isl, sizeof isl, "%s/srv/ext/test/t_dd.ibd", root); /* as the server writes it: no newline */
	put_text("srv/data/test/t_dd.isl", isl);
	put_text("srv/data/test/t_gone.isl", "/nonexistent/test/t_gone.ibd"); /* dropped meanwhile */
	put_text("srv/data/test/t_blank.isl", "");
	put_bytes("srv/data/test/t_new.ibd", NULL, 4 * 16384);   /* being created: page 0 not written yet */
	put_text("srv/data/test/t1.frm", "frm");
	put_text("srv/data/mysql/innodb_index_stats.ibd", "tiny");
	put_text("srv/data/#innodb_redo/x.ibd", "not a table");
	put_text("srv/data/.hidden/x.ibd", "not a table");
	put_text("srv/data/lost+found/x.ibd", "not a table");
	put_text("srv/data/top.ibd", "not in a database directory");
	put_fixture("srv/redo/ib_logfile0", "redo_head.bin");
}

static inv_server server(const char *spec)
{
	static char dd[PATH_MAX], home[PATH_MAX], undo[PATH_MAX], redo[PATH_MAX];
	snprintf(dd, sizeof dd, "%s/srv/data", root);
	snprintf(home, sizeof home, "%s/srv/home", root);
	snprintf(undo, sizeof undo, "%s/srv/undo", root);
	snprintf(redo, sizeof redo, "%s/srv/redo", root);
	return (inv_server){.datadir = dd, .data_home_dir = home, .undo_dir = undo, .log_dir = redo,
			    .data_file_path = spec, .page_size = 16384};
}

static void test_server_scan(void)
{
	make_server();
	inv_server srv = server(real_spec);
	inventory inv;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(inv_scan_server(&srv, &inv, &err), 0);
	CU_ASSERT_EQUAL(inv.n, 9);
	CU_ASSERT_EQUAL(inv.page_size, 16384);
	/* the system tablespace first, in order, pages numbered by the files' sizes */
	CU_ASSERT_EQUAL_FATAL(inv.v[0].kind, INV_SYSTEM);
	CU_ASSERT_STRING_EQUAL(inv.v[0].rel, "ibdata1");
	CU_ASSERT_STRING_EQUAL(inv.v[0].path, in_root("srv/home/ibdata1"));
	CU_ASSERT_EQUAL(inv.v[0].part, 0);
	CU_ASSERT_EQUAL(inv.v[0].first_page, 0);
	CU_ASSERT_EQUAL(inv.v[0].space_id, 0);
	CU_ASSERT_EQUAL(inv.v[0].size, 8 * 16384);
	CU_ASSERT_EQUAL_FATAL(inv.v[1].kind, INV_SYSTEM);
	CU_ASSERT_STRING_EQUAL(inv.v[1].rel, "ibdata2");
	CU_ASSERT_EQUAL(inv.v[1].part, 1);
	CU_ASSERT_EQUAL(inv.v[1].first_page, 8);
	CU_ASSERT_PTR_EQUAL(inv_system_first(&inv), &inv.v[0]);

	const inv_file *f = find(&inv, "undo001");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->kind, INV_UNDO);
	CU_ASSERT_EQUAL(f->space_id, 1);
	CU_ASSERT_TRUE(f->identified);
	CU_ASSERT_STRING_EQUAL(f->path, in_root("srv/undo/undo001"));
	f = find(&inv, "undo002");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->space_id, 2);
	CU_ASSERT_PTR_NULL(find(&inv, "undo1x"));

	f = find(&inv, "test/t1.ibd");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->kind, INV_TABLE);
	CU_ASSERT_EQUAL(f->space_id, 9);
	CU_ASSERT_EQUAL(f->size, 245760);
	CU_ASSERT_EQUAL(f->info.physical_size, 16384);
	/* the DATA DIRECTORY table: found through its link file, named as a table of its database */
	f = find(&inv, "test/t_dd.ibd");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->kind, INV_REMOTE);
	CU_ASSERT_STRING_EQUAL(f->path, in_root("srv/ext/test/t_dd.ibd"));
	CU_ASSERT_EQUAL(f->space_id, 7);
	CU_ASSERT_PTR_NULL(find(&inv, "test/t_gone.ibd"));
	CU_ASSERT_PTR_NULL(find(&inv, "test/t_blank.ibd"));
	/* a table being created: listed, no space id yet */
	f = find(&inv, "test/t_new.ibd");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_FALSE(f->identified);
	CU_ASSERT_EQUAL(f->space_id, UINT32_MAX);
	f = find(&inv, "mysql/innodb_index_stats.ibd");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->space_id, UINT32_MAX);
	CU_ASSERT_EQUAL(f->size, 4);
	/* the redo log last */
	CU_ASSERT_EQUAL(inv.v[inv.n - 1].kind, INV_REDO);
	CU_ASSERT_STRING_EQUAL(inv.v[inv.n - 1].rel, "ib_logfile0");
	CU_ASSERT_STRING_EQUAL(inv.v[inv.n - 1].path, in_root("srv/redo/ib_logfile0"));
	CU_ASSERT_EQUAL(inv.v[inv.n - 1].size, 12288);
	inv_free(&inv);

	/* a table with both its .ibd and a link file: listed once */
	put_text("srv/data/test/t1.isl", in_root("srv/ext/test/t_dd.ibd"));
	CU_ASSERT_EQUAL_FATAL(inv_scan_server(&srv, &inv, &err), 0);
	CU_ASSERT_EQUAL(inv.n, 9);
	unlink(in_root("srv/data/test/t1.isl"));
	inv_free(&inv);

	/* an absolute system file name leaves innodb_data_home_dir out */
	char spec[PATH_MAX];
	snprintf(spec, sizeof spec, "%s/srv/home/ibdata1:12M:autoextend", root);
	srv = server(spec);
	srv.data_home_dir = "/nonexistent";
	CU_ASSERT_EQUAL_FATAL(inv_scan_server(&srv, &inv, &err), 0);
	CU_ASSERT_STRING_EQUAL(inv.v[0].path, in_root("srv/home/ibdata1"));
	CU_ASSERT_STRING_EQUAL(inv.v[0].rel, "ibdata1");
	CU_ASSERT_EQUAL(inv.v[1].kind, INV_UNDO);
	inv_free(&inv);
}

static void test_server_refusals(void)
{
	inventory inv;
	xb_error err;
	char want[PATH_MAX * 2];
	inv_server srv = server("ibdata1:12M;ibdata3:12M:autoextend");
	CU_ASSERT_EQUAL(inv_scan_server(&srv, &inv, &err), XB_E_IO_READ);
	snprintf(want, sizeof want, "cannot read system tablespace file %s: No such file or directory",
		 in_root("srv/home/ibdata3"));
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.hint, "can read the server's datadir"));
	inv_free(&inv);

	srv = server("ibdata1");
	CU_ASSERT_EQUAL(inv_scan_server(&srv, &inv, &err), XB_E_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "cannot parse innodb_data_file_path 'ibdata1': 'ibdata1' has no size");
	inv_free(&inv);

	srv = server(NULL);
	srv.undo_dir = in_root("srv/no-undo");
	CU_ASSERT_EQUAL(inv_scan_server(&srv, &inv, &err), XB_E_IO_READ);
	snprintf(want, sizeof want, "cannot open innodb_undo_directory %s: No such file or directory",
		 in_root("srv/no-undo"));
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	inv_free(&inv);

	srv = server(NULL);
	srv.datadir = in_root("srv/no-data");
	CU_ASSERT_EQUAL(inv_scan_server(&srv, &inv, &err), XB_E_IO_READ);
	snprintf(want, sizeof want, "cannot open datadir %s: No such file or directory", in_root("srv/no-data"));
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.hint, "can read the server's datadir"));
	inv_free(&inv);
}

/* ---- a backup */

static void make_backup(void)
{
	mkdirs("bk/test");
	mkdirs("bk/mysql");
	mkdirs("bk/.hidden");
	put_fixture("bk/ibdata1", "ibdata1.pages");
	put_bytes("bk/ibdata2", NULL, 3 * 16384);
	put_fixture("bk/undo001", "../inventory/undo001.page0");
	put_fixture("bk/undo002", "../inventory/undo002.page0");
	put_fixture("bk/test/t1.ibd", "../datafile/t1.ibd");
	put_fixture("bk/test/t_dd.ibd", "../inventory/t_dd.pages"); /* a DATA DIRECTORY table, kept beside its link */
	put_fixture("bk/test/t_dd.isl", "../inventory/t_dd.isl");
	put_bytes("bk/test/t_new.ibd", NULL, 2 * 16384);            /* created during the backup: page 0 not yet written */
	put_text("bk/test/t1.frm", "frm");
	put_text("bk/test/t_old.del", "");
	put_text("bk/.hidden/x.ibd", "x");
	put_text("bk/.top.ibd", "x");
	put_fixture("bk/ib_logfile0", "redo_head.bin");
	put_text("bk/backup-my.cnf", "[mysqld]\n");
}

static void test_backup_scan(void)
{
	make_backup();
	inventory inv;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(inv_scan_backup(in_root("bk"), real_spec, &inv, &err), 0);
	CU_ASSERT_EQUAL(inv.n, 8);
	CU_ASSERT_EQUAL(inv.page_size, 16384); /* from page 0 of ibdata1 */
	CU_ASSERT_EQUAL_FATAL(inv.v[0].kind, INV_SYSTEM);
	CU_ASSERT_STRING_EQUAL(inv.v[0].rel, "ibdata1");
	CU_ASSERT_TRUE(inv.v[0].identified);
	CU_ASSERT_EQUAL(inv.v[0].info.space_id, 0);
	CU_ASSERT_EQUAL(inv.v[0].space_id, 0);
	CU_ASSERT_EQUAL_FATAL(inv.v[1].kind, INV_SYSTEM);
	CU_ASSERT_STRING_EQUAL(inv.v[1].path, in_root("bk/ibdata2"));
	CU_ASSERT_EQUAL(inv.v[1].first_page, 8);
	CU_ASSERT_EQUAL(inv.v[1].size, 3 * 16384);
	CU_ASSERT_FALSE(inv.v[1].identified);

	const inv_file *f = find(&inv, "undo002");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->kind, INV_UNDO);
	CU_ASSERT_EQUAL(f->info.space_id, 2);
	CU_ASSERT_TRUE(f->fs_block >= 512);
	f = find(&inv, "test/t_dd.ibd");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->kind, INV_TABLE);
	CU_ASSERT_EQUAL(f->space_id, 7);
	CU_ASSERT_STRING_EQUAL(f->path, in_root("bk/test/t_dd.ibd"));
	f = find(&inv, "test/t1.ibd");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->space_id, 9);
	CU_ASSERT_EQUAL(f->size, 245760);
	f = find(&inv, "test/t_new.ibd");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_FALSE(f->identified);
	CU_ASSERT_EQUAL(f->space_id, UINT32_MAX);
	CU_ASSERT_EQUAL(f->size, 2 * 16384);
	CU_ASSERT_PTR_NOT_NULL(find(&inv, "undo001"));
	CU_ASSERT_EQUAL(inv.v[inv.n - 1].kind, INV_REDO);
	inv_free(&inv);

	/* no first system file: no system tablespace (prepare says so if the log needs it) */
	CU_ASSERT_EQUAL_FATAL(inv_scan_backup(in_root("bk"), "ibdataX:12M:autoextend", &inv, &err), 0);
	CU_ASSERT_PTR_NULL(inv_system_first(&inv));
	CU_ASSERT_EQUAL(inv.n, 6);
	inv_free(&inv);

	/* a later one missing */
	char want[PATH_MAX * 2];
	CU_ASSERT_EQUAL(inv_scan_backup(in_root("bk"), "ibdata1:12M;ibdata3:12M:autoextend", &inv, &err),
			XB_E_MISSING_FILE);
	snprintf(want, sizeof want, "system tablespace file %s is missing", in_root("bk/ibdata3"));
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	inv_free(&inv);

	/* a first file without a valid page 0 */
	CU_ASSERT_EQUAL(inv_scan_backup(in_root("bk"), "ibdata2:12M:autoextend", &inv, &err), XB_E_CORRUPT_PAGE);
	snprintf(want, sizeof want, "%s: page 0 of the system tablespace is not valid", in_root("bk/ibdata2"));
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	inv_free(&inv);

	CU_ASSERT_EQUAL(inv_scan_backup(in_root("bk"), "ibdata1:12M:autoextend;ibdata2:1M", &inv, &err), XB_E_CONFIG);
	inv_free(&inv);

	CU_ASSERT_EQUAL(inv_scan_backup(in_root("no-backup"), NULL, &inv, &err), XB_E_TARGET);
	snprintf(want, sizeof want, "cannot read directory %s: No such file or directory", in_root("no-backup"));
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	inv_free(&inv);
}

int main(void)
{
	find_fixture_dir();
	if (!mkdtemp(root))
		return 1;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("inventory", NULL, NULL);
	CU_add_test(s, "the fixtures' innodb_data_file_path", setup_real_spec);
	CU_add_test(s, "innodb_data_file_path: specs a server takes", test_parse_good);
	CU_add_test(s, "innodb_data_file_path: bad specs refused, naming the value", test_parse_bad);
	CU_add_test(s, "innodb_data_file_path as a backup records it", test_for_backup);
	CU_add_test(s, "names: what a name is, and the names of a table's files", test_names);
	CU_add_test(s, "page 0 and link files", test_read);
	CU_add_test(s, "scan of a server's directories", test_server_scan);
	CU_add_test(s, "server scan refusals", test_server_refusals);
	CU_add_test(s, "scan of a backup directory", test_backup_scan);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		failed++;
	return failed ? 1 : 0;
}
