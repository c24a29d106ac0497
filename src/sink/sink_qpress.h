/*
 * sink_qpress.h - the decompression filter for mariabackup's .qp files.
 *
 * Files named *.qp (mariabackup --compress: a one-file qpress archive of
 * QuickLZ level-1 blocks, doc/qpress.md) are decoded into the inner sink
 * under the name without .qp; every other file passes through unchanged.
 * There is no compressor: our --compress writes zstd (sink_zstd.h).
 */
#ifndef XB_SINK_QPRESS_H
#define XB_SINK_QPRESS_H

#include "sink.h"

/* Decode *.qp files into inner (name without .qp); others unchanged. A
 * corrupt, truncated or foreign .qp fails with XB_E_STREAM_CORRUPT naming
 * the file, and its decoded file is aborted. Takes ownership of inner. */
xb_sink *xb_sink_unqpress_open(xb_sink *inner, xb_error *err);

#endif
