// SPDX-License-Identifier: MIT
/*
 * XXH32, the seeded 32-bit xxHash, used by the xattr name filter (format.md,
 * "Xattr name filter"). Written from the published algorithm description.
 */
#include "erofs/format.h"
#include "erofs/xattr.h"

#define XXH_PRIME32_1 0x9E3779B1u
#define XXH_PRIME32_2 0x85EBCA77u
#define XXH_PRIME32_3 0xC2B2AE3Du
#define XXH_PRIME32_4 0x27D4EB2Fu
#define XXH_PRIME32_5 0x165667B1u

static inline uint32_t rotl32(uint32_t x, unsigned int r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint32_t xxh32_round(uint32_t acc, uint32_t lane)
{
	acc += lane * XXH_PRIME32_2;
	return rotl32(acc, 13) * XXH_PRIME32_1;
}

/* Consume 16-byte stripes with four accumulators; returns their merge. */
static uint32_t xxh32_stripes(const uint8_t **pp, size_t *lenp, uint32_t seed)
{
	uint32_t v1 = seed + XXH_PRIME32_1 + XXH_PRIME32_2;
	uint32_t v2 = seed + XXH_PRIME32_2;
	uint32_t v3 = seed;
	uint32_t v4 = seed - XXH_PRIME32_1;
	const uint8_t *p = *pp;
	size_t len = *lenp;

	while (len >= 16) {
		v1 = xxh32_round(v1, erofs_get32(p));
		v2 = xxh32_round(v2, erofs_get32(p + 4));
		v3 = xxh32_round(v3, erofs_get32(p + 8));
		v4 = xxh32_round(v4, erofs_get32(p + 12));
		p += 16;
		len -= 16;
	}
	*pp = p;
	*lenp = len;
	return rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18);
}

uint32_t erofs_xxh32(const void *data, size_t len, uint32_t seed)
{
	const uint8_t *p = data;
	size_t left = len;
	uint32_t h;

	if (len >= 16)
		h = xxh32_stripes(&p, &left, seed);
	else
		h = seed + XXH_PRIME32_5;

	/* the length is mixed in modulo 2^32, as the reference does */
	h += (uint32_t)len;

	for (; left >= 4; p += 4, left -= 4) {
		h += erofs_get32(p) * XXH_PRIME32_3;
		h = rotl32(h, 17) * XXH_PRIME32_4;
	}
	for (; left; p++, left--) {
		h += *p * XXH_PRIME32_5;
		h = rotl32(h, 11) * XXH_PRIME32_1;
	}

	h ^= h >> 15;
	h *= XXH_PRIME32_2;
	h ^= h >> 13;
	h *= XXH_PRIME32_3;
	h ^= h >> 16;
	return h;
}
