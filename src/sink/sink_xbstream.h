/*
 * sink_xbstream.h - a container sink writing MariaDB's xbstream format.
 *
 * Every file becomes a run of payload chunks followed by an end-of-file
 * chunk; files written by several threads at once interleave chunk by chunk
 * on the one descriptor. The bytes are exactly what mariabackup
 * --stream=xbstream produces, so mbstream -x extracts them: each file is
 * gathered into chunks of up to 10 MiB as mariabackup does, with zlib's
 * CRC-32 of the data (the format: stream/xbstream_reader.h). A file
 * aborted after some of it was sent is followed by a remove chunk, which
 * makes mbstream -x and xbstream -x drop it. A write error (EPIPE: the
 * reader went away) makes every later call fail with that first error.
 */
#ifndef XB_SINK_XBSTREAM_H
#define XB_SINK_XBSTREAM_H

#include "sink.h"

/* Write the stream to fd (normally 1, stdout). fd is not closed. */
xb_sink *xb_sink_xbstream_open(int fd, xb_error *err);

#endif
