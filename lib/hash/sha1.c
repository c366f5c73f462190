// SPDX-License-Identifier: MIT
/*
 * SHA-1 (FIPS 180-4), only for dm-verity trees that veritysetup or AVB
 * made with it; nothing of the project relies on it for strength.
 */
#include <string.h>

#include "erofs/hash.h"
#include "hash/digest_buffer.h"

static inline uint32_t rol32(uint32_t x, unsigned int n)
{
	return x << n | x >> (32 - n);
}

static uint32_t sha1_f(unsigned int t, uint32_t b, uint32_t c, uint32_t d)
{
	if (t < 20)
		return (b & c) | (~b & d);
	if (t < 40 || t >= 60)
		return b ^ c ^ d;
	return (b & c) | (b & d) | (c & d);
}

static const uint32_t sha1_k[4] = { 0x5a827999, 0x6ed9eba1, 0x8f1bbcdc,
				    0xca62c1d6 };

static void sha1_blocks(void *state, const uint8_t *p, size_t nblocks)
{
	uint32_t *h = state, w[80], a, b, c, d, e, t;
	unsigned int i;

	for (; nblocks--; p += 64) {
		for (i = 0; i < 16; i++)
			w[i] = erofs_get_be32(p + 4 * i);
		for (; i < 80; i++)
			w[i] = rol32(
				w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
		a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
		for (i = 0; i < 80; i++) {
			t = rol32(a, 5) + sha1_f(i, b, c, d) + e +
			    sha1_k[i / 20] + w[i];
			e = d;
			d = c;
			c = rol32(b, 30);
			b = a;
			a = t;
		}
		h[0] += a;
		h[1] += b;
		h[2] += c;
		h[3] += d;
		h[4] += e;
	}
}

static struct digest_buffer sha1_buffer(struct erofs_sha1 *s)
{
	return (struct digest_buffer){ s->buf, sizeof(s->buf), &s->buflen,
				       &s->count };
}

void erofs_sha1_init(struct erofs_sha1 *s)
{
	static const uint32_t h0[5] = { 0x67452301, 0xefcdab89, 0x98badcfe,
					0x10325476, 0xc3d2e1f0 };

	memcpy(s->state, h0, sizeof(s->state));
	s->count = 0;
	s->buflen = 0;
}

void erofs_sha1_update(struct erofs_sha1 *s, const void *data, size_t len)
{
	struct digest_buffer b = sha1_buffer(s);

	digest_absorb(&b, sha1_blocks, s->state, data, len);
}

void erofs_sha1_final(struct erofs_sha1 *s, uint8_t digest[EROFS_SHA1_LEN])
{
	struct digest_buffer b = sha1_buffer(s);
	unsigned int i;

	digest_pad(&b, sha1_blocks, s->state, 8);
	for (i = 0; i < 5; i++)
		erofs_put_be32(digest + 4 * i, s->state[i]);
}
