/*
 * sink_sum.h - a filter that checksums every file passing through it.
 *
 * Placed first in a chain (before compression and encryption), it sees each
 * file's plain content: it counts the bytes and computes their CRC-32C as
 * they are written, on the writer's thread, and passes them on unchanged.
 * When a file is closed without error it reports the name, the size, the
 * CRC-32C and the first bytes of the file (the start of an InnoDB page 0)
 * to a callback, which the backup uses to build its manifest
 * (info/manifest.h). An aborted file is never reported. Nothing is renamed.
 */
#ifndef XB_SINK_SUM_H
#define XB_SINK_SUM_H

#include "sink.h"

#define XB_SINK_SUM_HEAD 128 /* bytes of a file's start given to the callback */

/* Called once per file closed without error, on the closing thread (the
 * callback serialises what it shares). head holds the first head_len bytes
 * of the file (head_len < XB_SINK_SUM_HEAD only for a shorter file). */
typedef void (*xb_sink_sum_fn)(void *ctx, const char *relpath, uint64_t size, uint32_t crc,
			       const uint8_t *head, size_t head_len);

/* Takes ownership of inner. */
xb_sink *xb_sink_sum_open(xb_sink *inner, xb_sink_sum_fn done, void *ctx, xb_error *err);

/* The sink s filters when s is a checksumming filter, else s (to ask the
 * directory sink below it how many holes it left). */
xb_sink *xb_sink_sum_inner(xb_sink *s);

#endif
