/*
 * deltas_test.c - an incremental's deltas planned and applied to a backup
 * directory (engine-hooks/innodb/recovery/deltas.h), on real pages (the
 * captured tablespace t_full.pages of test/fixtures/innodb, its page 0
 * given the space ids a case needs): the plan after the incremental's
 * .del, .ren (a swap included), .new.delta and .new files; the apply's
 * matching by space id (a file renamed back, a different space at the name
 * moved aside, a space the target lacks created), pages written at
 * page_no * page_size, page 0 extending the file to FSP_SIZE, tables the
 * incremental lacks deleted; and a second apply giving the same bytes.
 * And the staged copy of a non-InnoDB file: a target with the same bytes
 * kept, any other replaced only by the commit.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bytes.h"
#include "innodb/delta.h"
#include "innodb/page.h"
#include "innodb/recovery/deltas.h"

#include "fixture.h"

#define PS 16384u

static uint8_t *pages;  /* real pages */
static size_t npages;
static char top[128];   /* the test's temporary directory */

static void put_file(const char *rel, const void *b, size_t n)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", top, rel);
	char *slash = strrchr(p, '/');
	*slash = 0;
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
	CU_ASSERT_FATAL(system(cmd) == 0);
	*slash = '/';
	FILE *f = fopen(p, "wb");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(n == 0 || fwrite(b, 1, n, f) == n);
	fclose(f);
}

static uint8_t *get_file(const char *rel, size_t *n)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", top, rel);
	FILE *f = fopen(p, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(*n ? *n : 1);
	CU_ASSERT_FATAL(fread(b, 1, *n, f) == *n);
	fclose(f);
	return b;
}

static bool exists(const char *rel)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", top, rel);
	return access(p, F_OK) == 0;
}

/* The fixture's pages as a tablespace of space id (page 0 rewritten and checksummed). */
static uint8_t *space_pages(uint32_t id)
{
	uint8_t *b = malloc(npages * PS);
	memcpy(b, pages, npages * PS);
	innodb_space_info si;
	CU_ASSERT_FATAL(innodb_page0_parse(b, PS, &si, NULL) == 0);
	be32_put(b + FIL_PAGE_SPACE_ID, id);
	be32_put(b + 38, id); /* FSP_SPACE_ID */
	innodb_page_prepare_write(b, &si, id, 0);
	return b;
}

typedef struct membuf {
	uint8_t *b;
	size_t n;
} membuf;

static int emit(void *ctx, const uint8_t *buf, size_t len, xb_error *err)
{
	membuf *m = ctx;
	m->b = realloc(m->b, m->n + len);
	memcpy(m->b + m->n, buf, len);
	m->n += len;
	return 0;
}

/* INC/rel (".delta") and its .meta (meta_rel) holding the given pages of sp. */
static void put_delta(const char *rel, const char *meta_rel, uint32_t id, const uint8_t *sp, const uint32_t *nos,
		      int n)
{
	membuf m = {0};
	innodb_delta_writer *w = innodb_delta_writer_new(PS, emit, &m, NULL);
	CU_ASSERT_FATAL(w != NULL);
	for (int i = 0; i < n; i++)
		CU_ASSERT_FATAL(innodb_delta_writer_add(w, nos[i], sp + (size_t)nos[i] * PS, NULL) == 0);
	CU_ASSERT_FATAL(innodb_delta_writer_finish(w, NULL) == 0);
	innodb_delta_writer_free(w);
	put_file(rel, m.b, m.n);
	free(m.b);
	innodb_delta_meta meta = {.page_size = PS, .zip_size = 0, .space_id = id};
	char text[INNODB_DELTA_META_MAX];
	size_t tl = innodb_delta_meta_format(&meta, text, sizeof text);
	put_file(meta_rel, text, tl);
}

static void fresh_dir(const char *name)
{
	char cmd[600];
	snprintf(top, sizeof top, "/tmp/deltas_test.%d.%s", (int)getpid(), name);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/inc' '%s/tgt'", top, top, top);
	CU_ASSERT_FATAL(system(cmd) == 0);
}

static void remove_dir(void)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	CU_ASSERT(system(cmd) == 0);
}

static const deltas_item *must(const deltas_plan *p, const char *name)
{
	const deltas_item *it = deltas_plan_find(p, name);
	CU_ASSERT(it != NULL);
	if (!it)
		fprintf(stderr, "no plan entry %s\n", name);
	return it;
}

static void test_plan(void)
{
	fresh_dir("plan");
	uint8_t *sp = space_pages(20);
	uint32_t nos[] = {0, 2};
	put_delta("inc/ibdata1.delta", "inc/ibdata1.meta", 0, sp, nos, 2);
	put_delta("inc/db/a.ibd.delta", "inc/db/a.ibd.meta", 20, sp, nos, 2);
	put_delta("inc/db/b.ibd.delta", "inc/db/b.ibd.meta", 21, sp, nos, 2);
	put_file("inc/db/b.del", "", 0);
	put_delta("inc/db/p.ibd.delta", "inc/db/p.ibd.meta", 30, sp, nos, 1);
	put_delta("inc/db/q.ibd.delta", "inc/db/q.ibd.meta", 31, sp, nos, 1);
	put_file("inc/db/p.ren", "db/q", 4);
	put_file("inc/db/q.ren", "db/p", 4);
	put_delta("inc/db/x.new.delta", "inc/db/x.new.meta", 40, sp, nos, 2);
	put_delta("inc/db/y.ibd.delta", "inc/db/y.ibd.meta", 50, sp, nos, 2);
	put_file("inc/db/y.new", sp, 4 * PS);
	put_file("inc/db/a.frm", "frm", 3);
	char inc[300];
	snprintf(inc, sizeof inc, "%s/inc", top);
	deltas_plan p;
	xb_error err;
	CU_ASSERT_FATAL(deltas_plan_build(inc, &p, &err) == 0);
	CU_ASSERT_EQUAL(p.n, 6); /* ibdata1, a, p, q, x, y */
	CU_ASSERT_PTR_NULL(deltas_plan_find(&p, "db/b.ibd"));
	const deltas_item *it = must(&p, "ibdata1");
	if (it)
		CU_ASSERT_EQUAL(it->meta.space_id, 0);
	if ((it = must(&p, "db/a.ibd")))
		CU_ASSERT(!it->whole && it->meta.space_id == 20);
	if ((it = must(&p, "db/p.ibd"))) /* the swap: p's name holds q's delta */
		CU_ASSERT(it->meta.space_id == 31 && strstr(it->src, "db/q.ibd.delta"));
	if ((it = must(&p, "db/q.ibd")))
		CU_ASSERT(it->meta.space_id == 30 && strstr(it->src, "db/p.ibd.delta"));
	if ((it = must(&p, "db/x.ibd")))
		CU_ASSERT(it->meta.space_id == 40 && strstr(it->src, "db/x.new.delta"));
	if ((it = must(&p, "db/y.ibd")))
		CU_ASSERT(it->whole && strstr(it->src, "db/y.new"));
	CU_ASSERT_EQUAL(p.markers, 5);
	deltas_plan_free(&p);
	/* a delta without its .meta */
	char meta[400];
	snprintf(meta, sizeof meta, "%s/inc/db/a.ibd.meta", top);
	CU_ASSERT(unlink(meta) == 0);
	CU_ASSERT(deltas_plan_build(inc, &p, &err) != 0);
	CU_ASSERT(strstr(err.msg, "a.ibd.meta") != NULL);
	free(sp);
	remove_dir();
}

static void test_apply(void)
{
	fresh_dir("apply");
	uint8_t *s20 = space_pages(20), *s21 = space_pages(21), *s22 = space_pages(22);
	uint32_t fsp = be32_get(s20 + FSP_SIZE);
	CU_ASSERT_FATAL(fsp > 4); /* 9 pages, 6 of them captured */
	/* the target: space 20 under another name (renamed since), space 21 at
	 * the name a delta of space 23 uses (moved aside), a dropped table */
	put_file("tgt/db/old_name.ibd", s20, 3 * PS);
	put_file("tgt/db/c.ibd", s21, 4 * PS);
	put_file("tgt/db/dropped.ibd", s22, 4 * PS);
	put_file("tgt/db/c.frm", "frm", 3);
	/* the incremental: pages 0 and 3 of space 20 (page 3 changed), space 23 at db/c.ibd */
	uint8_t *mod = malloc(npages * PS);
	memcpy(mod, s20, npages * PS);
	memset(mod + 3 * PS + 100, 0x5a, 64);
	uint32_t n20[] = {0, 3};
	put_delta("inc/db/a.ibd.delta", "inc/db/a.ibd.meta", 20, mod, n20, 2);
	uint8_t *s23 = space_pages(23);
	uint32_t n23[] = {0, 1};
	put_delta("inc/db/c.ibd.delta", "inc/db/c.ibd.meta", 23, s23, n23, 2);
	char inc[300], tgt[300];
	snprintf(inc, sizeof inc, "%s/inc", top);
	snprintf(tgt, sizeof tgt, "%s/tgt", top);
	deltas_plan p;
	xb_error err;
	CU_ASSERT_FATAL(deltas_plan_build(inc, &p, &err) == 0);
	deltas_stats st;
	int rc = deltas_apply(&p, tgt, NULL, 2, NULL, &st, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_FATAL(rc == 0);
	CU_ASSERT_EQUAL(st.files, 2);
	CU_ASSERT_EQUAL(st.pages, 4);
	CU_ASSERT_EQUAL(st.renamed, 1);
	CU_ASSERT_EQUAL(st.moved_aside, 1);
	CU_ASSERT_EQUAL(st.created, 1);
	CU_ASSERT_EQUAL(st.deleted, 2); /* db/dropped.ibd and the file moved aside */
	CU_ASSERT(!exists("tgt/db/old_name.ibd") && !exists("tgt/db/dropped.ibd"));
	CU_ASSERT(!exists("tgt/db/xtrabackup_tmp_#21.ibd"));
	CU_ASSERT(exists("tgt/db/c.frm")); /* not InnoDB's: left to the caller */
	size_t n;
	uint8_t *a = get_file("tgt/db/a.ibd", &n);
	CU_ASSERT_FATAL(a != NULL);
	CU_ASSERT_EQUAL(n, (size_t)fsp * PS); /* page 0's FSP_SIZE */
	CU_ASSERT(memcmp(a, mod, PS) == 0);
	CU_ASSERT(memcmp(a + 3 * PS, mod + 3 * PS, PS) == 0);
	CU_ASSERT(memcmp(a + 2 * PS, s20 + 2 * PS, PS) == 0); /* as the target had it */
	uint8_t *c = get_file("tgt/db/c.ibd", &n);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL(n, (size_t)fsp * PS);
	CU_ASSERT(memcmp(c, s23, 2 * PS) == 0);
	/* applied again: the same bytes */
	CU_ASSERT_FATAL(deltas_apply(&p, tgt, NULL, 2, NULL, &st, &err) == 0);
	CU_ASSERT(st.renamed == 0 && st.created == 0 && st.moved_aside == 0 && st.deleted == 0);
	uint8_t *a2 = get_file("tgt/db/a.ibd", &n);
	CU_ASSERT(a2 && n == (size_t)fsp * PS && memcmp(a, a2, n) == 0);
	/* the incremental is left as it was */
	CU_ASSERT(exists("inc/db/a.ibd.delta") && exists("inc/db/c.ibd.meta"));
	deltas_plan_free(&p);
	free(a), free(a2), free(c), free(mod), free(s20), free(s21), free(s22), free(s23);
	remove_dir();
}

static void test_system_by_name(void)
{
	fresh_dir("sys");
	uint8_t *s20 = space_pages(20);
	uint32_t n20[] = {3};
	put_delta("inc/undo001.delta", "inc/undo001.meta", 1, s20, n20, 1);
	char inc[300], tgt[300];
	snprintf(inc, sizeof inc, "%s/inc", top);
	snprintf(tgt, sizeof tgt, "%s/tgt", top);
	deltas_plan p;
	xb_error err;
	CU_ASSERT_FATAL(deltas_plan_build(inc, &p, &err) == 0);
	deltas_stats st;
	/* the target has no undo001: refused, naming it */
	CU_ASSERT(deltas_apply(&p, tgt, NULL, 2, NULL, &st, &err) == XB_E_MISSING_FILE);
	CU_ASSERT(strstr(err.msg, "undo001") != NULL);
	deltas_plan_free(&p);
	free(s20);
	remove_dir();
}

/* Two deltas of one space id: refused as damaged before any page is written;
 * runs of consecutive pages written whole. */
static void test_same_space_twice(void)
{
	fresh_dir("twice");
	uint8_t *s30 = space_pages(30);
	put_file("tgt/db/z.ibd", s30, 3 * PS);
	uint32_t nos[] = {0, 1, 2, 3, 4};
	put_delta("inc/db/x.ibd.delta", "inc/db/x.ibd.meta", 30, s30, nos, 5);
	put_delta("inc/db/y.ibd.delta", "inc/db/y.ibd.meta", 30, s30, nos, 1);
	char inc[300], tgt[300];
	snprintf(inc, sizeof inc, "%s/inc", top);
	snprintf(tgt, sizeof tgt, "%s/tgt", top);
	deltas_plan p;
	xb_error err;
	deltas_stats st;
	CU_ASSERT_FATAL(deltas_plan_build(inc, &p, &err) == 0);
	CU_ASSERT(deltas_apply(&p, tgt, NULL, 2, NULL, &st, &err) == XB_E_BACKUP_DAMAGED);
	CU_ASSERT(strstr(err.msg, "y.ibd.delta") != NULL && strstr(err.msg, "space 30") != NULL);
	CU_ASSERT_EQUAL(st.pages, 0);
	deltas_plan_free(&p);
	/* the second delta gone: x gets pages 0-4 (a run), from z renamed */
	char y[600];
	snprintf(y, sizeof y, "%s/inc/db/y.ibd.delta", top);
	CU_ASSERT_FATAL(unlink(y) == 0);
	snprintf(y, sizeof y, "%s/inc/db/y.ibd.meta", top);
	CU_ASSERT_FATAL(unlink(y) == 0);
	CU_ASSERT_FATAL(deltas_plan_build(inc, &p, &err) == 0);
	CU_ASSERT_FATAL(deltas_apply(&p, tgt, NULL, 2, NULL, &st, &err) == 0);
	CU_ASSERT_EQUAL(st.pages, 5);
	CU_ASSERT_EQUAL(st.files, 1);
	size_t n;
	uint8_t *b = get_file("tgt/db/x.ibd", &n);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT(n >= 5 * PS && !memcmp(b, s30, 5 * PS));
	free(b);
	deltas_plan_free(&p);
	free(s30);
	remove_dir();
}

static ino_t inode(const char *rel)
{
	char p[1024];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", top, rel);
	return stat(p, &st) ? 0 : st.st_ino;
}

/* A staged copy keeps a target with the same bytes, writes NAME.xbtmp for
 * any other (one byte apart, shorter, missing), which the commit fsyncs and
 * renames over NAME. */
static void test_copy_stage(void)
{
	fresh_dir("copy");
	size_t n = 3 * PS, got;
	uint8_t *other = malloc(n);
	memcpy(other, pages, n);
	other[n - 1] ^= 1;
	struct {
		const char *name;
		const uint8_t *tgt;   /* the target's bytes (NULL: no file) */
		size_t tn;
		bool keep;            /* keep_same */
		bool same;            /* expected */
	} cases[] = {
		{"t1.frm", pages, n, true, true},
		{"t2.frm", other, n, true, false},
		{"t3.frm", pages, n - 1, true, false},
		{"t4.frm", NULL, 0, true, false},
		{"t5.frm", pages, n, false, false},
		{"t6.frm", pages, 0, true, false},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char rel[64], src[1024], dst[1024], tmp[80];
		snprintf(rel, sizeof rel, "inc/db/%s", cases[c].name);
		put_file(rel, pages, n);
		snprintf(src, sizeof src, "%s/%s", top, rel);
		snprintf(rel, sizeof rel, "tgt/db/%s", cases[c].name);
		snprintf(tmp, sizeof tmp, "%s.xbtmp", rel);
		snprintf(dst, sizeof dst, "%s/%s", top, rel);
		if (cases[c].tgt)
			put_file(rel, cases[c].tgt, cases[c].tn);
		ino_t before = inode(rel);
		bool same = !cases[c].same;
		uint64_t bytes = 0;
		xb_error err = {0};
		CU_ASSERT_FATAL(deltas_copy_stage(src, dst, cases[c].keep, &same, &bytes, &err) == 0);
		CU_ASSERT_EQUAL(same, cases[c].same);
		CU_ASSERT_EQUAL(bytes, same ? 0 : n);
		CU_ASSERT_EQUAL(exists(tmp), !same);
		if (same) {
			CU_ASSERT_EQUAL(inode(rel), before); /* not rewritten */
		} else {
			CU_ASSERT_EQUAL(inode(rel), before); /* not replaced before the commit */
			CU_ASSERT_FATAL(deltas_copy_commit(dst, &err) == 0);
			CU_ASSERT(!exists(tmp));
		}
		uint8_t *b = get_file(rel, &got);
		CU_ASSERT_FATAL(b != NULL);
		CU_ASSERT(got == n && !memcmp(b, pages, n));
		free(b);
	}
	/* a stage abandoned: its .xbtmp removed, the target as it was */
	{
		char src[1024], dst[1024];
		bool same = true;
		uint64_t bytes = 0;
		xb_error e = {0};
		put_file("tgt/db/ab.frm", other, n);
		snprintf(src, sizeof src, "%s/inc/db/t1.frm", top);
		snprintf(dst, sizeof dst, "%s/tgt/db/ab.frm", top);
		CU_ASSERT_FATAL(deltas_copy_stage(src, dst, true, &same, &bytes, &e) == 0);
		CU_ASSERT(!same && exists("tgt/db/ab.frm.xbtmp"));
		deltas_copy_abort(dst);
		CU_ASSERT(!exists("tgt/db/ab.frm.xbtmp"));
		uint8_t *b = get_file("tgt/db/ab.frm", &got);
		CU_ASSERT(b && got == n && !memcmp(b, other, n));
		free(b);
	}
	/* a commit without a staged file: refused, naming it */
	char dst[1024];
	xb_error err = {0};
	snprintf(dst, sizeof dst, "%s/tgt/db/none.frm", top);
	CU_ASSERT(deltas_copy_commit(dst, &err) == XB_E_IO_WRITE);
	CU_ASSERT(strstr(err.msg, "none.frm.xbtmp") != NULL);
	free(other);
	remove_dir();
}

int main(void)
{
	find_fixture_dir();
	size_t len;
	pages = load("t_full.pages", &len);
	if (!pages || len < PS)
		return 1;
	npages = len / PS;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("deltas", NULL, NULL);
	CU_add_test(s, "the plan after the incremental's markers", test_plan);
	CU_add_test(s, "apply: by space id, created, moved aside, deleted, repeated", test_apply);
	CU_add_test(s, "the system and undo files by name", test_system_by_name);
	CU_add_test(s, "two deltas of one space refused; a run of pages", test_same_space_twice);
	CU_add_test(s, "copies staged: identical targets kept, others committed", test_copy_stage);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	free(pages);
	return failed ? 1 : 0;
}
