// SPDX-License-Identifier: MIT
/*
 * Devices: the primary image and extra devices, read with pread at a byte
 * offset, or copied to a caller's file with copy_file_range. Every read and
 * every copy is bounded by the device size first.
 */
#include <fcntl.h>
#include <limits.h>
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

/* what: "read" or "copy" */
static int check_device_range(const struct erofs_device *dev, uint64_t pos,
			      uint64_t len, const char *what,
			      struct erofs_err *err)
{
	if (!erofs_range_ok(pos, len, dev->size))
		return erofs_error(err, -EFSCORRUPTED, EROFS_NO_NID, pos,
				   "%s of %llu bytes at %llu is past the end of %s",
				   what, (unsigned long long)len,
				   (unsigned long long)pos, dev->path);
	return 0;
}

int erofs_io_pread(const struct erofs_device *dev, void *buf, size_t len,
		   uint64_t pos, struct erofs_err *err)
{
	uint8_t *p = buf;
	int ret = check_device_range(dev, pos, len, "read", err);

	if (ret)
		return ret;
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

/*
 * copy_file_range() cannot copy between these files: another filesystem,
 * a kind of file it does not copy, an output opened for appending, or no
 * copy_file_range() at all; 0 copied is taken as the same.
 */
static bool copy_refused(int err)
{
	return !err || err == EXDEV || err == EINVAL || err == ENOSYS ||
	       err == EOPNOTSUPP || err == EBADF;
}

/* The failure of a copy, recorded as the output's. */
static int copy_failed(struct erofs_err *err, int code, uint64_t off)
{
	bool first = !err->code;

	erofs_error(err, -code, EROFS_NO_NID, EROFS_NO_OFFSET,
		    "copy to the output at %llu: %s", (unsigned long long)off,
		    strerror(code));
	if (first)
		err->output = true;
	return -code;
}

int erofs_io_copy(const struct erofs_device *dev, uint64_t pos, uint64_t len,
		  int fd, uint64_t off, struct erofs_err *err)
{
	loff_t in = (loff_t)(dev->offset + pos), out = (loff_t)off;
	int ret = check_device_range(dev, pos, len, "copy", err);
	ssize_t n;

	if (ret)
		return ret;
	while (len) {
		n = copy_file_range(dev->fd, &in, fd, &out,
				    len < SSIZE_MAX ? (size_t)len : SSIZE_MAX,
				    0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			len -= (uint64_t)n;
			continue;
		}
		if (copy_refused(n ? errno : 0))
			return EROFS_COPY_REFUSED;
		return copy_failed(err, errno, (uint64_t)out);
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
