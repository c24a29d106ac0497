/*
 * journal.c - the prepare journal (journal.h; its layout is doc/backup-directory.md §16).
 *
 * The file is a 512-byte header (magic, generation, CRC-32C) followed by
 * records. Workers reserve a record's place with one atomic add on the end
 * offset and write it there, so appends from several threads never wait
 * on each other. A record is a 32-byte head (magic, name length, data
 * length, CRC-32C, file offset, generation), the file's name relative to
 * the backup directory and the run of page images; the CRC covers all of
 * it. A record counts only when its magic, generation and CRC check out:
 * bytes left over from an earlier generation, or a record that was not
 * yet durable when the run stopped, end the walk. Applying reads the
 * records back in order (from the page cache: they were just written) and
 * writes each at its place; the files written are kept open until they
 * are fsynced, when the journal starts over or ends.
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
#define HEADER_MAGIC "XBPJRNL2"
#define REC_MAGIC 0x58424a52u /* "XBJR" */
#define REC_HEAD 32u
#define REC_MAX_DATA (16u << 20)

uint64_t journal_bound(uint64_t n_pages, uint64_t page_bytes)
{
	/* at worst one record per page, each with a head and a name */
	return page_bytes + n_pages * (REC_HEAD + 512u);
}

static int write_all(int fd, const void *buf, size_t n, off_t off)
{
	return xb_file_pwrite_all(fd, buf, n, off);
}

static int read_exact(int fd, void *buf, size_t n, off_t off)
{
	ssize_t k = xb_file_pread_all(fd, buf, n, off);
	return k == (ssize_t)n ? 0 : -1;
}

/* The files written in place, kept open to fsync them. */
typedef struct journal_targets {
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
		if (sync && !rc && xb_file_sync(t->fds[i], false))
			rc = xb_err_set(err, XB_E_IO_WRITE, "fsync %s/%s: %s", dir, t->names[i], strerror(errno));
		close(t->fds[i]);
		free(t->names[i]);
	}
	free(t->names);
	free(t->fds);
	memset(t, 0, sizeof *t);
	return rc;
}

/* The record at pos (below end) of generation gen, its name into name and
 * its data into buf: its length, or 0 when there is no whole record there. */
static uint64_t record_read(int fd, uint64_t pos, uint64_t end, uint64_t gen, char name[4097], uint8_t *buf,
			    uint32_t *dlen_out, uint64_t *off_out)
{
	uint8_t h[REC_HEAD];
	if (pos + REC_HEAD > end || read_exact(fd, h, REC_HEAD, (off_t)pos))
		return 0;
	uint32_t nlen = be16_get(h + 4), dlen = be32_get(h + 8), crc = be32_get(h + 12);
	if (be32_get(h) != REC_MAGIC || be64_get(h + 24) != gen || !nlen || nlen > 4096 || dlen > REC_MAX_DATA ||
	    pos + REC_HEAD + nlen + dlen > end || read_exact(fd, name, nlen, (off_t)(pos + REC_HEAD)) ||
	    read_exact(fd, buf, dlen, (off_t)(pos + REC_HEAD + nlen)))
		return 0;
	name[nlen] = 0;
	be32_put(h + 12, 0);
	if (crc32c_update(crc32c_update(crc32c(h, REC_HEAD), name, nlen), buf, dlen) != crc)
		return 0;
	*dlen_out = dlen;
	*off_out = be64_get(h + 16);
	return REC_HEAD + nlen + dlen;
}

static const char *hint_rerun(void)
{
	return "free space (or mend the cause) and run --prepare again: it first rewrites these pages from " JOURNAL_NAME;
}

/* Write a run in place, or a torn part of it at fault point prepare-page-write. */
static int write_in_place(int fd, const char *name, off_t off, const uint8_t *buf, size_t len, xb_error *err)
{
	if (xb_fault(XB_FAULT_PREPARE_PAGE_WRITE)) {
		/* a write cut at a 4 KiB boundary, as a full disk or a kill leaves it */
		(void)write_all(fd, buf, len < 4096 ? len : 4096, off);
		errno = ENOSPC;
		xb_err_set(err, XB_E_IO_WRITE, "cannot write %s at byte %llu: %s (fault point prepare-page-write)", name,
			   (unsigned long long)off, strerror(errno));
		return xb_err_hint(err, "%s", hint_rerun());
	}
	if (write_all(fd, buf, len, off)) {
		xb_err_set(err, XB_E_IO_WRITE, "cannot write %s at byte %llu: %s", name, (unsigned long long)off,
			   strerror(errno));
		return xb_err_hint(err, "%s", hint_rerun());
	}
	return 0;
}

/* Write the records of generation gen in [pos, end) of the journal fd in place under dir:
 * at most max records (0: up to the first that is not whole). *bytes: data written. */
static int apply_records(int fd, const char *dir, targets *t, uint64_t pos, uint64_t end, uint64_t gen,
			 uint64_t max, uint64_t *bytes, xb_error *err)
{
	uint8_t *buf = malloc(REC_MAX_DATA);
	if (!buf)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	int rc = 0;
	char name[4097];
	*bytes = 0;
	for (uint64_t n = 0; !rc && (!max || n < max); n++) {
		uint32_t dlen;
		uint64_t off, len = record_read(fd, pos, end, gen, name, buf, &dlen, &off);
		if (!len) {
			if (max)
				rc = xb_err_set(err, XB_E_INTERNAL, "%s/%s: record %llu at byte %llu reads back damaged", dir,
						JOURNAL_NAME, (unsigned long long)n, (unsigned long long)pos);
			break;
		}
		int tfd = target_fd(t, dir, name, err);
		if (tfd < 0) {
			rc = err && err->code ? err->code : XB_E_IO_WRITE;
			break;
		}
		if ((rc = write_in_place(tfd, name, (off_t)off, buf, dlen, err)))
			break;
		*bytes += dlen;
		pos += len;
	}
	free(buf);
	return rc;
}

/* The generation in the header of fd; false when it has no valid header. */
static bool header_read(int fd, uint64_t *gen)
{
	uint8_t h[HEADER_BYTES];
	if (read_exact(fd, h, sizeof h, 0) || memcmp(h, HEADER_MAGIC, 8) || crc32c(h, 16) != be32_get(h + 16))
		return false;
	*gen = be64_get(h + 8);
	return true;
}

static int header_write(int fd, uint64_t gen, bool sync)
{
	uint8_t h[HEADER_BYTES];
	memset(h, 0, sizeof h);
	memcpy(h, HEADER_MAGIC, 8);
	be64_put(h + 8, gen);
	be32_put(h + 16, crc32c(h, 16));
	return write_all(fd, h, sizeof h, 0) || (sync && xb_file_sync(fd, true)) ? -1 : 0;
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
	uint64_t gen;
	off_t size = lseek(fd, 0, SEEK_END);
	if (header_read(fd, &gen) && size > (off_t)HEADER_BYTES) {
		xb_info("%s: pages an interrupted prepare wrote: writing them in place again", path);
		targets t = {0};
		rc = apply_records(fd, dir, &t, HEADER_BYTES, (uint64_t)size, gen, 0, bytes, err);
		int src = targets_close(&t, dir, !rc, rc ? NULL : err);
		if (!rc)
			rc = src;
	}
	close(fd);
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
		if (!j->t && !(j->t = calloc(1, sizeof *j->t)))
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		j->fd = xb_file_open(XB_FILE_CWD, j->path, XB_FILE_RDWR | XB_FILE_CREATE | XB_FILE_TRUNC, 0640, NULL);
		if (j->fd < 0)
			return xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", j->path, strerror(errno));
		j->gen = 1;
		j->reserved = 0;
		atomic_store(&j->end, HEADER_BYTES);
		if (header_write(j->fd, j->gen, true) || xb_dir_sync(dir))
			return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", j->path, strerror(errno));
	}
	atomic_store(&j->records, 0);
	j->batch_start = atomic_load(&j->end);
	uint64_t want = j->batch_start + bound;
	if (want > j->reserved) {
		if (xb_file_reserve(j->fd, 0, (off_t)want) == 0)
			j->reserved = want;
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
	be64_put(head + 24, j->gen);
	memcpy(head + REC_HEAD, name, nlen);
	be32_put(head + 12, crc32c_update(crc32c_update(crc32c(head, REC_HEAD), name, nlen), buf, len));
	uint64_t pos = atomic_fetch_add(&j->end, REC_HEAD + nlen + len);
	if (write_all(j->fd, head, REC_HEAD + nlen, (off_t)pos) ||
	    write_all(j->fd, buf, len, (off_t)(pos + REC_HEAD + nlen)))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", j->path, strerror(errno));
	atomic_fetch_add(&j->records, 1);
	return 0;
}

int journal_write(journal *j, const char *path, int fd, off_t off, const uint8_t *buf, size_t len, xb_error *err)
{
	int rc = journal_add(j, path, off, buf, len, err);
	if (rc || j->durable)
		return rc;
	j->synced = true; /* in place from now on: the journal is kept after an error */
	const char *name = path;
	if (!strncmp(path, j->path, j->dir_len) && path[j->dir_len] == '/')
		name = path + j->dir_len + 1;
	return write_in_place(fd, name, off, buf, len, err);
}

int journal_commit(journal *j, xb_error *err)
{
	if (!atomic_load(&j->records))
		return 0;
	if (xb_file_sync(j->fd, true))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", j->path, strerror(errno));
	j->synced = true;
	j->bytes += atomic_load(&j->end) - j->batch_start;
	return 0;
}

int journal_apply(journal *j, xb_error *err)
{
	uint64_t records = atomic_load(&j->records), end = atomic_load(&j->end), bytes;
	if (!records)
		return 0;
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)j->dir_len, j->path);
	int rc = apply_records(j->fd, dir, j->t, j->batch_start, end, j->gen, records, &bytes, err);
	if (rc || end < JOURNAL_SYNC_BYTES)
		return rc;
	/* the files durable: the journal starts over, its old records now of a past generation */
	if ((rc = targets_close(j->t, dir, true, err)))
		return rc;
	if (header_write(j->fd, j->gen + 1, true))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", j->path, strerror(errno));
	j->gen++;
	j->synced = false;
	atomic_store(&j->end, HEADER_BYTES);
	return 0;
}

int journal_batch_done(journal *j, xb_error *err)
{
	int rc;
	if (j->durable) {
		if ((rc = journal_commit(j, err)))
			return rc;
		xb_fault(XB_FAULT_PREPARE_JOURNAL_COMMITTED);
		return journal_apply(j, err);
	}
	if (!atomic_load(&j->records))
		return 0;
	xb_fault(XB_FAULT_PREPARE_JOURNAL_COMMITTED);
	/* every run is whole in place (in the page cache): the next batch's records start over */
	j->bytes += atomic_load(&j->end) - j->batch_start;
	if (header_write(j->fd, j->gen + 1, false))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", j->path, strerror(errno));
	j->gen++;
	atomic_store(&j->end, HEADER_BYTES);
	return 0;
}

void journal_discard(journal *j)
{
	if (j->fd < 0)
		return;
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)j->dir_len, j->path);
	targets_close(j->t, dir, false, NULL);
	free(j->t);
	j->t = NULL;
	close(j->fd);
	j->fd = -1;
	if (!j->synced)
		(void)remove_journal(j->path, dir, NULL);
}

int journal_end(journal *j, xb_error *err)
{
	if (j->fd < 0)
		return 0;
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)j->dir_len, j->path);
	int rc = targets_close(j->t, dir, true, err);
	free(j->t);
	j->t = NULL;
	close(j->fd);
	j->fd = -1;
	if (rc) /* the journal stays: the files are not known to be durable */
		return rc;
	return remove_journal(j->path, dir, err);
}
