/*
 * markers.h - the DDL markers of a backup: empty or one-line files next to
 * a tablespace, named after it, that tell --prepare how to bring the copy
 * to the table set of the backup point (mariabackup's convention):
 *   X.del  the copy X.ibd is stale (dropped or rebuilt during the backup):
 *          delete it. Empty. Written by --backup (ddl.c).
 *   X.ren  X.ibd was renamed; the marker holds the new name "db/table".
 *          Written by mariabackup only.
 *   X.new  a fresh copy of the tablespace taken under BLOCK_DDL: it becomes
 *          X.ibd. Written by --backup as the copy itself.
 * This module owns the endings, the writer of the .del marker and the reader
 * of the .ren marker; the name of a marker is made from its tablespace's,
 * and back, by the inventory (innodb/inventory.h: inv_marker_name(),
 * inv_table_file_of()), which knows how tables' files are named; markers.c
 * in the prepare carries them out.
 */
#ifndef XB_INFO_MARKERS_H
#define XB_INFO_MARKERS_H

#include <stddef.h>

#include "common/error.h"
#include "sink/sink.h"

#define XB_MARKER_DEL ".del"
#define XB_MARKER_REN ".ren"
#define XB_MARKER_NEW ".new"

/* Write the empty .del marker (its name from inv_marker_name()) into s. */
int xb_marker_put_del(xb_sink *s, const char *marker, xb_error *err);

/* Read the .ren marker dir/marker: where the tablespace goes, as a path
 * under dir ("db/t2" -> "DIR/db/t2.ibd", by inv_table_file()). The first
 * line is the name; an empty, absolute or ".." name is refused: XB_E_TARGET
 * "PATH: line 1: ..."; a file that cannot be read or is empty, XB_E_IO_READ. */
int xb_marker_ren_read(const char *dir, const char *marker, char *out, size_t n, xb_error *err);

#endif
