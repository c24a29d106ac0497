/*
 * sink_remote.h - a container sink uploading a backup to another host over
 * sftp:// or scp:// (libcurl), with key authentication and known_hosts
 * checking; a file appears under its final name only once whole.
 * Unlike the directory sink, close() returns before the host has confirmed
 * the file (the copy never waits on the network per file): finish() waits for
 * every upload and returns the first failure, so a completion marker written
 * after finish() is on the host only after everything it vouches for;
 * free() without finish() gives up the uploads still running (quickly: an
 * interrupted backup ends at once).
 * Design and trade-offs (SCP needs SFTP's help) in sink_remote.c.
 */
#ifndef XB_SINK_REMOTE_H
#define XB_SINK_REMOTE_H

#include <stdbool.h>

#include "config/options.h"
#include "sink.h"

/* True when target is an sftp:// or scp:// URL. */
bool xb_sink_remote_url(const char *target);

/* Connect (with retries), check the remote directory is absent or empty
 * (else XB_E_TARGET), create it. Options used: --ssh-key-file,
 * --ssh-known-hosts, --remote-retries, --remote-timeout, and --parallel for
 * the number of connections. Upload failures are XB_E_REMOTE. */
xb_sink *xb_sink_remote_open(const char *url, const xb_options *o, xb_error *err);

#endif
