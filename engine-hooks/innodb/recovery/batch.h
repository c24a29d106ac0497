/*
 * batch.h - batch apply: one batch of collected redo applied to the
 * tablespace files, its pages in parallel.
 *
 * batch_apply() first brings the files to the sizes the log says
 * (undo truncation, extension to the last FSP_SIZE written), then applies
 * the entries of every page of the batch, in (space, page) order, split into
 * contiguous ranges over worker threads. A worker reads runs of adjacent
 * pages with one read, checks each page's checksum, replays the entries
 * newer than the page LSN (replay.h), stamps LSN and checksum the way the
 * server's flush does (recompressing page_compressed pages), verifies the
 * result and writes runs of adjacent modified pages with one write. Pages
 * whose last state is FREE_PAGE, and pages already current, are not written.
 * Before anything of the batch is written, the disk space its pages need is
 * reserved (a full disk is then an error naming the file and what is
 * missing, with the backup unchanged), and the runs go through the prepare
 * journal (journal.h): written there, committed, then in place, so that no
 * page is ever left torn.
 * doc/redo-records.md §10.
 */
#ifndef XB_INNODB_RECOVERY_BATCH_H
#define XB_INNODB_RECOVERY_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "innodb/recovery/replay.h"
#include "innodb/recovery/collect.h"
#include "innodb/recovery/journal.h"
#include "innodb/spaces.h"

typedef struct batch_stats {
	replay_stats applied;      /* records applied, by kind */
	replay_stats skipped;      /* records skipped because the page already had them */
	uint64_t pages_read;       /* pages read from the files */
	uint64_t pages_written;    /* pages written */
	uint64_t pages_created;    /* written pages rebuilt from INIT_PAGE (not read) */
	uint64_t pages_freed;      /* pages whose last record is FREE_PAGE (left as they are) */
	uint64_t pages_current;    /* pages that already had every record */
	uint64_t pages_dropped;    /* pages of tablespaces dropped later in the log */
	uint64_t files_extended;
	uint64_t files_truncated;
	uint64_t ns_read;          /* time the workers spent reading pages (summed over threads) */
	uint64_t ns_apply;         /* applying records and checksums */
	uint64_t ns_write;         /* writing pages */
} batch_stats;

typedef struct batch_opts {
	int threads;               /* worker threads, >= 1 */
	int compression_level;     /* page_compressed zlib level (server default 6) */
	volatile uint64_t *progress; /* bytes of log applied are added here (may be NULL) */
	bool (*should_stop)(void);   /* polled between runs of pages (may be NULL) */
	bool check_first;            /* read and check every page before writing any (first batch) */
	bool force_recovery;         /* innodb_force_recovery: a page failing its checksum before apply is left as copied (a warning), not an error */
	bool partial;                /* a partial backup: the records of a tablespace without a file are passed over */
	journal *journal;            /* the prepare journal the pages go through (NULL: written in place directly) */
} batch_opts;

/* Apply the batch held by r. Files of tablespaces that the log says were
 * dropped are skipped; a tablespace with records but neither a file nor a
 * FILE_DELETE is XB_E_MISSING_FILE; a page that fails its checksum before
 * apply (unless o->force_recovery: then left as copied, with a warning), a record that does not fit its page, or a page that fails its
 * checksum after apply is XB_E_CORRUPT_PAGE naming file, page and LSN; too
 * little disk space for the batch's pages (and its journal) is
 * XB_E_IO_WRITE before anything is changed. */
int batch_apply(collector *r, spaces *s, const batch_opts *o, batch_stats *st, xb_error *err);

/* Before anything is written: every tablespace the log has page records for
 * (in this batch or, after a look-ahead, later) must have a file or be
 * dropped by the log. XB_E_MISSING_FILE otherwise, unless the backup is
 * partial (missing: BATCH_MISSING_WARN warns once for each such tablespace
 * that its records are passed over, BATCH_MISSING_QUIET passes them over
 * silently). */
enum batch_missing { BATCH_MISSING_REFUSE, BATCH_MISSING_WARN, BATCH_MISSING_QUIET };
int batch_check_spaces(collector *r, spaces *s, enum batch_missing missing, xb_error *err);

/* Add b's counters into a. */
void batch_stats_add(batch_stats *a, const batch_stats *b);

#endif
