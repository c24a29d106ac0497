/*
 * datafile.c - validated copy of one InnoDB datafile into a sink (see datafile.h).
 *
 * The reader hands out chunks that are a multiple of 64 KiB, hence of every
 * physical page size, so pages normally lie whole inside a chunk and are
 * validated in place: a run of good pages is written to the sink straight
 * from the reader's buffer, one write per chunk. Only when a page fails is
 * the run cut there: the page is re-read alone into a small buffer until it
 * validates, that copy is written, and the run resumes after it. If the file
 * grew to a size that is not a page multiple under the reader, a page can
 * straddle two chunks; it is then assembled in a carry buffer (the only
 * copy of page data made here), and a partial page at the very end is left
 * out (the server extends files by whole pages; redo recreates the rest).
 *
 * With a gate (opts->gate, see common/iogate.h) there is no read-ahead: each
 * chunk is a whole batch, read synchronously inside the gate's read phase and
 * written inside its write phase, so the copy threads together give the
 * device long runs of one kind of I/O.
 *
 * In delta mode each validated page is offered to the delta writer
 * (innodb/delta.h) when it is wanted, and the writer's finished blocks go to
 * the sink; the progress meter then counts the bytes read, not written.
 */
#include "datafile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/bytes.h"
#include "common/fault.h"
#include "common/log.h"
#include "innodb/delta.h"
#include "innodb/pagecomp.h"
#include "platform/aio.h"

#define CHUNK_ALIGN ((size_t)INNODB_PAGE_SIZE_MAX) /* chunks hold whole pages of any size */
#define TRX_SYS_PAGE_NO 5u /* the TRX_SYS page of the system tablespace (space 0) */

/* State of one copy. */
typedef struct copy_ctx {
	const char *src;              /* source path, for messages */
	const datafile_copy_opts *o;  /* options */
	datafile_copy_stats *st;      /* counters */
	volatile uint64_t *progress;  /* progress meter counter, may be NULL */
	xb_reader *r;                 /* the reader */
	xb_sink_file *f;              /* the sink file */
	innodb_space_info si;         /* page-0 info */
	uint32_t psize;               /* physical page size */
	int retries;                  /* resolved number of re-reads */
	unsigned retry_ms;            /* resolved pause */
	bool check_page_no;           /* compare the page-number field */
	uint64_t page_off;            /* file offset of the next page to process */
	uint8_t *carry;               /* page straddling two chunks (psize bytes) */
	size_t carry_len;             /* bytes in carry */
	uint8_t *fixed;               /* a re-read page (psize bytes) */
	uint64_t counted;             /* bytes counted for the progress meter */
	innodb_delta_writer *dw;      /* delta mode: the writer of <dst>.delta */
} copy_ctx;

void innodb_datafile_opts_init(datafile_copy_opts *o)
{
	memset(o, 0, sizeof *o);
	o->chunk_bytes = DATAFILE_DEFAULT_CHUNK;
	o->retries = DATAFILE_DEFAULT_RETRIES;
	o->retry_ms = DATAFILE_DEFAULT_RETRY_MS;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* True when all n bytes are zero (memcmp of the buffer against itself shifted by one). */
static bool all_zero(const uint8_t *p, size_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* len more bytes done, for the progress meter: written, or read in delta mode. */
static void count(copy_ctx *c, uint64_t len)
{
	uint64_t before = c->counted, expected = c->o->expected_bytes;
	c->counted += len;
	if (c->progress)
		__atomic_fetch_add(c->progress, len, __ATOMIC_RELAXED);
	/* the file grew since it was counted: the total follows it */
	if (c->o->progress_total && c->counted > expected)
		__atomic_fetch_add(c->o->progress_total, c->counted - (before > expected ? before : expected),
				   __ATOMIC_RELAXED);
}

static int write_out(copy_ctx *c, const uint8_t *buf, size_t len, xb_error *err)
{
	if (len == 0)
		return 0;
	if (c->o->gate)
		xb_iogate_enter(c->o->gate, XB_IO_WRITE);
	int rc = xb_sink_write(c->f, buf, len, err);
	if (c->o->gate)
		xb_iogate_leave(c->o->gate, XB_IO_WRITE);
	if (!rc && xb_fault(XB_FAULT_BACKUP_COPY_CHUNK))
		rc = xb_err_set(err, XB_E_IO_WRITE, "copying %s: failed by fault point backup-copy-chunk", c->src);
	if (rc)
		return rc;
	c->st->bytes += len;
	if (!c->o->delta)
		count(c, len);
	return 0;
}

/* A page straddling the previous chunk and this one: its start is in
 * c->carry; as much of the rest as buf holds is added. Returns the bytes of
 * buf taken; the page is whole when c->carry_len reaches the page size. */
static size_t fill_carry(copy_ctx *c, const uint8_t *buf, size_t len)
{
	if (c->carry_len == 0)
		return 0;
	size_t take = c->psize - c->carry_len;
	if (take > len)
		take = len;
	memcpy(c->carry + c->carry_len, buf, take);
	c->carry_len += take;
	return take;
}

/* After the whole pages of a chunk read at off (pos bytes of it): the next
 * page's offset, and the start of a page cut by the chunk's end, kept. */
static void keep_tail(copy_ctx *c, const uint8_t *buf, size_t len, uint64_t off, size_t pos)
{
	c->page_off = off + pos;
	if (pos < len) {
		memcpy(c->carry, buf + pos, len - pos);
		c->carry_len = len - pos;
	}
}

/* The delta writer's finished blocks go to the sink. */
static int delta_emit(void *ctx, const uint8_t *buf, size_t len, xb_error *err)
{
	return write_out(ctx, buf, len, err);
}

static int check_page(copy_ctx *c, const uint8_t *page, uint64_t off, const uint8_t **use, xb_error *err);

/* Delta mode: validate the page at file offset off and hand it to the delta
 * writer when it is wanted. */
static int delta_page(copy_ctx *c, const uint8_t *page, uint64_t off, xb_error *err)
{
	const uint8_t *use;
	int rc = check_page(c, page, off, &use, err);
	if (rc)
		return rc;
	count(c, c->psize);
	uint32_t file_page = (uint32_t)(off / c->psize);
	bool want = c->o->page_wanted ? c->o->page_wanted(c->o->page_wanted_ctx, c->o->first_page_no + file_page, use)
				      : innodb_page_lsn(use) > c->o->delta_lsn;
	if (!want)
		return 0;
	if (be32_get(use + FIL_PAGE_SPACE_ID) == 0 && be32_get(use + FIL_PAGE_OFFSET) == TRX_SYS_PAGE_NO) {
		/* mariabackup's words, which scripts look for */
		xb_err_set(err, XB_E_SERVER_STATE, "%s: the TRX_SYS page changed since LSN %llu: "
			   "--incremental backup is impossible if the server had been restarted with different "
			   "innodb_undo_tablespaces.", c->src, (unsigned long long)c->o->delta_lsn);
		return xb_err_hint(err, "take a full backup");
	}
	if ((rc = innodb_delta_writer_add(c->dw, file_page, use, err)) == 0)
		c->st->delta_pages++;
	return rc;
}

/* Delta mode: one chunk read at file offset off, page by page. */
static int delta_chunk(copy_ctx *c, const uint8_t *buf, size_t len, uint64_t off, xb_error *err)
{
	int rc;
	size_t pos = fill_carry(c, buf, len);
	if (c->carry_len > 0 && c->carry_len < c->psize)
		return 0; /* the chunk ended inside that page */
	if (c->carry_len == c->psize) {
		if ((rc = delta_page(c, c->carry, c->page_off, err)) != 0)
			return rc;
		c->carry_len = 0;
		c->page_off += c->psize;
	}
	for (; len - pos >= c->psize; pos += c->psize)
		if ((rc = delta_page(c, buf + pos, off + pos, err)) != 0)
			return rc;
	keep_tail(c, buf, len, off, pos);
	return 0;
}

static bool page_ok(const copy_ctx *c, const uint8_t *page, uint32_t page_no, char *why,
		    size_t whylen)
{
	if (c->o->system_space && innodb_page_in_doublewrite(&c->si, page_no))
		return true;
	return innodb_page_is_valid(page, &c->si, page_no, c->check_page_no, why, whylen);
}

/* Validate the page at file offset off. *use is set to the bytes to copy:
 * the page itself, or c->fixed after a successful re-read. */
static int check_page(copy_ctx *c, const uint8_t *page, uint64_t off, const uint8_t **use,
		      xb_error *err)
{
	uint32_t page_no = c->o->first_page_no + (uint32_t)(off / c->psize);
	char why[256] = "";
	*use = page;
	if (!page_ok(c, page, page_no, why, sizeof why)) {
		/* the words mariabackup logs here, which scripts look for */
		xb_log(c->o->worker, "Database page corruption detected at page %u of %s (%s): re-reading it", page_no,
		       c->src, why[0] ? why : "invalid page");
		int attempt;
		for (attempt = 1; attempt <= c->retries; attempt++) {
			sleep_ms(c->retry_ms);
			if (c->o->should_stop && c->o->should_stop(c->o->stop_ctx, err)) /* a stop request wins over re-reads */
				return err && err->code ? err->code : XB_E_INTERRUPTED;
			if (c->o->before_reread)
				c->o->before_reread(c->o->before_reread_arg, page_no, attempt);
			int rc = xb_reader_reread(c->r, off, c->fixed, c->psize, err);
			if (rc)
				return rc;
			why[0] = '\0';
			if (page_ok(c, c->fixed, page_no, why, sizeof why))
				break;
		}
		if (attempt > c->retries) {
			xb_err_set(err, XB_E_CORRUPT_PAGE, "page %u of %s is corrupt: %s", page_no,
				   c->src, why[0] ? why : "invalid page");
			return xb_err_hint(err,
					   "the page was still invalid after %d re-reads %u ms apart; "
					   "check the server's file with: innochecksum %s",
					   c->retries, c->retry_ms, c->src);
		}
		c->st->reread_pages++;
		*use = c->fixed;
	}
	uint32_t algo = c->o->pagecomp_readable ? pagecomp_stored_algo(*use, &c->si) : PAGECOMP_NONE;
	if (algo != PAGECOMP_NONE && !(c->o->pagecomp_readable & (1u << algo))) {
		xb_err_set(err, XB_E_SERVER_STATE,
			   "%s: page %u is page_compressed with %s, but the server has no provider_%s plugin loaded: "
			   "neither it nor a restored copy can read this table", c->src, page_no,
			   pagecomp_algo_name(algo), pagecomp_algo_name(algo));
		return xb_err_hint(err, "load the provider (plugin_load_add = provider_%s) and restart the server, "
				   "then take the backup", pagecomp_algo_name(algo));
	}
	c->st->pages++;
	if (all_zero(*use, c->psize))
		c->st->zero_pages++;
	return 0;
}

/* The next chunk from the reader, through the gate when there is one. */
static int next_chunk(copy_ctx *c, const uint8_t **buf, size_t *len, uint64_t *off, xb_error *err)
{
	if (!c->o->gate)
		return xb_reader_next(c->r, buf, len, off, err);
	xb_iogate_enter(c->o->gate, XB_IO_READ);
	int rc = xb_reader_next(c->r, buf, len, off, err);
	xb_iogate_leave(c->o->gate, XB_IO_READ);
	return rc;
}

/* Validate and write one chunk read at file offset off. */
static int copy_chunk(copy_ctx *c, const uint8_t *buf, size_t len, uint64_t off, xb_error *err)
{
	if (c->o->delta)
		return delta_chunk(c, buf, len, off, err);
	const uint8_t *use;
	int rc;
	size_t pos = fill_carry(c, buf, len);
	if (c->carry_len > 0 && c->carry_len < c->psize)
		return 0; /* the chunk ended inside that page */
	if (c->carry_len == c->psize) {
		if ((rc = check_page(c, c->carry, c->page_off, &use, err)) != 0 ||
		    (rc = write_out(c, use, c->psize, err)) != 0)
			return rc;
		c->carry_len = 0;
		c->page_off += c->psize;
	}
	size_t run = pos; /* start of the pending run of good pages */
	while (len - pos >= c->psize) {
		const uint8_t *page = buf + pos;
		if ((rc = check_page(c, page, off + pos, &use, err)) != 0)
			return rc;
		if (use != page) {
			if ((rc = write_out(c, buf + run, pos - run, err)) != 0 ||
			    (rc = write_out(c, use, c->psize, err)) != 0)
				return rc;
			run = pos + c->psize;
		}
		pos += c->psize;
	}
	if ((rc = write_out(c, buf + run, pos - run, err)) != 0)
		return rc;
	keep_tail(c, buf, len, off, pos);
	return 0;
}

/* Work out the page-0 info from the first chunk, re-reading page 0 while it
 * does not validate. Returns 0 with st->deferred set when the tablespace is
 * not ready yet: at once, with st->unwritten, when page 0 was never written
 * (a short file, or zeros), after the re-reads when it stays invalid. */
static int probe_page0(copy_ctx *c, const uint8_t *buf, size_t len, xb_error *err)
{
	size_t plen = len < INNODB_PAGE_SIZE_MAX ? len : INNODB_PAGE_SIZE_MAX;
	const uint8_t *p = buf;
	for (int attempt = 0;; attempt++) {
		xb_error perr = {0};
		if (plen < INNODB_PAGE_SIZE_MIN || all_zero(p, INNODB_PAGE_SIZE_MIN)) {
			/* Never written: nothing torn to wait for. Only the first read
			 * decides: a page 0 seen written and invalid, then zero, is not. */
			if (attempt > 0) {
				snprintf(c->st->why, sizeof c->st->why, "page 0 is not valid yet: it reads back as %s",
					 plen < INNODB_PAGE_SIZE_MIN ? "a short file" : "zeros");
				break;
			}
			if (plen < INNODB_PAGE_SIZE_MIN)
				snprintf(c->st->why, sizeof c->st->why, "file is shorter than one page (%zu bytes)",
					 plen);
			else
				snprintf(c->st->why, sizeof c->st->why, "page 0 is not written yet");
			c->st->unwritten = true;
			break;
		} else if (innodb_page0_parse(p, plen, &c->si, &perr) == 0) {
			if (c->si.physical_size <= plen)
				return 0;
			snprintf(c->st->why, sizeof c->st->why,
				 "file is shorter than one page (%zu of %u bytes)", plen,
				 c->si.physical_size);
		} else {
			snprintf(c->st->why, sizeof c->st->why, "page 0 is not valid yet: %.120s", perr.msg);
		}
		if (attempt >= c->retries)
			break;
		sleep_ms(c->retry_ms);
		if (c->o->should_stop && c->o->should_stop(c->o->stop_ctx, err))
			return err && err->code ? err->code : XB_E_INTERRUPTED;
		if (c->o->before_reread)
			c->o->before_reread(c->o->before_reread_arg, 0, attempt + 1);
		uint64_t size = xb_reader_size(c->r);
		plen = size < INNODB_PAGE_SIZE_MAX ? (size_t)size : INNODB_PAGE_SIZE_MAX;
		if (plen == 0)
			continue;
		int rc = xb_reader_reread(c->r, 0, c->fixed, plen, err);
		if (rc)
			return rc;
		p = c->fixed;
	}
	c->st->deferred = true;
	return 0;
}

/* A tablespace whose page 0 was never written, copied byte for byte from the
 * first chunk on (which showed page 0 unwritten: the bytes written are the
 * bytes looked at). Its page size is not known, so nothing is validated: every
 * page of it was made after the backup's checkpoint and redo recreates it. */
static int copy_as_is(copy_ctx *c, xb_sink *sink, const char *dst_relpath, const uint8_t *buf, size_t len,
		      uint64_t off, xb_error *err)
{
	int rc;
	xb_log(c->o->worker, "Copying %s to %s/%s as it is (%s: the redo log recreates it)", c->src,
	       sink->name ? sink->name : "", dst_relpath, c->st->why);
	c->f = xb_sink_open(sink, dst_relpath, err);
	if (!c->f)
		return err && err->code ? err->code : XB_E_IO_WRITE;
	while (len > 0) {
		if (c->o->should_stop && c->o->should_stop(c->o->stop_ctx, err))
			return err && err->code ? err->code : XB_E_INTERRUPTED;
		if ((rc = write_out(c, buf, len, err)) != 0 || (rc = next_chunk(c, &buf, &len, &off, err)) != 0)
			return rc;
	}
	rc = xb_sink_close(c->f, err);
	c->f = NULL;
	if (rc)
		return rc;
	c->st->deferred = false;
	xb_log(c->o->worker, "        ...done");
	return 0;
}

int innodb_datafile_copy(const char *src_path, const char *dst_relpath, xb_sink *sink,
			 const datafile_copy_opts *o, datafile_copy_stats *st,
			 volatile uint64_t *progress_bytes, xb_error *err)
{
	datafile_copy_opts defaults;
	if (!o) {
		innodb_datafile_opts_init(&defaults);
		o = &defaults;
	}
	if (!st)
		return xb_err_set(err, XB_E_INTERNAL, "copying %s: no statistics object given",
				  src_path);
	memset(st, 0, sizeof *st);
	if (o->system_space && o->first_page_no > 0 && !o->space)
		return xb_err_set(err, XB_E_INTERNAL,
				  "copying %s: a continuation file of the system tablespace needs "
				  "the page-0 information of its first file", src_path);

	copy_ctx c = {
		.src = src_path,
		.o = o,
		.st = st,
		.progress = progress_bytes,
		.retries = o->retries == 0 ? DATAFILE_DEFAULT_RETRIES : (o->retries < 0 ? 0 : o->retries),
		.retry_ms = o->retry_ms ? o->retry_ms : DATAFILE_DEFAULT_RETRY_MS,
		.check_page_no = !(o->system_space && o->first_page_no > 0),
	};
	size_t chunk = o->chunk_bytes ? o->chunk_bytes : DATAFILE_DEFAULT_CHUNK;
	chunk = (chunk + CHUNK_ALIGN - 1) / CHUNK_ALIGN * CHUNK_ALIGN;

	int rc = 0;
	c.carry = malloc(INNODB_PAGE_SIZE_MAX);
	c.fixed = malloc(INNODB_PAGE_SIZE_MAX);
	if (!c.carry || !c.fixed) {
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory copying %s", src_path);
		goto out;
	}
	/* With a gate a chunk is a whole batch, read when its turn comes: read-ahead
	 * would put reads on the device during the write phase. */
	c.r = o->gate ? xb_reader_open_flags(src_path, chunk, 1, XB_READER_NO_AIO, err)
		      : xb_reader_open(src_path, chunk, DATAFILE_READ_DEPTH, err);
	if (!c.r) {
		rc = err ? err->code : XB_E_IO_READ;
		goto out;
	}
	xb_reader_set_throttle(c.r, o->throttle);
	snprintf(st->read_mode, sizeof st->read_mode, "%s", xb_reader_mode(c.r));

	const uint8_t *buf;
	size_t len;
	uint64_t off;
	if ((rc = next_chunk(&c, &buf, &len, &off, err)) != 0)
		goto out;
	if (len == 0) {
		st->deferred = true;
		st->unwritten = true;
		snprintf(st->why, sizeof st->why, "file is empty");
		if (o->copy_unwritten)
			rc = copy_as_is(&c, sink, dst_relpath, buf, len, off, err);
		goto out;
	}
	if (o->space) {
		c.si = *o->space;
	} else {
		if ((rc = probe_page0(&c, buf, len, err)) != 0)
			goto out;
		if (st->deferred && st->unwritten && o->copy_unwritten) {
			rc = copy_as_is(&c, sink, dst_relpath, buf, len, off, err);
			goto out;
		}
		if (st->deferred)
			goto out;
	}
	c.psize = c.si.physical_size;
	if (c.psize < INNODB_PAGE_SIZE_MIN || c.psize > INNODB_PAGE_SIZE_MAX ||
	    (c.psize & (c.psize - 1)) != 0) {
		rc = xb_err_set(err, XB_E_INTERNAL, "copying %s: bad physical page size %u",
				src_path, c.psize);
		goto out;
	}

	char delta_rel[4096];
	if (o->delta) {
		if ((size_t)snprintf(delta_rel, sizeof delta_rel, "%s%s", dst_relpath, INNODB_DELTA_SUFFIX) >=
		    sizeof delta_rel) {
			rc = xb_err_set(err, XB_E_INTERNAL, "copying %s: name too long", src_path);
			goto out;
		}
		if (!(c.dw = innodb_delta_writer_new(c.psize, delta_emit, &c, err))) {
			rc = err && err->code ? err->code : XB_E_INTERNAL;
			goto out;
		}
	}
	const char *out_rel = o->delta ? delta_rel : dst_relpath;
	xb_log(o->worker, "Copying %s to %s/%s", src_path, sink->name ? sink->name : "", out_rel);
	c.f = xb_sink_open(sink, out_rel, err);
	if (!c.f) {
		rc = err && err->code ? err->code : XB_E_IO_WRITE;
		goto out;
	}
	while (len > 0) {
		if (o->should_stop && o->should_stop(o->stop_ctx, err)) {
			rc = err && err->code ? err->code : XB_E_INTERRUPTED;
			goto out;
		}
		if ((rc = copy_chunk(&c, buf, len, off, err)) != 0)
			goto out;
		if ((rc = next_chunk(&c, &buf, &len, &off, err)) != 0)
			goto out;
	}
	if (c.carry_len > 0)
		xb_log(o->worker, "Warning: %s: left out %zu bytes of an incomplete last page "
		       "at offset %llu (the file is being extended)", src_path, c.carry_len,
		       (unsigned long long)c.page_off);
	snprintf(st->read_mode, sizeof st->read_mode, "%s", xb_reader_mode(c.r));
	if (c.dw && (rc = innodb_delta_writer_finish(c.dw, err)) != 0)
		goto out;
	rc = xb_sink_close(c.f, err);
	c.f = NULL;
	if (rc == 0 && o->delta) {
		/* <dst>.meta: the physical page size, the compressed one, the space id */
		innodb_delta_meta m = {.page_size = c.psize, .zip_size = c.si.zip ? c.psize : 0,
				       .space_id = c.si.space_id};
		char meta[INNODB_DELTA_META_MAX], meta_rel[4096];
		size_t n = innodb_delta_meta_format(&m, meta, sizeof meta);
		if ((size_t)snprintf(meta_rel, sizeof meta_rel, "%s%s", dst_relpath, INNODB_DELTA_META_SUFFIX) >=
		    sizeof meta_rel)
			rc = xb_err_set(err, XB_E_INTERNAL, "copying %s: name too long", src_path);
		else
			rc = xb_sink_put(o->meta_sink ? o->meta_sink : sink, meta_rel, meta, n, err);
	}
	if (rc == 0)
		xb_log(o->worker, "        ...done");
out:
	innodb_delta_writer_free(c.dw);
	if (c.f)
		xb_sink_abort(c.f);
	xb_reader_close(c.r);
	free(c.carry);
	free(c.fixed);
	return rc;
}
