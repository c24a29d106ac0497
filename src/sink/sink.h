/*
 * sink.h - where backup files go.
 *
 * A sink receives the files of a backup. Drivers come in two kinds behind
 * the same small vtable, so copy code never knows where its bytes end up:
 *   containers put files somewhere: a local directory (sink_dir.c), an
 *     xbstream or tar stream on a descriptor (sink_xbstream.c, sink_tar.c),
 *     a remote host over sftp/scp (sink_remote.c);
 *   filters transform each file and pass it to an inner sink they own:
 *     zstd compression and decompression (sink_zstd.c), decompression of
 *     mariabackup's .qp files (sink_qpress.c), AES-256-GCM encryption and
 *     decryption (sink_crypt.c). A filter renames the files it
 *     encodes (x.ibd -> x.ibd.zst) and its decoder renames them back.
 * Any chain works: data -> compress -> encrypt -> container at backup time,
 * and stream reader -> decrypt -> decompress -> directory at extraction. Files are written sequentially (append
 * only), which every stream format can carry. Files are created in a
 * temporary name and appear under their final name only when closed without
 * error, so an interrupted backup never shows a complete-looking file.
 * A sink is safe to use from several threads, each writing its own files.
 */
#ifndef XB_SINK_H
#define XB_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

typedef struct xb_sink xb_sink;
/* A file being written. Every driver's file struct starts with the owning
 * sink pointer, so the wrappers can find the vtable. */
typedef struct xb_sink_file xb_sink_file;

/* The driver vtable. */
typedef struct xb_sink_ops {
	xb_sink_file *(*open)(xb_sink *s, const char *relpath, xb_error *err); /* create a file */
	int (*write)(xb_sink_file *f, const void *buf, size_t len, xb_error *err); /* append */
	int (*close)(xb_sink_file *f, xb_error *err);                         /* finish, publish */
	void (*abort)(xb_sink_file *f);                                        /* discard a file */
	int (*finish)(xb_sink *s, xb_error *err);                              /* end of backup */
	void (*free)(xb_sink *s);                                              /* release */
} xb_sink_ops;

struct xb_sink {
	const xb_sink_ops *ops; /* driver functions */
	const char *name;       /* for logs: the target path or URL */
	uint64_t bytes_written; /* total bytes accepted (updated atomically) */
	int extra_refs;         /* owners beyond the first (xb_sink_ref); free() runs when none is left */
};

/* Open a local directory sink; the directory is created (parents included)
 * when absent. The caller checks emptiness when it matters. */
xb_sink *xb_sink_dir_open(const char *dir, xb_error *err);

/* The same with flags:
 *   XB_SINK_DIR_NOREPLACE  a file that already exists under its final name is
 *                          an error (XB_E_TARGET), never overwritten;
 *   XB_SINK_DIR_UNTRUSTED  relpaths come from untrusted input (a stream):
 *                          absolute paths, empty, "." and ".." components are
 *                          refused (XB_E_STREAM_CORRUPT), and no symbolic
 *                          link is followed below the directory itself. */
enum { XB_SINK_DIR_NOREPLACE = 1, XB_SINK_DIR_UNTRUSTED = 2 };
xb_sink *xb_sink_dir_open_ex(const char *dir, unsigned flags, xb_error *err);

/* A second owner for a sink (two filter chains over one container): each
 * owner calls xb_sink_free(); the driver is released by the last one. */
xb_sink *xb_sink_ref(xb_sink *s);

/* Convenience wrappers over the vtable. */
xb_sink_file *xb_sink_open(xb_sink *s, const char *relpath, xb_error *err);
int xb_sink_write(xb_sink_file *f, const void *buf, size_t len, xb_error *err);
int xb_sink_close(xb_sink_file *f, xb_error *err);
void xb_sink_abort(xb_sink_file *f);
int xb_sink_finish(xb_sink *s, xb_error *err);
void xb_sink_free(xb_sink *s);

/* Write a whole small file in one go (metadata files). */
int xb_sink_put(xb_sink *s, const char *relpath, const void *buf, size_t len, xb_error *err);

/* Copy what fd holds, from its position to its end, into a new file relpath
 * of s; src names fd in errors. Each piece read is also shown to
 * seen(ctx, buf, n) when seen is given (progress, counting). fd stays open. */
int xb_sink_put_fd(xb_sink *s, const char *relpath, int fd, const char *src,
		   void (*seen)(void *ctx, const void *buf, size_t n), void *ctx, xb_error *err);

#endif
