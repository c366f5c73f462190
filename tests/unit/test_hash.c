// SPDX-License-Identifier: MIT
/* CRC32C and the SHA digests against published vectors and split updates. */
#include <stdio.h>
#include <string.h>

#include "erofs/hash.h"
#include "erofs/testing.h"
#include "unit.h"

static uint8_t pattern[1000];

static void fill_pattern(void)
{
	size_t i;

	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 3);
}

/* crc32c */

START_TEST(test_crc32c_superblock_vector)
{
	static const uint8_t head[8] = { 0xe2, 0xe1, 0xf5, 0xe0, 0, 0, 0, 0 };

	ck_assert_uint_eq(erofs_crc32c(0xffffffff, head, sizeof(head)),
			  0x5045b54a);
}
END_TEST

/* The usual CRC-32C figures are the inverted register. */
START_TEST(test_crc32c_standard_vectors)
{
	uint8_t buf[32];
	unsigned int i;

	ck_assert_uint_eq(erofs_crc32c(0xffffffff, "123456789", 9),
			  ~0xe3069283u);
	/* RFC 3720, B.4 */
	memset(buf, 0, sizeof(buf));
	ck_assert_uint_eq(~erofs_crc32c(0xffffffff, buf, 32), 0x8a9136aa);
	memset(buf, 0xff, sizeof(buf));
	ck_assert_uint_eq(~erofs_crc32c(0xffffffff, buf, 32), 0x62a8ab43);
	for (i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	ck_assert_uint_eq(~erofs_crc32c(0xffffffff, buf, 32), 0x46dd794e);
}
END_TEST

START_TEST(test_crc32c_empty)
{
	ck_assert_uint_eq(erofs_crc32c(0x12345678, pattern, 0), 0x12345678);
}
END_TEST

/* Every split point and every start alignment gives the one-shot value. */
START_TEST(test_crc32c_split)
{
	size_t len = 300, off, cut;

	for (off = 0; off < 8; off++) {
		const uint8_t *p = pattern + off;
		uint32_t whole = erofs_crc32c(0xffffffff, p, len);

		for (cut = 0; cut <= len; cut++) {
			uint32_t crc = erofs_crc32c(0xffffffff, p, cut);

			crc = erofs_crc32c(crc, p + cut, len - cut);
			ck_assert_uint_eq(crc, whole);
		}
	}
}
END_TEST

/*
 * Linux's shortcut (format.md, "Checksums"): resume from the state after the
 * head.
 */
START_TEST(test_crc32c_superblock_shortcut)
{
	uint8_t block[3072];
	uint32_t full, shortcut;

	memcpy(block, pattern, sizeof(pattern));
	memcpy(block + 1000, pattern, sizeof(pattern));
	memcpy(block + 2000, pattern, sizeof(pattern));
	memset(block + 3000, 0x5a, 72);
	block[0] = 0xe2;
	block[1] = 0xe1;
	block[2] = 0xf5;
	block[3] = 0xe0;
	memset(block + 4, 0, 4);
	full = erofs_crc32c(0xffffffff, block, sizeof(block));
	shortcut = erofs_crc32c(0x5045b54a, block + 8, sizeof(block) - 8);
	ck_assert_uint_eq(full, shortcut);
}
END_TEST

/* sha256 */

static void hex_digest(const uint8_t d[EROFS_SHA256_LEN], char out[65])
{
	unsigned int i;

	for (i = 0; i < EROFS_SHA256_LEN; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_sha256(const void *data, size_t len, const char *want)
{
	struct erofs_sha256 s;
	uint8_t d[EROFS_SHA256_LEN];
	char hex[65];

	erofs_sha256_init(&s);
	erofs_sha256_update(&s, data, len);
	erofs_sha256_final(&s, d);
	hex_digest(d, hex);
	ck_assert_str_eq(hex, want);
}

/*
 * Loop index 0 runs with the portable block function, 1 with the fastest
 * one this CPU has (the same one when it has no SHA extensions).
 */
static void select_impl(int i)
{
	erofs_sha256_select(i == 1);
}

START_TEST(test_sha256_nist)
{
	select_impl(_i);
	check_sha256("", 0,
		     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha256("abc", 3,
		     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		     56,
		     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_sha256("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		     112,
		     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}
END_TEST

START_TEST(test_sha256_million_a)
{
	static uint8_t a[1000000];
	struct erofs_sha256 s;
	uint8_t d[EROFS_SHA256_LEN];
	char hex[65];
	unsigned int i;
	const char *want =
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

	select_impl(_i);
	memset(a, 'a', sizeof(a));
	check_sha256(a, sizeof(a), want);

	/* the same in uneven pieces, as a file read in chunks would be */
	erofs_sha256_init(&s);
	for (i = 0; i < sizeof(a); i += 999)
		erofs_sha256_update(&s, a + i,
				    sizeof(a) - i < 999 ? sizeof(a) - i : 999);
	erofs_sha256_final(&s, d);
	hex_digest(d, hex);
	ck_assert_str_eq(hex, want);
}
END_TEST

/* Lengths around the padding boundaries (digests from Python hashlib). */
START_TEST(test_sha256_padding_edges)
{
	static const struct {
		size_t len;
		const char *hex;
	} v[] = {
		{ 55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b" },
		{ 56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27" },
		{ 57, "35df609437dcfea3279283ab79fd554e2bf78f8f7ae2de532d8ee300b09e8f73" },
		{ 63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055" },
		{ 64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241" },
		{ 65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e" },
		{ 119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e" },
		{ 120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5" },
		{ 128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6" },
	};
	unsigned int i;

	select_impl(_i);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check_sha256(pattern, v[i].len, v[i].hex);
}
END_TEST

static void sha256_of(const uint8_t *p, size_t len, size_t cut1, size_t cut2,
		      uint8_t d[EROFS_SHA256_LEN])
{
	struct erofs_sha256 s;

	erofs_sha256_init(&s);
	erofs_sha256_update(&s, p, cut1);
	erofs_sha256_update(&s, p + cut1, cut2 - cut1);
	erofs_sha256_update(&s, p + cut2, len - cut2);
	erofs_sha256_final(&s, d);
}

START_TEST(test_sha256_split_everywhere)
{
	uint8_t whole[EROFS_SHA256_LEN], d[EROFS_SHA256_LEN];
	size_t len = 200, a, b;

	select_impl(_i);
	sha256_of(pattern, len, 0, 0, whole);
	for (a = 0; a <= len; a++)
		for (b = a; b <= len; b++) {
			sha256_of(pattern, len, a, b, d);
			ck_assert_mem_eq(d, whole, sizeof(d));
		}
}
END_TEST

START_TEST(test_sha256_byte_at_a_time)
{
	uint8_t whole[EROFS_SHA256_LEN], d[EROFS_SHA256_LEN];
	struct erofs_sha256 s;
	size_t i;

	select_impl(_i);
	sha256_of(pattern, sizeof(pattern), 0, 0, whole);
	erofs_sha256_init(&s);
	for (i = 0; i < sizeof(pattern); i++)
		erofs_sha256_update(&s, pattern + i, 1);
	erofs_sha256_final(&s, d);
	ck_assert_mem_eq(d, whole, sizeof(d));
}
END_TEST

/* Both block functions agree on long unaligned input. */
START_TEST(test_sha256_implementations_agree)
{
	uint8_t c[EROFS_SHA256_LEN], fast[EROFS_SHA256_LEN];
	size_t off;

	for (off = 0; off < 4; off++) {
		erofs_sha256_select(false);
		sha256_of(pattern + off, 900, 0, 0, c);
		if (!erofs_sha256_select(true))
			return;
		sha256_of(pattern + off, 900, 0, 0, fast);
		ck_assert_mem_eq(c, fast, sizeof(c));
	}
}
END_TEST

/* sha1 and sha512, through the by-name interface dm-verity uses */

static void check_digest(const char *alg, const void *data, size_t len,
			 const char *want)
{
	struct erofs_digest d;
	uint8_t out[EROFS_DIGEST_MAX];
	char hex[2 * EROFS_DIGEST_MAX + 1];
	unsigned int i, n;

	erofs_digest_init(&d, erofs_digest_by_name(alg));
	erofs_digest_update(&d, data, len);
	erofs_digest_final(&d, out);
	n = erofs_digest_size(d.alg);
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", out[i]);
	ck_assert_str_eq(hex, want);
}

START_TEST(test_digest_names)
{
	ck_assert_int_eq(erofs_digest_by_name("sha1"), EROFS_DIGEST_SHA1);
	ck_assert_int_eq(erofs_digest_by_name("sha256"), EROFS_DIGEST_SHA256);
	ck_assert_int_eq(erofs_digest_by_name("sha512"), EROFS_DIGEST_SHA512);
	ck_assert_int_eq(erofs_digest_by_name("sha384"), EROFS_DIGEST_NONE);
	ck_assert_int_eq(erofs_digest_by_name("SHA256"), EROFS_DIGEST_NONE);
	ck_assert_uint_eq(erofs_digest_size(EROFS_DIGEST_SHA1), 20);
	ck_assert_uint_eq(erofs_digest_size(EROFS_DIGEST_SHA512), 64);
}
END_TEST

/* FIPS 180-4's examples (NIST CSRC, "Example Values"). */
START_TEST(test_digest_nist)
{
	check_digest("sha1", "", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	check_digest("sha1", "abc", 3,
		     "a9993e364706816aba3e25717850c26c9cd0d89d");
	check_digest("sha1",
		     "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		     56, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
	check_digest("sha256", "abc", 3,
		     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_digest("sha512", "abc", 3,
		     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
		     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
	check_digest("sha512", "", 0,
		     "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
		     "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e");
	check_digest("sha512",
		     "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		     112,
		     "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
		     "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909");
}
END_TEST

/* Lengths around each padding boundary (digests from Python hashlib). */
START_TEST(test_digest_padding_edges)
{
	static const struct {
		const char *alg;
		size_t len;
		const char *hex;
	} v[] = {
		{ "sha1", 55, "ddf57317ef34bfee3b6df83d359098930eb278bc" },
		{ "sha1", 56, "a0d492bb0fc889d0eca3bc137066ab6f4f74f369" },
		{ "sha1", 63, "c55856749bef509bdfe6bfebfc7bf4e793e82132" },
		{ "sha1", 64, "bede92be29c3874e1b54ddc77988d606fc857a8e" },
		{ "sha1", 65, "b05a80522b053d6dc7e0a517d0e70212c7dad11f" },
		{ "sha1", 1000, "4231a8a50a10fa9758db8ec71fdef855b751048a" },
		{ "sha512", 111,
		  "68cffa6d0d76f309c9ce0d35280939f8e25990c43b7b086ccdf709be35b07d4d"
		  "dba599541ff2b1c19d34ea49aeafb9659adb7ac3c0b078bb30a22d57fc6687ef" },
		{ "sha512", 112,
		  "d0865c524d1dddf7c23b799c413f5adcd7caefd3f66a9b49750ec81066012c25"
		  "a8bcf94ddea6dc525691673097ca40e0101e897fc97218cfdb0704084e2bef4b" },
		{ "sha512", 127,
		  "e0b6a20f1c0c88970a9340152cd5a1c1ecf3d3b8de55102741879438079473540"
		  "133b812706e5dbec322c8c9523b6fc8c6d16ee626e87ad5fe3d2916afedc369" },
		{ "sha512", 128,
		  "99b16f17aa0b969a5b8f08f367719d516e330ccd2660b6f0688ec031dbc783de"
		  "50a1cd185a2568dba75070a2403d17d4741d163578515dfd2ff756ddfe4d47b1" },
		{ "sha512", 129,
		  "a1556e29185778aa5991e34b8884c840d589f0fbb4b8ed590e51e9ac4eb03a00"
		  "8125000db2671f8fe7f485b59a77b518670078ecb41a54b4cd02a7f1d2ca4c6d" },
		{ "sha512", 1000,
		  "00e36fccf193e59697a92b5ab24666ce6326d7fa16bf10832d0991ddc591112e"
		  "9dfa6a636950ed9c4d67344a760654c2ff7785e1d60094d651038735b5dccabd" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check_digest(v[i].alg, pattern, v[i].len, v[i].hex);
}
END_TEST

/* Every split point of a message gives the one-shot digest. */
START_TEST(test_digest_split_everywhere)
{
	static const enum erofs_digest_alg algs[] = { EROFS_DIGEST_SHA1,
						      EROFS_DIGEST_SHA512 };
	uint8_t whole[EROFS_DIGEST_MAX], out[EROFS_DIGEST_MAX];
	struct erofs_digest d;
	size_t len = 300, cut;
	unsigned int a;

	for (a = 0; a < 2; a++) {
		erofs_digest_init(&d, algs[a]);
		erofs_digest_update(&d, pattern, len);
		erofs_digest_final(&d, whole);
		for (cut = 0; cut <= len; cut++) {
			erofs_digest_init(&d, algs[a]);
			erofs_digest_update(&d, pattern, cut);
			erofs_digest_update(&d, pattern + cut, len - cut);
			erofs_digest_final(&d, out);
			ck_assert_mem_eq(out, whole, erofs_digest_size(algs[a]));
		}
	}
}
END_TEST

START_TEST(test_digest_million_a)
{
	static uint8_t a[1000000];

	memset(a, 'a', sizeof(a));
	check_digest("sha1", a, sizeof(a),
		     "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
	check_digest("sha512", a, sizeof(a),
		     "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
		     "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b");
}
END_TEST

UNIT_MAIN("hash", NULL,
	  { "crc32c",
	    .tests = UNIT_TESTS(test_crc32c_superblock_vector,
				test_crc32c_standard_vectors, test_crc32c_empty,
				test_crc32c_split,
				test_crc32c_superblock_shortcut),
	    .once = fill_pattern },
	  { "sha256", .tests = UNIT_TESTS(test_sha256_implementations_agree),
	    .loops = UNIT_LOOPS({ test_sha256_nist, 2 },
				{ test_sha256_million_a, 2 },
				{ test_sha256_padding_edges, 2 },
				{ test_sha256_split_everywhere, 2 },
				{ test_sha256_byte_at_a_time, 2 }),
	    .once = fill_pattern },
	  { "digests",
	    .tests = UNIT_TESTS(test_digest_names, test_digest_nist,
				test_digest_padding_edges,
				test_digest_split_everywhere,
				test_digest_million_a),
	    .once = fill_pattern })
