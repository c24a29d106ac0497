/*
 * sink_zstd.c - zstd compression and decompression filters (see sink_zstd.h).
 *
 * Compression: every file gets its own ZSTD_CCtx in multithreaded mode
 * (ZSTD_c_nbWorkers >= 1, so compression never runs in the copying thread:
 * the writer only hands its bytes over and collects finished output), and
 * every context draws its workers from the one ZSTD_threadPool of the sink,
 * so --compress-threads bounds the CPU used however many files are open at
 * once. Input is cut into jobs of --compress-chunk-size bytes (zstd's
 * minimum is 512 KiB); the output is one ordinary zstd frame per file, with
 * the content checksum on, so `zstd -d` reads it and corruption is detected.
 * When more files are being written than the pool has threads, a writer
 * whose file has no job running waits by sleeping, never spinning (see
 * pump()): libzstd alone would retry in a tight loop and steal the CPU the
 * pool needs. Contexts and their output buffers are kept on a small free
 * list and reset between files: a backup has many small files, and building
 * a multithreaded context for each would cost more than compressing them.
 * Output is gathered in a 1 MiB buffer and handed to the inner sink when full
 * and at close, so a stream container sees large pieces.
 *
 * Decompression: files named *.zst are fed through ZSTD_decompressStream
 * into the inner file of the name without .zst (concatenated frames are
 * accepted, as by zstd -d); a frame error, a checksum mismatch or input that
 * ends inside a frame fails with XB_E_STREAM_CORRUPT naming the file and
 * the byte offset. Other files pass through unchanged.
 *
 * bytes_written of both filters counts the bytes they accepted (before
 * compression, or as read from the .zst file).
 */
#define ZSTD_STATIC_LINKING_ONLY
#include "sink_zstd.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "common/log.h"

#define OUT_SIZE (1u << 20)          /* output gathered before an inner write */
#define OUT_ALIGN 4096u              /* so a directory sink can write it with direct I/O */
#define FREE_MAX 16                  /* contexts kept for reuse */
#define JOB_MIN (512u << 10)         /* ZSTDMT_JOBSIZE_MIN */
#define JOB_MAX (512u << 20)         /* well under ZSTDMT_JOBSIZE_MAX */
#define SUFFIX ".zst"
#define SUFFIX_LEN 4

/* A context with its output buffer, reused from file to file. */
typedef struct zctx {
	void *ctx;    /* ZSTD_CCtx or ZSTD_DCtx */
	uint8_t *out; /* OUT_SIZE bytes, OUT_ALIGN aligned */
} zctx;

typedef struct zstd_sink {
	xb_sink base;             /* must be first */
	xb_sink *inner;           /* owned */
	bool decompress;          /* unzstd, else zstd */
	int level, threads;       /* compression parameters */
	size_t job;               /* bytes per job */
	ZSTD_threadPool *pool;    /* shared by every compression context */
	pthread_mutex_t mu;       /* protects the free list */
	zctx free_list[FREE_MAX]; /* idle contexts */
	int nfree;                /* entries in free_list */
	zctx *parked;             /* contexts that could not be quiesced (see cctx_quiesce) */
	size_t nparked;
} zstd_sink;

typedef struct zstd_file {
	xb_sink *sink;        /* must be first: owning sink */
	xb_sink_file *inner;  /* the file in the inner sink */
	zctx z;               /* z.ctx NULL: passed through unchanged */
	size_t outpos;        /* bytes waiting in z.out */
	size_t last;          /* unzstd: last ZSTD_decompressStream result, 0 at a frame end */
	bool full;            /* unzstd: the last call filled the output buffer */
	uint64_t in;          /* bytes accepted */
	char name[];          /* the name given to open() */
} zstd_file;

static bool has_suffix(const char *s)
{
	size_t n = strlen(s);
	return n > SUFFIX_LEN && !strcmp(s + n - SUFFIX_LEN, SUFFIX);
}

static void zctx_destroy(const zstd_sink *z, zctx *c)
{
	if (c->ctx) {
		if (z->decompress)
			ZSTD_freeDCtx(c->ctx);
		else
			ZSTD_freeCCtx(c->ctx);
	}
	free(c->out);
	c->ctx = NULL;
	c->out = NULL;
}

static int cctx_setup(zstd_sink *z, ZSTD_CCtx *cc, xb_error *err)
{
	size_t r;
	if (ZSTD_isError(r = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, z->level)) ||
	    ZSTD_isError(r = ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(r = ZSTD_CCtx_setParameter(cc, ZSTD_c_nbWorkers, z->threads)) ||
	    ZSTD_isError(r = ZSTD_CCtx_setParameter(cc, ZSTD_c_jobSize, (int)z->job)) ||
	    ZSTD_isError(r = ZSTD_CCtx_refThreadPool(cc, z->pool)))
		return xb_err_set(err, XB_E_INTERNAL, "cannot set up zstd compression: %s", ZSTD_getErrorName(r)),
		       xb_err_hint(err, "libzstd must be built with multithreading (the distribution's libzstd is)");
	return 0;
}

/* A context from the free list, or a new one. */
static int zctx_get(zstd_sink *z, zctx *c, xb_error *err)
{
	pthread_mutex_lock(&z->mu);
	if (z->nfree > 0) {
		*c = z->free_list[--z->nfree];
		pthread_mutex_unlock(&z->mu);
		return 0;
	}
	pthread_mutex_unlock(&z->mu);
	c->ctx = z->decompress ? (void *)ZSTD_createDCtx() : (void *)ZSTD_createCCtx();
	if (posix_memalign((void **)&c->out, OUT_ALIGN, OUT_SIZE))
		c->out = NULL;
	if (!c->ctx || !c->out) {
		zctx_destroy(z, c);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory for a zstd context");
	}
	if (!z->decompress && cctx_setup(z, c->ctx, err)) {
		zctx_destroy(z, c);
		return err ? err->code : XB_E_INTERNAL;
	}
	return 0;
}

/* Back to the free list, ready for the next file (or freed when the list is full). */
static void zctx_put(zstd_sink *z, zctx *c)
{
	if (!c->ctx)
		return;
	size_t r = z->decompress ? ZSTD_DCtx_reset(c->ctx, ZSTD_reset_session_only)
				 : ZSTD_CCtx_reset(c->ctx, ZSTD_reset_session_only);
	pthread_mutex_lock(&z->mu);
	if (!ZSTD_isError(r) && z->nfree < FREE_MAX) {
		z->free_list[z->nfree++] = *c;
		c->ctx = NULL;
		c->out = NULL;
	}
	pthread_mutex_unlock(&z->mu);
	zctx_destroy(z, c); /* no-op when kept */
}

static xb_sink_file *zs_open(xb_sink *s, const char *relpath, xb_error *err)
{
	zstd_sink *z = (zstd_sink *)s;
	size_t n = strlen(relpath);
	bool code = !z->decompress || has_suffix(relpath);
	/* room for the name used in messages and, after it, the inner name */
	zstd_file *f = calloc(1, sizeof *f + 2 * (n + SUFFIX_LEN + 1));
	if (!f) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	f->sink = s;
	memcpy(f->name, relpath, n + 1);
	const char *inner_name = f->name;
	if (code && !z->decompress) {
		memcpy(f->name + n, SUFFIX, SUFFIX_LEN + 1); /* x -> x.zst */
	} else if (code) {
		char *bare = f->name + n + SUFFIX_LEN + 1; /* x.zst -> x */
		memcpy(bare, relpath, n - SUFFIX_LEN);
		bare[n - SUFFIX_LEN] = '\0';
		inner_name = bare;
	}
	if (code && zctx_get(z, &f->z, err)) {
		free(f);
		return NULL;
	}
	f->inner = xb_sink_open(z->inner, inner_name, err);
	if (!f->inner) {
		zctx_put(z, &f->z);
		free(f);
		return NULL;
	}
	return (xb_sink_file *)f;
}

/* Hand the gathered output to the inner file (dropped once that was aborted). */
static int flush_out(zstd_file *f, xb_error *err)
{
	if (!f->outpos)
		return 0;
	int rc = f->inner ? xb_sink_write(f->inner, f->z.out, f->outpos, err) : 0;
	f->outpos = 0;
	return rc;
}

static void count(zstd_file *f, size_t len)
{
	f->in += len;
	atomic_fetch_add((_Atomic uint64_t *)&f->sink->bytes_written, len);
}

/* Compression work (feed `in` with op ZSTD_e_continue, or end the frame with
 * ZSTD_e_end) without letting libzstd busy-wait. When every thread of the
 * shared pool is taken by other files' jobs and this file has none running,
 * ZSTD_compressStream2 retries in a tight loop until a thread frees up. So
 * input is pushed with no output room (one pass, never loops), output is
 * collected only as far as ZSTD_toFlushNow() says it is ready (one pass
 * again), and when neither moved the thread sleeps briefly (50 us doubling
 * to 1 ms) before trying again. A file with jobs of its own running still
 * blocks on them inside libzstd, which wakes it when they produce. */
static int pump(zstd_file *f, ZSTD_inBuffer *in, ZSTD_EndDirective op, xb_error *err)
{
	ZSTD_CCtx *cc = f->z.ctx;
	long wait_ns = 0;
	for (;;) {
		size_t ipos = in->pos;
		ZSTD_outBuffer none = {f->z.out, f->outpos, f->outpos};
		size_t r = ZSTD_compressStream2(cc, &none, in, op);
		size_t ready = ZSTD_isError(r) ? 0 : ZSTD_toFlushNow(cc);
		if (ready) {
			if (f->outpos == OUT_SIZE && flush_out(f, err))
				return err ? err->code : XB_E_IO_WRITE;
			size_t room = OUT_SIZE - f->outpos;
			ZSTD_outBuffer out = {f->z.out, f->outpos + (ready < room ? ready : room), f->outpos};
			r = ZSTD_compressStream2(cc, &out, in, op);
			f->outpos = out.pos;
		}
		if (ZSTD_isError(r))
			return xb_err_set(err, XB_E_INTERNAL, "%s: zstd compression failed: %s", f->name,
					  ZSTD_getErrorName(r));
		if (op == ZSTD_e_end ? r == 0 : in->pos == in->size)
			return 0;
		if (in->pos != ipos || ready) {
			wait_ns = 0;
			continue;
		}
		wait_ns = wait_ns ? (wait_ns < 1000000 ? wait_ns * 2 : 1000000) : 50000;
		struct timespec ts = {0, wait_ns};
		nanosleep(&ts, NULL);
	}
}

static int zs_write_compress(zstd_file *f, const void *buf, size_t len, xb_error *err)
{
	ZSTD_inBuffer in = {buf, len, 0};
	int rc = pump(f, &in, ZSTD_e_continue, err);
	if (!rc)
		count(f, len);
	return rc;
}

static int corrupt(zstd_file *f, uint64_t at, size_t r, xb_error *err)
{
	xb_err_set(err, XB_E_STREAM_CORRUPT, "%s: corrupt zstd data near byte %llu: %s", f->name,
		   (unsigned long long)at, ZSTD_getErrorName(r));
	if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
		return xb_err_hint(err, "it was compressed with a window over 128 MiB (zstd --long or --ultra), which "
				   "this tool refuses: decompress it with zstd -d --memory=2GB");
	return xb_err_hint(err, "the file was damaged after it was written; use another copy of the backup");
}

static int zs_write_decompress(zstd_file *f, const void *buf, size_t len, xb_error *err)
{
	ZSTD_inBuffer in = {buf, len, 0};
	while (in.pos < in.size) {
		ZSTD_outBuffer out = {f->z.out, OUT_SIZE, f->outpos};
		size_t r = ZSTD_decompressStream(f->z.ctx, &out, &in);
		f->outpos = out.pos;
		if (ZSTD_isError(r))
			return corrupt(f, f->in + in.pos, r, err);
		f->last = r;
		f->full = f->outpos == OUT_SIZE; /* more output may wait inside the context */
		if (f->full && flush_out(f, err))
			return err ? err->code : XB_E_IO_WRITE;
	}
	count(f, len);
	return 0;
}

static int zs_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	zstd_file *f = (zstd_file *)file;
	if (!f->z.ctx) {
		int rc = xb_sink_write(f->inner, buf, len, err);
		if (!rc)
			count(f, len);
		return rc;
	}
	if (!len)
		return 0;
	return ((zstd_sink *)f->sink)->decompress ? zs_write_decompress(f, buf, len, err)
						   : zs_write_compress(f, buf, len, err);
}

/* An abandoned compression may still have jobs running in the shared pool,
 * and ZSTD_freeCCtx does not wait for jobs of a pool it does not own: the
 * frame is ended (output dropped: the inner file is gone), after which the
 * context is idle and can be reused. Should even that fail, the context is
 * parked until the pool is freed (which runs every queued job first). */
static void cctx_quiesce(zstd_file *f)
{
	zstd_sink *z = (zstd_sink *)f->sink;
	ZSTD_inBuffer none = {NULL, 0, 0};
	if (f->in == 0 || pump(f, &none, ZSTD_e_end, NULL) == 0) {
		zctx_put(z, &f->z); /* never started, or ended */
		return;
	}
	pthread_mutex_lock(&z->mu);
	zctx *v = realloc(z->parked, (z->nparked + 1) * sizeof *v);
	if (v) {
		z->parked = v;
		v[z->nparked++] = f->z;
	}
	pthread_mutex_unlock(&z->mu);
	if (!v)
		free(f->z.out); /* the context itself leaks: freeing it could crash a running job */
	f->z.ctx = NULL;
	f->z.out = NULL;
}

static void zs_abort(xb_sink_file *file)
{
	zstd_file *f = (zstd_file *)file;
	zstd_sink *z = (zstd_sink *)f->sink;
	xb_sink_abort(f->inner);
	f->inner = NULL;
	if (z->decompress)
		zctx_put(z, &f->z);
	else if (f->z.ctx)
		cctx_quiesce(f);
	free(f);
}

/* Finish the frame (compression) or check it ended (decompression). */
static int zs_drain(zstd_file *f, xb_error *err)
{
	zstd_sink *z = (zstd_sink *)f->sink;
	ZSTD_inBuffer none = {NULL, 0, 0};
	if (!z->decompress && f->in) {
		int rc = pump(f, &none, ZSTD_e_end, err);
		return rc ? rc : flush_out(f, err);
	}
	if (!z->decompress) {
		/* an empty file: libzstd makes its frame in this thread (no jobs) */
		for (;;) {
			ZSTD_outBuffer out = {f->z.out, OUT_SIZE, f->outpos};
			size_t r = ZSTD_compressStream2(f->z.ctx, &out, &none, ZSTD_e_end);
			f->outpos = out.pos;
			if (ZSTD_isError(r))
				return xb_err_set(err, XB_E_INTERNAL, "%s: zstd compression failed: %s", f->name,
						  ZSTD_getErrorName(r));
			if (r == 0)
				return flush_out(f, err);
			if (flush_out(f, err))
				return err ? err->code : XB_E_IO_WRITE;
		}
	}
	/* output left inside the context when the buffer filled mid-frame */
	while (f->last != 0 && f->full) {
		ZSTD_outBuffer out = {f->z.out, OUT_SIZE, f->outpos};
		size_t r = ZSTD_decompressStream(f->z.ctx, &out, &none);
		f->outpos = out.pos;
		if (ZSTD_isError(r))
			return corrupt(f, f->in, r, err);
		f->last = r;
		f->full = f->outpos == OUT_SIZE;
		if (f->full && flush_out(f, err))
			return err ? err->code : XB_E_IO_WRITE;
	}
	if (f->in == 0)
		return xb_err_set(err, XB_E_STREAM_CORRUPT, "%s is empty: it holds no zstd frame", f->name),
		       xb_err_hint(err, "the file was damaged after it was written; use another copy of the backup");
	if (f->last != 0)
		return xb_err_set(err, XB_E_STREAM_CORRUPT, "%s is truncated: its zstd frame ends early, after %llu bytes",
				  f->name, (unsigned long long)f->in),
		       xb_err_hint(err, "the file was cut short (an interrupted copy or transfer?); use another copy of the backup");
	return flush_out(f, err);
}

static int zs_close(xb_sink_file *file, xb_error *err)
{
	zstd_file *f = (zstd_file *)file;
	zstd_sink *z = (zstd_sink *)f->sink;
	if (f->z.ctx) {
		int rc = zs_drain(f, err);
		if (rc) {
			zs_abort(file);
			return rc;
		}
		zctx_put(z, &f->z);
	}
	int rc = xb_sink_close(f->inner, err);
	free(f);
	return rc;
}

static int zs_finish(xb_sink *s, xb_error *err)
{
	return xb_sink_finish(((zstd_sink *)s)->inner, err);
}

static void zs_free(xb_sink *s)
{
	zstd_sink *z = (zstd_sink *)s;
	for (int i = 0; i < z->nfree; i++)
		zctx_destroy(z, &z->free_list[i]);
	if (z->pool)
		ZSTD_freeThreadPool(z->pool); /* after every context that used it */
	for (size_t i = 0; i < z->nparked; i++)
		zctx_destroy(z, &z->parked[i]); /* their jobs have run now */
	free(z->parked);
	xb_sink_free(z->inner);
	pthread_mutex_destroy(&z->mu);
	free(z);
}

static const xb_sink_ops zstd_ops = {
	.open = zs_open,
	.write = zs_write,
	.close = zs_close,
	.abort = zs_abort,
	.finish = zs_finish,
	.free = zs_free,
};

static zstd_sink *new_sink(xb_sink *inner, bool decompress, xb_error *err)
{
	zstd_sink *z = calloc(1, sizeof *z);
	if (!z) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	z->base.ops = &zstd_ops;
	z->base.name = inner->name;
	z->inner = inner;
	z->decompress = decompress;
	pthread_mutex_init(&z->mu, NULL);
	return z;
}

xb_sink *xb_sink_zstd_open(xb_sink *inner, int level, int threads, size_t chunk, xb_error *err)
{
	if (level < 1 || level > 19) {
		xb_err_set(err, XB_E_USAGE, "invalid --compress-level=%d: use 1 (fastest) to 19", level);
		return NULL;
	}
	if (threads < 1 || threads > 64) {
		xb_err_set(err, XB_E_USAGE, "invalid --compress-threads=%d: use 1 to 64", threads);
		return NULL;
	}
	size_t job = chunk < JOB_MIN ? JOB_MIN : chunk > JOB_MAX ? JOB_MAX : chunk;
	if (job != chunk)
		xb_warn("--compress-chunk-size=%zu is outside %u..%u: using %zu", chunk, JOB_MIN, JOB_MAX, job);
	zstd_sink *z = new_sink(inner, false, err);
	if (!z)
		return NULL;
	z->level = level;
	z->threads = threads;
	z->job = job;
	z->pool = ZSTD_createThreadPool((size_t)threads);
	if (!z->pool) {
		xb_err_set(err, XB_E_INTERNAL, "cannot start %d zstd compression threads", threads);
		z->inner = NULL; /* the caller keeps it */
		pthread_mutex_destroy(&z->mu);
		free(z);
		return NULL;
	}
	return &z->base;
}

xb_sink *xb_sink_unzstd_open(xb_sink *inner, xb_error *err)
{
	zstd_sink *z = new_sink(inner, true, err);
	return z ? &z->base : NULL;
}
