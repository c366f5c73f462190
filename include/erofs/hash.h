/* SPDX-License-Identifier: MIT */
/*
 * Checksums and digests: CRC32C for the superblock, SHA-256 for contents,
 * and SHA-1, SHA-256 or SHA-512 by name for dm-verity trees.
 */
#ifndef EROFS_HASH_H
#define EROFS_HASH_H

#include <stddef.h>
#include <stdint.h>

/* CRC32C register update (reflected 0x82F63B78), no final inversion. */
uint32_t erofs_crc32c(uint32_t crc, const void *data, size_t len);

#define EROFS_SHA1_LEN 20
#define EROFS_SHA256_LEN 32
#define EROFS_SHA512_LEN 64
#define EROFS_DIGEST_MAX EROFS_SHA512_LEN

struct erofs_sha1 {
	uint32_t state[5];
	uint64_t count;		/* bytes hashed */
	uint8_t buf[64];
	size_t buflen;
};

struct erofs_sha256 {
	uint32_t state[8];
	uint64_t count;		/* bytes hashed */
	uint8_t buf[64];
	size_t buflen;
};

void erofs_sha256_init(struct erofs_sha256 *s);
void erofs_sha256_update(struct erofs_sha256 *s, const void *data, size_t len);
void erofs_sha256_final(struct erofs_sha256 *s, uint8_t digest[EROFS_SHA256_LEN]);

struct erofs_sha512 {
	uint64_t state[8];
	uint64_t count;		/* bytes hashed: messages under 2^61 bytes */
	uint8_t buf[128];
	size_t buflen;
};

void erofs_sha1_init(struct erofs_sha1 *s);
void erofs_sha1_update(struct erofs_sha1 *s, const void *data, size_t len);
void erofs_sha1_final(struct erofs_sha1 *s, uint8_t digest[EROFS_SHA1_LEN]);
void erofs_sha512_init(struct erofs_sha512 *s);
void erofs_sha512_update(struct erofs_sha512 *s, const void *data, size_t len);
void erofs_sha512_final(struct erofs_sha512 *s, uint8_t digest[EROFS_SHA512_LEN]);

/* One of them chosen by name, as a dm-verity superblock names it. */
enum erofs_digest_alg {
	EROFS_DIGEST_NONE,
	EROFS_DIGEST_SHA1,
	EROFS_DIGEST_SHA256,
	EROFS_DIGEST_SHA512,
};

struct erofs_digest {
	enum erofs_digest_alg alg;
	union {
		struct erofs_sha1 sha1;
		struct erofs_sha256 sha256;
		struct erofs_sha512 sha512;
	} u;
};

/* "sha1", "sha256", "sha512"; EROFS_DIGEST_NONE for any other name. */
enum erofs_digest_alg erofs_digest_by_name(const char *name);
unsigned int erofs_digest_size(enum erofs_digest_alg alg);
void erofs_digest_init(struct erofs_digest *d, enum erofs_digest_alg alg);
void erofs_digest_update(struct erofs_digest *d, const void *data, size_t len);
void erofs_digest_final(struct erofs_digest *d, uint8_t *out);

#endif
