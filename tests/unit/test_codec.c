// SPDX-License-Identifier: MIT
/*
 * Pcluster decoding with streams made by the real encoders, stored the way
 * mkfs stores them (right-aligned after zero padding): exact and partial
 * lengths, hostile input, and one context decoding many pclusters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LZ4
#include <lz4.h>
#endif
#ifdef HAVE_LZMA
#include <lzma.h>
#endif
#ifdef HAVE_ZLIB
#include <zlib.h>
#elif defined(HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "erofs/decompress.h"
#include "erofs/image.h"
#include "unit.h"

#define SAMPLE_MAX (2u << 20)
#define STREAM_MAX (SAMPLE_MAX + 65536)
#define GUARD 64
#define GUARD_BYTE 0xa5
#define REQ_NID 42
#define REQ_PA 8192

static struct erofs_image img;
static struct erofs_ctx ctx;
static uint8_t *sample, *stream, *pcl, *outbuf;

/* Text-like data: compressible, but not trivially. */
static void make_sample(uint8_t *buf, size_t len, uint32_t seed)
{
	static const char *const words[] = {
		"erofs ", "pcluster ", "lz4 ", "zstd ", "deflate ", "lzma ",
		"block ", "\n", "0123456789 ", "inode ",
	};
	size_t i = 0;

	while (i < len) {
		const char *w;
		size_t n;

		seed = seed * 1103515245 + 12345;
		w = words[(seed >> 16) % 10];
		n = strlen(w);
		if (n > len - i)
			n = len - i;
		memcpy(buf + i, w, n);
		i += n;
		if (i < len && !(seed & 0x300))
			buf[i++] = (uint8_t)(seed >> 24);
	}
}

static void make_garbage(uint8_t *buf, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		buf[i] = (uint8_t)(seed >> 16) | 1;
	}
}

static void setup(void)
{
	memset(&img, 0, sizeof(img));
	img.blkszbits = 12;
	img.blksz = 4096;
	img.feature_incompat = EROFS_FEATURE_INCOMPAT_COMPR_CFGS |
			       EROFS_FEATURE_INCOMPAT_LZ4_0PADDING;
	img.available_compr_algs = (1u << Z_EROFS_COMPRESSION_MAX) - 1;
	ck_assert_int_eq(erofs_ctx_init(&ctx, &img), 0);
	sample = malloc(SAMPLE_MAX);
	stream = malloc(STREAM_MAX);
	pcl = malloc(STREAM_MAX + 4096);
	outbuf = malloc(SAMPLE_MAX + 8192 + GUARD);
	ck_assert(sample && stream && pcl && outbuf);
}

static void teardown(void)
{
	erofs_ctx_fini(&ctx);
	free(sample);
	free(stream);
	free(pcl);
	free(outbuf);
}

/* encoders */

#ifdef HAVE_LZMA
static size_t lzma_compress(const uint8_t *src, size_t len, uint8_t *dst,
			    size_t cap, uint32_t dict_size)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	lzma_options_lzma opt;
	size_t n;

	ck_assert(!lzma_lzma_preset(&opt, 6));
	opt.dict_size = dict_size;
	ck_assert_int_eq(lzma_microlzma_encoder(&strm, &opt), LZMA_OK);
	strm.next_in = src;
	strm.avail_in = len;
	strm.next_out = dst;
	strm.avail_out = cap;
	ck_assert_int_eq(lzma_code(&strm, LZMA_FINISH), LZMA_STREAM_END);
	ck_assert_uint_eq(strm.total_in, len);
	n = strm.total_out;
	lzma_end(&strm);
	return n;
}
#endif

/*
 * Compress with the real library. Returns the stream length, 0 if this
 * test was built without the encoder.
 */
static size_t encode(unsigned int alg, const uint8_t *src, size_t len,
		       uint8_t *dst, size_t cap)
{
	switch (alg) {
#ifdef HAVE_LZ4
	case Z_EROFS_COMPRESSION_LZ4: {
		int n = LZ4_compress_default((const char *)src, (char *)dst,
					     (int)len, (int)cap);

		ck_assert_int_gt(n, 0);
		return (size_t)n;
	}
#endif
#ifdef HAVE_LZMA
	case Z_EROFS_COMPRESSION_LZMA:
		return lzma_compress(src, len, dst, cap, 1u << 20);
#endif
#ifdef HAVE_ZLIB
	case Z_EROFS_COMPRESSION_DEFLATE: {
		z_stream zs;
		size_t n;

		memset(&zs, 0, sizeof(zs));
		ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8,
					      Z_DEFAULT_STRATEGY), Z_OK);
		zs.next_in = (Bytef *)src;
		zs.avail_in = (uInt)len;
		zs.next_out = dst;
		zs.avail_out = (uInt)cap;
		ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
		n = zs.total_out;
		deflateEnd(&zs);
		return n;
	}
#elif defined(HAVE_LIBDEFLATE)
	case Z_EROFS_COMPRESSION_DEFLATE: {
		struct libdeflate_compressor *c;
		size_t n;

		c = libdeflate_alloc_compressor(6);
		ck_assert_ptr_nonnull(c);
		n = libdeflate_deflate_compress(c, src, len, dst, cap);
		ck_assert_uint_gt(n, 0);
		libdeflate_free_compressor(c);
		return n;
	}
#endif
#ifdef HAVE_ZSTD
	case Z_EROFS_COMPRESSION_ZSTD: {
		size_t n = ZSTD_compress(dst, cap, src, len, 3);

		ck_assert(!ZSTD_isError(n));
		return n;
	}
#endif
	default:
		return 0;
	}
}

/* Can this test make streams of alg, and can the library read them? */
static bool testable(unsigned int alg)
{
	uint8_t probe[64];

	return erofs_codec_get(alg)->available &&
	       encode(alg, (const uint8_t *)"probe", 5, probe,
			sizeof(probe));
}

/* Store a stream the way mkfs does: zero padding, then the stream. */
static size_t store_pcluster(const uint8_t *s, size_t n, size_t pad)
{
	memset(pcl, 0, pad);
	memcpy(pcl + pad, s, n);
	return pad + n;
}

/* Compress sample[0, len) into a 4 KiB-aligned pcluster; its size. */
static size_t make_pcluster(unsigned int alg, size_t len)
{
	size_t n = encode(alg, sample, len, stream, STREAM_MAX);

	return store_pcluster(stream, n, 4096 - n % 4096);
}

static int decode_req(struct erofs_decomp_req *req)
{
	size_t i;
	int ret;

	memset(outbuf, GUARD_BYTE, req->outlen + GUARD);
	req->out = outbuf;
	erofs_err_drop(&ctx.err);
	ret = erofs_decompress(&ctx, req);
	for (i = req->outlen; i < req->outlen + GUARD; i++)
		ck_assert_uint_eq(outbuf[i], GUARD_BYTE);
	if (ret) {
		ck_assert_int_eq(ctx.err.code, ret);
		ck_assert_uint_eq(ctx.err.nid, REQ_NID);
		ck_assert_uint_eq(ctx.err.offset, REQ_PA);
		ck_assert(ctx.err.msg[0]);
	} else {
		ck_assert_int_eq(ctx.err.code, 0);
	}
	return ret;
}

static int decode(unsigned int alg, const uint8_t *in, size_t inlen,
		  size_t outlen, bool partial)
{
	struct erofs_decomp_req req = {
		.alg = alg,
		.in = in,
		.inlen = inlen,
		.outlen = outlen,
		.partial = partial,
		.zero_padding = true,
		.nid = REQ_NID,
		.pa = REQ_PA,
	};

	return decode_req(&req);
}

static void assert_msg_names_codec(unsigned int alg)
{
	const char *name = erofs_codec_get(alg)->name;

	ck_assert_msg(strstr(ctx.err.msg, name), "message \"%s\" lacks %s",
		      ctx.err.msg, name);
}

/* the table */

START_TEST(test_table)
{
	static const char *const names[] = { "lz4", "lzma", "deflate", "zstd" };
	static const bool built[Z_EROFS_COMPRESSION_MAX] = {
#ifdef HAVE_LZ4
		[Z_EROFS_COMPRESSION_LZ4] = true,
#endif
#ifdef HAVE_LZMA
		[Z_EROFS_COMPRESSION_LZMA] = true,
#endif
#if defined(HAVE_ZLIB) || defined(HAVE_LIBDEFLATE)
		[Z_EROFS_COMPRESSION_DEFLATE] = true,
#endif
#ifdef HAVE_ZSTD
		[Z_EROFS_COMPRESSION_ZSTD] = true,
#endif
	};
	unsigned int alg;

	for (alg = 0; alg < Z_EROFS_COMPRESSION_MAX; alg++) {
		const struct erofs_codec *c = erofs_codec_get(alg);

		ck_assert_ptr_nonnull(c);
		ck_assert_str_eq(c->name, names[alg]);
		ck_assert_int_eq(c->available, built[alg]);
		ck_assert_uint_gt(c->cost_ns_per_kib, 0);
		ck_assert_int_eq(c->decode != NULL, c->available);
	}
	ck_assert_ptr_null(erofs_codec_get(Z_EROFS_COMPRESSION_MAX));
	ck_assert_ptr_null(erofs_codec_get(~0u));
	/*
	 * lzma costs the most per byte, lz4 the least (lib/codec/codec_*.c,
	 * cost_ns_per_kib)
	 */
	ck_assert_uint_gt(erofs_codec_get(1)->cost_ns_per_kib,
			  erofs_codec_get(2)->cost_ns_per_kib);
	ck_assert_uint_gt(erofs_codec_get(2)->cost_ns_per_kib,
			  erofs_codec_get(3)->cost_ns_per_kib);
	ck_assert_uint_gt(erofs_codec_get(3)->cost_ns_per_kib,
			  erofs_codec_get(0)->cost_ns_per_kib);
}
END_TEST

START_TEST(test_unknown_alg)
{
	uint8_t in[16] = { 1, 2, 3 };

	ck_assert_int_eq(decode(Z_EROFS_COMPRESSION_MAX, in, sizeof(in), 8,
				false), -EOPNOTSUPP);
	ck_assert_int_eq(decode(15, in, sizeof(in), 8, false), -EOPNOTSUPP);
}
END_TEST

START_TEST(test_unavailable)
{
	uint8_t in[16] = { 1, 2, 3 };
	char want[64];

	if (erofs_codec_get(_i)->available)
		return;
	snprintf(want, sizeof(want), "built without %s support",
		 erofs_codec_get(_i)->name);
	ck_assert_int_eq(decode(_i, in, sizeof(in), 8, false), -EOPNOTSUPP);
	ck_assert_str_eq(ctx.err.msg, want);
	ck_assert_ptr_null(ctx.codec[_i]);
}
END_TEST

START_TEST(test_not_enabled)
{
	uint8_t in[16] = { 1, 2, 3 };

	if (_i == Z_EROFS_COMPRESSION_LZ4)
		return;
	img.available_compr_algs = 1u << Z_EROFS_COMPRESSION_LZ4;
	ck_assert_int_eq(decode(_i, in, sizeof(in), 8, false), -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(ctx.err.msg, "does not enable"));
}
END_TEST

START_TEST(test_legacy_lz4_enabled)
{
	size_t plen;

	if (!testable(Z_EROFS_COMPRESSION_LZ4))
		return;
	/* the set super.c gives an image without COMPR_CFGS (test_super) */
	img.feature_incompat = 0;
	img.available_compr_algs = 1u << Z_EROFS_COMPRESSION_LZ4;
	make_sample(sample, 5000, 7);
	plen = make_pcluster(Z_EROFS_COMPRESSION_LZ4, 5000);
	ck_assert_int_eq(decode(Z_EROFS_COMPRESSION_LZ4, pcl, plen, 5000,
				false), 0);
	ck_assert_mem_eq(outbuf, sample, 5000);
}
END_TEST

START_TEST(test_format_limits)
{
	struct erofs_decomp_req req = { 0 };

	if (!erofs_codec_get(_i)->available)
		return;
	memset(pcl, 0x11, 4096);
	ck_assert_int_eq(decode(_i, pcl, Z_EROFS_PCLUSTER_MAX_SIZE + 1, 16,
				false), -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(ctx.err.msg, "limits"));

	/* rejected before anything is written: outbuf is smaller */
	req.alg = _i;
	req.in = pcl;
	req.inlen = 4096;
	req.out = outbuf;
	req.outlen = Z_EROFS_PCLUSTER_MAX_DSIZE + 1;
	req.partial = true;
	erofs_err_drop(&ctx.err);
	ck_assert_int_eq(erofs_decompress(&ctx, &req), -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(ctx.err.msg, "limits"));
}
END_TEST

/* decoding */

START_TEST(test_full_roundtrip)
{
	static const size_t sizes[] = { 1, 100, 4096, 65536, 200000 };
	unsigned int i;

	if (!testable(_i))
		return;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len = sizes[i], plen;

		make_sample(sample, len, i);
		plen = make_pcluster(_i, len);
		ck_assert_int_eq(decode(_i, pcl, plen, len, false), 0);
		ck_assert_mem_eq(outbuf, sample, len);
	}
}
END_TEST

/* A stream that fills its pcluster: no padding at all (inline tails). */
START_TEST(test_no_padding)
{
	size_t n;

	if (!testable(_i))
		return;
	make_sample(sample, 30000, 3);
	n = encode(_i, sample, 30000, stream, STREAM_MAX);
	ck_assert_int_eq(decode(_i, stream, n, 30000, false), 0);
	ck_assert_mem_eq(outbuf, sample, 30000);
}
END_TEST

START_TEST(test_wrong_length)
{
	const size_t len = 65536;
	const size_t wrong[] = { len - 1, len + 1, len / 2, len + 4096, 1 };
	unsigned int i;
	size_t plen;

	if (!testable(_i))
		return;
	make_sample(sample, len, 11);
	plen = make_pcluster(_i, len);
	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		ck_assert_int_eq(decode(_i, pcl, plen, wrong[i], false),
				 -EFSCORRUPTED);
		assert_msg_names_codec(_i);
	}
}
END_TEST

START_TEST(test_partial_prefix)
{
	const size_t len = 65536;
	const size_t want[] = { 1, 7, 4096, 4097, len / 2, len - 1, len };
	unsigned int i;
	size_t plen;

	if (!testable(_i))
		return;
	make_sample(sample, len, 5);
	plen = make_pcluster(_i, len);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_int_eq(decode(_i, pcl, plen, want[i], true), 0);
		ck_assert_mem_eq(outbuf, sample, want[i]);
	}
	/* nothing wanted: nothing to decode */
	ck_assert_int_eq(decode(_i, pcl, plen, 0, true), 0);
	/* a partial decode still needs that many bytes */
	ck_assert_int_eq(decode(_i, pcl, plen, len + 1, true), -EFSCORRUPTED);
	assert_msg_names_codec(_i);
}
END_TEST

START_TEST(test_all_zero)
{
	if (!erofs_codec_get(_i)->available)
		return;
	memset(pcl, 0, 8192);
	ck_assert_int_eq(decode(_i, pcl, 8192, 4096, false), -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(ctx.err.msg, "all zeros"));
	assert_msg_names_codec(_i);
	ck_assert_int_eq(decode(_i, pcl, 8192, 4096, true), -EFSCORRUPTED);
	ck_assert_int_eq(decode(_i, pcl, 0, 4096, false), -EFSCORRUPTED);
	ck_assert_int_eq(decode(_i, pcl, 1, 0, true), -EFSCORRUPTED);
}
END_TEST

START_TEST(test_garbage)
{
	uint32_t seed;

	if (!erofs_codec_get(_i)->available)
		return;
	for (seed = 1; seed <= 20; seed++) {
		int ret;

		make_garbage(pcl, 4096, seed);
		ck_assert_int_eq(decode(_i, pcl, 4096, 65536, false),
				 -EFSCORRUPTED);
		assert_msg_names_codec(_i);
		ret = decode(_i, pcl, 4096, 100, true);
		ck_assert(ret == 0 || ret == -EFSCORRUPTED);
	}
}
END_TEST

START_TEST(test_truncated)
{
	const size_t len = 65536;
	size_t n, cut[5];
	unsigned int i;

	if (!testable(_i))
		return;
	make_sample(sample, len, 13);
	n = encode(_i, sample, len, stream, STREAM_MAX);
	cut[0] = 1;
	cut[1] = 2;
	cut[2] = 16;
	cut[3] = n / 2;
	cut[4] = n - 1;
	for (i = 0; i < 5; i++) {
		size_t plen = store_pcluster(stream, n - cut[i], 100);
		int ret;

		ck_assert_int_eq(decode(_i, pcl, plen, len, false),
				 -EFSCORRUPTED);
		/* a partial decode may succeed, but only with real data */
		ret = decode(_i, pcl, plen, len, true);
		ck_assert(ret == 0 || ret == -EFSCORRUPTED);
		if (!ret)
			ck_assert_mem_eq(outbuf, sample, len);
	}
}
END_TEST

/* Damaged streams: any outcome but a crash or a write past the buffer. */
START_TEST(test_damaged)
{
	const size_t len = 20000;
	size_t n, pos;

	if (!testable(_i))
		return;
	make_sample(sample, len, 17);
	n = encode(_i, sample, len, stream, STREAM_MAX);
	for (pos = 0; pos < n; pos += 3) {
		size_t plen = store_pcluster(stream, n, 64);
		int ret;

		pcl[64 + pos] ^= 0x5a;
		ret = decode(_i, pcl, plen, len, false);
		ck_assert(ret == 0 || ret == -EFSCORRUPTED);
		ret = decode(_i, pcl, plen, len / 3, true);
		ck_assert(ret == 0 || ret == -EFSCORRUPTED);
	}
	/* the decoder state survives all of that */
	ck_assert_int_eq(decode(_i, stream, n, len, false), 0);
	ck_assert_mem_eq(outbuf, sample, len);
}
END_TEST

/* One context decodes many pclusters, failures included, with one state. */
START_TEST(test_reuse)
{
	struct erofs_codec_state *state = NULL;
	unsigned int i;

	if (!testable(_i))
		return;
	for (i = 0; i < 60; i++) {
		size_t len = 1000 + (i * 7919) % 70000, plen;
		bool partial = i % 4 == 3;
		size_t want = partial ? len / 2 : len;

		make_sample(sample, len, 100 + i);
		plen = make_pcluster(_i, len);
		ck_assert_int_eq(decode(_i, pcl, plen, want, partial), 0);
		ck_assert_mem_eq(outbuf, sample, want);
		if (!i)
			state = ctx.codec[_i];
		ck_assert_ptr_eq(ctx.codec[_i], state);
		if (i % 5 == 4) {
			make_garbage(pcl, 4096, i);
			ck_assert_int_eq(decode(_i, pcl, 4096, len, false),
					 -EFSCORRUPTED);
		}
	}
	erofs_decompress_fini(&ctx);
	ck_assert_ptr_null(ctx.codec[_i]);
	/* and a fresh one comes back after fini */
	make_sample(sample, 3000, 1);
	ck_assert_int_eq(decode(_i, pcl, make_pcluster(_i, 3000), 3000, false),
			 0);
	ck_assert_mem_eq(outbuf, sample, 3000);
}
END_TEST

/* codec specifics */

/* Pre-5.4 LZ4: block at byte 0, anything after it (format.md, "LZ4"). */
START_TEST(test_lz4_legacy_layout)
{
	const unsigned int alg = Z_EROFS_COMPRESSION_LZ4;
	const size_t len = 10000;
	struct erofs_decomp_req req = {
		.alg = alg,
		.outlen = len,
		.nid = REQ_NID,
		.pa = REQ_PA,
	};
	size_t n;

	if (!testable(alg))
		return;
	make_sample(sample, len, 19);
	n = encode(alg, sample, len, pcl, STREAM_MAX);
	ck_assert_uint_lt(n, 8192);
	make_garbage(pcl + n, 8192 - n, 3);
	req.in = pcl;
	req.inlen = 8192;
	ck_assert_int_eq(decode_req(&req), 0);
	ck_assert_mem_eq(outbuf, sample, len);

	/* with zero padding, a full decode must use the whole input */
	req.zero_padding = true;
	ck_assert_int_eq(decode_req(&req), -EFSCORRUPTED);
	req.partial = true;
	ck_assert_int_eq(decode_req(&req), 0);
	ck_assert_mem_eq(outbuf, sample, len);
}
END_TEST

/*
 * Bytes after the stream end are ignored, as Linux does (format.md,
 * "DEFLATE", "Zstandard").
 */
START_TEST(test_trailing_bytes_tolerated)
{
	const size_t len = 30000;
	size_t n;

	if (_i != Z_EROFS_COMPRESSION_DEFLATE &&
	    _i != Z_EROFS_COMPRESSION_ZSTD)
		return;
	if (!testable(_i))
		return;
	make_sample(sample, len, 23);
	n = encode(_i, sample, len, stream, STREAM_MAX);
	make_garbage(stream + n, 100, 5);
	ck_assert_int_eq(decode(_i, stream, n + 100, len, false), 0);
	ck_assert_mem_eq(outbuf, sample, len);
}
END_TEST

START_TEST(test_lzma_configured_dict)
{
#ifdef HAVE_LZMA
	const size_t len = 150000;
	size_t n;

	img.lzma_dict_size = 65536;
	make_sample(sample, len, 29);
	n = lzma_compress(sample, len, stream, STREAM_MAX, 65536);
	ck_assert_int_eq(decode(Z_EROFS_COMPRESSION_LZMA, stream, n, len,
				false), 0);
	ck_assert_mem_eq(outbuf, sample, len);
	ck_assert_int_eq(decode(Z_EROFS_COMPRESSION_LZMA, stream, n, 5000,
				true), 0);
	ck_assert_mem_eq(outbuf, sample, 5000);

	/* the properties byte is stored inverted: ~0x01 is out of range */
	stream[0] = 0x01;
	ck_assert_int_eq(decode(Z_EROFS_COMPRESSION_LZMA, stream, n, len,
				false), -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(ctx.err.msg, "properties"));
#endif
}
END_TEST

#ifdef HAVE_ZSTD
static size_t zstd_compress_window(const uint8_t *src, size_t len,
				   int windowlog)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t n;

	ck_assert_ptr_nonnull(cctx);
	ck_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(cctx,
				ZSTD_c_windowLog, windowlog)));
	n = ZSTD_compress2(cctx, stream, STREAM_MAX, src, len);
	ck_assert(!ZSTD_isError(n));
	ZSTD_freeCCtx(cctx);
	return n;
}
#endif

START_TEST(test_zstd_window)
{
#ifdef HAVE_ZSTD
	const unsigned int alg = Z_EROFS_COMPRESSION_ZSTD;
	const size_t len = SAMPLE_MAX;
	size_t n;

	make_sample(sample, len, 31);
	n = zstd_compress_window(sample, len, 20);
	ck_assert_int_eq(decode(alg, stream, n, len, false), 0);
	ck_assert_mem_eq(outbuf, sample, len);

	n = zstd_compress_window(sample, len, 21);
	ck_assert_int_eq(decode(alg, stream, n, len, false), -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(ctx.err.msg, "window"));
	ck_assert_int_eq(decode(alg, stream, n, 1000, true), -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(ctx.err.msg, "window"));
#endif
}
END_TEST

START_TEST(test_zstd_skippable_frame)
{
#ifdef HAVE_ZSTD
	const size_t len = 5000;
	size_t n;

	make_sample(sample, len, 37);
	n = ZSTD_compress(pcl + 12, STREAM_MAX, sample, len, 3);
	ck_assert(!ZSTD_isError(n));
	erofs_put32(pcl, 0x184d2a50);
	erofs_put32(pcl + 4, 4);
	memset(pcl + 8, 0xee, 4);
	ck_assert_int_eq(decode(Z_EROFS_COMPRESSION_ZSTD, pcl, n + 12, len,
				false), -EFSCORRUPTED);
	ck_assert_int_eq(decode(Z_EROFS_COMPRESSION_ZSTD, pcl + 12, n, len,
				false), 0);
#endif
}
END_TEST

/* a test run once for every codec number, known or not */
#define EVERY_CODEC(test) ((struct unit_loop){ test, Z_EROFS_COMPRESSION_MAX })

UNIT_MAIN(
	"codec", NULL,
	{ "api",
	  .tests = UNIT_TESTS(test_table, test_unknown_alg,
			      test_legacy_lz4_enabled),
	  .loops = UNIT_LOOPS(EVERY_CODEC(test_unavailable),
			      EVERY_CODEC(test_not_enabled),
			      EVERY_CODEC(test_format_limits)),
	  .setup = setup, .teardown = teardown },
	{ "decode",
	  .loops = UNIT_LOOPS(
		  EVERY_CODEC(test_full_roundtrip),
		  EVERY_CODEC(test_no_padding), EVERY_CODEC(test_wrong_length),
		  EVERY_CODEC(test_partial_prefix), EVERY_CODEC(test_all_zero),
		  EVERY_CODEC(test_garbage), EVERY_CODEC(test_truncated),
		  EVERY_CODEC(test_damaged), EVERY_CODEC(test_reuse)),
	  .setup = setup, .teardown = teardown, .timeout = 60 },
	{ "specific",
	  .tests = UNIT_TESTS(test_lz4_legacy_layout, test_lzma_configured_dict,
			      test_zstd_window, test_zstd_skippable_frame),
	  .loops = UNIT_LOOPS(EVERY_CODEC(test_trailing_bytes_tolerated)),
	  .setup = setup, .teardown = teardown, .timeout = 60 })
