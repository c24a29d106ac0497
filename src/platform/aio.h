/*
 * aio.h - fast sequential reading of big files (datafiles) in chunks.
 *
 * A reader hands out a file chunk by chunk, in order. Underneath it opens the
 * file with O_DIRECT (so a backup does not evict the server's page cache and
 * reads at device speed) and keeps up to `depth` chunk reads in flight ahead
 * of the consumer with Linux native AIO (libaio: io_setup/io_submit/
 * io_getevents), into 4096-aligned buffers. It falls back on its own:
 *   - O_DIRECT refused by the file system (open or first read fails with
 *     EINVAL): buffered reads, with sequential read-ahead advice;
 *   - io_setup unavailable (ENOSYS, EAGAIN when aio-max-nr is used up) or
 *     buffered mode: synchronous pread of one chunk per call.
 * xb_reader_mode() tells which way was taken, for the log.
 *
 * Files may grow while they are read (a live server extends tablespaces):
 * the reader reads up to the size seen at open; on reaching it, it looks at
 * the size once more and, if the file grew, continues up to that new size.
 * If the file shrinks, the reader stops at the first short read. The last
 * chunk may be shorter than `chunk` and of any length (O_DIRECT is handled
 * by reading whole blocks and reporting only the bytes the file has).
 * A reader is used by one thread at a time.
 */
#ifndef XB_AIO_H
#define XB_AIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../common/throttle.h"

typedef struct xb_reader xb_reader;

/* Flags for xb_reader_open_flags (tests and special files). */
enum {
	XB_READER_NO_DIRECT = 1u << 0, /* do not try O_DIRECT: buffered reads */
	XB_READER_NO_AIO = 1u << 1,    /* do not use libaio: synchronous pread */
	XB_READER_TEST_EINVAL = 1u << 2, /* testing: O_DIRECT reads fail with EINVAL */
};

/* Default chunk size and number of reads in flight when 0 is passed. */
#define XB_READER_DEFAULT_CHUNK ((size_t)4 << 20)
#define XB_READER_DEFAULT_DEPTH 4

/* Open `path` for chunked sequential reading. `chunk` is rounded up to a
 * multiple of 4096 (0 = XB_READER_DEFAULT_CHUNK); `depth` reads are kept in
 * flight (0 = XB_READER_DEFAULT_DEPTH, at most 64). Buffers are allocated
 * lazily and no bigger than the file needs. Returns NULL on error:
 * XB_E_MISSING_FILE when the file does not exist (e.g. dropped meanwhile),
 * XB_E_IO_READ otherwise. */
xb_reader *xb_reader_open(const char *path, size_t chunk, int depth, xb_error *err);

/* Same with XB_READER_* flags. */
xb_reader *xb_reader_open_flags(const char *path, size_t chunk, int depth, unsigned flags,
				xb_error *err);

/* Make every chunk read (and re-read) take its bytes from `t` before it is
 * issued (NULL = unlimited). Call before the first xb_reader_next. */
void xb_reader_set_throttle(xb_reader *r, xb_throttle *t);

/* Next chunk: *buf points to *len bytes that are the file content at *offset;
 * valid until the next call to xb_reader_next or xb_reader_close. All chunks
 * but the last are exactly `chunk` bytes (unless the size changed under the
 * reader). At end of file returns 0 with *len == 0 (and *offset = the end).
 * On error returns XB_E_IO_READ (message names the file and offset). */
int xb_reader_next(xb_reader *r, const uint8_t **buf, size_t *len, uint64_t *offset,
		   xb_error *err);

/* Read len bytes at offset into buf (any alignment) synchronously, bypassing
 * the read-ahead queue; used to re-read a page that looked torn. Fails with
 * XB_E_IO_READ on an error or when fewer than len bytes exist there. */
int xb_reader_reread(xb_reader *r, uint64_t offset, uint8_t *buf, size_t len, xb_error *err);

/* Current end of reading: the size at open, or the size seen by the re-stat at
 * end of file, or where a short read found the end. */
uint64_t xb_reader_size(const xb_reader *r);

/* How the file is being read, for the log: "aio+O_DIRECT", "pread+O_DIRECT",
 * "pread+buffered", followed by the reason of a fallback in parentheses, e.g.
 * "pread+buffered (O_DIRECT: Invalid argument)". */
const char *xb_reader_mode(const xb_reader *r);

/* Whether reads currently bypass the page cache / use libaio. */
bool xb_reader_is_direct(const xb_reader *r);
bool xb_reader_is_aio(const xb_reader *r);

/* The path given at open. */
const char *xb_reader_path(const xb_reader *r);

/* Wait for reads in flight, free buffers, close the file. NULL is fine. */
void xb_reader_close(xb_reader *r);

#endif
