/*
 * binlog_info.h - xtrabackup_binlog_info, the binary log position of the
 * backup point: "FILE\tPOSITION\tGTID\n" (mariabackup's format; without a
 * GTID, "FILE\tPOSITION\n"), written by --backup when the server logs
 * binary logs and read by --copy-back to say how to make the restored server
 * a replica. Also xtrabackup_binlog_pos_innodb, the same line without GTID
 * that --prepare writes: the position InnoDB recovered.
 */
#ifndef XB_INFO_BINLOG_INFO_H
#define XB_INFO_BINLOG_INFO_H

#include <stddef.h>

#include "common/error.h"
#include "info/metafile.h"

#define XB_BINLOG_INFO_FILE "xtrabackup_binlog_info"
#define XB_BINLOG_POS_INNODB_FILE "xtrabackup_binlog_pos_innodb"

typedef struct xb_binlog_info {
	char file[520];          /* binary log file (SHOW MASTER STATUS File; InnoDB keeps up to 512 bytes) */
	unsigned long long pos;  /* position in it */
	char gtid[4096];         /* gtid_current_pos; "" for none */
} xb_binlog_info;

/* "FILE\tPOS\tGTID\n", or "FILE\tPOS\n" when gtid is "" (put into the
 * backup's sink with xb_metafile_put()). */
void xb_binlog_info_format(const xb_binlog_info *b, xb_text *t);

/* Read dir/xtrabackup_binlog_info: one line of two or three tab-separated
 * fields, a file name, a decimal position and an optional GTID list.
 * XB_E_MISSING_FILE when there is none, XB_E_IO_READ "PATH: line N: ..."
 * for anything else. */
int xb_binlog_info_read(const char *dir, xb_binlog_info *b, xb_error *err);

/* Write dir/xtrabackup_binlog_pos_innodb ("FILE\tPOS\n", b->gtid not
 * written) safely in place (xb_metafile_rewrite). */
int xb_binlog_pos_innodb_write(const char *dir, const xb_binlog_info *b, xb_error *err);

#endif
