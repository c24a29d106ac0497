/*
 * sink_crypt.c - AES-256-GCM encryption and decryption filters, and the key
 * (see sink_crypt.h).
 *
 * File format ("<relpath>.xbcrypt"; integers little-endian unless said):
 *
 *   header, 40 bytes:
 *     0   8  magic "XBAEAD01" (not Percona's XBCRYP0x: the formats differ)
 *     8   1  format version, 1
 *     9   1  cipher, 1 = AES-256-GCM
 *    10   2  flags, 0 (a reader refuses others)
 *    12   4  C: plaintext bytes per chunk (4 KiB .. 16 MiB; written: 256 KiB)
 *    16   8  N: nonce prefix, random for every file (RAND_bytes)
 *    24  16  header tag: GCM over no plaintext, IV = N || FF FF FF FF,
 *            AAD = bytes 0..23; it proves the key before any data is read
 *   then chunks i = 0, 1, 2 ...:
 *     ciphertext of C plaintext bytes (the last chunk: 0..C bytes)
 *     16-byte GCM tag
 *     IV  = N || i (32-bit big-endian), i < 0xFFFFFFFF
 *     AAD = header bytes 0..23 || i (32-bit big-endian) || last (1 byte, 0 or 1)
 *
 * Every file ends with exactly one chunk sealed with last = 1, of 1..C
 * plaintext bytes (0 only for an empty file), so chunk lengths need not be
 * stored: every chunk but the last is C + 16 bytes, and the last is what
 * remains. What this detects:
 *   wrong key             the header tag fails (before any chunk);
 *   altered bytes         the tag of the header or of that chunk fails;
 *   reordered chunks      the index is in the IV;
 *   chunks from another   the per-file nonce is in the IV and the header
 *     file, same key        (with C) in the AAD;
 *   truncation            the remaining chunk is not sealed as last; cut
 *                         at a chunk boundary it verifies as a middle
 *                         chunk, which is reported as "truncated";
 *   appended data         the real last chunk is then read as a middle one.
 * A 64-bit random nonce prefix per file keeps IVs unique for any realistic
 * number of files per key (a collision needs ~2^32 files).
 *
 * The decryptor verifies each chunk's tag before its plaintext goes to the
 * inner sink: nothing unauthenticated is ever written. Files not named
 * *.xbcrypt pass through it unchanged. Encryption and decryption run in the
 * writing thread (AES-GCM with AES-NI is several GB/s). Up to OUT_CHUNKS
 * sealed or opened chunks are gathered before one write to the inner sink.
 */
#include "sink_crypt.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "platform/file.h"

#define MAGIC "XBAEAD01"
#define VERSION 1
#define CIPHER_AES256GCM 1
#define HDR_BODY 24              /* header bytes covered by the tags */
#define TAG_LEN 16
#define HDR_LEN (HDR_BODY + TAG_LEN)
#define NONCE_LEN 8
#define IV_LEN 12
#define AAD_LEN (HDR_BODY + 5)
#define HEADER_INDEX 0xFFFFFFFFu /* IV index of the header tag; chunks stay below */
#define CHUNK_WRITE (256u << 10) /* plaintext bytes per chunk written */
#define CHUNK_MIN 4096u
#define CHUNK_MAX (16u << 20)
#define OUT_CHUNKS 4             /* chunks gathered per inner write */
#define BUF_ALIGN 4096u          /* so a directory sink can write it with direct I/O */
#define SUFFIX ".xbcrypt"
#define SUFFIX_LEN 8
#define KEY_HINT "generate one with: openssl rand -hex 32 > FILE && chmod 600 FILE"

typedef struct crypt_sink {
	xb_sink base;            /* must be first */
	xb_sink *inner;          /* owned */
	bool decrypt;            /* decryptor, else encryptor */
	EVP_CIPHER *cipher;      /* AES-256-GCM, fetched once */
	uint8_t key[XB_CRYPT_KEY_LEN];
} crypt_sink;

typedef struct crypt_file {
	xb_sink *sink;           /* must be first: owning sink */
	xb_sink_file *inner;     /* the file in the inner sink */
	EVP_CIPHER_CTX *ctx;     /* keyed context; NULL: passed through */
	uint8_t hdr[HDR_LEN];    /* the header (decrypt: as received) */
	size_t hdrlen;           /* decrypt: header bytes received so far */
	uint32_t chunk;          /* plaintext bytes per chunk */
	uint32_t index;          /* next chunk */
	uint64_t offset;         /* decrypt: offset in the file of the next chunk */
	uint8_t *in;             /* pending plaintext (encrypt) or sealed chunk (decrypt) */
	size_t inlen;            /* bytes in `in` */
	uint8_t *out;            /* sealed (encrypt) or verified plaintext (decrypt) output */
	size_t outlen, outcap;   /* bytes waiting in `out`, its size */
	char name[];             /* the name given to open(), for messages */
} crypt_file;

static bool has_suffix(const char *s)
{
	size_t n = strlen(s);
	return n > SUFFIX_LEN && !strcmp(s + n - SUFFIX_LEN, SUFFIX);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One GCM operation. enc: src -> dst and tag out; else src -> dst checked
 * against tag. Returns 0 when done (and, decrypting, authentic). */
static int gcm(crypt_file *f, bool enc, uint32_t index, int last, const uint8_t *src, size_t len,
	       uint8_t *dst, uint8_t tag[TAG_LEN])
{
	uint8_t iv[IV_LEN], aad[AAD_LEN];
	memcpy(iv, f->hdr + 16, NONCE_LEN);
	put_be32(iv + NONCE_LEN, index);
	memcpy(aad, f->hdr, HDR_BODY);
	size_t aadlen = HDR_BODY;
	if (last >= 0) { /* a chunk; the header tag has the body alone */
		put_be32(aad + HDR_BODY, index);
		aad[HDR_BODY + 4] = (uint8_t)last;
		aadlen = AAD_LEN;
	}
	int n = 0, m = 0;
	if (enc) {
		if (EVP_EncryptInit_ex(f->ctx, NULL, NULL, NULL, iv) != 1 ||
		    EVP_EncryptUpdate(f->ctx, NULL, &n, aad, (int)aadlen) != 1 ||
		    (len && EVP_EncryptUpdate(f->ctx, dst, &n, src, (int)len) != 1) ||
		    EVP_EncryptFinal_ex(f->ctx, dst + (len ? n : 0), &m) != 1 ||
		    EVP_CIPHER_CTX_ctrl(f->ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, tag) != 1)
			return -1;
		return 0;
	}
	if (EVP_DecryptInit_ex(f->ctx, NULL, NULL, NULL, iv) != 1 ||
	    EVP_DecryptUpdate(f->ctx, NULL, &n, aad, (int)aadlen) != 1 ||
	    (len && EVP_DecryptUpdate(f->ctx, dst, &n, src, (int)len) != 1) ||
	    EVP_CIPHER_CTX_ctrl(f->ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, tag) != 1 ||
	    EVP_DecryptFinal_ex(f->ctx, dst + (len ? n : 0), &m) != 1)
		return -1;
	return 0;
}

static int flush_out(crypt_file *f, xb_error *err)
{
	if (!f->outlen)
		return 0;
	int rc = xb_sink_write(f->inner, f->out, f->outlen, err);
	f->outlen = 0;
	return rc;
}

static int alloc_buffers(crypt_file *f, xb_error *err)
{
	size_t sealed = (size_t)f->chunk + TAG_LEN;
	f->outcap = OUT_CHUNKS * sealed + HDR_LEN;
	if (posix_memalign((void **)&f->in, BUF_ALIGN, sealed))
		f->in = NULL;
	if (posix_memalign((void **)&f->out, BUF_ALIGN, f->outcap))
		f->out = NULL;
	if (!f->in || !f->out)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	return 0;
}

static void file_free(crypt_file *f)
{
	EVP_CIPHER_CTX_free(f->ctx);
	free(f->in);
	free(f->out);
	free(f);
}

static xb_sink_file *cs_open(xb_sink *s, const char *relpath, xb_error *err)
{
	crypt_sink *cs = (crypt_sink *)s;
	size_t n = strlen(relpath);
	bool code = !cs->decrypt || has_suffix(relpath);
	/* room for the name used in messages and, after it, the inner name */
	crypt_file *f = calloc(1, sizeof *f + 2 * (n + SUFFIX_LEN + 1));
	if (!f) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	f->sink = s;
	memcpy(f->name, relpath, n + 1);
	const char *inner_name = f->name;
	if (code && !cs->decrypt) {
		memcpy(f->name + n, SUFFIX, SUFFIX_LEN + 1); /* x -> x.xbcrypt */
	} else if (code) {
		char *bare = f->name + n + SUFFIX_LEN + 1; /* x.xbcrypt -> x */
		memcpy(bare, relpath, n - SUFFIX_LEN);
		bare[n - SUFFIX_LEN] = '\0';
		inner_name = bare;
	}
	if (code) {
		f->ctx = EVP_CIPHER_CTX_new();
		if (!f->ctx || EVP_CipherInit_ex(f->ctx, cs->cipher, NULL, cs->key, NULL, !cs->decrypt) != 1) {
			xb_err_set(err, XB_E_INTERNAL, "cannot set up AES-256-GCM for %s", f->name);
			file_free(f);
			return NULL;
		}
	}
	if (code && !cs->decrypt) {
		f->chunk = CHUNK_WRITE;
		if (alloc_buffers(f, err)) {
			file_free(f);
			return NULL;
		}
		memcpy(f->hdr, MAGIC, 8);
		f->hdr[8] = VERSION;
		f->hdr[9] = CIPHER_AES256GCM;
		f->hdr[10] = f->hdr[11] = 0;
		put_le32(f->hdr + 12, f->chunk);
		if (RAND_bytes(f->hdr + 16, NONCE_LEN) != 1 ||
		    gcm(f, true, HEADER_INDEX, -1, NULL, 0, NULL, f->hdr + HDR_BODY)) {
			xb_err_set(err, XB_E_INTERNAL, "cannot start encrypting %s: no random nonce", f->name);
			file_free(f);
			return NULL;
		}
		memcpy(f->out, f->hdr, HDR_LEN);
		f->outlen = HDR_LEN;
	}
	f->inner = xb_sink_open(cs->inner, inner_name, err);
	if (!f->inner) {
		file_free(f);
		return NULL;
	}
	return (xb_sink_file *)f;
}

/* Seal one chunk into the output (written out when it cannot take another). */
static int seal(crypt_file *f, const uint8_t *src, size_t len, bool last, xb_error *err)
{
	if (f->index == HEADER_INDEX)
		return xb_err_set(err, XB_E_INTERNAL, "%s is too large to encrypt (over %u chunks of %u bytes)",
				  f->name, HEADER_INDEX, f->chunk);
	if (f->outlen + len + TAG_LEN > f->outcap && flush_out(f, err))
		return err ? err->code : XB_E_IO_WRITE;
	uint8_t *dst = f->out + f->outlen;
	if (gcm(f, true, f->index, last, src, len, dst, dst + len))
		return xb_err_set(err, XB_E_INTERNAL, "%s: AES-256-GCM encryption failed", f->name);
	f->outlen += len + TAG_LEN;
	f->index++;
	return 0;
}

static int enc_write(crypt_file *f, const uint8_t *p, size_t len, xb_error *err)
{
	while (len > 0) {
		/* a full chunk with more data after it: not the last one */
		if (f->inlen == f->chunk) {
			if (seal(f, f->in, f->chunk, false, err))
				return err ? err->code : XB_E_INTERNAL;
			f->inlen = 0;
		}
		if (f->inlen == 0 && len > f->chunk) { /* straight from the caller's buffer */
			if (seal(f, p, f->chunk, false, err))
				return err ? err->code : XB_E_INTERNAL;
			p += f->chunk;
			len -= f->chunk;
			continue;
		}
		size_t n = f->chunk - f->inlen < len ? f->chunk - f->inlen : len;
		memcpy(f->in + f->inlen, p, n);
		f->inlen += n;
		p += n;
		len -= n;
	}
	return 0;
}

static int bad_chunk(crypt_file *f, bool at_end, xb_error *err)
{
	xb_err_set(err, XB_E_DECRYPT, "%s: chunk %u at offset %llu failed authentication: wrong key or altered data%s",
		   f->name, f->index, (unsigned long long)f->offset, at_end ? " (or the file is truncated)" : "");
	return xb_err_hint(err, "the header matched the key, so the file was altered or damaged after it was "
			   "written; use another copy of the backup");
}

static int truncated(crypt_file *f, const char *what, xb_error *err)
{
	xb_err_set(err, XB_E_STREAM_CORRUPT, "%s is truncated (%s)", f->name, what);
	return xb_err_hint(err, "the file was cut short (an interrupted copy or transfer?); use another copy of the backup");
}

/* Verify and decrypt one chunk (sealed: ciphertext and tag) into the output. */
static int open_chunk(crypt_file *f, const uint8_t *src, size_t sealed, bool last, xb_error *err)
{
	size_t len = sealed - TAG_LEN;
	if (f->index == HEADER_INDEX)
		return xb_err_set(err, XB_E_STREAM_CORRUPT, "%s has more than %u chunks", f->name, HEADER_INDEX - 1);
	if (f->outlen + len > f->outcap && flush_out(f, err))
		return err ? err->code : XB_E_IO_WRITE;
	uint8_t tag[TAG_LEN];
	memcpy(tag, src + len, TAG_LEN);
	uint8_t *dst = f->out + f->outlen;
	if (gcm(f, false, f->index, last, src, len, dst, tag)) {
		/* tell the truncated and extended files from altered ones */
		if (!last && gcm(f, false, f->index, 1, src, len, dst, tag) == 0)
			return xb_err_set(err, XB_E_STREAM_CORRUPT, "%s has data after its last chunk (offset %llu)",
					  f->name, (unsigned long long)(f->offset + sealed)),
			       xb_err_hint(err, "the file was altered after it was written; use another copy of the backup");
		if (last && sealed == (size_t)f->chunk + TAG_LEN && gcm(f, false, f->index, 0, src, len, dst, tag) == 0)
			return truncated(f, "no last chunk", err);
		return bad_chunk(f, last, err);
	}
	f->outlen += len;
	f->index++;
	f->offset += sealed;
	return 0;
}

static int parse_header(crypt_file *f, xb_error *err)
{
	const uint8_t *h = f->hdr;
	if (memcmp(h, MAGIC, 7)) {
		xb_err_set(err, XB_E_STREAM_CORRUPT, "%s is not a file encrypted by xtrabackup (no XBAEAD header)", f->name);
		if (!memcmp(h, "XBCRYP0", 7))
			xb_err_hint(err, "it is in Percona XtraBackup's xbcrypt format: decrypt it with Percona's xbcrypt");
		return err ? err->code : XB_E_STREAM_CORRUPT;
	}
	if (h[7] != MAGIC[7] || h[8] != VERSION || h[9] != CIPHER_AES256GCM || h[10] || h[11])
		return xb_err_set(err, XB_E_STREAM_CORRUPT, "%s: unsupported encryption format (%.8s version %u, cipher %u)",
				  f->name, (const char *)h, h[8], h[9]),
		       xb_err_hint(err, "it was written by a newer xtrabackup: decrypt it with that version");
	if (gcm(f, false, HEADER_INDEX, -1, NULL, 0, NULL, f->hdr + HDR_BODY)) {
		xb_err_set(err, XB_E_DECRYPT, "%s: header (offset 0) failed authentication: wrong key or altered data",
			   f->name);
		return xb_err_hint(err, "give the key the backup was encrypted with (--encrypt-key-file)");
	}
	f->chunk = get_le32(h + 12);
	if (f->chunk < CHUNK_MIN || f->chunk > CHUNK_MAX) /* authentic, so written by a foreign tool */
		return xb_err_set(err, XB_E_STREAM_CORRUPT, "%s: unsupported chunk size %u", f->name, f->chunk);
	f->offset = HDR_LEN;
	return alloc_buffers(f, err);
}

static int dec_write(crypt_file *f, const uint8_t *p, size_t len, xb_error *err)
{
	while (len > 0) {
		if (f->hdrlen < HDR_LEN) {
			size_t n = HDR_LEN - f->hdrlen < len ? HDR_LEN - f->hdrlen : len;
			memcpy(f->hdr + f->hdrlen, p, n);
			f->hdrlen += n;
			p += n;
			len -= n;
			if (f->hdrlen == HDR_LEN && parse_header(f, err))
				return err ? err->code : XB_E_DECRYPT;
			continue;
		}
		size_t sealed = (size_t)f->chunk + TAG_LEN;
		/* a whole chunk with more data after it: not the last one */
		if (f->inlen == sealed) {
			if (open_chunk(f, f->in, sealed, false, err))
				return err ? err->code : XB_E_DECRYPT;
			f->inlen = 0;
		}
		if (f->inlen == 0 && len > sealed) { /* straight from the caller's buffer */
			if (open_chunk(f, p, sealed, false, err))
				return err ? err->code : XB_E_DECRYPT;
			p += sealed;
			len -= sealed;
			continue;
		}
		size_t n = sealed - f->inlen < len ? sealed - f->inlen : len;
		memcpy(f->in + f->inlen, p, n);
		f->inlen += n;
		p += n;
		len -= n;
	}
	return 0;
}

static int cs_write(xb_sink_file *file, const void *buf, size_t len, xb_error *err)
{
	crypt_file *f = (crypt_file *)file;
	int rc;
	if (!f->ctx)
		rc = xb_sink_write(f->inner, buf, len, err);
	else if (((crypt_sink *)f->sink)->decrypt)
		rc = dec_write(f, buf, len, err);
	else
		rc = enc_write(f, buf, len, err);
	if (!rc)
		atomic_fetch_add((_Atomic uint64_t *)&f->sink->bytes_written, len);
	return rc;
}

static void cs_abort(xb_sink_file *file)
{
	crypt_file *f = (crypt_file *)file;
	xb_sink_abort(f->inner);
	file_free(f);
}

/* The last chunk: sealed, or checked. */
static int finish_file(crypt_file *f, xb_error *err)
{
	if (!((crypt_sink *)f->sink)->decrypt) {
		if (seal(f, f->in, f->inlen, true, err))
			return err ? err->code : XB_E_INTERNAL;
		return flush_out(f, err);
	}
	if (f->hdrlen == 0)
		return xb_err_set(err, XB_E_STREAM_CORRUPT, "%s is empty: it holds no encryption header", f->name),
		       xb_err_hint(err, "the file was cut short (an interrupted copy or transfer?); use another copy of the backup");
	if (f->hdrlen < HDR_LEN)
		return truncated(f, "no complete header", err);
	if (f->inlen < TAG_LEN)
		return truncated(f, "no last chunk", err);
	if (open_chunk(f, f->in, f->inlen, true, err))
		return err ? err->code : XB_E_DECRYPT;
	return flush_out(f, err);
}

static int cs_close(xb_sink_file *file, xb_error *err)
{
	crypt_file *f = (crypt_file *)file;
	if (f->ctx) {
		int rc = finish_file(f, err);
		if (rc) {
			cs_abort(file);
			return rc;
		}
	}
	int rc = xb_sink_close(f->inner, err);
	file_free(f);
	return rc;
}

static int cs_finish(xb_sink *s, xb_error *err)
{
	return xb_sink_finish(((crypt_sink *)s)->inner, err);
}

static void cs_free(xb_sink *s)
{
	crypt_sink *cs = (crypt_sink *)s;
	xb_sink_free(cs->inner);
	EVP_CIPHER_free(cs->cipher);
	OPENSSL_cleanse(cs->key, sizeof cs->key);
	free(cs);
}

static const xb_sink_ops crypt_ops = {
	.open = cs_open,
	.write = cs_write,
	.close = cs_close,
	.abort = cs_abort,
	.finish = cs_finish,
	.free = cs_free,
};

static xb_sink *crypt_open(xb_sink *inner, const uint8_t key[XB_CRYPT_KEY_LEN], bool decrypt, xb_error *err)
{
	crypt_sink *cs = calloc(1, sizeof *cs);
	if (!cs) {
		xb_err_set(err, XB_E_INTERNAL, "out of memory");
		return NULL;
	}
	cs->cipher = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
	if (!cs->cipher) {
		free(cs);
		xb_err_set(err, XB_E_INTERNAL, "OpenSSL provides no AES-256-GCM");
		return NULL;
	}
	cs->base.ops = &crypt_ops;
	cs->base.name = inner->name;
	cs->inner = inner;
	cs->decrypt = decrypt;
	memcpy(cs->key, key, XB_CRYPT_KEY_LEN);
	return &cs->base;
}

xb_sink *xb_sink_encrypt_open(xb_sink *inner, const uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err)
{
	return crypt_open(inner, key, false, err);
}

xb_sink *xb_sink_decrypt_open(xb_sink *inner, const uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err)
{
	return crypt_open(inner, key, true, err);
}

/* ---- the key ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 64 hex digits and at most one final newline (\n or \r\n). `what` names
 * the source in messages; the text itself is never shown. */
static int parse_key(const char *what, const char *s, size_t len, uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err)
{
	if (len && s[len - 1] == '\n')
		len -= 1 + (len > 1 && s[len - 2] == '\r');
	if (!len)
		return xb_err_set(err, XB_E_USAGE, "%s is empty: the key is 64 hex digits (256 bits)", what),
		       xb_err_hint(err, KEY_HINT);
	for (size_t i = 0; i < len; i++)
		if (hexval(s[i]) < 0)
			return xb_err_set(err, XB_E_USAGE,
					  "%s: character %zu is not a hex digit: the key is 64 hex digits (0-9, a-f) "
					  "and at most one newline", what, i + 1),
			       xb_err_hint(err, KEY_HINT);
	if (len != 2 * XB_CRYPT_KEY_LEN)
		return xb_err_set(err, XB_E_USAGE, "%s holds %zu hex digits: the key is exactly 64 (256 bits)", what, len),
		       xb_err_hint(err, KEY_HINT);
	for (size_t i = 0; i < XB_CRYPT_KEY_LEN; i++)
		key[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
	return 0;
}

static int load_key_file(const char *path, uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err)
{
	char what[4200];
	snprintf(what, sizeof what, "--encrypt-key-file %s", path);
	int fd = xb_file_open(XB_FILE_CWD, path, XB_FILE_READ, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, XB_E_USAGE, "cannot open %s: %s", what, strerror(errno)),
		       xb_err_hint(err, KEY_HINT);
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return xb_err_set(err, XB_E_USAGE, "%s is not a regular file", what);
	}
	if (st.st_mode & (S_IRGRP | S_IROTH))
		xb_warn("%s can be read by other users (mode %04o): chmod 600 %s", what, (unsigned)(st.st_mode & 07777),
			path);
	char buf[256];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof buf - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			OPENSSL_cleanse(buf, sizeof buf);
			return xb_err_set(err, XB_E_USAGE, "cannot read %s: %s", what, strerror(e));
		}
		if (n == 0 || (len += (size_t)n) == sizeof buf)
			break;
	}
	close(fd);
	int rc = len == sizeof buf
		? (xb_err_set(err, XB_E_USAGE, "%s is too long: the key is 64 hex digits (256 bits)", what),
		   xb_err_hint(err, KEY_HINT))
		: parse_key(what, buf, len, key, err);
	OPENSSL_cleanse(buf, sizeof buf);
	return rc;
}

int xb_crypt_key_load(const xb_crypt_settings *s, uint8_t key[XB_CRYPT_KEY_LEN], xb_error *err)
{
	if (s->key_file)
		return load_key_file(s->key_file, key, err);
	if (s->key_hex) {
		if (s->key_hex_on_command_line)
			xb_warn("--encrypt-key on the command line can be seen by other users: use --encrypt-key-file");
		return parse_key("--encrypt-key", s->key_hex, strlen(s->key_hex), key, err);
	}
	return xb_err_set(err, XB_E_USAGE, "%s needs --encrypt-key-file", s->opt ? s->opt : "--encrypt"),
	       xb_err_hint(err, KEY_HINT);
}
