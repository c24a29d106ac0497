/*
 * journal.c - the prepare journal (journal.h; its layout is doc/prepare-journal.md).
 *
 * The file is a 512-byte header followed by records. Workers reserve a
 * record's place with one atomic add on the end offset and write it there,
 * so appends from several threads never wait on each other. A record is a
 * 24-byte head (magic, name length, data length, CRC-32C, file offset),
 * the file's name relative to the backup directory and the run of page
 * images. The header, written last and alone, holds the number of records,
 * the end offset and its own CRC-32C: a header that does not check out
 * means the batch was never committed, so none of it was written in place.
 * Applying reads the records back in order (from the page cache: they
 * were just written), writes each at its place, keeps the files it wrote
 * open and fsyncs them all at the end, before the header is cleared.
 */
#include "innodb/recovery/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/path.h"
#include "innodb/crc32c.h"
#include "platform/file.h"

#define HEADER_BYTES 512u
#define HEADER_MAGIC "XBPJRNL1"
#define REC_MAGIC 0x58424a52u /* "XBJR" */
#define REC_HEAD 24u
#define REC_MAX_DATA (16u << 20)

uint64_t journal_bound(uint64_t n_pages, uint64_t page_bytes)
{
	/* at worst one record per page, each with a head and a name */
	return HEADER_BYTES + page_bytes + n_pages * (REC_HEAD + 512u);
}

static int write_all(int fd, const void *buf, size_t n, off_t off)
{
	const uint8_t *p = buf;
	size_t done = 0;
	while (done < n) {
		ssize_t k = pwrite(fd, p + done, n - done, off + (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		done += (size_t)k;
	}
	return 0;
}

static int read_exact(int fd, void *buf, size_t n, off_t off)
{
	uint8_t *p = buf;
	size_t done = 0;
	while (done < n) {
		ssize_t k = pread(fd, p + done, n - done, off + (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = ENODATA;
			return -1;
		}
		done += (size_t)k;
	}
	return 0;
}

/* The files a replay or an apply wrote to, kept open to fsync them at the end. */
typedef struct targets {
	char **names;
	int *fds;
	size_t n, cap;
} targets;

static int target_fd(targets *t, const char *dir, const char *name, xb_error *err)
{
	for (size_t i = t->n; i-- > 0;)
		if (!strcmp(t->names[i], name))
			return t->fds[i];
	char path[4200];
	if (name[0] == '/') {
		if (strlen(name) >= sizeof path) {
			xb_err_set(err, XB_E_INTERNAL, "name too long: %s", name);
			return -1;
		}
		memcpy(path, name, strlen(name) + 1);
	} else if (xb_path_join(path, sizeof path, dir, name, err))
		return -1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **nn = realloc(t->names, cap * sizeof *nn);
		if (nn)
			t->names = nn;
		int *nf = realloc(t->fds, cap * sizeof *nf);
		if (nf)
			t->fds = nf;
		if (!nn || !nf) {
			xb_err_set(err, XB_E_INTERNAL, "out of memory");
			return -1;
		}
		t->cap = cap;
	}
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_WRITE, 0, NULL);
	if (fd < 0) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot open %s for writing: %s", path, strerror(errno));
		return -1;
	}
	t->names[t->n] = strdup(name);
	if (!t->names[t->n]) {
		close(fd);
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return -1;
	}
	t->fds[t->n++] = fd;
	return fd;
}

/* fsync (when sync) and close every target; the first failed fsync is the error. */
static int targets_close(targets *t, const char *dir, bool sync, xb_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (sync && !rc && fsync(t->fds[i]))
			rc = xb_err_set(err, XB_E_IO_WRITE, "fsync %s/%s: %s", dir, t->names[i], strerror(errno));
		close(t->fds[i]);
		free(t->names[i]);
	}
	free(t->names);
	free(t->fds);
	memset(t, 0, sizeof *t);
	return rc;
}

static const char *hint_rerun(void)
{
	return "free space (or mend the cause) and run --prepare again: it first rewrites these pages from "
	       JOURNAL_NAME;
}

/* Write the records [HEADER_BYTES, end) of the journal fd in place under dir and fsync them. */
static int apply_records(int fd, const char *jpath, const char *dir, uint64_t end, uint64_t records,
			 uint64_t *bytes, xb_error *err)
{
	targets t = {0};
	uint8_t *buf = malloc(REC_MAX_DATA);
	if (!buf)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	int rc = 0;
	uint64_t pos = HEADER_BYTES, n = 0;
	*bytes = 0;
	while (!rc && n < records) {
		uint8_t h[REC_HEAD];
		char name[4097];
		if (pos + REC_HEAD > end || read_exact(fd, h, REC_HEAD, (off_t)pos)) {
			rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: record %llu at byte %llu is cut short", jpath,
					(unsigned long long)n, (unsigned long long)pos);
			break;
		}
		uint32_t nlen = be16_get(h + 4), dlen = be32_get(h + 8), crc = be32_get(h + 12);
		uint64_t off = be64_get(h + 16);
		if (be32_get(h) != REC_MAGIC || !nlen || nlen >= sizeof name || dlen > REC_MAX_DATA ||
		    pos + REC_HEAD + nlen + dlen > end ||
		    read_exact(fd, name, nlen, (off_t)(pos + REC_HEAD)) ||
		    read_exact(fd, buf, dlen, (off_t)(pos + REC_HEAD + nlen))) {
			rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: record %llu at byte %llu is damaged", jpath,
					(unsigned long long)n, (unsigned long long)pos);
			break;
		}
		name[nlen] = 0;
		be32_put(h + 12, 0);
		uint32_t c = crc32c_update(crc32c_update(crc32c(h, REC_HEAD), name, nlen), buf, dlen);
		if (c != crc) {
			rc = xb_err_set(err, XB_E_CORRUPT_PAGE, "%s: record %llu (%s at byte %llu) fails its checksum",
					jpath, (unsigned long long)n, name, (unsigned long long)off);
			break;
		}
		int tfd = target_fd(&t, dir, name, err);
		if (tfd < 0) {
			rc = err && err->code ? err->code : XB_E_IO_WRITE;
			break;
		}
		if (xb_fault(XB_FAULT_PREPARE_PAGE_WRITE)) {
			/* a write cut at a 4 KiB boundary, as a full disk or a kill leaves it */
			(void)write_all(tfd, buf, dlen < 4096 ? dlen : 4096, (off_t)off);
			errno = ENOSPC;
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s at byte %llu: %s (fault point prepare-page-write)",
					name, (unsigned long long)off, strerror(errno));
			break;
		}
		if (write_all(tfd, buf, dlen, (off_t)off)) {
			rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write %s at byte %llu: %s", name,
					(unsigned long long)off, strerror(errno));
			break;
		}
		*bytes += dlen;
		pos += REC_HEAD + nlen + dlen;
		n++;
	}
	free(buf);
	int src = targets_close(&t, dir, !rc, rc ? NULL : err);
	if (!rc)
		rc = src;
	if (rc == XB_E_IO_WRITE)
		xb_err_hint(err, "%s", hint_rerun());
	return rc;
}

/* The committed header of fd: true with records and end when there is one. */
static bool header_read(int fd, uint64_t *records, uint64_t *end)
{
	uint8_t h[HEADER_BYTES];
	if (read_exact(fd, h, sizeof h, 0) || memcmp(h, HEADER_MAGIC, 8) || crc32c(h, 24) != be32_get(h + 24))
		return false;
	*records = be64_get(h + 8);
	*end = be64_get(h + 16);
	return *records > 0 && *end > HEADER_BYTES;
}

static int header_write(int fd, uint64_t records, uint64_t end)
{
	uint8_t h[HEADER_BYTES];
	memset(h, 0, sizeof h);
	if (records) {
		memcpy(h, HEADER_MAGIC, 8);
		be64_put(h + 8, records);
		be64_put(h + 16, end);
		be32_put(h + 24, crc32c(h, 24));
	}
	return write_all(fd, h, sizeof h, 0);
}

static int remove_journal(const char *path, const char *dir, xb_error *err)
{
	if (unlink(path) && errno != ENOENT)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot remove %s: %s", path, strerror(errno));
	if (xb_dir_sync(dir))
		return xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", dir, strerror(errno));
	return 0;
}

int journal_replay(const char *dir, uint64_t *bytes, xb_error *err)
{
	char path[4096];
	*bytes = 0;
	int rc = xb_path_join(path, sizeof path, dir, JOURNAL_NAME, err);
	if (rc)
		return rc;
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	uint64_t records, end;
	if (!header_read(fd, &records, &end)) {
		close(fd);
		xb_info("%s: a batch journaled by an interrupted prepare but never committed (none of it was written "
			"in place): removed", path);
		return remove_journal(path, dir, err);
	}
	xb_info("%s: %llu runs of pages of a batch an interrupted prepare had committed: writing them in place again",
		path, (unsigned long long)records);
	rc = apply_records(fd, path, dir, end, records, bytes, err);
	close(fd);
	if (rc == XB_E_CORRUPT_PAGE)
		return xb_err_hint(err, "the journal of an interrupted prepare is damaged: prepare a fresh copy of the "
					"backup");
	if (!rc)
		rc = remove_journal(path, dir, err);
	return rc;
}

int journal_begin(journal *j, const char *dir, uint64_t bound, bool *enospc, xb_error *err)
{
	*enospc = false;
	if (j->fd < 0) {
		int rc = xb_path_join(j->path, sizeof j->path, dir, JOURNAL_NAME, err);
		if (rc)
			return rc;
		j->dir_len = strlen(dir);
		j->fd = xb_file_open(XB_FILE_CWD, j->path, XB_FILE_RDWR | XB_FILE_CREATE | XB_FILE_TRUNC, 0640, NULL);
		if (j->fd < 0)
			return xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", j->path, strerror(errno));
		j->reserved = 0;
		if (xb_dir_sync(dir))
			return xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", dir, strerror(errno));
	}
	atomic_store(&j->end, HEADER_BYTES);
	atomic_store(&j->records, 0);
	if (bound > j->reserved) {
		if (xb_file_reserve(j->fd, 0, (off_t)bound) == 0)
			j->reserved = bound;
		else if (errno == ENOSPC) {
			*enospc = true;
			return xb_err_set(err, XB_E_IO_WRITE, "cannot reserve %.1f MiB for %s: %s", (double)bound / 1048576.0,
					  j->path, strerror(errno));
		} else if (!xb_file_reserve_unsupported(errno))
			return xb_err_set(err, XB_E_IO_WRITE, "cannot reserve space for %s: %s", j->path, strerror(errno));
	}
	return 0;
}

int journal_add(journal *j, const char *path, off_t off, const uint8_t *buf, size_t len, xb_error *err)
{
	const char *name = path;
	if (!strncmp(path, j->path, j->dir_len) && path[j->dir_len] == '/')
		name = path + j->dir_len + 1;
	size_t nlen = strlen(name);
	if (!nlen || nlen > 4096 || len > REC_MAX_DATA)
		return xb_err_set(err, XB_E_INTERNAL, "journal record for %s out of range", path);
	uint8_t head[REC_HEAD + 4096];
	be32_put(head, REC_MAGIC);
	be16_put(head + 4, (uint32_t)nlen);
	be16_put(head + 6, 0);
	be32_put(head + 8, (uint32_t)len);
	be32_put(head + 12, 0);
	be64_put(head + 16, (uint64_t)off);
	memcpy(head + REC_HEAD, name, nlen);
	be32_put(head + 12, crc32c_update(crc32c_update(crc32c(head, REC_HEAD), name, nlen), buf, len));
	uint64_t pos = atomic_fetch_add(&j->end, REC_HEAD + nlen + len);
	if (write_all(j->fd, head, REC_HEAD + nlen, (off_t)pos) ||
	    write_all(j->fd, buf, len, (off_t)(pos + REC_HEAD + nlen)))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", j->path, strerror(errno));
	atomic_fetch_add(&j->records, 1);
	return 0;
}

int journal_commit(journal *j, xb_error *err)
{
	uint64_t records = atomic_load(&j->records), end = atomic_load(&j->end);
	if (!records)
		return 0;
	if (fdatasync(j->fd) || header_write(j->fd, records, end) || fdatasync(j->fd))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", j->path, strerror(errno));
	j->bytes += end - HEADER_BYTES;
	j->committed = true;
	return 0;
}

int journal_apply(journal *j, xb_error *err)
{
	uint64_t records = atomic_load(&j->records), end = atomic_load(&j->end), bytes;
	if (!records)
		return 0;
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)j->dir_len, j->path);
	int rc = apply_records(j->fd, j->path, dir, end, records, &bytes, err);
	if (rc)
		return rc;
	/* every page is durable in place: the batch need not be replayed any more */
	if (header_write(j->fd, 0, 0) || fdatasync(j->fd))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", j->path, strerror(errno));
	atomic_store(&j->records, 0);
	j->committed = false;
	return 0;
}

void journal_discard(journal *j)
{
	if (j->fd < 0)
		return;
	close(j->fd);
	j->fd = -1;
	if (j->committed)
		return;
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)j->dir_len, j->path);
	(void)remove_journal(j->path, dir, NULL);
}

int journal_end(journal *j, xb_error *err)
{
	if (j->fd < 0)
		return 0;
	close(j->fd);
	j->fd = -1;
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)j->dir_len, j->path);
	return remove_journal(j->path, dir, err);
}
