/*
 * manifest.h - the backup manifest, xtrabackup_manifest.pmap
 * (doc/backup-directory.md §13).
 *
 * Every file of a backup is listed with its size and the CRC-32C of its
 * plain content (what a directory holds once the backup is extracted and
 * decoded, whatever stream, compression or encryption carried it), and for
 * an InnoDB tablespace its space id and page count. The backup writes it
 * just before the completion marker; --prepare, --copy-back, --move-back and
 * --verify check the directory against it before they change anything
 * (command/verify/verify.h). It is a line-oriented text file:
 *
 *   xtrabackup-manifest 1 STATE [to_lsn=N]
 *   CRC32C SIZE SPACE_ID PAGES PATH      (one line per file, sorted by PATH)
 *   pages SIZE SPACE_ID PAGES PATH       (a tablespace a prepare wrote)
 *   -------- - - - NAME                  (a foreign entry, same order)
 *   end N                                (N = the number of file lines)
 *
 * STATE is "backup" (as the backup wrote it), "preparing" (a --prepare
 * began), "prepared" (it describes the prepared tree) or "moving" (a
 * --move-back began). to_lsn is the to_lsn of xtrabackup_checkpoints when
 * the manifest was written: a backup whose checkpoints say otherwise had an
 * incremental applied by another tool since. A tablespace a prepare wrote
 * has "pages" for its CRC: it is checked page by page with InnoDB's
 * checksums (a CRC of it would need a read of the whole file at every
 * prepare step). CRC32C is 8 hex
 * digits, SIZE and PAGES decimal, SPACE_ID decimal or "-" with PAGES "-"
 * for a file that is no tablespace. PATH is relative, '/'-separated, and
 * takes the rest of the line. A foreign entry names something at the top
 * of the target directory that the backup did not write (the log the
 * shell created for "2> DIR/backup.log", lost+found): it and everything
 * below it are not checked. The "end" line tells a whole file from a cut
 * one.
 *
 * The name ends in ".pmap", a suffix mariabackup's copy-back skips, so that
 * neither its restore nor ours (xb_metafile_stays_behind) puts it in a
 * datadir. The manifest does not list itself, nor xtrabackup_checkpoints,
 * which prepare rewrites after it.
 */
#ifndef XB_INFO_MANIFEST_H
#define XB_INFO_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "info/metafile.h"

#define XB_MANIFEST_FILE "xtrabackup_manifest.pmap"
#define XB_MANIFEST_VERSION 1
#define XB_MANIFEST_NO_SPACE UINT32_MAX /* space_id of a file that is no tablespace */

typedef enum xb_manifest_state {
	XB_MANIFEST_BACKUP,    /* as the backup wrote it */
	XB_MANIFEST_PREPARING, /* a --prepare began on the tree it describes */
	XB_MANIFEST_PREPARED,  /* it describes the prepared tree */
	XB_MANIFEST_MOVING,    /* a --move-back began: files may have left the backup */
} xb_manifest_state;

/* One file of the backup. */
typedef struct xb_manifest_entry {
	char *path;        /* relative path, '/'-separated */
	uint64_t size;     /* bytes */
	uint32_t crc;      /* CRC-32C of the content */
	uint32_t space_id; /* InnoDB space id, XB_MANIFEST_NO_SPACE for other files */
	uint64_t pages;    /* InnoDB: size / physical page size (0 for other files) */
	bool foreign;      /* not the backup's: path and everything below it are not checked */
	bool by_pages;     /* a tablespace a prepare wrote: no CRC, its pages are checked one by one */
	size_t seq;        /* order of the put (the last put of a path wins at the sort) */
} xb_manifest_entry;

/* A manifest being built or read. Start with {0} (xb_manifest_init). */
typedef struct xb_manifest {
	xb_manifest_entry *v; /* entries (sorted by path after xb_manifest_sort) */
	size_t n, cap;        /* count and capacity */
	xb_manifest_state state; /* what the tree it describes is */
	uint64_t to_lsn;      /* the to_lsn of xtrabackup_checkpoints for that tree (0: not recorded) */
	bool nomem;           /* an add ran out of memory: the manifest is incomplete */
} xb_manifest;

void xb_manifest_init(xb_manifest *m);
void xb_manifest_free(xb_manifest *m);

/* Add an entry; path is copied. A path put again (a file written again)
 * replaces the earlier entry when the manifest is next sorted, which a
 * lookup, the format and the count need first. Not thread-safe: callers
 * serialise. */
void xb_manifest_put(xb_manifest *m, const char *path, uint64_t size, uint32_t crc, uint32_t space_id,
		     uint64_t pages);

/* Add the entry of a tablespace whose content is checked page by page,
 * with InnoDB's own checksums, rather than by a CRC of the whole file (a
 * prepare wrote it: recomputing its CRC would mean reading it all again). */
void xb_manifest_put_pages(xb_manifest *m, const char *path, uint64_t size, uint32_t space_id, uint64_t pages);

/* Add a foreign entry (top-level name the backup did not write). */
void xb_manifest_put_foreign(xb_manifest *m, const char *name);

/* name, a top-level entry of the directory, as a foreign entry unless the
 * manifest's own entries (its first `ours`, sorted) hold it or something
 * below it; true when it was added. */
bool xb_manifest_note_foreign(xb_manifest *m, size_t ours, const char *name);

/* Is rel (a path in the backup) a foreign entry or below one? */
bool xb_manifest_is_foreign(const xb_manifest *m, const char *rel);

/* Remove the entry of path, if any. */
void xb_manifest_remove(xb_manifest *m, const char *path);

/* Sort the entries by path, keeping the last put of each path. */
void xb_manifest_sort(xb_manifest *m);

/* The entry of path in a sorted manifest, or NULL. */
xb_manifest_entry *xb_manifest_find(const xb_manifest *m, const char *path);

/* The file's text (sorted first). */
void xb_manifest_format(xb_manifest *m, xb_text *t);

/* Parse the text of a manifest (name for messages) into m (initialised
 * here). XB_E_BACKUP_DAMAGED "NAME: line N: what, got "..."" for any line
 * that is not what the format says, a missing header or "end" line, a
 * count that does not match, a duplicate path, or bytes after the end. */
int xb_manifest_parse(const char *name, const char *text, size_t len, xb_manifest *m, xb_error *err);

/* Read dir/XB_MANIFEST_FILE. XB_E_MISSING_FILE when there is none,
 * XB_E_IO_READ when it cannot be read, else what xb_manifest_parse says. */
int xb_manifest_read(const char *dir, xb_manifest *m, xb_error *err);

/* Replace dir/XB_MANIFEST_FILE safely (xb_metafile_rewrite). */
int xb_manifest_rewrite(const char *dir, xb_manifest *m, xb_error *err);

/* "backup", "preparing", "prepared", "moving". */
const char *xb_manifest_state_name(xb_manifest_state s);

#endif
