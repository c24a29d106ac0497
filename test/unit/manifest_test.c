/*
 * manifest_test.c - the backup manifest (src/info/manifest.c) and the
 * checksumming sink filter that feeds it (src/sink/sink_sum.c): real
 * tablespace pages (the .pages files of test/fixtures/innodb, from a 10.11 server) sent
 * through the filter in uneven pieces give their CRC-32C, size and page 0;
 * a manifest written and read back is the same; its exact bytes; every kind
 * of malformed line is refused with the line named; a manifest cut at any
 * byte is refused; an aborted file is never reported.
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "command/verify/verify.h"
#include "info/manifest.h"
#include "info/metafile.h"
#include "innodb/crc32c.h"
#include "innodb/page.h"
#include "memsink.h"
#include "sink/sink_sum.h"

/* ---- the filter */

typedef struct seen {
	char name[256];        /* reported file */
	uint64_t size;         /* its size */
	uint32_t crc;          /* its checksum */
	uint8_t head[XB_SINK_SUM_HEAD]; /* its first bytes */
	size_t head_len;       /* how many */
	int n;                 /* reports so far */
} seen;

static void note(void *ctx, const char *rel, uint64_t size, uint32_t crc, const uint8_t *head, size_t head_len)
{
	seen *s = ctx;
	snprintf(s->name, sizeof s->name, "%s", rel);
	s->size = size;
	s->crc = crc;
	memcpy(s->head, head, head_len);
	s->head_len = head_len;
	s->n++;
}

static void test_sum_real_pages(void)
{
	static const char *const fx[] = {"t_full.pages", "t_crc32.pages", "t_zip.pages", "t_pc.pages", "ibdata1.pages"};
	for (size_t k = 0; k < sizeof fx / sizeof fx[0]; k++) {
		size_t len;
		uint8_t *buf = load(fx[k], &len);
		CU_ASSERT_FATAL(buf != NULL);
		msink *m = msink_new();
		seen s = {0};
		xb_error err;
		xb_err_clear(&err);
		xb_sink *f = xb_sink_sum_open(&m->base, note, &s, &err);
		CU_ASSERT_FATAL(f != NULL);
		xb_sink_file *o = xb_sink_open(f, "db/t.ibd", &err);
		CU_ASSERT_FATAL(o != NULL);
		/* uneven pieces: 1 byte, 37 bytes (the head crosses pieces), then 3000 at a time */
		size_t off = 0, step[] = {1, 37, 3000};
		for (int i = 0; off < len; i = i < 2 ? i + 1 : 2) {
			size_t n = len - off < step[i] ? len - off : step[i];
			CU_ASSERT(xb_sink_write(o, buf + off, n, &err) == 0);
			off += n;
		}
		CU_ASSERT(s.n == 0); /* nothing reported before the close */
		CU_ASSERT(xb_sink_close(o, &err) == 0);
		CU_ASSERT(s.n == 1);
		CU_ASSERT_STRING_EQUAL(s.name, "db/t.ibd");
		CU_ASSERT(s.size == len);
		CU_ASSERT(s.crc == crc32c(buf, len));
		CU_ASSERT(s.head_len == XB_SINK_SUM_HEAD);
		CU_ASSERT(memcmp(s.head, buf, XB_SINK_SUM_HEAD) == 0);
		CU_ASSERT(f->bytes_written == len);
		/* the bytes reach the inner sink unchanged */
		mrec *r = mfind(m, "db/t.ibd");
		CU_ASSERT_FATAL(r != NULL);
		CU_ASSERT(r->closed && r->len == len && !memcmp(r->data, buf, len));
		/* the head gives page 0's space id and page size, as the full parser does */
		innodb_space_info si;
		uint32_t space, phys;
		CU_ASSERT(innodb_page0_head(s.head, s.head_len, 16384, &space, &phys));
		if (innodb_page0_parse(buf, len, &si, &err) == 0) {
			CU_ASSERT(space == si.space_id);
			if (strcmp(fx[k], "ibdata1.pages"))
				CU_ASSERT(phys == si.physical_size);
		}
		CU_ASSERT(!innodb_page0_head(s.head, FSP_SPACE_FLAGS + 3, 16384, &space, &phys));
		xb_sink_free(f);
		free(buf);
	}
}

static void test_sum_abort_and_short(void)
{
	msink *m = msink_new();
	seen s = {0};
	xb_error err;
	xb_sink *f = xb_sink_sum_open(&m->base, note, &s, &err);
	xb_sink_file *o = xb_sink_open(f, "a", &err);
	CU_ASSERT(xb_sink_write(o, "abc", 3, &err) == 0);
	xb_sink_abort(o);
	CU_ASSERT(s.n == 0); /* an aborted file is not reported */
	CU_ASSERT(mfind(m, "a")->aborted);
	CU_ASSERT(xb_sink_put(f, "short", "123456789", 9, &err) == 0);
	CU_ASSERT(s.n == 1 && s.size == 9 && s.head_len == 9 && s.crc == 0xE3069283u);
	CU_ASSERT(xb_sink_put(f, "empty", "", 0, &err) == 0);
	CU_ASSERT(s.n == 2 && s.size == 0 && s.head_len == 0 && s.crc == 0);
	CU_ASSERT(xb_sink_sum_inner(f) == &m->base);
	CU_ASSERT(xb_sink_sum_inner(&m->base) == &m->base);
	xb_sink_free(f);
}

/* ---- the file */

static const char sample[] = "xtrabackup-manifest 1 backup\n"
			     "0000002a 9 - - backup-my.cnf\n"
			     "e3069283 65536 5 4 db/t 1.ibd\n"
			     "ffffffff 0 - - db/z.frm\n"
			     "end 3\n";

static void test_format_exact(void)
{
	xb_manifest m;
	xb_manifest_init(&m);
	xb_manifest_put(&m, "db/z.frm", 0, 0xffffffffu, XB_MANIFEST_NO_SPACE, 7);
	xb_manifest_put(&m, "db/t 1.ibd", 100, 1, 5, 1);
	xb_manifest_put(&m, "backup-my.cnf", 9, 42, XB_MANIFEST_NO_SPACE, 0);
	xb_manifest_put(&m, "db/t 1.ibd", 65536, 0xE3069283u, 5, 4); /* written again: replaces */
	xb_manifest_put_foreign(&m, "backup.log");
	xb_text t = {0};
	xb_manifest_format(&m, &t);
	CU_ASSERT(m.n == 4);
	CU_ASSERT(xb_manifest_is_foreign(&m, "backup.log"));
	CU_ASSERT(!xb_manifest_is_foreign(&m, "db/z.frm"));
	xb_manifest_remove(&m, "backup.log");
	CU_ASSERT(!xb_manifest_is_foreign(&m, "backup.log"));
	xb_text_free(&t);
	t = (xb_text){0};
	xb_manifest_format(&m, &t);
	CU_ASSERT_FATAL(t.s != NULL);
	CU_ASSERT_STRING_EQUAL(t.s, sample);
	CU_ASSERT(xb_manifest_find(&m, "db/z.frm") != NULL);
	CU_ASSERT(xb_manifest_find(&m, "db/zz.frm") == NULL);
	xb_manifest_remove(&m, "backup-my.cnf");
	CU_ASSERT(m.n == 2 && xb_manifest_find(&m, "backup-my.cnf") == NULL);
	xb_text_free(&t);
	xb_manifest_free(&m);
}

static void test_round_trip(void)
{
	/* real bytes: each fixture's checksum, size, space id and page count */
	static const char *const fx[] = {"t_full.pages", "t_zip.pages", "t_pc.pages", "zero.pages"};
	xb_manifest m;
	xb_manifest_init(&m);
	for (size_t k = 0; k < sizeof fx / sizeof fx[0]; k++) {
		size_t len;
		uint8_t *buf = load(fx[k], &len);
		CU_ASSERT_FATAL(buf != NULL);
		uint32_t space, phys;
		char rel[64];
		snprintf(rel, sizeof rel, "db/%s", fx[k]);
		CU_ASSERT(innodb_page0_head(buf, len, 16384, &space, &phys));
		xb_manifest_put(&m, rel, len, crc32c(buf, len), space, len / phys);
		free(buf);
	}
	xb_manifest_put(&m, "xtrabackup_info", 123, 0xdeadbeefu, XB_MANIFEST_NO_SPACE, 0);
	xb_manifest_put_foreign(&m, "lost+found");
	for (int st = XB_MANIFEST_BACKUP; st <= XB_MANIFEST_PREPARED; st++) {
		m.state = (xb_manifest_state)st;
		xb_text t = {0};
		xb_manifest_format(&m, &t);
		xb_manifest r;
		xb_error err;
		xb_err_clear(&err);
		CU_ASSERT_FATAL(xb_manifest_parse("M", t.s, t.n, &r, &err) == 0);
		CU_ASSERT(r.state == m.state);
		CU_ASSERT_FATAL(r.n == m.n);
		for (size_t i = 0; i < m.n; i++) {
			CU_ASSERT_STRING_EQUAL(r.v[i].path, m.v[i].path);
			CU_ASSERT(r.v[i].size == m.v[i].size && r.v[i].crc == m.v[i].crc);
			CU_ASSERT(r.v[i].space_id == m.v[i].space_id && r.v[i].pages == m.v[i].pages);
			CU_ASSERT(r.v[i].foreign == m.v[i].foreign);
		}
		/* and through a file */
		char dir[] = "/tmp/manifest_test.XXXXXX";
		CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
		CU_ASSERT(xb_manifest_rewrite(dir, &m, &err) == 0);
		xb_manifest f;
		CU_ASSERT(xb_manifest_read(dir, &f, &err) == 0);
		CU_ASSERT(f.n == m.n && f.state == m.state);
		xb_manifest_free(&f);
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", dir, XB_MANIFEST_FILE);
		unlink(path);
		CU_ASSERT(xb_manifest_read(dir, &f, &err) == XB_E_MISSING_FILE);
		rmdir(dir);
		xb_manifest_free(&r);
		xb_text_free(&t);
	}
	xb_manifest_free(&m);
}

static void bad(const char *text, const char *want)
{
	xb_manifest m;
	xb_error err;
	xb_err_clear(&err);
	int rc = xb_manifest_parse("M", text, strlen(text), &m, &err);
	CU_ASSERT(rc == XB_E_BACKUP_DAMAGED);
	if (!strstr(err.msg, want)) {
		fprintf(stderr, "\n  text %s\n  got  %s\n  want %s\n", text, err.msg, want);
		CU_FAIL("message");
	}
	CU_ASSERT(m.n == 0 && m.v == NULL);
}

#define HEAD "xtrabackup-manifest 1 backup\n"

static void test_malformed(void)
{
	bad("", "M is empty");
	bad("xtrabackup-manifest 2 backup\nend 0\n", "M: line 1: expected \"xtrabackup-manifest 1 STATE [to_lsn=N]\"");
	bad("xtrabackup-manifest 1 done\nend 0\n", "M: line 1: expected \"xtrabackup-manifest 1 STATE [to_lsn=N]\", got \"xtrabackup-manifest 1 done\"");
	bad("xtrabackup-manifest 1 backup to_lsn=\nend 0\n", "M: line 1: expected");
	bad("xtrabackup-manifest 1 backup to_lsn=0\nend 0\n", "M: line 1: expected");
	bad("xtrabackup-manifest 1 backup to_lsn=12x\nend 0\n", "M: line 1: expected");
	bad("xtrabackup-manifest 1 backup to_lsn=-5\nend 0\n", "M: line 1: expected");
	bad("xtrabackup-manifest 1 to_lsn=5\nend 0\n", "M: line 1: expected");
	bad("manifest\n", "M: line 1: expected");
	bad(HEAD, "M: cut short after line 1 (no \"end\" line)");
	bad(HEAD "0000002a 9 - - a\n", "M: cut short after line 2");
	bad(HEAD "0000002a 9 - -\nend 1\n", "M: line 2: expected \"CRC32C SIZE SPACE_ID PAGES PATH\"");
	bad(HEAD "0000002a 9 - - \nend 1\n", "M: line 2: expected \"CRC32C SIZE SPACE_ID PAGES PATH\"");
	bad(HEAD "0000002a  9 - - a\nend 1\n", "M: line 2: expected");
	bad(HEAD "0000002A 9 - - a\nend 1\n", "M: line 2: bad checksum (8 hex digits or \"pages\")");
	bad(HEAD "pages 9 - - a\nend 1\n", "M: line 2: \"pages\" is for a tablespace (with a space id)");
	bad(HEAD "Pages 9 5 1 a\nend 1\n", "M: line 2: bad checksum");
	bad(HEAD "2a 9 - - a\nend 1\n", "M: line 2: bad checksum");
	bad(HEAD "0000002a -9 - - a\nend 1\n", "M: line 2: bad size");
	bad(HEAD "0000002a 99999999999999999999 - - a\nend 1\n", "M: line 2: bad size");
	bad(HEAD "0000002a 9 5 - a\nend 1\n", "M: line 2: space id and page count: both or neither");
	bad(HEAD "0000002a 9 x 1 a\nend 1\n", "M: line 2: bad space id");
	bad(HEAD "0000002a 9 4294967295 1 a\nend 1\n", "M: line 2: bad space id");
	bad(HEAD "0000002a 9 5 y a\nend 1\n", "M: line 2: bad page count");
	bad(HEAD "0000002a 9 - - /etc/passwd\nend 1\n", "M: line 2: bad path");
	bad(HEAD "0000002a 9 - - db/../x\nend 1\n", "M: line 2: bad path");
	bad(HEAD "0000002a 9 - - db//x\nend 1\n", "M: line 2: bad path");
	bad(HEAD "0000002a 9 - - db/\nend 1\n", "M: line 2: bad path");
	bad(HEAD "0000002a 9 - - ./x\nend 1\n", "M: line 2: bad path");
	bad(HEAD "0000002a 9 - - a\tb\nend 1\n", "M: line 2: bad path");
	bad(HEAD "0000002a 9 - - b\n0000002a 9 - - a\nend 2\n", "M: line 3: path out of order or repeated");
	bad(HEAD "0000002a 9 - - a\n0000002a 9 - - a\nend 2\n", "M: line 3: path out of order or repeated");
	bad(HEAD "0000002a 9 - - a\nend 2\n", "M: line 3: expected \"end 1\"");
	bad(HEAD "0000002a 9 - - a\nend x\n", "M: line 3: expected \"end 1\"");
	bad(HEAD "0000002a 9 - - a\nend 1\nmore\n", "M: line 4: text after the \"end\" line");
	bad(HEAD "-------- 9 - - a\nend 1\n", "M: line 2: a foreign entry is \"-------- - - - NAME\"");
	bad(HEAD "-------- - 1 - a\nend 1\n", "M: line 2: a foreign entry is");
	bad(HEAD "-------- - - - a/b\nend 1\n", "M: line 2: a foreign entry names a top-level entry");
}

/* The to_lsn of the header: written when known, read back, absent in older manifests. */
static void test_to_lsn(void)
{
	xb_manifest m, r;
	xb_manifest_init(&m);
	xb_manifest_put(&m, "a", 9, 42, XB_MANIFEST_NO_SPACE, 0);
	m.state = XB_MANIFEST_PREPARED;
	m.to_lsn = 18446744073709551615ULL;
	xb_text t = {0};
	xb_manifest_format(&m, &t);
	const char *want = "xtrabackup-manifest 1 prepared to_lsn=18446744073709551615\n0000002a 9 - - a\nend 1\n";
	CU_ASSERT(t.n == strlen(want) && !memcmp(t.s, want, t.n));
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(xb_manifest_parse("M", t.s, t.n, &r, &err), 0);
	CU_ASSERT(r.state == XB_MANIFEST_PREPARED && r.to_lsn == m.to_lsn && r.n == 1);
	xb_manifest_free(&r);
	const char *old = "xtrabackup-manifest 1 backup\nend 0\n";
	CU_ASSERT_EQUAL(xb_manifest_parse("M", old, strlen(old), &r, &err), 0);
	CU_ASSERT(r.state == XB_MANIFEST_BACKUP && r.to_lsn == 0);
	xb_manifest_free(&r);
	free(t.s);
	xb_manifest_free(&m);
}

static void test_names(void)
{
	/* neither restore puts the manifest in a datadir: ours leaves it behind,
	 * mariabackup's skips names ending in .pmap */
	CU_ASSERT(xb_metafile_stays_behind(XB_MANIFEST_FILE));
	size_t n = strlen(XB_MANIFEST_FILE);
	CU_ASSERT(n > 5 && !strcmp(XB_MANIFEST_FILE + n - 5, ".pmap"));
	/* what a prepare may write, create or remove */
	static const char *const writes[] = {"ibdata1", "undo001", "ib_logfile0", "db/t.ibd", "db/t.del", "db/t.ren",
					      "db/t.new", "ib_buffer_pool", "xtrabackup_buffer_pool_mru",
					      "xtrabackup_binlog_pos_innodb", "xtrabackup_checkpoints.xbtmp"};
	static const char *const never[] = {"db/t.frm", "db/m.MYD", "aria_log_control", "backup-my.cnf",
					    "xtrabackup_info", "db/ib_buffer_pool", "db/t.isl"};
	for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++)
		CU_ASSERT(verify_prepare_writes(writes[i]));
	for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
		CU_ASSERT(!verify_prepare_writes(never[i]));
}

static void test_truncated(void)
{
	/* cut anywhere before the last newline: refused; only that newline may go */
	size_t n = strlen(sample);
	for (size_t cut = 0; cut < n; cut++) {
		xb_manifest m;
		xb_error err;
		xb_err_clear(&err);
		int rc = xb_manifest_parse("M", sample, cut, &m, &err);
		if (cut == n - 1) {
			CU_ASSERT(rc == 0 && m.n == 3);
			xb_manifest_free(&m);
		} else if (rc != XB_E_BACKUP_DAMAGED) {
			fprintf(stderr, "\n  a manifest cut at %zu of %zu bytes was accepted\n", cut, n);
			CU_FAIL("cut manifest accepted");
			xb_manifest_free(&m);
		}
	}
}

/* A tablespace a prepare wrote: "pages" for its CRC, through a file and back. */
static void test_pages_entry(void)
{
	static const char text[] = "xtrabackup-manifest 1 prepared to_lsn=99\n"
				   "0000002a 9 - - backup-my.cnf\n"
				   "pages 1048576 5 64 db/t.ibd\n"
				   "pages 12582912 0 768 ibdata1\n"
				   "end 3\n";
	xb_manifest m;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_FATAL(xb_manifest_parse("M", text, strlen(text), &m, &err) == 0);
	CU_ASSERT_FATAL(m.n == 3);
	const xb_manifest_entry *e = xb_manifest_find(&m, "db/t.ibd");
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT(e->by_pages && e->crc == 0 && e->size == 1048576 && e->space_id == 5 && e->pages == 64);
	CU_ASSERT(!xb_manifest_find(&m, "backup-my.cnf")->by_pages);
	xb_text t = {0};
	xb_manifest_format(&m, &t);
	CU_ASSERT_STRING_EQUAL(t.s, text);
	xb_text_free(&t);
	xb_manifest_free(&m);
	/* put directly, and a later plain put of the same path replaces it */
	xb_manifest_init(&m);
	xb_manifest_put_pages(&m, "db/t.ibd", 16384, 5, 1);
	xb_manifest_put(&m, "db/t.ibd", 16384, 0xabcdef01u, 5, 1);
	xb_manifest_put_pages(&m, "undo001", 163840, 1, 10);
	xb_manifest_sort(&m);
	CU_ASSERT(m.n == 2);
	CU_ASSERT(!xb_manifest_find(&m, "db/t.ibd")->by_pages && xb_manifest_find(&m, "db/t.ibd")->crc == 0xabcdef01u);
	CU_ASSERT(xb_manifest_find(&m, "undo001")->by_pages);
	xb_manifest_free(&m);
}

int main(void)
{
	find_fixture_dir();
	(void)random_bytes;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("manifest", NULL, NULL);
	CU_add_test(s, "checksumming filter: real pages in uneven pieces", test_sum_real_pages);
	CU_add_test(s, "checksumming filter: aborted, short and empty files", test_sum_abort_and_short);
	CU_add_test(s, "manifest: exact bytes, a file written again", test_format_exact);
	CU_add_test(s, "manifest: round trip of real bytes, every state, through a file", test_round_trip);
	CU_add_test(s, "manifest: every malformed line", test_malformed);
	CU_add_test(s, "manifest: cut at every byte", test_truncated);
	CU_add_test(s, "manifest: the to_lsn of the header", test_to_lsn);
	CU_add_test(s, "manifest: \"pages\" entries of tablespaces a prepare wrote", test_pages_entry);
	CU_add_test(s, "names: the manifest stays behind, what a prepare writes", test_names);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
