/*
 * sink_crypt_test.c - the AES-256-GCM filters with real bytes: round trips
 * of empty, one-byte, one-chunk and many-chunk files written in odd pieces,
 * and of several files from several threads at once; the format as
 * documented in sink_crypt.c, checked by decrypting with OpenSSL directly;
 * a wrong key, flipped bits in the header, a ciphertext or a tag, truncation
 * (at a chunk boundary, inside a chunk, inside the header), swapped chunks,
 * a chunk spliced from another file under the same key and appended data
 * are all refused, and nothing unauthenticated reaches the inner sink; key
 * files and --encrypt-key are parsed strictly, with exact messages (the key
 * source resolved from the options as the commands resolve it), and the
 * option table takes AES256 only. A small in-memory sink records what the
 * filters pass on.
 */
#include <CUnit/Basic.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/crypt_settings.h"
#include "config/options.h"
#include "sink/sink.h"
#include "sink/sink_crypt.h"

static char base[] = "/tmp/xb_crypt_test.XXXXXX";

#define C (256u << 10) /* plaintext bytes per chunk written */
#define HDR 40
#define TAG 16

#include "memsink.h"

static const uint8_t key1[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
				 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static const uint8_t key2[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
				 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 33};

static void write_pieces(xb_sink_file *f, const uint8_t *data, size_t len, size_t piece, int *rc, xb_error *err)
{
	for (size_t off = 0; off < len && !*rc; off += piece)
		*rc = xb_sink_write(f, data + off, len - off < piece ? len - off : piece, err);
}

/* Encrypt data as "db/t.ibd" with key; returns the .xbcrypt bytes. */
static uint8_t *encrypt_mem(const uint8_t *key, const uint8_t *data, size_t len, size_t piece, size_t *elen)
{
	xb_error err;
	xb_err_clear(&err);
	msink *m = msink_new();
	xb_sink *e = xb_sink_encrypt_open(&m->base, key, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	xb_sink_file *f = xb_sink_open(e, "db/t.ibd", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	int rc = 0;
	write_pieces(f, data, len, piece, &rc, &err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(xb_sink_close(f, &err), 0);
	CU_ASSERT_EQUAL(e->bytes_written, len);
	mrec *r = mfind(m, "db/t.ibd.xbcrypt");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_TRUE(r->closed);
	uint8_t *out = malloc(r->len + 1);
	memcpy(out, r->data, r->len);
	*elen = r->len;
	xb_sink_free(e);
	return out;
}

typedef struct result {
	int rc;          /* of write or close */
	xb_error err;
	int closed;      /* the decrypted file was published */
	int aborted;     /* it was discarded */
	int prefix_ok;   /* what reached the inner sink is a prefix of `expect` */
	size_t got;      /* bytes that reached it */
} result;

/* Decrypt bytes as "db/t.ibd.xbcrypt" with key. */
static result decrypt_mem(const uint8_t *key, const uint8_t *enc, size_t elen, size_t piece, const uint8_t *expect,
			  size_t explen)
{
	result res;
	memset(&res, 0, sizeof res);
	msink *m = msink_new();
	xb_sink *d = xb_sink_decrypt_open(&m->base, key, &res.err);
	xb_sink_file *f = xb_sink_open(d, "db/t.ibd.xbcrypt", &res.err);
	write_pieces(f, enc, elen, piece, &res.rc, &res.err);
	if (res.rc)
		xb_sink_abort(f);
	else
		res.rc = xb_sink_close(f, &res.err);
	mrec *r = mfind(m, "db/t.ibd");
	if (r) {
		res.closed = r->closed;
		res.aborted = r->aborted;
		res.got = r->len;
		res.prefix_ok = r->len <= explen && (r->len == 0 || !memcmp(r->data, expect, r->len));
	}
	xb_sink_free(d);
	return res;
}

static void roundtrip(size_t len, size_t piece)
{
	uint8_t *data = random_bytes(len);
	size_t elen = 0;
	uint8_t *enc = encrypt_mem(key1, data, len, piece, &elen);
	size_t chunks = len ? (len + C - 1) / C : 1;
	CU_ASSERT_EQUAL(elen, HDR + len + chunks * TAG);
	result r = decrypt_mem(key1, enc, elen, piece, data, len);
	CU_ASSERT_EQUAL(r.rc, 0);
	CU_ASSERT_TRUE(r.closed);
	CU_ASSERT_EQUAL(r.got, len);
	CU_ASSERT_TRUE(r.prefix_ok);
	/* and in other pieces than it was written in */
	r = decrypt_mem(key1, enc, elen, piece == 1 ? 65536 : 1 + piece / 3, data, len);
	CU_ASSERT_EQUAL(r.rc, 0);
	CU_ASSERT_EQUAL(r.got, len);
	free(enc);
	free(data);
}

static void test_roundtrip_small(void)
{
	roundtrip(0, 1);
	roundtrip(1, 1);
	roundtrip(1000, 7);
}

static void test_roundtrip_chunks(void)
{
	roundtrip(C - 1, 4096);
	roundtrip(C, C);
	roundtrip(C, 1);
	roundtrip(C + 1, 1 << 20);
	roundtrip(3 * C, 100000);
	roundtrip((5u << 20) + 7, 1 << 20);
	roundtrip((5u << 20) + 7, 3 * C + 5);
}

/* The format of sink_crypt.c's header comment, read with OpenSSL directly. */
static void test_format(void)
{
	size_t len = C + 100, elen = 0;
	uint8_t *data = random_bytes(len);
	uint8_t *enc = encrypt_mem(key1, data, len, len, &elen);
	CU_ASSERT_EQUAL_FATAL(elen, HDR + C + TAG + 100 + TAG);
	CU_ASSERT_EQUAL(memcmp(enc, "XBAEAD01", 8), 0);
	CU_ASSERT_EQUAL(enc[8], 1);
	CU_ASSERT_EQUAL(enc[9], 1);
	CU_ASSERT_EQUAL(enc[10] | enc[11], 0);
	CU_ASSERT_EQUAL(enc[12] | enc[13] << 8 | enc[14] << 16 | (uint32_t)enc[15] << 24, C);
	const EVP_CIPHER *aes = EVP_aes_256_gcm();
	for (uint32_t i = 0; i < 3; i++) { /* 2: the header tag */
		uint8_t iv[12], aad[29], out[C];
		memcpy(iv, enc + 16, 8);
		uint32_t idx = i == 2 ? 0xFFFFFFFFu : i;
		iv[8] = (uint8_t)(idx >> 24), iv[9] = (uint8_t)(idx >> 16), iv[10] = (uint8_t)(idx >> 8), iv[11] = (uint8_t)idx;
		memcpy(aad, enc, 24);
		aad[24] = 0, aad[25] = 0, aad[26] = 0, aad[27] = (uint8_t)i, aad[28] = i == 1;
		const uint8_t *ct = i == 0 ? enc + HDR : enc + HDR + C + TAG;
		int ctlen = i == 0 ? (int)C : i == 1 ? 100 : 0;
		const uint8_t *tag = i == 2 ? enc + 24 : ct + ctlen;
		EVP_CIPHER_CTX *cx = EVP_CIPHER_CTX_new();
		int n = 0, m = 0;
		CU_ASSERT_EQUAL(EVP_DecryptInit_ex(cx, aes, NULL, key1, iv), 1);
		CU_ASSERT_EQUAL(EVP_DecryptUpdate(cx, NULL, &n, aad, i == 2 ? 24 : 29), 1);
		if (ctlen)
			CU_ASSERT_EQUAL(EVP_DecryptUpdate(cx, out, &n, ct, ctlen), 1);
		CU_ASSERT_EQUAL(EVP_CIPHER_CTX_ctrl(cx, EVP_CTRL_AEAD_SET_TAG, 16, (void *)tag), 1);
		CU_ASSERT_EQUAL(EVP_DecryptFinal_ex(cx, out + n, &m), 1);
		EVP_CIPHER_CTX_free(cx);
		if (ctlen)
			CU_ASSERT_EQUAL(memcmp(out, data + (i == 0 ? 0 : C), (size_t)ctlen), 0);
	}
	/* the nonce is random: the same data encrypts differently */
	size_t elen2 = 0;
	uint8_t *enc2 = encrypt_mem(key1, data, len, len, &elen2);
	CU_ASSERT_NOT_EQUAL(memcmp(enc + 16, enc2 + 16, 8), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(enc + HDR, enc2 + HDR, 64), 0);
	free(enc2);
	free(enc);
	free(data);
}

static void test_wrong_key(void)
{
	size_t len = 3 * C + 5, elen = 0;
	uint8_t *data = random_bytes(len);
	uint8_t *enc = encrypt_mem(key1, data, len, 65536, &elen);
	result r = decrypt_mem(key2, enc, elen, 1 << 20, data, len);
	CU_ASSERT_EQUAL(r.rc, XB_E_DECRYPT);
	CU_ASSERT_STRING_EQUAL(r.err.msg, "db/t.ibd.xbcrypt: header (offset 0) failed authentication: wrong key or "
				       "altered data");
	CU_ASSERT_FALSE(r.closed);
	CU_ASSERT_TRUE(r.aborted);
	CU_ASSERT_EQUAL(r.got, 0);
	free(enc);
	free(data);
}

/* Flip one bit at off; expect code, a message containing want, and nothing
 * unauthenticated passed on. */
static void flip_expect(uint8_t *enc, size_t elen, size_t off, const uint8_t *data, size_t len, int code,
			const char *want)
{
	enc[off] ^= 0x04;
	result r = decrypt_mem(key1, enc, elen, 100000, data, len);
	enc[off] ^= 0x04;
	CU_ASSERT_EQUAL(r.rc, code);
	if (!strstr(r.err.msg, want))
		fprintf(stderr, "\nflip at %zu: got '%s', want '%s'\n", off, r.err.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err.msg, want));
	CU_ASSERT_FALSE(r.closed);
	CU_ASSERT_TRUE(r.prefix_ok);
	CU_ASSERT(r.got < len);
}

static void test_flipped_bits(void)
{
	size_t len = 10 * C + 333, elen = 0;
	uint8_t *data = random_bytes(len);
	uint8_t *enc = encrypt_mem(key1, data, len, 1 << 20, &elen);
	flip_expect(enc, elen, 0, data, len, XB_E_STREAM_CORRUPT, "is not a file encrypted by xtrabackup");
	flip_expect(enc, elen, 8, data, len, XB_E_STREAM_CORRUPT, "unsupported encryption format");
	flip_expect(enc, elen, 13, data, len, XB_E_DECRYPT, "header (offset 0) failed authentication");  /* chunk size */
	flip_expect(enc, elen, 19, data, len, XB_E_DECRYPT, "header (offset 0) failed authentication");  /* nonce */
	flip_expect(enc, elen, 30, data, len, XB_E_DECRYPT, "header (offset 0) failed authentication");  /* header tag */
	char want[200];
	size_t sealed = C + TAG;
	snprintf(want, sizeof want, "db/t.ibd.xbcrypt: chunk 0 at offset 40 failed authentication: wrong key or altered data");
	flip_expect(enc, elen, HDR + 5, data, len, XB_E_DECRYPT, want);
	snprintf(want, sizeof want, "chunk 7 at offset %zu failed authentication: wrong key or altered data", HDR + 7 * sealed);
	flip_expect(enc, elen, HDR + 7 * sealed + 1234, data, len, XB_E_DECRYPT, want);  /* ciphertext */
	flip_expect(enc, elen, HDR + 8 * sealed - 3, data, len, XB_E_DECRYPT, want);     /* its tag */
	snprintf(want, sizeof want, "chunk 10 at offset %zu failed authentication: wrong key or altered data (or the "
		 "file is truncated)", HDR + 10 * sealed);
	flip_expect(enc, elen, elen - 1, data, len, XB_E_DECRYPT, want);                 /* last tag */
	/* chunks 0..3 are authentic: they may have been passed on, nothing after */
	enc[HDR + 7 * sealed] ^= 1;
	result r = decrypt_mem(key1, enc, elen, 1 << 20, data, len);
	CU_ASSERT_TRUE(r.prefix_ok);
	CU_ASSERT(r.got <= 7 * C);
	free(enc);
	free(data);
}

static void test_truncated(void)
{
	size_t len = 3 * C + 100, elen = 0, sealed = C + TAG;
	uint8_t *data = random_bytes(len);
	uint8_t *enc = encrypt_mem(key1, data, len, 1 << 20, &elen);
	/* at a chunk boundary: the last chunk is missing */
	result r = decrypt_mem(key1, enc, HDR + 2 * sealed, 1 << 20, data, len);
	CU_ASSERT_EQUAL(r.rc, XB_E_STREAM_CORRUPT);
	CU_ASSERT_STRING_EQUAL(r.err.msg, "db/t.ibd.xbcrypt is truncated (no last chunk)");
	CU_ASSERT_FALSE(r.closed);
	CU_ASSERT_TRUE(r.prefix_ok);
	r = decrypt_mem(key1, enc, HDR + 3 * sealed, 4096, data, len);
	CU_ASSERT_STRING_EQUAL(r.err.msg, "db/t.ibd.xbcrypt is truncated (no last chunk)");
	r = decrypt_mem(key1, enc, HDR, 4096, data, len);
	CU_ASSERT_STRING_EQUAL(r.err.msg, "db/t.ibd.xbcrypt is truncated (no last chunk)");
	/* inside a chunk */
	r = decrypt_mem(key1, enc, HDR + sealed + 5000, 4096, data, len);
	CU_ASSERT_EQUAL(r.rc, XB_E_DECRYPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err.msg, "chunk 1 at offset"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err.msg, "(or the file is truncated)"));
	CU_ASSERT_FALSE(r.closed);
	r = decrypt_mem(key1, enc, elen - 1, 4096, data, len);
	CU_ASSERT_EQUAL(r.rc, XB_E_DECRYPT);
	r = decrypt_mem(key1, enc, HDR + 7, 4096, data, len);
	CU_ASSERT_STRING_EQUAL(r.err.msg, "db/t.ibd.xbcrypt is truncated (no last chunk)");
	/* inside the header, and nothing at all */
	r = decrypt_mem(key1, enc, 20, 4096, data, len);
	CU_ASSERT_EQUAL(r.rc, XB_E_STREAM_CORRUPT);
	CU_ASSERT_STRING_EQUAL(r.err.msg, "db/t.ibd.xbcrypt is truncated (no complete header)");
	r = decrypt_mem(key1, enc, 0, 4096, data, len);
	CU_ASSERT_STRING_EQUAL(r.err.msg, "db/t.ibd.xbcrypt is empty: it holds no encryption header");
	free(enc);
	free(data);
}

static void test_reordered_spliced_appended(void)
{
	size_t len = 4 * C + 10, elen = 0, sealed = C + TAG;
	uint8_t *data = random_bytes(len);
	uint8_t *enc = encrypt_mem(key1, data, len, 1 << 20, &elen);
	uint8_t *tmp = malloc(sealed);
	/* chunks 1 and 2 swapped */
	memcpy(tmp, enc + HDR + sealed, sealed);
	memcpy(enc + HDR + sealed, enc + HDR + 2 * sealed, sealed);
	memcpy(enc + HDR + 2 * sealed, tmp, sealed);
	result r = decrypt_mem(key1, enc, elen, 1 << 20, data, len);
	CU_ASSERT_EQUAL(r.rc, XB_E_DECRYPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err.msg, "chunk 1 at offset"));
	CU_ASSERT_TRUE(r.prefix_ok);
	memcpy(enc + HDR + 2 * sealed, enc + HDR + sealed, sealed);
	memcpy(enc + HDR + sealed, tmp, sealed);
	r = decrypt_mem(key1, enc, elen, 1 << 20, data, len);
	CU_ASSERT_EQUAL(r.rc, 0); /* put back: fine again */
	/* chunk 2 from another file with the same key and the same data */
	size_t elen2 = 0;
	uint8_t *other = encrypt_mem(key1, data, len, 1 << 20, &elen2);
	CU_ASSERT_EQUAL_FATAL(elen2, elen);
	memcpy(tmp, enc + HDR + 2 * sealed, sealed);
	memcpy(enc + HDR + 2 * sealed, other + HDR + 2 * sealed, sealed);
	r = decrypt_mem(key1, enc, elen, 1 << 20, data, len);
	CU_ASSERT_EQUAL(r.rc, XB_E_DECRYPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err.msg, "chunk 2 at offset"));
	memcpy(enc + HDR + 2 * sealed, tmp, sealed);
	/* the other file's header on our chunks */
	memcpy(tmp, enc, HDR);
	memcpy(enc, other, HDR);
	r = decrypt_mem(key1, enc, elen, 1 << 20, data, len);
	CU_ASSERT_EQUAL(r.rc, XB_E_DECRYPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err.msg, "chunk 0 at offset 40"));
	memcpy(enc, tmp, HDR);
	/* bytes appended */
	uint8_t *longer = malloc(elen + 100);
	memcpy(longer, enc, elen);
	memset(longer + elen, 0, 100);
	r = decrypt_mem(key1, longer, elen + 100, 1 << 20, data, len);
	CU_ASSERT_NOT_EQUAL(r.rc, 0);
	CU_ASSERT_FALSE(r.closed);
	free(longer);
	free(other);
	free(tmp);
	free(enc);
	free(data);
	/* after a full last chunk, recognised as such */
	len = 2 * C;
	data = random_bytes(len);
	enc = encrypt_mem(key1, data, len, 1 << 20, &elen);
	longer = malloc(elen + 10);
	memcpy(longer, enc, elen);
	memset(longer + elen, 'x', 10);
	r = decrypt_mem(key1, longer, elen + 10, 1 << 20, data, len);
	CU_ASSERT_EQUAL(r.rc, XB_E_STREAM_CORRUPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err.msg, "db/t.ibd.xbcrypt has data after its last chunk"));
	free(longer);
	free(enc);
	free(data);
}

static void test_passthrough(void)
{
	xb_error err;
	xb_err_clear(&err);
	msink *m = msink_new();
	xb_sink *d = xb_sink_decrypt_open(&m->base, key1, &err);
	CU_ASSERT_EQUAL(xb_sink_put(d, "db/t.ibd.zst", "abc", 3, &err), 0);
	mrec *r = mfind(m, "db/t.ibd.zst");
	CU_ASSERT(r && r->closed && r->len == 3 && !memcmp(r->data, "abc", 3));
	CU_ASSERT_EQUAL(d->bytes_written, 3);
	CU_ASSERT_EQUAL(xb_sink_finish(d, &err), 0);
	CU_ASSERT_EQUAL(m->finished, 1);
	xb_sink_free(d);
}

/* ---- several threads ---- */

typedef struct targ {
	xb_sink *s;
	int id;
	uint8_t *data[3];
	size_t len[3];
	int rc;
} targ;

static void *writer(void *arg)
{
	targ *t = arg;
	xb_error err;
	xb_err_clear(&err);
	for (int k = 0; k < 3 && !t->rc; k++) {
		char name[64];
		snprintf(name, sizeof name, "t%d/f%d.ibd", t->id, k);
		xb_sink_file *f = xb_sink_open(t->s, name, &err);
		if (!f) {
			t->rc = 1;
			break;
		}
		write_pieces(f, t->data[k], t->len[k], 50000 + (size_t)t->id * 999, &t->rc, &err);
		if (t->rc || xb_sink_close(f, &err))
			t->rc = 1;
	}
	return NULL;
}

static void test_threads(void)
{
	xb_error err;
	xb_err_clear(&err);
	msink *m = msink_new();
	xb_sink *e = xb_sink_encrypt_open(&m->base, key1, &err);
	enum { NT = 4 };
	targ t[NT];
	pthread_t th[NT];
	for (int i = 0; i < NT; i++) {
		memset(&t[i], 0, sizeof t[i]);
		t[i].s = e;
		t[i].id = i;
		for (int k = 0; k < 3; k++) {
			t[i].len[k] = (size_t)(i * 3 + k) * 123457;
			t[i].data[k] = random_bytes(t[i].len[k]);
		}
		pthread_create(&th[i], NULL, writer, &t[i]);
	}
	for (int i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(t[i].rc, 0);
	}
	msink *out = msink_new();
	xb_sink *d = xb_sink_decrypt_open(&out->base, key1, &err);
	for (int i = 0; i < NT; i++)
		for (int k = 0; k < 3; k++) {
			char name[64];
			snprintf(name, sizeof name, "t%d/f%d.ibd.xbcrypt", i, k);
			mrec *c = mfind(m, name);
			CU_ASSERT_PTR_NOT_NULL_FATAL(c);
			CU_ASSERT_EQUAL(xb_sink_put(d, name, c->data, c->len, &err), 0);
			name[strlen(name) - 8] = '\0';
			mrec *p = mfind(out, name);
			CU_ASSERT(p && p->len == t[i].len[k] && (!p->len || !memcmp(p->data, t[i].data[k], p->len)));
			free(t[i].data[k]);
		}
	xb_sink_free(d);
	xb_sink_free(e);
}

/* ---- the key ---- */

#define HEX64 "000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F"
#define KEY_HINT "generate one with: openssl rand -hex 32 > FILE && chmod 600 FILE"

/* The key named by the options, as a command loads it: key source resolved, then read. */
static int load_opts(const xb_options *o, uint8_t key[32], xb_error *err)
{
	xb_crypt_settings cs;
	crypt_settings_resolve(o, &cs);
	return xb_crypt_key_load(&cs, key, err);
}

/* Parse one option (and no option file) as the command line; the options are freed. */
static int parse_one(const char *arg, xb_error *err)
{
	char *argv[] = {"xtrabackup", "--no-defaults", (char *)arg, NULL};
	xb_options o;
	xb_err_clear(err);
	int rc = xb_options_parse(&o, 3, argv, err);
	xb_options_free(&o);
	return rc;
}

static int load_with(const char *content, const char *algo, bool decrypt, uint8_t key[32], xb_error *err,
		     char *path, size_t pathlen)
{
	snprintf(path, pathlen, "%s/key", base);
	FILE *f = fopen(path, "wb");
	fputs(content, f);
	fclose(f);
	chmod(path, 0600);
	xb_options o;
	memset(&o, 0, sizeof o);
	o.val[decrypt ? XB_OPT_DECRYPT : XB_OPT_ENCRYPT] = (char *)algo;
	o.val[XB_OPT_ENCRYPT_KEY_FILE] = path;
	xb_err_clear(err);
	memset(key, 0xee, 32);
	return load_opts(&o, key, err);
}

/* The message must be "--encrypt-key-file PATH" followed by rest. */
static void expect_msg(const char *content, const char *rest)
{
	char path[600], want[1200];
	uint8_t key[32];
	xb_error err;
	CU_ASSERT_EQUAL(load_with(content, "AES256", false, key, &err, path, sizeof path), XB_E_USAGE);
	snprintf(want, sizeof want, "--encrypt-key-file %s%s", path, rest);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_STRING_EQUAL(err.hint, KEY_HINT);
}

static void test_key_file(void)
{
	char path[600];
	uint8_t key[32], want[32];
	for (int i = 0; i < 32; i++)
		want[i] = (uint8_t)i;
	xb_error err;
	CU_ASSERT_EQUAL(load_with(HEX64, "AES256", false, key, &err, path, sizeof path), 0);
	CU_ASSERT_EQUAL(memcmp(key, want, 32), 0);
	CU_ASSERT_EQUAL(load_with(HEX64 "\n", "aes256", true, key, &err, path, sizeof path), 0);
	CU_ASSERT_EQUAL(memcmp(key, want, 32), 0);
	CU_ASSERT_EQUAL(load_with(HEX64 "\r\n", "Aes256", false, key, &err, path, sizeof path), 0);
	CU_ASSERT_EQUAL(memcmp(key, want, 32), 0);
	expect_msg(HEX64 "\n\n", ": character 65 is not a hex digit: the key is 64 hex digits "
				 "(0-9, a-f) and at most one newline");
	expect_msg("", " is empty: the key is 64 hex digits (256 bits)");
	expect_msg("\n", " is empty: the key is 64 hex digits (256 bits)");
	expect_msg(HEX64 "0", " holds 65 hex digits: the key is exactly 64 (256 bits)");
	char short_key[64];
	memcpy(short_key, HEX64, 63);
	short_key[63] = '\0';
	expect_msg(short_key, " holds 63 hex digits: the key is exactly 64 (256 bits)");
	char bad[80];
	snprintf(bad, sizeof bad, "%s", HEX64);
	bad[9] = 'g';
	expect_msg(bad, ": character 10 is not a hex digit: the key is 64 hex digits (0-9, a-f) "
			"and at most one newline");
	expect_msg(" " HEX64, ": character 1 is not a hex digit: the key is 64 hex digits (0-9, a-f) "
			      "and at most one newline");
	/* the algorithm: the option table takes AES256, in any case, and nothing else */
	CU_ASSERT_EQUAL(parse_one("--encrypt=aes256", &err), 0);
	CU_ASSERT_EQUAL(parse_one("--decrypt=Aes256", &err), 0);
	CU_ASSERT_EQUAL(parse_one("--encrypt=AES128", &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --encrypt: 'AES128' (command line): use AES256");
	CU_ASSERT_EQUAL(parse_one("--decrypt=rot13", &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --decrypt: 'rot13' (command line): use AES256");
	/* a missing file */
	xb_options o;
	memset(&o, 0, sizeof o);
	o.val[XB_OPT_ENCRYPT] = (char *)"AES256";
	snprintf(path, sizeof path, "%s/nokey", base);
	o.val[XB_OPT_ENCRYPT_KEY_FILE] = path;
	CU_ASSERT_EQUAL(load_opts(&o, key, &err), XB_E_USAGE);
	char want_msg[800];
	snprintf(want_msg, sizeof want_msg, "cannot open --encrypt-key-file %s: No such file or directory", path);
	CU_ASSERT_STRING_EQUAL(err.msg, want_msg);
}

static void test_key_option(void)
{
	xb_options o;
	memset(&o, 0, sizeof o);
	uint8_t key[32];
	xb_error err;
	xb_err_clear(&err);
	o.val[XB_OPT_ENCRYPT] = (char *)"AES256";
	CU_ASSERT_EQUAL(load_opts(&o, key, &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--encrypt needs --encrypt-key-file");
	CU_ASSERT_STRING_EQUAL(err.hint, KEY_HINT);
	o.val[XB_OPT_ENCRYPT] = NULL;
	o.val[XB_OPT_DECRYPT] = (char *)"AES256";
	CU_ASSERT_EQUAL(load_opts(&o, key, &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--decrypt needs --encrypt-key-file");
	o.val[XB_OPT_ENCRYPT_KEY] = (char *)HEX64;
	o.src[XB_OPT_ENCRYPT_KEY] = (char *)"/etc/my.cnf:12";
	CU_ASSERT_EQUAL(load_opts(&o, key, &err), 0);
	CU_ASSERT_EQUAL(key[31], 31);
	o.val[XB_OPT_ENCRYPT_KEY] = (char *)"abc";
	CU_ASSERT_EQUAL(load_opts(&o, key, &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--encrypt-key holds 3 hex digits: the key is exactly 64 (256 bits)");
	/* the key never appears in a message */
	o.val[XB_OPT_ENCRYPT_KEY] = (char *)HEX64 "z";
	CU_ASSERT_EQUAL(load_opts(&o, key, &err), XB_E_USAGE);
	CU_ASSERT_PTR_NULL(strstr(err.msg, "0001020304"));
}

int main(void)
{
	if (!mkdtemp(base))
		return 1;
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("sink_crypt", NULL, NULL);
	CU_add_test(s, "round trip: 0, 1 and 1000 bytes", test_roundtrip_small);
	CU_add_test(s, "round trip: around one chunk, many chunks, odd pieces", test_roundtrip_chunks);
	CU_add_test(s, "the documented format, read with OpenSSL directly", test_format);
	CU_add_test(s, "wrong key -> DECRYPT at the header, nothing passed on", test_wrong_key);
	CU_add_test(s, "flipped bits in header, ciphertext, tags", test_flipped_bits);
	CU_add_test(s, "truncated at a boundary, in a chunk, in the header", test_truncated);
	CU_add_test(s, "swapped, spliced and appended chunks", test_reordered_spliced_appended);
	CU_add_test(s, "other files pass through the decryptor", test_passthrough);
	CU_add_test(s, "several files from several threads", test_threads);
	CU_add_test(s, "key file: format and exact messages", test_key_file);
	CU_add_test(s, "--encrypt-key and a missing key", test_key_option);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", base);
	if (system(cmd)) {
		/* best effort */
	}
	return failed ? 1 : 0;
}
