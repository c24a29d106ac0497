/*
 * sink_tar.h - a container sink writing a POSIX tar stream (libarchive).
 *
 * A tar header carries the file's size, which a file being copied from a
 * live server does not have until it is closed: each file is spooled (in
 * memory when small, else in an unlinked file under tmpdir) and written to
 * the stream whole when closed.
 */
#ifndef XB_SINK_TAR_H
#define XB_SINK_TAR_H

#include "sink.h"

/* Write the archive to fd (normally 1). tmpdir: where large files are spooled. */
xb_sink *xb_sink_tar_open(int fd, const char *tmpdir, xb_error *err);

#endif
