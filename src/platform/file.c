/*
 * file.c - the file layer on Linux (see file.h): O_DIRECT, renameat2 with
 * RENAME_NOREPLACE, copy_file_range, sync_file_range, lseek SEEK_DATA /
 * SEEK_HOLE, O_TMPFILE, posix_fadvise, fallocate (FALLOC_FL_KEEP_SIZE),
 * fstatvfs and O_DIRECTORY; fstat, ftruncate and unlink for the rest. Each
 * falls back the way file.h says when the kernel or the file system does not
 * support it.
 */
#include "platform/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int xb_file_open(int dir_fd, const char *name, int flags, mode_t mode, bool *direct)
{
	int fl = O_CLOEXEC;
	fl |= flags & XB_FILE_RDWR ? O_RDWR : flags & XB_FILE_WRITE ? O_WRONLY : O_RDONLY;
	if (flags & XB_FILE_CREATE)
		fl |= O_CREAT;
	if (flags & XB_FILE_EXCL)
		fl |= O_EXCL;
	if (flags & XB_FILE_TRUNC)
		fl |= O_TRUNC;
	if (flags & XB_FILE_NOFOLLOW)
		fl |= O_NOFOLLOW;
	int at = dir_fd == XB_FILE_CWD ? AT_FDCWD : dir_fd;
	int fd = -1;
	if (flags & XB_FILE_DIRECT) {
		fd = openat(at, name, fl | O_DIRECT, mode);
		bool d = fd >= 0;
		if (fd < 0 && errno == EINVAL)
			fd = openat(at, name, fl, mode); /* a file system without direct I/O (tmpfs) */
		if (direct)
			*direct = d;
		return fd;
	}
	if (direct)
		*direct = false;
	return openat(at, name, fl, mode);
}

bool xb_file_drop_direct(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl >= 0 && (fl & O_DIRECT) && fcntl(fd, F_SETFL, fl & ~O_DIRECT) == 0;
}

bool xb_file_is_direct(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl >= 0 && (fl & O_DIRECT);
}

int xb_file_rename(int from_dir, const char *from, int to_dir, const char *to, bool replace)
{
	int fa = from_dir == XB_FILE_CWD ? AT_FDCWD : from_dir, ta = to_dir == XB_FILE_CWD ? AT_FDCWD : to_dir;
	if (replace)
		return renameat(fa, from, ta, to);
	if (renameat2(fa, from, ta, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* no RENAME_NOREPLACE here: a link fails when `to` exists, then the old name goes */
	if (linkat(fa, from, ta, to, 0))
		return -1;
	return unlinkat(fa, from, 0);
}

ssize_t xb_file_copy_range(int in, off_t *in_off, int out, off_t *out_off, size_t n)
{
	loff_t i = *in_off, o = *out_off;
	ssize_t k = copy_file_range(in, &i, out, &o, n, 0);
	if (k > 0) {
		*in_off = i;
		*out_off = o;
	}
	return k;
}

bool xb_file_copy_unsupported(int err_no)
{
	return err_no == EXDEV || err_no == ENOSYS || err_no == EINVAL || err_no == EOPNOTSUPP;
}

void xb_file_writeback(int fd, off_t off, off_t len)
{
	(void)sync_file_range(fd, off, len, SYNC_FILE_RANGE_WRITE);
}

int xb_file_next_data(int fd, off_t pos, off_t size, off_t *data, off_t *end)
{
	off_t d = lseek(fd, pos, SEEK_DATA);
	if (d < 0 && errno == ENXIO)
		return 1; /* only a hole is left */
	if (d < 0)
		d = pos; /* no SEEK_DATA: everything is data */
	off_t h = lseek(fd, d, SEEK_HOLE);
	if (h < 0 || h > size)
		h = size;
	*data = d;
	*end = h;
	return 0;
}

int xb_file_pwrite_all(int fd, const void *buf, size_t n, off_t off)
{
	const char *p = buf;
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

ssize_t xb_file_pread_all(int fd, void *buf, size_t n, off_t off)
{
	char *p = buf;
	size_t done = 0;
	while (done < n) {
		ssize_t k = pread(fd, p + done, n - done, off + (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		done += (size_t)k;
	}
	return (ssize_t)done;
}

int xb_file_reserve(int fd, off_t off, off_t len)
{
	int rc;
	do
		rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, off, len);
	while (rc && errno == EINTR);
	return rc;
}

bool xb_file_reserve_unsupported(int err_no)
{
	return err_no == EOPNOTSUPP || err_no == ENOSYS || err_no == EINVAL;
}

off_t xb_file_unallocated(int fd, off_t off, off_t len)
{
	struct stat st;
	if (fstat(fd, &st))
		return 0;
	off_t end = off + len, size = st.st_size, missing = 0, pos = off;
	if (end > size) {
		missing += end - (off > size ? off : size);
		end = size;
	}
	while (pos < end) {
		off_t d, e;
		if (xb_file_next_data(fd, pos, size, &d, &e) || d >= end) {
			missing += end - pos;
			break;
		}
		if (d > pos)
			missing += d - pos;
		if (e <= d)
			break;
		pos = e;
	}
	return missing;
}

long long xb_fs_free(int fd)
{
	struct statvfs v;
	if (fstatvfs(fd, &v))
		return -1;
	return (long long)v.f_bavail * (long long)v.f_frsize;
}

int xb_file_open_temp(const char *dir)
{
	int fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	char tmpl[4200];
	if (snprintf(tmpl, sizeof tmpl, "%s/xtrabackup-tmp-XXXXXX", dir) >= (int)sizeof tmpl) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}

void xb_file_advise(int fd, off_t off, off_t len, enum xb_file_advice a)
{
	(void)posix_fadvise(fd, off, len, a == XB_ADVISE_WILLNEED ? POSIX_FADV_WILLNEED : POSIX_FADV_SEQUENTIAL);
}

int xb_dir_open(int dir_fd, const char *name, bool nofollow)
{
	return openat(dir_fd == XB_FILE_CWD ? AT_FDCWD : dir_fd, name,
		      O_RDONLY | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
}

int xb_file_sync(int fd, bool data_only)
{
	return data_only ? fdatasync(fd) : fsync(fd);
}

int xb_file_stamp_of(const char *path, xb_file_stamp *out)
{
	struct stat st;
	if (stat(path, &st))
		return -1;
	out->dev = (unsigned long long)st.st_dev;
	out->ino = (unsigned long long)st.st_ino;
	out->size = (unsigned long long)st.st_size;
	out->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	out->ctime_ns = (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
	return 0;
}

bool xb_file_stamp_same(const xb_file_stamp *a, const xb_file_stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->ctime_ns == b->ctime_ns;
}

off_t xb_file_size(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? -1 : st.st_size;
}

int xb_file_truncate(int fd, off_t size)
{
	return ftruncate(fd, size);
}

int xb_file_remove(const char *path)
{
	return unlink(path);
}

int xb_dir_sync(const char *path)
{
	int fd = xb_dir_open(XB_FILE_CWD, path, false);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

long xb_files_limit_raise(long n)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	if ((rlim_t)n > rl.rlim_cur) {
		struct rlimit want = rl;
		want.rlim_cur = (rlim_t)n;
		if ((rlim_t)n > want.rlim_max)
			want.rlim_max = (rlim_t)n;
		/* raising the hard limit needs privilege: else go as far as it allows */
		if (setrlimit(RLIMIT_NOFILE, &want)) {
			want.rlim_max = rl.rlim_max;
			want.rlim_cur = rl.rlim_max < (rlim_t)n ? rl.rlim_max : (rlim_t)n;
			if (setrlimit(RLIMIT_NOFILE, &want))
				return -1;
		}
		rl = want;
	}
	return rl.rlim_cur == RLIM_INFINITY ? n : (long)rl.rlim_cur;
}
