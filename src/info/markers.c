/*
 * markers.c - names and content of the DDL markers (see markers.h).
 */
#include "info/markers.h"

#include <stdio.h>
#include <string.h>

#include "common/path.h"
#include "info/metafile.h"

#define TABLESPACE ".ibd" /* the file-per-table tablespace a marker stands for */

int xb_marker_name(char *out, size_t n, const char *rel, const char *ext, xb_error *err)
{
	size_t l = strlen(rel);
	if (xb_path_has_suffix(rel, TABLESPACE))
		l -= strlen(TABLESPACE);
	int k = snprintf(out, n, "%.*s%s", (int)l, rel, ext);
	if (k < 0 || (size_t)k >= n) {
		if (n)
			out[0] = '\0';
		return xb_err_set(err, XB_E_USAGE, "marker name too long: %.*s%s", (int)l, rel, ext);
	}
	return 0;
}

int xb_marker_tablespace(char *out, size_t n, const char *dir, const char *marker, xb_error *err)
{
	const char *dot = strrchr(marker, '.');
	char base[4096];
	int len = dot ? (int)(dot - marker) : (int)strlen(marker);
	if (!xb_span_copy((xb_span){marker, (size_t)len}, base, sizeof base))
		return xb_err_set(err, XB_E_USAGE, "marker name too long: %s", marker);
	return xb_path_join3(out, n, dir, base, TABLESPACE, err);
}

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
	return xb_path_join3(r->out, r->n, r->dir, name, TABLESPACE, err);
}

int xb_marker_ren_read(const char *dir, const char *marker, char *out, size_t n, xb_error *err)
{
	ren_target r = {dir, out, n};
	int rc = xb_metafile_load(dir, marker, parse_ren, &r, err);
	if (rc == XB_E_MISSING_FILE)
		rc = xb_err_set(err, XB_E_IO_READ, "cannot read the rename marker %s/%s", dir, marker);
	return rc;
}
