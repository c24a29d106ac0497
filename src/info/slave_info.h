/*
 * slave_info.h - xtrabackup_slave_info, written by --backup --slave-info on
 * a replica: the SQL that points a new replica at the same primary, one
 * CHANGE MASTER statement per replication connection (SHOW ALL SLAVES
 * STATUS order), in mariabackup's format:
 *   SET GLOBAL gtid_slave_pos = 'GTID';            (optional, first)
 *   CHANGE MASTER ['NAME' ]TO master_use_gtid = slave_pos;
 *   CHANGE MASTER ['NAME' ]TO MASTER_LOG_FILE='FILE', MASTER_LOG_POS=N;
 * --copy-back reads it to show that SQL at the end.
 */
#ifndef XB_INFO_SLAVE_INFO_H
#define XB_INFO_SLAVE_INFO_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "info/metafile.h"

#define XB_SLAVE_INFO_FILE "xtrabackup_slave_info"

/* One replication connection. */
typedef struct xb_slave_channel {
	char name[256];          /* Connection_name; "" for the default connection */
	bool use_gtid;           /* replicates by GTID (master_use_gtid = slave_pos) */
	char file[512];          /* by position: Relay_Master_Log_File */
	unsigned long long pos;  /* by position: Exec_Master_Log_Pos */
} xb_slave_channel;

typedef struct xb_slave_info {
	bool has_gtid_slave_pos;  /* the SET GLOBAL gtid_slave_pos line comes first */
	char gtid_slave_pos[4096]; /* @@gtid_slave_pos */
	xb_slave_channel *ch;     /* the connections, malloc'ed */
	size_t n;                 /* how many */
} xb_slave_info;

/* Append a connection. XB_E_INTERNAL when out of memory. */
int xb_slave_info_add(xb_slave_info *si, const xb_slave_channel *ch, xb_error *err);

void xb_slave_info_free(xb_slave_info *si);

/* Set each connection's form as mariabackup 10.11 does, once all are added
 * with use_gtid saying whether the connection replicates by GTID (Using_Gtid
 * other than No): by GTID only when gtid_slave_pos (@@gtid_slave_pos) is not
 * empty, else by file and position (a replica that never applied a GTID event
 * has no GTID to start from). The SET GLOBAL gtid_slave_pos line comes first
 * when any connection is written by GTID. */
void xb_slave_info_settle(xb_slave_info *si, const char *gtid_slave_pos);

/* The file's text (the lines above, each ending in "\n"; put into the
 * backup's sink with xb_metafile_put()). */
void xb_slave_info_format(const xb_slave_info *si, xb_text *t);

/* One line for the backup's log, mariabackup's summary of the same facts
 * (scripts grep it): "MySQL slave binlog position: [gtid_slave_pos 'GTID'; ]
 * master 'NAME' master_use_gtid = slave_pos; master 'NAME' filename 'FILE'
 * position 'N'", the connections joined by "; ". */
void xb_slave_info_describe(const xb_slave_info *si, xb_text *t);

/* Read dir/xtrabackup_slave_info into *si (zeroed first; free it with
 * xb_slave_info_free(), also after an error). Every non-blank line must be
 * one of the statements above. XB_E_MISSING_FILE when there is none,
 * XB_E_IO_READ "PATH: line N: ..." otherwise. */
int xb_slave_info_read(const char *dir, xb_slave_info *si, xb_error *err);

#endif
