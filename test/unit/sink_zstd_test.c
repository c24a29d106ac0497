/*
 * sink_zstd_test.c - the zstd filters with real bytes: round trips of empty,
 * one-byte, one-job and many-job files of random and compressible data,
 * written in odd pieces; several files from several threads at once; output
 * that the zstd CLI decompresses, and CLI output (several frames too) that
 * unzstd decompresses; corrupted, truncated and empty .zst files fail with
 * XB_E_STREAM_CORRUPT naming the file and leave no decoded file; options out
 * of range are refused. A small in-memory sink records what the filters
 * pass on, so the tests also see what reaches the inner sink and when.
 */
#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sink/sink.h"
#include "sink/sink_zstd.h"

static char base[] = "/tmp/xb_zstd_test.XXXXXX";

#include "memsink.h"

/* InnoDB-like: 16 KiB pages of repeated records with a page header, some zeros. */
static uint8_t *compressible_bytes(size_t len)
{
	uint8_t *p = calloc(1, len + 1);
	for (size_t off = 0; off < len; off += 16384) {
		size_t end = off + 16384 < len ? off + 16384 : len;
		size_t pos = off;
		uint32_t page = (uint32_t)(off / 16384);
		for (int k = 0; k < 38 && pos < end; k++)
			p[pos++] = (uint8_t)(page >> (k % 4 * 8));
		size_t stop = end - (end - off) / 4; /* the page's free space stays zero */
		for (uint32_t row = 0; pos + 64 < stop; row++) {
			int n = snprintf((char *)p + pos, 64, "row%08u|name-%u|%llu|", page * 100 + row, row % 17,
					 (unsigned long long)(next_rand() % 1000));
			pos += (size_t)n;
		}
	}
	return p;
}

static void write_pieces(xb_sink_file *f, const uint8_t *data, size_t len, size_t piece, int *rc, xb_error *err)
{
	for (size_t off = 0; off < len && !*rc; off += piece)
		*rc = xb_sink_write(f, data + off, len - off < piece ? len - off : piece, err);
}

/* Compress data through zstd -> memory, then decompress through unzstd ->
 * memory; both must give back the data, and name the files right. */
static void roundtrip(const uint8_t *data, size_t len, size_t piece, int level, int threads)
{
	xb_error err;
	xb_err_clear(&err);
	msink *m1 = msink_new();
	xb_sink *z = xb_sink_zstd_open(&m1->base, level, threads, 512 << 10, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	xb_sink_file *f = xb_sink_open(z, "db/t1.ibd", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	int rc = 0;
	write_pieces(f, data, len, piece, &rc, &err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
	CU_ASSERT_EQUAL(z->bytes_written, len);
	mrec *c = mfind(m1, "db/t1.ibd.zst");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_TRUE(c->closed);
	CU_ASSERT(c->len >= 9); /* a frame header at least */
	CU_ASSERT_EQUAL(xb_sink_finish(z, &err), 0);
	CU_ASSERT_EQUAL(m1->finished, 1);

	msink *m2 = msink_new();
	xb_sink *u = xb_sink_unzstd_open(&m2->base, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	f = xb_sink_open(u, "db/t1.ibd.zst", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	write_pieces(f, c->data, c->len, piece, &rc, &err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
	mrec *d = mfind(m2, "db/t1.ibd");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_TRUE(d->closed);
	CU_ASSERT_EQUAL(d->len, len);
	CU_ASSERT(d->len == len && (len == 0 || memcmp(d->data, data, len) == 0));
	CU_ASSERT_EQUAL(u->bytes_written, c->len);
	xb_sink_free(u);
	xb_sink_free(z);
}

static void test_roundtrip_small(void)
{
	uint8_t one = 'x';
	roundtrip(NULL, 0, 1, 1, 1);
	roundtrip(&one, 1, 1, 1, 1);
	uint8_t *r = random_bytes(1000);
	roundtrip(r, 1000, 7, 3, 2);
	free(r);
}

static void test_roundtrip_one_job(void)
{
	size_t len = 512 << 10;
	uint8_t *r = random_bytes(len), *c = compressible_bytes(len);
	roundtrip(r, len, len, 1, 1);
	roundtrip(c, len, 4096, 3, 2);
	roundtrip(c, len - 1, 65536, 1, 4);
	roundtrip(c, len + 1, 1 << 20, 1, 4);
	free(r);
	free(c);
}

static void test_roundtrip_many_jobs(void)
{
	size_t len = (5u << 20) + 12345;
	uint8_t *r = random_bytes(len), *c = compressible_bytes(len);
	roundtrip(r, len, 1 << 20, 1, 2);
	roundtrip(c, len, 100000, 3, 3);
	roundtrip(c, len, len, 9, 2);
	free(r);
	free(c);
}

/* ---- several threads ---- */

typedef struct targ {
	xb_sink *s;
	int id;
	uint8_t *data[3];
	size_t len[3];
	int rc;
} targ;

static void *writer(void *arg)
{
	targ *t = arg;
	xb_error err;
	xb_err_clear(&err);
	for (int k = 0; k < 3; k++) {
		char name[64];
		snprintf(name, sizeof name, "t%d/f%d.ibd", t->id, k);
		xb_sink_file *f = xb_sink_open(t->s, name, &err);
		if (!f) {
			t->rc = 1;
			return NULL;
		}
		write_pieces(f, t->data[k], t->len[k], 65536 + (size_t)t->id * 4096, &t->rc, &err);
		if (t->rc || xb_sink_close(f, &err)) {
			t->rc = 1;
			return NULL;
		}
	}
	return NULL;
}

static void test_threads(void)
{
	xb_error err;
	xb_err_clear(&err);
	msink *m = msink_new();
	xb_sink *z = xb_sink_zstd_open(&m->base, 1, 2, 512 << 10, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	enum { NT = 4 };
	targ t[NT];
	pthread_t th[NT];
	uint64_t total = 0;
	for (int i = 0; i < NT; i++) {
		memset(&t[i], 0, sizeof t[i]);
		t[i].s = z;
		t[i].id = i;
		for (int k = 0; k < 3; k++) {
			t[i].len[k] = (size_t)(i * 3 + k) * 300000 + 17;
			t[i].data[k] = k == 1 ? random_bytes(t[i].len[k]) : compressible_bytes(t[i].len[k]);
			total += t[i].len[k];
		}
		pthread_create(&th[i], NULL, writer, &t[i]);
	}
	for (int i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(t[i].rc, 0);
	}
	CU_ASSERT_EQUAL(z->bytes_written, total);
	/* every file decompresses to its own data */
	msink *out = msink_new();
	xb_sink *u = xb_sink_unzstd_open(&out->base, &err);
	for (int i = 0; i < NT; i++)
		for (int k = 0; k < 3; k++) {
			char name[64];
			snprintf(name, sizeof name, "t%d/f%d.ibd.zst", i, k);
			mrec *c = mfind(m, name);
			CU_ASSERT_PTR_NOT_NULL_FATAL(c);
			CU_ASSERT_EQUAL(xb_sink_put(u, name, c->data, c->len, &err), 0);
			name[strlen(name) - 4] = '\0';
			mrec *d = mfind(out, name);
			CU_ASSERT_PTR_NOT_NULL_FATAL(d);
			CU_ASSERT(d->len == t[i].len[k] && memcmp(d->data, t[i].data[k], d->len) == 0);
			free(t[i].data[k]);
		}
	xb_sink_free(u);
	xb_sink_free(z);
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

/* More files than pool threads: the writers waiting for a thread sleep
 * instead of spinning, so compressing four files at once costs about the
 * CPU time of compressing them one after the other. */
static void test_no_busy_wait(void)
{
	xb_error err;
	xb_err_clear(&err);
	enum { NT = 4 };
	size_t len = 16u << 20;
	uint8_t *data = compressible_bytes(len);
	double cpu[2];
	for (int round = 0; round < 2; round++) {
		msink *m = msink_new();
		xb_sink *z = xb_sink_zstd_open(&m->base, 1, 1, 512 << 10, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(z);
		targ t[NT];
		pthread_t th[NT];
		double c0 = cpu_seconds();
		for (int i = 0; i < NT; i++) {
			memset(&t[i], 0, sizeof t[i]);
			t[i].s = z;
			t[i].id = i;
			for (int k = 0; k < 3; k++) {
				t[i].data[k] = data;
				t[i].len[k] = k ? 0 : len;
			}
			if (round == 0) /* one after the other */
				writer(&t[i]);
			else
				pthread_create(&th[i], NULL, writer, &t[i]);
		}
		for (int i = 0; round == 1 && i < NT; i++)
			pthread_join(th[i], NULL);
		cpu[round] = cpu_seconds() - c0;
		for (int i = 0; i < NT; i++)
			CU_ASSERT_EQUAL(t[i].rc, 0);
		CU_ASSERT_EQUAL(z->bytes_written, NT * len);
		xb_sink_free(z);
	}
	if (cpu[1] > 1.6 * cpu[0] + 0.05)
		fprintf(stderr, "\nCPU: %.3f s one by one, %.3f s at once\n", cpu[0], cpu[1]);
	CU_ASSERT(cpu[1] <= 1.6 * cpu[0] + 0.05);
	free(data);
}

/* Many small files reuse their contexts: quick, and all correct. */
static void test_many_small_files(void)
{
	xb_error err;
	xb_err_clear(&err);
	msink *m = msink_new();
	xb_sink *z = xb_sink_zstd_open(&m->base, 3, 4, 1 << 20, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	char text[2000];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 500; i++) {
		char name[64];
		snprintf(name, sizeof name, "db/t%d.frm", i);
		int n = snprintf(text, sizeof text, "table %d definition %0500d", i, i);
		CU_ASSERT_EQUAL_FATAL(xb_sink_put(z, name, text, (size_t)n, &err), 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CU_ASSERT(secs < 2.0);
	msink *out = msink_new();
	xb_sink *u = xb_sink_unzstd_open(&out->base, &err);
	mrec *c = mfind(m, "db/t321.frm.zst");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(xb_sink_put(u, "db/t321.frm.zst", c->data, c->len, &err), 0);
	int n = snprintf(text, sizeof text, "table %d definition %0500d", 321, 321);
	mrec *d = mfind(out, "db/t321.frm");
	CU_ASSERT(d && d->len == (size_t)n && !memcmp(d->data, text, (size_t)n));
	xb_sink_free(u);
	xb_sink_free(z);
}

/* ---- the zstd command-line tool ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	fclose(f);
	return buf;
}

static void spill(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (len)
		fwrite(data, 1, len, f);
	fclose(f);
}

static void test_cli_decompresses_ours(void)
{
	char dir[600], cmd[8192], path[700];
	snprintf(dir, sizeof dir, "%s/cli1", base);
	xb_error err;
	xb_err_clear(&err);
	xb_sink *d = xb_sink_dir_open(dir, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	xb_sink *z = xb_sink_zstd_open(d, 3, 2, 600 << 10, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	size_t len = (3u << 20) + 5;
	uint8_t *data = compressible_bytes(len);
	data[1000000] ^= 0x5a;
	CU_ASSERT_EQUAL(xb_sink_put(z, "db/big.ibd", data, len, &err), 0);
	CU_ASSERT_EQUAL(xb_sink_put(z, "empty", "", 0, &err), 0);
	CU_ASSERT_EQUAL(xb_sink_finish(z, &err), 0);
	xb_sink_free(z);
	snprintf(cmd, sizeof cmd, "zstd -q -t %s/db/big.ibd.zst %s/empty.zst && zstd -q -d -c %s/db/big.ibd.zst > %s/back",
		 dir, dir, dir, dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	snprintf(path, sizeof path, "%s/back", dir);
	size_t n = 0;
	char *back = slurp(path, &n);
	CU_ASSERT(back && n == len && !memcmp(back, data, len));
	free(back);
	snprintf(cmd, sizeof cmd, "test \"$(zstd -q -d -c %s/empty.zst | wc -c)\" = 0", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	/* the checksum is on: zstd -lv reports it */
	snprintf(cmd, sizeof cmd, "zstd -lv %s/db/big.ibd.zst 2>&1 | grep -q 'Check: XXH64'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	free(data);
}

static void test_unzstd_reads_cli(void)
{
	char dir[600], cmd[8192], path[700];
	snprintf(dir, sizeof dir, "%s/cli2", base);
	mkdir(dir, 0700);
	size_t len = (2u << 20) + 99;
	uint8_t *data = compressible_bytes(len);
	snprintf(path, sizeof path, "%s/in", dir);
	spill(path, data, len);
	/* one frame at level 19, then two frames concatenated */
	snprintf(cmd, sizeof cmd, "zstd -q -19 -f %s/in -o %s/a.zst && head -c 1000 %s/in | zstd -q -c > %s/b.zst && "
		 "cat %s/a.zst %s/b.zst > %s/ab.zst", dir, dir, dir, dir, dir, dir, dir);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	xb_error err;
	xb_err_clear(&err);
	msink *m = msink_new();
	xb_sink *u = xb_sink_unzstd_open(&m->base, &err);
	size_t n = 0;
	snprintf(path, sizeof path, "%s/a.zst", dir);
	char *a = slurp(path, &n);
	CU_ASSERT_EQUAL(xb_sink_put(u, "x/a.zst", a, n, &err), 0);
	mrec *r = mfind(m, "x/a");
	CU_ASSERT(r && r->closed && r->len == len && !memcmp(r->data, data, len));
	free(a);
	snprintf(path, sizeof path, "%s/ab.zst", dir);
	char *ab = slurp(path, &n);
	CU_ASSERT_EQUAL(xb_sink_put(u, "ab.zst", ab, n, &err), 0);
	r = mfind(m, "ab");
	CU_ASSERT(r && r->len == len + 1000 && !memcmp(r->data, data, len) && !memcmp(r->data + len, data, 1000));
	free(ab);
	/* other files pass through unchanged, under their own name */
	CU_ASSERT_EQUAL(xb_sink_put(u, "xtrabackup_checkpoints", "backup_type = full\n", 19, &err), 0);
	r = mfind(m, "xtrabackup_checkpoints");
	CU_ASSERT(r && r->closed && r->len == 19 && !memcmp(r->data, "backup_type = full\n", 19));
	CU_ASSERT_PTR_NULL(mfind(m, "zst"));
	xb_sink_free(u);
	free(data);
}

/* ---- damage ---- */

static uint8_t *compress_mem(const uint8_t *data, size_t len, size_t *clen)
{
	xb_error err;
	msink *m = msink_new();
	xb_sink *z = xb_sink_zstd_open(&m->base, 1, 1, 512 << 10, &err);
	xb_sink_put(z, "f", data, len, &err);
	mrec *r = mfind(m, "f.zst");
	uint8_t *out = malloc(r->len);
	memcpy(out, r->data, r->len);
	*clen = r->len;
	xb_sink_free(z);
	return out;
}

/* Feed bytes to unzstd as "db/t.ibd.zst"; returns the error code, err set. */
static int feed(const uint8_t *c, size_t clen, xb_error *err, int *aborted)
{
	xb_err_clear(err);
	msink *m = msink_new();
	xb_sink *u = xb_sink_unzstd_open(&m->base, err);
	xb_sink_file *f = xb_sink_open(u, "db/t.ibd.zst", err);
	int rc = 0;
	write_pieces(f, c, clen, 8192, &rc, err);
	if (rc)
		xb_sink_abort(f);
	else
		rc = xb_sink_close(f, err);
	mrec *r = mfind(m, "db/t.ibd");
	*aborted = r && r->aborted && !r->closed;
	xb_sink_free(u);
	return rc;
}

static void test_corrupt(void)
{
	size_t len = 3u << 20, clen = 0;
	uint8_t *data = compressible_bytes(len);
	uint8_t *c = compress_mem(data, len, &clen);
	xb_error err;
	int aborted = 0;
	CU_ASSERT_EQUAL(feed(c, clen, &err, &aborted), 0);
	/* a flipped byte in the middle: a block error or a checksum mismatch */
	c[clen / 2] ^= 0x20;
	CU_ASSERT_EQUAL(feed(c, clen, &err, &aborted), XB_E_STREAM_CORRUPT);
	CU_ASSERT_TRUE(aborted);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "db/t.ibd.zst: corrupt zstd data near byte"));
	c[clen / 2] ^= 0x20;
	/* the checksum itself */
	c[clen - 1] ^= 1;
	CU_ASSERT_EQUAL(feed(c, clen, &err, &aborted), XB_E_STREAM_CORRUPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "checksum"));
	c[clen - 1] ^= 1;
	/* garbage after the frame */
	uint8_t *longer = malloc(clen + 20);
	memcpy(longer, c, clen);
	memset(longer + clen, 0x55, 20);
	CU_ASSERT_EQUAL(feed(longer, clen + 20, &err, &aborted), XB_E_STREAM_CORRUPT);
	free(longer);
	free(c);
	free(data);
}

static void test_truncated(void)
{
	size_t len = 2u << 20, clen = 0;
	uint8_t *data = random_bytes(len);
	uint8_t *c = compress_mem(data, len, &clen);
	xb_error err;
	int aborted = 0;
	CU_ASSERT_EQUAL(feed(c, clen - 4, &err, &aborted), XB_E_STREAM_CORRUPT);
	CU_ASSERT_TRUE(aborted);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "db/t.ibd.zst is truncated: its zstd frame ends early"));
	CU_ASSERT_EQUAL(feed(c, clen / 2, &err, &aborted), XB_E_STREAM_CORRUPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is truncated"));
	CU_ASSERT_EQUAL(feed(c, 3, &err, &aborted), XB_E_STREAM_CORRUPT);
	CU_ASSERT_EQUAL(feed(c, 0, &err, &aborted), XB_E_STREAM_CORRUPT);
	CU_ASSERT_STRING_EQUAL(err.msg, "db/t.ibd.zst is empty: it holds no zstd frame");
	free(c);
	free(data);
}

/* Decoding into a directory: a damaged file leaves nothing under its name. */
static void test_dir_nothing_left(void)
{
	char dir[600], path[700];
	snprintf(dir, sizeof dir, "%s/dmg", base);
	size_t len = 1u << 20, clen = 0;
	uint8_t *data = compressible_bytes(len);
	uint8_t *c = compress_mem(data, len, &clen);
	c[clen - 2] ^= 0xff;
	xb_error err;
	xb_err_clear(&err);
	xb_sink *u = xb_sink_unzstd_open(xb_sink_dir_open(dir, &err), &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	CU_ASSERT_EQUAL(xb_sink_put(u, "t.ibd.zst", c, clen, &err), XB_E_STREAM_CORRUPT);
	snprintf(path, sizeof path, "%s/t.ibd", dir);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	snprintf(path, sizeof path, "%s/t.ibd.xbtmp", dir);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	/* abort of a compressed file: nothing either */
	xb_sink *z = xb_sink_zstd_open(xb_sink_dir_open(dir, &err), 1, 2, 512 << 10, &err);
	xb_sink_file *f = xb_sink_open(z, "a.ibd", &err);
	CU_ASSERT_EQUAL(xb_sink_write(f, data, len, &err), 0);
	xb_sink_abort(f);
	snprintf(path, sizeof path, "%s/a.ibd.zst.xbtmp", dir);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	xb_sink_free(z);
	xb_sink_free(u);
	free(c);
	free(data);
}

static void test_bad_options(void)
{
	xb_error err;
	msink *m = msink_new();
	xb_err_clear(&err);
	CU_ASSERT_PTR_NULL(xb_sink_zstd_open(&m->base, 0, 1, 1 << 20, &err));
	CU_ASSERT_EQUAL(err.code, XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid --compress-level=0: use 1 (fastest) to 19");
	CU_ASSERT_PTR_NULL(xb_sink_zstd_open(&m->base, 20, 1, 1 << 20, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--compress-level=20"));
	CU_ASSERT_PTR_NULL(xb_sink_zstd_open(&m->base, 1, 0, 1 << 20, &err));
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid --compress-threads=0: use 1 to 64");
	CU_ASSERT_PTR_NULL(xb_sink_zstd_open(&m->base, 1, 65, 1 << 20, &err));
	CU_ASSERT_EQUAL(err.code, XB_E_USAGE);
	/* a chunk under zstd's minimum is raised to it, not refused */
	xb_sink *z = xb_sink_zstd_open(&m->base, 19, 64, 4096, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	CU_ASSERT_EQUAL(xb_sink_put(z, "x", "abc", 3, &err), 0);
	xb_sink_free(z); /* frees m too */
}

int main(void)
{
	if (!mkdtemp(base))
		return 1;
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("sink_zstd", NULL, NULL);
	CU_add_test(s, "round trip: 0, 1 and 1000 bytes", test_roundtrip_small);
	CU_add_test(s, "round trip: one job, just under and over", test_roundtrip_one_job);
	CU_add_test(s, "round trip: many jobs, random and compressible", test_roundtrip_many_jobs);
	CU_add_test(s, "several files from several threads share the pool", test_threads);
	CU_add_test(s, "more files than pool threads: no busy-waiting", test_no_busy_wait);
	CU_add_test(s, "many small files are quick", test_many_small_files);
	CU_add_test(s, "zstd -d reads our files (checksum on)", test_cli_decompresses_ours);
	CU_add_test(s, "unzstd reads zstd's files, several frames, passes others", test_unzstd_reads_cli);
	CU_add_test(s, "corrupt byte, checksum, trailing garbage -> STREAM_CORRUPT", test_corrupt);
	CU_add_test(s, "truncated and empty -> STREAM_CORRUPT", test_truncated);
	CU_add_test(s, "damaged or aborted files leave nothing in a directory", test_dir_nothing_left);
	CU_add_test(s, "level and threads out of range are refused", test_bad_options);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", base);
	if (system(cmd)) {
		/* best effort */
	}
	return failed ? 1 : 0;
}
