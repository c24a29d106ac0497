/*
 * sink_crypt.h - AES-256-GCM encryption and decryption filters.
 *
 * The encryptor writes "<relpath>.xbcrypt" to its inner sink: a header with a
 * random per-file nonce, then chunks each sealed with its own tag, the last
 * one marked as last, so a tampered, reordered or truncated file is detected.
 * The decryptor does the reverse for files named *.xbcrypt and passes every
 * other file through unchanged, and never passes on a byte whose chunk did
 * not authenticate. The byte layout is documented at the top of
 * sink_crypt.c.
 */
#ifndef XB_SINK_CRYPT_H
#define XB_SINK_CRYPT_H

#include <stdbool.h>
#include <stdint.h>

#include "sink.h"

#define XB_CRYPT_KEY_LEN 32

/* Where the key comes from: plain settings, resolved from the options by the
 * command (src/command/crypt_settings.h). */
typedef struct xb_crypt_settings {
	const char *opt;       /* the option that needs the key, for messages: "--encrypt" or "--decrypt" */
	const char *key_file;  /* --encrypt-key-file: 64 hex digits and at most one newline, or NULL */
	const char *key_hex;   /* --encrypt-key: 64 hex digits, or NULL; used when key_file is NULL */
	bool key_hex_on_command_line; /* key_hex was given on the command line (a warning says so) */
} xb_crypt_settings;

/* Read the key from key_file, else key_hex; with neither, XB_E_USAGE
 * "<opt> needs --encrypt-key-file". */
int xb_crypt_key_load(const xb_crypt_settings *s, uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err);

/* Takes ownership of inner; key is copied. */
xb_sink *xb_sink_encrypt_open(xb_sink *inner, const uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err);
xb_sink *xb_sink_decrypt_open(xb_sink *inner, const uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err);

#endif
