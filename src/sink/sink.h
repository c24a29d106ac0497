/*
 * sink.h - where backup files go.
 *
 * A sink receives the files of a backup. Today there is one driver, a local
 * directory (sink_dir.c); streams (xbstream, tar), compression, encryption
 * and remote upload plug in later behind the same small vtable, so copy code
 * never knows where its bytes end up. Files are written sequentially (append
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
};

/* Open a local directory sink. The directory must be empty or absent
 * (it is created, parents included). */
xb_sink *xb_sink_dir_open(const char *dir, xb_error *err);

/* Convenience wrappers over the vtable. */
xb_sink_file *xb_sink_open(xb_sink *s, const char *relpath, xb_error *err);
int xb_sink_write(xb_sink_file *f, const void *buf, size_t len, xb_error *err);
int xb_sink_close(xb_sink_file *f, xb_error *err);
void xb_sink_abort(xb_sink_file *f);
int xb_sink_finish(xb_sink *s, xb_error *err);
void xb_sink_free(xb_sink *s);

/* Write a whole small file in one go (metadata files). */
int xb_sink_put(xb_sink *s, const char *relpath, const void *buf, size_t len, xb_error *err);

#endif
