/*
 * bpdump.h - InnoDB buffer-pool dump files: read, check, sort, filter, write.
 *
 * A buffer-pool dump lists the pages that were in the buffer pool, most
 * recently used first, so a restarted server can read them back in. Two
 * formats exist (doc/dump-files.md):
 *   - ib_buffer_pool (MariaDB 10.x): ASCII, one "<space_id>,<page_no>\n"
 *     line per page, both decimal unsigned 32-bit, nothing else;
 *   - ib_lru_dump (old XtraDB): 8-byte records, big-endian space id and page
 *     number, ended by the record FFFFFFFF FFFFFFFF, zero padded to a
 *     multiple of 16 KiB.
 * Both parse into a bp_dump, a growable array of (space_id, page_no) kept in
 * file order. The text parser is strict and hand-rolled (no sscanf): the
 * first malformed line is an error naming the file and the line, never a
 * silently shortened dump. bp_sort_unique() orders entries the way the
 * server's loader does (by space, then page) with an LSD radix sort on the
 * 64-bit key, dropping duplicates. Writers build the whole file in memory;
 * bp_write_file() replaces a file atomically (PATH.tmp, fsync, rename, fsync
 * of the directory). Everything but the two file helpers is pure.
 */
#ifndef XB_INNODB_BPDUMP_H
#define XB_INNODB_BPDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define BP_LRU_RECORD 8u         /* bytes per ib_lru_dump record */
#define BP_LRU_BLOCK 16384u      /* ib_lru_dump files are padded to a multiple of this */
#define BP_TEXT_NAME "ib_buffer_pool" /* default file name of the text format */
#define BP_LRU_NAME "ib_lru_dump"     /* default file name of the binary format */

/* One page of a dump. */
typedef struct bp_entry {
	uint32_t space_id; /* tablespace id */
	uint32_t page_no;  /* page number within the tablespace */
} bp_entry;

/* A dump: entries in file (LRU, most recent first) order until sorted.
 * Initialise with {0}; free with bp_dump_free(). */
typedef struct bp_dump {
	bp_entry *v;       /* the entries, malloc'ed (NULL when cap is 0) */
	size_t n;          /* entries in use */
	size_t cap;        /* entries allocated */
} bp_dump;

enum bp_format {
	BP_FORMAT_UNKNOWN = 0, /* not a valid format (argument errors) */
	BP_FORMAT_TEXT,        /* MariaDB 10.x ib_buffer_pool */
	BP_FORMAT_LRU,         /* XtraDB ib_lru_dump */
};

/* "ib_buffer_pool", "ib_lru_dump" or "unknown". */
const char *bp_format_name(int format);

/* Append one entry, growing the array. XB_E_INTERNAL when out of memory. */
int bp_dump_push(bp_dump *d, uint32_t space_id, uint32_t page_no, xb_error *err);

/* Make room for at least cap entries. XB_E_INTERNAL when out of memory. */
int bp_dump_reserve(bp_dump *d, size_t cap, xb_error *err);

/* Free the entries and reset *d to empty ({0}). */
void bp_dump_free(bp_dump *d);

/* Which format buf holds: BP_FORMAT_TEXT when it is empty or its first byte
 * is printable ASCII, '\n' or '\r'; BP_FORMAT_LRU otherwise. A real
 * ib_lru_dump starts with the high byte of a space id (0x00 for every id
 * below 16M) or with the 0xFF of its terminator: it would be taken for text
 * only if its first space id were 0x0A000000 (167 million) or more. A text
 * file with a typo anywhere is still parsed as text, so the error names the
 * bad line instead of ASCII being decoded as binary records. */
int bp_detect_format(const uint8_t *buf, size_t len);

/* Parse an ib_buffer_pool text dump. Lines end with "\n" or "\r\n"; the last
 * line may lack its newline. Each line is exactly <digits>,<digits>, each
 * number at most 4294967295. name (NULL: "ib_buffer_pool") starts every
 * message. *out (initialised) is replaced by the entries in file order. On
 * an error *out is left empty and XB_E_IO_READ is returned with a message
 * such as `ib_buffer_pool: line 17: expected "<space_id>,<page_no>", got "12,x"`
 * (at most 40 bytes of the line are shown, non-printable bytes as '?'),
 * `...: line 2: empty line` or `...: line 3: number larger than 4294967295 in "..."`.
 * XB_E_INTERNAL when out of memory. */
int bp_parse_text(const uint8_t *buf, size_t len, const char *name, bp_dump *out, xb_error *err);

/* Parse an ib_lru_dump binary dump: 8-byte big-endian records up to the
 * terminator FFFFFFFF FFFFFFFF (whatever follows it is ignored) or up to the
 * end of buf when there is none. An empty buf is an empty dump. When buf ends
 * inside a record before any terminator: XB_E_IO_READ, `ib_lru_dump:
 * truncated record at byte 8200 (file length 8204 is not a multiple of 8)`.
 * name, *out and the other errors as for bp_parse_text(). */
int bp_parse_lru(const uint8_t *buf, size_t len, const char *name, bp_dump *out, xb_error *err);

/* bp_detect_format() then the matching parser. name NULL: the default name
 * of the format detected. */
int bp_parse(const uint8_t *buf, size_t len, const char *name, bp_dump *out, xb_error *err);

/* Sort by (space_id, page_no) ascending and drop duplicate entries. Radix
 * sort with a temporary copy of the entries; falls back to qsort in place
 * when that memory is not available, so it cannot fail. */
void bp_sort_unique(bp_dump *d);

/* Drop every entry that appeared earlier in d, keeping the order: in a dump
 * in file order the most recently used pages stay first. XB_E_INTERNAL when
 * out of memory (d unchanged). */
int bp_unique_in_order(bp_dump *d, xb_error *err);

/* Keep, in order, only the entries for which keep(ctx, space_id, page_no)
 * (not NULL; ctx is passed through) returns true. Returns the number of
 * entries dropped. */
size_t bp_filter(bp_dump *d, bool (*keep)(void *ctx, uint32_t space_id, uint32_t page_no), void *ctx);

/* The text file of d (entries in d's order): *out is malloc'ed (NULL when
 * *len is 0, i.e. d is empty), the caller frees it. XB_E_INTERNAL when out of memory. */
int bp_write_text(const bp_dump *d, uint8_t **out, size_t *len, xb_error *err);

/* The ib_lru_dump file of d: the records, the terminator, then zero bytes up
 * to a multiple of BP_LRU_BLOCK (an empty dump is one block holding only the
 * terminator). *out is malloc'ed, the caller frees it. XB_E_INTERNAL when
 * out of memory. */
int bp_write_lru(const bp_dump *d, uint8_t **out, size_t *len, xb_error *err);

/* Read the whole file at path, detect its format (stored in *format, which
 * may be NULL) and parse it into *out (initialised), using path as the name
 * in messages. XB_E_IO_READ when the file cannot be opened or read, or its
 * content is malformed. */
int bp_read_file(const char *path, bp_dump *out, int *format, xb_error *err);

/* Write d to path in format (BP_FORMAT_TEXT or BP_FORMAT_LRU): the bytes go
 * to "PATH.tmp" (created with mode 0660 & ~umask), which is fsynced and
 * renamed over path, then the directory is fsynced. A failure before the
 * rename removes the temporary and leaves path untouched. XB_E_IO_WRITE
 * naming the file and the system error; XB_E_INTERNAL for a bad format
 * argument or when out of memory. */
int bp_write_file(const char *path, const bp_dump *d, int format, xb_error *err);

#endif
