/*
 * statcache_test.c - the stat cache (src/info/statcache.c), the file stamp
 * it keeps (src/platform/file.c), and the page-by-page check a manifest's
 * "pages" entry asks for (innodb_pages_valid, engine-hooks/innodb/page.c):
 * a cache written and read back is the same, with its exact bytes; the last
 * put of a path wins; every malformed line is refused with the line named,
 * as is a cache cut at any byte; a real file's stamp changes on a write of
 * the same size, a truncation, and a replacement by rename, and not on a
 * read; real tablespace pages pass the page check and a flipped byte, a
 * zeroed trailer or a page put at the wrong place is named.
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "info/statcache.h"
#include "innodb/page.h"
#include "platform/file.h"

static const char sample[] = "xtrabackup-statcache 1\n"
			     "0000002a 2049 131 9 1700000000000000001 1700000000000000002 backup-my.cnf\n"
			     "pages 2049 140 65536 1700000000000000003 -5 db/t 1.ibd\n"
			     "end 2\n";

static void test_format_exact(void)
{
	xb_statcache c;
	xb_statcache_init(&c);
	xb_file_stamp a = {.dev = 2049, .ino = 999, .size = 1, .mtime_ns = 1, .ctime_ns = 1};
	xb_file_stamp b = {.dev = 2049, .ino = 140, .size = 65536, .mtime_ns = 1700000000000000003LL, .ctime_ns = -5};
	xb_file_stamp d = {.dev = 2049, .ino = 131, .size = 9, .mtime_ns = 1700000000000000001LL,
			   .ctime_ns = 1700000000000000002LL};
	xb_statcache_put(&c, "db/t 1.ibd", &b, 0x1234, true); /* a "pages" line carries no CRC */
	xb_statcache_put(&c, "backup-my.cnf", &a, 7, false);
	xb_statcache_put(&c, "backup-my.cnf", &d, 0x2a, false); /* put again: this one wins */
	char dir[] = "/tmp/statcache_test.XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_FATAL(xb_statcache_write(dir, &c, &err) == 0);
	CU_ASSERT(c.n == 2);
	char path[256], buf[1024];
	snprintf(path, sizeof path, "%s/%s", dir, XB_STATCACHE_FILE);
	FILE *f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	CU_ASSERT_STRING_EQUAL(buf, sample);
	/* read back: the same entries, found by path */
	xb_statcache r;
	CU_ASSERT_FATAL(xb_statcache_read(dir, &r, &err) == 0);
	CU_ASSERT_FATAL(r.n == 2);
	const xb_statcache_entry *e = xb_statcache_find(&r, "db/t 1.ibd");
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT(e->pages && e->crc == 0 && xb_file_stamp_same(&e->st, &b));
	e = xb_statcache_find(&r, "backup-my.cnf");
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT(!e->pages && e->crc == 0x2a && xb_file_stamp_same(&e->st, &d));
	CU_ASSERT(xb_statcache_find(&r, "db/t.ibd") == NULL);
	xb_statcache_free(&r);
	xb_statcache_free(&c);
	/* removed: reading says there is none */
	CU_ASSERT(xb_statcache_remove(dir, &err) == 0);
	CU_ASSERT(xb_statcache_remove(dir, &err) == 0);
	CU_ASSERT(xb_statcache_read(dir, &r, &err) == XB_E_MISSING_FILE);
	CU_ASSERT(r.n == 0);
	rmdir(dir);
}

static void bad(const char *text, const char *want)
{
	xb_statcache c;
	xb_error err;
	xb_err_clear(&err);
	int rc = xb_statcache_parse("C", text, strlen(text), &c, &err);
	CU_ASSERT(rc == XB_E_BACKUP_DAMAGED);
	if (!strstr(err.msg, want)) {
		fprintf(stderr, "\n  text %s\n  got  %s\n  want %s\n", text, err.msg, want);
		CU_FAIL("message");
	}
	CU_ASSERT(c.n == 0 && c.v == NULL);
}

#define HEAD "xtrabackup-statcache 1\n"

static void test_malformed(void)
{
	bad("", "C is empty");
	bad("xtrabackup-statcache 2\nend 0\n", "C: line 1: expected \"xtrabackup-statcache 1\"");
	bad(HEAD, "C: cut short after line 1 (no \"end\" line)");
	bad(HEAD "0000002a 1 2 3 4 5\nend 1\n", "C: line 2: expected \"CHECK DEV INO SIZE MTIME_NS CTIME_NS PATH\"");
	bad(HEAD "0000002A 1 2 3 4 5 a\nend 1\n", "C: line 2: bad check (8 hex digits or \"pages\")");
	bad(HEAD "page 1 2 3 4 5 a\nend 1\n", "C: line 2: bad check");
	bad(HEAD "0000002a x 2 3 4 5 a\nend 1\n", "C: line 2: bad number");
	bad(HEAD "0000002a 1 2 -3 4 5 a\nend 1\n", "C: line 2: bad number");
	bad(HEAD "0000002a 1 2 3 4 5x a\nend 1\n", "C: line 2: bad number");
	bad(HEAD "0000002a 1 2 3 4 5 /etc/passwd\nend 1\n", "C: line 2: bad path");
	bad(HEAD "0000002a 1 2 3 4 5 b\n0000002a 1 2 3 4 5 a\nend 2\n", "C: line 3: path out of order or repeated");
	bad(HEAD "0000002a 1 2 3 4 5 a\nend 2\n", "C: line 3: expected \"end 1\"");
	bad(HEAD "0000002a 1 2 3 4 5 a\nend 1\nx\n", "C: line 4: text after the \"end\" line");
}

static void test_truncated(void)
{
	size_t len = strlen(sample);
	for (size_t cut = 0; cut < len - 1; cut++) {
		xb_statcache c;
		xb_error err;
		xb_err_clear(&err);
		CU_ASSERT(xb_statcache_parse("C", sample, cut, &c, &err) == XB_E_BACKUP_DAMAGED);
		CU_ASSERT(c.n == 0);
	}
	xb_statcache c;
	xb_error err;
	CU_ASSERT(xb_statcache_parse("C", sample, len, &c, &err) == 0 && c.n == 2);
	xb_statcache_free(&c);
}

/* Wait until the coarse clock the file system stamps with has moved on. */
static void next_tick(void)
{
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

static void test_stamp_of_real_files(void)
{
	char dir[] = "/tmp/statcache_test.XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	char p[256], q[256];
	snprintf(p, sizeof p, "%s/f", dir);
	snprintf(q, sizeof q, "%s/g", dir);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "abcdefgh", 8) == 8);
	close(fd);
	xb_file_stamp a, b;
	CU_ASSERT_FATAL(xb_file_stamp_of(p, &a) == 0);
	CU_ASSERT(a.size == 8);
	/* a read changes nothing */
	char buf[8];
	next_tick();
	fd = open(p, O_RDONLY);
	CU_ASSERT(read(fd, buf, 8) == 8);
	close(fd);
	CU_ASSERT(xb_file_stamp_of(p, &b) == 0 && xb_file_stamp_same(&a, &b));
	/* a write of one byte in place, the size unchanged */
	fd = open(p, O_WRONLY);
	CU_ASSERT(pwrite(fd, "X", 1, 3) == 1);
	close(fd);
	CU_ASSERT(xb_file_stamp_of(p, &b) == 0 && !xb_file_stamp_same(&a, &b) && b.size == 8);
	/* the modification time put back (touch -r): the change time still tells */
	struct timespec times[2] = {{a.mtime_ns / 1000000000LL, a.mtime_ns % 1000000000LL},
				    {a.mtime_ns / 1000000000LL, a.mtime_ns % 1000000000LL}};
	CU_ASSERT(utimensat(AT_FDCWD, p, times, 0) == 0);
	CU_ASSERT(xb_file_stamp_of(p, &b) == 0 && b.mtime_ns == a.mtime_ns && !xb_file_stamp_same(&a, &b));
	/* a truncation */
	CU_ASSERT(xb_file_stamp_of(p, &a) == 0);
	next_tick();
	CU_ASSERT(truncate(p, 4) == 0);
	CU_ASSERT(xb_file_stamp_of(p, &b) == 0 && !xb_file_stamp_same(&a, &b) && b.size == 4);
	/* a replacement by rename: another file */
	CU_ASSERT(xb_file_stamp_of(p, &a) == 0);
	fd = open(q, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT(write(fd, "abcd", 4) == 4);
	close(fd);
	CU_ASSERT(rename(q, p) == 0);
	CU_ASSERT(xb_file_stamp_of(p, &b) == 0 && !xb_file_stamp_same(&a, &b) && b.ino != a.ino);
	CU_ASSERT(xb_file_stamp_of(q, &b) == -1);
	unlink(p);
	rmdir(dir);
}

static void test_pages_valid(void)
{
	static const char *const fx[] = {"t_full.pages", "t_crc32.pages", "t_zip.pages", "t_pc.pages"};
	for (size_t k = 0; k < sizeof fx / sizeof fx[0]; k++) {
		size_t len = 0;
		uint8_t *buf = load(fx[k], &len);
		CU_ASSERT_FATAL(buf != NULL);
		innodb_space_info si;
		xb_error err;
		CU_ASSERT_FATAL(innodb_page0_parse(buf, len, &si, &err) == 0);
		uint32_t ps = si.physical_size;
		size_t whole = len - len % ps;
		CU_ASSERT_FATAL(whole >= 2 * ps);
		uint64_t bad_no = 77;
		char why[128];
		CU_ASSERT(innodb_pages_valid(buf, whole, 0, &si, &bad_no, why, sizeof why));
		CU_ASSERT(bad_no == 77);
		/* the same pages said to start at page 1: page 0 is at the wrong place */
		CU_ASSERT(!innodb_pages_valid(buf, whole, 1, &si, &bad_no, why, sizeof why));
		CU_ASSERT(bad_no == 1);
		CU_ASSERT(strstr(why, "page number field is 0, expected 1") != NULL);
		/* a flipped byte in the last page whose content is not all zero */
		size_t last = whole / ps - 1;
		while (last > 0) {
			const uint8_t *pg = buf + last * ps;
			size_t z = 0;
			while (z < ps && !pg[z])
				z++;
			if (z < ps)
				break;
			last--;
		}
		CU_ASSERT_FATAL(last > 0);
		buf[last * ps + 200] ^= 0x10;
		CU_ASSERT(!innodb_pages_valid(buf, whole, 0, &si, &bad_no, why, sizeof why));
		CU_ASSERT(bad_no == last);
		CU_ASSERT(why[0] != 0);
		buf[last * ps + 200] ^= 0x10;
		/* a page of zeros is valid (never written) */
		memset(buf + last * ps, 0, ps);
		CU_ASSERT(innodb_pages_valid(buf, whole, 0, &si, &bad_no, why, sizeof why));
		free(buf);
	}
}

int main(void)
{
	find_fixture_dir();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("statcache", NULL, NULL);
	CU_add_test(s, "stat cache: exact bytes, last put wins, read back, removed", test_format_exact);
	CU_add_test(s, "stat cache: every malformed line", test_malformed);
	CU_add_test(s, "stat cache: cut at every byte", test_truncated);
	CU_add_test(s, "file stamp: read, write in place, mtime put back, truncate, rename over", test_stamp_of_real_files);
	CU_add_test(s, "pages check: real pages, wrong place, flipped byte, zero page", test_pages_valid);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned f = CU_get_number_of_failures();
	CU_cleanup_registry();
	return f ? 1 : 0;
}
