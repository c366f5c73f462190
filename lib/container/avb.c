// SPDX-License-Identifier: MIT
/* AVB hashtree footers: docs/android.md, "AVB hashtree footers". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/avb.h"
#include "erofs/format.h"

#define AVB_FOOTER_SIZE 64
#define AVB_VBMETA_HEADER_SIZE 256
/* libavb reads at most 64 KiB of vbmeta; a larger one is not Android's */
#define AVB_VBMETA_MAX (64u << 10)
#define AVB_TAG_HASHTREE 1
#define AVB_HASHTREE_FIXED 180 /* the descriptor before its name */

/* A problem of the footer or vbmeta: the prefix joins fmt when compiled. */
#define avb_bad(err, code, at, fmt, ...) \
	erofs_error(err, code, EROFS_NO_NID, at, "AVB " fmt, ##__VA_ARGS__)

/* The footer's vbmeta, read whole into *vbmeta (vbmeta_size bytes). */
static int avb_read_footer(const struct erofs_source *src, uint8_t **vbmeta,
			   uint64_t *vbmeta_size,
			   struct erofs_avb_hashtree *out,
			   struct erofs_err *err)
{
	uint64_t size = erofs_source_size(src), at = size - AVB_FOOTER_SIZE;
	uint8_t f[AVB_FOOTER_SIZE];
	int ret;

	if (size < AVB_FOOTER_SIZE)
		return 0;
	ret = erofs_source_read(src, f, sizeof(f), at, err);
	if (ret)
		return ret;
	if (memcmp(f, "AVBf", 4))
		return 0;
	if (erofs_get_be32(f + 4) != 1) {
		return avb_bad(err, -EOPNOTSUPP, at,
			       "footer: version %u.%u, not 1.x",
			       erofs_get_be32(f + 4), erofs_get_be32(f + 8));
	}
	out->vbmeta_offset = erofs_get_be64(f + 20);
	*vbmeta_size = erofs_get_be64(f + 28);
	if (*vbmeta_size < AVB_VBMETA_HEADER_SIZE ||
	    *vbmeta_size > AVB_VBMETA_MAX || out->vbmeta_offset > at ||
	    *vbmeta_size > at - out->vbmeta_offset) {
		return avb_bad(
			err, -EFSCORRUPTED, at,
			"footer: vbmeta of %llu bytes at byte %llu, not within the %llu bytes before the footer (and at most %u)",
			(unsigned long long)*vbmeta_size,
			(unsigned long long)out->vbmeta_offset,
			(unsigned long long)at, AVB_VBMETA_MAX);
	}
	*vbmeta = malloc(*vbmeta_size);
	if (!*vbmeta)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	ret = erofs_source_read(src, *vbmeta, *vbmeta_size, out->vbmeta_offset,
				err);
	return ret ? ret : 1;
}

/* One hashtree descriptor (len bytes at d, its tag and size included). */
static int avb_parse_hashtree(const uint8_t *d, uint64_t len, uint64_t at,
			      uint64_t part_size,
			      struct erofs_avb_hashtree *out,
			      struct erofs_err *err)
{
	struct erofs_verity_info *i = &out->params;
	uint32_t name_len, salt_len, root_len;
	uint64_t image_size;

	if (len < AVB_HASHTREE_FIXED)
		return avb_bad(err, -EFSCORRUPTED, at,
			       "hashtree descriptor: shorter than its fields");
	image_size = erofs_get_be64(d + 20);
	if (erofs_get_be32(d + 16) != 1) {
		return avb_bad(
			err, -EOPNOTSUPP, at,
			"hashtree descriptor: dm-verity version %u, not 1",
			erofs_get_be32(d + 16));
	}
	out->tree_offset = erofs_get_be64(d + 28);
	out->tree_size = erofs_get_be64(d + 36);
	i->data_block_size = erofs_get_be32(d + 44);
	i->hash_block_size = erofs_get_be32(d + 48);
	memcpy(i->algorithm, d + 72, 32);
	i->algorithm[sizeof(i->algorithm) - 1] = '\0';
	name_len = erofs_get_be32(d + 104);
	salt_len = erofs_get_be32(d + 108);
	root_len = erofs_get_be32(d + 112);
	i->hash_type = 1;
	if (salt_len > EROFS_VERITY_SALT_MAX || root_len > EROFS_DIGEST_MAX ||
	    (uint64_t)name_len + salt_len + root_len >
		    len - AVB_HASHTREE_FIXED) {
		return avb_bad(
			err, -EFSCORRUPTED, at,
			"hashtree descriptor: a name of %u bytes, a salt of %u and a root digest of %u do not fit its %llu bytes",
			name_len, salt_len, root_len, (unsigned long long)len);
	}
	if (!i->data_block_size || image_size % i->data_block_size ||
	    out->tree_offset < image_size || out->tree_offset > part_size ||
	    out->tree_size > part_size - out->tree_offset) {
		return avb_bad(
			err, -EFSCORRUPTED, at,
			"hashtree descriptor: %llu bytes of data in blocks of %u, a tree of %llu bytes at byte %llu: not within the partition's %llu bytes, after the data",
			(unsigned long long)image_size, i->data_block_size,
			(unsigned long long)out->tree_size,
			(unsigned long long)out->tree_offset,
			(unsigned long long)part_size);
	}
	i->data_blocks = image_size / i->data_block_size;
	d += AVB_HASHTREE_FIXED;
	snprintf(out->partition, sizeof(out->partition), "%.*s",
		 (int)(name_len < EROFS_AVB_NAME_MAX ? name_len
						     : EROFS_AVB_NAME_MAX - 1),
		 (const char *)d);
	i->salt_size = (uint16_t)salt_len;
	memcpy(i->salt, d + name_len, salt_len);
	out->root_len = root_len;
	memcpy(out->root, d + name_len + salt_len, root_len);
	return 1;
}

/* The first hashtree descriptor among the vbmeta's descriptors. */
static int avb_find_descriptor(const uint8_t *vb, uint64_t size,
			       uint64_t part_size,
			       struct erofs_avb_hashtree *out,
			       struct erofs_err *err)
{
	uint64_t auth = erofs_get_be64(vb + 12), aux = erofs_get_be64(vb + 20);
	uint64_t off = erofs_get_be64(vb + 96), len = erofs_get_be64(vb + 104);
	uint64_t at = out->vbmeta_offset, pos, tag, n;
	const uint8_t *d;

	if (memcmp(vb, "AVB0", 4))
		return avb_bad(
			err, -EFSCORRUPTED, at,
			"vbmeta: no \"AVB0\" magic where the footer points");
	if (erofs_get_be32(vb + 4) != 1) {
		return avb_bad(err, -EOPNOTSUPP, at,
			       "vbmeta: version %u, not 1.x",
			       erofs_get_be32(vb + 4));
	}
	size -= AVB_VBMETA_HEADER_SIZE;
	if (auth > size || aux > size - auth || off > aux || len > aux - off) {
		return avb_bad(
			err, -EFSCORRUPTED, at,
			"vbmeta: blocks of %llu and %llu bytes, descriptors of %llu at %llu, not within its %llu bytes",
			(unsigned long long)auth, (unsigned long long)aux,
			(unsigned long long)len, (unsigned long long)off,
			(unsigned long long)size + AVB_VBMETA_HEADER_SIZE);
	}
	out->signed_vbmeta = erofs_get_be32(vb + 28) != 0;
	d = vb + AVB_VBMETA_HEADER_SIZE + auth + off;
	for (pos = 0; len - pos >= 16; pos += 16 + n) {
		tag = erofs_get_be64(d + pos);
		n = erofs_get_be64(d + pos + 8);
		if (n > len - pos - 16)
			return avb_bad(
				err, -EFSCORRUPTED, at,
				"vbmeta: a descriptor runs past the others' end");
		if (tag == AVB_TAG_HASHTREE)
			return avb_parse_hashtree(d + pos, n + 16, at,
						  part_size, out, err);
	}
	return 0;
}

int erofs_avb_find_hashtree(const struct erofs_source *src,
			    struct erofs_avb_hashtree *out,
			    struct erofs_err *err)
{
	uint8_t *vbmeta = NULL;
	uint64_t size = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = avb_read_footer(src, &vbmeta, &size, out, err);
	if (ret > 0)
		ret = avb_find_descriptor(vbmeta, size, erofs_source_size(src),
					  out, err);
	free(vbmeta);
	return ret;
}
