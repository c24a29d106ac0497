/*
 * command.c - signal handling shared by the commands.
 *
 * A signal only sets a flag; long-running loops poll command_interrupted()
 * and unwind normally, so files are closed, temporary names removed and no
 * completion marker is written. A signal the parent set to be ignored (a
 * script running "xtrabackup &" ignores SIGINT for it) stays ignored, as with
 * mariabackup.
 */
#include "command.h"

#include <signal.h>
#include <string.h>

#include "info/checkpoints.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

void command_signals_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
}

bool command_interrupted(xb_error *err)
{
	if (!stop_signal)
		return false;
	xb_err_set(err, XB_E_INTERRUPTED, "interrupted by signal %d (%s)", (int)stop_signal, strsignal(stop_signal));
	xb_err_hint(err, "the target directory holds an incomplete backup (no " XB_CHECKPOINTS_FILE "): remove it");
	return true;
}
