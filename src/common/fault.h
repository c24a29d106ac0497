/*
 * fault.h - named fault-injection points, for the fault campaign (test/faults/).
 *
 * The code calls xb_fault(XB_FAULT_X) where a run can be stopped with
 * something worth testing half done. Nothing happens unless the environment
 * variable XB_FAULT names that point:
 *
 *   XB_FAULT=POINT[:ACTION][@N]
 *
 * POINT is a name from fault.def ("backup-block-ddl"); ACTION is
 *   kill    the process kills itself with SIGKILL (a kill -9, a power cut for the tool)
 *   term    it sends itself SIGTERM and goes on (the signal arrives right there)
 *   int     the same with SIGINT
 *   stop    it writes "fault point POINT reached" on stderr and stops itself
 *           (SIGSTOP), so a test can act (kill the server, fill the disk) and
 *           then send SIGCONT or SIGKILL
 *   error   xb_fault() returns true: the caller fails the way a real I/O error
 *           would fail there (only points documented to honour it)
 * (default kill); @N acts at the Nth time the point is reached (default 1).
 * The variable is read once; an unknown point or action is reported once and
 * ignored. Never set in production; costs one branch when unset.
 */
#ifndef XB_FAULT_H
#define XB_FAULT_H

#include <stdbool.h>
#include <stddef.h>

enum xb_fault_point {
#define XB_FAULT_POINT(id, name, desc) XB_FAULT_##id,
#include "fault.def"
#undef XB_FAULT_POINT
	XB_FAULT_N
};

enum xb_fault_action { XB_FAULT_KILL, XB_FAULT_TERM, XB_FAULT_INT, XB_FAULT_STOP, XB_FAULT_ERROR };

/* What an XB_FAULT value asks for. */
typedef struct xb_fault_spec {
	int point;                   /* an enum xb_fault_point */
	enum xb_fault_action action; /* what to do there */
	long at;                     /* at the at-th time the point is reached (1..) */
} xb_fault_spec;

/* Parse "POINT[:ACTION][@N]". 0 and *out filled, or -1 with why (a phrase) filled. */
int xb_fault_parse(const char *v, xb_fault_spec *out, char *why, size_t n);

/* Read XB_FAULT now (main() calls it first, so a bad value is reported at
 * once and not when a point is reached). */
void xb_fault_arm(void);

/* Reached point p: act if XB_FAULT says so. True means "fail here" (action error). */
bool xb_fault(enum xb_fault_point p);

/* Name and description of point i (i < XB_FAULT_N), for the documentation check. */
const char *xb_fault_name(int i);
const char *xb_fault_desc(int i);

#endif
