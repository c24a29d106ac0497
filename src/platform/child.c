/*
 * child.c - other programs and private directories on POSIX systems (see
 * child.h): posix_spawn with file actions for the output, waitpid with
 * WNOHANG polled every 10 ms for a deadline, SIGKILL, mkdtemp, getpwuid.
 */
#include "platform/child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int xb_child_start(xb_child *c, const char *path, char *const argv[], const char *out_path)
{
	memset(c, 0, sizeof *c);
	posix_spawn_file_actions_t fa;
	if (posix_spawn_file_actions_init(&fa))
		return -1;
	int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t pid = 0;
	if (!rc)
		rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		errno = rc;
		return -1;
	}
	c->pid = pid;
	return 0;
}

bool xb_child_ended(xb_child *c)
{
	if (c->ended || !c->pid)
		return true;
	int st;
	pid_t r = waitpid((pid_t)c->pid, &st, WNOHANG);
	if (r == 0 || (r < 0 && errno == EINTR))
		return false;
	c->ended = true;
	c->pid = 0;
	c->status = r < 0 ? 127 : WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 127;
	return true;
}

bool xb_child_wait(xb_child *c, unsigned ms)
{
	for (unsigned waited = 0;; waited += 10) {
		if (xb_child_ended(c))
			return true;
		if (waited >= ms)
			return false;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

void xb_child_kill(xb_child *c)
{
	if (c->ended || !c->pid)
		return;
	kill((pid_t)c->pid, SIGKILL);
	while (!xb_child_wait(c, 1000))
		;
}

int xb_private_dir(const char *base, const char *prefix, char *out, size_t n)
{
	if ((size_t)snprintf(out, n, "%s/%sXXXXXX", base, prefix) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(out) ? 0 : -1;
}

void xb_private_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

void xb_user_name(char *out, size_t n, bool *superuser)
{
	uid_t uid = geteuid();
	struct passwd *pw = getpwuid(uid);
	snprintf(out, n, "%s", pw && pw->pw_name ? pw->pw_name : "");
	*superuser = uid == 0;
}

bool xb_is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}
