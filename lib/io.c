// SPDX-License-Identifier: MIT
/*
 * Devices: the primary image and extra devices, read with pread at a byte
 * offset. Every read is bounded by the device size first.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static int device_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	return -EINVAL;
}

int erofs_io_open(struct erofs_device *dev, const char *path, int fd,
		  uint64_t offset, struct erofs_err *err)
{
	uint64_t size;
	int ret;

	if (fd >= 0)
		dev->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	else
		dev->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (dev->fd < 0)
		return erofs_error(err, -errno, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "cannot open %s: %s", path, strerror(errno));
	ret = device_size(dev->fd, &size);
	if (ret) {
		erofs_io_close(dev);
		return erofs_error(err, ret == -EINVAL ? -EINVAL : ret,
				   EROFS_NO_NID, EROFS_NO_OFFSET,
				   "%s is not a regular file or block device",
				   path);
	}
	if (offset > size) {
		erofs_io_close(dev);
		return erofs_error(err, -EINVAL, EROFS_NO_NID, offset,
				   "offset %llu is past the end of %s (%llu bytes)",
				   (unsigned long long)offset, path,
				   (unsigned long long)size);
	}
	dev->path = strdup(path);
	if (!dev->path) {
		erofs_io_close(dev);
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	}
	dev->offset = offset;
	dev->size = size - offset;
	return 0;
}

void erofs_io_close(struct erofs_device *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
	free(dev->path);
	dev->path = NULL;
}

int erofs_io_pread(const struct erofs_device *dev, void *buf, size_t len,
		   uint64_t pos, struct erofs_err *err)
{
	uint8_t *p = buf;

	if (!erofs_range_ok(pos, len, dev->size))
		return erofs_error(err, -EFSCORRUPTED, EROFS_NO_NID, pos,
				   "read of %zu bytes at %llu is past the end of %s",
				   len, (unsigned long long)pos, dev->path);
	while (len) {
		ssize_t n = pread(dev->fd, p, len, (off_t)(dev->offset + pos));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return erofs_error(err, -errno, EROFS_NO_NID, pos,
					   "read error on %s at %llu: %s",
					   dev->path, (unsigned long long)pos,
					   strerror(errno));
		if (n == 0)
			return erofs_error(err, -EIO, EROFS_NO_NID, pos,
					   "%s ended early at %llu", dev->path,
					   (unsigned long long)pos);
		p += n;
		pos += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int erofs_dev_resolve(struct erofs_ctx *ctx, unsigned int devid, uint64_t pa,
		      uint64_t len, unsigned int *dev, uint64_t *fileoff,
		      uint64_t nid)
{
	const struct erofs_image *img = ctx->img;
	unsigned int i;

	if (devid > img->extra_devices)
		return erofs_error(&ctx->err, -EFSCORRUPTED, nid, EROFS_NO_OFFSET,
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
		return erofs_error(&ctx->err, -EFSCORRUPTED, nid, pa,
				   "data at %llu+%llu is past the end of device %u (%llu bytes)",
				   (unsigned long long)pa,
				   (unsigned long long)len, devid,
				   (unsigned long long)img->devs[devid].size);
	*dev = devid;
	*fileoff = pa;
	return 0;
}

int erofs_dev_read(struct erofs_ctx *ctx, unsigned int devid, uint64_t pa,
		   void *buf, size_t len, uint64_t nid)
{
	unsigned int dev;
	uint64_t off;
	int ret;

	ret = erofs_dev_resolve(ctx, devid, pa, len, &dev, &off, nid);
	if (ret)
		return ret;
	ret = erofs_io_pread(&ctx->img->devs[dev], buf, len, off, &ctx->err);
	if (ret && ctx->err.nid == EROFS_NO_NID)
		ctx->err.nid = nid;
	return ret;
}
