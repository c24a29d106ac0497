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

#include <stdint.h>

#include "config/options.h"
#include "sink.h"

#define XB_CRYPT_KEY_LEN 32

/* Read the key named by the options (--encrypt-key-file, else --encrypt-key)
 * and check the algorithm given to --encrypt/--decrypt (AES256). */
int xb_crypt_key_load(const xb_options *o, uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err);

/* Takes ownership of inner; key is copied. */
xb_sink *xb_sink_encrypt_open(xb_sink *inner, const uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err);
xb_sink *xb_sink_decrypt_open(xb_sink *inner, const uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err);

#endif
