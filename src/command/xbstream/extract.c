/*
 * extract.c - the extraction engine behind xbstream -x and --list.
 *
 * The calling thread reads the stream chunk by chunk and decides; workers
 * (--parallel) write. Each file is given to one worker when its first chunk
 * arrives (the one with the fewest open files) and stays there until its
 * end, so its chunks are written in stream order while different files are
 * written at once. A worker's queue holds at most QUEUE_BYTES of data; the
 * reader waits when it is full. With one worker everything happens in the
 * reading thread. Checksums are verified where the data is written. (Not
 * common/parallel.h's executor: that one hands out a known list of
 * independent jobs to whichever worker is free; here work arrives while the
 * stream is read, each file is tied to one worker, queues are bounded, and
 * remove and rename wait for every worker.)
 *
 * What a chunk does:
 *   payload  must continue the file where the previous one (or a seek) left
 *            it; anything else is an error naming both offsets
 *   seek     moves the write position (mariabackup patches the Aria log
 *            header this way); only for files written as they are
 *   end      completes the file. It is published only when the next chunk
 *            is not a remove of the same name: that pair is how a writer
 *            aborts a file (ours does), and the file is then dropped
 *   remove   deletes files this run extracted: one, a directory's worth
 *            (a dropped database), or "prefix*" (a table's partitions)
 *   rename   renames a file this run extracted
 *   rewrite  (flag) a file extracted earlier comes again: the old copy goes
 * Remove and rename wait for the workers first, so they act on published
 * files; files that were in the directory before the run are never
 * removed, renamed or replaced. A stream that ends while files are open is
 * truncated: those files are removed and the run fails naming the first.
 * After any error the reading stops; the workers still finish what they
 * were given, so every file the stream completed before the error (each
 * chunk verified) is kept, and no other.
 */
#include "xbstream_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "command/command.h"
#include "common/log.h"
#include "common/path.h"
#include "sink/sink_dir_ext.h"
#include "stream/qpress.h"

#define QUEUE_BYTES (32u << 20) /* data queued per worker (one larger chunk when empty) */
#define POOL_MAX 32             /* payload buffers kept for reuse */
#define WORKERS_MAX 64

/* ---------------------------------------------------------------- string map */

typedef struct node {
	struct node *next;
	char *key;
	void *val;
} node;

typedef struct smap {
	node **b;    /* buckets */
	size_t nb;   /* number of buckets (power of two) */
	size_t n;    /* entries */
} smap;

static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return (size_t)h;
}

static node **smap_slot(const smap *m, const char *k)
{
	if (!m->nb)
		return NULL;
	node **p = &m->b[hash(k) & (m->nb - 1)];
	while (*p && strcmp((*p)->key, k))
		p = &(*p)->next;
	return p;
}

static void *smap_get(const smap *m, const char *k)
{
	node **p = smap_slot(m, k);
	return p && *p ? (*p)->val : NULL;
}

/* k must not be in m. Returns 0 or -1 (out of memory). */
static int smap_put(smap *m, const char *k, void *v)
{
	if (m->n >= m->nb) {
		size_t nb = m->nb ? m->nb * 2 : 64;
		node **b = calloc(nb, sizeof *b);
		if (!b)
			return -1;
		for (size_t i = 0; i < m->nb; i++)
			for (node *x = m->b[i], *nx; x; x = nx) {
				nx = x->next;
				node **d = &b[hash(x->key) & (nb - 1)];
				x->next = *d;
				*d = x;
			}
		free(m->b);
		m->b = b;
		m->nb = nb;
	}
	node *x = malloc(sizeof *x);
	if (!x || !(x->key = strdup(k))) {
		free(x);
		return -1;
	}
	x->val = v;
	node **d = &m->b[hash(k) & (m->nb - 1)];
	x->next = *d;
	*d = x;
	m->n++;
	return 0;
}

static void *smap_del(smap *m, const char *k)
{
	node **p = smap_slot(m, k);
	if (!p || !*p)
		return NULL;
	node *x = *p;
	void *v = x->val;
	*p = x->next;
	free(x->key);
	free(x);
	m->n--;
	return v;
}

static void smap_free(smap *m, void (*fv)(void *))
{
	for (size_t i = 0; i < m->nb; i++)
		for (node *x = m->b[i], *nx; x; x = nx) {
			nx = x->next;
			if (fv)
				fv(x->val);
			free(x->key);
			free(x);
		}
	free(m->b);
	memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- files, jobs, workers */

typedef struct entry {
	char *path;           /* name in the stream */
	char *disk;           /* name written (the decoders strip .xbcrypt and .zst or .qp) */
	bool direct;          /* written to the directory sink itself, not through the decoders */
	int w;                /* worker */
	uint64_t at;          /* stream offset of its first chunk */
	uint64_t pos;         /* reader: where the next payload must start */
	uint64_t size;        /* reader: size so far */
	xb_sink_file *f;      /* worker: the open file (NULL when failed) */
	bool failed;          /* worker: writing it failed */
} entry;

enum jkind { J_OPEN, J_WRITE, J_SEEK, J_CLOSE, J_ABORT };

typedef struct job {
	struct job *next;
	enum jkind kind;
	entry *e;
	uint8_t *data;        /* J_WRITE */
	size_t len, cap;      /* its length and allocation */
	uint64_t offset;      /* J_WRITE: file offset; J_SEEK: the new position */
	uint64_t at;          /* stream offset of the chunk */
	uint32_t crc;         /* J_WRITE: stored checksum */
	bool verify;          /* J_WRITE: check it here */
	bool pooled;          /* data goes back to the pool */
} job;

typedef struct xbx xbx;

typedef struct worker {
	pthread_t tid;
	xbx *x;
	pthread_mutex_t mu;
	pthread_cond_t work;  /* a job was queued, or quit */
	pthread_cond_t idle;  /* a job finished */
	job *head, *tail;     /* queue */
	size_t qbytes;        /* data in the queue */
	bool busy, quit;
	int nopen;            /* reader: files assigned and not ended */
	uint64_t assigned;    /* reader: bytes given to it */
} worker;

struct xbx {
	const xbx_conf *c;
	xbx_stats *st;
	worker *w;
	int nw;                   /* 0: no threads, jobs run in the reader */
	pthread_mutex_t emu;      /* protects err */
	xb_error err;             /* the first error */
	atomic_bool failed;
	smap open;                /* stream name -> entry, files not ended */
	smap ours;                /* stream name -> disk name (char *), files published by this run */
	pthread_mutex_t pmu;      /* protects the pool */
	uint8_t *pool[POOL_MAX];
	size_t poolcap[POOL_MAX];
	int npool;
};

static void fail(xbx *x, const xb_error *e)
{
	pthread_mutex_lock(&x->emu);
	if (!x->err.code) {
		x->err = *e;
		if (!x->err.code)
			x->err.code = XB_E_INTERNAL;
	}
	atomic_store(&x->failed, true);
	pthread_mutex_unlock(&x->emu);
}

static int failf(xbx *x, int code, const char *hint, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int failf(xbx *x, int code, const char *hint, const char *fmt, ...)
{
	xb_error e;
	xb_err_clear(&e);
	e.code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof e.msg, fmt, ap);
	va_end(ap);
	if (hint)
		snprintf(e.hint, sizeof e.hint, "%s", hint);
	fail(x, &e);
	return code;
}

static void entry_free(entry *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->disk);
	free(e);
}

static void pool_put(xbx *x, uint8_t *p, size_t cap)
{
	pthread_mutex_lock(&x->pmu);
	if (x->npool < POOL_MAX) {
		x->pool[x->npool] = p;
		x->poolcap[x->npool++] = cap;
		p = NULL;
	}
	pthread_mutex_unlock(&x->pmu);
	free(p);
}

/* A buffer for the reader's next payload (NULL: the reader allocates). */
static uint8_t *pool_get(xbx *x, size_t *cap)
{
	uint8_t *p = NULL;
	*cap = 0;
	pthread_mutex_lock(&x->pmu);
	if (x->npool) {
		p = x->pool[--x->npool];
		*cap = x->poolcap[x->npool];
	}
	pthread_mutex_unlock(&x->pmu);
	return p;
}

static void run_job(xbx *x, job *j)
{
	entry *e = j->e;
	xb_error err;
	xb_err_clear(&err);
	int rc = 0;
	switch (j->kind) {
	case J_OPEN:
		if (x->c->dir) {
			e->f = xb_sink_open(e->direct ? x->c->dir : x->c->chain, e->path, &err);
			if (!e->f)
				rc = err.code ? err.code : XB_E_IO_WRITE;
		}
		break;
	case J_WRITE:
		if (e->failed)
			break;
		if (j->verify)
			rc = xbs_verify(j->at, e->path, j->offset, j->data, j->len, j->crc, &err);
		if (!rc && e->f)
			rc = xb_sink_write(e->f, j->data, j->len, &err);
		break;
	case J_SEEK:
		if (!e->failed && e->f)
			rc = xb_sink_dir_seek(e->f, j->offset, &err);
		break;
	case J_CLOSE:
		if (!e->failed && e->f) {
			rc = xb_sink_close(e->f, &err);
			e->f = NULL;
		}
		break;
	case J_ABORT:
		break;
	}
	if (rc) {
		fail(x, &err);
		e->failed = true;
	}
	if (e->f && (rc || j->kind == J_CLOSE || j->kind == J_ABORT)) {
		xb_sink_abort(e->f);
		e->f = NULL;
	}
	if (j->kind == J_CLOSE || j->kind == J_ABORT)
		entry_free(e);
	if (j->pooled)
		pool_put(x, j->data, j->cap);
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->head && !w->quit)
			pthread_cond_wait(&w->work, &w->mu);
		job *j = w->head;
		if (!j)
			break;
		w->head = j->next;
		if (!w->head)
			w->tail = NULL;
		w->busy = true;
		pthread_mutex_unlock(&w->mu);
		run_job(w->x, j);
		pthread_mutex_lock(&w->mu);
		w->qbytes -= j->len;
		w->busy = false;
		pthread_cond_broadcast(&w->idle);
		free(j);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Hand a job to the worker of its file (or run it here). */
static void dispatch(xbx *x, const job *j)
{
	if (!x->nw) {
		job copy = *j;
		run_job(x, &copy);
		return;
	}
	job *q = malloc(sizeof *q);
	if (!q) {
		failf(x, XB_E_INTERNAL, NULL, "out of memory");
		if (j->pooled)
			pool_put(x, j->data, j->cap);
		if (j->kind == J_CLOSE || j->kind == J_ABORT)
			entry_free(j->e); /* its worker has no job left that uses it */
		return;
	}
	*q = *j;
	q->next = NULL;
	worker *w = &x->w[j->e->w];
	pthread_mutex_lock(&w->mu);
	while (w->head && w->qbytes + j->len > QUEUE_BYTES)
		pthread_cond_wait(&w->idle, &w->mu);
	if (w->tail)
		w->tail->next = q;
	else
		w->head = q;
	w->tail = q;
	w->qbytes += j->len;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->mu);
}

/* Wait until every worker has run everything queued. */
static void drain(xbx *x)
{
	for (int i = 0; i < x->nw; i++) {
		worker *w = &x->w[i];
		pthread_mutex_lock(&w->mu);
		while (w->head || w->busy)
			pthread_cond_wait(&w->idle, &w->mu);
		pthread_mutex_unlock(&w->mu);
	}
}

/* ---------------------------------------------------------------- chunks */

static bool strip(char *s, const char *suffix)
{
	if (!xb_path_has_suffix(s, suffix))
		return false;
	s[strlen(s) - strlen(suffix)] = '\0';
	return true;
}

/* The name the decoders write for name; false when none of them changes it. */
static bool decoded(const xbx_conf *c, const char *name, char disk[XBS_PATH_MAX + 1])
{
	snprintf(disk, XBS_PATH_MAX + 1, "%s", name);
	bool enc = c->decrypt && strip(disk, ".xbcrypt");
	bool zip = c->decompress && (strip(disk, ".zst") || strip(disk, XB_QPRESS_SUFFIX));
	return enc || zip;
}

/* Path policy, with the chunk's stream offset in the message. */
static int check_path(xbx *x, const xbs_chunk *c, const char *path, bool wildcard)
{
	xb_error e;
	xb_err_clear(&e);
	if (!xbs_path_check(path, wildcard, &e))
		return 0;
	xb_err_prefix(&e, "stream offset %llu", (unsigned long long)c->at);
	fail(x, &e);
	return e.code;
}

static int pick_worker(xbx *x)
{
	int best = 0;
	for (int i = 1; i < x->nw; i++)
		if (x->w[i].nopen < x->w[best].nopen ||
		    (x->w[i].nopen == x->w[best].nopen && x->w[i].assigned < x->w[best].assigned))
			best = i;
	return best;
}

/* The open file a chunk belongs to; opened on its first chunk. */
static entry *file_of(xbx *x, const xbs_chunk *c)
{
	entry *e = smap_get(&x->open, c->path);
	if (e)
		return e;
	char disk[XBS_PATH_MAX + 1];
	bool filtered = decoded(x->c, c->path, disk);
	if (check_path(x, c, c->path, false) || (filtered && check_path(x, c, disk, false)))
		return NULL;
	char *old = smap_get(&x->ours, c->path);
	if (old) {
		if (!(c->flags & XBS_FLAG_REWRITE)) {
			failf(x, XB_E_STREAM_CORRUPT, "the stream holds two copies of a file; only mariabackup's rewrite "
			      "flag allows that", "stream offset %llu: %s comes a second time", (unsigned long long)c->at,
			      c->path);
			return NULL;
		}
		/* sent again after DDL: the new copy replaces the old one */
		drain(x);
		xb_error rm;
		xb_err_clear(&rm);
		if (x->c->dir && xb_sink_dir_remove(x->c->dir, old, false, &rm)) {
			fail(x, &rm);
			return NULL;
		}
		free(smap_del(&x->ours, c->path));
	}
	if (!(e = calloc(1, sizeof *e)) || !(e->path = strdup(c->path)) || !(e->disk = strdup(disk)) ||
	    smap_put(&x->open, c->path, e)) {
		entry_free(e);
		failf(x, XB_E_INTERNAL, NULL, "out of memory");
		return NULL;
	}
	e->direct = !filtered;
	e->at = c->at;
	if (x->nw) {
		e->w = pick_worker(x);
		x->w[e->w].nopen++;
	}
	dispatch(x, &(job){.kind = J_OPEN, .e = e, .at = c->at});
	return e;
}

/* The end of a file: publish it, or drop it when its writer aborted it. */
static void end_file(xbx *x, entry *e, bool drop)
{
	if (x->nw)
		x->w[e->w].nopen--;
	bool ok = !drop && !atomic_load(&x->failed);
	if (ok) {
		char *d = strdup(e->disk);
		if (!d || smap_put(&x->ours, e->path, d)) {
			free(d);
			failf(x, XB_E_INTERNAL, NULL, "out of memory");
			ok = false;
		}
	}
	if (ok) {
		x->st->files++;
		if (x->c->list)
			fprintf(x->c->list, "%s\t%llu\n", e->path, (unsigned long long)e->size);
	} else if (drop) {
		x->st->dropped++;
		xb_info("%s: left out, its writer aborted it (stream offset %llu)", e->path, (unsigned long long)e->at);
	}
	dispatch(x, &(job){.kind = ok ? J_CLOSE : J_ABORT, .e = e});
}

static bool removes(const char *key, const char *pat, size_t n, bool wild, size_t dirlen)
{
	if (wild)
		return !strncmp(key, pat, n - 1) && !strchr(key + dirlen, '/');
	return !strncmp(key, pat, n) && (key[n] == '\0' || key[n] == '/');
}

static int remove_chunk(xbx *x, const xbs_chunk *c)
{
	if (check_path(x, c, c->path, true))
		return -1;
	drain(x);
	const char *p = c->path;
	size_t n = strlen(p), dirlen = 0;
	bool wild = p[n - 1] == '*';
	for (size_t i = 0; wild && i + 1 < n; i++)
		if (p[i] == '/')
			dirlen = i + 1;
	uint64_t count = 0;
	xb_error e;
	xb_err_clear(&e);
	for (size_t i = 0; i < x->ours.nb; i++) {
		for (node **q = &x->ours.b[i]; *q;) {
			node *k = *q;
			if (!removes(k->key, p, n, wild, dirlen)) {
				q = &k->next;
				continue;
			}
			if (x->c->dir && xb_sink_dir_remove(x->c->dir, k->val, false, &e)) {
				fail(x, &e);
				return -1;
			}
			*q = k->next;
			free(k->val);
			free(k->key);
			free(k);
			x->ours.n--;
			count++;
		}
	}
	/* a dropped database: its directory, once empty */
	if (!wild && x->c->dir && xb_sink_dir_remove(x->c->dir, p, true, &e)) {
		fail(x, &e);
		return -1;
	}
	x->st->removed += count;
	xb_info("removed %s as the stream asks (%llu file%s extracted before; stream offset %llu)", p,
		(unsigned long long)count, count == 1 ? "" : "s", (unsigned long long)c->at);
	return 0;
}

static int rename_chunk(xbx *x, const xbs_chunk *c)
{
	if (check_path(x, c, c->path, false) || check_path(x, c, c->newpath, false))
		return -1;
	if (smap_get(&x->open, c->path) || smap_get(&x->open, c->newpath))
		return failf(x, XB_E_STREAM_CORRUPT, NULL, "stream offset %llu: rename of %s to %s while one of them "
			     "is being written", (unsigned long long)c->at, c->path, c->newpath);
	drain(x);
	const char *from = smap_get(&x->ours, c->path);
	if (!from) {
		/* mariabackup ignores these too: the table may have been copied under its new name */
		xb_warn("stream offset %llu: rename of %s to %s ignored: no such file was extracted",
			(unsigned long long)c->at, c->path, c->newpath);
		return 0;
	}
	char to[XBS_PATH_MAX + 1];
	if (strcmp(from, c->path))
		decoded(x->c, c->newpath, to);
	else
		snprintf(to, sizeof to, "%s", c->newpath);
	if (check_path(x, c, to, false))
		return -1;
	xb_error e;
	xb_err_clear(&e);
	bool replace = smap_get(&x->ours, c->newpath) != NULL;
	if (x->c->dir && xb_sink_dir_rename(x->c->dir, from, to, replace, &e)) {
		fail(x, &e);
		return -1;
	}
	free(smap_del(&x->ours, c->newpath));
	free(smap_del(&x->ours, c->path));
	char *d = strdup(to);
	if (!d || smap_put(&x->ours, c->newpath, d)) {
		free(d);
		return failf(x, XB_E_INTERNAL, NULL, "out of memory");
	}
	x->st->renamed++;
	xb_info("renamed %s to %s as the stream asks (stream offset %llu)", c->path, c->newpath,
		(unsigned long long)c->at);
	return 0;
}

/* One chunk; pending receives a file whose end chunk was just read. */
static int step(xbx *x, xbs_chunk *c, entry **pending)
{
	entry *e;
	switch (c->type) {
	case XBS_PAYLOAD:
		if (!(e = file_of(x, c)))
			return -1;
		if (c->offset != e->pos)
			return failf(x, XB_E_STREAM_CORRUPT, "chunks of one file must come in order",
				     "stream offset %llu: chunk of %s for file offset %llu, expected %llu",
				     (unsigned long long)c->at, c->path, (unsigned long long)c->offset,
				     (unsigned long long)e->pos);
		job j = {.kind = J_WRITE, .e = e, .data = c->data, .len = c->len, .cap = c->cap,
			 .offset = c->offset, .at = c->at, .crc = c->crc};
		if (x->nw) {
			/* the worker verifies and writes it; the reader gets another buffer */
			j.verify = j.pooled = true;
			c->data = pool_get(x, &c->cap);
			x->w[e->w].assigned += c->len;
		}
		e->pos += j.len;
		if (e->pos > e->size)
			e->size = e->pos;
		x->st->bytes += j.len;
		dispatch(x, &j);
		return 0;
	case XBS_SEEK:
		if (!(e = file_of(x, c)))
			return -1;
		if (!e->direct)
			return failf(x, XB_E_STREAM_CORRUPT, NULL, "stream offset %llu: seek in %s, which is decoded "
				     "while extracting: not supported", (unsigned long long)c->at, c->path);
		e->pos = c->offset;
		dispatch(x, &(job){.kind = J_SEEK, .e = e, .offset = c->offset, .at = c->at});
		return 0;
	case XBS_EOF:
		if (!(e = file_of(x, c)))
			return -1;
		smap_del(&x->open, c->path);
		*pending = e;
		return 0;
	case XBS_REMOVE:
		if ((e = smap_del(&x->open, c->path))) {
			/* removed while being written: the writer gave it up */
			end_file(x, e, true);
			return 0;
		}
		return remove_chunk(x, c);
	case XBS_RENAME:
		return rename_chunk(x, c);
	default:
		return 0; /* an ignorable chunk of a type we do not know */
	}
}

/* The open file whose first chunk came first (for the truncation message). */
static entry *first_open(const xbx *x)
{
	entry *best = NULL;
	for (size_t i = 0; i < x->open.nb; i++)
		for (node *k = x->open.b[i]; k; k = k->next) {
			entry *e = k->val;
			if (!best || e->at < best->at)
				best = e;
		}
	return best;
}

int xbx_run(const xbx_conf *conf, xbs_reader *r, xbx_stats *st, xb_error *err)
{
	xbx x;
	memset(&x, 0, sizeof x);
	memset(st, 0, sizeof *st);
	x.c = conf;
	x.st = st;
	pthread_mutex_init(&x.emu, NULL);
	pthread_mutex_init(&x.pmu, NULL);
	int nw = conf->workers > WORKERS_MAX ? WORKERS_MAX : conf->workers;
	if (nw > 1 && !conf->list && (x.w = calloc((size_t)nw, sizeof *x.w))) {
		for (int i = 0; i < nw; i++) {
			worker *w = &x.w[i];
			w->x = &x;
			pthread_mutex_init(&w->mu, NULL);
			pthread_cond_init(&w->work, NULL);
			pthread_cond_init(&w->idle, NULL);
			if (pthread_create(&w->tid, NULL, worker_main, w)) {
				pthread_cond_destroy(&w->work);
				pthread_cond_destroy(&w->idle);
				pthread_mutex_destroy(&w->mu);
				break;
			}
			x.nw = i + 1;
		}
	}
	xbs_reader_set_verify(r, x.nw == 0);
	xbs_chunk c;
	memset(&c, 0, sizeof c);
	entry *pending = NULL;
	for (;;) {
		xb_error e;
		xb_err_clear(&e);
		if (atomic_load(&x.failed))
			break;
		/* a signal, also one that stopped a read, ends the run as interrupted */
		bool stop = command_interrupted(&e);
		if (!stop && xbs_next(r, &c, &e)) {
			command_interrupted(&e);
			stop = true;
		}
		if (stop) {
			if (e.code == XB_E_INTERRUPTED)
				xb_err_hint(&e, "the files completed so far are in the directory, no other");
			fail(&x, &e);
			break;
		}
		if (pending) {
			bool drop = c.type == XBS_REMOVE && !strcmp(c.path, pending->path);
			end_file(&x, pending, drop);
			pending = NULL;
			if (drop)
				continue;
		}
		if (c.type == XBS_END || step(&x, &c, &pending))
			break;
	}
	if (pending)
		end_file(&x, pending, false);
	entry *first = first_open(&x);
	if (first && !atomic_load(&x.failed))
		failf(&x, XB_E_STREAM_CORRUPT, "the stream is cut short: the backup writing it failed or the transfer "
		      "broke; incomplete files were not kept",
		      "the stream ends before the end of %s (its first chunk is at stream offset %llu)%s", first->path,
		      (unsigned long long)first->at, x.open.n > 1 ? ", and of other files" : "");
	/* incomplete files: removed */
	for (size_t i = 0; i < x.open.nb; i++)
		for (node *k = x.open.b[i]; k; k = k->next) {
			entry *e = k->val;
			if (x.nw)
				x.w[e->w].nopen--;
			dispatch(&x, &(job){.kind = J_ABORT, .e = e});
		}
	smap_free(&x.open, NULL);
	for (int i = 0; i < x.nw; i++) {
		worker *w = &x.w[i];
		pthread_mutex_lock(&w->mu);
		w->quit = true;
		pthread_cond_signal(&w->work);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->tid, NULL);
		pthread_cond_destroy(&w->work);
		pthread_cond_destroy(&w->idle);
		pthread_mutex_destroy(&w->mu);
	}
	free(x.w);
	xbs_chunk_release(&c);
	for (int i = 0; i < x.npool; i++)
		free(x.pool[i]);
	smap_free(&x.ours, free);
	st->stream = xbs_reader_offset(r);
	pthread_mutex_destroy(&x.pmu);
	pthread_mutex_destroy(&x.emu);
	if (x.err.code && err)
		*err = x.err;
	return x.err.code;
}
