/*
 * error.h - error reporting by return value.
 *
 * Every function that can fail takes an `xb_error *err` (may be NULL) and
 * returns an int: 0 on success, else one of the XB_E_* codes from error.def.
 * The error object carries the one-line message (lower case, no trailing
 * period, naming the file/LSN/option involved) and an optional hint line.
 * Codes are stable. They are printed in the error line ("Error: [007] ...")
 * and are the process exit code with --exit-status=detailed; by default the
 * exit status is mariabackup's (1 for a failed run, my_getopt's statuses for
 * a bad option: see xb_err_exit_status). Nothing here jumps: the code is
 * threaded and runs inside library callbacks.
 */
#ifndef XB_ERROR_H
#define XB_ERROR_H

#include <stdarg.h>

enum xb_error_code {
#define XB_ERROR(name, code, desc) XB_E_##name = code,
#include "error.def"
#undef XB_ERROR
};

typedef struct xb_error {
	int code;          /* XB_E_* code, 0 when no error is set */
	char msg[1024];    /* one-line message */
	char hint[512];    /* optional hint, "" when none */
	int getopt_status; /* for an option error: mariabackup's (my_getopt's) exit status, else 0 */
} xb_error;

/* my_getopt's exit statuses, which mariabackup returns for a bad option. */
enum {
	XB_GETOPT_UNKNOWN_OPTION = 2,   /* an unknown option without a value */
	XB_GETOPT_NO_ARGUMENT_ALLOWED = 4, /* a value given to an option that takes none */
	XB_GETOPT_ARGUMENT_REQUIRED = 5, /* an option that needs a value got none */
	XB_GETOPT_UNKNOWN_VARIABLE = 7, /* an unknown option with a value (always so in option files) */
	XB_GETOPT_ARGUMENT_INVALID = 13, /* a value of the wrong type or out of range */
};

/* The process exit status for an error code: the code itself when detailed,
 * else mariabackup's: the option error's getopt_status, or 1. */
int xb_err_exit_status(const xb_error *err, int code, int detailed);

/* Set code and message (printf style); returns code so callers can `return xb_err_set(...)`. */
int xb_err_set(xb_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Add or replace the hint of an already set error; returns err->code (or 0 when err is NULL). */
int xb_err_hint(xb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix the message with "context: " (for adding the file name at a higher level). */
int xb_err_prefix(xb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Clear an error object. */
void xb_err_clear(xb_error *err);

/* Name ("CORRUPT_PAGE") and description of a code, for --help, man page and logs. */
const char *xb_err_name(int code);
const char *xb_err_desc(int code);

/* Iterate the table: fills code, name and desc for index i, returns 0 past the end. */
int xb_err_table(int i, int *code, const char **name, const char **desc);

#endif
