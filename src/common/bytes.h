/*
 * bytes.h - fixed-width integers in a byte buffer, big- and little-endian.
 *
 * InnoDB stores every multi-byte field of its pages and redo log most
 * significant byte first; the xbstream container and the qpress archives
 * of mariabackup --compress store theirs least significant byte first.
 * These are the only readers and writers of such fields in the program:
 * byte by byte, so any alignment is fine and the host's byte order never
 * matters. The compiler turns each into one load or store (plus a byte
 * swap where needed).
 */
#ifndef XB_BYTES_H
#define XB_BYTES_H

#include <stdint.h>

/* ---- big-endian (InnoDB pages and redo) */

static inline uint32_t be16_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t be24_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t be32_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64_get(const uint8_t *p)
{
	return (uint64_t)be32_get(p) << 32 | be32_get(p + 4);
}

static inline void be16_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void be24_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void be32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void be64_put(uint8_t *p, uint64_t v)
{
	be32_put(p, (uint32_t)(v >> 32));
	be32_put(p + 4, (uint32_t)v);
}

/* ---- little-endian (xbstream chunks, qpress archives) */

static inline uint32_t le16_get(const uint8_t *p)
{
	return (uint32_t)p[1] << 8 | p[0];
}

static inline uint32_t le32_get(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t le64_get(const uint8_t *p)
{
	return (uint64_t)le32_get(p + 4) << 32 | le32_get(p);
}

static inline void le32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void le64_put(uint8_t *p, uint64_t v)
{
	le32_put(p, (uint32_t)v);
	le32_put(p + 4, (uint32_t)(v >> 32));
}

#endif
