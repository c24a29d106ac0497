/*
 * crypt_settings.h - where the key of --encrypt or --decrypt comes from,
 * resolved from the options for the commands that need it (--backup,
 * --decompress/--decrypt, xbstream -x).
 *
 * The algorithm needs no check here: the option table accepts AES256 only.
 * Reading and checking the key itself is the crypt sink's (xb_crypt_key_load),
 * when the command builds its chain.
 */
#ifndef XB_CRYPT_SETTINGS_H
#define XB_CRYPT_SETTINGS_H

#include "config/options.h"
#include "sink/sink_crypt.h"

/* Fill cs from --encrypt-key-file, --encrypt-key and whichever of --encrypt
 * (first) or --decrypt is given (named in messages). Pointers into o. */
void crypt_settings_resolve(const xb_options *o, xb_crypt_settings *cs);

#endif
