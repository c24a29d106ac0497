/*
 * filecopy.h - the bytes of one file copied into another, holes kept, for
 * the commands that place files (--copy-back, --restore-tables).
 *
 * filecopy_data() walks the source's data runs (platform/file.h:
 * xb_file_next_data) and copies each at the same offset, in the kernel where
 * it can (xb_file_copy_range) and through an 8 MiB buffer where it cannot,
 * checking for a stop request (command.h) between pieces; then it sets the
 * destination's size (the trailing hole) and fsyncs it. The destination is
 * a file the caller created under a temporary name; naming, owner, mode and
 * the rename are the caller's.
 */
#ifndef XB_FILECOPY_H
#define XB_FILECOPY_H

#include <stdint.h>

#include "common/error.h"

/* Copy every byte of in (src in messages) into out (dst), size the same,
 * then fsync out. progress (may be NULL) grows by the bytes of in as they
 * are passed, holes included. XB_E_IO_READ / XB_E_IO_WRITE naming the file,
 * XB_E_INTERRUPTED on a stop request. */
int filecopy_data(int in, int out, const char *src, const char *dst, volatile uint64_t *progress, xb_error *err);

#endif
