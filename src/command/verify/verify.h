/*
 * verify.h - checking a backup directory against its manifest
 * (info/manifest.h, doc/backup-directory.md §13), and the --verify command.
 *
 * verify_backup() is what --prepare, --copy-back, --move-back and --verify
 * run before anything else: every file the manifest lists must be there
 * with its size and CRC-32C, and no other file may be (the manifest itself
 * and xtrabackup_checkpoints aside, and the mark of an incremental being
 * applied, info/inc_pending.h). The files are read on --parallel
 * threads. One error line, XB_E_BACKUP_DAMAGED, names the first few files
 * that are missing, extra or changed and counts them all; nothing is
 * changed.
 *
 * A prepare changes the files it applies the redo log to. So when the tree
 * is not what the manifest's state says it is - a --prepare began on it
 * and did not finish (state "preparing"), or another tool prepared it
 * (state "backup" but xtrabackup_checkpoints says log-applied) - the files
 * a prepare may write (verify_prepare_writes()) are checked for what a
 * prepare never changes: a tablespace is present (unless a DDL marker of
 * the backup removes or renames it), keeps its space id and does not
 * shrink; the redo log, the DDL markers, the buffer-pool dump and the
 * binlog position file may differ, vanish or appear. Every other file is
 * checked in full.
 *
 * A tablespace a prepare wrote has no CRC in the manifest ("pages",
 * info/manifest.h): its pages are checked instead, each with InnoDB's own
 * checksum and page number.
 *
 * With VERIFY_QUICK (what --prepare asks), a file the stat cache
 * (info/statcache.h) vouches for - the stamp it had when it was last
 * checked or written by this tool, still the same - is not read. --verify,
 * --copy-back and --move-back read everything. Every check returns the files
 * it found good with their stamps (verify_result.checked): --verify records
 * them in the cache (verify_record), a prepare hands them to
 * verify_refresh().
 *
 * verify_refresh() makes the manifest describe the prepared tree at the end
 * of a --prepare: a file whose stamp is still the one the check saw (and
 * which the prepare does not say it wrote) keeps its entry; a table's
 * tablespace the prepare wrote gets a "pages" entry, without being read;
 * any other file that changed is read again. Then the cache is written for
 * the new manifest.
 */
#ifndef XB_VERIFY_H
#define XB_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "info/manifest.h"
#include "info/statcache.h"

/* What a check found. */
typedef struct verify_result {
	bool have_manifest;  /* the backup has a manifest (else nothing was checked) */
	bool relaxed;        /* the files a prepare writes were checked for what it never changes */
	xb_manifest_state state; /* the manifest's state */
	uint64_t files;      /* files checked */
	uint64_t cached;     /* of them, not read: unchanged since last checked or written */
	uint64_t bytes;      /* bytes read for their checksums */
	double seconds;      /* how long it took */
	xb_statcache checked; /* the files found good, with their stamps (free: verify_result_free) */
} verify_result;

#define VERIFY_QUICK 1u /* files the stat cache vouches for are not read */
#define VERIFY_ADDED_OK 2u /* files the manifest does not list (put beside the backup's own, e.g. a
                           * copy of my.cnf) are named in a warning, not counted as damage */

void verify_result_free(verify_result *res);

/* Check dir against its manifest for command (e.g. "--prepare", in
 * messages) with threads readers; backup_type is xtrabackup_checkpoints'.
 * Compressed and encrypted files (*.zst, *.qp, *.xbcrypt) are decoded in
 * memory and their plain bytes checked; encrypted ones need key (else
 * XB_E_USAGE), as does an encrypted manifest.
 * A backup without a manifest: one warning, 0, have_manifest false (the
 * caller decides). XB_E_BACKUP_DAMAGED (or the reading error) otherwise.
 * flags: VERIFY_QUICK, VERIFY_ADDED_OK or 0. m (may be NULL) receives the manifest read
 * (free it); res->checked the files found good (verify_result_free). */
int verify_backup(const char *dir, const char *command, const char *backup_type, int threads, unsigned flags,
		  const uint8_t *key, xb_manifest *m, verify_result *res, xb_error *err);

/* Record the files res found good in dir's stat cache. 0, or the error
 * (logged as a note: a cache that cannot be written costs reads later). */
int verify_record(const char *dir, verify_result *res);

/* Is rel (a path inside a backup) a file a prepare may write, create,
 * rename or remove? */
bool verify_prepare_writes(const char *rel);

/* Rewrite dir's manifest m with state (atomic). */
int verify_mark(const char *dir, xb_manifest *m, xb_manifest_state state, xb_error *err);

/* At the end of a --prepare: m (checked at its start, which found the
 * files of checked good) made to describe dir as it is now, state
 * prepared, written, then the stat cache for it. written (may be NULL)
 * names files the prepare wrote whatever their stamps say. */
int verify_refresh(const char *dir, xb_manifest *m, int threads, const xb_statcache *checked,
		   bool (*written)(void *ctx, const char *rel), void *written_ctx, xb_error *err);

#endif
