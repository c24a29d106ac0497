/*
 * crc32c.c - CRC-32C with a hardware and a software path (see crc32c.h).
 *
 * Software: "slicing-by-8": eight 256-entry tables, table k giving the CRC
 * contribution of a byte followed by k zero bytes, so eight input bytes are
 * folded in with eight lookups.
 *
 * Hardware (x86-64 SSE4.2): the crc32 instruction folds 8 bytes per
 * instruction but has a latency of three cycles, so a single chain runs at a
 * third of the possible speed. Long inputs are therefore cut into blocks of
 * three equal lanes that are checksummed in parallel (lanes 2 and 3 start
 * from state 0), and the three lane states are combined afterwards: the CRC
 * state is linear, so state(A||B) = shift_n(state(A)) ^ state_from_0(B),
 * where shift_n is "feed n zero bytes". shift_n is a 32x32 bit matrix over
 * GF(2) that we precompute, for the two lane lengths we use, as four
 * byte-indexed tables (so a shift costs four lookups).
 *
 * The tables are built once, on first use, under pthread_once; the CPU is
 * probed at the same time with __builtin_cpu_supports.
 */
#include "crc32c.h"

#include <pthread.h>
#include <string.h>

#include "common/bytes.h"

#define POLY 0x82F63B78u

/* Lane lengths of the interleaved hardware path (bytes per lane). */
#define LANE_LONG 4096u
#define LANE_SHORT 256u

static uint32_t sw_tab[8][256];      /* slicing-by-8 tables */
static uint32_t shift_long[4][256];  /* feed LANE_LONG zero bytes */
static uint32_t shift_short[4][256]; /* feed LANE_SHORT zero bytes */
static bool use_hw;                  /* CPU has SSE4.2 crc32 */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Raw state update with n zero bytes, bytewise (only used to build tables). */
static uint32_t feed_zeros(uint32_t c, size_t n)
{
	while (n--)
		c = sw_tab[0][c & 0xff] ^ (c >> 8);
	return c;
}

static void build_shift(uint32_t t[4][256], size_t n)
{
	uint32_t img[32]; /* image of each basis vector */
	for (int i = 0; i < 32; i++)
		img[i] = feed_zeros(1u << i, n);
	for (int k = 0; k < 4; k++) {
		for (unsigned b = 0; b < 256; b++) {
			uint32_t v = 0;
			for (int j = 0; j < 8; j++)
				if (b & (1u << j))
					v ^= img[8 * k + j];
			t[k][b] = v;
		}
	}
}

static inline uint32_t apply_shift(const uint32_t t[4][256], uint32_t c)
{
	return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
}

static bool cpu_has_sse42(void);

static void init_tables(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
		sw_tab[0][i] = c;
	}
	for (unsigned i = 0; i < 256; i++)
		for (int k = 1; k < 8; k++)
			sw_tab[k][i] = sw_tab[0][sw_tab[k - 1][i] & 0xff] ^ (sw_tab[k - 1][i] >> 8);
	build_shift(shift_long, LANE_LONG);
	build_shift(shift_short, LANE_SHORT);
	use_hw = cpu_has_sse42();
}

static inline void ensure_init(void)
{
	pthread_once(&init_once, init_tables);
}

uint32_t crc32c_update_sw(uint32_t crc, const void *buf, size_t len)
{
	ensure_init();
	const uint8_t *p = buf;
	uint32_t c = ~crc;
	while (len && ((uintptr_t)p & 7)) {
		c = sw_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
		len--;
	}
	while (len >= 8) {
		uint64_t w = le64_get(p);
		uint32_t lo = (uint32_t)w ^ c, hi = (uint32_t)(w >> 32);
		c = sw_tab[7][lo & 0xff] ^ sw_tab[6][(lo >> 8) & 0xff] ^
		    sw_tab[5][(lo >> 16) & 0xff] ^ sw_tab[4][lo >> 24] ^
		    sw_tab[3][hi & 0xff] ^ sw_tab[2][(hi >> 8) & 0xff] ^
		    sw_tab[1][(hi >> 16) & 0xff] ^ sw_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = sw_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

static bool cpu_has_sse42(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse4.2");
}

/* Three interleaved lanes of `lane` bytes each; returns the combined state. */
__attribute__((target("sse4.2"))) static inline uint32_t
hw_block3(uint32_t c, const uint8_t *p, size_t lane, const uint32_t t[4][256])
{
	uint64_t c0 = c, c1 = 0, c2 = 0;
	const uint8_t *end = p + lane;
	while (p < end) {
		uint64_t w0, w1, w2;
		memcpy(&w0, p, 8);
		memcpy(&w1, p + lane, 8);
		memcpy(&w2, p + 2 * lane, 8);
		c0 = _mm_crc32_u64(c0, w0);
		c1 = _mm_crc32_u64(c1, w1);
		c2 = _mm_crc32_u64(c2, w2);
		p += 8;
	}
	uint32_t s = apply_shift(t, (uint32_t)c0) ^ (uint32_t)c1;
	return apply_shift(t, s) ^ (uint32_t)c2;
}

__attribute__((target("sse4.2"))) uint32_t crc32c_update_hw(uint32_t crc, const void *buf, size_t len)
{
	ensure_init();
	const uint8_t *p = buf;
	uint32_t c = ~crc;
	while (len && ((uintptr_t)p & 7)) {
		c = _mm_crc32_u8(c, *p++);
		len--;
	}
	while (len >= 3 * LANE_LONG) {
		c = hw_block3(c, p, LANE_LONG, shift_long);
		p += 3 * LANE_LONG;
		len -= 3 * LANE_LONG;
	}
	while (len >= 3 * LANE_SHORT) {
		c = hw_block3(c, p, LANE_SHORT, shift_short);
		p += 3 * LANE_SHORT;
		len -= 3 * LANE_SHORT;
	}
	uint64_t c64 = c;
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		c64 = _mm_crc32_u64(c64, w);
		p += 8;
		len -= 8;
	}
	c = (uint32_t)c64;
	while (len--)
		c = _mm_crc32_u8(c, *p++);
	return ~c;
}
#else
static bool cpu_has_sse42(void)
{
	return false;
}

uint32_t crc32c_update_hw(uint32_t crc, const void *buf, size_t len)
{
	return crc32c_update_sw(crc, buf, len);
}
#endif

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
{
	ensure_init();
	return use_hw ? crc32c_update_hw(crc, buf, len) : crc32c_update_sw(crc, buf, len);
}

uint32_t crc32c(const void *buf, size_t len)
{
	return crc32c_update(0, buf, len);
}

bool crc32c_have_hw(void)
{
	ensure_init();
	return use_hw;
}

const char *crc32c_impl_name(void)
{
	return crc32c_have_hw() ? "sse4.2 (3-way)" : "slicing-by-8";
}
