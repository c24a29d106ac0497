/*
 * settings.h - what xbstream -x was asked to do, resolved once from the
 * options (mbstream's -C and -p already rewritten to --directory and
 * --parallel).
 *
 * cmd_xbstream_extract() turns the option table into an xbstream_settings
 * (settings.c); xbstream.c reads only this struct. Values were checked by the
 * parser against the table's ranges and choices; strings point into the
 * option table, which lives as long as the command.
 */
#ifndef XB_XBSTREAM_SETTINGS_H
#define XB_XBSTREAM_SETTINGS_H

#include <stdbool.h>

#include "common/error.h"
#include "config/options.h"
#include "sink/sink_crypt.h"

typedef struct xbstream_settings {
	const char *dir;          /* --directory (-C): where to extract, default the current directory */
	bool decompress;          /* --decompress: *.zst and *.qp come out decompressed */
	bool decrypt;             /* --decrypt=AES256: *.xbcrypt come out decrypted */
	int workers;              /* --parallel (-p): files written at once */
	xb_crypt_settings crypt;  /* with decrypt: where the key comes from */
} xbstream_settings;

/* Resolve the settings of xbstream -x (XB_E_USAGE naming what is wrong, e.g.
 * --decrypt without a key). */
int xbstream_settings_resolve(const xb_options *o, xbstream_settings *s, xb_error *err);

#endif
