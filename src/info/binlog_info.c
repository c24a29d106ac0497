/*
 * binlog_info.c - xtrabackup_binlog_info and xtrabackup_binlog_pos_innodb
 * (see binlog_info.h). Fields are separated by exactly one tab, as every
 * tool writes them; a file name never holds one.
 */
#include "info/binlog_info.h"

#include <string.h>

void xb_binlog_info_format(const xb_binlog_info *b, xb_text *t)
{
	if (b->gtid[0])
		xb_text_add(t, "%s\t%llu\t%s\n", b->file, b->pos, b->gtid);
	else
		xb_text_add(t, "%s\t%llu\n", b->file, b->pos);
}

int xb_binlog_pos_innodb_write(const char *dir, const xb_binlog_info *b, xb_error *err)
{
	xb_binlog_info pos = *b;
	pos.gtid[0] = '\0';
	xb_text t = {0};
	xb_binlog_info_format(&pos, &t);
	int rc = xb_metafile_rewrite(dir, XB_BINLOG_POS_INNODB_FILE, &t, err);
	xb_text_free(&t);
	return rc;
}

static bool fields(const xb_span *f, size_t k, void *value)
{
	xb_binlog_info *b = value;
	uint64_t pos;
	if (k < 2 || !f[0].n || !xb_span_u64(f[1], &pos) || !xb_span_copy(f[0], b->file, sizeof b->file) ||
	    (k == 3 && !xb_span_copy(f[2], b->gtid, sizeof b->gtid)))
		return false;
	b->pos = pos;
	return true;
}

int xb_binlog_info_read(const char *dir, xb_binlog_info *b, xb_error *err)
{
	memset(b, 0, sizeof *b);
	return xb_metafile_load_line(dir, XB_BINLOG_INFO_FILE, '\t', 3, fields, "\"FILE<tab>POSITION[<tab>GTID]\"", b,
				     err);
}
