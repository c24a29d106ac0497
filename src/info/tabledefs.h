/*
 * tabledefs.h - the table definitions of an exported backup,
 * xtrabackup_tabledefs.pmap (doc/backup-directory.md §19).
 *
 * --prepare --export records, for every table it exports, the server's own
 * definition of it (SHOW CREATE TABLE, read from the server it runs on the
 * prepared backup), so that --restore-tables can create a table the live
 * server lacks exactly as it was, and tell how a live table differs. The
 * text is stored as the server gave it, length-prefixed, so no quoting or
 * escaping is involved:
 *
 *   xtrabackup-tabledefs 1
 *   def PATH LEN            (PATH: the table's file name without extension,
 *   <LEN bytes>\n            filename-encoded as in the datadir: "shop/orders",
 *   ...                      "my@002ddb/t1"; sorted by PATH)
 *   end N
 *
 * A partitioned table has one definition (PATH without "#P#..."). The
 * ".pmap" suffix keeps the file out of a restored datadir, as for the
 * manifest (mariabackup's --copy-back skips it too).
 */
#ifndef XB_INFO_TABLEDEFS_H
#define XB_INFO_TABLEDEFS_H

#include <stddef.h>

#include "common/error.h"
#include "info/metafile.h"

#define XB_TABLEDEFS_FILE "xtrabackup_tabledefs.pmap"

typedef struct xb_tabledef {
	char *path;   /* "db/table", filename-encoded */
	char *sql;    /* the CREATE TABLE statement */
	size_t seq;   /* order of the put */
} xb_tabledef;

typedef struct xb_tabledefs {
	xb_tabledef *v;
	size_t n, cap;
	int nomem;    /* a put ran out of memory */
} xb_tabledefs;

void xb_tabledefs_init(xb_tabledefs *d);
void xb_tabledefs_free(xb_tabledefs *d);

/* Add (copied) the definition of path; a later put of the same path wins. */
void xb_tabledefs_put(xb_tabledefs *d, const char *path, const char *sql);

/* Sort by path, keeping the last put of each (needed before find/format). */
void xb_tabledefs_sort(xb_tabledefs *d);

/* The definition of path in a sorted set, or NULL. */
const xb_tabledef *xb_tabledefs_find(const xb_tabledefs *d, const char *path);

/* The file's text (sorted first). */
void xb_tabledefs_format(xb_tabledefs *d, xb_text *t);

/* Parse a file's text (name for messages): XB_E_BACKUP_DAMAGED naming the
 * line for anything else than the format. */
int xb_tabledefs_parse(const char *name, const char *text, size_t len, xb_tabledefs *d, xb_error *err);

/* Read dir's file (XB_E_MISSING_FILE when there is none). */
int xb_tabledefs_read(const char *dir, xb_tabledefs *d, xb_error *err);

/* Write d as dir's file (replaced atomically). */
int xb_tabledefs_write(const char *dir, xb_tabledefs *d, xb_error *err);

#endif
