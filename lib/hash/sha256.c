// SPDX-License-Identifier: MIT
/*
 * SHA-256 (FIPS 180-4), used to digest every extracted file. Whole 64-byte
 * blocks are compressed straight from the caller's buffer; only a partial
 * block is copied. On x86-64 CPUs with the SHA extensions the block
 * function uses them (several times faster than the portable one).
 */
#include <pthread.h>
#include <string.h>

#include "erofs/hash.h"
#include "erofs/testing.h"
#include "hash/digest_buffer.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t sha256_h0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

typedef void sha256_blocks_fn(uint32_t state[8], const uint8_t *p,
			      size_t nblocks);

static inline uint32_t ror32(uint32_t x, unsigned int n)
{
	return x >> n | x << (32 - n);
}

static void sha256_schedule(uint32_t w[64], const uint8_t *p)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		w[i] = erofs_get_be32(p + 4 * i);
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^
			      w[i - 15] >> 3;
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^
			      w[i - 2] >> 10;

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
}

static void sha256_blocks_c(uint32_t state[8], const uint8_t *p, size_t nblocks)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;
	unsigned int i;

	for (; nblocks; nblocks--, p += 64) {
		sha256_schedule(w, p);
		a = state[0];
		b = state[1];
		c = state[2];
		d = state[3];
		e = state[4];
		f = state[5];
		g = state[6];
		h = state[7];
		for (i = 0; i < 64; i++) {
			uint32_t t1 =
				h +
				(ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) +
				((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
			uint32_t t2 =
				(ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) +
				((a & b) ^ (a & c) ^ (b & c));

			h = g;
			g = f;
			f = e;
			e = d + t1;
			d = c;
			c = b;
			b = a;
			a = t1 + t2;
		}
		state[0] += a;
		state[1] += b;
		state[2] += c;
		state[3] += d;
		state[4] += e;
		state[5] += f;
		state[6] += g;
		state[7] += h;
	}
}

#ifdef SHA256_X86
/*
 * The SHA extensions keep the state as two vectors, ABEF and CDGH, and run
 * two rounds per sha256rnds2 using the low two lanes of message plus
 * constant. Vector names list their lanes from the highest down, as
 * Intel's documentation does.
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void
sha256_blocks_shani(uint32_t state[8], const uint8_t *p, size_t nblocks)
{
	const __m128i bswap =
		_mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i dcba = _mm_loadu_si128((const __m128i *)state);
	__m128i hgfe = _mm_loadu_si128((const __m128i *)(state + 4));
	__m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
	__m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
	__m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
	__m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
	__m128i feba, dchg;

	for (; nblocks; nblocks--, p += 64) {
		__m128i abef_in = abef, cdgh_in = cdgh, w[4], wk;
		unsigned int g;

#pragma GCC unroll 16
		for (g = 0; g < 16; g++) {
			if (g < 4) {
				w[g] = _mm_loadu_si128(
					(const __m128i *)(p + 16 * g));
				w[g] = _mm_shuffle_epi8(w[g], bswap);
			} else {
				/* w[g & 3] still holds words 4g-16..4g-13 */
				__m128i m = _mm_sha256msg1_epu32(
					w[g & 3], w[(g - 3) & 3]);

				m = _mm_add_epi32(
					m, _mm_alignr_epi8(w[(g - 1) & 3],
							   w[(g - 2) & 3], 4));
				w[g & 3] =
					_mm_sha256msg2_epu32(m, w[(g - 1) & 3]);
			}
			wk = _mm_add_epi32(
				w[g & 3],
				_mm_loadu_si128(
					(const __m128i *)(sha256_k + 4 * g)));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
			wk = _mm_shuffle_epi32(wk, 0x0e);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
		}
		abef = _mm_add_epi32(abef, abef_in);
		cdgh = _mm_add_epi32(cdgh, cdgh_in);
	}

	feba = _mm_shuffle_epi32(abef, 0x1b);
	dchg = _mm_shuffle_epi32(cdgh, 0xb1);
	_mm_storeu_si128((__m128i *)state, _mm_blend_epi16(feba, dchg, 0xf0));
	_mm_storeu_si128((__m128i *)(state + 4),
			 _mm_alignr_epi8(dchg, feba, 8));
}

static bool sha256_cpu_has_shani(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) ||
	    !(c & bit_SSSE3))
		return false;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}
#endif

static sha256_blocks_fn *sha256_blocks = sha256_blocks_c;
static pthread_once_t sha256_pick_once = PTHREAD_ONCE_INIT;

static void sha256_pick(void)
{
#ifdef SHA256_X86
	if (sha256_cpu_has_shani())
		sha256_blocks = sha256_blocks_shani;
#endif
}

bool erofs_sha256_select(bool accel)
{
	pthread_once(&sha256_pick_once, sha256_pick);
	sha256_blocks = sha256_blocks_c;
	if (accel)
		sha256_pick();
	return sha256_blocks != sha256_blocks_c;
}

void erofs_sha256_init(struct erofs_sha256 *s)
{
	pthread_once(&sha256_pick_once, sha256_pick);
	memcpy(s->state, sha256_h0, sizeof(s->state));
	s->count = 0;
	s->buflen = 0;
}

static void sha256_absorb_blocks(void *state, const uint8_t *p, size_t n)
{
	sha256_blocks(state, p, n);
}

static struct digest_buffer sha256_buffer(struct erofs_sha256 *s)
{
	return (struct digest_buffer){ s->buf, sizeof(s->buf), &s->buflen,
				       &s->count };
}

void erofs_sha256_update(struct erofs_sha256 *s, const void *data, size_t len)
{
	struct digest_buffer b = sha256_buffer(s);

	digest_absorb(&b, sha256_absorb_blocks, s->state, data, len);
}

void erofs_sha256_final(struct erofs_sha256 *s,
			uint8_t digest[EROFS_SHA256_LEN])
{
	struct digest_buffer b = sha256_buffer(s);
	unsigned int i;

	digest_pad(&b, sha256_absorb_blocks, s->state, 8);
	for (i = 0; i < 8; i++)
		erofs_put_be32(digest + 4 * i, s->state[i]);
}
