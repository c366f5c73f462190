/* SPDX-License-Identifier: MIT */
/* Checksums and digests: CRC32C for the superblock, SHA-256 for contents. */
#ifndef EROFS_HASH_H
#define EROFS_HASH_H

#include <stddef.h>
#include <stdint.h>

/* CRC32C register update (reflected 0x82F63B78), no final inversion. */
uint32_t erofs_crc32c(uint32_t crc, const void *data, size_t len);

#define EROFS_SHA256_LEN 32

struct erofs_sha256 {
	uint32_t state[8];
	uint64_t count;		/* bytes hashed */
	uint8_t buf[64];
	size_t buflen;
};

void erofs_sha256_init(struct erofs_sha256 *s);
void erofs_sha256_update(struct erofs_sha256 *s, const void *data, size_t len);
void erofs_sha256_final(struct erofs_sha256 *s, uint8_t digest[EROFS_SHA256_LEN]);

#endif
