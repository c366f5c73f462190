/* SPDX-License-Identifier: MIT */
/*
 * The cost model: estimated nanoseconds of work, by which fsck decides
 * whether threads are worth starting, the pool packs tasks into batches,
 * files are split into pieces and read-ahead is charged. Per-KiB decoding
 * costs come from each codec (bench/calibrate measures them); the rest
 * are fixed estimates of one task's overhead.
 */
#ifndef FSCK_COST_H
#define FSCK_COST_H

#include <stdbool.h>
#include <stdint.h>

struct erofs_image;
struct erofs_inode;
struct erofs_map;
struct outputs;

/* The CPUs this process may run on (its affinity), else those online. */
unsigned int cost_cpus(void);

/*
 * The workers a run starts: threads (0 runs every task inline), and how
 * many of them may decode at once (0: every one).
 */
struct cost_workers {
	unsigned int threads;
	unsigned int decoders;
};

/*
 * The workers worth starting for -j jobs, for an image of bytes (all its
 * devices), whose data is decoded (or its blocks hashed) or not, for what
 * the outputs declared they want (output.h). -j1 decodes on one thread;
 * for outputs that open a file on disk for each (an extraction writes,
 * a comparison reads), two workers take turns at it, so that one writes
 * while the other decodes. EROFS_FSCK_SYNC_NS=0 starts them, whatever the
 * work and the CPUs.
 */
struct cost_workers cost_threads(const struct outputs *outs, bool decode,
				 const struct erofs_image *img, uint64_t bytes,
				 unsigned int jobs);

/*
 * The most workers cost_threads() starts for -j jobs that all decode at
 * once, whatever the work: none at -j1, which decodes on one thread. What
 * the outputs size their own threads for (the archive's compressor).
 */
unsigned int cost_threads_most(unsigned int jobs);

/*
 * The most worker threads cost_threads() starts for -j jobs, whatever the
 * work: what the outputs size their resources for (the extractor's
 * descriptors).
 */
unsigned int cost_workers_most(unsigned int jobs);

/* Decoding cost per KiB of a file's data, by its first algorithm. */
uint64_t cost_data_per_kib(const struct erofs_inode *inode);

/* A regular file's task: check only, decode, or decode and extract. */
uint64_t cost_file(const struct erofs_inode *inode, bool decode, bool extract);

/*
 * Is a regular file's task smaller than handing it to a worker? When its
 * data lies whole in its inode's block (read already to read the inode)
 * and is not hashed, for outputs that open no file on disk for it (the
 * caller's to know); an empty file always.
 */
bool cost_file_trivial(const struct erofs_inode *inode, uint32_t blksz,
		       bool hashed);

/* Mapping an extent and handing on len of its bytes. */
uint64_t cost_extent(const struct erofs_map *map, uint64_t len);

#endif
