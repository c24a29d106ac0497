/*
 * warm.h - the buffer-pool dump of a backup, made ready for a warm start.
 *
 * A backup carries the source server's dump (ib_buffer_pool, taken by
 * --backup; or ib_lru_dump, the binary XtraDB format of old backups). Before
 * a server loads it, it is sorted by (space id, page number), the order the
 * server's load reads in (10.11 sorts it again itself), duplicates are
 * removed, and entries are dropped for tablespaces that are not in the
 * backup and for pages past a tablespace's end (the server would skip them):
 * what is left is exactly what will be warmed, which the log reports.
 * --prepare does this in the backup directory and keeps the cleaned dump in
 * its original order too (XB_MRU_FILE, info/mru.h). --copy-back/--move-back do it
 * again (cheap, and a backup prepared by another tool may carry a raw dump),
 * from that copy when there is one: when the restored server's
 * innodb_buffer_pool_size holds fewer pages than the dump, the most recently
 * used pages are the ones kept. The result goes where
 * innodb_buffer_pool_filename says. --sort-dump does the same to any dump
 * file, the job of the old lrusort tool (src/command/sort_dump/).
 */
#ifndef XB_WARM_H
#define XB_WARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "innodb/bpdump.h"

typedef struct warm_result {
	bp_dump dump;        /* sorted, unique, only pages the backup holds */
	char *source;        /* the file it was read from */
	int format;          /* BP_FORMAT_* of that file */
	size_t read;         /* entries in the file */
	size_t duplicates;   /* removed as duplicates */
	size_t no_space;     /* dropped: tablespace not in the backup */
	size_t past_end;     /* dropped: page beyond the tablespace's end */
	size_t over_pool;    /* dropped: more than the restored buffer pool holds (the least recent) */
	uint64_t bytes;      /* bytes the kept pages occupy (their tablespaces' page sizes) */
} warm_result;

/* Read dump_path (either format, in its file order: most recently used
 * first) and clean it against the tablespaces of the backup in backup_dir;
 * with max_pages (0: no limit), keep only that many of the most recently
 * used. The result is sorted. Malformed dump: XB_E_IO_READ naming file and line. */
int warm_load(const char *backup_dir, const char *dump_path, size_t max_pages, warm_result *w, xb_error *err);

/* About how many pages a buffer pool of pool_bytes holds, for the page size
 * recorded in the backup's backup-my.cnf (16 KiB when none is). */
size_t warm_pool_pages(const char *backup_dir, uint64_t pool_bytes);

/* Write the cleaned dump as ib_buffer_pool text to dest (temporary file,
 * rename) and log what the restored server will warm. load_at_startup: the
 * server's innodb_buffer_pool_load_at_startup; when off, say so. */
int warm_place(const warm_result *w, const char *dest, bool load_at_startup, xb_error *err);

void warm_free(warm_result *w);

/* --prepare: clean the backup's dump in place (ib_buffer_pool; an ib_lru_dump
 * is converted to it). No dump: nothing to do. */
int warm_prepare(const char *backup_dir, xb_error *err);

/* w->dump (read from a file, w->read set) sorted, made unique and, with
 * backup_dir (may be NULL), cleaned against its tablespaces: --sort-dump. */
int warm_clean(const char *backup_dir, warm_result *w, xb_error *err);

#endif
