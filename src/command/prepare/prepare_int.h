/*
 * prepare_int.h - what the files of the --prepare command share.
 *
 * prepare.c runs the sequence (checks, lock, DDL markers, InnoDB recovery,
 * metadata), cnf.c reads the settings of backup-my.cnf, markers.c carries out the .del/.ren/.new markers a backup
 * leaves for DDL that ran during the copy, report.c prints the recovery
 * statistics and writes them as JSON.
 */
#ifndef XB_PREPARE_INT_H
#define XB_PREPARE_INT_H

#include <stdio.h>

#include "common/error.h"
#include "innodb/recovery/driver.h"

/* Apply the DDL markers under dir: X.del deletes X.ibd, X.ren renames X.ibd to
 * the name it holds, X.new replaces X.ibd. Each marker is removed once done, so
 * an interrupted run can be repeated. *n receives how many were applied. */
int markers_apply(const char *dir, int *n, xb_error *err);

/* innodb_data_file_path (*data_file_path: malloc'd, or left NULL for the
 * server's default) and innodb_compression_level (*level, left as it is when
 * not given) from dir/backup-my.cnf. A file missing, unreadable or lacking
 * one is a warning naming it; XB_E_CONFIG naming the setting needed when the
 * default does not fit the backup (page size, system tablespace files). */
int prepare_backup_cnf(const char *dir, char **data_file_path, int *level, xb_error *err);

/* The statistics as log lines. */
void report_log(const recovery_stats *st);

/* The statistics as a JSON object (to a file). */
int report_json(const recovery_stats *st, const char *path, xb_error *err);

#endif
