// SPDX-License-Identifier: MIT
/* The digests dm-verity trees use, by name. */
#include <string.h>

#include "erofs/hash.h"

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
