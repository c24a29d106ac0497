/*
 * mru.h - xtrabackup_buffer_pool_mru, the backup's buffer-pool dump in its
 * original order, most recently used page first.
 *
 * --prepare sorts the backup's ib_buffer_pool by (space, page) for the
 * server's load, and keeps the cleaned dump in its original order in this
 * file, next to it: a server restored with a smaller buffer pool then gets
 * the hottest pages, not the first ones in (space, page) order (a server
 * loads only the first pool-size entries of its file, then sorts them).
 * --copy-back reads it when present, like any dump (warm_load() in
 * innodb/warm.h, bp_read_file()); it is not restored into the datadir.
 * The format is ib_buffer_pool's text (engine-hooks/innodb/bpdump.h).
 */
#ifndef XB_INFO_MRU_H
#define XB_INFO_MRU_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "innodb/bpdump.h"

#define XB_MRU_FILE "xtrabackup_buffer_pool_mru"

/* out = dir/xtrabackup_buffer_pool_mru (XB_E_USAGE when it does not fit). */
int xb_mru_path(char *out, size_t n, const char *dir, xb_error *err);

/* Write d, in its order, as dir's MRU dump (text format), replacing it
 * safely: a temporary, fsync, rename, fsync of dir (bp_write_file). */
int xb_mru_write(const char *dir, const bp_dump *d, xb_error *err);

#endif
