/*
 * tabledefs_test.c - xtrabackup_tabledefs.pmap (src/info/tabledefs.c): real
 * SHOW CREATE TABLE text (several lines, quotes, backquotes, a partitioned
 * table, a filename-encoded name) written and read back the same, with the
 * exact bytes; the last put of a path wins; every malformed line is refused
 * with the line named, as is the file cut at any byte.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "info/tabledefs.h"

static const char *const orders =
	"CREATE TABLE `orders` (\n"
	"  `id` int(11) NOT NULL AUTO_INCREMENT,\n"
	"  `note` varchar(20) DEFAULT 'it''s \"x\"\\n',\n"
	"  PRIMARY KEY (`id`)\n"
	") ENGINE=InnoDB AUTO_INCREMENT=301 DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci";
static const char *const part =
	"CREATE TABLE `p` (\n  `a` int(11) DEFAULT NULL\n) ENGINE=InnoDB DEFAULT CHARSET=latin1\n"
	" PARTITION BY HASH (`a`)\nPARTITIONS 2";

static void test_round_trip(void)
{
	xb_tabledefs d;
	xb_tabledefs_init(&d);
	xb_tabledefs_put(&d, "shop/orders", "CREATE TABLE old");
	xb_tabledefs_put(&d, "my@002ddb/p", part);
	xb_tabledefs_put(&d, "shop/orders", orders); /* put again: wins */
	xb_text t = {0};
	xb_tabledefs_format(&d, &t);
	char want[2048];
	snprintf(want, sizeof want, "xtrabackup-tabledefs 1\ndef my@002ddb/p %zu\n%s\ndef shop/orders %zu\n%s\nend 2\n",
		 strlen(part), part, strlen(orders), orders);
	CU_ASSERT_STRING_EQUAL(t.s, want);
	xb_tabledefs r;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_FATAL(xb_tabledefs_parse("D", t.s, t.n, &r, &err) == 0);
	CU_ASSERT_FATAL(r.n == 2);
	CU_ASSERT_STRING_EQUAL(xb_tabledefs_find(&r, "shop/orders")->sql, orders);
	CU_ASSERT_STRING_EQUAL(xb_tabledefs_find(&r, "my@002ddb/p")->sql, part);
	CU_ASSERT(xb_tabledefs_find(&r, "shop/order") == NULL);
	/* every cut is refused */
	for (size_t cut = 0; cut + 1 < t.n; cut++) {
		xb_tabledefs c;
		CU_ASSERT(xb_tabledefs_parse("D", t.s, cut, &c, &err) == XB_E_BACKUP_DAMAGED);
		CU_ASSERT(c.n == 0);
	}
	/* through a directory */
	char dir[] = "/tmp/tabledefs_test.XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	CU_ASSERT(xb_tabledefs_write(dir, &d, &err) == 0);
	xb_tabledefs f;
	CU_ASSERT(xb_tabledefs_read(dir, &f, &err) == 0 && f.n == 2);
	xb_tabledefs_free(&f);
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, XB_TABLEDEFS_FILE);
	unlink(p);
	CU_ASSERT(xb_tabledefs_read(dir, &f, &err) == XB_E_MISSING_FILE);
	rmdir(dir);
	xb_tabledefs_free(&r);
	xb_tabledefs_free(&d);
	xb_text_free(&t);
}

static void bad(const char *text, size_t len, const char *want)
{
	xb_tabledefs d;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT(xb_tabledefs_parse("D", text, len, &d, &err) == XB_E_BACKUP_DAMAGED);
	if (!strstr(err.msg, want)) {
		fprintf(stderr, "\n  got  %s\n  want %s\n", err.msg, want);
		CU_FAIL("message");
	}
	CU_ASSERT(d.n == 0 && d.v == NULL);
}
#define BAD(s, w) bad(s, sizeof s - 1, w)
#define H "xtrabackup-tabledefs 1\n"

static void test_malformed(void)
{
	BAD("", "D is empty");
	BAD("xtrabackup-tabledefs 2\nend 0\n", "D: line 1: expected \"xtrabackup-tabledefs 1\"");
	BAD(H, "D: cut short after line 1");
	BAD(H "def a/b\nx\nend 1\n", "D: line 2: expected \"def PATH LENGTH\"");
	BAD(H "def a/b x\nx\nend 1\n", "D: line 2: expected \"def PATH LENGTH\"");
	BAD(H "table a/b 1\nx\nend 1\n", "D: line 2: expected \"def PATH LENGTH\"");
	BAD(H "def ab 1\nx\nend 1\n", "D: line 2: bad table path");
	BAD(H "def a/b/c 1\nx\nend 1\n", "D: line 2: bad table path");
	BAD(H "def ../b 1\nx\nend 1\n", "D: line 2: bad table path");
	BAD(H "def a/b 5\nx\nend 1\n", "D: line 2: the definition is not 5 bytes followed by a newline");
	BAD(H "def a/b 1\nxy\nend 1\n", "D: line 2: the definition is not 1 bytes followed by a newline");
	BAD(H "def a/b 1\n\0\nend 1\n", "D: line 2: the definition holds a NUL byte");
	BAD(H "def b/b 1\nx\ndef a/b 1\nx\nend 2\n", "D: line 4: path out of order or repeated");
	BAD(H "def a/b 3\nx\ny\nend 2\n", "D: line 5: expected \"end 1\"");
	BAD(H "def a/b 1\nx\nend 1\nmore\n", "D: line 5: text after the \"end\" line");
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("tabledefs", NULL, NULL);
	CU_add_test(s, "table definitions: exact bytes, round trip, every cut, a directory", test_round_trip);
	CU_add_test(s, "table definitions: every malformed line", test_malformed);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned f = CU_get_number_of_failures();
	CU_cleanup_registry();
	return f ? 1 : 0;
}
