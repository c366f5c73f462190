// SPDX-License-Identifier: MIT
/*
 * CRC32C (Castagnoli) register update for the superblock checksum (format.md,
 * "Checksums"): reflected polynomial 0x82F63B78, no final inversion, so callers
 * chain calls and store the raw register.
 *
 * Slice-by-8: table k maps a byte to its contribution k bytes further on,
 * which lets the loop fold eight input bytes per step.
 */
#include <pthread.h>

#include "erofs/format.h"
#include "erofs/hash.h"

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc_table[8][256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void crc_table_build(void)
{
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		uint32_t crc = i;

		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (crc & 1 ? CRC32C_POLY : 0);
		crc_table[0][i] = crc;
	}
	for (k = 1; k < 8; k++)
		for (i = 0; i < 256; i++) {
			uint32_t prev = crc_table[k - 1][i];

			crc_table[k][i] = prev >> 8 ^ crc_table[0][prev & 0xff];
		}
}

static uint32_t crc_byte(uint32_t crc, uint8_t byte)
{
	return crc >> 8 ^ crc_table[0][(crc ^ byte) & 0xff];
}

uint32_t erofs_crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	pthread_once(&crc_table_once, crc_table_build);
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t lo = erofs_get32(p) ^ crc;
		uint32_t hi = erofs_get32(p + 4);

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][lo >> 8 & 0xff] ^
		      crc_table[5][lo >> 16 & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][hi >> 8 & 0xff] ^
		      crc_table[1][hi >> 16 & 0xff] ^ crc_table[0][hi >> 24];
	}
	while (len--)
		crc = crc_byte(crc, *p++);
	return crc;
}
