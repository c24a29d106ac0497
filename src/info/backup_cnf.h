/*
 * backup_cnf.h - backup-my.cnf, the server settings a backup was taken
 * with that its files depend on, as an option file with one [mysqld]
 * group: innodb_checksum_algorithm, innodb_data_file_path (file names only:
 * the files are at the top of the backup), innodb_log_file_size,
 * innodb_page_size, innodb_undo_directory, innodb_undo_tablespaces,
 * innodb_compression_level. Written by --backup in mariabackup's layout;
 * read by --prepare (the system tablespace files, the compression level),
 * --copy-back (where the system tablespace files go) and the warm restart
 * (the page size, the tablespaces), all through xb_backup_cnf_read().
 */
#ifndef XB_INFO_BACKUP_CNF_H
#define XB_INFO_BACKUP_CNF_H

#include <stdint.h>

#include "common/error.h"
#include "info/metafile.h"

#define XB_BACKUP_CNF_FILE "backup-my.cnf"

/* Bits of xb_backup_cnf.have: the settings the file holds. */
enum {
	XB_CNF_CHECKSUM_ALGORITHM = 1,
	XB_CNF_DATA_FILE_PATH = 2,
	XB_CNF_LOG_FILE_SIZE = 4,
	XB_CNF_PAGE_SIZE = 8,
	XB_CNF_UNDO_DIRECTORY = 16,
	XB_CNF_UNDO_TABLESPACES = 32,
	XB_CNF_COMPRESSION_LEVEL = 64,
};

typedef struct xb_backup_cnf {
	char checksum_algorithm[64];  /* innodb_checksum_algorithm */
	char data_file_path[4096];    /* innodb_data_file_path, as the backup's files are named */
	uint64_t log_file_size;       /* innodb_log_file_size, bytes */
	uint32_t page_size;           /* innodb_page_size, bytes */
	char undo_directory[256];     /* innodb_undo_directory ("./": the top of the backup) */
	int undo_tablespaces;         /* innodb_undo_tablespaces */
	int compression_level;        /* innodb_compression_level */
	unsigned have;                /* XB_CNF_* bits of the settings read (the writer writes them all) */
} xb_backup_cnf;

/* The file's text: the header comments, [mysqld], then one name=value line
 * per setting in the order above (put into the backup's sink with
 * xb_metafile_put()). */
void xb_backup_cnf_format(const xb_backup_cnf *c, xb_text *t);

/* Read dir/backup-my.cnf with the option-file reader (config/mycnf.h: its
 * syntax, the last value of a setting wins; other settings are ignored).
 * XB_E_MISSING_FILE when there is none; a syntax error is XB_E_CONFIG
 * naming the file and the line, and so is a size or a number that does not
 * parse ("PATH: line N: bad value of innodb_page_size, got "x""). */
int xb_backup_cnf_read(const char *dir, xb_backup_cnf *c, xb_error *err);

#endif
