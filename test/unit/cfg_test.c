/*
 * cfg_test.c - the .cfg writer and reader (engine-hooks/innodb/cfg.c) against
 * the .cfg files a real 10.11 server wrote with FLUSH TABLES ... FOR EXPORT
 * (test/fixtures/innodb/export, make-export-fixtures.sh).
 *
 * The server's files parse and encode back to the same bytes; the .cfg made
 * from the dictionary of a mariabackup-prepared backup of that server and the
 * tables' page 0 equals the server's field by field for every table (the
 * hostname aside: it is the writer's; the AUTO_INCREMENT value is the one the
 * root page persists plus 1, as the server computes it); every truncation of
 * a .cfg and bad versions, lengths and trailing bytes give a clear error.
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
#include "innodb/cfg.h"
#include "innodb/dict.h"
#include "innodb/page.h"

static const char *const tables[] = {"t_types", "t_cpk", "t_nopk", "t_red", "t_compact", "t_zip", "t_pc",
				     "t_part#P#p0", "t_part#P#p1", "t_add", "t_drop", "t_virt", "t_drop_vpk",
				     "t_drop_red", NULL};

static void test_server_files_round_trip(void)
{
	for (int i = 0; tables[i]; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s.cfg", tables[i]);
		size_t len;
		uint8_t *b = exp_load(name, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		cfg c;
		xb_error err;
		int rc = cfg_decode(b, len, name, &c, &err);
		if (rc)
			fprintf(stderr, "%s\n", err.msg);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		char want[80];
		snprintf(want, sizeof want, "d/%s", tables[i]);
		CU_ASSERT_STRING_EQUAL(c.table_name, want);
		CU_ASSERT_EQUAL(c.version, CFG_VERSION_V1);
		CU_ASSERT_EQUAL(c.page_size, 16384);
		uint8_t *out;
		size_t olen;
		CU_ASSERT_EQUAL_FATAL(cfg_encode(&c, &out, &olen, &err), 0);
		CU_ASSERT_EQUAL(olen, len);
		CU_ASSERT(olen == len && memcmp(out, b, len) == 0);
		free(out);
		cfg_free(&c);
		free(b);
	}
}

/* Our .cfg of table name (the backup in exp_dir, its dictionary d). */
static int make_ours(const dict *d, const char *table, cfg *out, xb_error *err)
{
	char full[80], pages[80];
	snprintf(full, sizeof full, "d/%s", table);
	snprintf(pages, sizeof pages, "%s.pages", table);
	const dict_table *t = dict_find(d, full);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	size_t len;
	uint8_t *p = exp_load(pages, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	innodb_space_info si;
	CU_ASSERT_EQUAL_FATAL(innodb_page0_parse(p, len, &si, err), 0);
	/* the clustered index root (page 3 here), in its logical form */
	uint64_t autoinc = 0;
	if (!si.zip) {
		CU_ASSERT_EQUAL(t->index[0].page, 3);
		autoinc = cfg_autoinc(p + 3 * si.physical_size, strcmp(table, "t_types") == 0);
	}
	char ibd[PATH_MAX];
	snprintf(ibd, sizeof ibd, "%s/d/%s.ibd", exp_dir, table);
	dict_instant inst;
	int rc = dict_instant_read_file(t, ibd, &inst, err);
	if (!rc)
		rc = cfg_from_table(t, &inst, d->page_size, &si, "writer", autoinc, out, err);
	if (!rc && strcmp(table, "t_drop") == 0)
		CU_ASSERT_EQUAL(inst.n, 3); /* a, the dropped gone, z */
	if (!rc && (strcmp(table, "t_drop_vpk") == 0 || strcmp(table, "t_drop_red") == 0))
		CU_ASSERT_EQUAL(inst.n, strcmp(table, "t_drop_red") == 0 ? 3 : 4);
	if (!rc && strcmp(table, "t_add") == 0)
		CU_ASSERT_EQUAL(inst.n, 0); /* added at the end: the plain order */
	dict_instant_free(&inst);
	free(p);
	return rc;
}

static void test_ours_equals_the_servers(void)
{
	CU_ASSERT_FATAL(exp_make(0, tables));
	dict d;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(dict_read(exp_dir, NULL, &d, &err), 0);
	int differ = 0;
	for (int i = 0; tables[i]; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s.cfg", tables[i]);
		size_t len;
		uint8_t *b = exp_load(name, &len);
		cfg srv, ours;
		CU_ASSERT_EQUAL_FATAL(cfg_decode(b, len, name, &srv, &err), 0);
		int rc = make_ours(&d, tables[i], &ours, &err);
		if (rc) {
			fprintf(stderr, "%s: %s\n", tables[i], err.msg);
			differ++;
		} else {
			char diff[512];
			/* the server records its live AUTO_INCREMENT counter, which
			 * INSERT ... SELECT advanced by whole reserved intervals (512
			 * after 300 rows); a backup has what the root page persists,
			 * the largest value used, and the next value after it */
			unsigned ignore = CFG_CMP_HOSTNAME;
			if (strcmp(tables[i], "t_types") == 0) {
				ignore |= CFG_CMP_AUTOINC;
				CU_ASSERT_EQUAL(ours.autoinc, 301);
				CU_ASSERT_EQUAL(srv.autoinc, 512);
			}
			if (cfg_compare(&ours, &srv, ignore, diff, sizeof diff)) {
				fprintf(stderr, "%s: %s\n", tables[i], diff);
				differ++;
			}
			CU_ASSERT_STRING_EQUAL(ours.hostname, "writer");
			cfg_free(&ours);
		}
		cfg_free(&srv);
		free(b);
	}
	CU_ASSERT_EQUAL(differ, 0);
	dict_free(&d);
	exp_remove();
}

static void test_truncations(void)
{
	size_t len;
	uint8_t *b = exp_load("t_types.cfg", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	int bad = 0;
	for (size_t cut = 0; cut < len; cut++) {
		cfg c;
		xb_error err;
		xb_err_clear(&err);
		int rc = cfg_decode(b, cut, "t_types.cfg", &c, &err);
		if (rc != XB_E_STREAM_CORRUPT || !strstr(err.msg, "t_types.cfg: ") || c.col || c.index)
			bad++;
		if (cut == 10)
			CU_ASSERT_STRING_EQUAL(err.msg, "t_types.cfg: truncated in the hostname at byte 8 (the file has 10 bytes)");
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* one byte more, a bad version, an absurd string length */
	cfg c;
	xb_error err;
	uint8_t *more = malloc(len + 1);
	memcpy(more, b, len);
	more[len] = 0;
	CU_ASSERT_EQUAL(cfg_decode(more, len + 1, "x.cfg", &c, &err), XB_E_STREAM_CORRUPT);
	CU_ASSERT_STRING_EQUAL(err.msg, "x.cfg: 1 bytes after the last index");
	be32_put(more, 2);
	CU_ASSERT_EQUAL(cfg_decode(more, len, "x.cfg", &c, &err), XB_E_STREAM_CORRUPT);
	CU_ASSERT_STRING_EQUAL(err.msg, "x.cfg: unsupported .cfg version 2");
	be32_put(more, 1);
	be32_put(more + 4, 0x7FFFFFFF);
	CU_ASSERT_EQUAL(cfg_decode(more, len, "x.cfg", &c, &err), XB_E_STREAM_CORRUPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad length"));
	free(more);
	free(b);
}

static void test_mutations(void)
{
	/* every byte of a real .cfg changed: a clear error or a file that
	 * encodes back to the same bytes, never a crash (run under ASan) */
	size_t len;
	uint8_t *b = exp_load("t_cpk.cfg", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	int bad = 0, ok = 0;
	static const uint8_t flips[] = {0x01, 0x80, 0xFF};
	for (size_t i = 0; i < len; i++)
		for (size_t k = 0; k < sizeof flips; k++) {
			b[i] ^= flips[k];
			cfg c;
			xb_error err;
			int rc = cfg_decode(b, len, "m.cfg", &c, &err);
			if (rc == 0) {
				uint8_t *out;
				size_t olen;
				if (cfg_encode(&c, &out, &olen, &err) || olen != len || memcmp(out, b, len))
					bad++;
				else
					free(out);
				cfg_free(&c);
				ok++;
			} else if (rc != XB_E_STREAM_CORRUPT || strncmp(err.msg, "m.cfg: ", 7) != 0) {
				bad++;
			}
			b[i] ^= flips[k];
		}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(ok > 0);
	free(b);
}

static void test_compare_names_the_field(void)
{
	size_t len;
	uint8_t *b = exp_load("t_cpk.cfg", &len);
	cfg a, c;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(cfg_decode(b, len, "a", &a, &err), 0);
	CU_ASSERT_EQUAL_FATAL(cfg_decode(b, len, "c", &c, &err), 0);
	char diff[256];
	CU_ASSERT_EQUAL(cfg_compare(&a, &c, 0, diff, sizeof diff), 0);
	c.index[1].field[0].fixed_len = 99;
	CU_ASSERT_EQUAL(cfg_compare(&a, &c, 0, diff, sizeof diff), 1);
	CU_ASSERT_STRING_EQUAL(diff, "index u_v field 0 (v) fixed_len: 4 != 99");
	c.col[2].max_prefix = 7;
	CU_ASSERT_EQUAL(cfg_compare(&a, &c, 0, diff, sizeof diff), 1);
	CU_ASSERT_STRING_EQUAL(diff, "column 2 (v) max_prefix: 0 != 7");
	c.autoinc = 5;
	CU_ASSERT_EQUAL(cfg_compare(&a, &c, 0, diff, sizeof diff), 1);
	CU_ASSERT_STRING_EQUAL(diff, "autoinc: 0 != 5");
	CU_ASSERT_EQUAL(cfg_compare(&a, &c, CFG_CMP_AUTOINC, diff, sizeof diff), 1);
	CU_ASSERT_STRING_EQUAL(diff, "column 2 (v) max_prefix: 0 != 7");
	cfg_free(&a);
	cfg_free(&c);
	free(b);
}

static void test_file_round_trip(void)
{
	CU_ASSERT_FATAL(exp_make(0, NULL));
	size_t len;
	uint8_t *b = exp_load("t_virt.cfg", &len);
	cfg a, c;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(cfg_decode(b, len, "a", &a, &err), 0);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/d/t_virt.cfg", exp_dir);
	CU_ASSERT_EQUAL(cfg_write_file(&a, path, &err), 0);
	CU_ASSERT_EQUAL(cfg_read_file(path, &c, &err), 0);
	char diff[256];
	CU_ASSERT_EQUAL(cfg_compare(&a, &c, 0, diff, sizeof diff), 0);
	cfg_free(&c);
	snprintf(path, sizeof path, "%s/d/none.cfg", exp_dir);
	CU_ASSERT_EQUAL(cfg_read_file(path, &c, &err), XB_E_MISSING_FILE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "none.cfg"));
	/* a table whose page 0 is another tablespace's */
	dict d;
	CU_ASSERT_EQUAL_FATAL(dict_read(exp_dir, NULL, &d, &err), 0);
	uint8_t *p = exp_load("t_red.pages", &len);
	innodb_space_info si;
	CU_ASSERT_EQUAL_FATAL(innodb_page0_parse(p, len, &si, &err), 0);
	CU_ASSERT_EQUAL(cfg_from_table(dict_find(&d, "d/t_virt"), NULL, d.page_size, &si, NULL, 0, &c, &err),
			XB_E_CORRUPT_PAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "table d/t_virt: its tablespace has space id"));
	free(p);
	dict_free(&d);
	cfg_free(&a);
	free(b);
	exp_remove();
}

static void test_damaged_instant_metadata(void)
{
	/* t_drop: root page 3 holds the metadata record, page 4 its map */
	static const char *const one[] = {"t_drop", NULL};
	CU_ASSERT_FATAL(exp_make(0, one));
	dict d;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(dict_read(exp_dir, NULL, &d, &err), 0);
	const dict_table *t = dict_find(&d, "d/t_drop");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	size_t len;
	uint8_t *p = exp_load("t_drop.pages", &len);
	CU_ASSERT_FATAL(p && len >= 5 * 16384 && be16_get(p + 4 * 16384 + 24) == 10);
	char ibd[PATH_MAX];
	snprintf(ibd, sizeof ibd, "d/t_drop.ibd");
	dict_instant inst;
	/* a flipped byte in the map's page */
	p[4 * 16384 + 40 + 8 + 2] ^= 1;
	CU_ASSERT_FATAL(exp_put(ibd, p, len));
	snprintf(ibd, sizeof ibd, "%s/d/t_drop.ibd", exp_dir);
	CU_ASSERT_EQUAL(dict_instant_read_file(t, ibd, &inst, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "table d/t_drop: instant ALTER metadata: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t_drop.ibd: page 4 is damaged"));
	CU_ASSERT_EQUAL(inst.n, 0);
	/* the map's page cut off */
	p[4 * 16384 + 40 + 8 + 2] ^= 1;
	CU_ASSERT_FATAL(exp_put("d/t_drop.ibd", p, 4 * 16384));
	CU_ASSERT_EQUAL(dict_instant_read_file(t, ibd, &inst, &err), XB_E_CORRUPT_PAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "page 4 is beyond the end of the file"));
	/* whole again: the map is read */
	CU_ASSERT_FATAL(exp_put("d/t_drop.ibd", p, len));
	CU_ASSERT_EQUAL(dict_instant_read_file(t, ibd, &inst, &err), 0);
	CU_ASSERT_EQUAL(inst.n, 3);
	dict_instant_free(&inst);
	free(p);
	dict_free(&d);
	exp_remove();
}

int main(void)
{
	find_fixture_dir();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("cfg", NULL, NULL);
	CU_add_test(s, "the server's .cfg files parse and encode back", test_server_files_round_trip);
	CU_add_test(s, "our .cfg equals the server's", test_ours_equals_the_servers);
	CU_add_test(s, "truncated and malformed .cfg files", test_truncations);
	CU_add_test(s, "every byte of a .cfg changed", test_mutations);
	CU_add_test(s, "cfg_compare names the first difference", test_compare_names_the_field);
	CU_add_test(s, "write, read, and a wrong page 0", test_file_round_trip);
	CU_add_test(s, "damaged instant ALTER metadata", test_damaged_instant_metadata);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned f = CU_get_number_of_failures();
	CU_cleanup_registry();
	return f ? 1 : 0;
}
