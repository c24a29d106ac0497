/*
 * replay.h - page replay: InnoDB redo records applied to one page frame
 * (MariaDB 10.8+ format).
 *
 * Crash recovery groups the records of each mini-transaction by page; one such
 * group is an "entry". replay_entry() replays one entry on the page frame the
 * way the server's recovery does (doc/redo-records.md §3-§5 and §11-§19): the
 * physical records WRITE, MEMSET, MEMMOVE, INIT_PAGE and FREE_PAGE, OPTION
 * (skipped), and every EXTENDED subtype (index page creation in both row
 * formats, undo page init/append, REDUNDANT and COMPACT/DYNAMIC inserts and
 * deletes with their free-list and page-directory maintenance, TRIM_PAGES).
 * Every offset, length and record pointer is checked against the page before
 * it is used: a record that does not fit the page is reported as corrupt and
 * the frame must then be considered garbage. Pure functions on memory, no
 * allocation, thread-safe.
 */
#ifndef XB_INNODB_RECOVERY_REPLAY_H
#define XB_INNODB_RECOVERY_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Record kinds, for statistics (order is stable: it is the order of the report). */
enum replay_kind {
	REPLAY_FREE_PAGE = 0,
	REPLAY_INIT_PAGE,
	REPLAY_WRITE,
	REPLAY_MEMSET,
	REPLAY_MEMMOVE,
	REPLAY_OPTION,
	REPLAY_EXT_INIT_REDUNDANT,  /* EXTENDED 0 INIT_ROW_FORMAT_REDUNDANT */
	REPLAY_EXT_INIT_DYNAMIC,    /* EXTENDED 1 INIT_ROW_FORMAT_DYNAMIC */
	REPLAY_EXT_UNDO_INIT,       /* EXTENDED 2 */
	REPLAY_EXT_UNDO_APPEND,     /* EXTENDED 3 */
	REPLAY_EXT_INSERT_HEAP_REDUNDANT, /* EXTENDED 4 */
	REPLAY_EXT_INSERT_REUSE_REDUNDANT, /* EXTENDED 5 */
	REPLAY_EXT_INSERT_HEAP_DYNAMIC,   /* EXTENDED 6 */
	REPLAY_EXT_INSERT_REUSE_DYNAMIC,  /* EXTENDED 7 */
	REPLAY_EXT_DELETE_REDUNDANT, /* EXTENDED 8 */
	REPLAY_EXT_DELETE_DYNAMIC,  /* EXTENDED 9 */
	REPLAY_EXT_TRIM_PAGES,      /* EXTENDED 10 */
	REPLAY_KINDS
};

/* Short upper-case name of a kind ("WRITE", "INSERT_HEAP_DYNAMIC", ...). */
const char *replay_kind_name(int kind);

/* Kind of a page record from its first byte and, for EXTENDED (type 0x20),
 * its subtype byte (ignored otherwise). -1 for RESERVED or an unknown subtype. */
int replay_kind_of(uint8_t first_byte, uint8_t ext_subtype);

/* Per-kind counters: records and record bytes (header byte included). */
typedef struct replay_stats {
	uint64_t count[REPLAY_KINDS];
	uint64_t bytes[REPLAY_KINDS];
} replay_stats;

/* The page being recovered. */
typedef struct replay_frame {
	uint8_t *page;     /* size bytes; for ROW_FORMAT=COMPRESSED the compressed frame */
	uint32_t size;     /* physical page size: 1024..65536, a power of two */
	uint32_t space_id; /* for INIT_PAGE */
	uint32_t page_no;  /* for INIT_PAGE */
	bool zip;          /* ROW_FORMAT=COMPRESSED frame: EXTENDED records are refused */
} replay_frame;

enum replay_status {
	REPLAY_OK = 0,
	REPLAY_CORRUPT = 1, /* a record does not fit the page or breaks the format; why says which */
};

/* Apply one entry: the records of one mini-transaction for this page, exactly
 * as they appear in the log, concatenated (recs, len bytes). Each record keeps
 * its header byte (and length varint); a record without the same_page bit
 * (0x80) carries the page identifier (space_id, page_no varints), which resets
 * the running offset to 0; same_page records continue from the running
 * offset. The entry holds no file records. When st is not NULL the applied
 * records are counted into it. *only_free is set to true when every record of
 * the entry is FREE_PAGE (the page is then "not modified" from here on).
 * On REPLAY_CORRUPT, why (whylen bytes, may be NULL) says which record, at
 * which byte of the entry, and what was wrong. */
int replay_entry(const replay_frame *f, const uint8_t *recs, size_t len, replay_stats *st, bool *only_free, char *why,
		size_t whylen);

#endif
