/*
 * arialog.c - the Aria log files a backup keeps (see arialog.h).
 */
#include "arialog.h"

#include <stdio.h>
#include <string.h>

uint32_t arialog_number(const char *name)
{
	if (strncmp(name, "aria_log.", 9) != 0 || strlen(name) != 17 || strspn(name + 9, "0123456789") != 8)
		return 0;
	uint32_t v = 0;
	for (const char *p = name + 9; *p; p++)
		v = v * 10 + (uint32_t)(*p - '0');
	return v;
}

void arialog_name(uint32_t no, char *out)
{
	snprintf(out, ARIALOG_NAME_SIZE, "aria_log.%08u", (unsigned)no);
}

void arialog_needed_row(arialog_needed *n, const char *name, const char *status)
{
	n->rows++;
	/* the file name ends the Name column, after the directory or "Size N ; " */
	const char *base = name ? strrchr(name, '/') : NULL;
	if (!base && name)
		base = strrchr(name, ' ');
	base = base ? base + 1 : name;
	uint32_t no = base ? arialog_number(base) : 0;
	if (!no || !status) {
		n->unclear = true;
		return;
	}
	if (!strcmp(status, "free")) {
		if (no > n->max_free)
			n->max_free = no;
	} else if (!n->min_used || no < n->min_used) {
		n->min_used = no;
	}
}

uint32_t arialog_first_needed(const arialog_needed *n)
{
	if (n->unclear || !n->rows || !n->max_free)
		return 0;
	/* "free" only ever comes before the needed files; anything else is unclear */
	if (n->min_used && n->min_used <= n->max_free)
		return 0;
	return n->max_free + 1;
}
