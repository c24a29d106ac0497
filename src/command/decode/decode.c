/*
 * decode.c - --decompress / --decrypt: decode the files of a backup in place.
 *
 *   xtrabackup --decompress [--decrypt=AES256 --encrypt-key-file=K]
 *              --target-dir=DIR [--parallel=N] [--remove-original]
 *
 * DIR is walked recursively (symbolic links are not followed). A file is
 * decoded when it ends in .xbcrypt (with --decrypt) or .zst or .qp (with
 * --decompress: our zstd, or mariabackup's own --compress, doc/qpress.md);
 * x.zst.xbcrypt with both becomes x, with --decrypt alone x.zst. A directory
 * may hold both kinds of compressed files: each is decoded by its suffix.
 * Each is read and pushed through the same filter chain extraction uses:
 * decrypt -> unzstd -> unqpress -> directory sink on DIR (no-replace mode),
 * so the decoded file is written under a temporary name and appears under
 * its final name only when whole and verified. The plan is checked before
 * anything is written: a decoded name that already exists stops the run.
 * --parallel workers (common/parallel.h) take files largest first.
 *
 * --remove-original removes an encoded file only once its decoded copy is
 * durable: removals are queued, and every 64 files or 1 GiB (and at the end)
 * the sink's finish() fsyncs every file closed so far and their directories,
 * then the queued originals are unlinked. So a crash at any moment leaves
 * every file whole in at least one of its two forms.
 *
 * The first error stops the run and names the file; files already decoded
 * stay (they are whole), the rest keep their encoded form, so running the
 * same command again (with --remove-original, or after removing the decoded
 * files) finishes the job.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "command/command.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/path.h"
#include "common/progress.h"
#include "platform/clock.h"
#include "platform/file.h"
#include "settings.h"
#include "sink/sink_crypt.h"
#include "sink/sink_qpress.h"
#include "sink/sink_zstd.h"
#include "stream/qpress.h"

#define READ_SIZE (1u << 20)          /* bytes per read of an encoded file */
#define REMOVE_BATCH_FILES 64         /* queued removals that trigger a sync */
#define REMOVE_BATCH_BYTES (1ull << 30)

typedef struct dfile {
	char *rel;       /* path below DIR, as found (encoded name) */
	uint64_t size;   /* bytes */
} dfile;

typedef struct dctx {
	const char *dir;            /* --target-dir */
	bool decrypt, decompress;   /* what to decode */
	bool remove;                /* --remove-original */
	dfile *v;                   /* files to decode */
	size_t n, cap;
	uint64_t total;             /* their bytes */
	size_t left_enc, left_zip;  /* files that stay encrypted / compressed */
	xb_sink *sink;              /* the chain */
	xb_sink *box;               /* its directory sink (bytes out) */
	_Atomic size_t done;        /* files decoded */
	volatile uint64_t *progress; /* bytes read, for the meter (may be NULL) */
	pthread_mutex_t mu;         /* protects the removal queue */
	char **rm;                  /* originals waiting for their copy to be durable */
	size_t nrm, caprm;
	uint64_t rm_bytes;
	size_t removed;             /* originals removed */
} dctx;

/* The name a file gets once decoded (malloc'ed). */
static char *decoded_name(const dctx *c, const char *rel)
{
	char *out = strdup(rel);
	if (!out)
		return NULL;
	if (c->decrypt && xb_path_has_suffix(out, ".xbcrypt"))
		out[strlen(out) - 8] = '\0';
	if (c->decompress && xb_path_has_suffix(out, ".zst"))
		out[strlen(out) - 4] = '\0';
	else if (c->decompress && xb_path_has_suffix(out, XB_QPRESS_SUFFIX))
		out[strlen(out) - strlen(XB_QPRESS_SUFFIX)] = '\0';
	return out;
}

static int add_file(dctx *c, const char *rel, uint64_t size, xb_error *err)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		dfile *v = realloc(c->v, cap * sizeof *v);
		if (!v)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		c->v = v;
		c->cap = cap;
	}
	if (!(c->v[c->n].rel = strdup(rel)))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	c->v[c->n++].size = size;
	c->total += size;
	return 0;
}

/* Collect the files to decode below DIR/rel ("" for DIR itself). */
static int walk(dctx *c, const char *rel, xb_error *err)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s%s%s", c->dir, *rel ? "/" : "", rel) >= (int)sizeof path)
		return xb_err_set(err, XB_E_TARGET, "path too long: %s/%s", c->dir, rel);
	DIR *d = opendir(path);
	if (!d)
		return xb_err_set(err, XB_E_IO_READ, "cannot read directory %s: %s", path, strerror(errno));
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		if (snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >= (int)sizeof sub) {
			rc = xb_err_set(err, XB_E_TARGET, "path too long: %s/%s", path, e->d_name);
			break;
		}
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			rc = xb_err_set(err, XB_E_IO_READ, "cannot stat %s/%s: %s", path, e->d_name, strerror(errno));
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			rc = walk(c, sub, err);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		bool enc = xb_path_has_suffix(e->d_name, ".xbcrypt");
		bool zip = xb_path_has_suffix(e->d_name, ".zst") || xb_path_has_suffix(e->d_name, XB_QPRESS_SUFFIX);
		bool zip_inside = enc && (xb_path_has_suffix(e->d_name, ".zst.xbcrypt") ||
					  xb_path_has_suffix(e->d_name, XB_QPRESS_SUFFIX ".xbcrypt"));
		if ((c->decrypt && enc) || (c->decompress && zip)) {
			rc = add_file(c, sub, (uint64_t)st.st_size, err);
			if (c->decrypt && zip_inside && !c->decompress)
				c->left_zip++;
		} else if (enc) {
			c->left_enc++;
		} else if (zip) {
			c->left_zip++;
		}
	}
	closedir(d);
	return rc;
}

static int by_size_desc(const void *a, const void *b)
{
	const dfile *x = a, *y = b;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : strcmp(x->rel, y->rel);
}

/* Refuse before writing anything when a decoded name is already taken. */
static int check_plan(const dctx *c, xb_error *err)
{
	for (size_t i = 0; i < c->n; i++) {
		char *name = decoded_name(c, c->v[i].rel);
		if (!name)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		char path[PATH_MAX];
		int rc = xb_path_join(path, sizeof path, c->dir, name, err);
		struct stat st;
		bool taken = !rc && lstat(path, &st) == 0;
		free(name);
		if (rc)
			return rc;
		if (taken)
			return xb_err_set(err, XB_E_TARGET, "%s already exists: decoding %s/%s would replace it", path,
					  c->dir, c->v[i].rel),
			       xb_err_hint(err, "an earlier run decoded it: remove the decoded file (or, if it is whole, the "
					   "encoded one) and run again; --remove-original avoids this");
	}
	return 0;
}

/* Make every decoded copy so far durable, then remove the queued originals.
 * Called with c->mu held: no removal is queued meanwhile, and every queued
 * one was closed before it was queued, so finish() covers it. */
static int flush_removals(dctx *c, xb_error *err)
{
	if (!c->nrm)
		return 0;
	int rc = xb_sink_finish(c->sink, err);
	for (size_t i = 0; i < c->nrm; i++) {
		if (!rc) {
			if (unlink(c->rm[i]) && errno != ENOENT)
				xb_warn("cannot remove %s after decoding it: %s", c->rm[i], strerror(errno));
			else
				c->removed++;
		}
		free(c->rm[i]);
	}
	c->nrm = 0;
	c->rm_bytes = 0;
	return rc;
}

static int queue_removal(dctx *c, const char *path, uint64_t size, xb_error *err)
{
	int rc = 0;
	pthread_mutex_lock(&c->mu);
	if (c->nrm == c->caprm) {
		size_t cap = c->caprm ? c->caprm * 2 : REMOVE_BATCH_FILES;
		char **v = realloc(c->rm, cap * sizeof *v);
		if (v) {
			c->rm = v;
			c->caprm = cap;
		}
	}
	char *copy = c->nrm < c->caprm ? strdup(path) : NULL;
	if (!copy) {
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	} else {
		c->rm[c->nrm++] = copy;
		c->rm_bytes += size;
		if (c->nrm >= REMOVE_BATCH_FILES || c->rm_bytes >= REMOVE_BATCH_BYTES)
			rc = flush_removals(c, err);
	}
	pthread_mutex_unlock(&c->mu);
	return rc;
}

/* The run stops at the first error, and at a signal. */
static bool stopping(const xb_parallel *run)
{
	return xb_parallel_stopping(run) || command_interrupted(NULL);
}

/* The filters name a file by its path below DIR: make it the full path. */
static int name_in_dir(const dctx *c, const char *rel, xb_error *err)
{
	if (err && err->code && !strncmp(err->msg, rel, strlen(rel))) {
		size_t dl = strlen(c->dir), ml = strlen(err->msg);
		if (dl + 1 + ml < sizeof err->msg) {
			memmove(err->msg + dl + 1, err->msg, ml + 1);
			memcpy(err->msg, c->dir, dl);
			err->msg[dl] = '/';
		}
	}
	return err && err->code ? err->code : XB_E_INTERNAL;
}

static int decode_one(const xb_parallel *run, dctx *c, const dfile *df, int worker, uint8_t *buf, xb_error *err)
{
	char path[PATH_MAX];
	int rc = xb_path_join(path, sizeof path, c->dir, df->rel, err);
	if (rc)
		return rc;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	xb_file_advise(fd, 0, 0, XB_ADVISE_SEQUENTIAL);
	xb_log(worker, "Decoding %s", df->rel);
	xb_sink_file *f = xb_sink_open(c->sink, df->rel, err);
	if (!f) {
		close(fd);
		return err && err->code ? err->code : XB_E_IO_WRITE;
	}
	for (;;) {
		if (stopping(run)) {
			rc = XB_E_INTERRUPTED; /* the error that stopped us is reported, not this */
			break;
		}
		ssize_t n = read(fd, buf, READ_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if ((rc = xb_sink_write(f, buf, (size_t)n, err)))
			break;
		if (c->progress)
			__atomic_fetch_add(c->progress, (uint64_t)n, __ATOMIC_RELAXED);
	}
	close(fd);
	if (rc) {
		xb_sink_abort(f);
		return rc == XB_E_INTERRUPTED ? rc : name_in_dir(c, df->rel, err);
	}
	if (xb_sink_close(f, err))
		return name_in_dir(c, df->rel, err);
	atomic_fetch_add(&c->done, 1);
	return c->remove ? queue_removal(c, path, df->size, err) : 0;
}

/* What a signal leaves behind, and what to do next. */
static void interrupted(const dctx *c, xb_error *err)
{
	command_interrupted(err);
	xb_err_hint(err, c->remove ? "decoded files are whole and their originals removed: run the same "
				     "command again to decode the rest"
				   : "decoded files are whole: remove them (or their originals) and run "
				     "again, with --remove-original to skip this next time");
}

/* A worker's read buffer. */
static int worker_start(void *ctx, int worker, void **wstate, xb_error *err)
{
	if (posix_memalign(wstate, 4096, READ_SIZE)) {
		*wstate = NULL;
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	}
	return 0;
}

static void worker_end(void *ctx, int worker, void *wstate)
{
	free(wstate);
}

/* One file. Stopped by another's error, its return is not counted; stopped by
 * a signal (no error set), that is the run's error. */
static int decode_job(xb_parallel *run, void *ctx, size_t i, int worker, void *buf, xb_error *err)
{
	dctx *c = ctx;
	xb_err_clear(err);
	int rc = stopping(run) ? XB_E_INTERRUPTED : decode_one(run, c, &c->v[i], worker, buf, err);
	if (rc == XB_E_INTERRUPTED && !err->code && command_interrupted(NULL))
		interrupted(c, err);
	return rc;
}

/* The chain: decrypt -> unzstd -> unqpress -> directory (no replacing). */
static int open_chain(dctx *c, const uint8_t *key, xb_error *err)
{
	xb_sink *s = xb_sink_dir_open_ex(c->dir, XB_SINK_DIR_NOREPLACE, err);
	if (!s)
		return err && err->code ? err->code : XB_E_TARGET;
	c->box = s;
	if (c->decompress) {
		xb_sink *q = xb_sink_unqpress_open(s, err);
		if (!q) {
			xb_sink_free(s);
			return err && err->code ? err->code : XB_E_INTERNAL;
		}
		s = q;
		xb_sink *z = xb_sink_unzstd_open(s, err);
		if (!z) {
			xb_sink_free(s);
			return err && err->code ? err->code : XB_E_INTERNAL;
		}
		s = z;
	}
	if (key) {
		xb_sink *d = xb_sink_decrypt_open(s, key, err);
		if (!d) {
			xb_sink_free(s);
			return err && err->code ? err->code : XB_E_INTERNAL;
		}
		s = d;
	}
	c->sink = s;
	return 0;
}

static int check_dir(const char *dir, xb_error *err)
{
	struct stat st;
	if (stat(dir, &st))
		return xb_err_set(err, errno == ENOENT ? XB_E_MISSING_FILE : XB_E_TARGET, "cannot use --target-dir %s: %s",
				  dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return xb_err_set(err, XB_E_TARGET, "--target-dir %s is not a directory", dir);
	return 0;
}

static double mb(uint64_t b)
{
	return (double)b / 1e6;
}

static void free_ctx(dctx *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].rel);
	free(c->v);
	for (size_t i = 0; i < c->nrm; i++)
		free(c->rm[i]);
	free(c->rm);
	xb_sink_free(c->sink);
	pthread_mutex_destroy(&c->mu);
}

static void report_leftovers(const dctx *c)
{
	if (c->left_enc)
		xb_warn("%zu encrypted files (*.xbcrypt) are left as they are: add --decrypt=AES256 "
			"--encrypt-key-file=FILE to decrypt them", c->left_enc);
	if (c->left_zip)
		xb_info("%zu files stay compressed (*.zst, *.qp): add --decompress to decompress them", c->left_zip);
}

int cmd_decode(const xb_options *o, xb_error *err)
{
	decode_settings s;
	int rc;
	if ((rc = decode_settings_resolve(o, &s, err)) || (rc = check_dir(s.dir, err)))
		return rc;
	int threads = s.threads;
	dctx c;
	memset(&c, 0, sizeof c);
	pthread_mutex_init(&c.mu, NULL);
	c.dir = s.dir;
	c.decrypt = s.decrypt;
	c.decompress = s.decompress;
	c.remove = s.remove;
	uint8_t key[XB_CRYPT_KEY_LEN];
	if (c.decrypt && (rc = xb_crypt_key_load(&s.crypt, key, err)))
		goto out;
	if ((rc = walk(&c, "", err)))
		goto out;
	if (!c.n) {
		xb_info("Nothing to decode in %s: no %s files", c.dir,
			c.decrypt && c.decompress ? "*.xbcrypt, *.zst or *.qp" : c.decrypt ? "*.xbcrypt" : "*.zst or *.qp");
		report_leftovers(&c);
		goto out;
	}
	qsort(c.v, c.n, sizeof *c.v, by_size_desc);
	if ((rc = check_plan(&c, err)) || (rc = open_chain(&c, c.decrypt ? key : NULL, err)))
		goto out;
	xb_info("Decoding %zu files (%.1f MB) in %s with %d thread(s)%s", c.n, mb(c.total), c.dir, threads,
		c.remove ? ", removing each original once its decoded copy is durable" : "");
	xb_progress *prog = NULL;
	if ((rc = xb_progress_start(&prog, s.progress, "decoded", NULL, NULL, err)))
		goto out;
	xb_progress_add_total(prog, c.total);
	c.progress = xb_progress_counter(prog);
	double t0 = xb_clock_sec();
	xb_parallel_cfg run_cfg = {.threads = threads, .jobs = c.n, .ctx = &c, .job = decode_job,
				   .worker_start = worker_start, .worker_end = worker_end};
	xb_error run_err;
	xb_err_clear(&run_err);
	int failed = xb_parallel_run(&run_cfg, &run_err);
	xb_progress_stop(prog);
	c.progress = NULL;
	/* durable, then the last originals go (also after a failure: those copies are whole) */
	xb_error ferr;
	xb_err_clear(&ferr);
	int frc = c.nrm ? flush_removals(&c, &ferr) : xb_sink_finish(c.sink, &ferr);
	double secs = xb_clock_sec() - t0;
	size_t done = atomic_load(&c.done);
	if (failed || command_interrupted(NULL)) {
		if (!failed)
			interrupted(&c, &run_err);
		rc = run_err.code ? run_err.code : XB_E_INTERRUPTED;
		if (err)
			*err = run_err;
		xb_info("Decoded %zu of %zu files before stopping; those are whole, the others keep their encoded form%s",
			done, c.n, c.removed ? " (the originals of the decoded ones were removed)" : "");
		goto out;
	}
	if (frc) {
		if (err)
			*err = ferr;
		rc = frc;
		goto out;
	}
	uint64_t out_bytes = __atomic_load_n(&c.box->bytes_written, __ATOMIC_RELAXED);
	xb_info("Decoded %zu files in %.1f s: %.1f MB read, %.1f MB written (%.1f MB/s)%s", done, secs, mb(c.total),
		mb(out_bytes), secs > 0 ? mb(out_bytes) / secs : 0.0,
		c.remove ? ", originals removed" : "");
	report_leftovers(&c);
out:
	OPENSSL_cleanse(key, sizeof key);
	free_ctx(&c);
	return rc;
}
