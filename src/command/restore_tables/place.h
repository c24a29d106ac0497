/*
 * place.h - putting a backup's tablespace file into the live datadir, for
 * ALTER TABLE ... IMPORT TABLESPACE to find it.
 *
 * The file is copied under a temporary name beside its final one
 * (NAME.xbrestore), made durable, given the owner and mode of the server's
 * own db.opt there (else the directory's owner, and its mode without the
 * execute bits; the owner only when we run as root: the server must be able
 * to open and later write it), then renamed to its name, never replacing a
 * file that is there, and the directory is synced. A failed copy leaves no
 * temporary file behind.
 */
#ifndef XB_RT_PLACE_H
#define XB_RT_PLACE_H

#include <stdbool.h>

#include "common/error.h"

/* Copy the file src to dir/name as described, with the owner and mode of
 * the files of like_dir (NULL: dir; a DATA DIRECTORY takes those of the
 * table's database directory in the datadir). XB_E_IO_READ / XB_E_IO_WRITE
 * naming the file; XB_E_TARGET when dir/name exists already. */
int place_file(const char *src, const char *dir, const char *name, const char *like_dir, xb_error *err);

/* The same for a file holding text (a DATA DIRECTORY table's .isl). */
int place_text(const char *text, const char *dir, const char *name, xb_error *err);

/* Remove dir/name when it is there (a file placed for an import that
 * failed); 0 also when it was not there. */
int place_remove(const char *dir, const char *name, xb_error *err);

/* Whether the directory dir exists and this process may create files in it. */
bool place_dir_writable(const char *dir);

#endif
