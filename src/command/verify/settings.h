/*
 * settings.h - the options of --verify, resolved once at the start.
 */
#ifndef XB_VERIFY_SETTINGS_H
#define XB_VERIFY_SETTINGS_H

#include "common/error.h"
#include "config/options.h"

typedef struct verify_settings {
	const char *dir; /* --target-dir: the backup to check */
	int threads;     /* --parallel, else one per CPU (at most 8): files read at once */
} verify_settings;

/* XB_E_USAGE when --target-dir is missing. */
int verify_settings_resolve(const xb_options *o, verify_settings *s, xb_error *err);

#endif
