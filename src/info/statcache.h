/*
 * statcache.h - the stat cache of a backup directory,
 * xtrabackup_statcache.pmap (doc/backup-directory.md §18).
 *
 * Checking a backup against its manifest (command/verify/verify.h) means
 * reading every byte of it. A prepare that had to do that at each step of a
 * chain (full, then each incremental) would read the whole base again and
 * again. So, as git's index does for a work tree, the backup records for
 * each file it checked or wrote the stamp that file had then
 * (platform/file.h: device, inode, size, modification and change time): a
 * file whose stamp is still the same has not been written, truncated or
 * replaced since, so its content is what was checked. A copy of the backup
 * is made of other files, so every file of a copy is read once again.
 *
 * It is a cache: a missing, damaged or stale cache costs a read, never a
 * wrong answer, and it is written only by the backup (for a plain directory
 * target), --prepare and --verify, after they checked or wrote the files.
 * Each line also carries what the manifest said of the file (its CRC-32C, or
 * "pages" for a tablespace checked page by page), so a line vouches only
 * for the manifest entry it was written with. Text, one line per file:
 *
 *   xtrabackup-statcache 1
 *   CHECK DEV INO SIZE MTIME_NS CTIME_NS PATH    (sorted by PATH)
 *   end N
 *
 * CHECK is 8 hex digits or "pages"; the numbers are decimal; PATH is
 * relative and takes the rest of the line. The ".pmap" suffix keeps it out
 * of a restored datadir, as for the manifest.
 */
#ifndef XB_INFO_STATCACHE_H
#define XB_INFO_STATCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "platform/file.h"

#define XB_STATCACHE_FILE "xtrabackup_statcache.pmap"

/* One file: its stamp when it was checked or written, and the check. */
typedef struct xb_statcache_entry {
	char *path;        /* relative, '/'-separated */
	xb_file_stamp st;  /* its stamp */
	uint32_t crc;      /* the manifest's CRC-32C of it (pages false) */
	bool pages;        /* a tablespace checked page by page (no CRC) */
	size_t seq;        /* order of the put (the last put of a path wins at the sort) */
} xb_statcache_entry;

typedef struct xb_statcache {
	xb_statcache_entry *v;
	size_t n, cap;
	bool nomem;        /* a put ran out of memory: entries are missing (harmless: they get read) */
} xb_statcache;

void xb_statcache_init(xb_statcache *c);
void xb_statcache_free(xb_statcache *c);

/* Add an entry (path copied). Not thread-safe. */
void xb_statcache_put(xb_statcache *c, const char *path, const xb_file_stamp *st, uint32_t crc, bool pages);

/* Sort by path (the last put of a path wins); needed before find and write. */
void xb_statcache_sort(xb_statcache *c);

/* The entry of path in a sorted cache, or NULL. */
const xb_statcache_entry *xb_statcache_find(const xb_statcache *c, const char *path);

/* Parse a cache's text (name for messages) into c (initialised here):
 * XB_E_BACKUP_DAMAGED naming the line for anything else than the format. */
int xb_statcache_parse(const char *name, const char *text, size_t len, xb_statcache *c, xb_error *err);

/* Read dir's cache into c. XB_E_MISSING_FILE when there is none; any error
 * leaves c empty (the caller reads the files instead). */
int xb_statcache_read(const char *dir, xb_statcache *c, xb_error *err);

/* Write c as dir's cache (sorted first; replaced atomically). */
int xb_statcache_write(const char *dir, xb_statcache *c, xb_error *err);

/* Remove dir's cache (none is fine). 0, or the error. */
int xb_statcache_remove(const char *dir, xb_error *err);

#endif
