/*
 * inc_pending.h - xtrabackup_incremental_pending, the file that says an
 * incremental backup is being applied to a prepared full backup
 * (doc/incremental.md §2).
 *
 * --prepare --incremental-dir writes it into the full backup, durably,
 * before its first change, and removes it last, after xtrabackup_checkpoints
 * says the backup is prepared up to the incremental. While it is there the
 * backup is half way between two consistent states: --prepare without that
 * incremental, --copy-back and --move-back refuse it, naming the
 * incremental and the command that completes the apply. Lines are
 * "key = value": incremental_dir (as given), from_lsn, to_lsn, and once
 * every file is written, just before xtrabackup_checkpoints is rewritten,
 * done = 1 and last_lsn: what that file gets, so a run killed between the
 * two finishes by rewriting it.
 */
#ifndef XB_INFO_INC_PENDING_H
#define XB_INFO_INC_PENDING_H

#include <stdbool.h>

#include "common/error.h"

#define XB_INC_PENDING_FILE "xtrabackup_incremental_pending"

typedef struct xb_inc_pending {
	char inc_dir[4096];           /* the incremental directory, as given to --incremental-dir */
	unsigned long long from_lsn;  /* its from_lsn */
	unsigned long long to_lsn;    /* its to_lsn */
	bool done;                    /* every file written: only xtrabackup_checkpoints is left to rewrite */
	unsigned long long last_lsn;  /* with done: the last_lsn it gets */
} xb_inc_pending;

/* Write dir's file (temporary name, fsync, rename, fsync of dir). */
int xb_inc_pending_write(const char *dir, const xb_inc_pending *p, xb_error *err);

/* Read dir's file: 0 and *found false when there is none, XB_E_TARGET
 * naming the file when it cannot be parsed. */
int xb_inc_pending_read(const char *dir, xb_inc_pending *p, bool *found, xb_error *err);

/* Remove dir's file (none is fine), then fsync dir. */
int xb_inc_pending_remove(const char *dir, xb_error *err);

/* XB_E_NOT_PREPARED for command on dir when an incremental is being applied
 * to it: the message names the incremental, the hint the command that
 * completes it; 0 when none is (or the file cannot be read: the error). */
int xb_inc_pending_refuse(const char *dir, const char *command, xb_error *err);

#endif
