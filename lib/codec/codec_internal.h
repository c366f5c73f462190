/* SPDX-License-Identifier: MIT */
/*
 * Private interface between the pcluster decoder (decompress.c) and the
 * codec files. Each codec file defines one table entry; its state is a
 * private struct that the entry's functions convert from the opaque
 * struct erofs_codec_state pointer kept in the context.
 */
#ifndef EROFS_LIB_CODEC_INTERNAL_H
#define EROFS_LIB_CODEC_INTERNAL_H

#include "erofs/decompress.h"

/*
 * Entries of the codec table. An entry built without its library has
 * available = false and NULL functions; a stateless codec has a NULL
 * init and fini.
 */
extern const struct erofs_codec erofs_codec_lz4;
extern const struct erofs_codec erofs_codec_lzma;
extern const struct erofs_codec erofs_codec_deflate;
extern const struct erofs_codec erofs_codec_zstd;

#endif
