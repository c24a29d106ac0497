/*
 * settings.h - what --decompress / --decrypt was asked to do, resolved once
 * from the options.
 *
 * cmd_decode() turns the option table into a decode_settings first
 * (settings.c); decode.c reads only this struct. Values were checked by the
 * parser against the table's ranges and choices; strings point into the
 * option table, which lives as long as the command.
 */
#ifndef XB_DECODE_SETTINGS_H
#define XB_DECODE_SETTINGS_H

#include <stdbool.h>

#include "common/error.h"
#include "config/options.h"
#include "sink/sink_crypt.h"

typedef struct decode_settings {
	const char *dir;          /* --target-dir: the local backup directory decoded in place */
	bool decrypt;             /* --decrypt=AES256: *.xbcrypt files */
	bool decompress;          /* --decompress: *.zst and *.qp files */
	bool remove;              /* --remove-original */
	int threads;              /* --parallel */
	const char *progress;     /* --progress: auto, meter, log, numeric or none */
	xb_crypt_settings crypt;  /* with decrypt: where the key comes from */
} decode_settings;

/* Resolve the settings of --decompress / --decrypt (XB_E_USAGE naming what
 * is wrong, e.g. no local --target-dir). */
int decode_settings_resolve(const xb_options *o, decode_settings *s, xb_error *err);

#endif
