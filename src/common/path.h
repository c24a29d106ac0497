/*
 * path.h - building file paths without silent truncation.
 *
 * Every path the program builds goes through xb_path_join() or
 * xb_path_resolve(): both write into a caller's buffer and fail with a
 * one-line error naming the path when it does not fit, so a cut path is
 * never opened, created or removed. Pure string work, no file system calls
 * (those live in platform/dir.h).
 */
#ifndef XB_PATH_H
#define XB_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* out = dir "/" name (n bytes with the NUL). XB_E_USAGE when it would not fit
 * ("path too long: dir/name"), out then holds "". */
int xb_path_join(char *out, size_t n, const char *dir, const char *name, xb_error *err);

/* out = dir "/" name "ext": a name with a new ending, e.g. "db/t" ".ibd". */
int xb_path_join3(char *out, size_t n, const char *dir, const char *name, const char *ext, xb_error *err);

/* out = path when it is absolute, else base "/" path (a leading "./" and a
 * path of "." or "./" name base itself); trailing slashes removed. The way
 * the server takes a relative directory option from its datadir. */
int xb_path_resolve(char *out, size_t n, const char *base, const char *path, xb_error *err);

/* True when s ends with suffix (and is longer than it). */
bool xb_path_has_suffix(const char *s, const char *suffix);

/* The last component of path (after the last '/'; path itself when none). */
const char *xb_path_base(const char *path);

#endif
