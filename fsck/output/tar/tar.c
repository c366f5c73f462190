// SPDX-License-Identifier: MIT
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/inode.h"
#include "erofs/pool.h"
#include "output/tar/tar.h"
#include "output/tar/tar_internal.h"
#include "output/tar/tarentry.h"
#include "util/interrupt.h"
#include "util/knobs.h"
#include "util/nidmap.h"
#include "util/outfile.h"
#include "util/strbuf.h"
#include "util/window.h"

/* Spooled data is copied to the archive through a buffer this big. */
#define TAR_IO_BYTES (1u << 20)
/*
 * The zeros of a skipped hole are fed in steps this big (libarchive takes
 * at most INT_MAX bytes a call), where the address space allows
 * (tar_map_hole_zeros()).
 */
#define TAR_HOLE_MAP_BYTES ((size_t)INT_MAX + 1 - 4096)

/* Deliverer: the archive is broken, nothing more is written. */
static void tar_break(struct tar_writer *tw, int err, const char *why)
{
	tw->err = err;
	if (why && !tw->errtext)
		tw->errtext = strdup(why);
	tw->discard = true;
	__atomic_store_n(&tw->failed, true, __ATOMIC_RELEASE);
}

/*
 * libarchive's output. A write that fails breaks the archive here, and
 * libarchive is told it succeeded: it then never enters its fatal state,
 * where it would not free its buffers, and its end is dropped.
 */
static la_ssize_t tar_out(struct archive *a, void *arg, const void *buf,
			  size_t len)
{
	struct tar_writer *tw = arg;
	int err;

	/* an archive dropped mid-entry: no padding of the entry's rest */
	if (tw->dropped)
		return -1;
	if (!tw->discard) {
		err = outfile_write_all(tw->fd, buf, len, -1);
		if (err)
			tar_break(tw, -err, NULL);
		tw->written += len;
	}
	return (la_ssize_t)len;
}

bool tar_failed(const struct tar_writer *tw)
{
	return __atomic_load_n(&tw->failed, __ATOMIC_ACQUIRE);
}

/*
 * warc's writer "warns" of a name too long for its header, writes no
 * header, and would still end the entry with a record separator, which
 * readers take for a broken record: end the entry now, that separator
 * dropped, and leave it out.
 */
static bool tar_header_refused(struct tar_writer *tw)
{
	const char *s = archive_error_string(tw->a);

	if ((archive_format(tw->a) & ARCHIVE_FORMAT_BASE_MASK) !=
		    ARCHIVE_FORMAT_WARC ||
	    !s || strncmp(s, "cannot archive file", 19))
		return false;
	tw->discard = true;
	archive_write_finish_entry(tw->a);
	tw->discard = false;
	return true;
}

/*
 * warc's record header of a file is built in 512 bytes, 212 of them its
 * fixed fields: a path too long for the rest is refused by libarchive,
 * which then loses the header's memory. Refuse it here, as it would.
 */
#define TAR_WARC_HEADER 512
#define TAR_WARC_FIXED 212

static bool tar_warc_too_long(struct tar_writer *tw, struct tar_file *tf)
{
	char size[24];

	if ((archive_format(tw->a) & ARCHIVE_FORMAT_BASE_MASK) !=
		    ARCHIVE_FORMAT_WARC ||
	    archive_entry_filetype(tf->entry) != AE_IFREG)
		return false;
	snprintf(size, sizeof(size), "%lld",
		 (long long)archive_entry_size(tf->entry));
	if (TAR_WARC_FIXED + strlen(tf->name) + strlen(size) < TAR_WARC_HEADER)
		return false;
	archive_set_error(tw->a, ENAMETOOLONG,
			  "cannot archive file: its path does not fit a WARC record header");
	tar_note(tw, true, tf->name);
	return true;
}

/* libarchive's word that a name went in as bytes, not as UTF-8. */
static bool tar_name_untranslated(struct tar_writer *tw)
{
	const char *s = archive_error_string(tw->a);

	return s && !strncmp(s, "Can't translate ", 16);
}

/* Was the header of entry name written? Notes what libarchive said. */
static bool tar_header_written(struct tar_writer *tw, int ret,
			       const char *name)
{
	switch (ret) {
	case ARCHIVE_OK:
		return true;
	case ARCHIVE_WARN:
		if (tar_header_refused(tw)) {
			tar_note(tw, true, name);
			return false;
		}
		/*
		 * A name that is not UTF-8 is stored as its bytes with
		 * hdrcharset=BINARY (tar_names_utf8()): exact, as meant.
		 */
		if (tar_name_untranslated(tw))
			tar_named_add(&tw->binary_names, name, tw->all_names);
		else
			tar_note(tw, false, name);
		return true;
	case ARCHIVE_FAILED:
		tar_note(tw, true, name);
		return false;
	default:
		tar_break(tw, EIO, archive_error_string(tw->a));
		return false;
	}
}

static int tar_put(struct tar_writer *tw, const void *buf, size_t len)
{
	la_ssize_t n;

	while (len) {
		n = archive_write_data(tw->a, buf, len);
		if (n <= 0) {
			/* a writer that takes no data may not say why */
			tar_break(tw, EIO,
				  archive_error_string(tw->a) ?
					  archive_error_string(tw->a) :
					  "the format's writer took none of a file's data");
			return -EIO;
		}
		buf = (const uint8_t *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

static int tar_pread(struct tar_writer *tw, int fd, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, tw->io + done, len - done, (off_t)(off + done));
		if (n <= 0) {
			tar_break(tw, n < 0 ? errno : EIO, NULL);
			return -EIO;
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * The zeros of a hole the entry's sparse map skips: libarchive's pax
 * writer takes them and drops them unread (tar_sparse_map()), so a hole
 * of petabytes is fed in steps of a mapping of zeros that no page backs,
 * a thousand times fewer than over the buffer of TAR_IO_BYTES (512 PiB:
 * 1.6 s, a signal seen between steps).
 */
static void tar_map_hole_zeros(struct tar_writer *tw)
{
	size_t len;
	void *p;

	for (len = TAR_HOLE_MAP_BYTES; len > TAR_IO_BYTES; len /= 2) {
		p = mmap(NULL, len, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED) {
			tw->hole_zeros = p;
			tw->hole_zeros_len = len;
			return;
		}
	}
	tw->hole_zeros = tw->zeros;
	tw->hole_zeros_len = TAR_IO_BYTES;
}

/* Bytes [off, off + len) of the data, or zeros for a hole. */
static int tar_put_range(struct tar_writer *tw, const struct tar_data *d,
			 uint64_t off, uint64_t len, bool hole)
{
	size_t n, step = TAR_IO_BYTES;
	const uint8_t *zeros = tw->zeros;
	int ret;

	if (hole && tw->caps.sparse) {
		if (!tw->hole_zeros)
			tar_map_hole_zeros(tw);
		zeros = tw->hole_zeros;
		step = tw->hole_zeros_len;
	}
	while (len) {
		if (interrupted()) {
			tar_break(tw, EINTR, NULL);
			return -EINTR;
		}
		n = len < step ? (size_t)len : step;
		if (hole || d->mem) {
			ret = tar_put(tw, hole ? zeros : d->mem + off, n);
		} else {
			ret = tar_pread(tw, d->spool, n, off);
			if (!ret)
				ret = tar_put(tw, tw->io, n);
		}
		if (ret)
			return ret;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * The whole content, holes as zeros: the pax writer drops the bytes of
 * the holes in its sparse map, the others store them.
 */
static int tar_put_data(struct tar_writer *tw, const struct tar_data *d)
{
	uint64_t pos = 0, end;
	size_t h = 0;
	int ret = 0;

	while (pos < d->size && !ret) {
		end = h < d->nholes ? d->holes[h].off : d->size;
		if (pos < end) {
			ret = tar_put_range(tw, d, pos, end - pos, false);
			pos = end;
			continue;
		}
		end = d->holes[h].off + d->holes[h].len;
		ret = tar_put_range(tw, d, pos, end - pos, true);
		pos = end;
		h++;
	}
	return ret;
}

static void tar_data_of_file(const struct tar_file *tf, struct tar_data *d)
{
	*d = (struct tar_data){ .mem = tf->mem,
				.spool = tf->spool,
				.holes = tf->holes,
				.nholes = tf->nholes,
				.size = tf->inode.size };
}

static void tar_data_of_first(const struct tar_first *p, struct tar_data *d)
{
	*d = (struct tar_data){ .spool = p->keep,
				.holes = p->holes,
				.nholes = p->nholes,
				.size = p->size };
}

/*
 * TAR_LINKS_COPY: keep the data of tf, linked, for its later names: its
 * spool, or its bytes written to one (on disk, not in memory, however
 * many linked files the tree holds).
 */
static int tar_keep_data(struct tar_writer *tw, struct tar_file *tf,
			 struct tar_first *p)
{
	int err;

	if (tf->kind != TAR_FILE)
		return 0;
	if (tf->spool >= 0) {
		p->keep = tf->spool;
		tf->spool = -1;
	} else {
		p->keep = outfile_spool(outfile_spool_dir());
		if (p->keep < 0)
			return -errno;
		err = outfile_write_all(p->keep, tf->mem, tf->inode.size, 0);
		if (err)
			return err;
	}
	p->holes = tf->holes;
	p->nholes = tf->nholes;
	p->size = tf->inode.size;
	tf->holes = NULL;
	tf->nholes = 0;
	return 0;
}

/* Later names link to this one, or copy it. */
static void tar_remember(struct tar_writer *tw, struct tar_file *tf)
{
	struct tar_first *p;
	const char *target;
	int added, err;

	p = nidmap_get(&tw->first, tf->nid, &added);
	if (p && !added)
		return;
	if (p)
		p->keep = -1;
	target = archive_entry_symlink(tf->entry);
	if (!p || !(p->name = strdup(tf->name)) ||
	    (target && tw->caps.links != TAR_LINKS_ENTRY &&
	     !(p->target = strdup(target)))) {
		tar_break(tw, ENOMEM, "out of memory for hard links");
		return;
	}
	p->ino = archive_entry_ino64(tf->entry);
	if (tw->caps.links != TAR_LINKS_COPY)
		return;
	err = tar_keep_data(tw, tf, p);
	if (err)
		tar_break(tw, -err,
			  "cannot keep the data of a hard-linked file for its later names");
}

/* A later name: a link to the first, which holds the data. */
static bool tar_link_to_first(struct tar_writer *tw, struct tar_file *tf)
{
	const struct tar_first *first = nidmap_find(&tw->first, tf->nid);

	if (!first) {
		tw->orphans++;
		return false;
	}
	if (tw->caps.links == TAR_LINKS_COPY) {
		/* an entry of its own, the first's data after it */
		if (first->target)
			archive_entry_copy_symlink(tf->entry, first->target);
		return true;
	}
	archive_entry_set_size(tf->entry, 0);
	if (tw->caps.links == TAR_LINKS_ENTRY) {
		archive_entry_copy_hardlink(tf->entry, first->name);
		return true;
	}
	archive_entry_set_ino64(tf->entry, (la_int64_t)first->ino);
	/* a symlink's target is its data: cpio readers want it each time */
	if (first->target) {
		archive_entry_copy_symlink(tf->entry, first->target);
		archive_entry_set_size(tf->entry,
				       (la_int64_t)strlen(first->target));
	}
	return true;
}

/*
 * Will the data of d fit what the output has left? An entry whose size
 * the image sets is refused before a byte of it is written, not by
 * filling the disk: the archive then breaks, FILE left as it was.
 */
static bool tar_data_fits(struct tar_writer *tw, const struct tar_data *d,
			  const char *name)
{
	char needs[SIZE_TEXT_MAX], has[SIZE_TEXT_MAX], text[PATH_MAX + 160];
	uint64_t stored = d->size, left;
	size_t h;

	if (!tw->room_known)
		return true;
	for (h = 0; tw->caps.sparse && h < d->nholes; h++)
		stored -= d->holes[h].len;
	left = tw->room > tw->written ? tw->room - tw->written : 0;
	if (stored <= left)
		return true;
	snprintf(
		text, sizeof(text),
		"%s needs %s in the archive, and there is room for %s%s", name,
		size_text(needs, stored), size_text(has, left),
		d->nholes && !tw->caps.sparse
			? " (its holes are stored as zeros but in --format=pax)"
			: "");
	tar_break(tw, ENOSPC, text);
	return false;
}

static void tar_write(struct tar_writer *tw, struct tar_file *tf)
{
	const struct tar_first *first = NULL;
	struct tar_data d = { 0 };

	/* inode numbers that tell the entries apart, but for links */
	if (tw->caps.inodes)
		archive_entry_set_ino64(tf->entry,
					(la_int64_t)tf->item.seq + 1);
	if (tf->kind == TAR_LINK && !tar_link_to_first(tw, tf))
		return;
	if (tar_warc_too_long(tw, tf))
		return;
	if (tf->kind == TAR_FILE) {
		tar_data_of_file(tf, &d);
	} else if (tf->kind == TAR_LINK && tw->caps.links == TAR_LINKS_COPY) {
		first = nidmap_find(&tw->first, tf->nid);
		if (first->keep >= 0)
			tar_data_of_first(first, &d);
	}
	if (!tar_data_fits(tw, &d, tf->name))
		return;
	if (!tar_header_written(tw, archive_write_header(tw->a, tf->entry),
				tf->name))
		return;
	if (d.size && tar_put_data(tw, &d))
		return;
	if (tf->linked)
		tar_remember(tw, tf);
}

static void tar_file_free(struct tar_file *tf)
{
	if (tf->entry)
		archive_entry_free(tf->entry);
	if (tf->kind == TAR_FILE) {
		free(tf->mem);
		if (tf->spool >= 0)
			close(tf->spool);
		free(tf->holes);
		pthread_mutex_destroy(&tf->lock);
	}
	free(tf);
}

/* The window's consumer: entries in walk order. */
static void tar_deliver(void *arg, struct ord_item *item)
{
	struct tar_file *tf = (struct tar_file *)item;
	struct tar_writer *tw = arg;

	if (tf->left_out) {
		tw->spool_failed++;
		tw->spool_err = tf->left_out;
		tar_named_add(&tw->left_out, tf->name, tw->all_names);
	}
	if (tf->ok && !tar_failed(tw))
		tar_write(tw, tf);
	tar_file_free(tf);
}

static int tar_open_output(struct tar_writer *tw, struct report *rep)
{
	int ret;

	if (!strcmp(tw->file, "-")) {
		tw->fd = STDOUT_FILENO;
		return 0;
	}
	ret = outfile_open(&tw->out, tw->file);
	tw->fd = tw->out.fd;
	if (!ret)
		return 0;
	report_fatal(rep, "--tar=%s: %s", tw->file, strerror(-ret));
	return ret;
}

/* EROFS_FSCK_TAR_WINDOW (knobs.h): a smaller window, for tests. */
static size_t tar_window_bytes(void)
{
	uint64_t v;

	if (knob_value("EROFS_FSCK_TAR_WINDOW", &v) && v < TAR_WINDOW_BYTES)
		return (size_t)v;
	return TAR_WINDOW_BYTES;
}

static int tar_setup(struct tar_writer *tw, struct report *rep)
{
	int ret;

	tw->a = archive_write_new();
	tw->io = malloc(TAR_IO_BYTES);
	tw->zeros = calloc(1, TAR_IO_BYTES);
	if (!tw->a || !tw->io || !tw->zeros) {
		report_nomem(rep, NULL);
		return -ENOMEM;
	}
	ret = tar_set_format(tw, rep);
	if (!ret)
		ret = tar_set_filter(tw, rep);
	if (!ret)
		ret = tar_open_output(tw, rep);
	if (ret)
		return ret;
	/* compressed, the archive's size is not the data's */
	tw->room_known = !tar_compression(tw->file, tw->compress) &&
			 outfile_room(tw->fd, &tw->room);
	if (archive_write_open(tw->a, tw, NULL, tar_out, NULL) != ARCHIVE_OK) {
		report_fatal(rep, "--tar=%s: %s", tw->file,
			     archive_error_string(tw->a));
		return -EIO;
	}
	ret = ord_window_init(&tw->window, tar_window_bytes(), tar_deliver, tw);
	if (ret)
		report_nomem(rep, NULL);
	tw->window_ready = !ret;
	return ret;
}

int tar_open(struct tar_writer **twp, const struct tar_opts *o,
	     struct report *rep)
{
	struct tar_writer *tw = calloc(1, sizeof(*tw));
	int ret;

	*twp = NULL;
	if (!tw) {
		report_nomem(rep, NULL);
		return -ENOMEM;
	}
	tw->fd = -1;
	tw->out.fd = -1;
	tw->all_names = rep->level >= FSCK_LVL_INFO;
	tar_losses_init(&tw->losses, tw->all_names);
	tw->file = o->file;
	tw->format = tar_format_of(o->file, o->format);
	tw->options = o->options;
	tw->compress = o->compress;
	tw->threads = o->threads ? o->threads : 1;
	tw->sparse = o->sparse;
	nidmap_init(&tw->first, sizeof(struct tar_first));
	ret = tar_setup(tw, rep);
	if (ret) {
		tar_close(tw);
		return ret;
	}
	*twp = tw;
	return 0;
}

/* The name in the archive: relative to the start, "." for it. */
static struct tar_file *tar_file_new(struct tar_writer *tw,
				     const struct walk_entry *e,
				     enum tar_kind kind)
{
	const char *name = e->rel, *slash;
	size_t len = e->rellen;
	struct tar_file *tf;

	if (!len && !S_ISDIR(e->inode->mode) && e->pathlen) {
		slash = memrchr(e->path, '/', e->pathlen);
		name = slash ? slash + 1 : e->path;
		len = e->pathlen - (size_t)(name - e->path);
	} else if (!len) {
		name = ".";
		len = 1;
	}
	tf = calloc(1, sizeof(*tf) + len + 1);
	if (!tf)
		return NULL;
	memcpy(tf->name, name, len);
	tf->tw = tw;
	tf->kind = kind;
	tf->nid = e->nid;
	tf->spool = -1;
	tf->linked = e->inode->nlink > 1 && !S_ISDIR(e->inode->mode);
	tf->item.bytes = TAR_ENTRY_BYTES;
	return tf;
}

/* Walker: number the entry and wait for room in the window. */
static void tar_queue(struct tar_writer *tw, struct tar_file *tf)
{
	tf->item.seq = tw->seq++;
	ord_window_reserve(&tw->window, &tf->item);
}

/* Walker: an entry complete from the start. */
static int tar_add(struct tar_writer *tw, const struct walk_entry *e,
		   enum tar_kind kind, const char *target,
		   const struct xattr_list *xl)
{
	struct tar_file *tf = tar_file_new(tw, e, kind);

	if (!tf)
		return -ENOMEM;
	tf->entry = tarentry_new(&tw->caps, tf->name, e->inode, target, xl,
				 &tw->losses);
	if (!tf->entry) {
		tar_file_free(tf);
		return -ENOMEM;
	}
	tf->ok = true;
	tar_queue(tw, tf);
	ord_window_complete(&tw->window, &tf->item);
	return 0;
}

/* An entry's name in the report: its path below the start, "." for it. */
static const char *tar_entry_name(const struct walk_entry *e)
{
	return e->rellen ? e->rel : ".";
}

int tar_node(struct tar_writer *tw, const struct walk_entry *e,
	     const char *target, const struct xattr_list *xl)
{
	if (S_ISSOCK(e->inode->mode)) {
		tar_losses_add(&tw->losses, TAR_LOST_SOCKETS, tar_entry_name(e));
		return 0;
	}
	return tar_add(tw, e, TAR_NODE, target, xl);
}

int tar_link(struct tar_writer *tw, const struct walk_entry *e)
{
	if (S_ISSOCK(e->inode->mode))
		return 0;
	return tar_add(tw, e, TAR_LINK, NULL, NULL);
}

/* An unnamed file in $TMPDIR for data too big to wait in memory. */
static int tar_spool_open(struct report *rep, const struct fsck_loc *loc)
{
	const char *dir = outfile_spool_dir();
	int fd = outfile_spool(dir), err;

	if (fd >= 0)
		return fd;
	err = errno;
	report_fatal_at(
		rep, loc, -err,
		"--tar: cannot make a spool file in %s (TMPDIR) for a file over %u MiB: %s",
		dir, TAR_MEM_FILE >> 20, strerror(err));
	return -err;
}

int tar_file_begin(struct tar_writer *tw, const struct walk_entry *e,
		   struct tar_file **tfp)
{
	struct tar_file *tf = tar_file_new(tw, e, TAR_FILE);

	if (!tf)
		return -ENOMEM;
	tf->inode = *e->inode;
	pthread_mutex_init(&tf->lock, NULL);
	tar_queue(tw, tf);
	*tfp = tf;
	return 0;
}

/* What the file's data holds of the window while it waits. */
static size_t tar_file_bytes(const struct tar_file *tf)
{
	uint64_t size = tf->inode.size;

	return size > TAR_MEM_FILE ? TAR_MEM_FILE : (size_t)size;
}

bool tar_has_room(struct tar_writer *tw)
{
	struct ord_item next = { .seq = tw->seq };

	return ord_window_has_room(&tw->window, &next, TAR_ENTRY_BYTES);
}

bool tar_file_has_room(struct tar_writer *tw, const struct tar_file *tf)
{
	return ord_window_has_room(&tw->window, &tf->item, tar_file_bytes(tf));
}

int tar_file_queue(struct tar_writer *tw, struct tar_file *tf,
		   struct report *rep, const struct fsck_loc *loc)
{
	uint64_t size = tf->inode.size;

	ord_window_grow(&tw->window, &tf->item, tar_file_bytes(tf));
	if (size > TAR_MEM_FILE) {
		tf->spool = tar_spool_open(rep, loc);
		return tf->spool < 0 ? tf->spool : 0;
	}
	/*
	 * Not zeroed: every byte is stored by the data or, in a hole, zeroed
	 * by tar_add_hole(). Zeroing it here made the walker write every byte
	 * of the image's files once more (bench/README.md, "The walker's
	 * share").
	 */
	if (size) {
		tf->mem = malloc((size_t)size);
		if (!tf->mem)
			return -ENOMEM;
	}
	return 0;
}

/*
 * A file read correctly that cannot go into the archive: counted and
 * named when its turn comes (tar_deliver()).
 */
static void tar_left_out(struct tar_file *tf, int err)
{
	tf->ok = false;
	tf->left_out = err;
}

void tar_file_done(struct tar_file *tf, bool ok, bool failed,
		   const struct xattr_list *xl)
{
	struct tar_writer *tw = tf->tw;
	int err = __atomic_load_n(&tf->err, __ATOMIC_RELAXED);

	tf->ok = ok && !err;
	if (ok && err)
		tar_left_out(tf, err);
	if (!ok && failed)
		__atomic_add_fetch(&tw->check_failed, 1, __ATOMIC_RELAXED);
	if (tf->ok) {
		tf->entry = tarentry_new(&tw->caps, tf->name, &tf->inode, NULL,
					 xl, &tw->losses);
		tf->ok = tf->entry != NULL;
		if (tf->entry)
			tar_sparse_map(tf);
		else
			tar_left_out(tf, ENOMEM);
	}
	ord_window_complete(&tw->window, &tf->item);
}

static int tar_end(struct tar_writer *tw, struct report *rep, bool complete)
{
	int ret = 0;

	/*
	 * An archive left incomplete gets no end. libarchive would still
	 * pad the entry it was writing to its size (petabytes, for a hole
	 * the format stores as zeros): every write now fails instead, and
	 * its close still frees what it holds.
	 */
	if (!complete) {
		tw->discard = tw->dropped = true;
		archive_write_close(tw->a);
	} else if (archive_write_close(tw->a) != ARCHIVE_OK) {
		report_fatal(rep, "--tar=%s: %s", tw->file,
			     archive_error_string(tw->a));
		ret = -EIO;
	}
	if (!ret && tar_failed(tw))
		ret = -EIO;
	tw->fd = -1;
	if (ret || !complete) {
		outfile_discard(&tw->out);
		return ret;
	}
	ret = outfile_commit(&tw->out);
	if (ret) {
		report_fatal(rep, "--tar=%s: %s", tw->file, strerror(-ret));
		ret = -EIO;
	}
	return ret;
}

/* Did the archive leave out an entry the check passed? */
static bool tar_missed(const struct tar_writer *tw)
{
	unsigned int i;

	for (i = 0; i < tw->nmsgs; i++)
		if (tw->msgs[i].failed)
			return true;
	return tw->spool_failed || tw->more_msgs;
}

int tar_finish(struct tar_writer *tw, struct report *rep, bool complete)
{
	/* an interrupted archive is reported as such, and nothing else */
	if (!interrupted())
		tar_report(tw, rep);
	/* a signal that broke it off is main()'s to report */
	if (tar_failed(tw) && tw->err != EINTR)
		report_fatal(rep, "--tar=%s: %s", tw->file,
			     tw->errtext ? tw->errtext : strerror(tw->err));
	/*
	 * FILE is replaced by an archive of every entry the check passed
	 * (exit 0 or 4), never by one that misses some for another reason;
	 * a pipe still gets the end of what it was given.
	 */
	if (complete && tw->out.target && (rep->fatal || tar_missed(tw))) {
		report_msg(
			rep, FSCK_LVL_WARN,
			"--tar=%s: not replaced, as the archive is not complete",
			tw->file);
		complete = false;
	}
	return tar_end(tw, rep, complete);
}

void tar_close(struct tar_writer *tw)
{
	unsigned int i;
	size_t j;

	if (!tw)
		return;
	/* not finished: freeing would end the archive (tar_end()) */
	tw->discard = tw->dropped = true;
	if (tw->a)
		archive_write_free(tw->a);
	outfile_discard(&tw->out);
	if (tw->window_ready)
		ord_window_fini(&tw->window);
	nidmap_for_each(&tw->first, j) {
		struct tar_first *p = nidmap_val(&tw->first, j);

		free(p->name);
		free(p->target);
		free(p->holes);
		if (p->keep >= 0)
			close(p->keep);
	}
	nidmap_fini(&tw->first);
	for (i = 0; i < tw->nmsgs; i++) {
		free(tw->msgs[i].text);
		tar_named_fini(&tw->msgs[i].entries);
	}
	tar_losses_fini(&tw->losses);
	tar_named_fini(&tw->binary_names);
	tar_named_fini(&tw->left_out);
	free(tw->errtext);
	if (tw->hole_zeros && tw->hole_zeros != tw->zeros)
		munmap((void *)tw->hole_zeros, tw->hole_zeros_len);
	free(tw->io);
	free(tw->zeros);
	free(tw);
}
