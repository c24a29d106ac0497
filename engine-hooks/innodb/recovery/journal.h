/*
 * journal.h - the prepare journal: a batch's page images written and
 * fsynced in one file of the backup directory before any of them is
 * written in place, so that no page is ever left torn.
 *
 * A write in place can stop part-way (a full disk on a file system that
 * cannot reserve space, a kill -9 that cuts a multi-page write at a 4 KiB
 * boundary, a power cut): the page would then hold its new header and its
 * old trailer, which no rerun can repair from the redo log. So the workers
 * of a batch append each run of pages to the journal
 * (xtrabackup_prepare_journal, doc/backup-directory.md §16) before it is
 * written in place (journal_write()). By default the run is written in
 * place as soon as its record is whole in the journal, and the journal
 * starts over (a new generation) with each batch: the page cache holds
 * both whatever happens to the process, so a kill -9, a full disk or an
 * I/O error never leaves a page that its record cannot restore, at the cost
 * of one more copy of each page into the page cache. With --prepare-fsync
 * (durable), a power cut is covered too: the batch's records are only
 * journaled, journal_batch_done() fsyncs them (one fdatasync per batch) and
 * then writes them in place, without an fsync: the journal keeps every
 * image written since the files were last fsynced; once it passes
 * JOURNAL_SYNC_BYTES, the files are fsynced and the journal starts over. A
 * run that finds a journal (journal_replay(),
 * before anything else) writes its records in place again, in order, up
 * to the first that is incomplete: each is the whole image of a run of
 * pages at a state recovery passes through, so any prefix of them leaves
 * every page whole, and the redo log then brings each page the rest of
 * the way (a record already in a page is skipped by its LSN). Cost when
 * durable: the pages are written to disk once more, in one sequential
 * stream, plus one fdatasync per batch.
 */
#ifndef XB_INNODB_RECOVERY_JOURNAL_H
#define XB_INNODB_RECOVERY_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

#define JOURNAL_NAME "xtrabackup_prepare_journal"

#define JOURNAL_SYNC_BYTES (256ull << 20) /* journal bytes after which the files are fsynced and it starts over */

struct journal_targets;

typedef struct journal {
	char path[4096];          /* DIR/xtrabackup_prepare_journal */
	size_t dir_len;           /* length of the backup directory's path (names are kept relative to it) */
	int fd;                   /* open from the first journal_begin() to journal_end(), else -1 */
	uint64_t gen;             /* generation of the records now written (the header's) */
	_Atomic uint64_t end;     /* bytes used: the header, then the records appended so far */
	_Atomic uint64_t records; /* records of the running batch */
	uint64_t batch_start;     /* where the running batch's records begin */
	uint64_t reserved;        /* bytes reserved on disk from offset 0 */
	uint64_t bytes;           /* bytes journaled over the whole run (statistics) */
	bool durable;             /* --prepare-fsync: records fsynced before they are written in place */
	bool synced;              /* records of this generation may be in place: keep the journal after an error */
	struct journal_targets *t; /* the files written in place since they were last fsynced */
} journal;

/* Bytes a batch of n_pages pages of page_bytes in total may add to the journal. */
uint64_t journal_bound(uint64_t n_pages, uint64_t page_bytes);

/* Before recovery: the records of a journal left in dir by an interrupted
 * run are written in place, in order, up to the first incomplete one, and
 * fsynced (*bytes: bytes rewritten); then the journal is removed. */
int journal_replay(const char *dir, uint64_t *bytes, xb_error *err);

/* Start a batch: create the journal the first time, and reserve its space
 * for bound more bytes. XB_E_IO_WRITE naming the journal when the space
 * cannot be had (*enospc then true: the caller says how much is missing). */
int journal_begin(journal *j, const char *dir, uint64_t bound, bool *enospc, xb_error *err);

/* A run of pages (len bytes at off of file path, open as fd) into the
 * journal and, unless durable, then in place. Safe from several threads at
 * once. */
int journal_write(journal *j, const char *path, int fd, off_t off, const uint8_t *buf, size_t len, xb_error *err);

/* The steps journal_write() and journal_batch_done() are made of (the unit
 * tests stop between them): a run appended as a record, the batch's records
 * fsynced, the batch's records written in place (past JOURNAL_SYNC_BYTES the
 * files fsynced and the journal started over). */
int journal_add(journal *j, const char *path, off_t off, const uint8_t *buf, size_t len, xb_error *err);
int journal_commit(journal *j, xb_error *err);
int journal_apply(journal *j, xb_error *err);

/* Every run of the batch went through journal_write(). Durable: the records
 * are fsynced, then written in place (past JOURNAL_SYNC_BYTES the files are
 * fsynced and the journal starts over); else the journal starts over. An
 * error leaves the journal for journal_replay(). */
int journal_batch_done(journal *j, xb_error *err);

/* After an error: remove the journal when none of its records can have
 * been written in place, else only close it, for the rerun. */
void journal_discard(journal *j);

/* fsync the files written in place, then close and remove the journal. */
int journal_end(journal *j, xb_error *err);

#endif
