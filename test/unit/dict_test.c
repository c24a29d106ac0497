/*
 * dict_test.c - the data dictionary reader (engine-hooks/innodb/dict.c) on
 * the system tablespace of a backup of a real 10.11 server, prepared by
 * mariabackup (test/fixtures/innodb/export, make-export-fixtures.sh).
 *
 * The oracle is what the same server reported in INFORMATION_SCHEMA
 * (dict.expect): every table with its id, flags, column count and space,
 * every column, index and index field. Then damaged input: a flipped byte in
 * a dictionary page, a dictionary header pointing at a wrong page, and a
 * truncated ibdata1 each give a clear error naming the page.
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/bytes.h"
#include "fixture.h"
#include "export_fixture.h"
#include "innodb/dict.h"
#include "innodb/page.h"

/* Read the dictionary of exp_dir. */
static int read_dict(dict *d, xb_error *err)
{
	xb_err_clear(err);
	return dict_read(exp_dir, NULL, d, err);
}

static const dict_index *index_by_id(const dict *d, uint64_t id, const dict_table **tab)
{
	for (size_t i = 0; i < d->n; i++)
		for (uint32_t x = 0; x < d->table[i].n_index; x++)
			if (d->table[i].index[x].id == id) {
				if (tab)
					*tab = &d->table[i];
				return &d->table[i].index[x];
			}
	return NULL;
}

static void test_matches_information_schema(void)
{
	CU_ASSERT_FATAL(exp_make(0, NULL));
	dict d;
	xb_error err;
	int rc = read_dict(&d, &err);
	if (rc)
		fprintf(stderr, "dict_read: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(d.page_size, 16384);
	size_t len;
	char *exp = (char *)exp_load("dict.expect", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(exp);
	size_t n_tables = 0, n_cols = 0, n_idx = 0, n_fields = 0, bad = 0;
	for (char *save = NULL, *line = strtok_r(exp, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[9] = {0};
		int k = 0;
		for (char *s2 = NULL, *t = strtok_r(line, "\t", &s2); t && k < 9; t = strtok_r(NULL, "\t", &s2))
			f[k++] = t;
		if (f[0][0] == 'T' && k == 6) {
			n_tables++;
			const dict_table *t = dict_find(&d, f[1]);
			if (!t || t->id != strtoull(f[2], NULL, 10) || t->flags != strtoul(f[3], NULL, 10) ||
			    t->n_cols + 3 != strtoul(f[4], NULL, 10) || t->space != strtoul(f[5], NULL, 10)) {
				fprintf(stderr, "table %s: id/flags/n_cols/space differ\n", f[1]);
				bad++;
			}
		} else if (f[0][0] == 'C' && k == 7) {
			n_cols++;
			const dict_table *t = dict_find(&d, f[1]);
			const dict_col *c = NULL;
			for (uint32_t i = 0; t && i < t->n_col; i++)
				if (t->col[i].pos == strtoul(f[2], NULL, 10))
					c = &t->col[i];
			if (!c || strcmp(c->name, f[3]) || c->mtype != strtoul(f[4], NULL, 10) ||
			    c->prtype != strtoul(f[5], NULL, 10) || c->len != strtoul(f[6], NULL, 10)) {
				fprintf(stderr, "column %s.%s differs\n", f[1], f[3]);
				bad++;
			}
		} else if (f[0][0] == 'I' && k == 8) {
			n_idx++;
			const dict_table *t = NULL;
			const dict_index *x = index_by_id(&d, strtoull(f[2], NULL, 10), &t);
			if (!x || strcmp(t->name, f[1]) || strcmp(x->name, f[3]) || x->type != strtoul(f[4], NULL, 10) ||
			    x->n_fields != strtoul(f[5], NULL, 10) || x->page != strtoul(f[6], NULL, 10) ||
			    x->space != strtoul(f[7], NULL, 10)) {
				fprintf(stderr, "index %s of %s differs\n", f[3], f[1]);
				bad++;
			}
		} else if (f[0][0] == 'F' && k == 4) {
			n_fields++;
			const dict_index *x = index_by_id(&d, strtoull(f[1], NULL, 10), NULL);
			uint32_t pos = strtoul(f[2], NULL, 10);
			if (!x || pos >= x->n_field || strcmp(x->field[pos].col_name, f[3])) {
				fprintf(stderr, "field %s of index %s differs\n", f[3], f[1]);
				bad++;
			}
		} else {
			fprintf(stderr, "dict.expect: bad line %s\n", line);
			bad++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* exactly those tables, columns, indexes and fields */
	size_t cols = 0, idx = 0, flds = 0;
	for (size_t i = 0; i < d.n; i++) {
		cols += d.table[i].n_col;
		idx += d.table[i].n_index;
		for (uint32_t x = 0; x < d.table[i].n_index; x++)
			flds += d.table[i].index[x].n_field;
	}
	CU_ASSERT_EQUAL(d.n, n_tables);
	CU_ASSERT_EQUAL(cols, n_cols);
	CU_ASSERT_EQUAL(idx, n_idx);
	CU_ASSERT_EQUAL(flds, n_fields);
	CU_ASSERT(n_tables >= 12);
	/* a few facts spelled out: the partition's name, the table without a primary key, prefixes, DESC */
	const dict_table *p = dict_find(&d, "d/t_part#P#p1");
	CU_ASSERT_PTR_NOT_NULL(p);
	const dict_table *np = dict_find(&d, "d/t_nopk");
	CU_ASSERT_FATAL(np && np->n_index == 2);
	CU_ASSERT_STRING_EQUAL(np->index[0].name, "GEN_CLUST_INDEX");
	CU_ASSERT_EQUAL(np->index[0].n_fields, 0);
	const dict_table *ty = dict_find(&d, "d/t_types");
	CU_ASSERT_FATAL(ty && ty->n_index == 4);
	CU_ASSERT_EQUAL(ty->index[2].field[0].prefix_len, 20); /* k_tx (tx(20)) */
	CU_ASSERT(ty->index[3].field[0].descending);           /* k_desc (n DESC, ch) */
	CU_ASSERT(!ty->index[3].field[1].descending);
	CU_ASSERT_EQUAL(ty->flags, 33);
	const dict_table *v = dict_find(&d, "d/t_virt");
	CU_ASSERT_FATAL(v != NULL);
	CU_ASSERT_EQUAL(v->n_cols, 3);
	CU_ASSERT_EQUAL(v->n_v_cols, 1);
	CU_ASSERT_EQUAL(dict_col_index(v, "s"), 2);
	CU_ASSERT_EQUAL(dict_col_index(v, "v"), -1);
	free(exp);
	dict_free(&d);
	exp_remove();
}

/* The page number the dictionary header gives for SYS_COLUMNS' root. */
static uint32_t columns_root(const uint8_t *ib)
{
	return be32_get(ib + 7 * 16384 + 38 + 40);
}

static void test_damaged_page(void)
{
	CU_ASSERT_FATAL(exp_make(0, NULL));
	size_t len;
	uint8_t *ib = exp_load("ibdata1.zst", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ib);
	uint32_t root = columns_root(ib);
	ib[(size_t)root * 16384 + 200] ^= 0x40; /* a byte of a record */
	CU_ASSERT_FATAL(exp_put("ibdata1", ib, len));
	dict d;
	xb_error err;
	CU_ASSERT_EQUAL(read_dict(&d, &err), XB_E_CORRUPT_PAGE);
	char want[64];
	snprintf(want, sizeof want, "dictionary page %u is damaged", root);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ibdata1"));
	CU_ASSERT(err.hint[0] != 0);
	CU_ASSERT_EQUAL(d.n, 0);
	free(ib);
	exp_remove();
}

/* exp_dir/ibdata1 := ib, page_no of it given its checksum as the server
 * writes it (a change that a checksum does not catch). */
static void put_rechecked(uint8_t *ib, size_t len, uint32_t page_no)
{
	innodb_space_info si;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(innodb_page0_parse(ib, len, &si, &err), 0);
	innodb_page_prepare_write(ib + (size_t)page_no * 16384, &si, 0, page_no);
	CU_ASSERT_FATAL(exp_put("ibdata1", ib, len));
}

/* As put_rechecked(), writing only that page in place. */
static void patch_page(uint8_t *ib, size_t len, uint32_t page_no)
{
	innodb_space_info si;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(innodb_page0_parse(ib, len, &si, &err), 0);
	uint8_t *pg = ib + (size_t)page_no * 16384;
	innodb_page_prepare_write(pg, &si, 0, page_no);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/ibdata1", exp_dir);
	FILE *f = fopen(path, "r+b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT(fseek(f, (long)page_no * 16384, SEEK_SET) == 0 && fwrite(pg, 1, 16384, f) == 16384);
	fclose(f);
}

static void test_wrong_root(void)
{
	/* the header points SYS_COLUMNS at SYS_TABLES' root: a valid page of another index */
	CU_ASSERT_FATAL(exp_make(0, NULL));
	size_t len;
	uint8_t *ib = exp_load("ibdata1.zst", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ib);
	uint8_t *hdr = ib + 7 * 16384;
	be32_put(hdr + 38 + 40, be32_get(hdr + 38 + 32));
	put_rechecked(ib, len, 7);
	xb_error err;
	dict d;
	CU_ASSERT_EQUAL(read_dict(&d, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is not a page of the SYS_COLUMNS index"));
	free(ib);
	exp_remove();
}

static void test_loop(void)
{
	/* SYS_COLUMNS' leaf level links back to the page itself */
	CU_ASSERT_FATAL(exp_make(0, NULL));
	size_t len;
	uint8_t *ib = exp_load("ibdata1.zst", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ib);
	uint32_t root = columns_root(ib);
	uint8_t *pg = ib + (size_t)root * 16384;
	CU_ASSERT_EQUAL_FATAL(be16_get(pg + 38 + 26), 0); /* the root is the only leaf */
	be32_put(pg + 12, root);
	put_rechecked(ib, len, root);
	xb_error err;
	dict d;
	CU_ASSERT_EQUAL(read_dict(&d, &err), XB_E_CORRUPT_PAGE);
	char want[64];
	snprintf(want, sizeof want, "the SYS_COLUMNS B-tree loops back to page %u", root);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	free(ib);
	exp_remove();
}

static void test_mutated_records(void)
{
	/* bytes of SYS_COLUMNS' records changed, the page's checksum made
	 * right: the dictionary reads or the error names the damage; never a
	 * crash or a hang (run under ASan) */
	CU_ASSERT_FATAL(exp_make(0, NULL));
	size_t len;
	uint8_t *ib = exp_load("ibdata1.zst", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ib);
	uint32_t root = columns_root(ib);
	uint8_t *pg = ib + (size_t)root * 16384;
	uint32_t top = be16_get(pg + 38 + 2); /* PAGE_HEAP_TOP: the end of the records */
	CU_ASSERT_FATAL(top > 120 && top < 16384);
	uint8_t *orig = malloc(16384);
	memcpy(orig, pg, 16384);
	int bad = 0, read_ok = 0, refused = 0;
	for (uint32_t off = 94; off < top; off += 5) {
		pg[off] ^= 0x5A;
		patch_page(ib, len, root);
		dict d;
		xb_error err;
		int rc = read_dict(&d, &err);
		if (rc == 0) {
			read_ok++;
			dict_free(&d);
		} else if (rc == XB_E_CORRUPT_PAGE && strstr(err.msg, "ibdata1")) {
			refused++;
		} else {
			fprintf(stderr, "offset %u: %d %s\n", off, rc, err.msg);
			bad++;
		}
		memcpy(pg, orig, 16384);
	}
	patch_page(ib, len, root);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(refused > 0);
	free(orig);
	free(ib);
	exp_remove();
}

static void test_two_files(void)
{
	/* the same system tablespace in two files, split after 9 pages: the
	 * dictionary header (page 7) and SYS_TABLES' root (8) in ibdata1, the
	 * other roots (10..12) in ibdata2 */
	dict one, two;
	xb_error err;
	CU_ASSERT_FATAL(exp_make(0, NULL));
	CU_ASSERT_EQUAL_FATAL(read_dict(&one, &err), 0);
	exp_remove();
	CU_ASSERT_FATAL(exp_make(0, NULL));
	size_t len;
	uint8_t *ib = exp_load("ibdata1.zst", &len);
	CU_ASSERT_FATAL(ib && len > 9 * 16384);
	CU_ASSERT(columns_root(ib) >= 9);
	CU_ASSERT_FATAL(exp_put("ibdata1", ib, 9 * 16384));
	CU_ASSERT_FATAL(exp_put("ibdata2", ib + 9 * 16384, len - 9 * 16384));
	xb_err_clear(&err);
	int rc = dict_read(exp_dir, "ibdata1:144K;ibdata2:12M:autoextend", &two, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(one.n, two.n);
	size_t same = 0;
	for (size_t i = 0; i < one.n && i < two.n; i++)
		same += strcmp(one.table[i].name, two.table[i].name) == 0 && one.table[i].n_col == two.table[i].n_col &&
			one.table[i].n_index == two.table[i].n_index;
	CU_ASSERT_EQUAL(same, one.n);
	dict_free(&two);
	/* without ibdata2 the pages past the first file are missing */
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/ibdata2", exp_dir);
	CU_ASSERT_FATAL(unlink(path) == 0);
	CU_ASSERT_NOT_EQUAL(dict_read(exp_dir, "ibdata1:144K;ibdata2:12M:autoextend", &two, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ibdata2"));
	dict_free(&one);
	free(ib);
	exp_remove();
}

static void test_truncated(void)
{
	/* the dictionary header (page 7) is there, the B-trees are cut off */
	size_t len;
	uint8_t *ib = exp_load("ibdata1.zst", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ib);
	uint32_t root = columns_root(ib);
	free(ib);
	CU_ASSERT_FATAL(exp_make((size_t)root * 16384, NULL));
	dict d;
	xb_error err;
	CU_ASSERT_NOT_EQUAL(read_dict(&d, &err), 0);
	if (!strstr(err.msg, "beyond the end"))
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "beyond the end"));
	exp_remove();
	/* so short that page 0 is not whole: the inventory refuses it */
	CU_ASSERT_FATAL(exp_make(1000, NULL));
	CU_ASSERT_NOT_EQUAL(read_dict(&d, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ibdata1"));
	exp_remove();
}

static void test_charsets(void)
{
	uint32_t mn, mx;
	CU_ASSERT(dict_charset_width(8, &mn, &mx) && mn == 1 && mx == 1);     /* latin1 */
	CU_ASSERT(dict_charset_width(33, &mn, &mx) && mn == 1 && mx == 3);    /* utf8mb3 */
	CU_ASSERT(dict_charset_width(45, &mn, &mx) && mn == 1 && mx == 4);    /* utf8mb4 */
	CU_ASSERT(dict_charset_width(35, &mn, &mx) && mn == 2 && mx == 2);    /* ucs2 */
	CU_ASSERT(dict_charset_width(60, &mn, &mx) && mn == 4 && mx == 4);    /* utf32 */
	CU_ASSERT(dict_charset_width(63, &mn, &mx) && mn == 1 && mx == 1);    /* binary */
	CU_ASSERT(!dict_charset_width(17, &mn, &mx));
	CU_ASSERT(!dict_charset_width(5000, &mn, &mx));
}

int main(void)
{
	find_fixture_dir();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("dict", NULL, NULL);
	CU_add_test(s, "the dictionary equals INFORMATION_SCHEMA's", test_matches_information_schema);
	CU_add_test(s, "a damaged dictionary page", test_damaged_page);
	CU_add_test(s, "a root that is another index's", test_wrong_root);
	CU_add_test(s, "a leaf level that loops", test_loop);
	CU_add_test(s, "changed record bytes", test_mutated_records);
	CU_add_test(s, "a system tablespace in two files", test_two_files);
	CU_add_test(s, "a truncated ibdata1", test_truncated);
	CU_add_test(s, "character set widths", test_charsets);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned f = CU_get_number_of_failures();
	CU_cleanup_registry();
	return f ? 1 : 0;
}
