/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of InnoDB pages and redo.
 *
 * Reflected polynomial 0x82F63B78, initial value and final XOR 0xFFFFFFFF
 * (check value of "123456789" is 0xE3069283). On x86-64 CPUs with SSE4.2
 * the crc32 instruction is used, three streams interleaved to hide its
 * latency; elsewhere a slicing-by-8 table implementation. The choice is made
 * once at first use (runtime CPU detection), so the same binary runs on any
 * x86-64. This sits on the hot path of page validation while copying.
 */
#ifndef XB_INNODB_CRC32C_H
#define XB_INNODB_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Continue a CRC-32C: pass 0 to start; the result of one call can be passed
 * as crc to the next to checksum a concatenation (crc32c_update(crc32c(a), b)
 * == crc32c(a || b)). Thread-safe. */
uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len);

/* CRC-32C of one buffer (crc32c_update(0, buf, len)). */
uint32_t crc32c(const void *buf, size_t len);

/* The portable table implementation, same contract (tests compare the two). */
uint32_t crc32c_update_sw(uint32_t crc, const void *buf, size_t len);

/* The hardware implementation, same contract; only call it when
 * crc32c_have_hw() is true. */
uint32_t crc32c_update_hw(uint32_t crc, const void *buf, size_t len);

/* True when the CPU has the crc32 instruction and crc32c_update uses it. */
bool crc32c_have_hw(void);

/* "sse4.2 (3-way)" or "slicing-by-8", for logs and the test report. */
const char *crc32c_impl_name(void);

#endif
