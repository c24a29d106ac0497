/*
 * redo_follower_test.c - the redo follower against a real, throwaway
 * MariaDB 10.11 server (test/fixtures/innodb/server.sh, under /tmp, stopped
 * at the end): copy while rows are inserted (the 8 MiB log wraps several
 * times) and tables created/renamed/dropped, then check the copy: size ==
 * 12288 + last_lsn - checkpoint_lsn, a valid backup header, every mtr valid
 * up to exactly last_lsn, DDL reported. Also: a real overwrite (the follower
 * not polling while the server laps it), the durable-LSN gate (nothing past
 * the LSN the server reports flushed is copied; a log that does not parse
 * below it is an error, not a hang), an online log resize, and errors.
 * Skipped (exit 77) when no mariadbd is installed.
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "innodb/redo.h"
#include "innodb/redo_follower.h"
#include "platform/clock.h"
#include "sink/sink.h"

#include "fixture.h"

static char srv_dir[PATH_MAX]; /* the throwaway server's directory */
static char log_path[PATH_MAX + 32];
static int sink_seq;

/* Run server.sh CMD on our server with extra shell words; returns the exit status. */
static int server(const char *cmd, const char *args)
{
	char line[20000];
	snprintf(line, sizeof line, "'%s/server.sh' %s '%s' %s", fixture_dir, cmd, srv_dir, args ? args : "");
	int rc = system(line);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int sql(const char *stmt)
{
	char args[6000];
	snprintf(args, sizeof args, "test -e \"%s\"", stmt);
	return server("sql", args);
}

static uint64_t server_number(const char *what)
{
	char line[PATH_MAX * 3];
	snprintf(line, sizeof line, "'%s/server.sh' %s '%s'", fixture_dir, what, srv_dir);
	FILE *p = popen(line, "r");
	unsigned long long v = 0;
	if (p) {
		if (fscanf(p, "%llu", &v) != 1)
			v = 0;
		pclose(p);
	}
	return v;
}

static uint64_t server_lsn(void)
{
	return server_number("lsn");
}

/* The durable_lsn callback of a backup: the server's Innodb_lsn_flushed. */
static int durable_from_server(void *ctx, uint64_t *lsn, xb_error *err)
{
	(void)ctx;
	*lsn = server_number("flushed");
	return *lsn ? 0 : xb_err_set(err, XB_E_QUERY, "no Innodb_lsn_flushed");
}

/* A durable_lsn callback the test controls. */
static _Atomic uint64_t gate_lsn;
static _Atomic int gate_calls;
static int durable_gate(void *ctx, uint64_t *lsn, xb_error *err)
{
	(void)ctx;
	(void)err;
	atomic_fetch_add(&gate_calls, 1);
	*lsn = atomic_load(&gate_lsn);
	return 0;
}

/* A fresh directory sink under the server's directory. */
static xb_sink *new_sink(char *dir, size_t dirlen)
{
	snprintf(dir, dirlen, "%s/backup%d", srv_dir, ++sink_seq);
	xb_error err;
	xb_err_clear(&err);
	xb_sink *s = xb_sink_dir_open(dir, &err);
	if (!s)
		printf("\n    sink: %s", err.msg);
	return s;
}

/* DDL seen by the follower */
struct ddl_log {
	pthread_mutex_t mu;
	char lines[4000][160];
	int n;
};
static struct ddl_log ddl = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void on_file_op(void *ctx, int op, uint32_t space_id, const char *name, const char *new_name, uint64_t lsn)
{
	struct ddl_log *d = ctx;
	pthread_mutex_lock(&d->mu);
	if (d->n < 4000)
		snprintf(d->lines[d->n++], 160, "%d %u %s %s", op, space_id, name ? name : "-",
			 new_name ? new_name : "-");
	pthread_mutex_unlock(&d->mu);
}

static bool ddl_seen(const char *want)
{
	bool found = false;
	pthread_mutex_lock(&ddl.mu);
	for (int i = 0; i < ddl.n && !found; i++) {
		const char *sp = strchr(ddl.lines[i], ' ');
		char op[8];
		snprintf(op, sizeof op, "%.*s", (int)(sp - ddl.lines[i]), ddl.lines[i]);
		const char *rest = strchr(sp + 1, ' ');
		char cmp[200];
		snprintf(cmp, sizeof cmp, "%s%s", op, rest);
		found = !strcmp(cmp, want);
	}
	pthread_mutex_unlock(&ddl.mu);
	return found;
}

/* Check a finished copy: header, size, every mtr up to last_lsn. */
static void check_copy(const char *dir, uint64_t cp_lsn, uint64_t last_lsn)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/ib_logfile0", dir);
	FILE *f = fopen(path, "rb");
	CU_ASSERT_FATAL(f != NULL);
	struct stat st;
	CU_ASSERT_FATAL(fstat(fileno(f), &st) == 0);
	CU_ASSERT_EQUAL((uint64_t)st.st_size, 12288 + last_lsn - cp_lsn);
	uint8_t *buf = malloc((size_t)st.st_size);
	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_FATAL(fread(buf, 1, (size_t)st.st_size, f) == (size_t)st.st_size);
	fclose(f);
	redo_log_info li;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(redo_log_parse(buf, (size_t)st.st_size, (uint64_t)st.st_size, path, &li, &err), 0);
	CU_ASSERT_EQUAL(li.hdr.first_lsn, cp_lsn);
	CU_ASSERT_STRING_EQUAL(li.hdr.creator, REDO_BACKUP_CREATOR);
	CU_ASSERT_EQUAL(li.cp.checkpoint_lsn, cp_lsn);
	CU_ASSERT_EQUAL(li.cp.block, 1);
	size_t pos = 12288;
	uint64_t lsn = cp_lsn;
	unsigned n = 0;
	redo_mtr m;
	int rc;
	while ((rc = redo_parse_mtr(buf + pos, (size_t)st.st_size - pos, lsn, li.hdr.first_lsn, li.capacity, false, &m,
				    NULL, NULL)) == REDO_MTR_OK) {
		CU_ASSERT_EQUAL(buf[pos + m.records_len], 1);
		pos += m.len;
		lsn = m.end_lsn;
		n++;
	}
	CU_ASSERT_EQUAL(rc, REDO_MTR_NEED_MORE);
	CU_ASSERT_EQUAL(lsn, last_lsn);
	CU_ASSERT_EQUAL(pos, (size_t)st.st_size);
	printf("\n    copy: %u mtrs, LSN %llu..%llu, %lld bytes ... ", n, (unsigned long long)cp_lsn,
	       (unsigned long long)last_lsn, (long long)st.st_size);
	free(buf);
}

/* ---- tests */

static void test_follow_under_load(void)
{
	char dir[PATH_MAX + 64];
	xb_sink *sink = new_sink(dir, sizeof dir);
	CU_ASSERT_FATAL(sink != NULL);
	redo_follower_cfg cfg = {.log_path = log_path,
				 .sink = sink,
				 .on_file_op = on_file_op,
				 .ctx = &ddl,
				 .durable_lsn = durable_from_server};
	redo_follower *rf = NULL;
	xb_error err;
	xb_err_clear(&err);
	int rc = redo_follower_start(&cfg, &rf, &err);
	if (rc)
		printf("\n    start: %s", err.msg);
	CU_ASSERT_FATAL(rc == 0);
	uint64_t cp = redo_follower_checkpoint_lsn(rf);
	CU_ASSERT(cp >= 12288);
	CU_ASSERT(redo_follower_copied_lsn(rf) >= cp);

	/* ~30 MB of redo through an 8 MiB log, and some DDL in between. In
	 * statements of about 1 MB: a 5 MB statement could overwrite most of the
	 * log while the follower thread waits for a CPU on a busy 2-core machine. */
	CU_ASSERT(sql("CREATE TABLE t_load (id INT PRIMARY KEY, v VARCHAR(2000)) ENGINE=InnoDB") == 0);
	for (int i = 0; i < 30; i++) {
		char stmt[300];
		snprintf(stmt, sizeof stmt,
			 "INSERT INTO t_load SELECT seq + %d, REPEAT(CHAR(65 + seq %% 26), 1000) FROM seq_1_to_1000",
			 i * 1000);
		CU_ASSERT(sql(stmt) == 0);
		redo_follower_note_server_lsn(rf, server_lsn());
		int crc = redo_follower_check(rf, &err);
		CU_ASSERT(crc == 0);
		if (crc) {
			printf("\n    after statement %d: %s", i, err.msg);
			break;
		}
		double h = redo_follower_headroom(rf);
		CU_ASSERT(h >= 0.0 && h <= 1.0);
		if (i == 10)
			CU_ASSERT(sql("CREATE TABLE t_new (id INT PRIMARY KEY) ENGINE=InnoDB; "
				      "RENAME TABLE t_new TO t_new2; CREATE TABLE t_drop (id INT) ENGINE=InnoDB; "
				      "DROP TABLE t_drop") == 0);
	}
	CU_ASSERT(sql("FLUSH NO_WRITE_TO_BINLOG ENGINE LOGS") == 0);
	uint64_t lsn = server_lsn();
	CU_ASSERT(lsn - cp > 3 * 8 * 1024 * 1024); /* the log wrapped */
	rc = redo_follower_wait_for(rf, lsn, 60, NULL, &err);
	if (rc)
		printf("\n    wait: %s", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(redo_follower_copied_lsn(rf) >= lsn);
	uint64_t last = 0;
	rc = redo_follower_stop(rf, &last, &err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(last >= lsn);
	redo_follower_free(rf);
	CU_ASSERT(xb_sink_finish(sink, &err) == 0);
	xb_sink_free(sink);
	check_copy(dir, cp, last);

	CU_ASSERT(ddl_seen("1 ./test/t_load.ibd -"));
	CU_ASSERT(ddl_seen("1 ./test/t_new.ibd -"));
	CU_ASSERT(ddl_seen("3 ./test/t_new.ibd ./test/t_new2.ibd"));
	CU_ASSERT(ddl_seen("2 ./test/t_drop.ibd -"));
	CU_ASSERT(ddl_seen("4 ./test/t_load.ibd -"));
}

static void test_overwrite_detected(void)
{
	/* the follower does not poll by itself (1 h interval) while the server laps it */
	char dir[PATH_MAX + 64];
	xb_sink *sink = new_sink(dir, sizeof dir);
	CU_ASSERT_FATAL(sink != NULL);
	redo_follower_cfg cfg = {.log_path = log_path, .sink = sink, .poll_interval_ms = 3600 * 1000};
	redo_follower *rf = NULL;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_FATAL(redo_follower_start(&cfg, &rf, &err) == 0);
	usleep(200 * 1000); /* let the thread finish its first round and sleep */
	CU_ASSERT(sql("INSERT INTO t_load SELECT seq + 100000, REPEAT('z', 1500) FROM seq_1_to_15000") == 0);
	CU_ASSERT(sql("FLUSH NO_WRITE_TO_BINLOG ENGINE LOGS") == 0);
	uint64_t lsn = server_lsn();
	int rc = redo_follower_wait_for(rf, lsn, 60, NULL, &err);
	CU_ASSERT_EQUAL(rc, XB_E_REDO_OVERWRITTEN);
	CU_ASSERT(strstr(err.msg, "redo log was overwritten before it was copied: copied up to LSN") != NULL);
	CU_ASSERT(strstr(err.hint, "increase innodb_log_file_size (now 8388608 bytes)") != NULL);
	printf("\n    %s ... ", err.msg);
	CU_ASSERT_EQUAL(redo_follower_check(rf, NULL), XB_E_REDO_OVERWRITTEN);
	uint64_t last;
	CU_ASSERT_EQUAL(redo_follower_stop(rf, &last, &err), XB_E_REDO_OVERWRITTEN);
	redo_follower_free(rf);
	xb_sink_free(sink);
	char path[PATH_MAX + 80];
	snprintf(path, sizeof path, "%s/ib_logfile0", dir);
	CU_ASSERT(access(path, F_OK) != 0); /* no complete-looking copy */
}

static void test_noted_server_lsn(void)
{
	/* a noted server LSN a whole log ahead fails the follower too */
	char dir[PATH_MAX + 64];
	xb_sink *sink = new_sink(dir, sizeof dir);
	CU_ASSERT_FATAL(sink != NULL);
	redo_follower_cfg cfg = {.log_path = log_path, .sink = sink};
	redo_follower *rf = NULL;
	xb_error err;
	CU_ASSERT_FATAL(redo_follower_start(&cfg, &rf, &err) == 0);
	uint64_t c = redo_follower_copied_lsn(rf);
	CU_ASSERT(redo_follower_headroom(rf) > 0.5);
	redo_follower_note_server_lsn(rf, c + 8 * 1024 * 1024 - 12288 - 1000);
	CU_ASSERT(redo_follower_headroom(rf) < 0.01);
	redo_follower_note_server_lsn(rf, c + 8 * 1024 * 1024);
	CU_ASSERT_EQUAL(redo_follower_headroom(rf), 0.0);
	CU_ASSERT_EQUAL(redo_follower_wait_for(rf, c + 1000000000, 10, NULL, &err), XB_E_REDO_OVERWRITTEN);
	redo_follower_free(rf);
	xb_sink_free(sink);
}

/* A follower of the server's log whose durable LSN (durable_gate) is the
 * server's flushed LSN plus ahead: *f0 that flushed LSN, *sinkp its sink, dir
 * (dir_len bytes) the sink's directory. */
static redo_follower *start_gated(uint64_t ahead, unsigned poll_ms, char *dir, size_t dir_len, xb_sink **sinkp,
				  uint64_t *f0)
{
	xb_sink *sink = new_sink(dir, dir_len);
	CU_ASSERT_FATAL(sink != NULL);
	CU_ASSERT(sql("FLUSH NO_WRITE_TO_BINLOG ENGINE LOGS") == 0);
	*f0 = server_number("flushed");
	CU_ASSERT_FATAL(*f0 > 0);
	atomic_store(&gate_lsn, *f0 + ahead);
	redo_follower_cfg cfg = {.log_path = log_path, .sink = sink, .poll_interval_ms = poll_ms, .durable_lsn = durable_gate};
	redo_follower *rf = NULL;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_FATAL(redo_follower_start(&cfg, &rf, &err) == 0);
	*sinkp = sink;
	return rf;
}

static void test_durable_gate(void)
{
	/* nothing past the durable LSN the server reports is copied, even while
	 * the log holds far more; raising it lets the copy go on */
	char dir[PATH_MAX + 64];
	xb_sink *sink;
	uint64_t f0;
	redo_follower *rf = start_gated(0, 5, dir, sizeof dir, &sink, &f0);
	xb_error err;
	xb_err_clear(&err);
	uint64_t cp = redo_follower_checkpoint_lsn(rf);
	CU_ASSERT(sql("INSERT INTO t_load SELECT seq + 300000, REPEAT('g', 1000) FROM seq_1_to_2000") == 0);
	CU_ASSERT(sql("FLUSH NO_WRITE_TO_BINLOG ENGINE LOGS") == 0);
	uint64_t f1 = server_number("flushed");
	CU_ASSERT(f1 > f0 + 1000000);
	int calls = atomic_load(&gate_calls);
	usleep(300 * 1000); /* many rounds */
	CU_ASSERT(atomic_load(&gate_calls) > calls + 5);
	CU_ASSERT_EQUAL(redo_follower_copied_lsn(rf), f0); /* a flushed LSN is an mtr boundary */
	CU_ASSERT_EQUAL(redo_follower_check(rf, NULL), 0);
	atomic_store(&gate_lsn, f1);
	int rc = redo_follower_wait_for(rf, f1, 30, NULL, &err);
	if (rc)
		printf("\n    wait: %s", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	uint64_t last = 0;
	CU_ASSERT_EQUAL(redo_follower_stop(rf, &last, &err), 0);
	CU_ASSERT_EQUAL(last, f1);
	redo_follower_free(rf);
	CU_ASSERT(xb_sink_finish(sink, &err) == 0);
	xb_sink_free(sink);
	check_copy(dir, cp, last);
}

static void test_durable_unparsable(void)
{
	/* a server claiming its log durable past what parses: a clear error, not a hang */
	char dir[PATH_MAX + 64];
	xb_sink *sink;
	uint64_t f0;
	redo_follower *rf = start_gated(1000000, 20, dir, sizeof dir, &sink, &f0);
	xb_error err;
	xb_err_clear(&err);
	int rc = redo_follower_wait_for(rf, f0 + 1000000, 60, NULL, &err);
	CU_ASSERT_EQUAL(rc, XB_E_REDO_CORRUPT);
	char want[200];
	unsigned long long at = 0;
	const char *p = strstr(err.msg, "the log does not parse at LSN ");
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(sscanf(p, "the log does not parse at LSN %llu (", &at) == 1);
	CU_ASSERT(at >= f0 && at < f0 + 1000000); /* where the real log ends (an idle server still writes a little) */
	snprintf(want, sizeof want, "below LSN %llu which the server has made durable", (unsigned long long)(f0 + 1000000));
	CU_ASSERT(strstr(err.msg, want) != NULL);
	printf("\n    %s ... ", err.msg);
	uint64_t last;
	CU_ASSERT_EQUAL(redo_follower_stop(rf, &last, &err), XB_E_REDO_CORRUPT);
	redo_follower_free(rf);
	xb_sink_free(sink);
}

static int stop_calls;
static bool stop_on_third(xb_error *err)
{
	if (++stop_calls < 3)
		return false;
	xb_err_set(err, XB_E_INTERRUPTED, "stopped by the test");
	return true;
}

static void test_wait_stopped(void)
{
	/* a wait for an LSN the server never reaches ends when should_stop says so, each second */
	char dir[PATH_MAX + 64];
	xb_sink *sink;
	uint64_t f0;
	redo_follower *rf = start_gated(0, 20, dir, sizeof dir, &sink, &f0);
	xb_error err;
	xb_err_clear(&err);
	stop_calls = 0;
	double t0 = xb_clock_sec();
	int rc = redo_follower_wait_for(rf, f0 + 100000000, 60, stop_on_third, &err);
	double took = xb_clock_sec() - t0;
	CU_ASSERT_EQUAL(rc, XB_E_INTERRUPTED);
	CU_ASSERT(strstr(err.msg, "stopped by the test") != NULL);
	CU_ASSERT(stop_calls == 3);
	CU_ASSERT(took >= 1.5 && took < 5.0);
	uint64_t last;
	xb_err_clear(&err);
	redo_follower_stop(rf, &last, &err);
	redo_follower_free(rf);
	xb_sink_free(sink);
}

static void test_online_resize(void)
{
	char dir[PATH_MAX + 64];
	xb_sink *sink = new_sink(dir, sizeof dir);
	CU_ASSERT_FATAL(sink != NULL);
	redo_follower_cfg cfg = {.log_path = log_path,
				 .sink = sink,
				 .on_file_op = on_file_op,
				 .ctx = &ddl,
				 .durable_lsn = durable_from_server};
	redo_follower *rf = NULL;
	xb_error err;
	CU_ASSERT_FATAL(redo_follower_start(&cfg, &rf, &err) == 0);
	uint64_t cp = redo_follower_checkpoint_lsn(rf);
	struct stat before, after;
	CU_ASSERT(stat(log_path, &before) == 0);
	CU_ASSERT(sql("SET GLOBAL innodb_log_file_size = 16777216") == 0);
	for (int i = 0; i < 4; i++) {
		char stmt[300];
		snprintf(stmt, sizeof stmt,
			 "INSERT INTO t_load SELECT seq + %d, REPEAT('r', 1000) FROM seq_1_to_3000", 200000 + i * 3000);
		CU_ASSERT(sql(stmt) == 0);
	}
	CU_ASSERT(sql("FLUSH NO_WRITE_TO_BINLOG ENGINE LOGS") == 0);
	CU_ASSERT(stat(log_path, &after) == 0);
	CU_ASSERT(after.st_ino != before.st_ino); /* the server renamed the new log over ib_logfile0 */
	CU_ASSERT_EQUAL(after.st_size, 16777216);
	uint64_t lsn = server_lsn();
	int rc = redo_follower_wait_for(rf, lsn, 60, NULL, &err);
	if (rc)
		printf("\n    wait: %s", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	uint64_t last = 0;
	CU_ASSERT_EQUAL(redo_follower_stop(rf, &last, &err), 0);
	redo_follower_free(rf);
	CU_ASSERT(xb_sink_finish(sink, &err) == 0);
	xb_sink_free(sink);
	check_copy(dir, cp, last);
}

static void test_errors(void)
{
	char dir[PATH_MAX + 64];
	xb_sink *sink = new_sink(dir, sizeof dir);
	CU_ASSERT_FATAL(sink != NULL);
	xb_error err;
	xb_err_clear(&err);
	char missing[PATH_MAX + 64];
	snprintf(missing, sizeof missing, "%s/nope/ib_logfile0", srv_dir);
	redo_follower_cfg cfg = {.log_path = missing, .sink = sink};
	redo_follower *rf = NULL;
	CU_ASSERT_EQUAL(redo_follower_start(&cfg, &rf, &err), XB_E_MISSING_FILE);
	CU_ASSERT(rf == NULL);
	CU_ASSERT(strstr(err.msg, missing) != NULL);

	/* a 10.5-10.7 log */
	char old[PATH_MAX + 64];
	snprintf(old, sizeof old, "%s/old_logfile0", srv_dir);
	FILE *f = fopen(old, "wb");
	CU_ASSERT_FATAL(f != NULL);
	uint8_t blk[65536];
	memset(blk, 0, sizeof blk);
	memcpy(blk, "PHYS", 4);
	CU_ASSERT(fwrite(blk, 1, sizeof blk, f) == sizeof blk);
	fclose(f);
	cfg.log_path = old;
	CU_ASSERT_EQUAL(redo_follower_start(&cfg, &rf, &err), XB_E_REDO_FORMAT);
	CU_ASSERT(strstr(err.msg, "cannot process redo log before MariaDB 10.8") != NULL);
	CU_ASSERT(strstr(err.msg, old) != NULL);
	redo_follower_free(NULL);
	xb_sink_free(sink);
}

static int suite_init(void)
{
	snprintf(srv_dir, sizeof srv_dir, "/tmp/xb-redo-follower.XXXXXX");
	if (!mkdtemp(srv_dir))
		return 1;
	snprintf(log_path, sizeof log_path, "%s/data/ib_logfile0", srv_dir);
	return server("start", "") != 0;
}

static int suite_clean(void)
{
	server("destroy", "");
	return 0;
}

int main(void)
{
	find_fixture_dir();
	if (access("/usr/sbin/mariadbd", X_OK) != 0 && !getenv("MARIADBD")) {
		printf("redo_follower_test: no mariadbd installed, skipped\n");
		return 77;
	}
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("redo_follower (real server)", suite_init, suite_clean);
	CU_add_test(s, "copy under load with wrap-around and DDL", test_follow_under_load);
	CU_add_test(s, "real overwrite detected", test_overwrite_detected);
	CU_add_test(s, "noted server LSN and headroom", test_noted_server_lsn);
	CU_add_test(s, "nothing past the durable LSN is copied", test_durable_gate);
	CU_add_test(s, "log that does not parse below the durable LSN", test_durable_unparsable);
	CU_add_test(s, "a wait ended by should_stop", test_wait_stopped);
	CU_add_test(s, "online log resize followed", test_online_resize);
	CU_add_test(s, "errors", test_errors);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
