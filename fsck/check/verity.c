// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/image.h"
#include "fsck.h"
#include "verity.h"

/* HEX into bytes: their count, or 0 when it is not an even run of hex. */
static size_t parse_hex(const char *hex, uint8_t *out, size_t room)
{
	size_t n = strlen(hex), i;

	if (!n || n % 2 || n / 2 > room)
		return 0;
	for (i = 0; i < n; i++) {
		char c = hex[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (d < 0)
			return 0;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] << 4 | d : d);
	}
	return n / 2;
}

static int verity_failed(struct report *rep, struct erofs_err *err, int ret)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };

	report_lib_error(rep, &loc, err, ret);
	return ret;
}

/* The tree in hash (vc->hash, or IMAGE's) at hash_offset, under root. */
static int verity_open_tree(struct verity_check *vc, struct erofs_image *img,
			    struct report *rep, uint64_t hash_offset,
			    const uint8_t *root, size_t root_len)
{
	struct erofs_verity_opts o = {
		.data = img->devs[0].src,
		.hash = vc->hash ? vc->hash : img->devs[0].src,
		.hash_offset = hash_offset,
		.root = root,
		.root_len = root_len,
	};
	struct erofs_err err;
	int ret;

	vc->image_start = img->devs[0].offset;
	erofs_err_clear(&err);
	ret = erofs_verity_open(&vc->v, &o, &err);
	if (ret == -EINVAL) {
		report_usage(rep, "%s", err.msg);
		erofs_err_drop(&err);
		return ret;
	}
	if (ret)
		return verity_failed(rep, &err, ret);
	vc->block_size = erofs_verity_info(vc->v)->data_block_size;
	return 0;
}

static void verity_init(struct verity_check *vc)
{
	memset(vc, 0, sizeof(*vc));
	pthread_mutex_init(&vc->lock, NULL);
}

int verity_open(struct verity_check *vc, const struct fsck_cfg *cfg,
		struct erofs_image *img, struct report *rep)
{
	uint8_t root[EROFS_VERITY_DIGEST_MAX];
	struct erofs_err err;
	uint64_t end;
	size_t root_len;
	int ret;

	verity_init(vc);
	if (!cfg->root_hash)
		return 1;
	/* options.c let through only hex of a digest's length */
	root_len = parse_hex(cfg->root_hash, root, sizeof(root));
	if (cfg->verity) {
		erofs_err_clear(&err);
		ret = erofs_source_open(&vc->hash, cfg->verity, -1, &err);
		if (ret)
			return verity_failed(rep, &err, ret);
	} else {
		end = img->devs[0].offset + img->blocks * img->blksz;
		if (cfg->hash_offset < end) {
			report_usage(
				rep,
				"--hash-offset=%llu lies inside the filesystem, whose blocks end at byte %llu",
				(unsigned long long)cfg->hash_offset,
				(unsigned long long)end);
			return -EINVAL;
		}
	}
	return verity_open_tree(vc, img, rep, cfg->hash_offset, root, root_len);
}

int verity_open_paired(struct verity_check *vc, struct erofs_image *img,
		       struct report *rep, struct erofs_source *hash,
		       const uint8_t *root, size_t root_len, const char *what)
{
	verity_init(vc);
	vc->hash = hash;
	report_msg(
		rep, FSCK_LVL_INFO,
		"%s: the dm-verity tree of %s, its root hash from the partitions' UUIDs",
		rep->image, what);
	return verity_open_tree(vc, img, rep, 0, root, root_len);
}

void verity_close(struct verity_check *vc)
{
	erofs_verity_close(vc->v);
	if (vc->hash)
		erofs_source_close(vc->hash);
	free(vc->bad);
	free(vc->bad_leaves);
	free(vc->claimed);
	pthread_mutex_destroy(&vc->lock);
}

uint64_t verity_leaves(const struct verity_check *vc)
{
	return vc->v ? erofs_verity_info(vc->v)->leaf_blocks : 0;
}

/* Under the lock: room for n more in *a, of *cap. */
static bool grow(uint64_t **a, size_t *cap, size_t used, size_t n)
{
	size_t want = *cap ? *cap : 64;
	uint64_t *p;

	while (want < used + n)
		want *= 2;
	if (want == *cap)
		return true;
	p = realloc(*a, want * sizeof(**a));
	if (!p)
		return false;
	*a = p;
	*cap = want;
	return true;
}

int verity_leaf_task(void *worker, void *arg)
{
	struct verity_leaf *l = arg;
	struct verity_check *vc = l->vc;
	size_t per = erofs_verity_info(vc->v)->data_per_leaf, n;
	uint64_t *bad = malloc(per * sizeof(*bad));
	struct erofs_err err;
	int ret;

	(void)worker;
	if (!bad)
		return -ENOMEM;
	erofs_err_clear(&err);
	ret = erofs_verity_check_leaf(vc->v, l->leaf, bad, &n, &err);
	erofs_err_drop(&err);
	pthread_mutex_lock(&vc->lock);
	if (ret == -EFSCORRUPTED) {
		if (grow(&vc->bad_leaves, &vc->capleaves, vc->nbad_leaves, 1))
			vc->bad_leaves[vc->nbad_leaves++] = l->leaf;
		else
			ret = -ENOMEM;
	} else if (ret) {
		if (!vc->read_error)
			vc->read_error = -ret;
	} else if (grow(&vc->bad, &vc->capbad, vc->nbad, n)) {
		memcpy(vc->bad + vc->nbad, bad, n * sizeof(*bad));
		vc->nbad += n;
	} else {
		ret = -ENOMEM;
	}
	pthread_mutex_unlock(&vc->lock);
	free(bad);
	return ret == -ENOMEM ? ret : 0;
}

static int u64_order(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int verity_sort(struct verity_check *vc, struct report *rep)
{
	const struct erofs_verity_info *i = erofs_verity_info(vc->v);
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	uint64_t first, last;
	size_t k;

	if (vc->nbad)
		qsort(vc->bad, vc->nbad, sizeof(*vc->bad), u64_order);
	if (vc->nbad_leaves)
		qsort(vc->bad_leaves, vc->nbad_leaves,
		      sizeof(*vc->bad_leaves), u64_order);
	for (k = 0; k < vc->nbad_leaves; k++) {
		first = vc->bad_leaves[k] * i->data_per_leaf;
		last = first + i->data_per_leaf - 1;
		if (last >= i->data_blocks)
			last = i->data_blocks - 1;
		report_problem(
			rep, &loc,
			"dm-verity tree: leaf hash block %llu fails its hash: data blocks %llu to %llu cannot be checked",
			(unsigned long long)vc->bad_leaves[k],
			(unsigned long long)first, (unsigned long long)last);
	}
	if (vc->read_error)
		report_fatal(rep, "%s: dm-verity check: cannot read: %s",
			     rep->image, strerror(vc->read_error));
	vc->claimed = calloc(vc->nbad ? vc->nbad : 1, 1);
	if (!vc->claimed) {
		report_nomem(rep, NULL);
		return -ENOMEM;
	}
	report_msg(
		rep, FSCK_LVL_INFO,
		"dm-verity: %llu data blocks of %u bytes checked (sha256, %u levels), %zu fail",
		(unsigned long long)i->data_blocks, i->data_block_size,
		i->levels, vc->nbad);
	return vc->read_error ? -vc->read_error : 0;
}

/* The first failed block at or after block b. */
static size_t first_bad_from(const struct verity_check *vc, uint64_t b)
{
	size_t lo = 0, hi = vc->nbad;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (vc->bad[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One failed block b that u uses, as loc's problem. */
static void verity_name(const struct verity_check *vc, struct report *rep,
			const struct fsck_loc *loc, const struct verity_use *u,
			uint64_t start, uint64_t b)
{
	uint64_t from = b * vc->block_size, lo, hi;

	if (u->inode) {
		report_problem(
			rep, loc,
			"its inode lies in data block %llu, which fails its verity hash",
			(unsigned long long)b);
		return;
	}
	if (!u->raw) {
		report_problem(
			rep, loc,
			"bytes %llu to %llu: their encoded data uses data block %llu, which fails its verity hash",
			(unsigned long long)u->la,
			(unsigned long long)(u->la + u->llen - 1),
			(unsigned long long)b);
		return;
	}
	lo = from > start ? from - start : 0;
	hi = from + vc->block_size - start;
	if (hi > u->len)
		hi = u->len;
	report_problem(
		rep, loc,
		"bytes %llu to %llu: data block %llu fails its verity hash",
		(unsigned long long)(u->la + lo),
		(unsigned long long)(u->la + hi - 1), (unsigned long long)b);
}

void verity_claim(struct verity_check *vc, struct report *rep,
		  const struct fsck_loc *loc, const struct verity_use *u)
{
	uint64_t start, end, b;
	size_t k;

	if (!vc || !vc->nbad || !u->len)
		return;
	start = vc->image_start + u->pos;
	end = start + u->len;
	for (k = first_bad_from(vc, start / vc->block_size);
	     k < vc->nbad && vc->bad[k] * vc->block_size < end; k++) {
		b = vc->bad[k];
		__atomic_store_n(&vc->claimed[k], 1, __ATOMIC_RELAXED);
		verity_name(vc, rep, loc, u, start, b);
	}
}

void verity_report_unclaimed(struct verity_check *vc, struct report *rep)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	size_t k;

	for (k = 0; vc->claimed && k < vc->nbad; k++) {
		if (__atomic_load_n(&vc->claimed[k], __ATOMIC_RELAXED))
			continue;
		loc.offset = vc->bad[k] * vc->block_size;
		report_problem(
			rep, &loc,
			"data block %llu fails its verity hash; no file, directory or inode of the walk uses it (the superblock, shared xattrs, the packed inode's metadata, or unused)",
			(unsigned long long)vc->bad[k]);
	}
}
