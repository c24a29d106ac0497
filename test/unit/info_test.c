/*
 * info_test.c - the metadata files of a backup (src/info/): each writer's
 * exact bytes, round trips writer -> reader, malformed files refused with the
 * file and the line named, the prepare's rewrite of xtrabackup_checkpoints.
 *
 * The fixtures under test/fixtures/info/ (make-fixtures.sh there) are real
 * files: ours/ written by xtrabackup before src/info/ took the formats over,
 * so reading one and writing it again must give the same bytes; mb/ written
 * by mariabackup 10.11, which the readers must read. Malformed files are
 * written into a temporary directory and read from there.
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
#include "info/backup_cnf.h"
#include "info/binlog_info.h"
#include "info/checkpoints.h"
#include "info/galera_info.h"
#include "info/history.h"
#include "info/markers.h"
#include "info/metafile.h"
#include "info/mru.h"
#include "info/slave_info.h"
#include "info/xbinfo.h"
#include "innodb/inventory.h"
#include "memsink.h"

static char fx_ours[PATH_MAX + 32], fx_mb[PATH_MAX + 32];

/* ---- helpers */

static void mktmp(char *dir)
{
	strcpy(dir, "/tmp/info_test.XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
}

static void rmtmp(const char *dir)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* A whole file (NUL-terminated, malloc'ed); NULL when missing. */
static char *slurp(const char *dir, const char *name)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The fixture kind/from copied into dir as name. */
static void copy_fixture(const char *fx, const char *from, const char *dir, const char *name)
{
	char *text = slurp(fx, from);
	CU_ASSERT_FATAL(text != NULL);
	put_file(dir, name, text);
	free(text);
}

/* t equals the bytes of fixture fx/name. */
static void assert_same(const xb_text *t, const char *fx, const char *name)
{
	char *want = slurp(fx, name);
	CU_ASSERT_FATAL(want != NULL);
	CU_ASSERT_FALSE(t->nomem);
	CU_ASSERT_EQUAL(t->n, strlen(want));
	CU_ASSERT_STRING_EQUAL(t->s ? t->s : "", want);
	if (t->s && strcmp(t->s, want))
		fprintf(stderr, "\n--- written:\n%s--- %s/%s:\n%s---\n", t->s, fx, name, want);
	free(want);
}

/* The error of reading a malformed file is code and exactly want, where
 * "%s" stands for the temporary directory's path. */
static void assert_error(const xb_error *e, int rc, int code, const char *dir, const char *want)
{
	char msg[2048];
	const char *at = strstr(want, "%s");
	if (at)
		snprintf(msg, sizeof msg, "%.*s%s%s", (int)(at - want), want, dir, at + 2);
	else
		snprintf(msg, sizeof msg, "%s", want);
	CU_ASSERT_EQUAL(rc, code);
	CU_ASSERT_STRING_EQUAL(e->msg, msg);
	if (strcmp(e->msg, msg))
		fprintf(stderr, "\n got: %s\nwant: %s\n", e->msg, msg);
}

/* ---- xtrabackup_checkpoints */

static void test_checkpoints_format(void)
{
	xb_checkpoints c = {.backup_type = "full-backuped", .to_lsn = 44976, .last_lsn = 426812};
	xb_text t = {0};
	xb_checkpoints_format(&c, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "backup_type = full-backuped\nfrom_lsn = 0\nto_lsn = 44976\nlast_lsn = 426812\n"
				    "recover_binlog_info = 0\n");
	assert_same(&t, fx_ours, XB_CHECKPOINTS_FILE);
	/* into a sink, as --backup writes it */
	msink *m = msink_new();
	CU_ASSERT_EQUAL(xb_metafile_put(&m->base, XB_CHECKPOINTS_FILE, &t, NULL), 0);
	mrec *r = mfind(m, XB_CHECKPOINTS_FILE);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT(r->closed && !r->aborted);
	CU_ASSERT(r->len == t.n && !memcmp(r->data, t.s, t.n));
	m_free(&m->base);
	xb_text_free(&t);
}

static void test_checkpoints_read(void)
{
	const char *const fx[] = {fx_ours, fx_mb};
	for (int i = 0; i < 2; i++) {
		char dir[64];
		mktmp(dir);
		for (int prepared = 0; prepared < 2; prepared++) {
			copy_fixture(fx[i], prepared ? "prepared_checkpoints" : XB_CHECKPOINTS_FILE, dir,
				     XB_CHECKPOINTS_FILE);
			xb_checkpoints c;
			xb_error e;
			CU_ASSERT_EQUAL_FATAL(xb_checkpoints_read(dir, &c, &e), 0);
			CU_ASSERT_STRING_EQUAL(c.backup_type, prepared ? "log-applied" : "full-backuped");
			CU_ASSERT_EQUAL(c.from_lsn, 0);
			CU_ASSERT_EQUAL(c.to_lsn, 44976);
			CU_ASSERT(c.has_last && c.last_lsn == 426812);
			CU_ASSERT_EQUAL(c.recover_binlog_info, 0);
			xb_text t = {0};
			xb_checkpoints_format(&c, &t);
			assert_same(&t, fx[i], prepared ? "prepared_checkpoints" : XB_CHECKPOINTS_FILE);
			xb_text_free(&t);
		}
		rmtmp(dir);
	}
}

/* --prepare's rewrite: the same formatter, in place, no temporary left. */
static void test_checkpoints_rewrite(void)
{
	char dir[64];
	mktmp(dir);
	copy_fixture(fx_ours, XB_CHECKPOINTS_FILE, dir, XB_CHECKPOINTS_FILE);
	xb_checkpoints c;
	xb_error e;
	CU_ASSERT_EQUAL_FATAL(xb_checkpoints_read(dir, &c, &e), 0);
	snprintf(c.backup_type, sizeof c.backup_type, "log-applied");
	CU_ASSERT_EQUAL(xb_checkpoints_rewrite(dir, &c, &e), 0);
	char *now = slurp(dir, XB_CHECKPOINTS_FILE), *want = slurp(fx_ours, "prepared_checkpoints");
	CU_ASSERT_FATAL(now && want);
	CU_ASSERT_STRING_EQUAL(now, want);
	free(now);
	free(want);
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s/%s.xbtmp", dir, XB_CHECKPOINTS_FILE);
	CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0);
	xb_checkpoints back;
	CU_ASSERT_EQUAL(xb_checkpoints_read(dir, &back, &e), 0);
	CU_ASSERT_STRING_EQUAL(back.backup_type, "log-applied");
	CU_ASSERT(back.from_lsn == c.from_lsn && back.to_lsn == c.to_lsn && back.has_last && back.last_lsn == c.last_lsn &&
		  back.recover_binlog_info == c.recover_binlog_info);
	rmtmp(dir);
	/* a directory that is gone: the temporary is named */
	xb_err_clear(&e);
	CU_ASSERT_EQUAL(xb_checkpoints_rewrite(dir, &c, &e), XB_E_IO_WRITE);
	char msg[256];
	snprintf(msg, sizeof msg, "cannot write %s/xtrabackup_checkpoints.xbtmp: No such file or directory", dir);
	CU_ASSERT_STRING_EQUAL(e.msg, msg);
}

static void test_checkpoints_malformed(void)
{
	char dir[64];
	mktmp(dir);
	xb_checkpoints c;
	xb_error e;
	int rc = xb_checkpoints_read(dir, &c, &e);
	CU_ASSERT_EQUAL(rc, XB_E_TARGET);
	char want[512];
	snprintf(want, sizeof want, "%s is not a backup: cannot open %s/xtrabackup_checkpoints: No such file or directory",
		 dir, dir);
	CU_ASSERT_STRING_EQUAL(e.msg, want);
	CU_ASSERT_STRING_EQUAL(e.hint, "give the directory a backup was taken into with --target-dir");

	put_file(dir, XB_CHECKPOINTS_FILE, "backup_type = full-backuped\nfrom_lsn = 0\nto_lsn = 12x\n");
	rc = xb_checkpoints_read(dir, &c, &e);
	assert_error(&e, rc, XB_E_TARGET, dir,
		     "%s/xtrabackup_checkpoints: line 3: bad value of to_lsn, got \"to_lsn = 12x\"");
	put_file(dir, XB_CHECKPOINTS_FILE, "backup_type = full-backuped\r\n\r\nfrom_lsn 0\r\nto_lsn = 1\r\n");
	rc = xb_checkpoints_read(dir, &c, &e);
	assert_error(&e, rc, XB_E_TARGET, dir,
		     "%s/xtrabackup_checkpoints: line 3: expected \"key = value\", got \"from_lsn 0\"");
	put_file(dir, XB_CHECKPOINTS_FILE, "backup_type = \nfrom_lsn = 0\nto_lsn = 1\n");
	rc = xb_checkpoints_read(dir, &c, &e);
	assert_error(&e, rc, XB_E_TARGET, dir, "%s/xtrabackup_checkpoints: line 1: bad value of backup_type, got \"backup_type = \"");
	put_file(dir, XB_CHECKPOINTS_FILE, "backup_type = full-backuped\nto_lsn = 1\n");
	rc = xb_checkpoints_read(dir, &c, &e);
	assert_error(&e, rc, XB_E_TARGET, dir,
		     "%s/xtrabackup_checkpoints is incomplete (backup_type, from_lsn, to_lsn expected)");
	/* what the reader tolerates: blanks, CRLF, unknown keys, any order; no last_lsn */
	put_file(dir, XB_CHECKPOINTS_FILE, "to_lsn=7\r\n  backup_type =  log-applied \nflushed_lsn = 9\nfrom_lsn = 0");
	CU_ASSERT_EQUAL(xb_checkpoints_read(dir, &c, &e), 0);
	CU_ASSERT_STRING_EQUAL(c.backup_type, "log-applied");
	CU_ASSERT(c.to_lsn == 7 && !c.has_last);
	/* a backup still compressed */
	put_file(dir, "ib_logfile0.zst", "");
	rc = xb_checkpoints_read(dir, &c, &e);
	CU_ASSERT_EQUAL(rc, XB_E_MISSING_FILE);
	rmtmp(dir);
}

/* ---- xtrabackup_binlog_info, xtrabackup_binlog_pos_innodb */

static void test_binlog_info(void)
{
	xb_binlog_info b = {.file = "mysql-bin.000001", .pos = 2051, .gtid = "0-1-3,3-3-3,7-2-4"};
	xb_text t = {0};
	xb_binlog_info_format(&b, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "mysql-bin.000001\t2051\t0-1-3,3-3-3,7-2-4\n");
	assert_same(&t, fx_ours, XB_BINLOG_INFO_FILE);
	xb_text_free(&t);
	b.gtid[0] = '\0';
	xb_binlog_info_format(&b, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "mysql-bin.000001\t2051\n");
	xb_text_free(&t);

	const char *const fx[] = {fx_ours, fx_mb};
	for (int i = 0; i < 2; i++) {
		xb_binlog_info r;
		xb_error e;
		CU_ASSERT_EQUAL_FATAL(xb_binlog_info_read(fx[i], &r, &e), 0);
		CU_ASSERT_STRING_EQUAL(r.file, "mysql-bin.000001");
		CU_ASSERT_EQUAL(r.pos, 2051);
		CU_ASSERT_STRING_EQUAL(r.gtid, "0-1-3,3-3-3,7-2-4");
		xb_binlog_info_format(&r, &t);
		assert_same(&t, fx[i], XB_BINLOG_INFO_FILE);
		xb_text_free(&t);
	}

	/* --prepare's xtrabackup_binlog_pos_innodb: no GTID */
	char dir[64];
	mktmp(dir);
	xb_binlog_info pos = {.file = "./mysql-bin.000001", .pos = 2051, .gtid = "0-1-3"};
	xb_error e;
	CU_ASSERT_EQUAL(xb_binlog_pos_innodb_write(dir, &pos, &e), 0);
	char *got = slurp(dir, XB_BINLOG_POS_INNODB_FILE), *want = slurp(fx_ours, XB_BINLOG_POS_INNODB_FILE);
	CU_ASSERT_FATAL(got && want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	free(want);

	xb_binlog_info r;
	int rc = xb_binlog_info_read(dir, &r, &e);
	CU_ASSERT_EQUAL(rc, XB_E_MISSING_FILE);
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"mysql-bin.000001 2051\n", "%s/xtrabackup_binlog_info: line 1: expected \"FILE<tab>POSITION[<tab>GTID]\", "
					     "got \"mysql-bin.000001 2051\""},
		{"mysql-bin.000001\t-1\t0-1-2\n", "%s/xtrabackup_binlog_info: line 1: expected "
						  "\"FILE<tab>POSITION[<tab>GTID]\", got \"mysql-bin.000001?-1?0-1-2\""},
		{"\t4\n", "%s/xtrabackup_binlog_info: line 1: expected \"FILE<tab>POSITION[<tab>GTID]\", got \"?4\""},
		{"f\t4\n\nf\t5\n", "%s/xtrabackup_binlog_info: line 3: expected one line, got \"f?5\""},
		{"", "%s/xtrabackup_binlog_info is empty"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		put_file(dir, XB_BINLOG_INFO_FILE, bad[i].text);
		rc = xb_binlog_info_read(dir, &r, &e);
		assert_error(&e, rc, XB_E_IO_READ, dir, bad[i].msg);
	}
	/* mariabackup writes an empty GTID field when there is none */
	put_file(dir, XB_BINLOG_INFO_FILE, "f\t4\t\n\n");
	CU_ASSERT_EQUAL(xb_binlog_info_read(dir, &r, &e), 0);
	CU_ASSERT(!strcmp(r.file, "f") && r.pos == 4 && !r.gtid[0]);
	rmtmp(dir);
}

/* ---- xtrabackup_slave_info */

/* Which form each connection takes, and the log line, as mariabackup 10.11
 * writes them (suite/mariabackup slave_info_norpl and rpl_slave_info). */
static void test_slave_info_settle(void)
{
	xb_slave_info si = {0};
	xb_slave_channel def = {.use_gtid = true}, m4 = {.name = "master4", .file = "master-bin.000001", .pos = 329},
			 m5 = {.name = "master5", .use_gtid = true};
	CU_ASSERT_EQUAL(xb_slave_info_add(&si, &def, NULL), 0);
	CU_ASSERT_EQUAL(xb_slave_info_add(&si, &m4, NULL), 0);
	CU_ASSERT_EQUAL(xb_slave_info_add(&si, &m5, NULL), 0);

	/* GTID replication but no GTID applied yet: file and position, no SET line */
	xb_slave_info_settle(&si, "");
	xb_text t = {0};
	xb_slave_info_format(&si, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "CHANGE MASTER TO MASTER_LOG_FILE='', MASTER_LOG_POS=0;\n"
				    "CHANGE MASTER 'master4' TO MASTER_LOG_FILE='master-bin.000001', MASTER_LOG_POS=329;\n"
				    "CHANGE MASTER 'master5' TO MASTER_LOG_FILE='', MASTER_LOG_POS=0;\n");
	xb_text_free(&t);
	xb_slave_info_describe(&si, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "MySQL slave binlog position: master '' filename '' position '0'; "
				    "master 'master4' filename 'master-bin.000001' position '329'; "
				    "master 'master5' filename '' position '0'");
	xb_text_free(&t);

	/* with a position: the SET line first, GTID connections by GTID */
	si.ch[0].use_gtid = si.ch[2].use_gtid = true;
	xb_slave_info_settle(&si, "1-1-1,2-2-2");
	xb_slave_info_format(&si, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "SET GLOBAL gtid_slave_pos = '1-1-1,2-2-2';\n"
				    "CHANGE MASTER TO master_use_gtid = slave_pos;\n"
				    "CHANGE MASTER 'master4' TO MASTER_LOG_FILE='master-bin.000001', MASTER_LOG_POS=329;\n"
				    "CHANGE MASTER 'master5' TO master_use_gtid = slave_pos;\n");
	xb_text_free(&t);
	xb_slave_info_describe(&si, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "MySQL slave binlog position: gtid_slave_pos '1-1-1,2-2-2'; "
				    "master '' master_use_gtid = slave_pos; "
				    "master 'master4' filename 'master-bin.000001' position '329'; "
				    "master 'master5' master_use_gtid = slave_pos");
	xb_text_free(&t);
	xb_slave_info_free(&si);
}

static void test_slave_info(void)
{
	xb_slave_info si = {.has_gtid_slave_pos = true, .gtid_slave_pos = "0-1-3,7-2-4"};
	xb_slave_channel gtid = {.use_gtid = true}, other = {.name = "other", .file = "mysql-bin.000001", .pos = 1040};
	CU_ASSERT_EQUAL(xb_slave_info_add(&si, &gtid, NULL), 0);
	CU_ASSERT_EQUAL(xb_slave_info_add(&si, &other, NULL), 0);
	xb_text t = {0};
	xb_slave_info_format(&si, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "SET GLOBAL gtid_slave_pos = '0-1-3,7-2-4';\n"
				    "CHANGE MASTER TO master_use_gtid = slave_pos;\n"
				    "CHANGE MASTER 'other' TO MASTER_LOG_FILE='mysql-bin.000001', MASTER_LOG_POS=1040;\n");
	assert_same(&t, fx_ours, XB_SLAVE_INFO_FILE);
	xb_text_free(&t);
	xb_slave_info_free(&si);

	const char *const fx[] = {fx_ours, fx_mb};
	for (int i = 0; i < 2; i++) {
		xb_error e;
		CU_ASSERT_EQUAL_FATAL(xb_slave_info_read(fx[i], &si, &e), 0);
		CU_ASSERT(si.has_gtid_slave_pos && !strcmp(si.gtid_slave_pos, "0-1-3,7-2-4"));
		CU_ASSERT_EQUAL_FATAL(si.n, 2);
		CU_ASSERT(si.ch[0].use_gtid && !si.ch[0].name[0]);
		CU_ASSERT(!si.ch[1].use_gtid && !strcmp(si.ch[1].name, "other"));
		CU_ASSERT(!strcmp(si.ch[1].file, "mysql-bin.000001") && si.ch[1].pos == 1040);
		xb_slave_info_format(&si, &t);
		assert_same(&t, fx[i], XB_SLAVE_INFO_FILE);
		xb_text_free(&t);
		xb_slave_info_free(&si);
	}

	char dir[64];
	mktmp(dir);
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"CHANGE MASTER TO master_use_gtid = slave_pos;\nSET GLOBAL gtid_slave_pos = '0-1-2';\n",
		 "%s/xtrabackup_slave_info: line 2: expected SET GLOBAL gtid_slave_pos = '...'; as the first line, got "
		 "\"SET GLOBAL gtid_slave_pos = '0-1-2';\""},
		{"CHANGE MASTER TO MASTER_LOG_FILE='f', MASTER_LOG_POS=12x;\n",
		 "%s/xtrabackup_slave_info: line 1: expected CHANGE MASTER ['NAME' ]TO master_use_gtid = slave_pos; or ... "
		 "TO MASTER_LOG_FILE='FILE', MASTER_LOG_POS=N;, got \"CHANGE MASTER TO MASTER_LOG_FILE='f', MASTER_LOG_POS=12x;\""},
		{"\nCHANGE MASTER '' TO master_use_gtid = slave_pos;\n",
		 "%s/xtrabackup_slave_info: line 2: expected CHANGE MASTER ['NAME' ]TO master_use_gtid = slave_pos; or ... "
		 "TO MASTER_LOG_FILE='FILE', MASTER_LOG_POS=N;, got \"CHANGE MASTER '' TO master_use_gtid = slave_pos;\""},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		xb_error e;
		put_file(dir, XB_SLAVE_INFO_FILE, bad[i].text);
		int rc = xb_slave_info_read(dir, &si, &e);
		assert_error(&e, rc, XB_E_IO_READ, dir, bad[i].msg);
		xb_slave_info_free(&si);
	}
	rmtmp(dir);
}

/* ---- xtrabackup_galera_info */

static void test_galera_info(void)
{
	xb_galera_info g = {.uuid = "6f1d2b38-6b8c-11ee-9d3e-2f6b86c0b3a1", .seqno = "1234"};
	xb_text t = {0};
	xb_galera_info_format(&g, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "6f1d2b38-6b8c-11ee-9d3e-2f6b86c0b3a1:1234\n");
	char dir[64];
	mktmp(dir);
	put_file(dir, XB_GALERA_INFO_FILE, t.s);
	xb_text_free(&t);
	xb_galera_info r;
	xb_error e;
	CU_ASSERT_EQUAL(xb_galera_info_read(dir, &r, &e), 0);
	CU_ASSERT(!memcmp(&r, &g, sizeof g));
	put_file(dir, XB_GALERA_INFO_FILE, "6f1d2b38-6b8c-11ee-9d3e-2f6b86c0b3a1:-1");
	CU_ASSERT_EQUAL(xb_galera_info_read(dir, &r, &e), 0);
	CU_ASSERT_STRING_EQUAL(r.seqno, "-1");
	put_file(dir, XB_GALERA_INFO_FILE, "6f1d2b38-6b8c-11ee-9d3e-2f6b86c0b3a1 1234\n");
	int rc = xb_galera_info_read(dir, &r, &e);
	assert_error(&e, rc, XB_E_IO_READ, dir,
		     "%s/xtrabackup_galera_info: line 1: expected \"UUID:SEQNO\", got "
		     "\"6f1d2b38-6b8c-11ee-9d3e-2f6b86c0b3a1 1234\"");
	put_file(dir, XB_GALERA_INFO_FILE, "u:1:2\n");
	rc = xb_galera_info_read(dir, &r, &e);
	assert_error(&e, rc, XB_E_IO_READ, dir, "%s/xtrabackup_galera_info: line 1: expected \"UUID:SEQNO\", got \"u:1:2\"");
	rmtmp(dir);
}

/* ---- xtrabackup_info */

static void test_xbinfo(void)
{
	xb_xbinfo x;
	xb_error e;
	CU_ASSERT_EQUAL_FATAL(xb_xbinfo_read(fx_ours, &x, &e), 0);
	CU_ASSERT_STRING_EQUAL(x.uuid, "5fd90d61-6435-424c-b2e2-76e63966e007");
	CU_ASSERT_STRING_EQUAL(x.name, "");
	CU_ASSERT_STRING_EQUAL(x.tool_name, "xtrabackup");
	CU_ASSERT(x.tool_command && strstr(x.tool_command, "--backup") && strstr(x.tool_command, "--slave-info"));
	CU_ASSERT_STRING_EQUAL(x.server_version, "10.11.19-MariaDB-0+deb12u1-log");
	CU_ASSERT(x.end_time - x.start_time == 7);
	CU_ASSERT(x.has_binlog && !strcmp(x.binlog.file, "mysql-bin.000001") && x.binlog.pos == 2051);
	CU_ASSERT_STRING_EQUAL(x.binlog.gtid, "0-1-3,3-3-3,7-2-4");
	CU_ASSERT(x.from_lsn == 0 && x.to_lsn == 44976);
	CU_ASSERT(!x.partial && !x.incremental && !x.compressed && !x.encrypted);
	CU_ASSERT_STRING_EQUAL(x.format, "file");
	xb_text t = {0};
	xb_xbinfo_format(&x, &t);
	assert_same(&t, fx_ours, XB_XBINFO_FILE);
	xb_text_free(&t);
	xb_xbinfo_free(&x);

	/* mariabackup's: no "encrypted" line */
	CU_ASSERT_EQUAL_FATAL(xb_xbinfo_read(fx_mb, &x, &e), 0);
	CU_ASSERT_STRING_EQUAL(x.tool_name, "mariabackup");
	CU_ASSERT_STRING_EQUAL(x.tool_version, "10.11.19-MariaDB");
	CU_ASSERT(x.has_binlog && x.binlog.pos == 2051 && x.to_lsn == 44976);
	xb_xbinfo_free(&x);

	/* a known struct, in UTC */
	char *tz = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
	setenv("TZ", "UTC", 1);
	tzset();
	xb_xbinfo k = {.uuid = "u", .tool_name = "xtrabackup", .tool_command = "--backup --stream=xbstream",
		       .tool_version = "0.1.0", .ibbackup_version = "0.1.0", .server_version = "10.11.19-MariaDB",
		       .start_time = 86400, .end_time = 86461, .lock_time = 1.6, .to_lsn = 5, .format = "xbstream",
		       .compressed = true, .encrypted = true};
	xb_xbinfo_format(&k, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "uuid = u\nname = \ntool_name = xtrabackup\ntool_command = --backup --stream=xbstream\n"
				    "tool_version = 0.1.0\nibbackup_version = 0.1.0\nserver_version = 10.11.19-MariaDB\n"
				    "start_time = 1970-01-02 00:00:00\nend_time = 1970-01-02 00:01:01\nlock_time = 2\n"
				    "binlog_pos = \ninnodb_from_lsn = 0\ninnodb_to_lsn = 5\npartial = N\nincremental = N\n"
				    "format = xbstream\ncompressed = compressed\nencrypted = Y\n");
	char dir[64];
	mktmp(dir);
	put_file(dir, XB_XBINFO_FILE, t.s);
	xb_text_free(&t);
	CU_ASSERT_EQUAL_FATAL(xb_xbinfo_read(dir, &x, &e), 0);
	CU_ASSERT(x.start_time == 86400 && x.end_time == 86461 && x.lock_time == 2.0 && !x.has_binlog);
	CU_ASSERT(x.compressed && x.encrypted && !strcmp(x.tool_command, k.tool_command));
	xb_xbinfo_free(&x);
	if (tz)
		setenv("TZ", tz, 1);
	else
		unsetenv("TZ");
	free(tz);
	tzset();

	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"uuid = u\nstart_time = yesterday\n",
		 "%s/xtrabackup_info: line 2: bad value of start_time, got \"start_time = yesterday\""},
		{"uuid = u\n\n\nbinlog_pos = filename 'f', position 'x'\n",
		 "%s/xtrabackup_info: line 4: bad value of binlog_pos, got \"binlog_pos = filename 'f', position 'x'\""},
		{"encrypted = maybe\n", "%s/xtrabackup_info: line 1: bad value of encrypted, got \"encrypted = maybe\""},
		{"Tool Name: xtrabackup\n", "%s/xtrabackup_info: line 1: expected \"key = value\", got \"Tool Name: xtrabackup\""},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		put_file(dir, XB_XBINFO_FILE, bad[i].text);
		int rc = xb_xbinfo_read(dir, &x, &e);
		assert_error(&e, rc, XB_E_IO_READ, dir, bad[i].msg);
		xb_xbinfo_free(&x);
	}
	/* mariabackup without a GTID: the binlog position alone */
	put_file(dir, XB_XBINFO_FILE, "binlog_pos = filename 'b.000002', position '77'\n");
	CU_ASSERT_EQUAL(xb_xbinfo_read(dir, &x, &e), 0);
	CU_ASSERT(x.has_binlog && !strcmp(x.binlog.file, "b.000002") && x.binlog.pos == 77 && !x.binlog.gtid[0]);
	xb_xbinfo_free(&x);
	rmtmp(dir);
}

/* ---- backup-my.cnf */

static void test_backup_cnf(void)
{
	xb_backup_cnf c = {.checksum_algorithm = "full_crc32",
			   .data_file_path = "ibdata1:12M;ibdata2:12M:autoextend",
			   .log_file_size = 67108864,
			   .page_size = 16384,
			   .undo_directory = "./",
			   .undo_tablespaces = 2,
			   .compression_level = 6};
	xb_text t = {0};
	xb_backup_cnf_format(&c, &t);
	CU_ASSERT_STRING_EQUAL(t.s, "# This options file was generated by innobackupex.\n\n# The server\n[mysqld]\n"
				    "innodb_checksum_algorithm=full_crc32\n"
				    "innodb_data_file_path=ibdata1:12M;ibdata2:12M:autoextend\n"
				    "innodb_log_file_size=67108864\ninnodb_page_size=16384\ninnodb_undo_directory=./\n"
				    "innodb_undo_tablespaces=2\ninnodb_compression_level=6\n");
	assert_same(&t, fx_ours, XB_BACKUP_CNF_FILE);

	xb_backup_cnf r;
	xb_error e;
	CU_ASSERT_EQUAL_FATAL(xb_backup_cnf_read(fx_ours, &r, &e), 0);
	CU_ASSERT_EQUAL(r.have, 127);
	r.have = 0;
	CU_ASSERT(!memcmp(&r, &c, sizeof c));
	xb_text_free(&t);
	xb_backup_cnf_format(&r, &t);
	assert_same(&t, fx_ours, XB_BACKUP_CNF_FILE);
	xb_text_free(&t);

	/* mariabackup's (two empty lines at the end) */
	CU_ASSERT_EQUAL_FATAL(xb_backup_cnf_read(fx_mb, &r, &e), 0);
	CU_ASSERT_STRING_EQUAL(r.checksum_algorithm, "crc32");
	CU_ASSERT_STRING_EQUAL(r.data_file_path, "ibdata1:12M;ibdata2:12M:autoextend");
	CU_ASSERT(r.have == 127 && r.page_size == 16384 && r.undo_tablespaces == 2 && r.compression_level == 6);

	char dir[64];
	mktmp(dir);
	int rc = xb_backup_cnf_read(dir, &r, &e);
	char want[512];
	snprintf(want, sizeof want, "cannot open %s/backup-my.cnf: No such file or directory", dir);
	CU_ASSERT_EQUAL(rc, XB_E_MISSING_FILE);
	CU_ASSERT_STRING_EQUAL(e.msg, want);
	/* settings absent, a size with a suffix, the last value wins, other groups ignored */
	put_file(dir, XB_BACKUP_CNF_FILE, "[client]\ninnodb_page_size=1\n[mysqld]\ninnodb_page_size=4k\n"
					  "innodb_log_file_size=48M\ninnodb_log_file_size=96M\n");
	CU_ASSERT_EQUAL(xb_backup_cnf_read(dir, &r, &e), 0);
	CU_ASSERT(r.have == (XB_CNF_PAGE_SIZE | XB_CNF_LOG_FILE_SIZE) && r.page_size == 4096 &&
		  r.log_file_size == 96u << 20);
	put_file(dir, XB_BACKUP_CNF_FILE, "# c\n[mysqld]\ninnodb_data_file_path=ibdata1:12M\n\ninnodb_page_size=16x\n");
	rc = xb_backup_cnf_read(dir, &r, &e);
	assert_error(&e, rc, XB_E_CONFIG, dir, "%s/backup-my.cnf: line 5: bad value of innodb_page_size, got \"16x\"");
	put_file(dir, XB_BACKUP_CNF_FILE, "[mysqld]\ninnodb_undo_tablespaces=two\n");
	rc = xb_backup_cnf_read(dir, &r, &e);
	assert_error(&e, rc, XB_E_CONFIG, dir, "%s/backup-my.cnf: line 2: bad value of innodb_undo_tablespaces, got \"two\"");
	put_file(dir, XB_BACKUP_CNF_FILE, "innodb_page_size=16384\n");
	rc = xb_backup_cnf_read(dir, &r, &e);
	assert_error(&e, rc, XB_E_CONFIG, dir, "option without preceding group in config file %s/backup-my.cnf at line 1");
	rmtmp(dir);
}

/* ---- the DDL markers */

static void test_markers(void)
{
	/* the names: the inventory's, with these endings, there and back */
	char out[32], path[64];
	xb_error e;
	CU_ASSERT_EQUAL(inv_marker_name(out, sizeof out, NULL, "db/t1.ibd", XB_MARKER_DEL, &e), 0);
	CU_ASSERT_STRING_EQUAL(out, "db/t1.del");
	CU_ASSERT_EQUAL(inv_table_file_of(path, sizeof path, "/b", out, &e), 0);
	CU_ASSERT_STRING_EQUAL(path, "/b/db/t1.ibd");
	CU_ASSERT_EQUAL(inv_marker_name(out, sizeof out, NULL, "db/t1.ibd", XB_MARKER_NEW, &e), 0);
	CU_ASSERT_STRING_EQUAL(out, "db/t1.new");
	CU_ASSERT_EQUAL(inv_table_file_of(path, sizeof path, "/b", out, &e), 0);
	CU_ASSERT_STRING_EQUAL(path, "/b/db/t1.ibd");

	/* the .del marker --backup writes: an empty file */
	msink *m = msink_new();
	CU_ASSERT_EQUAL(xb_marker_put_del(&m->base, "db/t1.del", &e), 0);
	mrec *r = mfind(m, "db/t1.del");
	CU_ASSERT(r && r->closed && r->len == 0);
	m_free(&m->base);

	/* .ren: the new name */
	char dir[64], dst[PATH_MAX];
	mktmp(dir);
	char sub[PATH_MAX];
	snprintf(sub, sizeof sub, "%s/db", dir);
	CU_ASSERT_FATAL(mkdir(sub, 0700) == 0);
	put_file(dir, "db/a.ren", "db/b\n");
	CU_ASSERT_EQUAL(xb_marker_ren_read(dir, "db/a.ren", dst, sizeof dst, &e), 0);
	char want[PATH_MAX];
	snprintf(want, sizeof want, "%s/db/b.ibd", dir);
	CU_ASSERT_STRING_EQUAL(dst, want);
	put_file(dir, "db/a.ren", "db/../../etc/x\n");
	int rc = xb_marker_ren_read(dir, "db/a.ren", dst, sizeof dst, &e);
	assert_error(&e, rc, XB_E_TARGET, dir,
		     "%s/db/a.ren: line 1: rename marker holds an unusable name, got \"db/../../etc/x\"");
	put_file(dir, "db/a.ren", "");
	rc = xb_marker_ren_read(dir, "db/a.ren", dst, sizeof dst, &e);
	assert_error(&e, rc, XB_E_IO_READ, dir, "cannot read the rename marker %s/db/a.ren");
	rc = xb_marker_ren_read(dir, "db/none.ren", dst, sizeof dst, &e);
	assert_error(&e, rc, XB_E_IO_READ, dir, "cannot read the rename marker %s/db/none.ren");
	rmtmp(dir);
}

/* ---- the MRU dump, and what stays in the backup at a restore */

static void test_mru_and_restore(void)
{
	char dir[64], path[PATH_MAX];
	mktmp(dir);
	xb_error e;
	CU_ASSERT_EQUAL_FATAL(xb_mru_path(path, sizeof path, fx_ours, &e), 0);
	bp_dump d = {0};
	CU_ASSERT_EQUAL_FATAL(bp_read_file(path, &d, NULL, &e), 0);
	CU_ASSERT_EQUAL(d.n, 50);
	CU_ASSERT(d.v[0].space_id == 9 && d.v[0].page_no == 3);
	CU_ASSERT_EQUAL(xb_mru_write(dir, &d, &e), 0);
	char *got = slurp(dir, XB_MRU_FILE), *want = slurp(fx_ours, XB_MRU_FILE);
	CU_ASSERT_FATAL(got && want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	free(want);
	CU_ASSERT(xb_path_has_suffix(path, "/info/ours/xtrabackup_buffer_pool_mru"));
	bp_dump_free(&d);
	rmtmp(dir);

	static const char *const stay[] = {"backup-my.cnf", "xtrabackup_binary", "xtrabackup_binlog_info",
					   "xtrabackup_checkpoints", "xtrabackup_buffer_pool_mru"};
	static const char *const go[] = {"xtrabackup_info", "xtrabackup_slave_info", "xtrabackup_galera_info",
					 "xtrabackup_binlog_pos_innodb", "ib_buffer_pool", "ibdata1"};
	for (size_t i = 0; i < sizeof stay / sizeof *stay; i++)
		CU_ASSERT_TRUE(xb_metafile_stays_behind(stay[i]));
	for (size_t i = 0; i < sizeof go / sizeof *go; i++)
		CU_ASSERT_FALSE(xb_metafile_stays_behind(go[i]));
}

/* ---- the shared plumbing */

static void test_plumbing(void)
{
	xb_lines l = {"f", "a\r\nb\n\nc", NULL, 0};
	l.end = l.p + strlen(l.p);
	xb_span s;
	CU_ASSERT(xb_lines_next(&l, &s) && s.n == 1 && s.s[0] == 'a' && l.no == 1);
	CU_ASSERT(xb_lines_next(&l, &s) && s.n == 1 && s.s[0] == 'b');
	CU_ASSERT(xb_lines_next(&l, &s) && s.n == 0 && l.no == 3);
	CU_ASSERT(xb_lines_next(&l, &s) && s.n == 1 && s.s[0] == 'c' && l.no == 4);
	CU_ASSERT_FALSE(xb_lines_next(&l, &s));
	xb_error e;
	char longline[100];
	memset(longline, 'x', sizeof longline);
	CU_ASSERT_EQUAL(xb_lines_error(&l, XB_E_IO_READ, (xb_span){longline, sizeof longline}, &e, "too %s", "long"),
			XB_E_IO_READ);
	CU_ASSERT_STRING_EQUAL(e.msg, "f: line 4: too long, got "
				      "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\"");
	uint64_t u;
	int64_t i;
	CU_ASSERT(xb_span_u64((xb_span){"18446744073709551615", 20}, &u) && u == UINT64_MAX);
	CU_ASSERT_FALSE(xb_span_u64((xb_span){"18446744073709551616", 20}, &u));
	CU_ASSERT_FALSE(xb_span_u64((xb_span){"", 0}, &u));
	CU_ASSERT(xb_span_i64((xb_span){"-9223372036854775808", 20}, &i) && i == INT64_MIN);
	CU_ASSERT_FALSE(xb_span_i64((xb_span){"-", 1}, &i));
	/* an incomplete text is never written */
	msink *m = msink_new();
	xb_text t = {.nomem = true};
	CU_ASSERT_EQUAL(xb_metafile_put(&m->base, "x", &t, &e), XB_E_INTERNAL);
	CU_ASSERT_EQUAL(m->n, 0);
	m_free(&m->base);
}

/* ---- mysql.mariadb_backup_history: the row of a real xtrabackup_info */

static void test_history(void)
{
	xb_xbinfo x;
	xb_error e;
	xb_history_row r;
	CU_ASSERT_EQUAL_FATAL(xb_xbinfo_read(fx_ours, &x, &e), 0);
	snprintf(x.name, sizeof x.name, "nightly");
	CU_ASSERT_EQUAL_FATAL(xb_history_row_make(&x, &r, &e), 0);
	static const char *const same[][2] = {
		{"uuid", "5fd90d61-6435-424c-b2e2-76e63966e007"},
		{"name", "nightly"},
		{"tool_name", "xtrabackup"},
		{"server_version", "10.11.19-MariaDB-0+deb12u1-log"},
		{"binlog_pos", "filename 'mysql-bin.000001', position '2051', GTID of the last change '0-1-3,3-3-3,7-2-4'"},
		{"innodb_from_lsn", "0"},
		{"innodb_to_lsn", "44976"},
		{"partial", "N"},
		{"incremental", "N"},
		{"format", "file"},
		{"compressed", "N"},
	};
	static const char *const order[XB_HISTORY_COLUMNS] = {
		"uuid", "name", "tool_name", "tool_command", "tool_version", "ibbackup_version", "server_version",
		"start_time", "end_time", "lock_time", "binlog_pos", "innodb_from_lsn", "innodb_to_lsn", "partial",
		"incremental", "format", "compressed"};
	for (size_t i = 0; i < sizeof same / sizeof *same; i++)
		for (int k = 0; k < XB_HISTORY_COLUMNS; k++)
			if (!strcmp(order[k], same[i][0]) && (!r.v[k] || strcmp(r.v[k], same[i][1])))
				CU_FAIL(same[i][0]);
	CU_ASSERT(r.v[3] && !strcmp(r.v[3], x.tool_command));
	/* the times as seconds for FROM_UNIXTIME, 7 s apart as in the file */
	CU_ASSERT(r.v[7] && r.v[8] && atoll(r.v[8]) - atoll(r.v[7]) == 7 && atoll(r.v[7]) == (long long)x.start_time);
	CU_ASSERT(!r.truncated);
	xb_history_row_free(&r);

	/* a compressed stream without binary log: mbstream, Y, NULL */
	xb_xbinfo_free(&x);
	xb_xbinfo k = {.uuid = "u", .format = "xbstream", .compressed = true, .lock_time = 1.6};
	CU_ASSERT_EQUAL_FATAL(xb_history_row_make(&k, &r, &e), 0);
	CU_ASSERT(r.v[10] == NULL);
	CU_ASSERT_STRING_EQUAL(r.v[15], "mbstream");
	CU_ASSERT_STRING_EQUAL(r.v[16], "Y");
	CU_ASSERT_STRING_EQUAL(r.v[9], "2");
	CU_ASSERT_STRING_EQUAL(r.v[1], "");
	xb_history_row_free(&r);
	/* a binlog position longer than the column is cut to its 128 characters */
	k.has_binlog = true;
	snprintf(k.binlog.file, sizeof k.binlog.file, "mysql-bin.000007");
	memset(k.binlog.gtid, '1', 200);
	CU_ASSERT_EQUAL_FATAL(xb_history_row_make(&k, &r, &e), 0);
	CU_ASSERT(r.truncated && strlen(r.v[10]) == 128 && !strncmp(r.v[10], "filename 'mysql-bin.000007'", 27));
	xb_history_row_free(&r);

	/* the statements: the column list in the table's order, times through FROM_UNIXTIME */
	xb_text t = {0};
	xb_history_insert_sql(&t, false);
	CU_ASSERT_STRING_EQUAL(t.s, "INSERT INTO mysql.mariadb_backup_history (uuid, name, tool_name, tool_command, "
				    "tool_version, ibbackup_version, server_version, start_time, end_time, lock_time, "
				    "binlog_pos, innodb_from_lsn, innodb_to_lsn, partial, incremental, format, compressed) "
				    "VALUES (?, ?, ?, ?, ?, ?, ?, FROM_UNIXTIME(?), FROM_UNIXTIME(?), ?, ?, ?, ?, ?, ?, ?, ?)");
	xb_text_free(&t);
	xb_history_insert_sql(&t, true);
	CU_ASSERT(!strncmp(t.s, "EXPLAIN INSERT INTO ", 20));
	xb_text_free(&t);
	CU_ASSERT(strstr(xb_history_create_sql, "format ENUM('file','tar','mbstream')") != NULL);
	CU_ASSERT(xb_history_format_current("enum('file','tar','mbstream')"));
	CU_ASSERT(!xb_history_format_current("enum('file','tar','xbstream')"));
	CU_ASSERT(!xb_history_format_current(NULL));
}

int main(void)
{
	find_fixture_dir();
	(void)random_bytes; /* of memsink.h, not needed here */
	snprintf(fx_ours, sizeof fx_ours, "%s/../info/ours", fixture_dir);
	snprintf(fx_mb, sizeof fx_mb, "%s/../info/mb", fixture_dir);
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("info", NULL, NULL);
	CU_add_test(s, "xtrabackup_checkpoints: exact bytes, into a sink", test_checkpoints_format);
	CU_add_test(s, "xtrabackup_checkpoints: real files read and written again", test_checkpoints_read);
	CU_add_test(s, "xtrabackup_checkpoints: the prepare's rewrite", test_checkpoints_rewrite);
	CU_add_test(s, "xtrabackup_checkpoints: malformed, with line numbers", test_checkpoints_malformed);
	CU_add_test(s, "xtrabackup_binlog_info, xtrabackup_binlog_pos_innodb", test_binlog_info);
	CU_add_test(s, "xtrabackup_slave_info", test_slave_info);
	CU_add_test(s, "xtrabackup_slave_info: form and log line", test_slave_info_settle);
	CU_add_test(s, "xtrabackup_galera_info", test_galera_info);
	CU_add_test(s, "xtrabackup_info", test_xbinfo);
	CU_add_test(s, "mysql.mariadb_backup_history row", test_history);
	CU_add_test(s, "backup-my.cnf", test_backup_cnf);
	CU_add_test(s, "DDL markers", test_markers);
	CU_add_test(s, "MRU dump; what a restore leaves behind", test_mru_and_restore);
	CU_add_test(s, "lines, numbers, incomplete text", test_plumbing);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
