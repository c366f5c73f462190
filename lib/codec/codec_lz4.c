// SPDX-License-Identifier: MIT
/*
 * LZ4 (format.md, "LZ4"): a raw LZ4 block. liblz4 decodes without any state of
 * its own, so this codec has none.
 */
#include "codec/codec_internal.h"

/*
 * Decode cost for the scheduler, in ns per KiB of output, mapping included.
 * The four codecs' figures come from bench/calibrate on the bench images
 * (2-core x86-64 machine, one thread); rerun it to recalibrate.
 */
#define LZ4_COST_NS_PER_KIB 900

#ifdef HAVE_LZ4
#include <lz4.h>

static int lz4_decode(struct erofs_codec_state *state,
		      const struct erofs_decomp_req *req, struct erofs_err *err)
{
	const char *in = (const char *)req->in;
	char *out = (char *)req->out;
	int inlen = (int)req->inlen, outlen = (int)req->outlen;
	bool whole = req->zero_padding && !req->partial;
	int ret;

	/*
	 * A full decode of a right-aligned block must use it all and yield
	 * exactly outlen bytes. A legacy block (no zero padding) may be
	 * followed by garbage, so it is read like a partial one: up to
	 * outlen bytes, without requiring the input to end there.
	 */
	if (whole)
		ret = LZ4_decompress_safe(in, out, inlen, outlen);
	else
		ret = LZ4_decompress_safe_partial(in, out, inlen, outlen,
						  outlen);
	if (ret < 0 && whole)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "lz4: invalid block of %d bytes, or longer than %d bytes",
				   inlen, outlen);
	if (ret < 0)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "lz4: invalid block of %d bytes", inlen);
	if (ret != outlen)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "lz4: block ends after %d of %d bytes",
				   ret, outlen);
	return 0;
}
#endif

const struct erofs_codec erofs_codec_lz4 = {
	.name = "lz4",
	.cost_ns_per_kib = LZ4_COST_NS_PER_KIB,
#ifdef HAVE_LZ4
	.available = true,
	.decode = lz4_decode,
#endif
};
