/*
 * xb_cfg.c - .cfg files from a prepared backup's dictionary, for the export
 * tests (engine-hooks/innodb/dict.h and cfg.h of libxb.a).
 *
 * usage: xb_cfg write DIR [--autoinc=db/t,...] [TABLE...]
 *            write DIR/db/t.cfg for each table of the dictionary of the
 *            prepared backup DIR whose DIR/db/t.ibd exists (or for the
 *            tables named "db/t"); the AUTO_INCREMENT value recorded is the
 *            one the clustered index root persists plus 1 for the tables
 *            --autoinc names (the dictionary does not know which have such a
 *            column), else 0
 *        xb_cfg dump FILE.cfg           print a .cfg, one field a line
 *        xb_cfg cmp A.cfg B.cfg [--ignore-hostname] [--ignore-autoinc]
 *            compare field by field; prints the first difference
 *        xb_cfg tables DIR              list the dictionary's tables: name id space flags
 * Exit code: 0 success (cmp: equal), 1 cmp: different, 2 error or usage.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "innodb/cfg.h"
#include "innodb/dict.h"
#include "innodb/page.h"

static int usage(void)
{
	fprintf(stderr, "usage: xb_cfg write DIR [--autoinc=db/t,...] [TABLE...] | dump FILE | cmp A B [--ignore-hostname] "
			"[--ignore-autoinc] | tables DIR\n");
	return 2;
}

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && strncmp(p, name, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* The dictionary of the backup in dir; false (and a message) when it cannot be read. */
static bool read_dict(const char *dir, dict *d)
{
	xb_error err;
	xb_err_clear(&err);
	if (dict_read(dir, NULL, d, &err) == 0)
		return true;
	fprintf(stderr, "xb_cfg: %s\n", err.msg);
	return false;
}

static int write_one(const char *dir, const dict *d, const dict_table *t, const char *autoinc_list, const char *host)
{
	char ibd[PATH_MAX], out[PATH_MAX];
	snprintf(ibd, sizeof ibd, "%s/%s.ibd", dir, t->name);
	snprintf(out, sizeof out, "%s/%s.cfg", dir, t->name);
	FILE *f = fopen(ibd, "rb");
	if (!f) {
		fprintf(stderr, "xb_cfg: %s: cannot open\n", ibd);
		return 2;
	}
	static uint8_t buf[4 * 65536];
	size_t got = fread(buf, 1, sizeof buf, f);
	fclose(f);
	innodb_space_info si;
	xb_error err;
	xb_err_clear(&err);
	if (innodb_page0_parse(buf, got, &si, &err)) {
		fprintf(stderr, "xb_cfg: %s: %s\n", ibd, err.msg);
		return 2;
	}
	uint64_t autoinc = 0;
	if (listed(autoinc_list, t->name)) {
		if (si.zip || (uint64_t)(t->index[0].page + 1) * si.physical_size > got) {
			fprintf(stderr, "xb_cfg: %s: cannot read the root page for AUTO_INCREMENT\n", ibd);
			return 2;
		}
		autoinc = cfg_autoinc(buf + (size_t)t->index[0].page * si.physical_size, true);
	}
	cfg c;
	dict_instant inst;
	if (dict_instant_read_file(t, ibd, &inst, &err)) {
		fprintf(stderr, "xb_cfg: %s\n", err.msg);
		return 2;
	}
	int rc = cfg_from_table(t, &inst, d->page_size, &si, host, autoinc, &c, &err);
	dict_instant_free(&inst);
	if (rc || cfg_write_file(&c, out, &err)) {
		fprintf(stderr, "xb_cfg: %s\n", err.msg);
		return 2;
	}
	cfg_free(&c);
	printf("wrote %s\n", out);
	return 0;
}

static int cmd_write(int argc, char **argv)
{
	if (argc < 1)
		return usage();
	const char *dir = argv[0], *autoinc = NULL;
	char host[256] = "";
	if (gethostname(host, sizeof host) != 0)
		strcpy(host, "Hostname unknown");
	dict d;
	if (!read_dict(dir, &d))
		return 2;
	int rc = 0, named = 0;
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--autoinc=", 10) == 0) {
			autoinc = argv[i] + 10;
			continue;
		}
		named++;
		const dict_table *t = dict_find(&d, argv[i]);
		if (!t) {
			fprintf(stderr, "xb_cfg: no table %s in the dictionary\n", argv[i]);
			rc = 2;
		} else if (write_one(dir, &d, t, autoinc, host)) {
			rc = 2;
		}
	}
	for (size_t i = 0; !named && i < d.n; i++) {
		char ibd[PATH_MAX];
		snprintf(ibd, sizeof ibd, "%s/%s.ibd", dir, d.table[i].name);
		if (strchr(d.table[i].name, '/') && access(ibd, R_OK) == 0 && write_one(dir, &d, &d.table[i], autoinc, host))
			rc = 2;
	}
	dict_free(&d);
	return rc;
}

/* Read path into c; false (and a message) when it cannot be. */
static bool read_cfg(const char *path, cfg *c)
{
	xb_error err;
	xb_err_clear(&err);
	if (cfg_read_file(path, c, &err) == 0)
		return true;
	fprintf(stderr, "xb_cfg: %s\n", err.msg);
	return false;
}

static int cmd_dump(const char *path)
{
	cfg c;
	if (!read_cfg(path, &c))
		return 2;
	printf("version %u\nhostname %s\ntable %s\nautoinc %llu\npage_size %u\nflags %u\nn_cols %u\n", c.version,
	       c.hostname, c.table_name, (unsigned long long)c.autoinc, c.page_size, c.flags, c.n_cols);
	for (uint32_t i = 0; i < c.n_cols; i++) {
		const cfg_col *k = &c.col[i];
		printf("col %s prtype=%u mtype=%u len=%u mbminmaxlen=%u ind=%u ord_part=%u max_prefix=%u\n", k->name,
		       k->prtype, k->mtype, k->len, k->mbminmaxlen, k->ind, k->ord_part, k->max_prefix);
	}
	for (uint32_t i = 0; i < c.n_indexes; i++) {
		const cfg_index *x = &c.index[i];
		printf("index %s id=%llu space=%u page=%u type=%u trx_id_offset=%u n_user=%u n_uniq=%u n_nullable=%u "
		       "n_fields=%u\n",
		       x->name, (unsigned long long)x->id, x->space, x->page, x->type, x->trx_id_offset,
		       x->n_user_defined_cols, x->n_uniq, x->n_nullable, x->n_fields);
		for (uint32_t f = 0; f < x->n_fields; f++)
			printf("  field '%s' prefix_len=%u fixed_len=%u%s\n", x->field[f].name, x->field[f].prefix_len,
			       x->field[f].fixed_len & 0x7FFFFFFFu, x->field[f].fixed_len >> 31 ? " DESC" : "");
	}
	cfg_free(&c);
	return 0;
}

static int cmd_cmp(int argc, char **argv)
{
	unsigned ignore = 0;
	const char *f[2];
	int n = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--ignore-hostname") == 0)
			ignore |= CFG_CMP_HOSTNAME;
		else if (strcmp(argv[i], "--ignore-autoinc") == 0)
			ignore |= CFG_CMP_AUTOINC;
		else if (n < 2)
			f[n++] = argv[i];
		else
			return usage();
	}
	if (n != 2)
		return usage();
	cfg a, b;
	if (!read_cfg(f[0], &a))
		return 2;
	if (!read_cfg(f[1], &b)) {
		cfg_free(&a);
		return 2;
	}
	char diff[512];
	int rc = cfg_compare(&a, &b, ignore, diff, sizeof diff);
	if (rc)
		printf("DIFF %s %s: %s\n", f[0], f[1], diff);
	cfg_free(&a);
	cfg_free(&b);
	return rc;
}

static int cmd_tables(const char *dir)
{
	dict d;
	if (!read_dict(dir, &d))
		return 2;
	for (size_t i = 0; i < d.n; i++)
		printf("%s %llu %u %u\n", d.table[i].name, (unsigned long long)d.table[i].id, d.table[i].space,
		       d.table[i].flags);
	dict_free(&d);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	if (strcmp(argv[1], "write") == 0)
		return cmd_write(argc - 2, argv + 2);
	if (strcmp(argv[1], "dump") == 0 && argc == 3)
		return cmd_dump(argv[2]);
	if (strcmp(argv[1], "cmp") == 0)
		return cmd_cmp(argc - 2, argv + 2);
	if (strcmp(argv[1], "tables") == 0 && argc == 3)
		return cmd_tables(argv[2]);
	return usage();
}
