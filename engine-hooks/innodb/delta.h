/*
 * delta.h - the incremental backup's per-tablespace files: X.delta and X.meta
 * (doc/backup-directory.md §17), written and read in mariabackup's format,
 * byte for byte.
 *
 * X.meta is three text lines: the physical page size, the ROW_FORMAT=
 * COMPRESSED page size (0 for none) and the space id. X.delta is a sequence
 * of blocks. A block has page_size / 4 slots of page_size bytes; slot 0 is
 * the header: a 4-byte magic ("xtra": another block follows, "XTRA": this is
 * the last one), then one 4-byte big-endian page number per page in the
 * block, closed by FF FF FF FF when the block is not full. The slots after
 * the header hold the pages, in the listed order. A block is written with only
 * as many slots as it uses, so a delta with no page is one header page.
 *
 * The writer takes pages one at a time, in any order (a scan hands them in
 * page order, a list of changed pages may not), keeps the current block in
 * memory (it grows with the pages it holds, at most page_size / 4 pages) and
 * hands each finished block to an emit callback; so what drives it, a full
 * scan or a list of pages, does not matter. The reader walks a delta file
 * block by block with a bounded buffer and checks what it can: the magic,
 * page numbers, a file that ends inside a block or goes on after the last.
 * It hands out one page at a time, or runs of consecutive page numbers (one
 * write each for the applier).
 */
#ifndef XB_INNODB_DELTA_H
#define XB_INNODB_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define INNODB_DELTA_SUFFIX ".delta"
#define INNODB_DELTA_META_SUFFIX ".meta"
#define INNODB_DELTA_MAGIC_MORE 0x78747261u /* "xtra": more blocks follow */
#define INNODB_DELTA_MAGIC_LAST 0x58545241u /* "XTRA": the last block */
#define INNODB_DELTA_END 0xFFFFFFFFu        /* closes the page list of a block that is not full */
#define INNODB_DELTA_NO_SPACE 0xFFFFFFFFu   /* .meta without space_id (written by very old tools) */
#define INNODB_DELTA_META_MAX 128           /* longest .meta text we write */

/* What X.meta records. */
typedef struct innodb_delta_meta {
	uint32_t page_size; /* physical page size: the size of each page in the delta */
	uint32_t zip_size;  /* ROW_FORMAT=COMPRESSED page size, 0 = not compressed */
	uint32_t space_id;  /* the tablespace's id, INNODB_DELTA_NO_SPACE when absent */
} innodb_delta_meta;

/* Pages a block holds: page_size / 4 - 1. */
uint32_t innodb_delta_block_pages(uint32_t page_size);

/* X.meta's text for m into buf (at least INNODB_DELTA_META_MAX bytes); returns
 * its length. */
size_t innodb_delta_meta_format(const innodb_delta_meta *m, char *buf, size_t n);

/* Parse X.meta's text (len bytes; name is the file, for messages). page_size
 * is required and must be a power of two from 1 KiB to 64 KiB; a missing
 * space_id gives INNODB_DELTA_NO_SPACE; unknown keys are ignored.
 * XB_E_BACKUP_DAMAGED naming the file and the key otherwise. */
int innodb_delta_meta_parse(const char *text, size_t len, const char *name, innodb_delta_meta *m, xb_error *err);

/* Read and parse the file at path (XB_E_IO_READ when it cannot be read). */
int innodb_delta_meta_read(const char *path, innodb_delta_meta *m, xb_error *err);

/* ---------------------------------------------------------------- writer */

/* Receives each finished block (len bytes, a multiple of the page size). */
typedef int (*innodb_delta_emit_fn)(void *ctx, const uint8_t *buf, size_t len, xb_error *err);

typedef struct innodb_delta_writer innodb_delta_writer;

/* A writer of pages of page_size bytes; NULL (err set) when out of memory or
 * page_size is not a power of two from 1 KiB to 64 KiB. */
innodb_delta_writer *innodb_delta_writer_new(uint32_t page_size, innodb_delta_emit_fn emit, void *ctx,
					     xb_error *err);

/* Add one page (page_size bytes, copied). A block that is full is emitted
 * when the next page arrives, or by finish (then as the last block). */
int innodb_delta_writer_add(innodb_delta_writer *w, uint32_t page_no, const uint8_t *page, xb_error *err);

/* Emit the last block (with no page at all: a single header page). The
 * writer takes no more pages after it. */
int innodb_delta_writer_finish(innodb_delta_writer *w, xb_error *err);

/* Pages added so far, and bytes emitted so far. */
uint64_t innodb_delta_writer_pages(const innodb_delta_writer *w);
uint64_t innodb_delta_writer_bytes(const innodb_delta_writer *w);

void innodb_delta_writer_free(innodb_delta_writer *w);

/* ---------------------------------------------------------------- reader */

typedef struct innodb_delta_reader innodb_delta_reader;

/* Open path for reading pages of page_size bytes (from its .meta). NULL with
 * err set (XB_E_IO_READ, XB_E_INTERNAL) on failure. */
innodb_delta_reader *innodb_delta_reader_open(const char *path, uint32_t page_size, xb_error *err);

/* The next page: returns 1 with *page_no and *page (page_size bytes, valid
 * until the next call), 0 at the end of the last block, or an error code:
 * XB_E_BACKUP_DAMAGED for a bad magic, a page list that is not closed, a file
 * that ends inside a block or has bytes after the last one (naming the file
 * and the offset), XB_E_IO_READ when reading fails. */
int innodb_delta_reader_next(innodb_delta_reader *r, uint32_t *page_no, const uint8_t **page, xb_error *err);

/* The next run of pages with consecutive numbers, contiguous in memory (they
 * are contiguous in the block too): returns 1 with *first (the first page's
 * number), *count (1 to INNODB_DELTA_RUN_MAX) and *pages (count * page_size
 * bytes, valid until the next call), 0 at the end, or an error code as
 * innodb_delta_reader_next() gives. A run never spans two blocks; runs and
 * single pages may be taken in turn. */
#define INNODB_DELTA_RUN_MAX 64
int innodb_delta_reader_next_run(innodb_delta_reader *r, uint32_t *first, uint32_t *count, const uint8_t **pages,
				 xb_error *err);

/* Pages returned so far. */
uint64_t innodb_delta_reader_pages(const innodb_delta_reader *r);

void innodb_delta_reader_close(innodb_delta_reader *r);

/* Parse one header page (page_size bytes): its page count into *n and
 * whether it is the last block into *last; XB_E_BACKUP_DAMAGED (what is
 * wrong; the caller names the file) when the magic is not a delta's or the
 * list of a block that is not full is not closed. */
int innodb_delta_header_parse(const uint8_t *hdr, uint32_t page_size, uint32_t *n, bool *last, xb_error *err);

#endif
