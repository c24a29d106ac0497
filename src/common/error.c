/*
 * error.c - the error object and the table of stable error codes.
 *
 * The table comes from error.def through an X-macro so that the enum, the
 * names printed in logs and the exit-code table of the man page can never
 * disagree.
 */
#include "error.h"

#include <stdio.h>
#include <string.h>

static const struct {
	int code;
	const char *name;
	const char *desc;
} table[] = {
#define XB_ERROR(name, code, desc) {code, #name, desc},
#include "error.def"
#undef XB_ERROR
};

int xb_err_set(xb_error *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	va_list ap;
	va_start(ap, fmt);
	err->code = code;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->hint[0] = '\0';
	err->getopt_status = 0;
	return code;
}

int xb_err_hint(xb_error *err, const char *fmt, ...)
{
	if (!err)
		return 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof err->hint, fmt, ap);
	va_end(ap);
	return err->code;
}

int xb_err_prefix(xb_error *err, const char *fmt, ...)
{
	if (!err)
		return 0;
	char pre[512], old[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	size_t pl = strnlen(pre, sizeof pre - 1);
	memcpy(err->msg, pre, pl);
	memcpy(err->msg + pl, ": ", 2);
	size_t room = sizeof err->msg - pl - 3;
	size_t ol = strnlen(old, room);
	memcpy(err->msg + pl + 2, old, ol);
	err->msg[pl + 2 + ol] = '\0';
	return err->code;
}

void xb_err_clear(xb_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
	err->hint[0] = '\0';
	err->getopt_status = 0;
}

int xb_err_exit_status(const xb_error *err, int code, int detailed)
{
	if (code == 0)
		return 0;
	if (detailed)
		return code;
	if (err && err->code == code && err->getopt_status)
		return err->getopt_status;
	return 1;
}

const char *xb_err_name(int code)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].code == code)
			return table[i].name;
	return "UNKNOWN";
}

const char *xb_err_desc(int code)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].code == code)
			return table[i].desc;
	return "unknown error";
}

int xb_err_table(int i, int *code, const char **name, const char **desc)
{
	if (i < 0 || (size_t)i >= sizeof table / sizeof table[0])
		return 0;
	*code = table[i].code;
	*name = table[i].name;
	*desc = table[i].desc;
	return 1;
}
