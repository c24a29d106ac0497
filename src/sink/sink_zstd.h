/*
 * sink_zstd.h - zstd compression and decompression filters.
 *
 * The compressor writes "<relpath>.zst" to its inner sink: a standard zstd
 * stream (zstd -d reads it), compressed in chunks by a pool of threads shared
 * by every file of the run (libzstd's multithreading: one ZSTD_threadPool,
 * every file's context refers to it). The decompressor does the reverse for
 * files named *.zst and passes every other file through unchanged.
 */
#ifndef XB_SINK_ZSTD_H
#define XB_SINK_ZSTD_H

#include "sink.h"

/* level: zstd level; threads: compressing threads shared by all files (>= 1);
 * chunk: bytes per chunk handed to one thread. Takes ownership of inner. */
xb_sink *xb_sink_zstd_open(xb_sink *inner, int level, int threads, size_t chunk, xb_error *err);

/* Decompress *.zst files into inner (name without .zst); others unchanged.
 * A corrupt or truncated file fails with XB_E_STREAM_CORRUPT naming it. */
xb_sink *xb_sink_unzstd_open(xb_sink *inner, xb_error *err);

#endif
