/*
 * filerules.h - which non-InnoDB files of a datadir belong in a backup.
 *
 * A table's files are recognised by extension: the table definition and
 * trigger/partition/option files, MyISAM, CSV, ARCHIVE and MERGE tables
 * (copied under BACKUP STAGE BLOCK_DDL, when their writes are blocked), and
 * Aria tables (copied with the Aria logs under BLOCK_COMMIT so the Aria
 * recovery at prepare finds a consistent set). Anything else in a database
 * directory (temporary #sql files, InnoDB .ibd handled by the InnoDB hook)
 * is not copied by these rules.
 */
#ifndef XB_FILERULES_H
#define XB_FILERULES_H

#include <stdbool.h>

enum { FR_NONE, FR_PLAIN, FR_ARIA };

/* Classify a file name found in a database directory. */
int filerule_classify(const char *name);

/* aria_log_control or aria_log.NNNNNNNN */
bool filerule_is_aria_log(const char *name);

#endif
