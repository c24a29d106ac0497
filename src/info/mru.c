/*
 * mru.c - where the MRU copy of the buffer-pool dump lives, and its writer
 * (see mru.h).
 */
#include "info/mru.h"

#include "common/path.h"

int xb_mru_path(char *out, size_t n, const char *dir, xb_error *err)
{
	return xb_path_join(out, n, dir, XB_MRU_FILE, err);
}

int xb_mru_write(const char *dir, const bp_dump *d, xb_error *err)
{
	char path[4096];
	int rc = xb_mru_path(path, sizeof path, dir, err);
	return rc ? rc : bp_write_file(path, d, BP_FORMAT_TEXT, err);
}
