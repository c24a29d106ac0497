/*
 * tablelist_test.c - --restore-tables and --rename parsed
 * (src/command/restore_tables/tablelist.c): plain and backquoted names
 * (a comma, a dot, a colon and a doubled backquote inside quotes), blanks
 * around items, renames; and each list refused with its message: not
 * db.table, an empty name, a table twice, a rename of a table not listed or
 * renamed twice or onto itself, two tables restored as one, a name longer
 * than 64 characters, an unclosed quote. Also the quoting of identifiers.
 */
#include <CUnit/Basic.h>
#include <string.h>

#include "command/restore_tables/tablelist.h"

static void test_plain(void)
{
	rt_list l;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_FATAL(rt_list_parse(" shop.orders , shop.order_items,`my-db`.`a,b.c:d``e`", NULL, &l, &err) == 0);
	CU_ASSERT_FATAL(l.n == 3);
	CU_ASSERT_STRING_EQUAL(l.v[0].db, "shop");
	CU_ASSERT_STRING_EQUAL(l.v[0].name, "orders");
	CU_ASSERT_STRING_EQUAL(l.v[0].to_name, "orders");
	CU_ASSERT(!l.v[0].renamed);
	CU_ASSERT_STRING_EQUAL(l.v[1].name, "order_items");
	CU_ASSERT_STRING_EQUAL(l.v[2].db, "my-db");
	CU_ASSERT_STRING_EQUAL(l.v[2].name, "a,b.c:d`e");
	rt_list_free(&l);
}

static void test_rename(void)
{
	rt_list l;
	xb_error err;
	xb_err_clear(&err);
	CU_ASSERT_FATAL(rt_list_parse("shop.orders,shop.order_items", "shop.orders:shop.orders_restored, shop.order_items : arch.`oi 2`",
				      &l, &err) == 0);
	CU_ASSERT_FATAL(l.n == 2);
	CU_ASSERT(l.v[0].renamed && l.v[1].renamed);
	CU_ASSERT_STRING_EQUAL(l.v[0].to_db, "shop");
	CU_ASSERT_STRING_EQUAL(l.v[0].to_name, "orders_restored");
	CU_ASSERT_STRING_EQUAL(l.v[0].name, "orders");
	CU_ASSERT_STRING_EQUAL(l.v[1].to_db, "arch");
	CU_ASSERT_STRING_EQUAL(l.v[1].to_name, "oi 2");
	rt_list_free(&l);
}

/* tables/renames refused with a message containing want */
static void refused(const char *tables, const char *renames, const char *want)
{
	rt_list l;
	xb_error err;
	xb_err_clear(&err);
	int rc = rt_list_parse(tables, renames, &l, &err);
	CU_ASSERT(rc == XB_E_USAGE);
	if (!strstr(err.msg, want))
		fprintf(stderr, "\n%s | %s: got '%s', want '%s'\n", tables, renames ? renames : "-", err.msg, want);
	CU_ASSERT(strstr(err.msg, want) != NULL);
	rt_list_free(&l);
}

static void test_refused(void)
{
	refused("", NULL, "--restore-tables names no table");
	refused(" , ", NULL, "--restore-tables names no table");
	refused("orders", NULL, "--restore-tables: 'orders' is not db.table");
	refused("shop.", NULL, "--restore-tables: 'shop.' is not db.table");
	refused(".t", NULL, "'.t' is not db.table");
	refused("shop.a.b", NULL, "'shop.a.b' is not db.table");
	refused("shop.t x", NULL, "'shop.t x' is not db.table");
	refused("shop.`t", NULL, "unclosed backquote in 'shop.`t'");
	refused("shop.t,shop.t", NULL, "--restore-tables names shop.t twice");
	refused("shop.t", "shop.t", "--rename: 'shop.t' is not db.table:db.new_table");
	refused("shop.t", "shop.u:shop.v", "--rename: shop.u is not in --restore-tables");
	refused("shop.t", "shop.t:shop.v,shop.t:shop.w", "--rename: shop.t is renamed twice");
	refused("shop.t", "shop.t:shop.t", "--rename: shop.t is renamed to itself");
	refused("shop.t,shop.u", "shop.t:shop.u", "shop.t and shop.u would both be restored as shop.u");
	refused("shop.t", "shop.t:x.y:z", "is not db.table:db.new_table");
	char longname[80];
	memset(longname, 'a', 65);
	strcpy(longname + 65, ".t");
	refused(longname, NULL, "name longer than 64 characters");
}

static void test_quote(void)
{
	char q[64];
	CU_ASSERT(xb_server_ident("a`b", q, sizeof q));
	CU_ASSERT_STRING_EQUAL(q, "`a``b`");
	CU_ASSERT(!xb_server_ident("abcdef", q, 6));
	char qq[600];
	rt_qualified("my-db", "t", qq, sizeof qq);
	CU_ASSERT_STRING_EQUAL(qq, "`my-db`.`t`");
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("tablelist", NULL, NULL);
	CU_add_test(s, "plain and quoted names", test_plain);
	CU_add_test(s, "renames", test_rename);
	CU_add_test(s, "lists refused", test_refused);
	CU_add_test(s, "identifiers quoted", test_quote);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
