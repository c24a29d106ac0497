/*
 * settings.h - the options of --verify, resolved once at the start.
 */
#ifndef XB_VERIFY_SETTINGS_H
#define XB_VERIFY_SETTINGS_H

#include <stdbool.h>

#include "common/error.h"
#include "config/options.h"
#include "sink/sink_crypt.h"

typedef struct verify_settings {
	const char *dir; /* --target-dir: the backup to check */
	int threads;     /* --parallel: files read at once */
	bool decrypt;    /* --decrypt=AES256: encrypted files are decoded in memory */
	xb_crypt_settings crypt; /* with decrypt: where the key comes from */
} verify_settings;

/* XB_E_USAGE when --target-dir is missing. */
int verify_settings_resolve(const xb_options *o, verify_settings *s, xb_error *err);

#endif
