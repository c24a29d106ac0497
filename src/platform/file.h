/*
 * file.h - the file calls that differ between systems, behind one small API.
 *
 * Direct I/O (no page cache), whole positioned reads and writes, renaming
 * without replacing, in-kernel copies,
 * starting write-back early, finding the data runs of a sparse file,
 * unnamed temporary files, access-pattern advice, reserving the disk space
 * of a range before writing it, the free space of a file system, a file's
 * size (read and set), removing a name, and opening a directory to fsync
 * it. Each call says what it does when the system or file system
 * cannot: the caller gets a plain fallback (a cached open, a copy through a
 * buffer, the whole file as data) rather than an error, except where the
 * guarantee itself is the point (a rename that must not replace). Return
 * values follow the system calls: a descriptor or 0 on success, -1 with errno
 * set on failure. file.c is the Linux version; a port supplies its own.
 */
#ifndef XB_FILE_H
#define XB_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Flags of xb_file_open(). */
enum {
	XB_FILE_READ = 0,       /* read only */
	XB_FILE_WRITE = 1,      /* write only */
	XB_FILE_RDWR = 2,       /* read and write */
	XB_FILE_CREATE = 4,     /* create when missing */
	XB_FILE_EXCL = 8,       /* with CREATE: fail when it exists */
	XB_FILE_TRUNC = 16,     /* cut to 0 bytes */
	XB_FILE_NOFOLLOW = 32,  /* fail on a symbolic link (the name itself) */
	XB_FILE_DIRECT = 64,    /* bypass the page cache where the file system allows it */
};

/* Open name relative to dir_fd (XB_FILE_CWD: the current directory, or an
 * absolute name). With XB_FILE_DIRECT, a file system that refuses direct I/O
 * gets a cached open instead; *direct (may be NULL) says which it was. The
 * descriptor is closed on exec. */
#define XB_FILE_CWD (-100)
int xb_file_open(int dir_fd, const char *name, int flags, mode_t mode, bool *direct);

/* Stop bypassing the page cache on fd (a file system that took the direct
 * open but refuses an aligned transfer). True when fd was direct and is not now. */
bool xb_file_drop_direct(int fd);

/* True when fd bypasses the page cache now. */
bool xb_file_is_direct(int fd);

/* Rename from (in from_dir) to to (in to_dir). replace = false: fail with
 * EEXIST when to exists, also on file systems without an atomic no-replace
 * rename (a hard link then an unlink of from). */
int xb_file_rename(int from_dir, const char *from, int to_dir, const char *to, bool replace);

/* Copy n bytes from in at *in_off to out at *out_off inside the kernel;
 * advances both. Returns the bytes copied (0 at the end of in). -1 with
 * errno; xb_file_copy_unsupported(errno) tells a caller to copy through a
 * buffer instead. */
ssize_t xb_file_copy_range(int in, off_t *in_off, int out, off_t *out_off, size_t n);
bool xb_file_copy_unsupported(int err_no);

/* Start writing back [off, off+len) of fd (len 0: to the end) without waiting
 * for it: keeps dirty pages from piling up for a burst later. Best effort. */
void xb_file_writeback(int fd, off_t off, off_t len);

/* The next run of data in fd at or after pos, below size: *data its start,
 * *end its end (a hole or size). 1 when only a hole is left. A file system
 * that cannot tell holes says everything from pos is data. */
int xb_file_next_data(int fd, off_t pos, off_t size, off_t *data, off_t *end);

/* An unnamed temporary file in dir, read-write, gone when closed. */
int xb_file_open_temp(const char *dir);

/* Access-pattern advice for [off, off+len) (len 0: to the end). Best effort. */
enum xb_file_advice { XB_ADVISE_SEQUENTIAL, XB_ADVISE_WILLNEED };
void xb_file_advise(int fd, off_t off, off_t len, enum xb_file_advice a);

/* pwrite all n bytes at off, again after EINTR and short writes: 0, or -1
 * with errno (ENOSPC after a short write; EIO for a write of nothing). */
int xb_file_pwrite_all(int fd, const void *buf, size_t n, off_t off);

/* pread up to n bytes at off, again after EINTR and short reads: the bytes
 * read (fewer only at the end of the file), or -1 with errno. */
ssize_t xb_file_pread_all(int fd, void *buf, size_t n, off_t off);

/* Reserve the disk blocks of [off, off+len) of fd without changing its size
 * or its bytes (holes become allocated zeros, blocks past the end are kept
 * for a later extension), so that writing the range later cannot fail for
 * want of space. -1 with errno (ENOSPC); xb_file_reserve_unsupported(errno)
 * says the file system cannot reserve (the caller then writes without). */
int xb_file_reserve(int fd, off_t off, off_t len);
bool xb_file_reserve_unsupported(int err_no);

/* Bytes of [off, off+len) of fd that have no disk blocks yet (holes, and
 * what lies past the end): what writing the whole range would allocate.
 * A file system that cannot tell holes says none (0); blocks reserved but
 * never written may count as holes (ext4 reports them so). */
off_t xb_file_unallocated(int fd, off_t off, off_t len);

/* Bytes free for an unprivileged writer on the file system holding fd; -1 with errno. */
long long xb_fs_free(int fd);

/* What identifies a file's state without reading it: any write, truncation
 * or replacement changes it (the change time cannot be set back by a
 * program, unlike the modification time), and a copy is another file. */
typedef struct xb_file_stamp {
	unsigned long long dev, ino; /* the file */
	unsigned long long size;     /* bytes */
	long long mtime_ns, ctime_ns; /* modification and change times, ns since the epoch */
} xb_file_stamp;

/* The stamp of the file path (a symbolic link is followed). 0, or -1 with errno. */
int xb_file_stamp_of(const char *path, xb_file_stamp *out);

/* Do a and b describe the same file in the same state? */
bool xb_file_stamp_same(const xb_file_stamp *a, const xb_file_stamp *b);

/* Open a directory (relative to dir_fd as in xb_file_open) to fsync it or to
 * open names in it; nofollow: fail when name is a symbolic link. */
int xb_dir_open(int dir_fd, const char *name, bool nofollow);

/* Make what was written to fd durable: its data and the metadata needed to
 * read it back (fdatasync) when data_only, everything (fsync) otherwise.
 * 0, or -1 with errno. */
int xb_file_sync(int fd, bool data_only);

/* The size of fd's file in bytes; -1 with errno. */
off_t xb_file_size(int fd);

/* Set the size of fd's file to size bytes (cut, or extended with zeros that
 * take no disk blocks where the file system allows holes). 0, or -1 with errno. */
int xb_file_truncate(int fd, off_t size);

/* Remove the name path (a file, not a directory). 0, or -1 with errno
 * (ENOENT when there is no such name). */
int xb_file_remove(const char *path);

/* fsync a directory, so that names created, renamed or removed in it last. */
int xb_dir_sync(const char *path);

/* Raise this process's limit of open files to n (the hard limit too where
 * allowed); returns the limit now in force, or -1 with errno. */
long xb_files_limit_raise(long n);

#endif
