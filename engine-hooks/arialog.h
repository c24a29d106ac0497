/*
 * arialog.h - which Aria log files a backup needs, from the server's own word.
 *
 * The Aria engine writes its transaction log as aria_log.NNNNNNNN files (a
 * number of eight digits, counting up from 1) beside aria_log_control, which
 * records the last checkpoint. Recovery reads the log from the first file
 * that checkpoint still needs; files before it are left on disk only when the
 * server runs with aria_log_purge_type=external (or at_flush) and are not
 * part of a backup: mariabackup --prepare drops them, so neither a backup
 * prepared by it nor the server restored from it has them.
 *
 * The server says which files are still needed: SHOW ENGINE aria logs gives
 * one row per file, its Name column "Size N ; <path>/aria_log.NNNNNNNN" and
 * its Status "free" (before the first file the last checkpoint needs), "in
 * use", "unknown" (no checkpoint yet since the start) or "can't stat". The
 * answer only moves forward: a later checkpoint needs the same files or
 * fewer. A backup keeps every file from the first one that is not "free"
 * on; when anything is unclear (no row, a row that cannot be read, a
 * "free" file after one that is needed) it keeps them all.
 */
#ifndef XB_ARIALOG_H
#define XB_ARIALOG_H

#include <stdbool.h>
#include <stdint.h>

/* The number of aria_log.NNNNNNNN, 0 for any other name (aria_log_control). */
uint32_t arialog_number(const char *name);

/* The name of log file number no, into out (ARIALOG_NAME_SIZE bytes). */
#define ARIALOG_NAME_SIZE 32
void arialog_name(uint32_t no, char *out);

/* What the rows of SHOW ENGINE aria logs say, fed one by one. */
typedef struct arialog_needed {
	uint32_t max_free;       /* highest file number whose status is "free", 0: none */
	uint32_t min_used;       /* lowest file number with any other status, 0: none */
	unsigned rows;           /* rows seen */
	bool unclear;            /* a row that could not be read: keep every file */
} arialog_needed;

/* One row: its Name and Status columns (either may be NULL). */
void arialog_needed_row(arialog_needed *n, const char *name, const char *status);

/* The first file number to keep: every file from it on belongs in the
 * backup. 0 means keep every file (nothing is known to be free). */
uint32_t arialog_first_needed(const arialog_needed *n);

#endif
