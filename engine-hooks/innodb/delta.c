/*
 * delta.c - X.delta and X.meta of incremental backups (see delta.h and
 * doc/backup-directory.md §17).
 *
 * The writer keeps one block: the header page, zeroed when the block starts,
 * and the pages after it in a buffer that grows as pages arrive (a block of
 * 16 KiB pages holds up to 4095 of them, 64 MiB, and most blocks of an
 * incremental backup hold a few). The reader reads a header page, then the
 * block's pages in pieces of at most READ_PAGES pages, so its memory does not
 * depend on the page size's block length. A run that the buffer holds only
 * the start of moves that start to the front and reads the rest after it.
 * The file is read from start to end once: the system is told so, and to
 * start reading its first PREFETCH_BYTES at once.
 */
#include "delta.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bytes.h"
#include "platform/file.h"

#define READ_PAGES INNODB_DELTA_RUN_MAX /* pages the reader reads at a time */
#define PREFETCH_BYTES ((off_t)64 << 20)  /* read ahead at once when a delta is opened */

static bool page_size_ok(uint32_t ps)
{
	return ps >= 1024 && ps <= 65536 && (ps & (ps - 1)) == 0;
}

uint32_t innodb_delta_block_pages(uint32_t page_size)
{
	return page_size / 4 - 1;
}

size_t innodb_delta_meta_format(const innodb_delta_meta *m, char *buf, size_t n)
{
	/* the space after zip_size's value is part of the format */
	int len = snprintf(buf, n, "page_size = %u\nzip_size = %u \nspace_id = %u\n", m->page_size, m->zip_size,
			   m->space_id);
	return len < 0 ? 0 : (size_t)len;
}

int innodb_delta_meta_parse(const char *text, size_t len, const char *name, innodb_delta_meta *m, xb_error *err)
{
	bool have_ps = false;
	m->page_size = 0;
	m->zip_size = 0;
	m->space_id = INNODB_DELTA_NO_SPACE;
	size_t pos = 0;
	while (pos < len) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		char line[160];
		size_t ll = end - pos < sizeof line - 1 ? end - pos : sizeof line - 1;
		memcpy(line, text + pos, ll);
		line[ll] = '\0';
		pos = end + 1;
		char key[64];
		unsigned long long v;
		char rest[8];
		int got = sscanf(line, " %63[a-z_] = %llu %7s", key, &v, rest);
		if (got <= 0)
			continue; /* an empty line */
		if (got != 2 || v > UINT32_MAX)
			return xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s: cannot read the line \"%s\"", name, line);
		if (!strcmp(key, "page_size")) {
			m->page_size = (uint32_t)v;
			have_ps = true;
		} else if (!strcmp(key, "zip_size")) {
			m->zip_size = (uint32_t)v;
		} else if (!strcmp(key, "space_id")) {
			m->space_id = (uint32_t)v;
		}
	}
	if (!have_ps)
		return xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s: page_size is missing", name);
	if (!page_size_ok(m->page_size))
		return xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s: page_size = %u is not a page size (1024 to 65536, a power of two)",
				  name, m->page_size);
	if (m->zip_size && (!page_size_ok(m->zip_size) || m->zip_size > 16384))
		return xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s: zip_size = %u is not a compressed page size", name,
				  m->zip_size);
	return 0;
}

int innodb_delta_meta_read(const char *path, innodb_delta_meta *m, xb_error *err)
{
	int fd = xb_file_open(XB_FILE_CWD, path, O_RDONLY, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	char buf[1024];
	ssize_t n = xb_file_pread_all(fd, buf, sizeof buf - 1, 0);
	int e = errno;
	close(fd);
	if (n < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path, strerror(e));
	return innodb_delta_meta_parse(buf, (size_t)n, path, m, err);
}

/* ---------------------------------------------------------------- writer */

struct innodb_delta_writer {
	uint32_t ps;              /* page size */
	uint32_t max;             /* pages a block holds */
	innodb_delta_emit_fn emit;
	void *ctx;
	uint8_t *buf;             /* header page, then the block's pages */
	uint32_t n;               /* pages in the current block */
	uint32_t cap;             /* pages buf has room for */
	bool done;                /* finish was called */
	uint64_t pages, bytes;    /* totals */
};

innodb_delta_writer *innodb_delta_writer_new(uint32_t page_size, innodb_delta_emit_fn emit, void *ctx,
					     xb_error *err)
{
	if (!page_size_ok(page_size)) {
		xb_err_set(err, XB_E_INTERNAL, "delta writer: bad page size %u", page_size);
		return NULL;
	}
	innodb_delta_writer *w = calloc(1, sizeof *w);
	if (w) {
		w->ps = page_size;
		w->max = innodb_delta_block_pages(page_size);
		w->emit = emit;
		w->ctx = ctx;
		w->cap = 16 < w->max ? 16 : w->max;
		w->buf = calloc((size_t)w->cap + 1, page_size);
	}
	if (!w || !w->buf) {
		free(w);
		xb_err_set(err, XB_E_INTERNAL, "out of memory for a delta writer");
		return NULL;
	}
	be32_put(w->buf, INNODB_DELTA_MAGIC_MORE);
	return w;
}

/* Emit the current block, the last one or not. */
static int emit_block(innodb_delta_writer *w, bool last, xb_error *err)
{
	be32_put(w->buf, last ? INNODB_DELTA_MAGIC_LAST : INNODB_DELTA_MAGIC_MORE);
	if (w->n < w->max)
		be32_put(w->buf + 4 + 4 * (size_t)w->n, INNODB_DELTA_END);
	size_t len = ((size_t)w->n + 1) * w->ps;
	int rc = w->emit(w->ctx, w->buf, len, err);
	if (rc)
		return rc;
	w->bytes += len;
	memset(w->buf, 0, w->ps);
	w->n = 0;
	return 0;
}

int innodb_delta_writer_add(innodb_delta_writer *w, uint32_t page_no, const uint8_t *page, xb_error *err)
{
	if (w->done)
		return xb_err_set(err, XB_E_INTERNAL, "delta writer: a page added after the last block");
	if (page_no == INNODB_DELTA_END)
		return xb_err_set(err, XB_E_INTERNAL, "delta writer: page number %u cannot be stored", page_no);
	int rc;
	if (w->n == w->max && (rc = emit_block(w, false, err)))
		return rc;
	if (w->n == w->cap) {
		uint32_t cap = w->cap * 2 < w->max ? w->cap * 2 : w->max;
		uint8_t *b = realloc(w->buf, ((size_t)cap + 1) * w->ps);
		if (!b)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory for a delta block of %u pages", cap);
		w->buf = b;
		w->cap = cap;
	}
	be32_put(w->buf + 4 + 4 * (size_t)w->n, page_no);
	memcpy(w->buf + ((size_t)w->n + 1) * w->ps, page, w->ps);
	w->n++;
	w->pages++;
	return 0;
}

int innodb_delta_writer_finish(innodb_delta_writer *w, xb_error *err)
{
	if (w->done)
		return 0;
	w->done = true;
	return emit_block(w, true, err);
}

uint64_t innodb_delta_writer_pages(const innodb_delta_writer *w)
{
	return w->pages;
}

uint64_t innodb_delta_writer_bytes(const innodb_delta_writer *w)
{
	return w->bytes;
}

void innodb_delta_writer_free(innodb_delta_writer *w)
{
	if (!w)
		return;
	free(w->buf);
	free(w);
}

/* ---------------------------------------------------------------- reader */

int innodb_delta_header_parse(const uint8_t *hdr, uint32_t page_size, uint32_t *n, bool *last, xb_error *err)
{
	uint32_t magic = be32_get(hdr);
	if (magic != INNODB_DELTA_MAGIC_MORE && magic != INNODB_DELTA_MAGIC_LAST)
		return xb_err_set(err, XB_E_BACKUP_DAMAGED, "a block starts with %08x, not a delta block's magic", magic);
	*last = magic == INNODB_DELTA_MAGIC_LAST;
	uint32_t max = innodb_delta_block_pages(page_size), i;
	for (i = 0; i < max; i++)
		if (be32_get(hdr + 4 + 4 * (size_t)i) == INNODB_DELTA_END)
			break;
	if (i < max && !*last)
		return xb_err_set(err, XB_E_BACKUP_DAMAGED,
				  "a block of %u pages is not full but not marked as the last one", i);
	*n = i;
	return 0;
}

struct innodb_delta_reader {
	char *path;           /* for messages */
	int fd;
	uint32_t ps;          /* page size */
	uint64_t size;        /* file size */
	uint8_t *hdr;         /* the current block's header page */
	uint8_t *buf;         /* READ_PAGES pages */
	uint64_t block_off;   /* file offset of the current header */
	uint32_t n;           /* pages in the current block */
	uint32_t i;           /* next page of it */
	uint32_t buf_first;   /* index in the block of buf's first page */
	uint32_t buf_n;       /* pages in buf */
	bool last;            /* the current block is the last */
	bool started;         /* a header was read */
	uint64_t pages;       /* pages returned */
};

innodb_delta_reader *innodb_delta_reader_open(const char *path, uint32_t page_size, xb_error *err)
{
	if (!page_size_ok(page_size)) {
		xb_err_set(err, XB_E_INTERNAL, "%s: bad page size %u", path, page_size);
		return NULL;
	}
	innodb_delta_reader *r = calloc(1, sizeof *r);
	if (!r || !(r->path = strdup(path)) || !(r->hdr = malloc(page_size)) ||
	    !(r->buf = malloc((size_t)READ_PAGES * page_size))) {
		if (r) {
			free(r->path);
			free(r->hdr);
		}
		free(r);
		xb_err_set(err, XB_E_INTERNAL, "out of memory reading %s", path);
		return NULL;
	}
	r->ps = page_size;
	r->fd = xb_file_open(XB_FILE_CWD, path, O_RDONLY, 0, NULL);
	struct stat sb;
	if (r->fd < 0 || fstat(r->fd, &sb)) {
		xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
		innodb_delta_reader_close(r);
		return NULL;
	}
	r->size = (uint64_t)sb.st_size;
	xb_file_advise(r->fd, 0, 0, XB_ADVISE_SEQUENTIAL);
	xb_file_advise(r->fd, 0, PREFETCH_BYTES, XB_ADVISE_WILLNEED);
	return r;
}

static int damaged(innodb_delta_reader *r, uint64_t off, const char *what, xb_error *err)
{
	xb_err_set(err, XB_E_BACKUP_DAMAGED, "%s is damaged at offset %llu: %s", r->path, (unsigned long long)off, what);
	return xb_err_hint(err, "take the incremental backup again, or put back this file from another copy of it");
}

static int read_at(innodb_delta_reader *r, void *buf, size_t len, uint64_t off, xb_error *err)
{
	if (off + len > r->size)
		return damaged(r, r->size, "the file ends inside a block", err);
	ssize_t got = xb_file_pread_all(r->fd, buf, len, (off_t)off);
	if (got < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot read %s at offset %llu: %s", r->path,
				  (unsigned long long)off, strerror(errno));
	if ((size_t)got < len)
		return damaged(r, off + (uint64_t)got, "the file ends inside a block", err);
	return 0;
}

/* The current block has a page left to return (0), or the end (1), or an error. */
static int block_ready(innodb_delta_reader *r, xb_error *err)
{
	int rc;
	while (!r->started || r->i == r->n) {
		if (r->started && r->last) {
			uint64_t end = r->block_off + ((uint64_t)r->n + 1) * r->ps;
			if (end != r->size)
				return damaged(r, end, "bytes follow the last block", err);
			return 1;
		}
		uint64_t off = r->started ? r->block_off + ((uint64_t)r->n + 1) * r->ps : 0;
		if ((rc = read_at(r, r->hdr, r->ps, off, err)))
			return rc;
		xb_error e = {0};
		if (innodb_delta_header_parse(r->hdr, r->ps, &r->n, &r->last, &e))
			return damaged(r, off, e.msg, err);
		r->block_off = off;
		r->started = true;
		r->i = 0;
		r->buf_n = 0;
		r->buf_first = 0;
	}
	return 0;
}

static uint32_t page_no_at(const innodb_delta_reader *r, uint32_t i)
{
	return be32_get(r->hdr + 4 + 4 * (size_t)i);
}

/* buf holds the block's pages i .. i+count-1 (count <= READ_PAGES). */
static int buffer_pages(innodb_delta_reader *r, uint32_t count, xb_error *err)
{
	uint32_t i = r->i;
	if (i >= r->buf_first && i + count <= r->buf_first + r->buf_n)
		return 0;
	uint32_t keep = 0;
	if (i >= r->buf_first && i < r->buf_first + r->buf_n) {
		keep = r->buf_first + r->buf_n - i;
		memmove(r->buf, r->buf + (size_t)(i - r->buf_first) * r->ps, (size_t)keep * r->ps);
	}
	uint32_t want = r->n - i < READ_PAGES ? r->n - i : READ_PAGES;
	uint64_t off = r->block_off + ((uint64_t)i + keep + 1) * r->ps;
	int rc = read_at(r, r->buf + (size_t)keep * r->ps, (size_t)(want - keep) * r->ps, off, err);
	if (rc)
		return rc;
	r->buf_first = i;
	r->buf_n = want;
	return 0;
}

int innodb_delta_reader_next(innodb_delta_reader *r, uint32_t *page_no, const uint8_t **page, xb_error *err)
{
	int rc = block_ready(r, err);
	if (rc)
		return rc == 1 ? 0 : rc;
	if ((rc = buffer_pages(r, 1, err)))
		return rc;
	*page_no = page_no_at(r, r->i);
	*page = r->buf + (size_t)(r->i - r->buf_first) * r->ps;
	r->i++;
	r->pages++;
	return 1;
}

int innodb_delta_reader_next_run(innodb_delta_reader *r, uint32_t *first, uint32_t *count, const uint8_t **pages,
				 xb_error *err)
{
	int rc = block_ready(r, err);
	if (rc)
		return rc == 1 ? 0 : rc;
	uint32_t no = page_no_at(r, r->i), k = 1;
	while (k < READ_PAGES && r->i + k < r->n && no + k != 0 && page_no_at(r, r->i + k) == no + k)
		k++;
	if ((rc = buffer_pages(r, k, err)))
		return rc;
	*first = no;
	*count = k;
	*pages = r->buf + (size_t)(r->i - r->buf_first) * r->ps;
	r->i += k;
	r->pages += k;
	return 1;
}

uint64_t innodb_delta_reader_pages(const innodb_delta_reader *r)
{
	return r->pages;
}

void innodb_delta_reader_close(innodb_delta_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r->hdr);
	free(r->buf);
	free(r);
}
