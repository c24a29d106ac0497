/*
 * trxsys.h - what the system tablespace tells after recovery: the binary log
 * position of the last transaction InnoDB committed.
 *
 * MariaDB 10.11 stores, in the header of every rollback segment, the binlog
 * file name and offset of the last transaction committed through it. The
 * TRX_SYS page (page 5 of the system tablespace) lists the rollback segment
 * header pages; the recovered position is the greatest (file name, offset)
 * among them. mariabackup --prepare writes it to xtrabackup_binlog_pos_innodb.
 */
#ifndef XB_INNODB_TRXSYS_H
#define XB_INNODB_TRXSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "innodb/spaces.h"

/* Fill name (as the server recorded it, e.g. "./mysql-bin.000001") and offset.
 * Returns 0 and sets *found (false when no rollback segment holds a position:
 * binary logging off); an error only when the pages cannot be read. */
int trxsys_binlog_pos(spaces *s, char *name, size_t namelen, uint64_t *offset, bool *found, xb_error *err);

#endif
