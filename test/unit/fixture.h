/*
 * fixture.h - finding and loading the real-byte fixtures of the unit tests.
 *
 * Fixtures live under test/fixtures/innodb/. They are found through
 * $XB_FIXTURE_DIR, else relative to the current directory (make runs the
 * tests from the top of the tree), else relative to the test executable
 * (build/test/X -> ../../test/fixtures/innodb). Header-only: each test
 * executable includes it once.
 */
#ifndef XB_TEST_FIXTURE_H
#define XB_TEST_FIXTURE_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fixture_dir[PATH_MAX];

/* Sets fixture_dir to an absolute path. */
static void find_fixture_dir(void)
{
	const char *env = getenv("XB_FIXTURE_DIR");
	if (env) {
		snprintf(fixture_dir, sizeof fixture_dir, "%s", env);
	} else if (access("test/fixtures/innodb/redo_head.bin", R_OK) == 0) {
		snprintf(fixture_dir, sizeof fixture_dir, "test/fixtures/innodb");
	} else {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n > 0) {
			exe[n] = 0;
			char *slash = strrchr(exe, '/');
			if (slash)
				*slash = 0;
			snprintf(fixture_dir, sizeof fixture_dir, "%.*s/../../test/fixtures/innodb", PATH_MAX - 40, exe);
		}
	}
	char *abs = realpath(fixture_dir, NULL);
	if (abs) {
		snprintf(fixture_dir, sizeof fixture_dir, "%s", abs);
		free(abs);
	}
}

/* Read a whole fixture file (malloc'ed, with a NUL after the last byte so text
 * fixtures are C strings), NULL when missing; *len gets its size. */
static __attribute__((unused)) uint8_t *load(const char *name, size_t *len)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open fixture %s\n", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(sz > 0 ? (size_t)sz + 1 : 1);
	if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[sz > 0 ? sz : 0] = 0;
	fclose(f);
	*len = (size_t)sz;
	return buf;
}

#endif
