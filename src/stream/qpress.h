/*
 * qpress.h - reading the .qp files of mariabackup --compress: the qpress
 * archive framing and the QuickLZ level-1 packets inside it
 * (doc/qpress.md §1 to §4).
 *
 * A .qp file is a one-file qpress archive: a header ("qpress10" and the
 * chunk size), a file entry ('F', the name), blocks (each a "NEWBNEWB"
 * marker, the offset of its bytes in the file, an Adler-32 of the packet and
 * one QuickLZ packet holding at most a chunk of the file) and a trailer
 * ("ENDSENDS" and 8 bytes). The reader is fed the archive in pieces of any
 * size and hands each decoded block, in order, to a callback; end() checks
 * the archive was whole. Every length and offset is checked against what
 * the bytes allow before it is used: a corrupt, truncated or foreign file
 * fails with XB_E_STREAM_CORRUPT and a one-line message that starts with the
 * name the reader was given and the archive offset involved. Memory follows
 * the bytes actually received (a header claiming a huge block allocates
 * nothing until the bytes are there), and is bounded by the chunk size,
 * itself refused above 1 GiB.
 */
#ifndef XB_QPRESS_H
#define XB_QPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define XB_QPRESS_SUFFIX ".qp"            /* the name mariabackup gives such files */
#define XB_QPRESS_CHUNK_MAX (1u << 30)    /* largest chunk size accepted */

typedef struct xb_qpress xb_qpress;

/* Receives each decoded block, in file order (len >= 1). A non-zero return
 * stops the reader and is returned by xb_qpress_feed(). */
typedef int (*xb_qpress_out)(void *arg, const uint8_t *buf, size_t len, xb_error *err);

/* A reader for one archive; name (copied) starts its error messages. */
xb_qpress *xb_qpress_new(const char *name, xb_qpress_out out, void *arg, xb_error *err);

/* The next len bytes of the archive. */
int xb_qpress_feed(xb_qpress *q, const void *buf, size_t len, xb_error *err);

/* No more bytes: fails unless the archive ended with its trailer. */
int xb_qpress_end(xb_qpress *q, xb_error *err);

/* Bytes decoded so far. */
uint64_t xb_qpress_decoded(const xb_qpress *q);

void xb_qpress_free(xb_qpress *q);

/* One QuickLZ packet (doc/qpress.md §3, §4), its header included, of exactly
 * len bytes (the packet's own length field must say len) into out, which has
 * room for exactly out_len bytes (the packet's decompressed length must say
 * out_len). Returns 0, or -1 with *why set to a static one-line reason; it
 * never reads outside pkt[0..len) nor writes outside out[0..out_len). */
int xb_qlz_decompress(const uint8_t *pkt, size_t len, uint8_t *out, size_t out_len, const char **why);

/* From the first bytes of a packet: its header length (3 or 9), or 0 when
 * the flags byte is not one of a QuickLZ level-1 packet (*why set). */
size_t xb_qlz_header_len(uint8_t flags, const char **why);

#endif
