/*
 * proc.h - what the process does to itself: signals it sends itself.
 *
 * Used by the fault-injection points (common/fault.c). On POSIX systems each
 * request is the signal of the same name.
 */
#ifndef XB_PROC_H
#define XB_PROC_H

enum xb_proc_signal {
	XB_PROC_KILL, /* end at once, nothing cleaned up (SIGKILL) */
	XB_PROC_TERM, /* ask to stop (SIGTERM): the handler sets the stop flag */
	XB_PROC_INT,  /* the same as an interactive Ctrl-C (SIGINT) */
	XB_PROC_STOP, /* freeze until continued or killed (SIGSTOP) */
};

/* Send the signal to this process (the whole process, not one thread). */
void xb_proc_signal_self(enum xb_proc_signal s);

#endif
