/*
 * warm.c - make a backup's buffer-pool dump ready for a warm start (see warm.h).
 *
 * The tablespaces of the backup are found the way --prepare finds them
 * (engine-hooks/innodb/spaces.h: page 0 of each file gives its space id,
 * the file size its length in pages); the dump is parsed (bpdump.h), sorted,
 * made unique and filtered against them. Counting what was dropped, and why,
 * tells the DBA how much of the source's buffer pool the restored server
 * will have back.
 */
#include "warm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "info/backup_cnf.h"
#include "info/mru.h"
#include "innodb/spaces.h"
#include "common/path.h"

/* Bytes of a buffer pool that hold one page besides the page itself: the
 * server keeps its block descriptors in the pool's own memory, so a pool
 * holds a little fewer pages than its size divided by the page size.
 * Measured on 10.11 (Innodb_buffer_pool_pages_total): 161 bytes a page with
 * 4 and 16 KiB pages, 516 with 64 KiB pages; the estimate stays just under. */
static uint64_t block_overhead(uint64_t page)
{
	return page / 126 > 200 ? page / 126 : 200;
}

typedef struct filter_ctx {
	const spaces *s;      /* the backup's tablespaces */
	warm_result *w;       /* counts */
	uint32_t last_id;     /* cache: the last space looked up */
	const space_file *last; /* and its file (NULL: not in the backup) */
	uint64_t last_pages;  /* its size in pages */
	bool have_last;       /* the cache is valid */
} filter_ctx;

static bool keep(void *ctx, uint32_t space_id, uint32_t page_no)
{
	filter_ctx *f = ctx;
	if (!f->have_last || f->last_id != space_id) {
		f->last_id = space_id;
		f->last = spaces_find(f->s, space_id);
		f->last_pages = f->last ? spaces_size_pages(f->last) : 0;
		f->have_last = true;
	}
	if (!f->last) {
		f->w->no_space++;
		return false;
	}
	if (page_no >= f->last_pages) {
		f->w->past_end++;
		return false;
	}
	return true;
}

/* bp_filter() callback that keeps everything and adds up the page sizes. */
static bool count_bytes(void *ctx, uint32_t space_id, uint32_t page_no)
{
	filter_ctx *f = ctx;
	(void)page_no;
	if (!f->have_last || f->last_id != space_id) {
		f->last_id = space_id;
		f->last = spaces_find(f->s, space_id);
		f->have_last = true;
	}
	f->w->bytes += f->last && f->last->info.logical_size ? f->last->info.logical_size : 16384;
	return true;
}

/* Make w->dump unique, keeping its order (the most recently used pages
 * first), and with backup_dir drop what the backup does not hold; then keep
 * at most max_pages (0: all) of the most recent, count their bytes, and sort
 * by (space, page) unless in_order. */
static int clean(const char *backup_dir, size_t max_pages, bool in_order, warm_result *w, xb_error *err)
{
	size_t before = w->dump.n;
	int rc = bp_unique_in_order(&w->dump, err);
	if (rc)
		return rc;
	w->duplicates = before - w->dump.n;
	spaces s;
	bool have_spaces = false;
	if (backup_dir) {
		xb_backup_cnf cnf; /* one that cannot be read counts as absent */
		bool dfp = !xb_backup_cnf_read(backup_dir, &cnf, NULL) && (cnf.have & XB_CNF_DATA_FILE_PATH);
		rc = spaces_scan(&s, backup_dir, dfp ? cnf.data_file_path : NULL, err);
		if (rc)
			return rc;
		have_spaces = true;
		filter_ctx f = {.s = &s, .w = w};
		bp_filter(&w->dump, keep, &f);
	}
	if (max_pages && w->dump.n > max_pages) {
		w->over_pool = w->dump.n - max_pages;
		w->dump.n = max_pages;
	}
	if (have_spaces) {
		filter_ctx f = {.s = &s, .w = w};
		bp_filter(&w->dump, count_bytes, &f);
		spaces_free(&s);
	}
	if (!in_order)
		bp_sort_unique(&w->dump);
	return 0;
}

static int load(const char *backup_dir, const char *dump_path, size_t max_pages, bool in_order, warm_result *w,
		xb_error *err)
{
	memset(w, 0, sizeof *w);
	if (!(w->source = strdup(dump_path)))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	int rc = bp_read_file(dump_path, &w->dump, &w->format, err);
	if (rc) {
		xb_err_hint(err, "the dump only warms the restored server up: remove %s to restore without it",
			    dump_path);
		return rc;
	}
	w->read = w->dump.n;
	return clean(backup_dir, max_pages, in_order, w, err);
}

int warm_load(const char *backup_dir, const char *dump_path, size_t max_pages, warm_result *w, xb_error *err)
{
	return load(backup_dir, dump_path, max_pages, false, w, err);
}

size_t warm_pool_pages(const char *backup_dir, uint64_t pool_bytes)
{
	uint64_t page = 16384;
	xb_backup_cnf cnf;
	if (!xb_backup_cnf_read(backup_dir, &cnf, NULL) && (cnf.have & XB_CNF_PAGE_SIZE) && cnf.page_size >= 4096 &&
	    cnf.page_size <= 65536)
		page = cnf.page_size;
	return (size_t)(pool_bytes / (page + block_overhead(page)));
}

void warm_free(warm_result *w)
{
	bp_dump_free(&w->dump);
	free(w->source);
	w->source = NULL;
}

static void log_result(const warm_result *w, const char *dest)
{
	if (w->over_pool)
		xb_info("The restored server's buffer pool holds about %zu pages: the %zu most recently used pages of "
			"the dump are kept, %zu less recent ones dropped",
			w->dump.n, w->dump.n, w->over_pool);
	xb_info("Buffer-pool dump %s (%s, %zu pages): %zu pages (%.1f MiB) kept, sorted by tablespace and page, "
		"in %s; dropped %zu duplicates, %zu of tablespaces not in the backup, %zu past a tablespace's end",
		w->source, bp_format_name(w->format), w->read, w->dump.n, (double)w->bytes / 1048576.0, dest,
		w->duplicates, w->no_space, w->past_end);
}

int warm_place(const warm_result *w, const char *dest, bool load_at_startup, xb_error *err)
{
	int rc = bp_write_file(dest, &w->dump, BP_FORMAT_TEXT, err);
	if (rc)
		return rc;
	log_result(w, dest);
	if (!load_at_startup)
		xb_warn("innodb_buffer_pool_load_at_startup is OFF in the server's option files: the restored server "
			"will start cold; turn it on, or run SET GLOBAL innodb_buffer_pool_load_now=ON after it starts");
	else
		xb_info("The restored server loads these %zu pages at startup (innodb_buffer_pool_load_at_startup)",
			w->dump.n);
	return 0;
}

int warm_prepare(const char *backup_dir, xb_error *err)
{
	char text[4200], lru[4200], mru[4200];
	int rc;
	if ((rc = xb_path_join(text, sizeof text, backup_dir, BP_TEXT_NAME, err)) ||
	    (rc = xb_path_join(lru, sizeof lru, backup_dir, BP_LRU_NAME, err)) ||
	    (rc = xb_mru_path(mru, sizeof mru, backup_dir, err)))
		return rc;
	/* the MRU copy first: once written, the sorted ib_buffer_pool no longer
	 * tells which pages were the most recent (a second prepare reads it back) */
	const char *src = access(mru, F_OK) == 0	? mru
			  : access(text, F_OK) == 0 ? text
			  : access(lru, F_OK) == 0  ? lru
						    : NULL;
	if (!src) {
		xb_info("The backup holds no buffer-pool dump: a server restored from it starts cold");
		return 0;
	}
	warm_result w;
	rc = load(backup_dir, src, 0, true, &w, err);
	if (!rc && src != mru)
		rc = xb_mru_write(backup_dir, &w.dump, err);
	if (!rc) {
		bp_sort_unique(&w.dump);
		rc = bp_write_file(text, &w.dump, BP_FORMAT_TEXT, err);
	}
	if (!rc)
		log_result(&w, text);
	warm_free(&w);
	return rc;
}

int warm_clean(const char *backup_dir, warm_result *w, xb_error *err)
{
	return clean(backup_dir, 0, false, w, err);
}
