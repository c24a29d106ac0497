/*
 * createstmt_test.c - CREATE TABLE text (src/command/restore_tables/
 * createstmt.c), on statements as a 10.11 server's SHOW CREATE TABLE gives
 * them: the name replaced (a quoted one with a doubled backquote too), the
 * FOREIGN KEY constraints left out with the comma before ')' fixed, a CHECK
 * constraint kept; two definitions equal but for the name and AUTO_INCREMENT=N,
 * and the first differing line named (a column changed, a line more on
 * either side); a statement without CREATE TABLE refused.
 */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "command/restore_tables/createstmt.h"

static const char *const items =
	"CREATE TABLE `order_items` (\n"
	"  `id` int(11) NOT NULL AUTO_INCREMENT,\n"
	"  `order_id` int(11) NOT NULL,\n"
	"  `qty` int(11) NOT NULL,\n"
	"  PRIMARY KEY (`id`),\n"
	"  KEY `fk_order` (`order_id`),\n"
	"  CONSTRAINT `qty_pos` CHECK (`qty` > 0),\n"
	"  CONSTRAINT `fk_order` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`)\n"
	") ENGINE=InnoDB AUTO_INCREMENT=601 DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci";

static void test_target(void)
{
	char *out = NULL;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_FATAL(createstmt_target(items, "`shop`.`order_items`", false, &out, &err) == 0);
	CU_ASSERT(!strncmp(out, "CREATE TABLE `shop`.`order_items` (\n", 36));
	CU_ASSERT(strstr(out, "FOREIGN KEY (`order_id`) REFERENCES `orders`") != NULL);
	free(out);
	CU_ASSERT_FATAL(createstmt_target(items, "`shop`.`oi``2`", true, &out, &err) == 0);
	const char *want =
		"CREATE TABLE `shop`.`oi``2` (\n"
		"  `id` int(11) NOT NULL AUTO_INCREMENT,\n"
		"  `order_id` int(11) NOT NULL,\n"
		"  `qty` int(11) NOT NULL,\n"
		"  PRIMARY KEY (`id`),\n"
		"  KEY `fk_order` (`order_id`),\n"
		"  CONSTRAINT `qty_pos` CHECK (`qty` > 0)\n"
		") ENGINE=InnoDB AUTO_INCREMENT=601 DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci";
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	/* NULL keeps the name; a name with a doubled backquote is skipped whole */
	CU_ASSERT_FATAL(createstmt_target("CREATE TABLE `a``b` (\n  `x` int(11)\n) ENGINE=InnoDB", NULL, true, &out, &err) == 0);
	CU_ASSERT_STRING_EQUAL(out, "CREATE TABLE `a``b` (\n  `x` int(11)\n) ENGINE=InnoDB");
	free(out);
	CU_ASSERT(createstmt_target("CREATE VIEW `v` AS SELECT 1", NULL, false, &out, &err) == XB_E_BACKUP_DAMAGED);
	CU_ASSERT(out == NULL);
}

static void test_same(void)
{
	int line = 0;
	char a[256], b[256];
	/* the name and AUTO_INCREMENT=N do not count */
	char *live = strdup(items);
	char *p = strstr(live, "`order_items`");
	memcpy(p, "`order_itemz`", 13);
	p = strstr(live, "AUTO_INCREMENT=601");
	memcpy(p, "AUTO_INCREMENT=999", 18);
	CU_ASSERT(createstmt_same(live, items, &line, a, b, sizeof a));
	free(live);
	CU_ASSERT(createstmt_same("CREATE TABLE `t` (\n  `x` int(11)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1",
				  "CREATE TABLE `t` (\n  `x` int(11)\n) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=latin1",
				  &line, a, b, sizeof a));
	/* a column changed: its line */
	CU_ASSERT(!createstmt_same("CREATE TABLE `t` (\n  `x` bigint(20)\n) ENGINE=InnoDB",
				   "CREATE TABLE `t` (\n  `x` int(11)\n) ENGINE=InnoDB", &line, a, b, sizeof a));
	CU_ASSERT(line == 2);
	CU_ASSERT_STRING_EQUAL(a, "  `x` bigint(20)");
	CU_ASSERT_STRING_EQUAL(b, "  `x` int(11)");
	/* a line more on one side */
	CU_ASSERT(!createstmt_same("CREATE TABLE `t` (\n  `x` int(11)\n) ENGINE=InnoDB",
				   "CREATE TABLE `t` (\n  `x` int(11)\n) ENGINE=InnoDB\n PARTITION BY HASH (`x`)", &line, a,
				   b, sizeof a));
	CU_ASSERT(line == 4);
	CU_ASSERT_STRING_EQUAL(a, "(none)");
	CU_ASSERT_STRING_EQUAL(b, " PARTITION BY HASH (`x`)");
	/* AUTO_INCREMENT as a column attribute counts */
	CU_ASSERT(!createstmt_same("CREATE TABLE `t` (\n  `x` int(11) NOT NULL AUTO_INCREMENT\n) ENGINE=InnoDB",
				   "CREATE TABLE `t` (\n  `x` int(11) NOT NULL\n) ENGINE=InnoDB", &line, a, b, sizeof a));
	CU_ASSERT(line == 2);
}

static void test_has(void)
{
	CU_ASSERT(createstmt_has("CREATE TABLE `t` (\n) ENGINE=InnoDB DATA DIRECTORY='/x/'", "DATA DIRECTORY="));
	CU_ASSERT(!createstmt_has("CREATE TABLE `DATA DIRECTORY=` (\n) ENGINE=InnoDB", "DATA DIRECTORY="));
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("createstmt", NULL, NULL);
	CU_add_test(s, "the statement for a target", test_target);
	CU_add_test(s, "definitions compared", test_same);
	CU_add_test(s, "clauses found", test_has);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
