/*
 * ioprio.c - ioprio_set(2) for the calling thread (see ioprio.h).
 */
#include "ioprio.h"

#include <sys/syscall.h>
#include <unistd.h>

#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_WHO_PROCESS 1

int xb_ioprio_apply(int cls)
{
#ifdef SYS_ioprio_set
	int v;
	if (cls == XB_IOPRIO_IDLE)
		v = IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT;
	else if (cls == XB_IOPRIO_LOW)
		v = (IOPRIO_CLASS_BE << IOPRIO_CLASS_SHIFT) | 7;
	else
		return 0;
	return (int)syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, v);
#else
	(void)cls;
	return 0;
#endif
}
