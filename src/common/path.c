/*
 * path.c - path joining that refuses to truncate (see path.h).
 *
 * snprintf() does the formatting; its return value, the length the whole
 * path would have had, is what tells a path that fits from one that does not.
 */
#include "common/path.h"

#include <stdio.h>
#include <string.h>

static int too_long(char *out, size_t n, int k, const char *what, xb_error *err)
{
	if (k >= 0 && (size_t)k < n)
		return 0;
	if (n)
		out[0] = '\0';
	return xb_err_set(err, XB_E_USAGE, "path too long (%d bytes, at most %zu): %s", k, n ? n - 1 : 0, what);
}

int xb_path_join(char *out, size_t n, const char *dir, const char *name, xb_error *err)
{
	int k = snprintf(out, n, "%s/%s", dir, name);
	if (k >= 0 && (size_t)k < n)
		return 0;
	char what[512];
	snprintf(what, sizeof what, "%s/%s", dir, name);
	return too_long(out, n, k, what, err);
}

int xb_path_join3(char *out, size_t n, const char *dir, const char *name, const char *ext, xb_error *err)
{
	int k = snprintf(out, n, "%s/%s%s", dir, name, ext);
	if (k >= 0 && (size_t)k < n)
		return 0;
	char what[512];
	snprintf(what, sizeof what, "%s/%s%s", dir, name, ext);
	return too_long(out, n, k, what, err);
}

int xb_path_resolve(char *out, size_t n, const char *base, const char *path, xb_error *err)
{
	int k;
	if (path[0] == '/')
		k = snprintf(out, n, "%s", path);
	else if (!strcmp(path, ".") || !strcmp(path, "./"))
		k = snprintf(out, n, "%s", base);
	else
		k = snprintf(out, n, "%s/%s", base, path[0] == '.' && path[1] == '/' ? path + 2 : path);
	if (k < 0 || (size_t)k >= n)
		return too_long(out, n, k, path, err);
	while (k > 1 && out[k - 1] == '/')
		out[--k] = '\0';
	return 0;
}

bool xb_path_has_suffix(const char *s, const char *suffix)
{
	size_t l = strlen(s), m = strlen(suffix);
	return l > m && !memcmp(s + l - m, suffix, m);
}

const char *xb_path_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}
