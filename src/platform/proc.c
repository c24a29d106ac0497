/*
 * proc.c - POSIX implementation of proc.h: kill(getpid(), sig), so the
 * signal is the process's, handled as one from outside would be.
 */
#include "proc.h"

#include <signal.h>
#include <unistd.h>

void xb_proc_signal_self(enum xb_proc_signal s)
{
	static const int sig[] = {[XB_PROC_KILL] = SIGKILL, [XB_PROC_TERM] = SIGTERM,
				  [XB_PROC_INT] = SIGINT, [XB_PROC_STOP] = SIGSTOP};
	kill(getpid(), sig[s]);
}
