/*
 * batch.c - batch apply, the apply phase of recovery: files to size, then
 * pages.
 *
 * The batch's pages, sorted by (space, page), are cut into one contiguous
 * range per thread, the jobs of the parallel executor (common/parallel.h),
 * whose workers hold their buffers and statistics from worker_start to
 * worker_end. A worker walks its range in runs: adjacent pages
 * of one file that must be read (not rebuilt by INIT_PAGE/FREE_PAGE) are read
 * with one pread of up to 1 MiB. Each page is then validated, brought up to
 * date entry by entry (an entry whose start LSN is below the page LSN, or
 * below the LSN of the INIT_PAGE that rebuilt the page, is already in it),
 * finalized and checked again; modified pages are written in runs of
 * adjacent pages with one pwrite. The first error stops every worker.
 */
#include "innodb/recovery/batch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/parallel.h"
#include "innodb/pagecomp.h"
#include "innodb/redo.h"
#include "platform/clock.h"
#include "platform/file.h"

#define RUN_BYTES (1u << 20)

/* A worker's state (worker_start) while it runs jobs: page ranges of the batch. */
typedef struct worker {
	collect_page **pages; /* the range of the job being run */
	size_t n;           /* its pages */
	spaces *sp;
	const batch_opts *o;
	batch_stats st;     /* what this worker did, summed by worker_end */
	xb_error *err;      /* the running job's error */
	xb_parallel *run;   /* the run, to stop early when another job failed */
	uint64_t progress_per_page;
	bool check_only;  /* the first pass: read and check the pages, write nothing */
	uint8_t *buf;  /* RUN_BYTES of stored pages */
	uint8_t *tmp;  /* one logical page (page_compressed) */
	uint8_t *out;  /* one physical page (page_compressed write image) */
} worker;

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Count the records of an entry that is skipped, by kind. */
static void count_skipped(const uint8_t *r, size_t len, replay_stats *st)
{
	redo_rec_it it = redo_rec_entry(r, (uint32_t)len);
	redo_rec h;
	while (redo_rec_next(&it, &h) == REDO_REC_OK) {
		int kind = replay_kind_of(h.b, h.body_len ? h.body[0] : 0);
		if (kind >= 0) {
			st->count[kind]++;
			st->bytes[kind] += h.end - h.start;
		}
	}
}

/* The stored page at frame -> the page redo applies to (decompressed for page_compressed);
 * *frame NULL: a damaged page left as copied (force_recovery). */
static int load_frame(worker *w, space_file *f, collect_page *pg, uint8_t *stored, uint8_t **frame, uint64_t *page_lsn)
{
	const innodb_space_info *si = &f->info;
	*frame = stored;
	*page_lsn = 0;
	if (pg->init_lsn) {
		if (si->page_compressed) /* the stored bytes past the image stay in the file */
			*frame = w->tmp;
		memset(*frame, 0, si->physical_size);
		return 0;
	}
	if (all_zero(stored, si->physical_size))
		return 0;
	char why[160];
	bool check_no = f->space_id != 0;
	if (!(f->space_id == 0 && innodb_page_in_doublewrite(si, pg->page_no)) &&
	    !spaces_page_written(f, pg->page_no) && /* checked after apply when an earlier batch wrote it */
	    !innodb_page_is_valid(stored, si, pg->page_no, check_no, why, sizeof why)) {
		if (w->o->force_recovery) {
			/* innodb_force_recovery: the page stays as copied, its records are not applied */
			xb_warn("%s page %u fails its checksum before apply (%s): left as copied "
				"(innodb_force_recovery)", f->rel, pg->page_no, why);
			*frame = NULL;
			return 0;
		}
		xb_err_set(w->err, XB_E_CORRUPT_PAGE, "%s page %u fails its checksum before apply: %s", f->rel,
			   pg->page_no, why);
		return xb_err_hint(w->err, "the backup copy is damaged; take a new backup");
	}
	if (si->page_compressed && pagecomp_is_compressed(stored, si)) {
		int rc = pagecomp_decompress(stored, w->tmp, si, pg->page_no, w->err);
		if (rc)
			return xb_err_prefix(w->err, "%s", f->rel);
		*frame = w->tmp;
	}
	*page_lsn = be64_get(*frame + 16);
	return 0;
}

/* Bring one page up to date. *write_image receives what to write (NULL: nothing). */
static int recover_page(worker *w, space_file *f, collect_page *pg, uint8_t *stored, const uint8_t **write_image)
{
	const innodb_space_info *si = &f->info;
	uint8_t *frame;
	uint64_t page_lsn;
	*write_image = NULL;
	int rc = load_frame(w, f, pg, stored, &frame, &page_lsn);
	if (rc || !frame)
		return rc;
	uint32_t fsize = si->page_compressed ? si->logical_size : si->physical_size;
	replay_frame af = {.page = frame, .size = fsize, .space_id = f->space_id, .page_no = pg->page_no,
			  .zip = si->zip};
	bool modified = false, freed = false;
	uint64_t last_end = 0;
	for (collect_entry *e = pg->first; e; e = e->next) {
		if (e->next) /* entries are scattered over the arena: start loading the next one now */
			__builtin_prefetch(e->next);
		last_end = e->end_lsn;
		if (e->start_lsn < page_lsn || e->start_lsn < pg->init_lsn) {
			count_skipped(e->recs, e->len, &w->st.skipped);
			continue;
		}
		bool only_free = false;
		char why[200];
		if (replay_entry(&af, e->recs, e->len, &w->st.applied, &only_free, why, sizeof why) != REPLAY_OK)
			return xb_err_set(w->err, XB_E_CORRUPT_PAGE,
					  "%s page %u: cannot apply the mini-transaction at LSN %llu: %s", f->rel,
					  pg->page_no, (unsigned long long)e->start_lsn, why);
		modified = !only_free;
		freed = only_free;
	}
	if (!modified && freed && si->page_compressed) {
		/* a freed page of a page_compressed tablespace is punched out of
		 * the file by the server's flush: it reads back as zeros */
		w->st.pages_freed++;
		memset(w->out, 0, si->physical_size);
		*write_image = w->out;
		return 0;
	}
	if (!modified) {
		if (freed)
			w->st.pages_freed++;
		else
			w->st.pages_current++;
		return 0;
	}
	if (si->page_compressed && si->full_crc32) {
		rc = pagecomp_write_image(frame, w->out, si, f->space_id, pg->page_no, last_end,
					  w->o->compression_level, w->err);
		if (rc)
			return xb_err_prefix(w->err, "%s", f->rel);
		*write_image = w->out;
	} else {
		/* legacy page_compressed pages too: mariabackup writes them uncompressed
		 * (it has no innodb_compression_algorithm to compress that layout with) */
		innodb_page_finalize(frame, si, f->space_id, pg->page_no, last_end);
		*write_image = frame;
	}
	char why[160];
	if (!innodb_page_is_valid(*write_image, si, pg->page_no, true, why, sizeof why))
		return xb_err_set(w->err, XB_E_CORRUPT_PAGE,
				  "%s page %u fails its checksum after applying redo up to LSN %llu: %s", f->rel,
				  pg->page_no, (unsigned long long)last_end, why);
	if (pg->init_lsn)
		w->st.pages_created++;
	return 0;
}

/* How much of a page image the server's flush writes: page_compressed
 * images only up to their compressed length rounded up to the file system
 * block; the rest of the page in the file keeps what it had. */
static size_t image_bytes(const space_file *f, const uint8_t *img)
{
	uint32_t psz = f->info.physical_size, type = be16_get(img + 24), len = psz;
	if (!f->info.page_compressed)
		return psz;
	if (f->info.full_crc32 && (type & 0x8000))
		len = (type & 0x7FFF) << 8;
	else if (!f->info.full_crc32 && type == FIL_PAGE_PAGE_COMPRESSED)
		len = 40u + be16_get(img + 38);
	uint32_t b = f->io_block ? f->io_block : 4096;
	len = (len + b - 1) / b * b;
	return len < psz ? len : psz;
}

/* How many pages from pages[i] form one read run. */
static size_t run_length(worker *w, size_t i, space_file *f, uint64_t run_max)
{
	uint32_t psz = f->info.physical_size;
	size_t max = RUN_BYTES / psz, n = 1;
	if (max > run_max)
		max = (size_t)run_max;
	while (i + n < w->n && n < max) {
		collect_page *a = w->pages[i + n - 1], *b = w->pages[i + n];
		if (b->space_id != a->space_id || b->page_no != a->page_no + 1)
			break;
		n++;
	}
	return n;
}

/* Read a run, recover each page, write the modified ones in runs. */
static int do_run(worker *w, space_file *f, size_t i, size_t n, int fd, off_t off)
{
	uint32_t psz = f->info.physical_size;
	bool need_read = f->info.page_compressed;
	for (size_t k = 0; k < n; k++)
		need_read |= !w->pages[i + k]->init_lsn;
	uint64_t t0 = xb_clock_ns();
	if (need_read) {
		ssize_t k = xb_file_pread_all(fd, w->buf, n * psz, off);
		size_t got = k > 0 ? (size_t)k : 0;
		if (k < 0)
			return xb_err_set(w->err, XB_E_IO_READ, "cannot read %s page %u: %s", f->rel,
					  w->pages[i]->page_no, strerror(errno));
		memset(w->buf + got, 0, n * psz - got);
		w->st.pages_read += got / psz;
	}
	uint64_t t1 = xb_clock_ns();
	w->st.ns_read += t1 - t0;
	if (w->check_only) {
		for (size_t k = 0; k < n; k++) {
			uint8_t *frame;
			uint64_t lsn;
			int rc = w->pages[i + k]->init_lsn ? 0 : load_frame(w, f, w->pages[i + k], w->buf + k * psz,
									    &frame, &lsn);
			if (rc)
				return rc;
		}
		w->st.ns_read += xb_clock_ns() - t1;
		return 0;
	}
	size_t wstart = 0, wn = 0;
	for (size_t k = 0; k <= n; k++) {
		const uint8_t *img = NULL;
		if (k < n) {
			uint8_t *stored = w->buf + k * psz;
			int rc = recover_page(w, f, w->pages[i + k], stored, &img);
			if (rc)
				return rc;
			if (img && img != stored)
				memcpy(stored, img, image_bytes(f, img));
			if (img) {
				if (!wn)
					wstart = k;
				wn++;
				continue;
			}
		}
		if (!wn)
			continue;
		uint64_t b = xb_clock_ns();
		w->st.ns_apply += b - t1;
		const uint8_t *wbuf = w->buf + wstart * psz;
		off_t woff = off + (off_t)(wstart * psz);
		if (w->o->journal) {
			int rc = journal_write(w->o->journal, spaces_path_of(f, w->pages[i + wstart]->page_no), fd, woff,
					       wbuf, wn * psz, w->err);
			if (rc)
				return rc;
		} else if (xb_file_pwrite_all(fd, wbuf, wn * psz, woff))
			return xb_err_set(w->err, XB_E_IO_WRITE, "cannot write %s page %u: %s", f->rel,
					  w->pages[i + wstart]->page_no, strerror(errno));
		for (size_t k2 = wstart; k2 < wstart + wn; k2++)
			spaces_mark_written(f, w->pages[i + k2]->page_no);
		t1 = xb_clock_ns();
		w->st.ns_write += t1 - b;
		w->st.pages_written += wn;
		wn = 0;
	}
	w->st.ns_apply += xb_clock_ns() - t1;
	f->written = true;
	return 0;
}

/* Ask the kernel to start reading the pages the worker will need soon
 * (the read-ahead advice, xb_file_advise, queues the reads asynchronously), keeping about
 * PREFETCH_PAGES ahead of the page being applied: the disk then works on
 * many reads at once instead of one per thread. */
#define PREFETCH_PAGES 512
static void prefetch(worker *w, size_t i, size_t *pf)
{
	if (*pf < i)
		*pf = i;
	while (*pf < w->n && *pf - i < PREFETCH_PAGES) {
		collect_page *pg = w->pages[*pf];
		space_file *f = spaces_find(w->sp, pg->space_id);
		int fd;
		off_t off;
		uint64_t run_max;
		if (!f || spaces_locate(f, pg->page_no, &fd, &off, &run_max, NULL)) {
			(*pf)++;
			continue;
		}
		size_t n = run_length(w, *pf, f, run_max);
		bool need = f->info.page_compressed;
		for (size_t k = 0; k < n; k++)
			need |= !w->pages[*pf + k]->init_lsn;
		if (need)
			xb_file_advise(fd, off, (off_t)(n * f->info.physical_size), XB_ADVISE_WILLNEED);
		*pf += n;
	}
}

/* Apply (or check) the pages of the worker's range, run by run. */
static int work(worker *w)
{
	size_t i = 0, pf = 0;
	while (i < w->n && !xb_parallel_stopping(w->run)) {
		prefetch(w, i, &pf);
		if (w->o->should_stop && w->o->should_stop())
			return xb_err_set(w->err, XB_E_INTERRUPTED, "interrupted while applying redo to pages");
		collect_page *pg = w->pages[i];
		space_file *f = spaces_find(w->sp, pg->space_id);
		if (!f) { /* dropped tablespace (checked before the workers start) */
			w->st.pages_dropped++;
			i++;
			continue;
		}
		int fd;
		off_t off;
		uint64_t run_max;
		int rc = spaces_locate(f, pg->page_no, &fd, &off, &run_max, w->err);
		size_t n = rc ? 0 : run_length(w, i, f, run_max);
		if (!rc)
			rc = do_run(w, f, i, n, fd, off);
		if (rc)
			return rc;
		if (w->o->progress && !w->check_only)
			__atomic_add_fetch(w->o->progress, w->progress_per_page * n, __ATOMIC_RELAXED);
		i += n;
	}
	return 0;
}

/* The file of a tablespace: by space id, else an unidentified file claimed by the
 * name the log gives it (current name, or its last name later in the log). */
static space_file *space_of(spaces *s, const collect_space *rs)
{
	space_file *f = spaces_find(s, rs->space_id);
	if (f || !rs->has_flags || rs->deleted || rs->later_deleted)
		return f;
	f = spaces_claim(s, rs->space_id, rs->name, rs->flags);
	return f ? f : spaces_claim(s, rs->space_id, rs->later_name, rs->flags);
}

/* Sizes first: undo truncation, then extension to the logged FSP_SIZE. Also checks
 * that every tablespace with pages in the batch has a file or was dropped. */
static int prepare_files(collector *r, spaces *s, collect_page **pages, size_t n, bool partial, batch_stats *st,
			 xb_error *err)
{
	for (size_t i = 0; i < r->cap_spaces; i++) {
		collect_space *rs = &r->spaces[i];
		if (!rs->used)
			continue;
		space_file *f = space_of(s, rs);
		if (!f || rs->deleted)
			continue;
		if (f->info.encrypted)
			continue; /* refused below if it has records */
		int rc = 0;
		if (rs->trimmed) {
			rc = spaces_truncate(f, rs->trim_size, err);
			st->files_truncated++;
		}
		if (!rc && rs->has_size && spaces_size_pages(f) < rs->size) {
			rc = spaces_extend(f, rs->size, err);
			st->files_extended++;
		}
		if (rc)
			return rc;
	}
	uint32_t last = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		if (pages[i]->space_id == last)
			continue;
		last = pages[i]->space_id;
		space_file *f = spaces_find(s, last);
		collect_space *rs = collect_space_find(r, last);
		if (f && spaces_map_pages(f))
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		if (f && f->info.encrypted) {
			xb_err_set(err, XB_E_CORRUPT_PAGE,
				   "%s is an encrypted tablespace with redo to apply (from LSN %llu): this version cannot "
				   "decrypt pages",
				   f->rel, (unsigned long long)pages[i]->first->start_lsn);
			return xb_err_hint(err, "prepare this backup with mariabackup and the key management plugin");
		}
		if (f || (rs && (rs->deleted || rs->later_deleted)) || partial)
			continue;
		xb_err_set(err, XB_E_MISSING_FILE,
			   "tablespace %u (%s) has redo records from LSN %llu but its file is not in the backup", last,
			   rs && rs->name ? rs->name : "never named in the log",
			   (unsigned long long)(rs && rs->first_lsn ? rs->first_lsn : pages[i]->first->start_lsn));
		return xb_err_hint(err, "restore the missing file into the backup directory, or take a new backup");
	}
	return 0;
}

int batch_check_spaces(collector *r, spaces *s, enum batch_missing missing, xb_error *err)
{
	for (size_t i = 0; i < r->cap_spaces; i++) {
		collect_space *rs = &r->spaces[i];
		if (!rs->used || (!rs->records && !rs->later_records) || rs->deleted || rs->later_deleted)
			continue;
		if (space_of(s, rs))
			continue;
		if (!rs->has_flags && (spaces_has_unknown(s, rs->name) || spaces_has_unknown(s, rs->later_name)))
			continue; /* claimed once the log has given its page 0 flags */
		if (missing == BATCH_MISSING_WARN && rs->space_id)
			xb_warn("tablespace %u (%s) is not in this partial backup: its redo records (from LSN %llu) are "
				"passed over", rs->space_id,
				rs->name ? rs->name : rs->later_name ? rs->later_name : "never named in the log",
				(unsigned long long)rs->first_lsn);
		if (missing != BATCH_MISSING_REFUSE && rs->space_id)
			continue;
		xb_err_set(err, XB_E_MISSING_FILE,
			   "tablespace %u (%s) has redo records from LSN %llu but its file is not in the backup",
			   rs->space_id, rs->name ? rs->name : rs->later_name ? rs->later_name : "never named in the log",
			   (unsigned long long)rs->first_lsn);
		return xb_err_hint(err, "restore the missing file into the backup directory, or take a new backup");
	}
	return 0;
}

void batch_stats_add(batch_stats *a, const batch_stats *b)
{
	for (int k = 0; k < REPLAY_KINDS; k++) {
		a->applied.count[k] += b->applied.count[k];
		a->applied.bytes[k] += b->applied.bytes[k];
		a->skipped.count[k] += b->skipped.count[k];
		a->skipped.bytes[k] += b->skipped.bytes[k];
	}
	a->pages_read += b->pages_read;
	a->pages_written += b->pages_written;
	a->pages_created += b->pages_created;
	a->pages_freed += b->pages_freed;
	a->pages_current += b->pages_current;
	a->pages_dropped += b->pages_dropped;
	a->files_extended += b->files_extended;
	a->files_truncated += b->files_truncated;
	a->ns_read += b->ns_read;
	a->ns_apply += b->ns_apply;
	a->ns_write += b->ns_write;
}

/* Too little space for the batch: how much is missing, as an error naming
 * the file where the reservation failed. Counts what every run of the batch
 * still lacks plus the journal's part not yet reserved. */
static int space_missing(spaces *s, collect_page **pages, size_t n, uint64_t journal_need, const char *where,
			 int fd_fs, xb_error *err)
{
	uint64_t need = journal_need;
	for (size_t i = 0; i < n;) {
		space_file *f = spaces_find(s, pages[i]->space_id);
		int fd;
		off_t off;
		uint64_t run_max;
		if (!f || spaces_locate(f, pages[i]->page_no, &fd, &off, &run_max, NULL)) {
			i++;
			continue;
		}
		size_t k = 1;
		while (i + k < n && k < run_max && pages[i + k]->space_id == pages[i]->space_id &&
		       pages[i + k]->page_no == pages[i]->page_no + k)
			k++;
		need += (uint64_t)xb_file_unallocated(fd, off, (off_t)(k * f->info.physical_size));
		i += k;
	}
	long long fr = xb_fs_free(fd_fs);
	uint64_t free_b = fr > 0 ? (uint64_t)fr : 0;
	uint64_t miss = need > free_b ? need - free_b : 0;
	xb_err_set(err, XB_E_IO_WRITE,
		   "no space left on device for %s: applying this batch needs %.1f MiB more disk space (%.1f MiB to "
		   "allocate, %.1f MiB free); no page was changed",
		   where, (double)miss / 1048576.0, (double)need / 1048576.0, (double)free_b / 1048576.0);
	return xb_err_hint(err, "free at least %.0f MiB on that file system (or prepare a copy of the backup on a larger "
				"one) and run --prepare again",
			   (double)miss / 1048576.0 + 1);
}

/* Before anything of the batch is written: the journal's space, then every
 * run of the batch's pages (holes of a sparse copy included) reserved on
 * disk, so that a full disk stops the batch here, with the backup unchanged. */
static int reserve_space(spaces *s, collect_page **pages, size_t n, const batch_opts *o, xb_error *err)
{
	uint64_t page_bytes = 0;
	for (size_t i = 0; i < n; i++) {
		space_file *f = spaces_find(s, pages[i]->space_id);
		if (f)
			page_bytes += f->info.physical_size;
	}
	journal *j = o->journal;
	bool enospc = false;
	uint64_t bound = journal_bound(n, page_bytes);
	int rc = journal_begin(j, s->dir, bound, &enospc, err);
	if (rc)
		return enospc ? space_missing(s, pages, n, bound, j->path, j->fd, err) : rc;
	for (size_t i = 0; i < n;) {
		space_file *f = spaces_find(s, pages[i]->space_id);
		int fd;
		off_t off;
		uint64_t run_max;
		if (!f) {
			i++;
			continue;
		}
		if ((rc = spaces_locate(f, pages[i]->page_no, &fd, &off, &run_max, err)))
			return rc;
		size_t k = 1;
		while (i + k < n && k < run_max && pages[i + k]->space_id == pages[i]->space_id &&
		       pages[i + k]->page_no == pages[i]->page_no + k)
			k++;
		if (xb_file_reserve(fd, off, (off_t)(k * f->info.physical_size))) {
			if (xb_file_reserve_unsupported(errno))
				return 0; /* the journal alone keeps the pages whole */
			const char *path = spaces_path_of(f, pages[i]->page_no);
			if (errno == ENOSPC)
				return space_missing(s, pages + i, n - i, 0, path, fd, err);
			return xb_err_set(err, XB_E_IO_WRITE, "cannot reserve disk space in %s: %s", path, strerror(errno));
		}
		i += k;
	}
	return 0;
}

/* One pass of the workers over the batch's pages (the executor's context). */
typedef struct pass {
	collect_page **pages;       /* the batch's pages, sorted */
	size_t n;                   /* how many */
	size_t jobs;                /* contiguous ranges they are cut into */
	spaces *sp;
	const batch_opts *o;
	bool check_only;            /* read and check only */
	uint64_t progress_per_page; /* bytes of log a page stands for */
	batch_stats *st;            /* where the workers' statistics are added */
} pass;

static int worker_start(void *ctx, int id, void **wstate, xb_error *err)
{
	const pass *ps = ctx;
	worker *w = calloc(1, sizeof *w);
	if (!w)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	*wstate = w;
	w->sp = ps->sp;
	w->o = ps->o;
	w->check_only = ps->check_only;
	w->progress_per_page = ps->progress_per_page;
	w->buf = aligned_alloc(4096, RUN_BYTES);
	w->tmp = aligned_alloc(4096, INNODB_PAGE_SIZE_MAX);
	w->out = aligned_alloc(4096, INNODB_PAGE_SIZE_MAX);
	if (!w->buf || !w->tmp || !w->out)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	return 0;
}

/* Job i: the i-th of ps->jobs contiguous ranges of pages. */
static int job(xb_parallel *run, void *ctx, size_t i, int id, void *wstate, xb_error *err)
{
	const pass *ps = ctx;
	worker *w = wstate;
	size_t a = ps->n * i / ps->jobs, b = ps->n * (i + 1) / ps->jobs;
	w->pages = ps->pages + a;
	w->n = b - a;
	w->err = err;
	w->run = run;
	return work(w);
}

static void worker_end(void *ctx, int id, void *wstate)
{
	const pass *ps = ctx;
	worker *w = wstate;
	if (!w)
		return;
	if (ps->check_only) /* pages are counted once, by the pass that applies */
		ps->st->ns_read += w->st.ns_read;
	else
		batch_stats_add(ps->st, &w->st);
	free(w->buf);
	free(w->tmp);
	free(w->out);
	free(w);
}

/* Run the workers over the pages, on as many threads as the batch is worth
 * (one below 64 pages a thread), one contiguous range of pages each. */
static int run_workers(collector *r, spaces *s, const batch_opts *o, collect_page **pages, size_t n, bool check_only,
		       batch_stats *st, xb_error *err)
{
	int nt = o->threads < 1 ? 1 : o->threads;
	if (n < (size_t)nt * 64)
		nt = 1;
	pass ps = {.pages = pages,
		   .n = n,
		   .jobs = (size_t)nt,
		   .sp = s,
		   .o = o,
		   .check_only = check_only,
		   .progress_per_page = n ? (r->batch_end_lsn - r->batch_first_lsn) / n : 0,
		   .st = st};
	xb_parallel_cfg cfg = {.threads = nt,
			       .jobs = ps.jobs,
			       .ctx = &ps,
			       .job = job,
			       .worker_start = worker_start,
			       .worker_end = worker_end};
	return xb_parallel_run(&cfg, err);
}

int batch_apply(collector *r, spaces *s, const batch_opts *o, batch_stats *st, xb_error *err)
{
	size_t n;
	collect_page **pages = collect_sorted_pages(r, &n);
	if (!pages)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	batch_stats fst;
	memset(&fst, 0, sizeof fst);
	/* In the first batch every page is read and checked before anything is
	 * written (file sizes included): a damaged page then leaves the backup as
	 * it was. The second pass finds the pages in the page cache. Later
	 * batches check each page just before applying to it. */
	int rc = batch_check_spaces(r, s, o->partial ? BATCH_MISSING_QUIET : BATCH_MISSING_REFUSE, err);
	if (!rc && o->check_first)
		rc = run_workers(r, s, o, pages, n, true, st, err);
	if (!rc && o->journal)
		rc = reserve_space(s, pages, n, o, err);
	if (!rc)
		rc = prepare_files(r, s, pages, n, o->partial, &fst, err);
	batch_stats_add(st, &fst);
	if (!rc)
		rc = run_workers(r, s, o, pages, n, false, st, err);
	if (!rc && o->journal) {
		uint64_t t = xb_clock_ns();
		rc = journal_batch_done(o->journal, err);
		st->ns_write += xb_clock_ns() - t;
	}
	if (!rc && xb_fault(XB_FAULT_PREPARE_BATCH_WRITTEN))
		rc = xb_err_set(err, XB_E_IO_WRITE, "applying a batch: failed by fault point prepare-batch-written");
	free(pages);
	return rc;
}
