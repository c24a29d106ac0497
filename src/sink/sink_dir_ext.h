/*
 * sink_dir_ext.h - directory-sink operations beyond sink.h's append-only
 * files, for the xbstream extractor.
 *
 * mariabackup's streams are not always append-only: the Aria log tail is
 * patched through a seek chunk, tables touched by DDL during the backup are
 * sent again with the rewrite flag (the extractor removes the old copy), and
 * renamed or dropped tables become rename and remove chunks. These calls
 * carry that out on a directory sink
 * (xb_sink_dir_open_ex); with XB_SINK_DIR_UNTRUSTED they are confined below
 * the directory like its files: the same path rules, no symbolic link
 * followed. They fail with XB_E_INTERNAL on any other kind of sink or file.
 */
#ifndef XB_SINK_DIR_EXT_H
#define XB_SINK_DIR_EXT_H

#include <stdbool.h>
#include <stdint.h>

#include "sink.h"

/* Is f a file of a directory sink (so the calls below apply to it)? */
bool xb_sink_dir_file(const xb_sink_file *f);

/* Zero bytes the directory sink s has left as holes so far (0 for any other
 * kind of sink). */
uint64_t xb_sink_dir_holes(const xb_sink *s);

/* Later writes to f go to offset (before or past its end; the file keeps
 * its size when overwritten inside it). */
int xb_sink_dir_seek(xb_sink_file *f, uint64_t offset, xb_error *err);

/* Remove the file relpath (dir: the empty directory). Absent is success,
 * and so, with dir, is a directory that is not empty or a name that is not
 * a directory (nothing is removed then). */
int xb_sink_dir_remove(xb_sink *s, const char *relpath, bool dir, xb_error *err);

/* Rename a published file; missing parents of to are created. to must not
 * exist unless replace (XB_E_TARGET); from must (XB_E_MISSING_FILE). */
int xb_sink_dir_rename(xb_sink *s, const char *from, const char *to, bool replace, xb_error *err);

#endif
