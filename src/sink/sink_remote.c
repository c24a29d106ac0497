/*
 * sink_remote.c - the container sink for --target-dir=sftp://... and scp://...:
 * every file of the backup is uploaded to another host with libcurl (libssh2);
 * nothing is written to local disk. This file is the sink driver; the libcurl
 * requests are in sink_remote_ssh.c.
 *
 * The sink interface pushes (write(buf)) where libcurl pulls (a read callback),
 * so each file goes to an uploader: a thread with a multi handle and persistent
 * easy handles, whose SSH connection is reused from file to file (a handshake
 * per file would cost more than most files take). open() queues the file and
 * wakes an idle uploader or starts one (the pool grows to --parallel + 4, at
 * least 6); write() appends to the file's ring buffer (64 KiB growing to
 * 4 MiB, and to 12 MiB for a file larger than that) and blocks while it is
 * full; the uploader's read callback drains it and pauses the transfer when it
 * runs dry, and the writer wakes the uploader (curl_multi_wakeup) to resume.
 * Bytes handed to libcurl are kept until their room is needed, so a file that
 * fits in the buffer can be sent again from its start; of a larger one the
 * last 8 MiB handed to libcurl are kept (the room of the rest is reused), to
 * resume after a broken connection (see Retries). Memory: 12 MiB per file
 * being streamed, at most one per uploader (--parallel + 4, at least 6, at
 * most 32), plus the queue's 64 MiB. close() ends the data and returns at once: small files wait in the
 * queue, whole in memory (open() waits while the queue holds more than 64 MiB),
 * so the copy, and the server's BACKUP STAGE locks, never wait for the network
 * per file. The uploader frees a closed file once uploaded; finish() waits for
 * all of them, and the caller writes its completion marker
 * (xtrabackup_checkpoints) after finish(), so it never reaches the host before
 * the files it vouches for. A failure is sticky: later calls return it, naming
 * the file that failed.
 *
 * SFTP: a file is written as "<name>.xbtmp" (missing directories created) and
 * renamed to its name once whole; the target directory must be absent or
 * empty, and is created with its parents. SCP alone cannot do this: libcurl's
 * SCP (scp -t on the host) must announce a file's length before its data, and
 * has no listing, mkdir or rename. So scp:// uses SFTP on the same host for the
 * directories and the renames, sends over SCP every file whose whole content
 * is in the buffer at close (its length known), and streams larger ones
 * (datafiles, the redo copy) over SFTP, logging it once: without spooling to
 * local disk there is no way to know their length in advance.
 *
 * Retries: connection refused, reset or timed out are retried with backoff
 * (1 s, 2 s, 4 s ... --remote-retries times); key and host-key rejections
 * never are. A file whole in its buffer (every SCP upload) is sent again from
 * its start. A larger one is resumed: after the backoff, the size S of its
 * temporary on the host is asked (SFTP stat, itself retried while the host
 * does not answer), and when the bytes from S on are still in the buffer
 * (base <= S <= consumed) the upload appends to the temporary from S, logging
 * "resuming URL at S bytes after: ERROR". S cannot exceed what was handed to
 * libcurl; it falls short of it by what was in flight: libcurl's upload buffer
 * (1 MiB), within which libssh2 pipelines its writes, far under the 8 MiB kept.
 * sftp-server writes a connection's requests in order, so the temporary is a
 * prefix of the file. When S is outside the buffer or the size cannot be read,
 * the file fails, its message saying why it was not resumed. A failed or
 * aborted file's temporary is removed (sftp rm) unless the connection is gone.
 */
#include "sink_remote_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "platform/clock.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

bool xb_sink_remote_url(const char *target)
{
	return target && (!strncasecmp(target, "sftp://", 7) || !strncasecmp(target, "scp://", 6));
}

static void set_failed(rsink *s, const xb_error *err)
{
	pthread_mutex_lock(&s->mu);
	if (!atomic_load(&s->failed)) {
		s->fail = *err;
		atomic_store(&s->failed, true);
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
}

static int sticky(rsink *s, xb_error *err)
{
	pthread_mutex_lock(&s->mu);
	int rc = s->fail.code ? s->fail.code : XB_E_REMOTE;
	if (err)
		*err = s->fail;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

/* libcurl's read callback: hand over buffered bytes, pause when there are none. */
static size_t read_cb(char *dst, size_t sz, size_t n, void *arg)
{
	rfile *f = arg;
	rsink *s = (rsink *)f->sink;
	pthread_mutex_lock(&s->mu);
	if (f->aborted || f->up->stop) {
		pthread_mutex_unlock(&s->mu);
		return CURL_READFUNC_ABORT;
	}
	uint64_t avail = f->written - f->consumed;
	if (!avail) {
		f->paused = !f->eof;
		pthread_mutex_unlock(&s->mu);
		return f->eof ? 0 : CURL_READFUNC_PAUSE;
	}
	/* copied under the lock: the writer may move the ring (it grows) */
	size_t k = sz * n < avail ? sz * n : (size_t)avail, pos = (size_t)(f->consumed % f->cap);
	size_t k1 = k < f->cap - pos ? k : f->cap - pos;
	memcpy(dst, f->ring + pos, k1);
	memcpy(dst + k1, f->ring, k - k1);
	f->consumed += k;
	if (f->writer_waiting)
		pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return k;
}

/* libcurl's seek callback, when it resumes an upload: the data from offset on
 * must still be in the ring (upload() has already put consumed there). */
static int seek_cb(void *arg, curl_off_t offset, int origin)
{
	rfile *f = arg;
	rsink *s = (rsink *)f->sink;
	pthread_mutex_lock(&s->mu);
	bool ok = origin == SEEK_SET && offset >= 0 && (uint64_t)offset >= f->base && (uint64_t)offset <= f->written;
	if (ok)
		f->consumed = (uint64_t)offset;
	pthread_mutex_unlock(&s->mu);
	return ok ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_FAIL;
}

/* Sleep for a backoff unless the file is aborted or the uploader stopped. */
static bool backoff(rsink *s, uploader *up, rfile *f, int secs)
{
	struct timespec ts = xb_clock_after_ms((unsigned)secs * 1000u);
	pthread_mutex_lock(&s->mu);
	while (!up->stop && !(f && f->aborted) && pthread_cond_timedwait(&s->cv, &s->mu, &ts) != ETIMEDOUT)
		;
	bool go_on = !up->stop && !(f && f->aborted);
	pthread_mutex_unlock(&s->mu);
	return go_on;
}

static int retry_delay(int n)
{
	return 1 << (n - 1 < 6 ? n - 1 : 6);
}

static void rfile_free(rfile *f)
{
	free(f->ring);
	free(f->rel);
	free(f->path);
	free(f->tmp);
	free(f);
}

/* Upload f with retries; record the result, and free the file when its
 * caller has already let go of it (closed). */
static void upload(uploader *up, rfile *f)
{
	rsink *s = up->s;
	bool use_scp = false;
	pthread_mutex_lock(&s->mu);
	if (s->scp) { /* wait until the length is known, or cannot be in the buffer */
		while (!f->eof && !f->aborted && !up->stop && !f->writer_waiting && f->cap <= FILE_BUF)
			pthread_cond_wait(&s->cv, &s->mu);
		use_scp = f->eof && f->base == 0 && f->written <= FILE_BUF;
		if (!use_scp && !f->aborted && !up->stop && !s->told) {
			s->told = true;
			xb_info("%s: files larger than %u MiB go over SFTP to the same host (SCP needs a file's length "
				"before its data), the first being %s", s->shown, FILE_BUF >> 20, f->rel);
		}
	}
	bool gone = f->aborted || up->stop;
	pthread_mutex_unlock(&s->mu);
	CURLcode c = CURLE_OK;
	curl_off_t from = 0;
	char whynot[CURL_ERROR_SIZE + 400] = ""; /* why the upload could not be resumed */
	for (int n = 0; !gone;) {
		c = rs_upload(up, f, use_scp, read_cb, seek_cb, from);
		pthread_mutex_lock(&s->mu);
		gone = f->aborted || up->stop;
		bool again = f->base == 0;
		if (c && again) /* from the start next time; the writer may not drop it meanwhile */
			f->consumed = 0, f->paused = false;
		pthread_mutex_unlock(&s->mu);
		if (!c || gone || !rs_transient(up, c))
			break;
		/* the connection broke: send the file again while it is whole in the
		 * buffer, else resume where the host's temporary ends, if we still
		 * have the bytes from there on */
		bool go = false;
		char d[CURL_ERROR_SIZE + 300];
		rs_detail(up, c, d, sizeof d);
		while (!go && ++n <= s->retries) {
			if (*whynot) /* the host did not answer the size request */
				xb_warn("%s/%s: %s; retrying in %d s (%d of %d)", s->shown, f->rel, whynot, retry_delay(n), n,
					s->retries);
			else
				xb_warn("%s/%s: %s (%s); retrying in %d s (%d of %d)", s->shown, f->rel, curl_easy_strerror(c), d,
					retry_delay(n), n, s->retries);
			if ((gone = !backoff(s, up, f, retry_delay(n))))
				break;
			if (again) {
				from = 0, go = true;
				break;
			}
			curl_off_t size = -1;
			CURLcode sc = rs_size(up, f->tmp, &size, whynot, sizeof whynot);
			if (sc && rs_transient(up, sc))
				continue;
			if (sc)
				break;
			pthread_mutex_lock(&s->mu);
			uint64_t lo = f->base, hi = f->consumed;
			if ((go = (uint64_t)size >= lo && (uint64_t)size <= hi))
				f->consumed = (uint64_t)size, f->paused = false;
			pthread_mutex_unlock(&s->mu);
			if (!go) {
				snprintf(whynot, sizeof whynot, "the host has %lld bytes of it, and only bytes %llu to %llu of "
					 "what was sent are still buffered", (long long)size, (unsigned long long)lo,
					 (unsigned long long)hi);
				break;
			}
			char *url = rs_join(s->shown, f->rel);
			xb_info("resuming %s at %lld bytes after: %s (%s)", url ? url : f->path, (long long)size,
				curl_easy_strerror(c), d);
			free(url);
			from = size, *whynot = '\0';
		}
		if (!go)
			break;
	}
	xb_error err;
	xb_err_clear(&err);
	bool answers = false;
	if (c && !gone) {
		char what[96], *url = rs_join(s->shown, f->rel);
		uint64_t sent = (uint64_t)(up->from + up->sent);
		if (sent >= (1u << 20))
			snprintf(what, sizeof what, "upload failed after %.1f MiB", (double)sent / (1 << 20));
		else
			snprintf(what, sizeof what, "upload failed after %llu bytes", (unsigned long long)sent);
		rs_describe(up, c, url ? url : f->path, what, &err);
		free(url);
		if (*whynot) {
			size_t l = strlen(err.msg);
			snprintf(err.msg + l, sizeof err.msg - l, "; not resumed: %s", whynot);
		}
		if (rs_transient(up, c) || c == CURLE_PARTIAL_FILE) { /* a lost host, or a refused write? */
			char now[400];
			long long avail = rs_probe(up, now, sizeof now);
			size_t l = strlen(err.msg);
			snprintf(err.msg + l, sizeof err.msg - l, "; then %s", now);
			if ((answers = avail >= 0) && avail < (long long)FILE_BUF)
				xb_err_hint(&err, "the file system on %s is full: free space there, or choose another directory",
					    s->host);
		}
		set_failed(s, &err);
	}
	/* no temporary left behind, unless the host cannot be reached */
	if ((c || gone) && f->touched && (gone || answers || !rs_transient(up, c)) &&
	    c != CURLE_PEER_FAILED_VERIFICATION && c != CURLE_LOGIN_DENIED)
		rs_remove(up, f->tmp);
	pthread_mutex_lock(&s->mu);
	f->rc = err.code;
	f->err = err;
	f->done = true;
	if (f->closed) {
		rfile_free(f);
		s->pending--;
	}
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* Under s->mu: take a file out of the queue; false when an uploader has it. */
static bool unqueue(rsink *s, rfile *f)
{
	for (rfile **pp = &s->qhead, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			if (s->qtail == f)
				s->qtail = prev;
			s->queued -= f->cap;
			s->nq--;
			return true;
		}
	return false;
}

/* An uploader takes the queue's files in turn. */
static void *up_main(void *arg)
{
	uploader *up = arg;
	rsink *s = up->s;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		s->idle++;
		while (!s->qhead && !up->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		s->idle--;
		if (up->stop)
			break;
		/* a file still being written first (its writer may be waiting),
		 * then closed ones: the backlog goes while the copy moves on */
		rfile *f = s->qhead;
		while (f && f->closed)
			f = f->next;
		unqueue(s, f ? f : (f = s->qhead));
		f->up = up;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		upload(up, f);
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* ---- the pool ----------------------------------------------------------------- */

static uploader *up_new(rsink *s)
{
	uploader *up = calloc(1, sizeof *up);
	if (!up)
		return NULL;
	up->s = s;
	up->multi = curl_multi_init();
	up->sftp = curl_easy_init();
	up->scp = s->scp ? curl_easy_init() : NULL;
	if (!up->multi || !up->sftp || (s->scp && !up->scp)) {
		curl_easy_cleanup(up->sftp), curl_easy_cleanup(up->scp), curl_multi_cleanup(up->multi);
		free(up);
		return NULL;
	}
	return up;
}

/* Stop every uploader (a file being uploaded is given up), then free them. */
static void pool_free(rsink *s)
{
	pthread_mutex_lock(&s->mu);
	for (int i = 0; i < s->nups; i++)
		s->ups[i]->stop = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	for (int i = 0; i < s->nups; i++) {
		uploader *up = s->ups[i];
		if (up->started) {
			curl_multi_wakeup(up->multi);
			pthread_join(up->th, NULL);
		}
		curl_easy_cleanup(up->sftp);
		curl_easy_cleanup(up->scp);
		curl_multi_cleanup(up->multi);
		free(up);
	}
	s->nups = 0;
}

/* Under s->mu: one more uploader when the idle ones cannot take every queued
 * file (best effort: the queue is served anyway by the running ones). */
static void pool_grow(rsink *s)
{
	if (s->nq <= s->idle || s->nups >= s->maxups)
		return;
	uploader *up = up_new(s);
	if (!up)
		return;
	if (pthread_create(&up->th, NULL, up_main, up)) {
		curl_easy_cleanup(up->sftp), curl_easy_cleanup(up->scp), curl_multi_cleanup(up->multi);
		free(up);
		return;
	}
	up->started = true;
	s->ups[s->nups++] = up;
}

/* ---- the driver ----------------------------------------------------------------- */

static xb_sink_file *r_open(xb_sink *sink, const char *relpath, xb_error *err)
{
	rsink *s = (rsink *)sink;
	while (relpath[0] == '.' && relpath[1] == '/')
		relpath += 2;
	rfile *f = calloc(1, sizeof *f);
	if (!f || !(f->ring = malloc(FILE_BUF_MIN)) || !(f->rel = strdup(relpath)) ||
	    !(f->path = rs_join(s->root, relpath)) || !(f->tmp = malloc(strlen(f->path) + 7))) {
		if (f)
			rfile_free(f);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	sprintf(f->tmp, "%s.xbtmp", f->path);
	f->cap = FILE_BUF_MIN;
	f->sink = sink;
	pthread_mutex_lock(&s->mu);
	while (s->queued > QUEUE_BUDGET && !atomic_load(&s->failed))
		pthread_cond_wait(&s->cv, &s->mu);
	if (atomic_load(&s->failed)) {
		pthread_mutex_unlock(&s->mu);
		rfile_free(f);
		sticky(s, err);
		return NULL;
	}
	if (s->qtail)
		s->qtail->next = f;
	else
		s->qhead = f;
	s->qtail = f;
	s->queued += f->cap;
	s->nq++;
	pool_grow(s);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return (xb_sink_file *)f;
}

static int r_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	rfile *f = (rfile *)file;
	rsink *s = (rsink *)f->sink;
	const unsigned char *p = buf;
	size_t total = len;
	pthread_mutex_lock(&s->mu);
	while (len && !f->done && !atomic_load(&s->failed)) {
		if (f->up && f->paused && f->written > f->consumed)
			curl_multi_wakeup(f->up->multi); /* the uploader resumes the transfer (it clears paused) */
		uint64_t used = f->written - f->base;
		if (used == f->cap) {
			unsigned char *r;
			size_t grown = f->cap < FILE_BUF ? f->cap * 2 : RING_MAX;
			/* what libcurl has, less the last keep bytes (to resume after a broken connection) */
			uint64_t keep = f->cap > KEEP_SENT ? KEEP_SENT : f->cap / 2;
			uint64_t drop = f->consumed > keep ? f->consumed - keep : 0;
			if (f->base == 0 && f->cap < RING_MAX && (r = realloc(f->ring, grown))) {
				f->ring = r; /* nothing dropped yet: the bytes sit at [0, written), no wrap */
				if (!f->up)
					s->queued += grown - f->cap;
				if (f->cap == FILE_BUF) /* scp://: it will not be sent whole */
					pthread_cond_broadcast(&s->cv);
				f->cap = grown;
			} else if (drop > f->base) {
				f->base = drop; /* no resending from the start */
			} else {
				f->writer_waiting = true;
				pthread_cond_broadcast(&s->cv); /* scp://: the length will not be known */
				pthread_cond_wait(&s->cv, &s->mu);
				f->writer_waiting = false;
			}
			continue;
		}
		size_t pos = (size_t)(f->written % f->cap), room = f->cap - (size_t)used;
		size_t k = len < room ? len : room;
		k = k < f->cap - pos ? k : f->cap - pos;
		pthread_mutex_unlock(&s->mu);
		memcpy(f->ring + pos, p, k); /* room nobody reads; only this thread moves the ring */
		pthread_mutex_lock(&s->mu);
		f->written += k;
		p += k;
		len -= k;
	}
	if (f->up && f->paused)
		curl_multi_wakeup(f->up->multi);
	bool done = f->done;
	pthread_mutex_unlock(&s->mu);
	if (done) {
		if (err)
			*err = f->err;
		return f->rc ? f->rc : XB_E_INTERNAL;
	}
	if (atomic_load(&s->failed))
		return sticky(s, err);
	atomic_fetch_add((_Atomic uint64_t *)&f->sink->bytes_written, total);
	return 0;
}

/* The data ends; the file is uploaded (and freed) in the background. */
static int r_close(xb_sink_file *file, xb_error *err)
{
	rfile *f = (rfile *)file;
	rsink *s = (rsink *)f->sink;
	pthread_mutex_lock(&s->mu);
	if (f->done) { /* it failed already */
		pthread_mutex_unlock(&s->mu);
		int rc = f->rc ? f->rc : XB_E_INTERNAL;
		if (err)
			*err = f->err;
		rfile_free(f);
		return rc;
	}
	f->eof = f->closed = true;
	s->pending++;
	pthread_cond_broadcast(&s->cv);
	if (f->up && f->paused)
		curl_multi_wakeup(f->up->multi);
	pthread_mutex_unlock(&s->mu);
	return atomic_load(&s->failed) ? sticky(s, err) : 0;
}

static void r_abort(xb_sink_file *file)
{
	rfile *f = (rfile *)file;
	rsink *s = (rsink *)f->sink;
	pthread_mutex_lock(&s->mu);
	if (!unqueue(s, f)) {
		f->aborted = f->eof = true;
		pthread_cond_broadcast(&s->cv);
		if (f->up)
			curl_multi_wakeup(f->up->multi);
		while (!f->done)
			pthread_cond_wait(&s->cv, &s->mu);
	}
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	rfile_free(f);
}

static int r_finish(xb_sink *sink, xb_error *err)
{
	rsink *s = (rsink *)sink;
	pthread_mutex_lock(&s->mu);
	while (s->pending > 0 && !atomic_load(&s->failed))
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	return atomic_load(&s->failed) ? sticky(s, err) : 0;
}

static void r_free(xb_sink *sink)
{
	rsink *s = (rsink *)sink;
	pool_free(s); /* without finish() (a failed or interrupted backup): uploads still running are given up */
	while (s->qhead) { /* closed files no uploader took */
		rfile *f = s->qhead;
		s->qhead = f->next;
		if (f->closed)
			rfile_free(f);
	}
	for (size_t i = 0; i < s->ndirs; i++)
		free(s->dirs[i]);
	free(s->dirs);
	free(s->shown), free(s->origin[0]), free(s->origin[1]), free(s->user), free(s->host), free(s->root);
	free(s->key), free(s->pub), free(s->known);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

static const xb_sink_ops remote_ops = {
	.open = r_open,
	.write = r_write,
	.close = r_close,
	.abort = r_abort,
	.finish = r_finish,
	.free = r_free,
};

/* Connect (with retries), check the target directory is absent or empty and
 * create it; on the calling thread, with the first uploader's handles, so its
 * connection is the one the first file reuses. */
static int check_target(rsink *s, uploader *up, xb_error *err)
{
	for (int n = 1;; n++) {
		bool nonempty = false;
		const char *what = "cannot list the directory";
		CURLcode c = rs_list(up, s->root, &nonempty);
		if (c == CURLE_REMOTE_FILE_NOT_FOUND) {
			what = "cannot create the directory";
			c = rs_mkdirs(up, s->root, NULL, true);
		} else if (!c && nonempty) {
			return xb_err_set(err, XB_E_TARGET, "target directory %s is not empty", s->shown),
			       xb_err_hint(err, "give each backup a new directory, e.g. --target-dir=%s/$(date +%%F_%%H-%%M-%%S)",
					   s->shown);
		}
		if (!c)
			return 0;
		if (rs_transient(up, c) && n <= s->retries) {
			char d[CURL_ERROR_SIZE + 300];
			xb_warn("%s: %s (%s); retrying in %d s (%d of %d)", s->shown, curl_easy_strerror(c),
				rs_detail(up, c, d, sizeof d), retry_delay(n), n, s->retries);
			if (backoff(s, up, NULL, retry_delay(n)))
				continue;
		}
		rs_describe(up, c, s->shown, what, err);
		if (c == CURLE_QUOTE_ERROR || c == CURLE_REMOTE_ACCESS_DENIED)
			err->code = XB_E_TARGET;
		return err->code;
	}
}

xb_sink *xb_sink_remote_open(const char *url, const xb_remote_settings *rs, xb_error *err)
{
	pthread_once(&curl_once, curl_init);
	xb_error local;
	if (!err)
		err = &local;
	rsink *s = calloc(1, sizeof *s);
	if (!s) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->mu, NULL);
	xb_clock_cond_init(&s->cv); /* backoff() waits on the monotonic clock */
	s->base.ops = &remote_ops;
	s->retries = rs->retries;
	s->timeout = rs->timeout;
	long long par = rs->parallel;
	s->maxups = par + 4 < 6 ? 6 : par + 4 > MAX_UPLOADERS ? MAX_UPLOADERS : (int)par + 4;
	uploader *up = NULL;
	if (rs_parse_url(s, url, err) || rs_find_keys(s, rs, err))
		goto fail;
	s->base.name = s->shown;
	if (!(up = up_new(s))) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		goto fail;
	}
	s->ups[s->nups++] = up;
	if (check_target(s, up, err))
		goto fail;
	if (pthread_create(&up->th, NULL, up_main, up)) {
		xb_err_set(err, XB_E_INTERNAL, "cannot start an upload thread");
		goto fail;
	}
	up->started = true;
	xb_info("Uploading the backup to %s (key %s, known hosts %s)", s->shown, s->key, s->known);
	return &s->base;
fail:
	r_free(&s->base);
	return NULL;
}
