/*
 * xbstream_fuzz.c - libFuzzer target for the xbstream reader, the path
 * policy and the extraction engine (the code xbstream -x and --list run on
 * untrusted stream bytes).
 *
 * The first input byte picks a mode, the rest is the stream. Odd: the
 * reader alone pulls every chunk (checksums verified when bit 1 is set,
 * else checked afterwards with xbs_chunk_verify) and every path it returns
 * goes through xbs_path_check, remove chunks with their wildcard. Even: the
 * harness first rewrites the checksum of every payload chunk it can frame
 * to the right value, so mutations get past the checksum into the engine,
 * then runs it as --list does (offsets, end-of-file pairing, rename, remove
 * and rewrite bookkeeping; the listing goes to /dev/null). Input is handed
 * over in reads of at most 4099 bytes so chunks straddle the reader's
 * buffer. The seed corpus (test/fuzz/xbstream_corpus) holds small streams
 * of every chunk type, and the head of the mbstream -c fixture. Built with
 * clang -fsanitize=fuzzer,address,undefined by `make check-fuzz` and run
 * with -close_fd_mask=2 (the engine logs renames and removes on stderr);
 * any crash, leak, or undefined behaviour fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command/xbstream/xbstream_int.h"
#include "stream/xbstream_reader.h"

typedef struct src {
	const uint8_t *p;
	size_t n, pos;
} src;

static ssize_t rd(void *arg, void *buf, size_t len)
{
	src *s = arg;
	size_t k = s->n - s->pos;
	if (k > len)
		k = len;
	if (k > 4099)
		k = 4099;
	memcpy(buf, s->p + s->pos, k);
	s->pos += k;
	return (ssize_t)k;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Give every payload chunk that can be framed its right checksum. */
static void fix_checksums(uint8_t *p, size_t n)
{
	size_t at = 0;
	while (n - at >= XBS_HEADER_LEN) {
		uint8_t type = p[at + 9];
		uint64_t plen = le32(p + at + 10);
		if (plen > n - at - XBS_HEADER_LEN)
			return;
		size_t q = at + XBS_HEADER_LEN + (size_t)plen;
		if (type == 'E' || type == 'D') {
			at = q;
		} else if (type == 'S') {
			at = q + 8;
		} else if (type == 'R') {
			if (n - q < 4 || le32(p + q) > n - q - 4)
				return;
			at = q + 4 + le32(p + q);
		} else {
			if (n - q < 20)
				return;
			uint64_t len = (uint64_t)le32(p + q) | (uint64_t)le32(p + q + 4) << 32;
			if (len > n - q - 20)
				return;
			uint32_t crc = xbs_crc32(p + q + 20, (size_t)len);
			for (int i = 0; i < 4; i++)
				p[q + 16 + i] = (uint8_t)(crc >> (8 * i));
			at = q + 20 + (size_t)len;
		}
		if (at > n)
			return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	src s = {data + 1, size - 1, 0};
	uint8_t *copy = NULL;
	xb_error err;
	xb_err_clear(&err);
	if (!(mode & 1)) {
		copy = malloc(s.n ? s.n : 1);
		if (!copy)
			return 0;
		memcpy(copy, s.p, s.n);
		fix_checksums(copy, s.n);
		s.p = copy;
	}
	xbs_reader *r = xbs_reader_new(rd, &s, "fuzz", &err);
	if (!r) {
		free(copy);
		return 0;
	}
	if (mode & 1) {
		xbs_chunk c;
		memset(&c, 0, sizeof c);
		xbs_reader_set_verify(r, mode & 2);
		while (xbs_next(r, &c, &err) == 0 && c.type != XBS_END) {
			xbs_path_check(c.path, c.type == XBS_REMOVE, &err);
			if (c.type == XBS_RENAME)
				xbs_path_check(c.newpath, false, &err);
			if (c.type == XBS_PAYLOAD && !(mode & 2))
				xbs_chunk_verify(&c, &err);
		}
		xbs_chunk_release(&c);
	} else {
		static FILE *devnull;
		if (!devnull)
			devnull = fopen("/dev/null", "w");
		xbx_conf conf = {.workers = 1, .list = devnull};
		xbx_stats st;
		xbx_run(&conf, r, &st, &err);
	}
	xbs_reader_free(r);
	free(copy);
	return 0;
}
