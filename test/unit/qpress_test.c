/*
 * qpress_test.c - the .qp reader and filter on real bytes: files written by
 * mariabackup --compress (test/fixtures/qpress, see its make-fixtures.sh:
 * text with 3- and 9-byte packet headers, a stored packet, a 16 KiB Aria
 * index in two blocks, random bytes, an empty file) decode to the bytes
 * the server had, fed whole or in pieces of every small size; through the
 * sink filter they get their names without .qp and other files pass
 * through. Then damage: every truncation of a fixture, every one-byte
 * change, and foreign or malformed archives (wrong magic, a directory
 * entry, two files, bytes after the end, an offset out of place, another
 * QuickLZ level) fail with XB_E_STREAM_CORRUPT and a one-line message
 * naming the file, leaving no decoded file; a fuzz loop mutates packets
 * (their checksums recomputed, so the QuickLZ decoder itself sees the
 * damage) and whole archives, and checks nothing but a clean result or a
 * clean error ever comes out (run under ASan by make check-asan).
 */
#include <CUnit/Basic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/bytes.h"
#include "sink/sink.h"
#include "sink/sink_qpress.h"
#include "stream/qpress.h"

#include "fixture.h"
#include "memsink.h"

static char qp_dir[PATH_MAX + 32];

/* The fixtures: NAME.qp and NAME (its decoded bytes). */
static const char *const names[] = {"backup-my.cnf", "db.opt", "aria_log_control", "global_priv.MAI", "r.MYD",
				    "slow_log.CSV"};
#define NFIX (sizeof names / sizeof names[0])

typedef struct blob {
	uint8_t *p;
	size_t n;
} blob;

static blob load_qp(const char *name, bool qp)
{
	char path[PATH_MAX + 128];
	snprintf(path, sizeof path, "%s/%s%s", qp_dir, name, qp ? ".qp" : "");
	blob b = {NULL, 0};
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open fixture %s\n", path);
		return b;
	}
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	b.p = malloc((size_t)sz + 1);
	b.n = fread(b.p, 1, (size_t)sz, f);
	fclose(f);
	return b;
}

/* ---------------------------------------------------------------- decoding to memory */

typedef struct outbuf {
	uint8_t *p;
	size_t n, cap;
	int calls;
} outbuf;

static int collect(void *arg, const uint8_t *buf, size_t len, xb_error *err)
{
	outbuf *o = arg;
	CU_ASSERT(len >= 1);
	if (o->n + len > o->cap) {
		o->cap = (o->n + len) * 2;
		o->p = realloc(o->p, o->cap);
	}
	memcpy(o->p + o->n, buf, len);
	o->n += len;
	o->calls++;
	return 0;
}

/* Decode data fed in pieces of `piece` bytes; returns the result code. */
static int decode(const uint8_t *data, size_t len, size_t piece, outbuf *o, xb_error *err)
{
	memset(o, 0, sizeof *o);
	xb_err_clear(err);
	xb_qpress *q = xb_qpress_new("db/t.qp", collect, o, err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	int rc = 0;
	for (size_t off = 0; off < len && !rc; off += piece)
		rc = xb_qpress_feed(q, data + off, len - off < piece ? len - off : piece, err);
	if (!rc)
		rc = xb_qpress_end(q, err);
	if (!rc)
		CU_ASSERT_EQUAL(xb_qpress_decoded(q), o->n);
	xb_qpress_free(q);
	return rc;
}

/* A failure must be STREAM_CORRUPT with one line naming the file. */
static void assert_clean_error(int rc, const xb_error *err, const char *name)
{
	CU_ASSERT_EQUAL(rc, XB_E_STREAM_CORRUPT);
	CU_ASSERT_EQUAL(err->code, XB_E_STREAM_CORRUPT);
	CU_ASSERT(!strncmp(err->msg, name, strlen(name)));
	CU_ASSERT_PTR_NULL(strchr(err->msg, '\n'));
}

static void test_fixtures_decode(void)
{
	static const size_t pieces[] = {SIZE_MAX, 1, 2, 3, 5, 7, 8, 13, 20, 21, 64, 100, 4096};
	for (size_t i = 0; i < NFIX; i++) {
		blob qp = load_qp(names[i], true), plain = load_qp(names[i], false);
		CU_ASSERT_PTR_NOT_NULL_FATAL(qp.p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(plain.p);
		for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
			outbuf o;
			xb_error err;
			int rc = decode(qp.p, qp.n, pieces[k], &o, &err);
			if (rc)
				fprintf(stderr, "%s in pieces of %zu: %s\n", names[i], pieces[k], err.msg);
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT_EQUAL(o.n, plain.n);
			CU_ASSERT(o.n == plain.n && (!o.n || !memcmp(o.p, plain.p, o.n)));
			free(o.p);
		}
		free(qp.p);
		free(plain.p);
	}
}

/* The packet layer alone: the first block of each fixture. */
static void test_packet(void)
{
	blob qp = load_qp("global_priv.MAI", true), plain = load_qp("global_priv.MAI", false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp.p);
	size_t at = 21 + le32_get(qp.p + 17) + 1 + 8 + 12; /* header, entry, marker, offset and checksum */
	const uint8_t *pkt = qp.p + at;
	CU_ASSERT_EQUAL(pkt[0], 0x47); /* compressed, 9-byte header, level 1 */
	size_t clen = le32_get(pkt + 1), dlen = le32_get(pkt + 5);
	CU_ASSERT_EQUAL(dlen, 8192);
	uint8_t *out = malloc(dlen);
	const char *why = NULL;
	CU_ASSERT_EQUAL(xb_qlz_decompress(pkt, clen, out, dlen, &why), 0);
	CU_ASSERT(!memcmp(out, plain.p, dlen));
	/* lengths that disagree with the packet's own */
	CU_ASSERT_EQUAL(xb_qlz_decompress(pkt, clen - 1, out, dlen, &why), -1);
	CU_ASSERT_EQUAL(xb_qlz_decompress(pkt, clen, out, dlen - 1, &why), -1);
	CU_ASSERT_EQUAL(xb_qlz_decompress(pkt, 0, out, dlen, &why), -1);
	/* flags of other levels and of no QuickLZ packet */
	CU_ASSERT_EQUAL(xb_qlz_header_len(0x47, &why), 9);
	CU_ASSERT_EQUAL(xb_qlz_header_len(0x45, &why), 3);
	CU_ASSERT_EQUAL(xb_qlz_header_len(0x4f, &why), 0); /* level 3 */
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "level"));
	CU_ASSERT_EQUAL(xb_qlz_header_len(0x57, &why), 0); /* streaming buffer */
	CU_ASSERT_EQUAL(xb_qlz_header_len(0x07, &why), 0);
	free(out);
	free(qp.p);
	free(plain.p);
}

/* ---------------------------------------------------------------- through the sink filter */

static void test_sink(void)
{
	xb_error err;
	xb_err_clear(&err);
	msink *m = msink_new();
	xb_sink *s = xb_sink_unqpress_open(&m->base, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	uint64_t total = 0;
	for (size_t i = 0; i < NFIX; i++) {
		blob qp = load_qp(names[i], true), plain = load_qp(names[i], false);
		char name[128];
		snprintf(name, sizeof name, "db/%s.qp", names[i]);
		xb_sink_file *f = xb_sink_open(s, name, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		int rc = 0;
		for (size_t off = 0; off < qp.n && !rc; off += 100)
			rc = xb_sink_write(f, qp.p + off, qp.n - off < 100 ? qp.n - off : 100, &err);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
		total += qp.n;
		snprintf(name, sizeof name, "db/%s", names[i]);
		mrec *r = mfind(m, name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_TRUE(r->closed);
		CU_ASSERT_EQUAL(r->len, plain.n);
		CU_ASSERT(r->len == plain.n && (!r->len || !memcmp(r->data, plain.p, r->len)));
		free(qp.p);
		free(plain.p);
	}
	/* anything else passes through */
	xb_sink_file *f = xb_sink_open(s, "xtrabackup_checkpoints", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(xb_sink_write(f, "backup_type = full-backuped\n", 28, &err), 0);
	CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
	mrec *r = mfind(m, "xtrabackup_checkpoints");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT(r->len == 28 && !memcmp(r->data, "backup_type = full-backuped\n", 28));
	CU_ASSERT_EQUAL(s->bytes_written, total + 28);
	CU_ASSERT_PTR_NULL(mfind(m, "db/db.opt.qp"));
	CU_ASSERT_EQUAL(xb_sink_finish(s, &err), 0);
	CU_ASSERT_EQUAL(m->finished, 1);
	xb_sink_free(s);
}

/* Through the filter, damaged bytes: the decoded file is aborted, never closed. */
static int sink_decode(const uint8_t *data, size_t len, xb_error *err, int *closed)
{
	xb_err_clear(err);
	msink *m = msink_new();
	xb_sink *s = xb_sink_unqpress_open(&m->base, err);
	xb_sink_file *f = xb_sink_open(s, "db/t.ibd.qp", err);
	int rc = xb_sink_write(f, data, len, err);
	if (rc)
		xb_sink_abort(f);
	else
		rc = xb_sink_close(f, err);
	mrec *r = mfind(m, "db/t.ibd");
	*closed = r && r->closed;
	if (r && rc)
		CU_ASSERT_TRUE(r->aborted);
	xb_sink_free(s);
	return rc;
}

/* ---------------------------------------------------------------- damage */

static void test_truncations(void)
{
	for (size_t i = 0; i < NFIX; i++) {
		blob qp = load_qp(names[i], true);
		for (size_t n = 0; n < qp.n; n++) {
			uint8_t *cut = malloc(n ? n : 1); /* exactly n bytes: an overread shows under ASan */
			memcpy(cut, qp.p, n);
			outbuf o;
			xb_error err;
			int rc = decode(cut, n, SIZE_MAX, &o, &err);
			assert_clean_error(rc, &err, "db/t.qp");
			free(o.p);
			int closed;
			rc = sink_decode(cut, n, &err, &closed);
			assert_clean_error(rc, &err, "db/t.ibd.qp");
			CU_ASSERT_FALSE(closed);
			free(cut);
		}
		free(qp.p);
	}
	xb_error err;
	outbuf o;
	int rc = decode((const uint8_t *)"", 0, 1, &o, &err);
	assert_clean_error(rc, &err, "db/t.qp");
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "truncated"));
}

/* Every byte of a fixture changed: an error, or (the fields nothing reads:
 * the inner name, the trailer, a larger chunk size) the same bytes out. */
static void test_every_byte(void)
{
	static const char *const which[] = {"global_priv.MAI", "db.opt", "r.MYD"};
	for (size_t w = 0; w < 3; w++) {
		blob qp = load_qp(which[w], true), plain = load_qp(which[w], false);
		for (size_t i = 0; i < qp.n; i++) {
			for (int delta = 1; delta < 256; delta += 127) {
				uint8_t *bad = malloc(qp.n);
				memcpy(bad, qp.p, qp.n);
				bad[i] = (uint8_t)(bad[i] + delta);
				outbuf o;
				xb_error err;
				int rc = decode(bad, qp.n, SIZE_MAX, &o, &err);
				if (rc)
					assert_clean_error(rc, &err, "db/t.qp");
				else
					CU_ASSERT(o.n == plain.n && !memcmp(o.p, plain.p, o.n));
				free(o.p);
				free(bad);
			}
		}
		free(qp.p);
		free(plain.p);
	}
}

/* The offset of the first block's marker in a fixture. */
static size_t first_block(const blob *b)
{
	return 21 + le32_get(b->p + 17) + 1;
}

static void expect_error(const uint8_t *data, size_t len, const char *what)
{
	outbuf o;
	xb_error err;
	int rc = decode(data, len, SIZE_MAX, &o, &err);
	assert_clean_error(rc, &err, "db/t.qp");
	if (!strstr(err.msg, what))
		fprintf(stderr, "expected \"%s\" in: %s\n", what, err.msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	free(o.p);
	/* and fed a byte at a time */
	rc = decode(data, len, 1, &o, &err);
	assert_clean_error(rc, &err, "db/t.qp");
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	free(o.p);
}

static void test_malformed(void)
{
	blob qp = load_qp("backup-my.cnf", true);
	size_t b = first_block(&qp), n = qp.n;
	uint8_t *x = malloc(2 * n + 64);

	memcpy(x, qp.p, n);
	x[0] = 'Q';
	expect_error(x, n, "not a qpress archive");

	memcpy(x, qp.p, n);
	le64_put(x + 8, 0);
	expect_error(x, n, "chunk size");

	memcpy(x, qp.p, n);
	le64_put(x + 8, 100); /* smaller than the 285-byte block */
	expect_error(x, n, "over the chunk size");

	memcpy(x, qp.p, n);
	x[16] = 'D';
	expect_error(x, n, "directory");

	memcpy(x, qp.p, n);
	le32_put(x + 17, 1u << 20);
	expect_error(x, n, "name is longer");

	memcpy(x, qp.p, n);
	x[b - 1] = 'x';
	expect_error(x, n, "not terminated");

	memcpy(x, qp.p, n);
	memcpy(x + b, "NEWBNEWX", 8);
	expect_error(x, n, "neither a block nor the end");

	memcpy(x, qp.p, n);
	x[b + 8] = 1; /* the first block's offset */
	expect_error(x, n, "offset");

	memcpy(x, qp.p, n);
	x[b + 16] ^= 1; /* its checksum */
	expect_error(x, n, "checksum");

	/* a packet of another level, checksum made right */
	memcpy(x, qp.p, n);
	x[b + 20] = 0x4f;
	size_t plen = le32_get(x + b + 21);
	le32_put(x + b + 16, (uint32_t)adler32(1, x + b + 20, (uInt)plen));
	expect_error(x, n, "level other than 1");

	/* two files: the archive again after its end */
	memcpy(x, qp.p, n);
	memcpy(x + n, qp.p + 16, n - 16);
	expect_error(x, 2 * n - 16, "more than one file");

	/* anything after the trailer */
	memcpy(x, qp.p, n);
	x[n] = 0;
	expect_error(x, n + 1, "after the end");

	/* the end marker cut short, then the archive ending between blocks */
	expect_error(qp.p, n - 12, "truncated");
	expect_error(qp.p, n - 16, "between blocks");

	free(x);
	free(qp.p);
}

/* Packets damaged with their checksums fixed, and damaged archives: a clean
 * result or a clean error, never anything else. */
static void test_fuzz(void)
{
	rng = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < NFIX; i++) {
		blob qp = load_qp(names[i], true);
		size_t first = first_block(&qp);
		for (int round = 0; round < 1500; round++) {
			uint8_t *x = malloc(qp.n + 16);
			memcpy(x, qp.p, qp.n);
			size_t len = qp.n;
			int kind = (int)(next_rand() % 3);
			if (kind == 0 && len > first + 40) {
				/* bytes of the first packet changed, its checksum recomputed */
				size_t pkt = first + 20, h = x[pkt] & 2 ? 9 : 3;
				size_t plen = h == 9 ? le32_get(x + pkt + 1) : x[pkt + 1];
				int k = 1 + (int)(next_rand() % 4);
				while (k--)
					x[pkt + h + next_rand() % (plen - h)] = (uint8_t)next_rand();
				le32_put(x + first + 16, (uint32_t)adler32(1, x + pkt, (uInt)plen));
			} else if (kind == 1) {
				int k = 1 + (int)(next_rand() % 8);
				while (k--)
					x[next_rand() % len] = (uint8_t)next_rand();
			} else {
				/* a random cut, maybe with a random byte appended */
				len = next_rand() % (len + 1);
				if (next_rand() & 1)
					x[len++] = (uint8_t)next_rand();
			}
			uint8_t *exact = malloc(len ? len : 1);
			memcpy(exact, x, len);
			outbuf o;
			xb_error err;
			int rc = decode(exact, len, 1 + next_rand() % 300, &o, &err);
			if (rc)
				assert_clean_error(rc, &err, "db/t.qp");
			free(o.p);
			free(exact);
			free(x);
		}
		free(qp.p);
	}
	/* the packet decoder alone on garbage behind valid headers */
	uint8_t pkt[600], out[4096];
	for (int round = 0; round < 20000; round++) {
		size_t clen = 13 + next_rand() % (sizeof pkt - 13), dlen = 1 + next_rand() % sizeof out;
		uint8_t *noise = random_bytes(clen);
		for (size_t k = 0; k < clen; k++)
			pkt[k] = k % 3 ? noise[k] : 0; /* some zeros: short and long references */
		free(noise);
		pkt[0] = 0x47;
		le32_put(pkt + 1, (uint32_t)clen);
		le32_put(pkt + 5, (uint32_t)dlen);
		const char *why = NULL;
		int rc = xb_qlz_decompress(pkt, clen, out, dlen, &why);
		CU_ASSERT(rc == 0 || (rc == -1 && why));
	}
}

int main(void)
{
	find_fixture_dir();
	snprintf(qp_dir, sizeof qp_dir, "%s/../qpress", fixture_dir);
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("qpress", NULL, NULL);
	CU_add_test(s, "mariabackup's .qp files decode to the server's bytes, in any pieces", test_fixtures_decode);
	CU_add_test(s, "one QuickLZ packet, lengths and flags checked", test_packet);
	CU_add_test(s, "the sink filter: names without .qp, others passed through", test_sink);
	CU_add_test(s, "every truncation fails cleanly", test_truncations);
	CU_add_test(s, "every byte changed: an error or the same bytes", test_every_byte);
	CU_add_test(s, "malformed and foreign archives", test_malformed);
	CU_add_test(s, "fuzz: damaged packets and archives", test_fuzz);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
