/*
 * child.h - starting another program and waiting for it, with a deadline.
 *
 * --prepare --export runs the installed server on the prepared backup
 * (db/localserver.h). That needs a program started with a given argument
 * list, its output going to a file, a way to ask whether it is still
 * running without blocking, a forced end, a private directory for its
 * socket and files, and the name of the user this process runs as (the
 * server refuses to run as root unless told so). child.c is the POSIX
 * version (posix_spawn, waitpid with WNOHANG, mkdtemp); a port supplies its
 * own.
 */
#ifndef XB_CHILD_H
#define XB_CHILD_H

#include <stdbool.h>
#include <stddef.h>

/* A started program. */
typedef struct xb_child {
	long pid;        /* its process id, 0 once reaped */
	int status;      /* once ended: its exit status, or 128 + the signal that ended it */
	bool ended;      /* it ended and was reaped */
} xb_child;

/* Start path with argv (argv[0] first, NULL-terminated), stdin from the
 * null device, stdout and stderr appended to out_path. 0, or -1 with errno
 * set (the program cannot be started). */
int xb_child_start(xb_child *c, const char *path, char *const argv[], const char *out_path);

/* Has it ended? Never blocks; reaps it and sets status when it has. */
bool xb_child_ended(xb_child *c);

/* Wait up to ms milliseconds for it to end: true once it has. */
bool xb_child_wait(xb_child *c, unsigned ms);

/* End it at once (SIGKILL) and reap it. */
void xb_child_kill(xb_child *c);

/* Make a new directory only this user can enter, named prefix + 6
 * characters, under base; its path in out. 0, or -1 with errno set. */
int xb_private_dir(const char *base, const char *prefix, char *out, size_t n);

/* Remove dir and the plain files in it (not recursive). */
void xb_private_dir_remove(const char *dir);

/* The name of the user this process runs as ("" when unknown), and
 * whether it is the superuser. */
void xb_user_name(char *out, size_t n, bool *superuser);

/* Is path an executable file? */
bool xb_is_executable(const char *path);

#endif
