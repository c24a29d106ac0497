/*
 * galera_info.h - xtrabackup_galera_info, written by --backup --galera-info
 * on a Galera node: the cluster state UUID and the last committed seqno,
 * "UUID:SEQNO\n", from which a joiner restored from the backup knows where
 * it stands.
 */
#ifndef XB_INFO_GALERA_INFO_H
#define XB_INFO_GALERA_INFO_H

#include <stddef.h>

#include "common/error.h"
#include "info/metafile.h"

#define XB_GALERA_INFO_FILE "xtrabackup_galera_info"

typedef struct xb_galera_info {
	char uuid[128];  /* wsrep_local_state_uuid */
	char seqno[64];  /* wsrep_last_committed as the server gives it (decimal, -1: none) */
} xb_galera_info;

/* "UUID:SEQNO\n" (put into the backup's sink with xb_metafile_put()). */
void xb_galera_info_format(const xb_galera_info *g, xb_text *t);

/* Read dir/xtrabackup_galera_info: one line, a UUID without ':', a ':'
 * and a decimal seqno (a '-' allowed). XB_E_MISSING_FILE when there is none, XB_E_IO_READ
 * "PATH: line N: ..." otherwise. */
int xb_galera_info_read(const char *dir, xb_galera_info *g, xb_error *err);

#endif
