/*
 * filerules.c - extension table for non-InnoDB files (see filerules.h).
 */
#include "filerules.h"

#include "arialog.h"

#include <string.h>
#include <strings.h>

static const struct {
	const char *ext;  /* extension without the dot */
	int kind;         /* FR_* */
} rules[] = {
	{"frm", FR_PLAIN}, {"par", FR_PLAIN}, {"opt", FR_PLAIN}, {"TRG", FR_PLAIN}, {"TRN", FR_PLAIN},
	{"isl", FR_PLAIN}, {"MYD", FR_PLAIN}, {"MYI", FR_PLAIN}, {"MRG", FR_PLAIN}, {"CSV", FR_PLAIN},
	{"CSM", FR_PLAIN}, {"ARZ", FR_PLAIN}, {"ARM", FR_PLAIN}, {"MAD", FR_ARIA}, {"MAI", FR_ARIA},
};

int filerule_classify(const char *name)
{
	if (name[0] == '#' || name[0] == '.')
		return FR_NONE;
	const char *dot = strrchr(name, '.');
	if (!dot)
		return FR_NONE;
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (!strcmp(dot + 1, rules[i].ext))
			return rules[i].kind;
	return FR_NONE;
}

bool filerule_is_aria_log(const char *name)
{
	return !strcmp(name, "aria_log_control") || arialog_number(name) != 0;
}
