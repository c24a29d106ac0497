/*
 * fault.c - the fault-injection points of fault.h.
 *
 * XB_FAULT is parsed on the first call (under a once-only guard, since points
 * are reached from worker threads too); after that a call is a compare of the
 * point with the armed one and, when equal, an atomic count of the hits.
 */
#include "fault.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "platform/proc.h"

static const char *const names[] = {
#define XB_FAULT_POINT(id, name, desc) name,
#include "fault.def"
#undef XB_FAULT_POINT
};
static const char *const descs[] = {
#define XB_FAULT_POINT(id, name, desc) desc,
#include "fault.def"
#undef XB_FAULT_POINT
};

enum action { ACT_KILL, ACT_TERM, ACT_INT, ACT_STOP, ACT_ERROR };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int armed = -1;            /* the point XB_FAULT names, -1 when none */
static enum action act = ACT_KILL;
static long at = 1;               /* act at this hit */
static atomic_long hits;

static void parse(void)
{
	const char *v = getenv("XB_FAULT");
	if (!v || !*v)
		return;
	char spec[128];
	snprintf(spec, sizeof spec, "%s", v);
	char *n = strchr(spec, '@');
	if (n) {
		*n++ = '\0';
		char *end;
		at = strtol(n, &end, 10);
		if (*end || at < 1) {
			xb_warn("XB_FAULT=%s: @N must be a positive number; no fault armed", v);
			return;
		}
	}
	char *a = strchr(spec, ':');
	if (a) {
		*a++ = '\0';
		static const char *const acts[] = {"kill", "term", "int", "stop", "error"};
		int k = -1;
		for (int i = 0; i < 5; i++)
			if (!strcmp(a, acts[i]))
				k = i;
		if (k < 0) {
			xb_warn("XB_FAULT=%s: unknown action '%s' (kill, term, int, stop, error); no fault armed", v, a);
			return;
		}
		act = (enum action)k;
	}
	for (int i = 0; i < XB_FAULT_N; i++)
		if (!strcmp(spec, names[i]))
			armed = i;
	if (armed < 0)
		xb_warn("XB_FAULT=%s: no such fault point (see doc/faults.md); no fault armed", v);
}

bool xb_fault(enum xb_fault_point p)
{
	pthread_once(&once, parse);
	if ((int)p != armed || atomic_fetch_add(&hits, 1) + 1 != at)
		return false;
	switch (act) {
	case ACT_KILL:
		xb_proc_signal_self(XB_PROC_KILL);
		return false;
	case ACT_TERM:
		xb_proc_signal_self(XB_PROC_TERM);
		return false;
	case ACT_INT:
		xb_proc_signal_self(XB_PROC_INT);
		return false;
	case ACT_STOP:
		fprintf(stderr, "fault point %s reached\n", names[p]);
		fflush(stderr);
		xb_proc_signal_self(XB_PROC_STOP);
		return false;
	case ACT_ERROR:
		xb_warn("fault point %s: failing here (XB_FAULT)", names[p]);
		return true;
	}
	return false;
}

const char *xb_fault_name(int i) { return i >= 0 && i < XB_FAULT_N ? names[i] : NULL; }
const char *xb_fault_desc(int i) { return i >= 0 && i < XB_FAULT_N ? descs[i] : NULL; }
