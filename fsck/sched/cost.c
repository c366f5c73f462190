// SPDX-License-Identifier: MIT
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/decompress.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "output/output.h"
#include "sched/cost.h"
#include "sched/split.h"
#include "util/knobs.h"

#define COST_FILE_EXTRACT 20000 /* create, set metadata, close */
#define COST_FILE_CHECK 2000
#define COST_RAW_PER_KIB 500 /* copy (bench/calibrate) */
#define COST_MAP_PER_KIB 2 /* map only */
#define COST_OVERLAP_WORKERS 2 /* at -j1 (cost_overlaps()) */

/*
 * Below this much estimated work threads cost more than they save: each
 * sets up its own reading context and decoders, and the walker's own
 * share does not shrink (bench/README.md, "Figures behind the code's
 * constants"). Run inline. EROFS_FSCK_SYNC_NS overrides it (0: never).
 */
#define COST_SYNC_WORK_NS 10000000ULL

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

/*
 * Handing a task over costs more than such a file's work, a copy of at
 * most a block: the task, its report and the outputs' state of the file
 * change threads, and with them their memory (freed by another thread
 * than the one that allocated it). On 10^6 files of up to 2 KiB, --tar
 * -j2 took 1.3 to 1.8 times as long as -j1, which runs every task on the
 * walker. A block of its own to read is not trivial: on slow storage the
 * workers overlap those reads. Hashing the copy is not trivial either:
 * it costs more than the handing over (bench/README.md, "Figures behind
 * the code's constants").
 */
bool cost_file_trivial(const struct erofs_inode *inode, uint32_t blksz,
		       bool hashed)
{
	if (!inode->size)
		return true;
	return !hashed && inode->layout == EROFS_INODE_FLAT_INLINE &&
	       inode->size < blksz;
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

/* Decoding the image's data, from its size and its dearest codec. */
static uint64_t cost_image_data(const struct erofs_image *img, uint64_t bytes)
{
	uint64_t per = COST_RAW_PER_KIB, kib = bytes >> 10;
	const struct erofs_codec *codec;
	unsigned int alg;

	for (alg = 0; alg < 16; alg++) {
		if (!(img->available_compr_algs & (1U << alg)))
			continue;
		codec = erofs_codec_get(alg);
		if (codec && codec->cost_ns_per_kib > per)
			per = codec->cost_ns_per_kib;
	}
	return kib > UINT64_MAX / per ? UINT64_MAX : kib * per;
}

/*
 * Work the image holds: its data, and with --extract=DIR or --compare=DIR
 * a file on disk to create or open for each inode the superblock counts,
 * which costs more than a small file's bytes to decode (bench/README.md,
 * "Figures behind the code's constants"). A superblock that overstates
 * its inodes only starts threads.
 */
static uint64_t cost_image(const struct outputs *outs,
			   const struct erofs_image *img, uint64_t bytes)
{
	uint64_t work = cost_image_data(img, bytes);

	if (!outputs_want(outs, OUT_OPENS))
		return work;
	if (img->inos > (UINT64_MAX - work) / COST_FILE_EXTRACT)
		return UINT64_MAX;
	return work + img->inos * COST_FILE_EXTRACT;
}

unsigned int cost_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : (unsigned int)n;
}

/* EROFS_FSCK_SYNC_NS (knobs.h): the work that pays for threads. */
static uint64_t cost_sync_limit(void)
{
	uint64_t limit;

	if (!knob_value("EROFS_FSCK_SYNC_NS", &limit))
		limit = COST_SYNC_WORK_NS;
	return limit;
}

unsigned int cost_threads_most(unsigned int jobs)
{
	unsigned int cpus;

	if (jobs <= 1)
		return 0;
	if (!cost_sync_limit())
		return jobs;
	cpus = cost_cpus();
	if (jobs > cpus)
		jobs = cpus;
	return jobs <= 1 ? 0 : jobs;
}

/*
 * Does -j jobs start the pair of workers that take turns to decode? At
 * -j1, where another CPU can write meanwhile, as unsquashfs -p 1 writes
 * on a thread of its own beside its one decoder (bench/README.md,
 * "Figures behind the code's constants"). Not on one CPU: writing into
 * the page cache is CPU work too.
 */
static bool cost_overlaps(unsigned int jobs)
{
	return jobs == 1 && (!cost_sync_limit() || cost_cpus() > 1);
}

unsigned int cost_workers_most(unsigned int jobs)
{
	unsigned int most = cost_threads_most(jobs);

	return most || !cost_overlaps(jobs) ? most : COST_OVERLAP_WORKERS;
}

/*
 * None for a small image, and none when nothing is decoded: a task then
 * only maps extents, about as much work as the walker spends finding the
 * file, so threads cannot win. No more than the CPUs the process may run
 * on, and so none on one: threads beyond them decode nothing sooner, and
 * take turns on the CPUs, each turn in a cold cache, and in the kernel's
 * locks of the directories they create files in (bench/README.md,
 * "Figures behind the code's constants").
 */
struct cost_workers cost_threads(const struct outputs *outs, bool decode,
				 const struct erofs_image *img, uint64_t bytes,
				 unsigned int jobs)
{
	struct cost_workers w = { .threads = cost_threads_most(jobs) };
	const struct cost_workers none = { 0 };
	uint64_t limit = cost_sync_limit();

	if (!w.threads && cost_overlaps(jobs) && decode &&
	    outputs_want(outs, OUT_OPENS))
		w = (struct cost_workers){ .threads = COST_OVERLAP_WORKERS,
					   .decoders = 1 };
	if (!w.threads || !limit)
		return w;
	if (!decode && !outputs_want(outs, OUT_OPENS))
		return none;
	if (cost_image(outs, img, bytes) < limit)
		return none;
	return w;
}
