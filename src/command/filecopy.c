/*
 * filecopy.c - one file's bytes into another, holes kept (see filecopy.h).
 */
#include "command/filecopy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "command/command.h"
#include "platform/file.h"

#define CHUNK (8u << 20) /* bytes per copy call, between stop checks */

static void advance(volatile uint64_t *progress, uint64_t n)
{
	if (progress && n)
		__atomic_fetch_add(progress, n, __ATOMIC_RELAXED);
}

/* [off, off+n) of in to out at the same offset. */
static int copy_run(int in, int out, off_t off, uint64_t n, const char *src, const char *dst, volatile uint64_t *progress,
		    char **bufp, xb_error *err)
{
	bool in_kernel = true;
	while (n) {
		if (command_interrupted(err))
			return XB_E_INTERRUPTED;
		size_t want = n > CHUNK ? CHUNK : (size_t)n;
		ssize_t k;
		if (in_kernel) {
			off_t ioff = off, ooff = off;
			k = xb_file_copy_range(in, &ioff, out, &ooff, want);
			if (k < 0 && xb_file_copy_unsupported(errno)) {
				in_kernel = false;
				continue;
			}
		} else {
			if (!*bufp && !(*bufp = malloc(CHUNK)))
				return xb_err_set(err, XB_E_INTERNAL, "out of memory");
			k = xb_file_pread_all(in, *bufp, want, off);
			/* a short write, then the error that stopped it (ENOSPC) */
			if (k > 0 && xb_file_pwrite_all(out, *bufp, (size_t)k, off))
				return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", dst, strerror(errno));
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return xb_err_set(err, XB_E_IO_WRITE, "cannot copy %s to %s: %s", src, dst, strerror(errno));
		if (k == 0)
			return xb_err_set(err, XB_E_IO_READ, "%s shrank while it was copied", src);
		off += k;
		n -= (uint64_t)k;
		advance(progress, (uint64_t)k);
	}
	return 0;
}

int filecopy_data(int in, int out, const char *src, const char *dst, volatile uint64_t *progress, xb_error *err)
{
	off_t size = xb_file_size(in);
	if (size < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot stat %s: %s", src, strerror(errno));
	char *buf = NULL; /* only when the kernel cannot copy */
	int rc = 0;
	off_t pos = 0;
	while (!rc && pos < size) {
		off_t data, hole;
		if (xb_file_next_data(in, pos, size, &data, &hole))
			break; /* only a hole is left */
		advance(progress, (uint64_t)(data - pos));
		rc = copy_run(in, out, data, (uint64_t)(hole - data), src, dst, progress, &buf, err);
		pos = hole;
	}
	free(buf);
	if (!rc)
		advance(progress, (uint64_t)(size - pos));
	if (!rc && xb_file_truncate(out, size))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot set the size of %s: %s", dst, strerror(errno));
	if (!rc && xb_file_sync(out, false))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot fsync %s: %s", dst, strerror(errno));
	return rc;
}
