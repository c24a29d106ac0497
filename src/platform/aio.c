/*
 * aio.c - chunked sequential file reader with O_DIRECT and libaio read-ahead
 * (see aio.h).
 *
 * The reader owns a ring of depth+1 slots, each an aligned buffer plus a
 * libaio control block. Chunks are queued in file order at (head + queued);
 * the consumer gets the slot at head; the slot it got last time is recycled
 * at its next call, which is why one more slot than `depth` exists. In aio
 * mode a queued chunk is submitted at once (after taking its throttle
 * tokens) and the consumer waits for completions with io_getevents; in pread
 * mode a queued chunk is just recorded and read synchronously when it is
 * its turn. In O_DIRECT mode requests are widened to whole 4096-byte blocks
 * (offset rounded down, length up) and the slot remembers how many leading
 * bytes to skip; the kernel returns fewer bytes at end of file, so a file of
 * any size reads correctly. A read that comes back short is redone
 * synchronously once; if still short, the file ended there.
 */
#include "aio.h"

#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HUGE_MIN (4u << 20)   /* buffers this large ask for huge pages */
#define HUGE_ALIGN (2u << 20) /* the x86-64 huge page size */
#define BLOCK 4096u        /* alignment of O_DIRECT buffers, offsets and lengths */
#define MAX_DEPTH 64       /* upper bound on reads in flight */

enum slot_state {
	SLOT_FREE,     /* unused */
	SLOT_PENDING,  /* queued, to be read synchronously at delivery */
	SLOT_BUSY,     /* aio read in flight */
	SLOT_DONE,     /* read finished (res set) */
	SLOT_OUT,      /* handed to the consumer */
};

typedef struct slot {
	struct iocb cb;    /* libaio control block; cb.data points back to the slot */
	uint8_t *buf;      /* BLOCK-aligned buffer */
	size_t cap;        /* bytes allocated at buf */
	uint64_t off;      /* file offset of the first wanted byte */
	size_t want;       /* bytes wanted from off */
	uint64_t req_off;  /* offset actually requested (rounded down when direct) */
	size_t req_len;    /* length actually requested (rounded up when direct) */
	bool req_direct;   /* the request was issued on an O_DIRECT descriptor */
	long res;          /* bytes read from req_off, or -errno */
	int state;         /* enum slot_state */
} slot;

struct xb_reader {
	char *path;            /* as given to open, for messages */
	int fd;                /* the open file */
	bool direct;           /* fd has O_DIRECT */
	bool aio;              /* new chunks are submitted through libaio */
	bool ctx_ok;           /* ctx was set up and must be destroyed */
	io_context_t ctx;      /* libaio context */
	xb_throttle *throttle; /* rate limit for reads, NULL = none */
	size_t chunk;          /* chunk size, multiple of BLOCK */
	int depth;             /* max chunks queued ahead */
	int nslots;            /* depth + 1 */
	slot *slots;           /* the ring */
	int head;              /* next slot to deliver */
	int queued;            /* slots queued from head on */
	int busy;              /* aio reads in flight */
	int out;               /* slot held by the consumer, -1 if none */
	uint64_t next_off;     /* offset of the next chunk to queue */
	uint64_t limit;        /* read up to this offset */
	bool test_einval;      /* XB_READER_TEST_EINVAL: direct reads fail with EINVAL */
	bool restated;         /* the end-of-file re-stat was done */
	bool ended;            /* a short read found the real end */
	uint8_t *bounce;       /* aligned buffer for direct re-reads */
	size_t bounce_cap;     /* bytes allocated at bounce */
	char why[96];          /* reason of the first fallback, "" if none */
	char mode[160];        /* text returned by xb_reader_mode */
};

static uint64_t align_down(uint64_t v) { return v & ~(uint64_t)(BLOCK - 1); }
static uint64_t align_up(uint64_t v) { return (v + BLOCK - 1) & ~(uint64_t)(BLOCK - 1); }

static void update_mode(xb_reader *r)
{
	snprintf(r->mode, sizeof r->mode, "%s+%s%s%s%s", r->aio ? "aio" : "pread",
		 r->direct ? "O_DIRECT" : "buffered", r->why[0] ? " (" : "", r->why,
		 r->why[0] ? ")" : "");
}

static void note_fallback(xb_reader *r, const char *what, int errnum)
{
	if (!r->why[0])
		snprintf(r->why, sizeof r->why, "%s: %s", what, strerror(errnum));
	update_mode(r);
}

/* Make sure *buf holds `need` aligned bytes. */
static int ensure_buf(uint8_t **buf, size_t *cap, size_t need)
{
	if (*cap >= need)
		return 0;
	free(*buf);
	*buf = NULL;
	*cap = 0;
	bool huge = need >= HUGE_MIN;
	/* Large buffers (the copy's batches) on transparent huge pages where the
	 * system offers them on request. A 64 MiB buffer is then faulted in 32
	 * times instead of 16384, and an O_DIRECT request over it is physically
	 * contiguous in 2 MiB pieces: the block layer builds requests of several
	 * MiB instead of stopping at its segment limit (254 pages of 4 KiB on a
	 * virtio disk), which made batch copies 20-40% faster here. */
	void *p = NULL;
	if (posix_memalign(&p, huge ? HUGE_ALIGN : BLOCK, need ? need : BLOCK) != 0)
		return -1;
	if (huge)
		(void)madvise(p, need, MADV_HUGEPAGE); /* a hint: refused or not, the buffer works */
	*buf = p;
	*cap = need;
	return 0;
}

/* pread until len bytes, end of file, or (direct) a partial block, which also
 * means end of file. Returns bytes read or -1 with errno. */
static ssize_t pread_full(int fd, uint8_t *buf, size_t len, uint64_t off, bool direct)
{
	size_t total = 0;
	while (total < len) {
		ssize_t n = pread(fd, buf + total, len - total, (off_t)(off + total));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return total > 0 && direct && errno == EINVAL ? (ssize_t)total : -1;
		if (n == 0)
			break;
		total += (size_t)n;
		if (direct && (n % BLOCK) != 0)
			break;
	}
	return (ssize_t)total;
}

/* O_DIRECT was refused on a read: continue with buffered reads on the same file. */
static int to_buffered(xb_reader *r, xb_error *err)
{
	int fl = fcntl(r->fd, F_GETFL);
	if (fl < 0 || fcntl(r->fd, F_SETFL, fl & ~O_DIRECT) < 0) {
		int fd = open(r->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return xb_err_set(err, XB_E_IO_READ, "cannot reopen %s without O_DIRECT: %s",
					  r->path, strerror(errno));
		close(r->fd);
		r->fd = fd;
	}
	r->direct = false;
	r->aio = false; /* aio on a buffered descriptor is synchronous anyway */
	posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	note_fallback(r, "O_DIRECT read", EINVAL);
	return 0;
}

/* Fill in the request fields of s for the current mode and allocate its buffer. */
static int prepare_request(xb_reader *r, slot *s, xb_error *err)
{
	s->req_direct = r->direct;
	if (r->direct) {
		s->req_off = align_down(s->off);
		s->req_len = (size_t)align_up(s->off - s->req_off + s->want);
	} else {
		s->req_off = s->off;
		s->req_len = s->want;
	}
	if (ensure_buf(&s->buf, &s->cap, s->req_len) != 0)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory for a %zu byte read buffer of %s",
				  s->req_len, r->path);
	return 0;
}

/* Read slot s synchronously (pread mode, or redoing a failed/short aio read). */
static int read_sync(xb_reader *r, slot *s, xb_error *err)
{
	for (;;) {
		int rc = prepare_request(r, s, err);
		if (rc)
			return rc;
		ssize_t n = pread_full(r->fd, s->buf, s->req_len, s->req_off, s->req_direct);
		if (n >= 0 && r->test_einval && s->req_direct) {
			n = -1;
			errno = EINVAL;
		}
		if (n < 0 && errno == EINVAL && s->req_direct) {
			rc = to_buffered(r, err);
			if (rc)
				return rc;
			continue;
		}
		if (n < 0)
			return xb_err_set(err, XB_E_IO_READ, "cannot read %s at offset %llu: %s",
					  r->path, (unsigned long long)s->off, strerror(errno));
		s->res = n;
		s->state = SLOT_DONE;
		return 0;
	}
}

/* Queue chunks until depth are queued or the limit is reached. */
static int fill(xb_reader *r, xb_error *err)
{
	while (r->queued < r->depth && r->next_off < r->limit) {
		slot *s = &r->slots[(r->head + r->queued) % r->nslots];
		uint64_t left = r->limit - r->next_off;
		s->off = r->next_off;
		s->want = left < r->chunk ? (size_t)left : r->chunk;
		s->res = 0;
		s->state = SLOT_PENDING;
		r->next_off += s->want;
		r->queued++;
		xb_throttle_take(r->throttle, s->want);
		if (!r->aio)
			continue;
		int rc = prepare_request(r, s, err);
		if (rc)
			return rc;
		io_prep_pread(&s->cb, r->fd, s->buf, s->req_len, (long long)s->req_off);
		s->cb.data = s;
		struct iocb *cbp = &s->cb;
		int n;
		do
			n = io_submit(r->ctx, 1, &cbp);
		while (n == -EINTR);
		if (n == 1) {
			s->state = SLOT_BUSY;
			r->busy++;
		}
		/* else: stays PENDING and is read synchronously when its turn comes */
	}
	return 0;
}

/* Collect completions until slot s is no longer in flight. */
static int wait_slot(xb_reader *r, slot *s, xb_error *err)
{
	while (s->state == SLOT_BUSY) {
		struct io_event ev[MAX_DEPTH];
		int n = io_getevents(r->ctx, 1, r->busy, ev, NULL);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return xb_err_set(err, XB_E_IO_READ, "waiting for reads of %s failed: %s",
					  r->path, strerror(-n));
		for (int i = 0; i < n; i++) {
			slot *d = ev[i].data;
			d->res = (long)ev[i].res;
			d->state = SLOT_DONE;
			r->busy--;
		}
	}
	return 0;
}

/* Bytes of s that are file content from s->off on. */
static size_t slot_got(const slot *s)
{
	size_t skip = (size_t)(s->off - s->req_off);
	if (s->res <= (long)skip)
		return 0;
	size_t avail = (size_t)s->res - skip;
	return avail < s->want ? avail : s->want;
}

/* Bring the head slot to a finished, checked state; returns the usable length. */
static int complete_head(xb_reader *r, slot *s, size_t *got, xb_error *err)
{
	int rc = wait_slot(r, s, err);
	if (!rc && s->state == SLOT_PENDING)
		rc = read_sync(r, s, err);
	if (rc)
		return rc;
	if (r->test_einval && s->req_direct)
		s->res = -EINVAL;
	if (s->res == -EINVAL && s->req_direct) {
		/* the file system refused O_DIRECT at read time */
		if (r->direct && (rc = to_buffered(r, err)) != 0)
			return rc;
		if ((rc = read_sync(r, s, err)) != 0)
			return rc;
	}
	if (s->res < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot read %s at offset %llu: %s", r->path,
				  (unsigned long long)s->off, strerror((int)-s->res));
	*got = slot_got(s);
	if (*got < s->want) {
		/* short: redo it synchronously once; still short means the file ended */
		if ((rc = read_sync(r, s, err)) != 0)
			return rc;
		*got = slot_got(s);
		if (*got < s->want) {
			if (s->off + *got < r->limit)
				r->limit = s->off + *got;
			r->ended = true;
		}
	}
	return 0;
}

int xb_reader_next(xb_reader *r, const uint8_t **buf, size_t *len, uint64_t *offset,
		   xb_error *err)
{
	*buf = NULL;
	*len = 0;
	if (r->out >= 0) {
		r->slots[r->out].state = SLOT_FREE;
		if (!r->aio && r->queued == 0)
			r->head = r->out; /* nothing is read ahead: reuse the buffer just given back */
		r->out = -1;
	}
	for (;;) {
		int rc = fill(r, err);
		if (rc)
			return rc;
		if (r->queued == 0) {
			if (!r->restated && !r->ended) {
				r->restated = true;
				struct stat st;
				if (fstat(r->fd, &st) == 0 && (uint64_t)st.st_size > r->limit) {
					r->limit = (uint64_t)st.st_size;
					continue;
				}
			}
			*offset = r->limit;
			return 0;
		}
		int idx = r->head;
		slot *s = &r->slots[idx];
		size_t got = 0;
		rc = complete_head(r, s, &got, err);
		if (rc)
			return rc;
		r->head = (r->head + 1) % r->nslots;
		r->queued--;
		if (got == 0 || s->off >= r->limit) {
			s->state = SLOT_FREE; /* beyond a newly found end */
			continue;
		}
		s->state = SLOT_OUT;
		r->out = idx;
		*buf = s->buf + (s->off - s->req_off);
		*len = got;
		*offset = s->off;
		return 0;
	}
}

int xb_reader_reread(xb_reader *r, uint64_t offset, uint8_t *buf, size_t len, xb_error *err)
{
	if (len == 0)
		return 0;
	xb_throttle_take(r->throttle, len);
	for (;;) {
		ssize_t n;
		size_t skip = 0;
		bool direct = r->direct;
		if (direct) {
			uint64_t aoff = align_down(offset);
			size_t alen = (size_t)(align_up(offset + len) - aoff);
			if (ensure_buf(&r->bounce, &r->bounce_cap, alen) != 0)
				return xb_err_set(err, XB_E_INTERNAL, "out of memory re-reading %s",
						  r->path);
			skip = (size_t)(offset - aoff);
			n = pread_full(r->fd, r->bounce, alen, aoff, true);
			if (n >= 0 && r->test_einval) {
				n = -1;
				errno = EINVAL;
			}
		} else {
			n = pread_full(r->fd, buf, len, offset, false);
		}
		if (n < 0 && errno == EINVAL && direct) {
			int rc = to_buffered(r, err);
			if (rc)
				return rc;
			continue;
		}
		if (n < 0)
			return xb_err_set(err, XB_E_IO_READ, "cannot re-read %s at offset %llu: %s",
					  r->path, (unsigned long long)offset, strerror(errno));
		if ((size_t)n < skip + len)
			return xb_err_set(err, XB_E_IO_READ,
					  "short re-read of %s at offset %llu: %zu of %zu bytes", r->path,
					  (unsigned long long)offset,
					  (size_t)n > skip ? (size_t)n - skip : 0, len);
		if (direct)
			memcpy(buf, r->bounce + skip, len);
		return 0;
	}
}

xb_reader *xb_reader_open_flags(const char *path, size_t chunk, int depth, unsigned flags,
				xb_error *err)
{
	xb_reader *r = calloc(1, sizeof *r);
	if (!r || !(r->path = strdup(path))) {
		free(r);
		xb_err_set(err, XB_E_INTERNAL, "out of memory opening %s", path);
		return NULL;
	}
	r->fd = -1;
	r->out = -1;
	r->test_einval = (flags & XB_READER_TEST_EINVAL) != 0;
	if (chunk == 0)
		chunk = XB_READER_DEFAULT_CHUNK;
	r->chunk = (size_t)align_up(chunk);
	if (depth <= 0)
		depth = XB_READER_DEFAULT_DEPTH;
	if (depth > MAX_DEPTH)
		depth = MAX_DEPTH;

	bool try_plain = true;
	int e = 0;
	if (!(flags & XB_READER_NO_DIRECT)) {
		r->fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);
		e = errno;
		if (r->fd >= 0)
			r->direct = true;
		else if (e == EINVAL)
			snprintf(r->why, sizeof r->why, "O_DIRECT open: %s", strerror(EINVAL));
		else
			try_plain = false; /* ENOENT, EACCES...: the same without O_DIRECT */
	}
	if (r->fd < 0 && try_plain) {
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		e = errno;
	}
	if (r->fd < 0) {
		xb_err_set(err, e == ENOENT ? XB_E_MISSING_FILE : XB_E_IO_READ, "cannot open %s: %s",
			   path, strerror(e));
		xb_reader_close(r);
		return NULL;
	}
	struct stat st;
	if (fstat(r->fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path,
			   S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
		xb_reader_close(r);
		return NULL;
	}
	r->limit = (uint64_t)st.st_size;

	if (r->direct && !(flags & XB_READER_NO_AIO)) {
		int rc = io_setup(depth, &r->ctx);
		if (rc == 0) {
			r->ctx_ok = true;
			r->aio = true;
		} else {
			snprintf(r->why, sizeof r->why, "io_setup: %s", strerror(-rc));
		}
	}
	if (!r->direct)
		posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	r->depth = r->aio ? depth : 1; /* synchronous modes read one chunk per call */
	r->nslots = r->depth + 1;
	r->slots = calloc((size_t)r->nslots, sizeof *r->slots);
	if (!r->slots) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory opening %s", path);
		xb_reader_close(r);
		return NULL;
	}
	update_mode(r);
	return r;
}

xb_reader *xb_reader_open(const char *path, size_t chunk, int depth, xb_error *err)
{
	return xb_reader_open_flags(path, chunk, depth, 0, err);
}

void xb_reader_set_throttle(xb_reader *r, xb_throttle *t) { r->throttle = t; }
uint64_t xb_reader_size(const xb_reader *r) { return r->limit; }
const char *xb_reader_mode(const xb_reader *r) { return r->mode; }
bool xb_reader_is_direct(const xb_reader *r) { return r->direct; }
bool xb_reader_is_aio(const xb_reader *r) { return r->aio; }
const char *xb_reader_path(const xb_reader *r) { return r->path; }

void xb_reader_close(xb_reader *r)
{
	if (!r)
		return;
	if (r->ctx_ok) {
		while (r->busy > 0) {
			struct io_event ev[MAX_DEPTH];
			int n = io_getevents(r->ctx, 1, r->busy, ev, NULL);
			if (n == -EINTR)
				continue;
			if (n <= 0)
				break;
			r->busy -= n;
		}
		io_destroy(r->ctx);
	}
	if (r->slots)
		for (int i = 0; i < r->nslots; i++)
			free(r->slots[i].buf);
	free(r->slots);
	free(r->bounce);
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r);
}
