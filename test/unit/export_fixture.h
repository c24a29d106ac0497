/*
 * export_fixture.h - the export fixtures (test/fixtures/innodb/export, made by
 * make-export-fixtures.sh) laid out as a backup directory: a temporary
 * directory holding the prepared ibdata1 (decompressed from ibdata1.zst) and
 * db/NAME.ibd files made of the tables' first pages. Header-only: included
 * once by dict_test.c and cfg_test.c, after fixture.h.
 */
#ifndef XB_TEST_EXPORT_FIXTURE_H
#define XB_TEST_EXPORT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

static char exp_dir[] = "/tmp/xb_export.XXXXXX";
static bool exp_made; /* exp_dir exists */

/* Write len bytes of data to exp_dir/rel; false when it cannot. */
static bool exp_put(const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", exp_dir, rel);
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

/* The fixture export/NAME decompressed (NAME ends in .zst) or as it is. */
static __attribute__((unused)) uint8_t *exp_load(const char *name, size_t *len)
{
	char rel[256];
	snprintf(rel, sizeof rel, "export/%s", name);
	size_t zl;
	uint8_t *z = load(rel, &zl);
	size_t nl = strlen(name);
	if (!z || nl < 4 || strcmp(name + nl - 4, ".zst") != 0) {
		*len = zl;
		return z;
	}
	unsigned long long full = ZSTD_getFrameContentSize(z, zl);
	uint8_t *out = NULL;
	if (full != ZSTD_CONTENTSIZE_ERROR && full != ZSTD_CONTENTSIZE_UNKNOWN && (out = malloc(full ? full : 1))) {
		size_t got = ZSTD_decompress(out, full, z, zl);
		if (ZSTD_isError(got) || got != full) {
			free(out);
			out = NULL;
		}
		*len = full;
	}
	free(z);
	return out;
}

/* Make exp_dir: ibdata1 (its first ibdata_len bytes; 0: all of it) and
 * d/NAME.ibd for every NAME.pages fixture listed in tables. */
static __attribute__((unused)) bool exp_make(size_t ibdata_len, const char *const *tables)
{
	strcpy(exp_dir, "/tmp/xb_export.XXXXXX");
	if (!mkdtemp(exp_dir))
		return false;
	exp_made = true;
	size_t len;
	uint8_t *ib = exp_load("ibdata1.zst", &len);
	if (!ib)
		return false;
	bool ok = exp_put("ibdata1", ib, ibdata_len && ibdata_len < len ? ibdata_len : len);
	free(ib);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/d", exp_dir);
	ok = ok && mkdir(path, 0755) == 0;
	for (int i = 0; ok && tables && tables[i]; i++) {
		char name[300], rel[300];
		snprintf(name, sizeof name, "%s.pages", tables[i]);
		uint8_t *p = exp_load(name, &len);
		snprintf(rel, sizeof rel, "d/%s.ibd", tables[i]);
		ok = p && exp_put(rel, p, len);
		free(p);
	}
	return ok;
}

static __attribute__((unused)) void exp_remove(void)
{
	char cmd[PATH_MAX + 32];
	if (exp_made) {
		exp_made = false;
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", exp_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", exp_dir);
	}
}

#endif
