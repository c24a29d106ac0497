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

static pthread_once_t once = PTHREAD_ONCE_INIT;
static xb_fault_spec armed = {.point = -1};
static atomic_long hits;

int xb_fault_parse(const char *v, xb_fault_spec *out, char *why, size_t n)
{
	static const char *const acts[] = {"kill", "term", "int", "stop", "error"};
	char spec[128];
	if (strlen(v) >= sizeof spec) {
		snprintf(why, n, "too long");
		return -1;
	}
	snprintf(spec, sizeof spec, "%s", v);
	xb_fault_spec f = {.point = -1, .action = XB_FAULT_KILL, .at = 1};
	char *at = strchr(spec, '@');
	if (at) {
		*at++ = '\0';
		char *end;
		f.at = strtol(at, &end, 10);
		if (!*at || *end || f.at < 1) {
			snprintf(why, n, "@N must be a positive number");
			return -1;
		}
	}
	char *a = strchr(spec, ':');
	if (a) {
		*a++ = '\0';
		int k = -1;
		for (int i = 0; i < (int)(sizeof acts / sizeof acts[0]); i++)
			if (!strcmp(a, acts[i]))
				k = i;
		if (k < 0) {
			snprintf(why, n, "unknown action '%s' (kill, term, int, stop, error)", a);
			return -1;
		}
		f.action = (enum xb_fault_action)k;
	}
	for (int i = 0; i < XB_FAULT_N; i++)
		if (!strcmp(spec, names[i]))
			f.point = i;
	if (f.point < 0) {
		snprintf(why, n, "no such fault point '%s' (see doc/faults.md)", spec);
		return -1;
	}
	*out = f;
	return 0;
}

static void parse(void)
{
	const char *v = getenv("XB_FAULT");
	char why[200];
	if (v && *v && xb_fault_parse(v, &armed, why, sizeof why))
		xb_warn("XB_FAULT=%s: %s; no fault armed", v, why);
}

void xb_fault_arm(void) { pthread_once(&once, parse); }

bool xb_fault(enum xb_fault_point p)
{
	pthread_once(&once, parse);
	if ((int)p != armed.point || atomic_fetch_add(&hits, 1) + 1 != armed.at)
		return false;
	switch (armed.action) {
	case XB_FAULT_KILL:
		xb_proc_signal_self(XB_PROC_KILL);
		return false;
	case XB_FAULT_TERM:
		xb_proc_signal_self(XB_PROC_TERM);
		return false;
	case XB_FAULT_INT:
		xb_proc_signal_self(XB_PROC_INT);
		return false;
	case XB_FAULT_STOP:
		fprintf(stderr, "fault point %s reached\n", names[p]);
		fflush(stderr);
		xb_proc_signal_self(XB_PROC_STOP);
		return false;
	case XB_FAULT_ERROR:
		xb_warn("fault point %s: failing here (XB_FAULT)", names[p]);
		return true;
	}
	return false;
}

const char *xb_fault_name(int i) { return i >= 0 && i < XB_FAULT_N ? names[i] : NULL; }
const char *xb_fault_desc(int i) { return i >= 0 && i < XB_FAULT_N ? descs[i] : NULL; }
