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

#include "sink.h"

/* How to reach the host: plain settings, resolved from the options by the
 * backup command (src/command/backup/target.c). */
typedef struct xb_remote_settings {
	const char *key_file;    /* --ssh-key-file, NULL: ~/.ssh/id_ed25519, id_ecdsa, id_rsa, the first that exists */
	const char *known_hosts; /* --ssh-known-hosts, NULL: ~/.ssh/known_hosts */
	int retries;             /* --remote-retries: retries of a failed connection or upload (0 to 30) */
	long timeout;            /* --remote-timeout: seconds before a connection or stalled transfer is given up (1 or more) */
	int parallel;            /* --parallel: threads writing into the sink; uploads use 4 more connections (6 to 32) */
} xb_remote_settings;

/* True when target is an sftp:// or scp:// URL. */
bool xb_sink_remote_url(const char *target);

/* Connect (with retries), check the remote directory is absent or empty
 * (else XB_E_TARGET), create it. Upload failures are XB_E_REMOTE. */
xb_sink *xb_sink_remote_open(const char *url, const xb_remote_settings *rs, xb_error *err);

#endif
