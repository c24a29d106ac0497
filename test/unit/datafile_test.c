/*
 * datafile_test.c - copying InnoDB datafiles (engine-hooks/innodb/datafile.c).
 *
 * Fixtures: the .ibd files in test/fixtures/datafile are whole tablespaces captured from
 * a real MariaDB 10.11 server after FLUSH TABLES ... FOR EXPORT (see the
 * README there): t1 (full_crc32), t_crc32 (legacy crc32), t_zip
 * (ROW_FORMAT=COMPRESSED, 8 KiB pages) and t_pc (page_compressed).
 * Each test copies a file laid out as a datadir ("./db/t1.ibd", the working
 * directory being the datadir) into a real directory sink and checks the
 * bytes, the counters, the log lines and the error messages. A torn page is
 * simulated with the before_reread hook: the file holds a torn page when
 * first read and the hook writes the good page back before the re-read.
 * Delta mode (incremental backups) is checked against a delta built here
 * from the fixture, byte by byte, from the format's description (doc/
 * backup-directory.md §17): not with the writer under test.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bytes.h"
#include "innodb/datafile.h"

static char fixtures[PATH_MAX]; /* absolute path of test/fixtures/datafile */
static char work[1024];         /* temporary directory; the datadir is work/data */
static int backup_no;           /* counter for fresh backup directories */

#define BUF 1280 /* path buffers: work is at most 1023 bytes */

static const char *const tables[] = {"t1", "t_crc32", "t_zip", "t_pc"};

/* ---- helpers ---- */

static uint8_t *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void store(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static uint8_t *fixture(const char *table, size_t *len)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s.ibd", fixtures, table);
	uint8_t *b = load(p, len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	return b;
}

static uint32_t psize_of(const uint8_t *page0)
{
	innodb_space_info si;
	xb_error err = {0};
	CU_ASSERT_EQUAL_FATAL(innodb_page0_parse(page0, 65536, &si, &err), 0);
	return si.physical_size;
}

/* A fresh directory sink under work/. */
static xb_sink *new_sink(char *dir, size_t dirlen)
{
	snprintf(dir, dirlen, "%s/backup%d", work, ++backup_no);
	xb_error err = {0};
	xb_sink *s = xb_sink_dir_open(dir, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}

static void check_copy(const char *backup, const char *rel, const uint8_t *want, size_t len)
{
	char p[2 * BUF];
	snprintf(p, sizeof p, "%s/%s", backup, rel);
	size_t got_len = 0;
	uint8_t *got = load(p, &got_len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(got_len, len);
	CU_ASSERT(got_len == len && memcmp(got, want, len) == 0);
	free(got);
}

static bool exists(const char *backup, const char *rel)
{
	char p[2 * BUF];
	snprintf(p, sizeof p, "%s/%s", backup, rel);
	return access(p, F_OK) == 0;
}

static size_t count_zero_pages(const uint8_t *b, size_t len, uint32_t ps)
{
	size_t n = 0;
	for (size_t off = 0; off + ps <= len; off += ps) {
		size_t i = 0;
		while (i < ps && b[off + i] == 0)
			i++;
		n += i == ps;
	}
	return n;
}

/* stderr capture, to check the log lines */
static int saved_stderr = -1;
static char capture_path[BUF];

static void capture_begin(void)
{
	fflush(stderr);
	snprintf(capture_path, sizeof capture_path, "%s/stderr.txt", work);
	int fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

static char *capture_end(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	size_t len = 0;
	uint8_t *b = load(capture_path, &len);
	char *s = malloc(len + 1);
	memcpy(s, b, len);
	s[len] = '\0';
	free(b);
	return s;
}

/* ---- tests ---- */

/* Every fixture copies byte-identically, in small and default chunks, and
 * through a read/write gate (synchronous batch reads, no read-ahead). */
static void test_copy_identical(void)
{
	size_t chunks[] = {65536, 0, 196608};
	xb_iogate *gate = xb_iogate_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(gate);
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		for (size_t k = 0; k < 3; k++) {
			size_t len;
			uint8_t *want = fixture(tables[t], &len);
			char src[64], rel[64], backup[BUF];
			snprintf(src, sizeof src, "./db/%s.ibd", tables[t]);
			snprintf(rel, sizeof rel, "db/%s.ibd", tables[t]);
			store(src, want, len);
			xb_sink *s = new_sink(backup, sizeof backup);
			datafile_copy_opts o;
			innodb_datafile_opts_init(&o);
			o.worker = 3;
			o.chunk_bytes = chunks[k];
			o.gate = k == 2 ? gate : NULL;
			datafile_copy_stats st;
			volatile uint64_t progress = 0;
			xb_error err = {0};
			capture_begin();
			int rc = innodb_datafile_copy(src, rel, s, &o, &st, &progress, &err);
			char *log = capture_end();
			CU_ASSERT_EQUAL(rc, 0);
			if (rc)
				printf("\n  %s: %s\n", tables[t], err.msg);
			CU_ASSERT_FALSE(st.deferred);
			uint32_t ps = psize_of(want);
			CU_ASSERT_EQUAL(st.bytes, len);
			CU_ASSERT_EQUAL(progress, len);
			CU_ASSERT_EQUAL(st.pages, len / ps);
			CU_ASSERT_EQUAL(st.reread_pages, 0);
			CU_ASSERT_EQUAL(st.zero_pages, count_zero_pages(want, len, ps));
			CU_ASSERT_EQUAL(s->bytes_written, len);
			check_copy(backup, rel, want, len);
			/* mariabackup's log lines */
			char line[3 * BUF];
			snprintf(line, sizeof line, " Copying %s to %s/%s\n", src, backup, rel);
			CU_ASSERT_PTR_NOT_NULL(strstr(log, line));
			if (!strstr(log, line))
				printf("\n  want %s  log %s", line, log);
			CU_ASSERT_PTR_NOT_NULL(strstr(log, "[03] "));
			CU_ASSERT_PTR_NOT_NULL(strstr(log, "         ...done\n"));
			if (t == 0 && k == 1)
				printf("\n  read mode: %s, %llu pages, %llu zero\n", st.read_mode,
				       (unsigned long long)st.pages, (unsigned long long)st.zero_pages);
			if (k == 2) /* a gate means no read-ahead */
				CU_ASSERT_PTR_NOT_NULL(strstr(st.read_mode, "pread"));
			free(log);
			xb_sink_free(s);
			free(want);
		}
	}
	CU_ASSERT(xb_iogate_flips(gate) >= 2); /* each file was read, then written */
	xb_iogate_free(gate);
}

static int reread_calls;
static void count_rereads(void *arg, uint32_t page_no, int attempt)
{
	(void)arg;
	(void)page_no;
	(void)attempt;
	reread_calls++;
}

/* A flipped byte: XB_E_CORRUPT_PAGE naming file and page, sink file aborted. */
static void test_corrupt_page(void)
{
	for (size_t t = 0; t < 3; t++) {
		size_t len;
		uint8_t *data = fixture(tables[t], &len);
		uint32_t ps = psize_of(data);
		uint32_t bad = 3;
		data[(size_t)bad * ps + 200] ^= 0x01;
		char src[64], rel[64], backup[BUF];
		snprintf(src, sizeof src, "./db/%s.ibd", tables[t]);
		snprintf(rel, sizeof rel, "db/%s.ibd", tables[t]);
		store(src, data, len);
		xb_sink *s = new_sink(backup, sizeof backup);
		datafile_copy_opts o;
		innodb_datafile_opts_init(&o);
		o.chunk_bytes = 65536;
		o.retries = 3;
		o.retry_ms = 1;
		o.before_reread = count_rereads;
		reread_calls = 0;
		datafile_copy_stats st;
		xb_error err = {0};
		capture_begin();
		int rc = innodb_datafile_copy(src, rel, s, &o, &st, NULL, &err);
		free(capture_end());
		CU_ASSERT_EQUAL(rc, XB_E_CORRUPT_PAGE);
		CU_ASSERT_EQUAL(err.code, XB_E_CORRUPT_PAGE);
		char want[128];
		snprintf(want, sizeof want, "page 3 of ./db/%s.ibd is corrupt: ", tables[t]);
		CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
		CU_ASSERT(strlen(err.msg) > strlen(want));
		snprintf(want, sizeof want, "innochecksum ./db/%s.ibd", tables[t]);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.hint, want));
		CU_ASSERT_EQUAL(reread_calls, 3);
		if (t == 0)
			printf("\n  error: %s\n  hint: %s\n", err.msg, err.hint);
		/* nothing published, no temporary left behind */
		CU_ASSERT_FALSE(exists(backup, rel));
		char tmp[80];
		snprintf(tmp, sizeof tmp, "%s.xbtmp", rel);
		CU_ASSERT_FALSE(exists(backup, tmp));
		xb_sink_free(s);
		free(data);
	}
}

/* The torn-page simulation: the file holds a torn page; the hook writes the
 * good page (and optionally more data) back before the first re-read. */
typedef struct torn_fix {
	const char *path;     /* file to repair */
	const uint8_t *good;  /* the good content */
	size_t good_len;      /* bytes of good to write back */
	uint32_t page_no;     /* the torn page */
	uint32_t ps;          /* page size */
	int calls;            /* hook calls */
} torn_fix;

static void fix_torn(void *arg, uint32_t page_no, int attempt)
{
	torn_fix *f = arg;
	f->calls++;
	CU_ASSERT_EQUAL(page_no, f->page_no);
	CU_ASSERT_EQUAL(attempt, 1);
	int fd = open(f->path, O_WRONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(pwrite(fd, f->good, f->good_len, 0), (ssize_t)f->good_len);
	close(fd);
}

static void tear(uint8_t *data, uint32_t page, uint32_t ps)
{
	/* the second half of the page from a newer write: new LSN in the trailer */
	uint8_t *p = data + (size_t)page * ps;
	for (uint32_t i = ps / 2; i < ps; i++)
		p[i] ^= 0x5a;
}

static void test_torn_page(void)
{
	uint32_t pages[] = {5, 0, 5}; /* 0: page 0 itself, seen by the page-0 probe too; the last through a gate */
	xb_iogate *gate = xb_iogate_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(gate);
	for (size_t t = 0; t < 3; t++) {
		for (size_t k = 0; k < 3; k++) {
			size_t len;
			uint8_t *good = fixture(tables[t], &len);
			uint32_t ps = psize_of(good);
			uint8_t *torn = malloc(len);
			memcpy(torn, good, len);
			tear(torn, pages[k], ps);
			char src[64], rel[64], backup[BUF];
			snprintf(src, sizeof src, "./db/%s.ibd", tables[t]);
			snprintf(rel, sizeof rel, "db/%s.ibd", tables[t]);
			store(src, torn, len);
			xb_sink *s = new_sink(backup, sizeof backup);
			torn_fix fx = {src, good, len, pages[k], ps, 0};
			datafile_copy_opts o;
			innodb_datafile_opts_init(&o);
			o.chunk_bytes = 65536;
			o.gate = k == 2 ? gate : NULL;
			o.retry_ms = 1;
			o.before_reread = fix_torn;
			o.before_reread_arg = &fx;
			datafile_copy_stats st;
			xb_error err = {0};
			capture_begin();
			int rc = innodb_datafile_copy(src, rel, s, &o, &st, NULL, &err);
			free(capture_end());
			CU_ASSERT_EQUAL(rc, 0);
			if (rc)
				printf("\n  %s: %s\n", tables[t], err.msg);
			CU_ASSERT_EQUAL(st.reread_pages, 1);
			CU_ASSERT(fx.calls >= 1);
			CU_ASSERT_EQUAL(st.pages, len / ps);
			check_copy(backup, rel, good, len);
			xb_sink_free(s);
			free(good);
			free(torn);
		}
	}
	xb_iogate_free(gate);
}

/* A file that grows during the copy to a size that is not a page multiple
 * and then completes the page: the page straddling two reader chunks is put
 * together; a partial last page is left out with a warning. */
static void test_growth_and_partial_page(void)
{
	size_t len;
	uint8_t *good = fixture("t1", &len);
	uint32_t ps = psize_of(good);
	size_t extra = 3 * (size_t)ps;
	size_t start_len = len + 5000, final_len = len + extra;
	uint8_t *fin = calloc(1, final_len);
	memcpy(fin, good, len);
	uint8_t *first = malloc(start_len);
	memcpy(first, fin, start_len);
	tear(first, 2, ps);
	store("./db/grow.ibd", first, start_len);
	/* the hook repairs page 2 and appends the rest (zero pages) */
	torn_fix fx = {"./db/grow.ibd", fin, final_len, 2, ps, 0};
	char backup[BUF];
	xb_sink *s = new_sink(backup, sizeof backup);
	datafile_copy_opts o;
	innodb_datafile_opts_init(&o);
	o.chunk_bytes = 65536;
	o.retry_ms = 1;
	o.before_reread = fix_torn;
	o.before_reread_arg = &fx;
	datafile_copy_stats st;
	xb_error err = {0};
	capture_begin();
	int rc = innodb_datafile_copy("./db/grow.ibd", "db/grow.ibd", s, &o, &st, NULL, &err);
	free(capture_end());
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(st.reread_pages, 1);
	CU_ASSERT_EQUAL(st.bytes, final_len);
	check_copy(backup, "db/grow.ibd", fin, final_len);
	xb_sink_free(s);

	/* partial last page, no growth: left out, with a warning */
	memcpy(first, good, len); /* not torn this time */
	store("./db/part.ibd", first, start_len);
	s = new_sink(backup, sizeof backup);
	innodb_datafile_opts_init(&o);
	capture_begin();
	rc = innodb_datafile_copy("./db/part.ibd", "db/part.ibd", s, &o, &st, NULL, &err);
	char *log = capture_end();
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(st.bytes, len);
	check_copy(backup, "db/part.ibd", good, len);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "left out 5000 bytes of an incomplete last page"));
	free(log);
	xb_sink_free(s);
	free(good);
	free(fin);
	free(first);
}

/* Files being created are deferred, not copied, not an error; a page 0
 * never written (empty, short, zeros) is not re-read, an invalid one is. */
static void test_deferred(void)
{
	struct {
		size_t len;       /* file size */
		int fill;         /* byte value, -1 = copy of t1 page 0 with a bad byte */
		const char *why;  /* expected reason prefix */
		bool unwritten;   /* expected stats.unwritten (no re-reads) */
	} cases[] = {
		{0, 0, "file is empty", true},
		{100, 0x11, "file is shorter than one page", true},
		{16384 * 4, 0, "page 0 is not written yet", true},
		{16384 * 4, -1, "page 0 is not valid yet: ", false},
	};
	size_t t1len;
	uint8_t *t1 = fixture("t1", &t1len);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t *b = malloc(cases[i].len + 1);
		if (cases[i].fill >= 0) {
			memset(b, cases[i].fill, cases[i].len);
		} else {
			memcpy(b, t1, cases[i].len);
			b[300] ^= 0xff;
		}
		store("./db/new.ibd", b, cases[i].len);
		char backup[BUF];
		xb_sink *s = new_sink(backup, sizeof backup);
		datafile_copy_opts o;
		innodb_datafile_opts_init(&o);
		o.retries = 2;
		o.retry_ms = 1;
		o.before_reread = count_rereads;
		reread_calls = 0;
		datafile_copy_stats st;
		volatile uint64_t progress = 0;
		xb_error err = {0};
		capture_begin();
		int rc = innodb_datafile_copy("./db/new.ibd", "db/new.ibd", s, &o, &st, &progress, &err);
		char *log = capture_end();
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_TRUE(st.deferred);
		CU_ASSERT_EQUAL(st.unwritten, cases[i].unwritten);
		CU_ASSERT_EQUAL(reread_calls, cases[i].unwritten ? 0 : 2);
		CU_ASSERT_EQUAL(strncmp(st.why, cases[i].why, strlen(cases[i].why)), 0);
		CU_ASSERT_EQUAL(st.bytes, 0);
		CU_ASSERT_EQUAL(progress, 0);
		CU_ASSERT_FALSE(exists(backup, "db/new.ibd"));
		CU_ASSERT_FALSE(exists(backup, "db"));
		CU_ASSERT_PTR_NULL(strstr(log, "Copying"));
		free(log);
		xb_sink_free(s);
		free(b);
	}
	free(t1);
}

/* With copy_unwritten a file whose page 0 was never written is copied as it
 * is, at once; one whose page 0 is written but invalid is still re-read and
 * deferred. */
static void test_copy_unwritten(void)
{
	size_t t1len;
	uint8_t *t1 = fixture("t1", &t1len);
	struct {
		size_t len;       /* file size */
		int fill;         /* byte value of page 0; -1 = t1's page 0 with a bad byte */
		bool copied;      /* copied as it is */
	} cases[] = {
		{0, 0, true},
		{100, 0x11, true},
		{16384 * 6, 0, true},   /* zero page 0, written pages after it */
		{16384 * 4, -1, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t *b = calloc(1, cases[i].len + 1);
		if (cases[i].fill > 0)
			memset(b, cases[i].fill, cases[i].len);
		if (cases[i].fill < 0) {
			memcpy(b, t1, cases[i].len);
			b[300] ^= 0xff;
		} else if (cases[i].len > 16384 * 2) {
			memcpy(b + 16384 * 2, t1 + 16384 * 2, 16384 * 2); /* pages the server flushed before page 0 */
		}
		store("./db/fresh.ibd", b, cases[i].len);
		char backup[BUF];
		xb_sink *s = new_sink(backup, sizeof backup);
		datafile_copy_opts o;
		innodb_datafile_opts_init(&o);
		o.retries = 2;
		o.retry_ms = 1;
		o.copy_unwritten = true;
		o.before_reread = count_rereads;
		reread_calls = 0;
		datafile_copy_stats st;
		volatile uint64_t progress = 0;
		xb_error err = {0};
		capture_begin();
		int rc = innodb_datafile_copy("./db/fresh.ibd", "db/fresh.ibd", s, &o, &st, &progress, &err);
		char *log = capture_end();
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(st.deferred, !cases[i].copied);
		CU_ASSERT_EQUAL(st.unwritten, cases[i].copied);
		CU_ASSERT_EQUAL(reread_calls, cases[i].copied ? 0 : 2);
		if (cases[i].copied) {
			check_copy(backup, "db/fresh.ibd", b, cases[i].len);
			CU_ASSERT_EQUAL(st.bytes, cases[i].len);
			CU_ASSERT_EQUAL(progress, cases[i].len);
			CU_ASSERT_PTR_NOT_NULL(strstr(log, "as it is"));
		} else {
			CU_ASSERT_FALSE(exists(backup, "db/fresh.ibd"));
		}
		free(log);
		xb_sink_free(s);
		free(b);
	}
	free(t1);
}

/* System tablespace: no validation in the doublewrite area; no page-number
 * check in ibdata2.. (first_page_no > 0). */
static void test_system_space(void)
{
	size_t t1len;
	uint8_t *t1 = fixture("t1", &t1len);
	innodb_space_info si;
	xb_error err = {0};
	CU_ASSERT_EQUAL_FATAL(innodb_page0_parse(t1, t1len, &si, &err), 0);
	innodb_space_info sys = si;
	sys.space_id = 0;
	uint32_t ps = si.physical_size;
	/* 200 pages: zero (valid) pages, garbage in pages 64..191 */
	size_t len = 200 * (size_t)ps;
	uint8_t *b = calloc(1, len);
	for (size_t i = 64 * (size_t)ps; i < 192 * (size_t)ps; i++)
		b[i] = (uint8_t)(i * 7 + 1);
	store("./ibdata1", b, len);

	char backup[BUF];
	xb_sink *s = new_sink(backup, sizeof backup);
	datafile_copy_opts o;
	innodb_datafile_opts_init(&o);
	o.system_space = true;
	o.space = &sys;
	o.retry_ms = 1;
	o.retries = 1;
	datafile_copy_stats st;
	capture_begin();
	int rc = innodb_datafile_copy("./ibdata1", "ibdata1", s, &o, &st, NULL, &err);
	free(capture_end());
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(st.pages, 200);
	CU_ASSERT_EQUAL(st.zero_pages, 72);
	check_copy(backup, "ibdata1", b, len);
	xb_sink_free(s);

	/* the same without system_space: page 64 is corrupt */
	s = new_sink(backup, sizeof backup);
	o.system_space = false;
	capture_begin();
	rc = innodb_datafile_copy("./ibdata1", "ibdata1", s, &o, &st, NULL, &err);
	free(capture_end());
	CU_ASSERT_EQUAL(rc, XB_E_CORRUPT_PAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "page 64 of ./ibdata1 is corrupt: "));
	xb_sink_free(s);

	/* "ibdata2": real pages 2.. of t1 numbered from 100: accepted without
	 * the page-number check, refused with it */
	store("./ibdata2", t1 + 2 * (size_t)ps, t1len - 2 * (size_t)ps);
	s = new_sink(backup, sizeof backup);
	o.system_space = true;
	o.first_page_no = 100;
	o.space = &si;
	capture_begin();
	rc = innodb_datafile_copy("./ibdata2", "ibdata2", s, &o, &st, NULL, &err);
	free(capture_end());
	CU_ASSERT_EQUAL(rc, 0);
	check_copy(backup, "ibdata2", t1 + 2 * (size_t)ps, t1len - 2 * (size_t)ps);
	xb_sink_free(s);
	s = new_sink(backup, sizeof backup);
	o.system_space = false;
	capture_begin();
	rc = innodb_datafile_copy("./ibdata2", "ibdata2", s, &o, &st, NULL, &err);
	free(capture_end());
	CU_ASSERT_EQUAL(rc, XB_E_CORRUPT_PAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "page 100 of ./ibdata2 is corrupt: "));
	xb_sink_free(s);

	/* a continuation file without the first file's page-0 info is a caller bug */
	s = new_sink(backup, sizeof backup);
	o.system_space = true;
	o.space = NULL;
	rc = innodb_datafile_copy("./ibdata2", "ibdata2", s, &o, &st, NULL, &err);
	CU_ASSERT_EQUAL(rc, XB_E_INTERNAL);
	xb_sink_free(s);
	free(b);
	free(t1);
	unlink("./ibdata1");
	unlink("./ibdata2");
}

/* --throttle applies to datafile reads: 3 MiB in 1 MiB chunks at 4 MiB/s
 * start at 0, 0.25 and 0.5 s. */
static void test_throttled_copy(void)
{
	size_t t1len;
	uint8_t *t1 = fixture("t1", &t1len);
	size_t len = 3 << 20;
	uint8_t *b = calloc(1, len);
	memcpy(b, t1, t1len);
	store("./db/big.ibd", b, len);
	xb_throttle *thr;
	CU_ASSERT_EQUAL_FATAL(xb_throttle_create(4, &thr, NULL), 0);
	char backup[BUF];
	xb_sink *s = new_sink(backup, sizeof backup);
	datafile_copy_opts o;
	innodb_datafile_opts_init(&o);
	o.chunk_bytes = 1 << 20;
	o.throttle = thr;
	datafile_copy_stats st;
	xb_error err = {0};
	struct timespec a, z;
	clock_gettime(CLOCK_MONOTONIC, &a);
	capture_begin();
	int rc = innodb_datafile_copy("./db/big.ibd", "db/big.ibd", s, &o, &st, NULL, &err);
	free(capture_end());
	clock_gettime(CLOCK_MONOTONIC, &z);
	double el = (double)(z.tv_sec - a.tv_sec) + (double)(z.tv_nsec - a.tv_nsec) / 1e9;
	printf("\n  3 MiB at --throttle=4: %.3f s\n", el);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(el >= 0.45 && el < 2.0);
	check_copy(backup, "db/big.ibd", b, len);
	xb_sink_free(s);
	xb_throttle_free(thr);
	free(b);
	free(t1);
	unlink("./db/big.ibd");
}

static void test_missing(void)
{
	char backup[BUF];
	xb_sink *s = new_sink(backup, sizeof backup);
	datafile_copy_stats st;
	xb_error err = {0};
	int rc = innodb_datafile_copy("./db/gone.ibd", "db/gone.ibd", s, NULL, &st, NULL, &err);
	CU_ASSERT_EQUAL(rc, XB_E_MISSING_FILE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "./db/gone.ibd"));
	CU_ASSERT_FALSE(exists(backup, "db/gone.ibd"));
	xb_sink_free(s);
}

/* ---- delta mode ---- */

/* The delta of the pages of data (len bytes, pages of ps bytes) whose LSN
 * is above lsn, or whose number is in pick (when not NULL), as one block
 * (the fixtures are far smaller than a block): "XTRA", the page numbers,
 * FF FF FF FF, then the pages. */
static uint8_t *expected_delta(const uint8_t *data, size_t len, uint32_t ps, uint64_t lsn, const bool *pick,
			       size_t *out_len, uint32_t *n_out)
{
	uint32_t n = 0, np = (uint32_t)(len / ps);
	uint8_t *out = calloc(np + 1, ps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	for (uint32_t i = 0; i < np; i++) {
		const uint8_t *p = data + (size_t)i * ps;
		if (pick ? !pick[i] : be64_get(p + 16) <= lsn)
			continue;
		be32_put(out + 4 + 4 * n, i);
		memcpy(out + (size_t)(n + 1) * ps, p, ps);
		n++;
	}
	memcpy(out, "XTRA", 4);
	if (n + 1 < ps / 4)
		be32_put(out + 4 + 4 * n, 0xFFFFFFFFu);
	*out_len = (size_t)(n + 1) * ps;
	*n_out = n;
	return out;
}

static bool pick_page(void *ctx, uint32_t page_no, const uint8_t *page)
{
	const bool *pick = ctx;
	return pick[page_no];
}

/* Copy table in delta mode (lsn, or the predicate keeping the pages of
 * pick) and compare .delta and .meta with what they must hold. */
static void delta_case(const char *table, size_t chunk, uint64_t lsn, const bool *pick)
{
	size_t len;
	uint8_t *data = fixture(table, &len);
	uint32_t ps = psize_of(data);
	innodb_space_info si;
	xb_error err = {0};
	CU_ASSERT_EQUAL_FATAL(innodb_page0_parse(data, 65536, &si, &err), 0);
	char src[64], rel[64], backup[BUF];
	snprintf(src, sizeof src, "./db/%s.ibd", table);
	snprintf(rel, sizeof rel, "db/%s.ibd", table);
	store(src, data, len);
	xb_sink *s = new_sink(backup, sizeof backup);
	datafile_copy_opts o;
	innodb_datafile_opts_init(&o);
	o.chunk_bytes = chunk;
	o.delta = true;
	o.delta_lsn = lsn;
	if (pick) {
		o.page_wanted = pick_page;
		o.page_wanted_ctx = (void *)pick;
	}
	datafile_copy_stats st;
	volatile uint64_t progress = 0;
	capture_begin();
	int rc = innodb_datafile_copy(src, rel, s, &o, &st, &progress, &err);
	char *log = capture_end();
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		printf("\n  %s: %s\n", table, err.msg);
	size_t want_len;
	uint32_t n;
	uint8_t *want = expected_delta(data, len, ps, lsn, pick, &want_len, &n);
	char drel[128], mrel[128];
	snprintf(drel, sizeof drel, "%s.delta", rel);
	snprintf(mrel, sizeof mrel, "%s.meta", rel);
	check_copy(backup, drel, want, want_len);
	CU_ASSERT_FALSE(exists(backup, rel)); /* no copy of the file itself */
	char meta[128]; /* mariabackup's text, the space after zip_size's value included */
	int ml = snprintf(meta, sizeof meta, "page_size = %u\nzip_size = %u \nspace_id = %u\n", ps, si.zip ? ps : 0,
			  si.space_id);
	check_copy(backup, mrel, (const uint8_t *)meta, (size_t)ml);
	CU_ASSERT_EQUAL(st.pages, len / ps);
	CU_ASSERT_EQUAL(st.delta_pages, n);
	CU_ASSERT_EQUAL(st.bytes, want_len);
	CU_ASSERT_EQUAL(progress, len); /* the meter counts what was read */
	char line[3 * BUF];
	snprintf(line, sizeof line, " Copying %s to %s/%s\n", src, backup, drel);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, line));
	free(log);
	free(want);
	free(data);
	xb_sink_free(s);
}

/* The pages newer than the base LSN, and no other, in mariabackup's .delta
 * and .meta; a base LSN below every page takes all written pages (never the
 * all-zero ones), one above every page none (a delta of one header page). */
static void test_delta_lsn(void)
{
	size_t chunks[] = {65536, 0};
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		size_t len;
		uint8_t *data = fixture(tables[t], &len);
		uint32_t ps = psize_of(data);
		uint64_t lo = UINT64_MAX, hi = 0;
		for (size_t off = 0; off + ps <= len; off += ps) {
			uint64_t l = be64_get(data + off + 16);
			if (l && l < lo)
				lo = l;
			if (l > hi)
				hi = l;
		}
		free(data);
		CU_ASSERT_FATAL(lo < hi);
		for (size_t k = 0; k < 2; k++) {
			delta_case(tables[t], chunks[k], lo + (hi - lo) / 2, NULL);
			delta_case(tables[t], chunks[k], 0, NULL);
			delta_case(tables[t], chunks[k], hi, NULL);
			delta_case(tables[t], chunks[k], lo - 1, NULL);
		}
	}
}

/* Which pages go in is the caller's choice when it gives a predicate (a
 * list of changed pages): exactly those, in page order. */
static void test_delta_predicate(void)
{
	bool pick[64] = {false};
	pick[1] = pick[3] = pick[4] = true;
	delta_case("t1", 0, 0, pick);
	delta_case("t_zip", 65536, 0, pick);
}

/* A page in the delta must validate as in a full copy: a flipped byte in a
 * page newer than the base fails the copy, as does one in an older page. */
static void test_delta_corrupt(void)
{
	size_t len;
	uint8_t *data = fixture("t1", &len);
	uint32_t ps = psize_of(data);
	data[3 * ps + 100] ^= 0x40;
	store("./db/t1.ibd", data, len);
	for (int k = 0; k < 2; k++) {
		char backup[BUF];
		xb_sink *s = new_sink(backup, sizeof backup);
		datafile_copy_opts o;
		innodb_datafile_opts_init(&o);
		o.delta = true;
		o.delta_lsn = k ? UINT64_MAX - 1 : 0;
		o.retries = -1;
		datafile_copy_stats st;
		xb_error err = {0};
		capture_begin();
		int rc = innodb_datafile_copy("./db/t1.ibd", "db/t1.ibd", s, &o, &st, NULL, &err);
		free(capture_end());
		CU_ASSERT_EQUAL(rc, XB_E_CORRUPT_PAGE);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "page 3 of ./db/t1.ibd is corrupt"));
		CU_ASSERT_FALSE(exists(backup, "db/t1.ibd.delta"));
		CU_ASSERT_FALSE(exists(backup, "db/t1.ibd.meta"));
		xb_sink_free(s);
	}
	free(data);
}

static void rm_rf(const char *path)
{
	char cmd[BUF];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", path);
}

static int find_fixtures(const char *argv0)
{
	char self[PATH_MAX], cand[PATH_MAX + 64];
	snprintf(self, sizeof self, "%s", argv0);
	const char *env = getenv("XB_FIXTURES");
	const char *tries[3];
	char viaself[PATH_MAX + 64];
	snprintf(viaself, sizeof viaself, "%s/../../test/fixtures", dirname(self));
	tries[0] = env;
	tries[1] = "test/fixtures";
	tries[2] = viaself;
	for (int i = 0; i < 3; i++) {
		if (!tries[i])
			continue;
		snprintf(cand, sizeof cand, "%s/datafile/t1.ibd", tries[i]);
		if (access(cand, R_OK) == 0) {
			snprintf(cand, sizeof cand, "%s/datafile", tries[i]);
			return realpath(cand, fixtures) ? 0 : -1;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	(void)argc;
	if (find_fixtures(argv[0]) != 0) {
		fprintf(stderr, "datafile_test: test/fixtures/datafile not found\n");
		return 1;
	}
	char self[PATH_MAX];
	snprintf(self, sizeof self, "%s", argv[0]);
	char base[PATH_MAX];
	if (!realpath(dirname(self), base))
		return 1;
	snprintf(work, sizeof work, "%.900s/datafile_test.XXXXXX", base);
	if (!mkdtemp(work))
		return 1;
	char data[BUF];
	snprintf(data, sizeof data, "%s/data", work);
	mkdir(data, 0755);
	if (chdir(data) != 0 || mkdir("db", 0755) != 0)
		return 1;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("datafile", NULL, NULL);
	CU_add_test(s, "real .ibd files copy byte-identically", test_copy_identical);
	CU_add_test(s, "flipped byte: corrupt page error", test_corrupt_page);
	CU_add_test(s, "page torn on the first read: re-read", test_torn_page);
	CU_add_test(s, "growth during copy, partial last page", test_growth_and_partial_page);
	CU_add_test(s, "tablespaces being created are deferred", test_deferred);
	CU_add_test(s, "an unwritten page 0: copied as it is at once", test_copy_unwritten);
	CU_add_test(s, "system tablespace rules", test_system_space);
	CU_add_test(s, "throttled copy", test_throttled_copy);
	CU_add_test(s, "missing file", test_missing);
	CU_add_test(s, "delta mode: pages newer than the base LSN", test_delta_lsn);
	CU_add_test(s, "delta mode: pages chosen by a predicate", test_delta_predicate);
	CU_add_test(s, "delta mode: pages are validated", test_delta_corrupt);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	if (chdir("/") == 0)
		rm_rf(work);
	return failed ? 1 : 0;
}
