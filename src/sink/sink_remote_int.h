/*
 * sink_remote_int.h - internals shared by the remote sink's two halves:
 * sink_remote.c (the sink driver: per-file buffers, the pool of uploader
 * threads, retries, resuming) and sink_remote_ssh.c (everything libcurl: URL
 * and key lookup, transfers, SFTP commands and sizes, error messages). Nothing
 * else includes it.
 */
#ifndef XB_SINK_REMOTE_INT_H
#define XB_SINK_REMOTE_INT_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sink_remote.h"

#define FILE_BUF_MIN (64u << 10) /* a file's ring buffer starts this small */
#define FILE_BUF (4u << 20)      /* and grows to this; a file no larger is kept whole (SCP can send it) */
#define RING_MAX (12u << 20)     /* a file outgrowing FILE_BUF (streamed over SFTP) grows to this */
#define KEEP_SENT (8u << 20)     /* of which this much already handed to libcurl is kept, to resume */
#define MAX_UPLOADERS 32         /* hard cap; the pool's size follows --parallel */
#define QUEUE_BUDGET (64u << 20) /* buffers of files waiting for an uploader: open() waits above this */
#define QUICK_TIMEOUT 5          /* seconds, for removing a temporary after a failure */

typedef struct rsink rsink;
typedef struct uploader uploader;

typedef struct rfile rfile;
struct rfile {
	xb_sink *sink;             /* must be first: owning sink */
	uploader *up;              /* the uploader carrying it, NULL while queued */
	rfile *next;               /* in the queue */
	char *rel, *path, *tmp;    /* relative path; remote final and temporary paths */
	unsigned char *ring;       /* cap bytes; byte at stream offset x is at x % cap */
	size_t cap;
	uint64_t base;             /* oldest byte kept (0: the file can be sent again from its start) */
	uint64_t consumed;         /* next byte to hand to libcurl */
	uint64_t written;          /* next byte to be written */
	bool eof;                  /* close() or abort() was called */
	bool aborted, paused, writer_waiting;
	bool touched;              /* a transfer started: a temporary may exist on the host */
	bool closed;               /* the caller let go: the uploader frees it */
	bool done;                 /* the upload ended; rc and err hold its result */
	int rc;
	xb_error err;
};

struct uploader {
	rsink *s;
	pthread_t th;
	bool started, stop;
	CURLM *multi;
	CURL *sftp, *scp;          /* persistent: each keeps its SSH connection open */
	CURL *last;                /* the handle of the last request (for its errno) */
	char errbuf[CURL_ERROR_SIZE];
	char info[256];            /* libcurl's last informational line */
	int khmatch;               /* CURLKHMATCH_* of the last host-key check, -1 none */
	char khfp[192];            /* the key the host offered: "ssh-ed25519 SHA256:..." */
	curl_off_t sent;           /* bytes sent by the last transfer */
	curl_off_t from;           /* the offset it started at (a resumed upload) */
	long oserr;                /* if set, the OS error to report instead of the handle's */
};

struct rsink {
	xb_sink base;              /* must be first */
	char *shown;               /* scheme://user@host:port/root, for messages */
	char *origin[2];           /* "sftp://host:port", "scp://host:port" */
	char *user, *host, *root;  /* root: absolute, or relative to the login directory (home) */
	long port;
	bool scp, home;
	char *key, *pub, *known;   /* private key, public key ("" derives it), known_hosts */
	int retries;
	long timeout;
	pthread_mutex_t mu;        /* everything below, the files' fields, the uploaders' stop */
	pthread_cond_t cv;         /* broadcast on every change */
	uploader *ups[MAX_UPLOADERS];
	int nups, maxups, idle;    /* uploaders, their cap, those waiting for a file */
	rfile *qhead, *qtail;      /* files waiting for an uploader, in open() order */
	size_t queued;             /* their buffers' size */
	int nq;                    /* their number */
	int pending;               /* closed files not uploaded yet */
	char **dirs;               /* scp://: directories known to exist */
	size_t ndirs;
	bool told;                 /* the scp:// fallback to SFTP was logged */
	atomic_bool failed;        /* sticky: an upload failed; fail says which */
	xb_error fail;
};

/* sink_remote_ssh.c */
int rs_parse_url(rsink *s, const char *url, xb_error *err);
int rs_find_keys(rsink *s, const xb_remote_settings *rs, xb_error *err);
char *rs_join(const char *dir, const char *name);
/* One attempt at uploading f to f->tmp and renaming it to f->path, over SCP
 * (its whole content is buffered: the length is known) or SFTP; from > 0
 * (SFTP only): append to the temporary, which holds that many bytes, reading
 * from f->consumed == from (seek checks it). */
CURLcode rs_upload(uploader *up, rfile *f, bool scp, curl_read_callback read, curl_seek_callback seek,
		   curl_off_t from);
/* The size of a remote file (SFTP stat); on failure says why in why, and
 * leaves the uploader's record of the previous failure (for its message) as it was. */
CURLcode rs_size(uploader *up, const char *path, curl_off_t *size, char *why, size_t len);
/* List dir: *nonempty when it holds anything; CURLE_REMOTE_FILE_NOT_FOUND when absent. */
CURLcode rs_list(uploader *up, const char *dir, bool *nonempty);
/* mkdir every directory of path below `below` (NULL: from the top); only the
 * last one must succeed, and only when must is set. */
CURLcode rs_mkdirs(uploader *up, const char *path, const char *below, bool must);
/* Remove a file, best effort, with short timeouts. */
void rs_remove(uploader *up, const char *path);
/* After a failure: does the host answer now (-1: no), with how many bytes free
 * in the target's file system (LLONG_MAX: unknown); says so in out. */
long long rs_probe(uploader *up, char *out, size_t len);
/* Worth retrying: the connection failed or broke, not a refusal. */
bool rs_transient(uploader *up, CURLcode c);
/* libcurl's detail of the last failure: its error buffer, the OS error. */
const char *rs_detail(uploader *up, CURLcode c, char *buf, size_t len);
/* err := "URL: WHAT: reason (detail)" and a hint of what to check. */
int rs_describe(uploader *up, CURLcode c, const char *url, const char *what, xb_error *err);

#endif
