/*
 * galera_info.c - xtrabackup_galera_info (see galera_info.h).
 */
#include "info/galera_info.h"

#include <string.h>

void xb_galera_info_format(const xb_galera_info *g, xb_text *t)
{
	xb_text_add(t, "%s:%s\n", g->uuid, g->seqno);
}

static bool fields(const xb_span *f, size_t k, void *value)
{
	xb_galera_info *g = value;
	int64_t seqno;
	return k == 2 && f[0].n && xb_span_copy(f[0], g->uuid, sizeof g->uuid) && xb_span_i64(f[1], &seqno) &&
	       xb_span_copy(f[1], g->seqno, sizeof g->seqno);
}

int xb_galera_info_read(const char *dir, xb_galera_info *g, xb_error *err)
{
	memset(g, 0, sizeof *g);
	return xb_metafile_load_line(dir, XB_GALERA_INFO_FILE, ':', 2, fields, "\"UUID:SEQNO\"", g, err);
}
