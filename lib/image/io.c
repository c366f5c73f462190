// SPDX-License-Identifier: MIT
/*
 * Devices: the primary image and extra devices, each a source
 * (erofs/source.h) from an offset on, read at a byte offset or copied to
 * a caller's file in the kernel. Every read and every copy is bounded by
 * the device size first.
 */
#include <stdlib.h>
#include <string.h>

#include "image/image_internal.h"
#include "container/container_internal.h"

int erofs_io_open(struct erofs_device *dev, const char *path, int fd,
		  uint64_t offset, struct erofs_err *err)
{
	struct erofs_source *src;
	int ret = erofs_source_open(&src, path, fd, err);

	return ret ? ret : erofs_io_attach(dev, src, offset, err);
}

int erofs_io_attach(struct erofs_device *dev, struct erofs_source *src,
		    uint64_t offset, struct erofs_err *err)
{
	uint64_t size = erofs_source_size(src);

	if (offset > size) {
		erofs_error(err, -EINVAL, EROFS_NO_NID, offset,
			    "offset %llu is past the end of %s (%llu bytes)",
			    (unsigned long long)offset, erofs_source_name(src),
			    (unsigned long long)size);
		erofs_source_close(src);
		return -EINVAL;
	}
	dev->src = src;
	dev->path = erofs_source_name(src);
	dev->offset = offset;
	dev->size = size - offset;
	return 0;
}

void erofs_io_close(struct erofs_device *dev)
{
	erofs_source_close(dev->src);
	dev->src = NULL;
	dev->path = NULL;
}

int erofs_io_pread(const struct erofs_device *dev, void *buf, size_t len,
		   uint64_t pos, struct erofs_err *err)
{
	int ret = erofs_bound(pos, len, dev->size, "read", dev->path, err);

	return ret ? ret
		   : erofs_source_read(dev->src, buf, len, dev->offset + pos,
				       err);
}

int erofs_io_copy(const struct erofs_device *dev, uint64_t pos, uint64_t len,
		  int fd, uint64_t off, struct erofs_err *err)
{
	int ret = erofs_bound(pos, len, dev->size, "copy", dev->path, err);

	return ret ? ret
		   : erofs_source_copy(dev->src, dev->offset + pos, len, fd,
				       off, err);
}

int erofs_dev_resolve(struct erofs_ctx *ctx, unsigned int devid, uint64_t pa,
		      uint64_t len, unsigned int *dev, uint64_t *fileoff,
		      uint64_t nid)
{
	const struct erofs_image *img = ctx->img;
	unsigned int i;

	if (devid > img->extra_devices)
		return erofs_error(
			&ctx->err, -EFSCORRUPTED, nid, EROFS_NO_OFFSET,
			"device id %u but the image has %u extra devices",
			devid, img->extra_devices);
	if (!devid) {
		for (i = 1; i < img->ndevs; i++) {
			uint64_t start = img->devs[i].uniaddr << img->blkszbits;
			uint64_t span = img->devs[i].blocks << img->blkszbits;

			if (!img->devs[i].uniaddr || pa < start ||
			    pa - start >= span)
				continue;
			devid = i;
			pa -= start;
			break;
		}
	}
	if (!erofs_range_ok(pa, len, img->devs[devid].size))
		return erofs_error(
			&ctx->err, -EFSCORRUPTED, nid, pa,
			"data at %llu+%llu is past the end of device %u (%llu bytes)",
			(unsigned long long)pa, (unsigned long long)len, devid,
			(unsigned long long)img->devs[devid].size);
	*dev = devid;
	*fileoff = pa;
	return 0;
}

/* The device, and the position in it, of data [pa, pa + len) of devid. */
static int dev_locate(struct erofs_ctx *ctx, unsigned int devid, uint64_t pa,
		      uint64_t len, uint64_t nid,
		      const struct erofs_device **dev, uint64_t *pos)
{
	unsigned int id;
	int ret = erofs_dev_resolve(ctx, devid, pa, len, &id, pos, nid);

	if (ret)
		return ret;
	*dev = &ctx->img->devs[id];
	return 0;
}

/* A device failure names no inode: give it the one being read. */
static int with_nid(struct erofs_ctx *ctx, int ret, uint64_t nid)
{
	if (ret < 0 && ctx->err.nid == EROFS_NO_NID)
		ctx->err.nid = nid;
	return ret;
}

int erofs_dev_read(struct erofs_ctx *ctx, unsigned int devid, uint64_t pa,
		   void *buf, size_t len, uint64_t nid)
{
	const struct erofs_device *dev;
	uint64_t pos;
	int ret = dev_locate(ctx, devid, pa, len, nid, &dev, &pos);

	if (ret)
		return ret;
	return with_nid(ctx, erofs_io_pread(dev, buf, len, pos, &ctx->err),
			nid);
}

int erofs_dev_copy(struct erofs_ctx *ctx, unsigned int devid, uint64_t pa,
		   uint64_t len, int fd, uint64_t off, uint64_t nid)
{
	const struct erofs_device *dev;
	uint64_t pos;
	int ret = dev_locate(ctx, devid, pa, len, nid, &dev, &pos);

	if (ret)
		return ret;
	return with_nid(ctx, erofs_io_copy(dev, pos, len, fd, off, &ctx->err),
			nid);
}
