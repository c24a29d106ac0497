/*
 * xbstream_test.c - MariaDB's xbstream format with real bytes: the reader on
 * a stream written by mbstream -c (test/fixtures/xbstream/small.xbs, see its
 * make-fixture.sh), our writer giving byte for byte what mbstream -c gives
 * for the same files (the fixture; a 23 MiB file too when mbstream is
 * installed) and chunking writes as mariabackup does, writer -> reader and
 * writer -> mbstream -x round trips with threads and an aborted file,
 * extraction of the fixture (never overwriting), the writer's error when
 * the reader of the stream goes away, and mbstream's command line. Hostile
 * streams: xbstream_hostile_test.c.
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/command.h"
#include "sink/sink_xbstream.h"
#include "xbstream_util.h"

/* ---------------------------------------------------------------- the fixture and the writer */

static void test_reader_fixture(void)
{
	membuf m = load_file(fixture);
	CU_ASSERT_FATAL(m.len == 73225);
	xb_error err;
	xb_err_clear(&err);
	xbs_reader *r = xbs_reader_new(mb_read, &m, "fixture", &err);
	xbs_chunk c;
	memset(&c, 0, sizeof c);
	static const struct {
		int type;
		const char *path;
		size_t len;
	} want[] = {{'P', "a.txt", 16},     {'E', "a.txt", 0}, {'P', "db/t1.ibd", 70000}, {'E', "db/t1.ibd", 0},
		    {'E', "empty", 0},      {'P', "db/t2.frm", 3000}, {'E', "db/t2.frm", 0}, {XBS_END, "", 0}};
	uint8_t *t1 = gen(70000, t1_byte), *t2 = gen(3000, t2_byte);
	uint64_t at = 0;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		CU_ASSERT_EQUAL_FATAL(xbs_next(r, &c, &err), 0);
		CU_ASSERT_EQUAL(c.type, want[i].type);
		CU_ASSERT_STRING_EQUAL(c.path, want[i].path);
		CU_ASSERT_EQUAL(c.at, at);
		if (c.type == 'P') {
			CU_ASSERT_EQUAL(c.len, want[i].len);
			CU_ASSERT_EQUAL(c.offset, 0);
			at += 14 + strlen(c.path) + 20 + c.len;
		} else {
			at += 14 + strlen(c.path);
		}
		if (c.type == 'P' && !strcmp(c.path, "a.txt"))
			CU_ASSERT(!memcmp(c.data, "hello, xbstream\n", 16));
		if (c.type == 'P' && !strcmp(c.path, "db/t1.ibd"))
			CU_ASSERT(!memcmp(c.data, t1, 70000));
		if (c.type == 'P' && !strcmp(c.path, "db/t2.frm"))
			CU_ASSERT(!memcmp(c.data, t2, 3000));
	}
	CU_ASSERT_EQUAL(xbs_reader_offset(r), m.len);
	xbs_chunk_release(&c);
	xbs_reader_free(r);
	free(t1);
	free(t2);
	free(m.p);
}

/* Stream files through our writer into a temporary file; return its bytes. */
static membuf write_stream(const char *const *names, uint8_t *const *data, const size_t *len, int n, size_t piece)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s/w%d.xbs", base, ++ndir);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	xb_error err;
	xb_err_clear(&err);
	xb_sink *s = xb_sink_xbstream_open(fd, &err);
	for (int i = 0; i < n; i++) {
		xb_sink_file *f = xb_sink_open(s, names[i], &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		for (size_t o = 0; o < len[i]; o += piece)
			CU_ASSERT_EQUAL(xb_sink_write(f, data[i] + o, len[i] - o < piece ? len[i] - o : piece, &err), 0);
		CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
	}
	CU_ASSERT_EQUAL(xb_sink_finish(s, &err), 0);
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += len[i];
	CU_ASSERT_EQUAL(s->bytes_written, total);
	xb_sink_free(s);
	close(fd);
	membuf m = load_file(tmp);
	unlink(tmp);
	return m;
}

static void test_writer_equals_mbstream(void)
{
	membuf fx = load_file(fixture);
	uint8_t *t1 = gen(70000, t1_byte), *t2 = gen(3000, t2_byte);
	const char *names[] = {"a.txt", "db/t1.ibd", "empty", "./db/t2.frm"};
	uint8_t *data[] = {(uint8_t *)"hello, xbstream\n", t1, (uint8_t *)"", t2};
	size_t len[] = {16, 70000, 0, 3000};
	/* mbstream -c reads 10 MiB at a time: each of these files in one write */
	membuf ours = write_stream(names, data, len, 4, 10u << 20);
	CU_ASSERT_EQUAL(ours.len, fx.len);
	CU_ASSERT(ours.len == fx.len && memcmp(ours.p, fx.p, fx.len) == 0);
	free(ours.p);
	/* small writes are gathered: the same bytes */
	ours = write_stream(names, data, len, 4, 1000);
	CU_ASSERT(ours.len == fx.len && memcmp(ours.p, fx.p, fx.len) == 0);
	free(ours.p);
	free(fx.p);
	free(t1);
	free(t2);
}

/* 23 MiB + 5 bytes: three chunks (10, 10, 3 MiB + 5) from mbstream -c and from us. */
static void test_writer_large_vs_mbstream(void)
{
	const size_t n = (23u << 20) + 5;
	uint8_t *big = gen(n, t1_byte);
	const char *names[] = {"big.ibd"};
	uint8_t *data[] = {big};
	size_t len[] = {n};
	membuf ours = write_stream(names, data, len, 1, 10u << 20);
	xb_error err;
	membuf m = ours;
	xbs_reader *r = xbs_reader_new(mb_read, &m, "ours", &err);
	xbs_chunk c;
	memset(&c, 0, sizeof c);
	size_t sizes[4] = {0};
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(xbs_next(r, &c, &err), 0);
		sizes[i] = c.len;
	}
	CU_ASSERT_EQUAL(sizes[0], 10u << 20);
	CU_ASSERT_EQUAL(sizes[1], 10u << 20);
	CU_ASSERT_EQUAL(sizes[2], (3u << 20) + 5);
	CU_ASSERT_EQUAL(c.type, XBS_EOF);
	xbs_reader_free(r);
	/* mariabackup's rule for writes that do not fit the room left: 1 MiB
	 * writes give chunks of 9 MiB and 1 MiB */
	size_t len2[] = {12u << 20};
	membuf m2 = write_stream(names, data, len2, 1, 1u << 20);
	r = xbs_reader_new(mb_read, &m2, "ours", &err);
	size_t want[] = {9u << 20, 1u << 20, 2u << 20};
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(xbs_next(r, &c, &err), 0);
		CU_ASSERT_EQUAL(c.len, want[i]);
	}
	xbs_reader_free(r);
	xbs_chunk_release(&c);
	free(m2.p);
	if (access("/usr/bin/mbstream", X_OK) == 0) {
		char dir[PATH_MAX], cmd[PATH_MAX * 2];
		new_dir(dir, sizeof dir);
		snprintf(cmd, sizeof cmd, "%s/big.ibd", dir);
		FILE *f = fopen(cmd, "wb");
		CU_ASSERT_EQUAL(fwrite(big, 1, n, f), n);
		fclose(f);
		snprintf(cmd, sizeof cmd, "cd '%s' && mbstream -c big.ibd > big.xbs", dir);
		CU_ASSERT_EQUAL(system(cmd), 0);
		snprintf(cmd, sizeof cmd, "%s/big.xbs", dir);
		membuf theirs = load_file(cmd);
		CU_ASSERT_EQUAL(theirs.len, ours.len);
		CU_ASSERT(theirs.len == ours.len && memcmp(theirs.p, ours.p, ours.len) == 0);
		free(theirs.p);
	}
	free(ours.p);
	free(big);
}

/* ---------------------------------------------------------------- round trips */

typedef struct wjob {
	xb_sink *s;
	int id;
} wjob;

static uint8_t rt_byte(int id, size_t i) { return (uint8_t)(i * (unsigned)(id * 2 + 1) + (unsigned)id); }
/* file 3 is aborted: larger than a chunk, so part of it is in the stream */
static size_t rt_len(int id) { return id == 3 ? (12u << 20) + 77 : (size_t)id * 1234567u % (15u << 20) + (size_t)id; }

static void *writer_thread(void *arg)
{
	wjob *j = arg;
	xb_error err;
	char name[64];
	snprintf(name, sizeof name, "db%d/file%d.ibd", j->id % 3, j->id);
	xb_sink_file *f = xb_sink_open(j->s, name, &err);
	size_t n = rt_len(j->id);
	uint8_t *buf = malloc(300000);
	size_t done = 0;
	unsigned seed = (unsigned)j->id;
	while (done < n) {
		size_t piece = (size_t)rand_r(&seed) % 300000 + 1;
		if (piece > n - done)
			piece = n - done;
		for (size_t i = 0; i < piece; i++)
			buf[i] = rt_byte(j->id, done + i);
		xb_sink_write(f, buf, piece, &err);
		done += piece;
	}
	if (j->id == 3)
		xb_sink_abort(f); /* written, then given up: must not be extracted */
	else
		xb_sink_close(f, &err);
	free(buf);
	return NULL;
}

static void test_roundtrip_threads(void)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s/rt.xbs", base);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	xb_error err;
	xb_sink *s = xb_sink_xbstream_open(fd, &err);
	enum { N = 6 };
	pthread_t t[N];
	wjob j[N];
	for (int i = 0; i < N; i++) {
		j[i] = (wjob){s, i};
		pthread_create(&t[i], NULL, writer_thread, &j[i]);
	}
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	/* an aborted file that never reached the stream leaves no trace */
	xb_sink_file *f = xb_sink_open(s, "never.ibd", &err);
	CU_ASSERT_EQUAL(xb_sink_write(f, "abc", 3, &err), 0);
	xb_sink_abort(f);
	xb_sink_free(s);
	close(fd);
	membuf m = load_file(tmp);
	CU_ASSERT_PTR_NULL(memmem(m.p, m.len, "never.ibd", 9));
	for (int workers = 1; workers <= 4; workers += 3) {
		char dir[PATH_MAX];
		new_dir(dir, sizeof dir);
		xbx_stats st;
		CU_ASSERT_EQUAL(extract(&m, dir, workers, &err, &st), 0);
		CU_ASSERT_EQUAL(st.files, N - 1);
		CU_ASSERT_EQUAL(st.dropped, 1);
		for (int i = 0; i < N; i++) {
			char name[64];
			snprintf(name, sizeof name, "db%d/file%d.ibd", i % 3, i);
			size_t n = rt_len(i);
			uint8_t *want = malloc(n);
			for (size_t k = 0; k < n; k++)
				want[k] = rt_byte(i, k);
			if (i == 3) {
				CU_ASSERT_FALSE(exists(dir, name));
				CU_ASSERT_FALSE(exists(dir, "db0/file3.ibd.xbtmp"));
			} else {
				CU_ASSERT(same_file(dir, name, want, n));
			}
			free(want);
		}
		CU_ASSERT_EQUAL(count_entries(dir), 3 + N - 1); /* 3 directories, 5 files */
	}
	/* mbstream -x takes our stream too, and drops the aborted file */
	if (access("/usr/bin/mbstream", X_OK) == 0) {
		char dir[PATH_MAX], cmd[PATH_MAX * 3];
		new_dir(dir, sizeof dir);
		snprintf(cmd, sizeof cmd, "cd '%s' && mbstream -x < '%s'", dir, tmp);
		CU_ASSERT_EQUAL(system(cmd), 0);
		CU_ASSERT_FALSE(exists(dir, "db0/file3.ibd"));
		CU_ASSERT_TRUE(exists(dir, "db1/file4.ibd"));
		CU_ASSERT_EQUAL(count_entries(dir), 3 + N - 1);
	}
	free(m.p);
	unlink(tmp);
}

static void test_extract_fixture(void)
{
	membuf m = load_file(fixture);
	uint8_t *t1 = gen(70000, t1_byte), *t2 = gen(3000, t2_byte);
	for (int workers = 1; workers <= 3; workers += 2) {
		char dir[PATH_MAX];
		new_dir(dir, sizeof dir);
		xb_error err;
		xbx_stats st;
		CU_ASSERT_EQUAL(extract(&m, dir, workers, &err, &st), 0);
		CU_ASSERT_EQUAL(st.files, 4);
		CU_ASSERT_EQUAL(st.bytes, 73016);
		CU_ASSERT_EQUAL(st.stream, m.len);
		CU_ASSERT(same_file(dir, "a.txt", "hello, xbstream\n", 16));
		CU_ASSERT(same_file(dir, "db/t1.ibd", t1, 70000));
		CU_ASSERT(same_file(dir, "empty", "", 0));
		CU_ASSERT(same_file(dir, "db/t2.frm", t2, 3000));
		/* a second time into the same directory: nothing is overwritten */
		CU_ASSERT_EQUAL(extract(&m, dir, workers, &err, NULL), XB_E_TARGET);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "already exists"));
		CU_ASSERT(same_file(dir, "db/t1.ibd", t1, 70000));
	}
	free(t1);
	free(t2);
	free(m.p);
}

static void test_reader_went_away(void)
{
	int p[2];
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN); /* as command_signals_init() does */
	xb_error err;
	xb_err_clear(&err);
	xb_sink *s = xb_sink_xbstream_open(p[1], &err);
	xb_sink_file *f = xb_sink_open(s, "a", &err);
	CU_ASSERT_EQUAL(xb_sink_write(f, "abc", 3, &err), 0); /* buffered */
	CU_ASSERT_EQUAL(xb_sink_close(f, &err), XB_E_IO_WRITE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the stream reader went away (stdout closed)"));
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(xb_sink_finish(s, &err), XB_E_IO_WRITE);
	xb_sink_free(s);
	close(p[1]);
}

static int args_are(int argc, char **argv, const char *const *want)
{
	for (int i = 0; i < argc; i++)
		if (!want[i] || strcmp(argv[i], want[i]))
			return 0;
	return want[argc] == NULL && argv[argc] == NULL;
}

/* mbstream's options, grouped or not, become ours (-p is --parallel there). */
static void test_mbstream_argv(void)
{
	char *a1[] = {"xbstream", "-xvp4", "-C", "/tmp/x", "--verbose", "--decompress", NULL};
	int n = 6;
	char **r = xbstream_argv(&n, a1);
	const char *w1[] = {"xbstream", "--extract", "--parallel=4", "--directory=/tmp/x", "--decompress", NULL};
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT(args_are(n, r, w1));
	char *a2[] = {"xbstream", "-x", "-p", "2", "-C/d", "-v", "--", "-p", NULL};
	n = 8;
	r = xbstream_argv(&n, a2);
	const char *w2[] = {"xbstream", "--extract", "--parallel=2", "--directory=/d", "--", "-p", NULL};
	CU_ASSERT(args_are(n, r, w2));
	char *a3[] = {"xbstream", "-xc", "-p", NULL};
	n = 3;
	r = xbstream_argv(&n, a3);
	/* -c is mbstream's create (the parser then refuses two commands) */
	const char *w3[] = {"xbstream", "--extract", "--create", "--parallel", NULL};
	CU_ASSERT(args_are(n, r, w3));
}

int main(void)
{
	if (!mkdtemp(base))
		return 1;
	find_fixture();
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("xbstream", NULL, NULL);
	CU_add_test(s, "reader on mbstream -c bytes (fixture)", test_reader_fixture);
	CU_add_test(s, "writer gives mbstream -c's bytes", test_writer_equals_mbstream);
	CU_add_test(s, "writer chunking of large files, against mbstream -c", test_writer_large_vs_mbstream);
	CU_add_test(s, "round trip with threads and an aborted file", test_roundtrip_threads);
	CU_add_test(s, "extraction of the fixture, never overwriting", test_extract_fixture);
	CU_add_test(s, "EPIPE: the reader went away", test_reader_went_away);
	CU_add_test(s, "mbstream's command line", test_mbstream_argv);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	cleanup_base();
	return failed ? 1 : 0;
}
