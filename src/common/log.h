/*
 * log.h - the log on stderr.
 *
 * Every line is `[NN] YYYY-MM-DD HH:MM:SS message`, where NN is the worker
 * number (00 for the main thread, 01.. for copy threads), as DBAs and their
 * scripts know it from the XtraBackup lineage. Lines are written whole under
 * a mutex so threads never interleave. stdout is never used: it is reserved
 * for stream data. The progress meter (progress.c) shares the mutex so a log
 * line first clears a drawn meter.
 */
#ifndef XB_LOG_H
#define XB_LOG_H

#include "error.h"

/* Log a line as worker `worker` (0 = main). */
void xb_log(int worker, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Shorthand for worker 0. */
#define xb_info(...) xb_log(0, __VA_ARGS__)

/* Log "Warning: ..." as worker 0. */
void xb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Log an error object: "Error: <msg>" and, when set, "HINT: <hint>". */
void xb_log_error(const xb_error *err);

/* Print a raw line without prefix (used for the final "completed OK!"). */
void xb_log_raw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Lock/unlock the stderr mutex (used by the progress meter). */
void xb_log_lock(void);
void xb_log_unlock(void);

/* Hook called under the lock before each line is printed (progress meter clears itself). */
void xb_log_set_before_line(void (*fn)(void));

#endif
