/*
 * export_pending.h - xtrabackup_export_pending, the file that says a
 * --prepare --export is under way on a prepared backup (doc/export.md §5).
 *
 * The export starts the installed server on the backup, which rolls back
 * and purges in the datafiles and rewrites the redo log and Aria's logs: from
 * then until the manifest describes the result, the files differ from the
 * manifest without being damaged. The file is written (durably) before the
 * server starts and removed last, after the manifest is rewritten. While it
 * is there, --prepare without --export, --copy-back, --move-back and
 * --verify refuse the backup, naming the command that completes the export;
 * --prepare --export runs the export again and then describes what it finds.
 * Its one line "started = YYYY-MM-DD HH:MM:SS" is for the reader.
 */
#ifndef XB_INFO_EXPORT_PENDING_H
#define XB_INFO_EXPORT_PENDING_H

#include <stdbool.h>

#include "common/error.h"

#define XB_EXPORT_PENDING_FILE "xtrabackup_export_pending"

/* Write dir's file (temporary name, fsync, rename, fsync of dir). */
int xb_export_pending_write(const char *dir, xb_error *err);

/* Is there one in dir? */
bool xb_export_pending_found(const char *dir);

/* Remove dir's file (none is fine), then fsync dir. */
int xb_export_pending_remove(const char *dir, xb_error *err);

/* XB_E_NOT_PREPARED for command on dir while an export is under way there,
 * the hint naming the command that completes it; 0 when none is. */
int xb_export_pending_refuse(const char *dir, const char *command, xb_error *err);

#endif
