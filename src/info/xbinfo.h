/*
 * xbinfo.h - xtrabackup_info, the description of a backup: which tool took
 * it and how (the command line, secrets masked), from which server, when,
 * how long commits were blocked, the binary log position, the LSN range and
 * the format (stream, compression, encryption). One "key = value" line each,
 * in mariabackup's order and spelling. Written by --backup; nothing of ours
 * depends on it, so the reader skips keys it does not know.
 */
#ifndef XB_INFO_XBINFO_H
#define XB_INFO_XBINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "common/error.h"
#include "info/binlog_info.h"
#include "info/metafile.h"

#define XB_XBINFO_FILE "xtrabackup_info"

typedef struct xb_xbinfo {
	char uuid[64];              /* random UUID naming the backup */
	char name[256];             /* the backup's name ("" : none) */
	char tool_name[64];         /* "xtrabackup" */
	const char *tool_command;   /* command line, secrets masked (NULL: ""); the reader's copy is malloc'ed */
	char tool_version[64];      /* our version */
	char ibbackup_version[64];  /* the same, for mariabackup's readers */
	char server_version[128];   /* SELECT VERSION() */
	time_t start_time;          /* local time, written to the second */
	time_t end_time;            /* idem */
	double lock_time;           /* seconds commits were blocked (written rounded) */
	bool has_binlog;            /* binlog holds the binary log position ("binlog_pos = " when not) */
	xb_binlog_info binlog;      /* file, position, GTID */
	unsigned long long from_lsn; /* innodb_from_lsn: 0 for a full backup */
	unsigned long long to_lsn;  /* innodb_to_lsn */
	bool partial;               /* partial = Y */
	bool incremental;           /* incremental = Y */
	char format[16];            /* file, xbstream or tar */
	bool compressed;            /* compressed = compressed (else N) */
	bool encrypted;             /* encrypted = Y */
} xb_xbinfo;

/* The file's text (put into the backup's sink with xb_metafile_put()). */
void xb_xbinfo_format(const xb_xbinfo *x, xb_text *t);

/* The value of one key ("binlog_pos") appended to t as the file writes it;
 * false, nothing appended, for a key the file does not have. */
bool xb_xbinfo_value(const xb_xbinfo *x, const char *key, xb_text *t);

/* Read dir/xtrabackup_info into *x (zeroed first; free it with
 * xb_xbinfo_free(), also after an error). Lines are "key = value"; blank
 * lines and unknown keys are skipped. XB_E_MISSING_FILE when there is none,
 * XB_E_IO_READ "PATH: line N: ..." for a line of another form or a value
 * that does not parse. */
int xb_xbinfo_read(const char *dir, xb_xbinfo *x, xb_error *err);

/* Free what the reader allocated. */
void xb_xbinfo_free(xb_xbinfo *x);

#endif
