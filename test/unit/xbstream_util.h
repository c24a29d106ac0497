/*
 * xbstream_util.h - what the xbstream unit tests share: streams in memory
 * (built chunk by chunk, or loaded from a file) read through a callback in
 * odd-sized pieces, the mbstream -c fixture (test/fixtures/xbstream/small.xbs)
 * and the formulas of its files, scratch directories, and extraction of a
 * stream with the engine of xbstream -x. Header-only: each test executable
 * includes it once; everything is static inline so unused helpers cost
 * nothing.
 */
#ifndef XB_TEST_XBSTREAM_UTIL_H
#define XB_TEST_XBSTREAM_UTIL_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/xbstream/xbstream_int.h"
#include "sink/sink.h"
#include "stream/xbstream_reader.h"

static char base[] = "/tmp/xb_xbstream_test.XXXXXX"; /* mkdtemp() in main */
static int ndir;

/* ---------------------------------------------------------------- helpers */

typedef struct membuf {
	uint8_t *p;
	size_t len, cap, pos;
} membuf;

static inline void mb_add(membuf *m, const void *d, size_t n)
{
	if (m->len + n > m->cap) {
		m->cap = (m->len + n) * 2 + 64;
		m->p = realloc(m->p, m->cap);
	}
	memcpy(m->p + m->len, d, n);
	m->len += n;
}

static inline ssize_t mb_read(void *arg, void *buf, size_t len)
{
	membuf *m = arg;
	size_t n = m->len - m->pos;
	if (n > len)
		n = len;
	/* odd-sized reads exercise the reader's buffering */
	if (n > 7777)
		n = 7777;
	memcpy(buf, m->p + m->pos, n);
	m->pos += n;
	return (ssize_t)n;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Append one chunk to m, built by hand. */
static inline void chunk(membuf *m, int type, uint8_t flags, const char *path, uint64_t off, const void *data, size_t len)
{
	uint8_t h[14 + 600];
	memcpy(h, "XBSTCK01", 8);
	h[8] = flags;
	h[9] = (uint8_t)type;
	size_t pl = strlen(path);
	put32(h + 10, (uint32_t)pl);
	memcpy(h + 14, path, pl);
	size_t n = 14 + pl;
	if (type == 'P') {
		put64(h + n, len);
		put64(h + n + 8, off);
		put32(h + n + 16, xbs_crc32(data, len));
		n += 20;
	} else if (type == 'S') {
		put64(h + n, off);
		n += 8;
	} else if (type == 'R') {
		size_t nl = strlen(data);
		put32(h + n, (uint32_t)nl);
		memcpy(h + n + 4, data, nl);
		n += 4 + nl;
	}
	mb_add(m, h, n);
	if (type == 'P')
		mb_add(m, data, len);
}

static inline uint8_t t1_byte(size_t i) { return (uint8_t)((i * 131 + i / 7) & 255); }
static inline uint8_t t2_byte(size_t i) { return (uint8_t)((i * 7 + 3) & 255); }

static inline uint8_t *gen(size_t n, uint8_t (*f)(size_t))
{
	uint8_t *p = malloc(n ? n : 1);
	for (size_t i = 0; i < n; i++)
		p[i] = f(i);
	return p;
}

static inline membuf load_file(const char *path)
{
	membuf m = {0};
	FILE *f = fopen(path, "rb");
	if (!f)
		return m;
	uint8_t buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		mb_add(&m, buf, n);
	fclose(f);
	return m;
}

static char fixture[PATH_MAX];

static inline void find_fixture(void)
{
	snprintf(fixture, sizeof fixture, "test/fixtures/xbstream/small.xbs");
	if (access(fixture, R_OK) == 0)
		return;
	char exe[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		snprintf(fixture, sizeof fixture, "%s/../../test/fixtures/xbstream/small.xbs", exe);
	}
}

static inline void new_dir(char *dir, size_t size)
{
	snprintf(dir, size, "%s/d%d", base, ++ndir);
	mkdir(dir, 0755);
}

static inline int exists(const char *dir, const char *rel)
{
	char p[PATH_MAX * 2];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	struct stat st;
	return lstat(p, &st) == 0;
}

static inline int count_entries(const char *dir)
{
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "find '%s' -mindepth 1 | wc -l", dir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

/* Does dir/rel hold exactly data? */
static inline int same_file(const char *dir, const char *rel, const void *data, size_t len)
{
	char p[PATH_MAX * 2];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	membuf m = load_file(p);
	int ok = exists(dir, rel) && m.len == len && (len == 0 || memcmp(m.p, data, len) == 0);
	free(m.p);
	return ok;
}

/* Run the extraction engine on the bytes of m into dir. */
static inline int extract(membuf *m, const char *dir, int workers, xb_error *err, xbx_stats *st)
{
	xb_err_clear(err);
	xbx_stats dummy;
	if (!st)
		st = &dummy;
	xbx_conf c = {.workers = workers};
	c.dir = xb_sink_dir_open_ex(dir, XB_SINK_DIR_UNTRUSTED | XB_SINK_DIR_NOREPLACE, err);
	if (!c.dir)
		return err->code;
	m->pos = 0;
	xbs_reader *r = xbs_reader_new(mb_read, m, "test", err);
	int rc = xbx_run(&c, r, st, err);
	if (!rc)
		rc = xb_sink_finish(c.dir, err);
	xbs_reader_free(r);
	xb_sink_free(c.dir);
	return rc;
}


/* Remove the scratch directories (unless KEEP is set). */
static inline void cleanup_base(void)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "test -n \"$KEEP\" || rm -rf %s", base);
	if (system(cmd)) {
		/* best effort */
	}
}

#endif
