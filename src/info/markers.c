/*
 * markers.c - the .del marker's writer and the .ren marker's reader (see
 * markers.h).
 */
#include "info/markers.h"

#include <string.h>

#include "info/metafile.h"
#include "innodb/inventory.h"

int xb_marker_put_del(xb_sink *s, const char *marker, xb_error *err)
{
	return xb_sink_put(s, marker, "", 0, err);
}

/* What a .ren marker's parser fills. */
typedef struct ren_target {
	const char *dir; /* the backup */
	char *out;       /* the tablespace's new path */
	size_t n;        /* its size */
} ren_target;

static int parse_ren(xb_lines *l, void *value, xb_error *err)
{
	ren_target *r = value;
	xb_span line;
	char name[4096];
	if (!xb_lines_next(l, &line))
		return xb_err_set(err, XB_E_IO_READ, "cannot read the rename marker %s", l->name);
	if (!line.n || line.s[0] == '/' || memmem(line.s, line.n, "..", 2) || !xb_span_copy(line, name, sizeof name))
		return xb_lines_error(l, XB_E_TARGET, line, err, "rename marker holds an unusable name");
	return inv_table_file(r->out, r->n, r->dir, name, err);
}

int xb_marker_ren_read(const char *dir, const char *marker, char *out, size_t n, xb_error *err)
{
	ren_target r = {dir, out, n};
	int rc = xb_metafile_load(dir, marker, parse_ren, &r, err);
	if (rc == XB_E_MISSING_FILE)
		rc = xb_err_set(err, XB_E_IO_READ, "cannot read the rename marker %s/%s", dir, marker);
	return rc;
}
