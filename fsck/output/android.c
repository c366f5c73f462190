// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/xattr.h"
#include "output/android.h"
#include "util/outfile.h"
#include "util/strbuf.h"

#define XATTR_CAPS "security.capability"
#define XATTR_SELINUX "security.selinux"

/* struct vfs_cap_data: magic_etc, then {permitted, inheritable} words */
#define VFS_CAP_REVISION_MASK 0xff000000u
#define VFS_CAP_REVISION_1 0x01000000u
#define VFS_CAP_V1_SIZE 12
#define VFS_CAP_V2_SIZE 20

struct android_file {
	const char *name;
	struct outfile out;
	FILE *f;
};

struct android {
	struct report *rep;
	struct android_file fs_config;
	struct android_file file_contexts;
	char *prefix; /* the mount point, without '/' around it */
	struct strbuf line;
};

/* What an entry's xattrs give. */
struct android_xattrs {
	uint64_t caps;
	char *label;
	size_t labellen;
};

static int android_create(struct android *a, struct android_file *af,
			  const char *name)
{
	int err;

	af->name = name;
	af->out.fd = -1;
	if (!name)
		return 0;
	err = -outfile_open(&af->out, name);
	if (!err) {
		af->f = fdopen(af->out.fd, "w");
		err = af->f ? 0 : errno;
	}
	if (!err)
		return 0;
	outfile_discard(&af->out);
	report_fatal(a->rep, "cannot create %s: %s", name, strerror(err));
	return -err;
}

static char *android_prefix(const char *mount_point)
{
	const char *p = mount_point ? mount_point : "";
	size_t len;

	p += strspn(p, "/");
	len = strlen(p);
	while (len && p[len - 1] == '/')
		len--;
	return strndup(p, len);
}

int android_open(struct android **out, const struct android_opts *o,
		 struct report *rep)
{
	struct android *a = calloc(1, sizeof(*a));
	int ret;

	*out = NULL;
	if (a)
		a->prefix = android_prefix(o->mount_point);
	if (!a || !a->prefix) {
		free(a);
		report_nomem(rep, NULL);
		return -ENOMEM;
	}
	a->rep = rep;
	a->line = (struct strbuf)STRBUF_INIT;
	ret = android_create(a, &a->fs_config, o->fs_config);
	if (!ret)
		ret = android_create(a, &a->file_contexts, o->file_contexts);
	if (ret) {
		android_close(a);
		return ret;
	}
	*out = a;
	return 0;
}

static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The permitted set of a vfs_cap_data; revision 1 has only 32 bits. */
static uint64_t android_caps(const uint8_t *v, size_t len)
{
	uint64_t caps;

	if (len < VFS_CAP_V1_SIZE)
		return 0;
	caps = le32_at(v + 4);
	if ((le32_at(v) & VFS_CAP_REVISION_MASK) != VFS_CAP_REVISION_1 &&
	    len >= VFS_CAP_V2_SIZE)
		caps |= (uint64_t)le32_at(v + 12) << 32;
	return caps;
}

static int android_xattr(void *arg, const struct erofs_xattr *xa)
{
	struct android_xattrs *ax = arg;
	size_t len = xa->value_len;

	if (!strcmp(xa->name, XATTR_CAPS)) {
		ax->caps = android_caps(xa->value, len);
	} else if (!strcmp(xa->name, XATTR_SELINUX) && !ax->label) {
		/* the label is stored with its terminating NUL */
		while (len && !((const char *)xa->value)[len - 1])
			len--;
		ax->label = strndup(xa->value, len);
		if (!ax->label)
			return -ENOMEM;
		ax->labellen = strlen(ax->label);
	}
	return 0;
}

static bool android_has_space(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (strchr(" \t\n\v\f\r", s[i]) && s[i])
			return true;
	return false;
}

/* The path of e, relative, with the prefix. */
static void android_path(struct android *a, struct strbuf *sb,
			 const struct walk_entry *e)
{
	if (!e->rellen) {
		sb_addc(sb, '/');
		return;
	}
	if (*a->prefix)
		sb_addf(sb, "%s/", a->prefix);
	sb_add(sb, e->rel, e->rellen);
}

static void android_regex(struct strbuf *sb, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (strchr(".^$*+?()[]{}|\\", s[i]) && s[i])
			sb_addc(sb, '\\');
		sb_addc(sb, s[i]);
	}
}

/* The file_contexts path of e: absolute, escaped. */
static void android_context_path(struct android *a, struct strbuf *sb,
				 const struct walk_entry *e)
{
	sb_addc(sb, '/');
	android_regex(sb, a->prefix, strlen(a->prefix));
	if (*a->prefix && e->rellen)
		sb_addc(sb, '/');
	android_regex(sb, e->rel, e->rellen);
}

static int android_put(struct android *a, struct android_file *af)
{
	struct strbuf *sb = &a->line;

	if (sb->failed)
		return -ENOMEM;
	if (fwrite(sb->s, 1, sb->len, af->f) == sb->len)
		return 0;
	report_fatal(a->rep, "cannot write %s: %s", af->name, strerror(errno));
	return -errno;
}

static int android_lines(struct android *a, const struct walk_entry *e,
			 const struct android_xattrs *ax)
{
	const struct erofs_inode *inode = e->inode;
	struct strbuf *sb = &a->line;
	int ret = 0;

	if (a->fs_config.f) {
		sb_reset(sb);
		android_path(a, sb, e);
		sb_addf(sb, " %u %u %o capabilities=0x%llx\n", inode->uid,
			inode->gid, inode->mode & 07777,
			(unsigned long long)ax->caps);
		ret = android_put(a, &a->fs_config);
	}
	if (!ret && a->file_contexts.f && ax->label) {
		sb_reset(sb);
		android_context_path(a, sb, e);
		sb_addc(sb, ' ');
		sb_add(sb, ax->label, ax->labellen);
		sb_addc(sb, '\n');
		ret = android_put(a, &a->file_contexts);
	}
	return ret;
}

int android_entry(struct android *a, struct erofs_ctx *ctx,
		  const struct walk_entry *e, const struct fsck_loc *loc)
{
	struct android_xattrs ax = { 0 };
	int ret;

	if (android_has_space(e->rel, e->rellen)) {
		report_failure(
			a->rep, loc,
			"white space in the path: left out of the Android metadata");
		return 0;
	}
	/* problems of the xattrs are the checker's to report */
	ret = erofs_xattr_iterate(ctx, e->inode, 0, android_xattr, &ax);
	if (ret < 0)
		erofs_err_drop(erofs_ctx_err(ctx));
	if (ret == -ENOMEM) {
		free(ax.label);
		report_nomem(a->rep, loc);
		return ret;
	}
	if (ax.label && android_has_space(ax.label, ax.labellen)) {
		report_failure(
			a->rep, loc,
			"white space in the SELinux label: left out of %s",
			a->file_contexts.name ? a->file_contexts.name
					      : "file_contexts");
		free(ax.label);
		ax.label = NULL;
	}
	ret = android_lines(a, e, &ax);
	free(ax.label);
	return ret;
}

/*
 * Name the file when the run is complete and every line was written;
 * else FILE keeps what it held (outfile.h).
 */
static int android_finish(struct android *a, struct android_file *af,
			  bool complete)
{
	int ret = 0;

	if (!af->f)
		return 0;
	/* the stream owns the descriptor: the outfile only names the file */
	if (ferror(af->f) | fclose(af->f))
		ret = -(errno ? errno : EIO);
	af->f = NULL;
	af->out.fd = -1;
	if (!ret && complete)
		ret = outfile_commit(&af->out);
	else
		outfile_discard(&af->out);
	if (ret)
		report_fatal(a->rep, "cannot write %s: %s", af->name,
			     strerror(-ret));
	return ret;
}

int android_close(struct android *a)
{
	int ret, err;

	if (!a)
		return 0;
	ret = android_finish(a, &a->fs_config, false);
	err = android_finish(a, &a->file_contexts, false);
	sb_release(&a->line);
	free(a->prefix);
	free(a);
	return ret ? ret : err;
}

/* The output (output.h): a line per name, written on the walker. */

static enum fsck_result android_out_entry(void *priv,
					  const struct out_entry *oe,
					  void **state)
{
	(void)state;
	return fsck_result_of(android_entry(priv, oe->ctx, oe->e, oe->loc));
}

static enum fsck_result android_out_finish(void *priv, struct report *rep,
					   bool complete)
{
	struct android *a = priv;
	int ret = android_finish(a, &a->fs_config, complete);
	int err = android_finish(a, &a->file_contexts, complete);

	(void)rep;
	return fsck_result_of(ret ? ret : err);
}

static void android_out_close(void *priv)
{
	android_close(priv);
}

const struct output_ops android_output = {
	.entry = android_out_entry,
	.finish = android_out_finish,
	.close = android_out_close,
};
