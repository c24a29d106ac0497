/*
 * journal.h - the prepare journal: a batch's page images written and
 * fsynced in one file of the backup directory before any of them is
 * written in place, so that no page is ever left torn.
 *
 * A write in place can stop part-way (a full disk on a file system that
 * cannot reserve space, a kill -9 that cuts a multi-page write at a 4 KiB
 * boundary, a power cut): the page would then hold its new header and its
 * old trailer, which no rerun can repair from the redo log. So the workers
 * of a batch append their runs of pages to the journal
 * (xtrabackup_prepare_journal, doc/prepare-journal.md) instead;
 * journal_commit() fsyncs it and then writes and fsyncs its header, the
 * commit point; journal_apply() writes every run in place, fsyncs the
 * files and empties the journal. A run that finds a committed journal
 * (journal_replay(), before anything else) writes it in place again: the
 * images are the final state of those pages for the log being applied,
 * so writing them twice changes nothing. A journal that was not committed
 * was never written in place: it is dropped. Cost: the batch's pages are
 * written once more, in one sequential stream, plus two fsyncs.
 */
#ifndef XB_INNODB_RECOVERY_JOURNAL_H
#define XB_INNODB_RECOVERY_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

#define JOURNAL_NAME "xtrabackup_prepare_journal"

typedef struct journal {
	char path[4096];          /* DIR/xtrabackup_prepare_journal */
	size_t dir_len;           /* length of the backup directory's path (names are kept relative to it) */
	int fd;                   /* open between journal_begin() and journal_end(), else -1 */
	_Atomic uint64_t end;     /* bytes used: the header, then the records appended so far */
	_Atomic uint64_t records; /* records appended */
	uint64_t reserved;        /* bytes reserved on disk for this batch */
	uint64_t bytes;           /* bytes journaled over the whole run (statistics) */
	bool committed;           /* the header is written and its batch not yet durable in place */
} journal;

/* Bytes a batch of n_pages pages of page_bytes in total may need in the journal. */
uint64_t journal_bound(uint64_t n_pages, uint64_t page_bytes);

/* Before recovery: a committed journal left in dir by an interrupted run is
 * written in place and fsynced (*pages: pages rewritten), then removed; an
 * uncommitted one is removed. A committed journal whose records fail their
 * checksums is XB_E_CORRUPT_PAGE (the backup cannot be repaired). */
int journal_replay(const char *dir, uint64_t *pages, xb_error *err);

/* Start a batch: open (or empty) the journal and reserve bound bytes for it.
 * XB_E_IO_WRITE naming the journal when the space cannot be had (*enospc
 * then true: the caller says how much is missing). */
int journal_begin(journal *j, const char *dir, uint64_t bound, bool *enospc, xb_error *err);

/* Append a run of pages (len bytes at off of file path). Safe from several
 * threads at once. */
int journal_add(journal *j, const char *path, off_t off, const uint8_t *buf, size_t len, xb_error *err);

/* The commit point: fsync the records, then write and fsync the header. */
int journal_commit(journal *j, xb_error *err);

/* Write every record in place, fsync the files written, then empty the
 * journal. An error leaves the journal committed, for journal_replay(). */
int journal_apply(journal *j, xb_error *err);

/* After an error: remove the journal when it holds no committed batch
 * (nothing of it was written in place), else only close it, for the rerun. */
void journal_discard(journal *j);

/* Close and remove the journal (its batches are all durable). */
int journal_end(journal *j, xb_error *err);

#endif
