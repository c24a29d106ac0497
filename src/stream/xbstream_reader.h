/*
 * xbstream_reader.h - a pull parser for MariaDB's xbstream format.
 *
 * A stream is a run of chunks, each starting with the magic "XBSTCK01", a
 * flags byte, a type byte and a little-endian 32-bit path length plus the
 * path. What follows depends on the type:
 *   'P' payload      64-bit length, 64-bit file offset, CRC-32 (zlib's, of
 *                    the data), then the data
 *   'E' end of file  nothing: the file is complete
 *   'S' seek         64-bit offset: later payload continues from there
 *   'R' rename       32-bit length and the new name (the path is the old one)
 *   'D' remove       nothing: delete the file or directory named
 * Flags: 0x01 the chunk may be skipped when its type is unknown (it then has
 * the payload layout), 0x02 the file replaces one written earlier.
 *
 * The reader pulls bytes from a callback (or a descriptor), checks magic,
 * type, lengths (paths up to 511 bytes like mbstream, payloads up to 64 MiB
 * so a hostile length never makes us allocate much), paths (no NUL or
 * control character, so messages can print them) and, unless told not to,
 * the checksum. Every error is XB_E_STREAM_CORRUPT and names the stream
 * offset of the chunk, plus its path once known. A stream that ends exactly
 * between chunks ends cleanly; one that ends inside a chunk is truncated.
 * Which files a stream may name is not the reader's business:
 * xbs_path_check() is the policy for extraction.
 */
#ifndef XB_XBSTREAM_READER_H
#define XB_XBSTREAM_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

#define XBS_MAGIC "XBSTCK01"
#define XBS_MAGIC_LEN 8
#define XBS_HEADER_LEN 14                /* magic, flags, type, path length */
#define XBS_PATH_MAX 511                 /* mbstream refuses longer paths */
#define XBS_PAYLOAD_MAX (64u << 20)      /* mariabackup writes at most 10 MiB */
#define XBS_CHUNK_SIZE (10u << 20)       /* what mariabackup buffers per file */

enum { XBS_FLAG_IGNORABLE = 0x01, XBS_FLAG_REWRITE = 0x02 };

enum xbs_type {
	XBS_END = 0,          /* no more chunks: the stream ended cleanly */
	XBS_IGNORED = 1,      /* an unknown type flagged ignorable: skip it */
	XBS_PAYLOAD = 'P',
	XBS_EOF = 'E',
	XBS_SEEK = 'S',
	XBS_RENAME = 'R',
	XBS_REMOVE = 'D',
};

typedef struct xbs_chunk {
	uint64_t at;                       /* stream offset of the chunk's magic */
	int type;                          /* enum xbs_type */
	uint8_t flags;                     /* XBS_FLAG_* */
	char path[XBS_PATH_MAX + 1];       /* the file (R: its old name) */
	char newpath[XBS_PATH_MAX + 1];    /* R: the new name */
	uint64_t offset;                   /* P: where data goes in the file; S: the new position */
	size_t len;                        /* P: bytes of data */
	uint32_t crc;                      /* P: the checksum as stored */
	uint8_t *data;                     /* P: the data (malloc'ed, reused by the next call) */
	size_t cap;                        /* allocated size of data */
} xbs_chunk;
/* The caller may take c->data (then set c->data = NULL, c->cap = 0) or hand
 * in a buffer of its own there: the reader only reallocates what is too small.
 * xbs_chunk_release() frees what is left. */

/* Returns bytes read (0 at end of input) or -1 with errno set. */
typedef ssize_t (*xbs_read_fn)(void *arg, void *buf, size_t len);

typedef struct xbs_reader xbs_reader;

/* name is used in read-error messages ("stdin"). */
xbs_reader *xbs_reader_new(xbs_read_fn fn, void *arg, const char *name, xb_error *err);
xbs_reader *xbs_reader_fd(int fd, const char *name, xb_error *err);
void xbs_reader_free(xbs_reader *r);

/* Checksums are verified by xbs_next() unless turned off here (a caller
 * verifying in worker threads with xbs_chunk_verify()). */
void xbs_reader_set_verify(xbs_reader *r, bool on);

/* Bytes consumed so far (the offset of the next chunk). */
uint64_t xbs_reader_offset(const xbs_reader *r);

/* The next chunk into c; at a clean end c->type is XBS_END. Returns 0, or
 * XB_E_STREAM_CORRUPT / XB_E_IO_READ. After an error the reader is done. */
int xbs_next(xbs_reader *r, xbs_chunk *c, xb_error *err);

/* The checksum of a payload chunk (XB_E_STREAM_CORRUPT naming offset and path). */
int xbs_chunk_verify(const xbs_chunk *c, xb_error *err);
/* The same for a payload kept apart from its chunk (at: the chunk's stream offset). */
int xbs_verify(uint64_t at, const char *path, uint64_t offset, const void *data, size_t len, uint32_t stored,
	       xb_error *err);

void xbs_chunk_release(xbs_chunk *c);

/* May a stream create this path below the extraction directory? Refuses
 * empty and absolute paths, empty, "." and ".." components, control
 * characters and paths longer than XBS_PATH_MAX (XB_E_STREAM_CORRUPT). With
 * wildcard, one '*' at the very end is allowed (remove chunks use it). */
int xbs_path_check(const char *path, bool wildcard, xb_error *err);

/* CRC-32 as the format uses it (zlib's crc32, polynomial 0xEDB88320). */
uint32_t xbs_crc32(const void *data, size_t len);

#endif
