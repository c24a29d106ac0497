/*
 * dir.h - directories: create a chain of them, list one.
 *
 * xb_mkdir_p() is `mkdir -p`; xb_dir_each() calls a function for every
 * entry of one directory (not "." and ".."), in the order the file system
 * returns them, and stops at the first non-zero return. The POSIX versions
 * are in dir.c; a port supplies its own.
 */
#ifndef XB_DIR_H
#define XB_DIR_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/error.h"

/* Create path and its missing parents with mode; existing ones are fine.
 * XB_E_IO_WRITE "cannot create directory X: reason" otherwise. */
int xb_mkdir_p(const char *path, mode_t mode, xb_error *err);

/* One entry of a directory. */
typedef struct xb_dirent {
	const char *dir;   /* the directory listed, as given */
	const char *name;  /* the entry's name */
	const char *path;  /* dir "/" name */
	bool is_dir;       /* a directory (symbolic links followed) */
	bool is_file;      /* a regular file (symbolic links followed) */
} xb_dirent;

/* Flags of xb_dir_each(). */
enum {
	XB_DIR_MISSING_OK = 1, /* a directory that does not exist lists as empty */
};

/* Call fn(ctx, entry, err) for each entry of dir; its non-zero return ends the
 * walk and is returned. XB_E_IO_READ "cannot open DIR: reason" when dir cannot
 * be listed; a path too long is XB_E_USAGE. */
int xb_dir_each(const char *dir, int flags, int (*fn)(void *ctx, const xb_dirent *e, xb_error *err), void *ctx,
		xb_error *err);

#endif
