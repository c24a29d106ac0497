/*
 * sink_null.h - a container that discards what it is given, or keeps one
 * small file in memory.
 *
 * For a chain whose filters do the work and whose output is not kept:
 * --verify decodes a compressed or encrypted backup in memory through the
 * decoding filters and the checksumming filter (sink_sum.h), and the plain
 * bytes then have nowhere to go; its encrypted manifest is decoded the same
 * way into memory to be read. Every call succeeds (but for the kept file
 * growing past its limit); bytes_written counts the bytes given.
 */
#ifndef XB_SINK_NULL_H
#define XB_SINK_NULL_H

#include "sink.h"

/* Discard everything. */
xb_sink *xb_sink_null_open(xb_error *err);

/* Discard everything but the file named keep (relpath, exactly), whose
 * bytes are kept, at most max (XB_E_INTERNAL "too large" past it). */
xb_sink *xb_sink_null_open_keep(const char *keep, size_t max, xb_error *err);

/* The kept file's bytes once it was closed (NUL-terminated; *len bytes),
 * or NULL when no such file was closed. Owned by s. */
const char *xb_sink_null_kept(const xb_sink *s, size_t *len);

#endif
