/*
 * sink_remote.h - a container sink uploading a backup to another host over
 * sftp:// or scp:// (libcurl), with key authentication and known_hosts
 * checking; a file appears under its final name only once whole.
 */
#ifndef XB_SINK_REMOTE_H
#define XB_SINK_REMOTE_H

#include <stdbool.h>

#include "config/options.h"
#include "sink.h"

/* True when target is an sftp:// or scp:// URL. */
bool xb_sink_remote_url(const char *target);

/* Connect (with retries), check the remote directory is absent or empty,
 * create it. Options used: --ssh-key-file, --ssh-known-hosts,
 * --remote-retries, --remote-timeout. */
xb_sink *xb_sink_remote_open(const char *url, const xb_options *o, xb_error *err);

#endif
