/*
 * log.c - stderr log lines with worker number and timestamp (see log.h).
 *
 * Each line is formatted into one buffer and written with a single write(2)
 * while holding a mutex, so lines from copy threads never mix.
 */
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static void (*before_line)(void);

void xb_log_lock(void) { pthread_mutex_lock(&log_mutex); }
void xb_log_unlock(void) { pthread_mutex_unlock(&log_mutex); }
void xb_log_set_before_line(void (*fn)(void)) { before_line = fn; }

static void write_all(const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, buf, len);
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static void vlog(int worker, const char *prefix, const char *fmt, va_list ap)
{
	char line[4096];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	int n = snprintf(line, sizeof line, "[%02d] %04d-%02d-%02d %02d:%02d:%02d %s",
			 worker, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, prefix);
	if (n < 0 || (size_t)n >= sizeof line)
		n = 0;
	int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	line[len++] = '\n';
	xb_log_lock();
	if (before_line)
		before_line();
	write_all(line, len);
	xb_log_unlock();
}

void xb_log(int worker, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(worker, "", fmt, ap);
	va_end(ap);
}

void xb_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(0, "Warning: ", fmt, ap);
	va_end(ap);
}

static void log_plain(int worker, const char *prefix, const char *s)
{
	xb_log(worker, "%s%s", prefix, s);
}

void xb_log_error(const xb_error *err)
{
	if (!err || !err->code)
		return;
	xb_log(0, "Error: [%03d] %s", err->code, err->msg);
	if (err->hint[0])
		log_plain(0, "HINT: ", err->hint);
}

void xb_log_raw(const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	size_t len = m < 0 ? 0 : (size_t)m;
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	line[len++] = '\n';
	xb_log_lock();
	if (before_line)
		before_line();
	write_all(line, len);
	xb_log_unlock();
}
