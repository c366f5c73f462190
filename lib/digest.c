// SPDX-License-Identifier: MIT
/* The digests dm-verity trees use, by name, and the SHA family's buffering. */
#include <string.h>

#include "erofs/hash.h"
#include "digest_internal.h"

void digest_absorb(const struct digest_buffer *b, digest_blocks_fn *blocks,
		   void *state, const uint8_t *p, size_t len)
{
	size_t n;

	*b->count += len;
	if (*b->used) {
		n = b->block - *b->used;
		if (n > len)
			n = len;
		memcpy(b->buf + *b->used, p, n);
		*b->used += n;
		p += n;
		len -= n;
		if (*b->used < b->block)
			return;
		blocks(state, b->buf, 1);
		*b->used = 0;
	}
	if (len >= b->block) {
		blocks(state, p, len / b->block);
		p += len - len % b->block;
		len %= b->block;
	}
	memcpy(b->buf, p, len);
	*b->used = len;
}

void digest_pad(const struct digest_buffer *b, digest_blocks_fn *blocks,
		void *state, size_t lenbytes)
{
	uint64_t bytes = *b->count;
	size_t used = *b->used, end = b->block - 8;

	b->buf[used++] = 0x80;
	if (used > b->block - lenbytes) {
		memset(b->buf + used, 0, b->block - used);
		blocks(state, b->buf, 1);
		used = 0;
	}
	memset(b->buf + used, 0, end - used);
	/* a 128-bit length's upper half holds the bits a byte count shifts out */
	if (lenbytes > 8)
		b->buf[end - 1] = (uint8_t)(bytes >> 61);
	digest_put_be64(b->buf + end, bytes << 3);
	blocks(state, b->buf, 1);
	*b->used = 0;
}

static const struct {
	const char *name;
	unsigned int size;
} digest_algs[] = {
	[EROFS_DIGEST_SHA1] = { "sha1", EROFS_SHA1_LEN },
	[EROFS_DIGEST_SHA256] = { "sha256", EROFS_SHA256_LEN },
	[EROFS_DIGEST_SHA512] = { "sha512", EROFS_SHA512_LEN },
};

enum erofs_digest_alg erofs_digest_by_name(const char *name)
{
	unsigned int a;

	for (a = EROFS_DIGEST_SHA1; a <= EROFS_DIGEST_SHA512; a++)
		if (!strcmp(name, digest_algs[a].name))
			return a;
	return EROFS_DIGEST_NONE;
}

const char *erofs_digest_name(enum erofs_digest_alg alg)
{
	return digest_algs[alg].name;
}

unsigned int erofs_digest_size(enum erofs_digest_alg alg)
{
	return digest_algs[alg].size;
}

void erofs_digest_init(struct erofs_digest *d, enum erofs_digest_alg alg)
{
	d->alg = alg;
	switch (alg) {
	case EROFS_DIGEST_SHA1:
		erofs_sha1_init(&d->u.sha1);
		break;
	case EROFS_DIGEST_SHA512:
		erofs_sha512_init(&d->u.sha512);
		break;
	default:
		erofs_sha256_init(&d->u.sha256);
		break;
	}
}

void erofs_digest_update(struct erofs_digest *d, const void *data, size_t len)
{
	switch (d->alg) {
	case EROFS_DIGEST_SHA1:
		erofs_sha1_update(&d->u.sha1, data, len);
		break;
	case EROFS_DIGEST_SHA512:
		erofs_sha512_update(&d->u.sha512, data, len);
		break;
	default:
		erofs_sha256_update(&d->u.sha256, data, len);
		break;
	}
}

void erofs_digest_final(struct erofs_digest *d, uint8_t *out)
{
	switch (d->alg) {
	case EROFS_DIGEST_SHA1:
		erofs_sha1_final(&d->u.sha1, out);
		break;
	case EROFS_DIGEST_SHA512:
		erofs_sha512_final(&d->u.sha512, out);
		break;
	default:
		erofs_sha256_final(&d->u.sha256, out);
		break;
	}
}
