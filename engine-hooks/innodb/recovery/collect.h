/*
 * collect.h - the collector of crash recovery ("prepare"): the page records
 * of a redo log range, split page by page, within a memory budget.
 *
 * Each mini-transaction handed to collect_add_mtr() is split by page: the
 * records of one mtr for one page become one entry (start and end LSN and
 * the record bytes, in log order) appended to that page's list. FREE_PAGE
 * and INIT_PAGE discard everything collected for their page before them,
 * records earlier in the same mtr included, and mark the page "not to be
 * read": it is rebuilt from zero. TRIM_PAGES (undo truncation) discards
 * what earlier mtrs collected for the undo tablespace. File records update
 * a table of tablespace facts that lives across batches: names (CREATE,
 * MODIFY, RENAME), drops (DELETE), creation, the size and flags last written
 * to page 0 (FSP_SIZE, FSP_SPACE_FLAGS: files are extended to that size
 * before apply) and truncation. Entries live in an arena of 1 MiB chunks;
 * when the arena and the page table together reach the budget the caller
 * applies the batch and calls collect_batch_reset(). doc/redo-records.md §10.
 */
#ifndef XB_INNODB_RECOVERY_COLLECT_H
#define XB_INNODB_RECOVERY_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "innodb/recovery/replay.h"

/* One entry: the records of one mtr for one page. */
typedef struct collect_entry {
	struct collect_entry *next;
	uint64_t start_lsn; /* first byte of the mtr */
	uint64_t end_lsn;   /* the mtr's end: the page LSN after it */
	uint32_t len;       /* bytes in recs */
	uint8_t recs[];
} collect_entry;

/* A page with entries in the current batch. */
typedef struct collect_page {
	uint32_t space_id;
	uint32_t page_no;
	collect_entry *first; /* entries in LSN order; NULL after a discard */
	collect_entry *last;
	uint64_t init_lsn;  /* not 0: start LSN of the INIT_PAGE/FREE_PAGE entry; do not read the page */
	uint32_t n_entries;
	uint32_t mtr_seq;   /* internal: the mtr being split */
	uint32_t mtr_len;   /* internal: bytes of this page in that mtr */
	uint32_t mtr_from;  /* internal: offset in that mtr of the first record kept for this page */
	uint32_t mtr_fill;  /* internal: bytes copied so far */
	collect_entry *mtr_entry; /* internal */
} collect_page;

/* What the log says about one tablespace (kept across batches). */
typedef struct collect_space {
	uint32_t space_id;
	char *name;            /* the server's latest name ("./db/t.ibd"), NULL when never named */
	char *first_name;      /* the name it had when first seen in this log (before renames) */
	uint64_t named_lsn;    /* LSN of the record that gave the name */
	bool created;          /* FILE_CREATE seen */
	bool deleted;          /* FILE_DELETE seen (and no later FILE_CREATE of the same id) */
	uint64_t deleted_lsn;
	bool has_size;         /* a WRITE covering FSP_SIZE of page 0 was seen */
	uint32_t size;         /* its value: the size the file must have, in pages */
	bool has_flags;
	uint32_t flags;        /* last FSP_SPACE_FLAGS written */
	bool trimmed;          /* TRIM_PAGES in the current batch: truncate to trim_size before apply */
	uint32_t trim_size;
	uint64_t trim_lsn;
	uint64_t records;      /* page records for this tablespace (whole log) */
	uint64_t record_bytes;
	uint64_t first_lsn;    /* first mtr with a page record for it */
	uint64_t later_trim_lsn; /* last TRIM_PAGES seen by the look-ahead scan */
	bool later_deleted;    /* the look-ahead scan saw a FILE_DELETE */
	bool later_records;    /* the look-ahead scan saw page records for it */
	char *later_name;      /* its last name in the whole log (look-ahead), NULL when not renamed/named later */
	bool used;             /* slot in use (internal) */
} collect_space;

typedef struct collect_chunk collect_chunk;

/* Internal: records [start, end) of the mtr being split belong to pages[page]. */
typedef struct collect_run {
	uint32_t page, start, end;
} collect_run;

typedef struct collector {
	/* the current batch */
	collect_page *pages;   /* dense array; order is arrival order */
	size_t n_pages, cap_pages;
	uint32_t *slots;       /* open-addressing hash of page ids -> index+1 into pages */
	size_t n_slots;
	collect_chunk *chunks; /* the arena */
	size_t arena_bytes;    /* bytes allocated by the arena */
	size_t budget;         /* collect_full() when arena + tables reach it */
	size_t reserved;       /* held by detached batches not yet applied (counted against budget) */
	uint64_t batch_first_lsn, batch_end_lsn; /* the mtrs this batch holds */
	uint64_t batch_mtrs;
	/* tablespaces (all batches) */
	collect_space *spaces;
	size_t n_spaces, cap_spaces;
	/* totals (all batches) */
	uint64_t mtrs, records, log_bytes;
	replay_stats parsed;   /* page records parsed, by kind */
	uint64_t file_records[5]; /* FILE_CREATE, DELETE, RENAME, MODIFY, CHECKPOINT */
	size_t peak_bytes;     /* largest collect_bytes() seen */
	/* scratch for splitting one mtr */
	struct collect_run *runs; /* adjacent records of one page: index into pages, byte range in the mtr */
	size_t cap_runs;
	uint32_t seq;
	uint64_t want_checkpoint;  /* FILE_CHECKPOINT payload to look for (set by the caller) */
	bool found_checkpoint;     /* a FILE_CHECKPOINT with that payload was parsed */
	collect_space *last_space; /* lookup cache */
	/* look-ahead (multi-batch): last FREE_PAGE/INIT_PAGE LSN of pages later in the log */
	struct collect_later *later;
	size_t n_later, cap_later;
} collector;

/* budget: bytes the batch may hold (arena + page table). */
int collect_init(collector *r, size_t budget);
void collect_free(collector *r);

/* Add one CRC-valid mtr: recs = its records (records_len bytes, without the
 * termination byte and CRC), LSNs start..end. Returns 0, or -1 with why when
 * the records break the format (the mtr is then not added) or memory runs out. */
int collect_add_mtr(collector *r, const uint8_t *recs, uint32_t len, uint64_t start_lsn, uint64_t end_lsn, char *why,
		 size_t whylen);

/* Memory counted against the budget: the batch, the look-ahead table and r->reserved. */
size_t collect_bytes(const collector *r);

/* Memory the current batch alone holds (arena and page tables). */
size_t collect_batch_bytes(const collector *r);

/* Pipelined recovery: move the current batch (pages, entries, LSN range)
 * into a new collector, with a copy of the tablespace facts as they stand at
 * the batch's end, so it can be applied by another thread while r collects
 * the next batch. r is left as after collect_batch_reset(). The result is used
 * only with batch_apply(), collect_refresh_later(), collect_drop_superseded()
 * and collect_free() (then free() it). NULL when out of memory (r unchanged). */
collector *collect_detach_batch(collector *r);

/* Copy into a detached batch's tablespace facts what the look-ahead learned
 * of the rest of the log (facts: the collector holding the merged notes). */
int collect_refresh_later(collector *b, const collector *facts);

/* True when the batch has reached its budget: apply it before adding more. */
static inline bool collect_full(const collector *r)
{
	return collect_bytes(r) >= r->budget;
}

/* Forget the batch's pages and entries (tablespace facts and totals stay). */
void collect_batch_reset(collector *r);

/* The batch's pages with at least one entry, sorted by (space_id, page_no).
 * The array is malloc'ed (caller frees); *n receives its length. NULL only when out of memory. */
collect_page **collect_sorted_pages(collector *r, size_t *n);

/* Multi-batch recovery. The whole log is walked once with collect_note_later()
 * (by another thread, into a collector of its own), which checks every
 * record against the format rules and remembers for each page the LSN of its
 * last FREE_PAGE/INIT_PAGE, for each undo tablespace its last TRIM_PAGES, and
 * drops and names of files. Before each batch is applied,
 * collect_drop_superseded() drops the entries of pages whose records such a
 * later record discards anyway, so the result is the same as one batch
 * holding the whole log (a page freed later is not written with an
 * intermediate state). Returns 0, 1 when a record breaks the format rules,
 * -1 when out of memory (why says which). */
int collect_note_later(collector *r, const uint8_t *recs, uint32_t len, uint64_t start_lsn, char *why, size_t whylen);

/* Move what collect_note_later() gathered in src (a collector used only for
 * that, by another thread) into dst. Notes from two parts of the log are
 * merged in log order: when dst already holds notes, src's are of a later
 * part and win. Returns -1 when out of memory. */
int collect_merge_later(collector *dst, collector *src);

/* Drop the superseded entries of r's batch, by the look-ahead notes held in
 * facts (r itself, or the collector a batch was detached from); returns how
 * many pages lost their entries. */
size_t collect_drop_superseded(collector *r, const collector *facts);

/* The facts about a tablespace, NULL when the log never mentioned it. */
collect_space *collect_space_find(const collector *r, uint32_t space_id);

#endif
