// SPDX-License-Identifier: MIT
#include "cost.h"
#include "erofs/data.h"
#include "erofs/decompress.h"
#include "erofs/inode.h"
#include "split.h"

#define COST_FILE_EXTRACT 20000		/* create, set metadata, close */
#define COST_FILE_CHECK 2000
#define COST_RAW_PER_KIB 500		/* copy (bench/calibrate) */
#define COST_MAP_PER_KIB 2		/* map only */

uint64_t cost_data_per_kib(const struct erofs_inode *inode)
{
	const struct erofs_codec *codec;

	if (erofs_inode_is_compressed(inode)) {
		codec = erofs_codec_get(inode->z.algs[0]);
		if (codec)
			return codec->cost_ns_per_kib;
	}
	return COST_RAW_PER_KIB;
}

uint64_t cost_file(const struct erofs_inode *inode, bool decode, bool extract)
{
	uint64_t kib = inode->size >> 10;

	if (!decode)
		return COST_FILE_CHECK + kib * COST_MAP_PER_KIB;
	return (extract ? COST_FILE_EXTRACT : COST_FILE_CHECK) +
	       split_data_cost(inode->size, cost_data_per_kib(inode));
}

uint64_t cost_extent(const struct erofs_map *map, uint64_t len)
{
	const struct erofs_codec *codec = NULL;
	uint64_t per = COST_RAW_PER_KIB;

	if (map->loc == EROFS_LOC_HOLE)
		per = 0;
	else if (map->loc != EROFS_LOC_FRAGMENT && map->fmt < EROFS_FMT_SHIFTED)
		codec = erofs_codec_get(map->fmt);
	if (codec)
		per = codec->cost_ns_per_kib;
	return SPLIT_EXTENT_NS + split_data_cost(len, per);
}
