/*
 * ioprio.h - I/O scheduling class of the calling thread.
 *
 * Copy threads lower their I/O priority so the server's own reads, redo
 * writes and page flushes go first on a shared disk: the kernel's mq-deadline
 * and BFQ schedulers serve the classes in order (with aging, so a low class
 * is delayed, never starved). Linux-only; elsewhere a no-op.
 */
#ifndef XB_IOPRIO_H
#define XB_IOPRIO_H

/* The classes: --io-priority=normal, low (best effort, lowest level), idle. */
enum { XB_IOPRIO_NORMAL = 0, XB_IOPRIO_LOW = 1, XB_IOPRIO_IDLE = 2 };

/* Apply a class to the calling thread; returns 0 or -1 (errno) when the system refuses. */
int xb_ioprio_apply(int cls);

#endif
