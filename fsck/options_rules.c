// SPDX-License-Identifier: MIT
/*
 * Which options go together, and what no output may be: every rule a
 * parsed command line is held to before anything is opened.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/gpt.h"
#include "erofs/hash.h"
#include "erofs/verity.h"
#include "fsck.h"
#include "options.h"
#include "options_internal.h"
#include "output/tar/tar.h"
#include "util/hex.h"
#include "util/inputs.h"

/* --verity to --verity-format */
static void check_verity_args(const struct fsck_cfg *cfg)
{
	const char *h = cfg->root_hash;
	bool named = cfg->verity || cfg->have_hash_offset;
	uint8_t bytes[EROFS_VERITY_SALT_MAX];
	size_t n = h ? hex_decode(h, (size_t)-1, bytes, EROFS_DIGEST_MAX) : 0;

	if (named && !h)
		usage_error("%s",
			    "--verity and --hash-offset need --root-hash");
	if (h && n != EROFS_SHA1_LEN && n != EROFS_SHA256_LEN &&
	    n != EROFS_SHA512_LEN)
		usage_error(
			"--root-hash=%s: %u, %u or %u hexadecimal digits (sha1, sha256, sha512)",
			h, 2 * EROFS_SHA1_LEN, 2 * EROFS_SHA256_LEN,
			2 * EROFS_SHA512_LEN);
	if (cfg->no_verity && (named || h))
		usage_error(
			"%s",
			"--no-verity goes with none of --verity, --hash-offset and --root-hash");
	if (cfg->no_verity && cfg->require_verity)
		usage_error(
			"%s",
			"--no-verity and --require-verity cannot be used together");
	if (cfg->no_superblock && !named)
		usage_error(
			"%s",
			"--no-superblock needs --verity=HASHFILE or --hash-offset=N");
	if (cfg->have_tree_params && !cfg->no_superblock)
		usage_error(
			"%s",
			"--hash, --data-block-size, --hash-block-size, --data-blocks, --salt and --verity-format need --no-superblock (a superblock has them)");
	if (erofs_digest_by_name(cfg->verity_hash) == EROFS_DIGEST_NONE)
		usage_error("--hash=%s: sha1, sha256 or sha512",
			    cfg->verity_hash);
	/* --salt=- was taken as no salt */
	if (cfg->salt &&
	    !hex_decode(cfg->salt, (size_t)-1, bytes, sizeof(bytes)))
		usage_error(
			"--salt=%s: an even number of hexadecimal digits, at most %u, or -",
			cfg->salt, 2 * EROFS_VERITY_SALT_MAX);
}

/* --partition, --slot and --list-partitions */
static void check_partition_args(const struct fsck_cfg *cfg)
{
	const char *p = cfg->partition;

	if (p && (!*p || strlen(p) > EROFS_GPT_LABEL_MAX))
		usage_error("--partition=%s: a name of 1 to %u bytes", p,
			    EROFS_GPT_LABEL_MAX);
	if (cfg->slot && !p && !cfg->list_partitions)
		usage_error("%s",
			    "--slot needs --partition or --list-partitions");
	if (cfg->list_partitions &&
	    (p || cfg->extract_dir || cfg->decode || cfg->tar ||
	     cfg->manifest || cfg->list || cfg->compare || cfg->offset ||
	     cfg->has_nid || cfg->path || cfg->ndevices))
		usage_error(
			"%s",
			"--list-partitions lists the partitions and does nothing else: it takes --slot and --json alone");
}

/* Is d the root directory, however it is spelt ("/", "//", "/srv/..")? */
/* Does path name a terminal (/dev/stdout on one, /dev/tty...)? */
static bool names_terminal(const char *path)
{
	struct stat st;
	bool tty;
	int fd;

	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return false;
	fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	tty = isatty(fd);
	close(fd);
	return tty;
}

static bool is_root_dir(const char *d)
{
	struct stat st, root;

	if (d[strspn(d, "/")] == '\0')
		return true;
	return !stat(d, &st) && !stat("/", &root) && st.st_dev == root.st_dev &&
	       st.st_ino == root.st_ino;
}

/* Combinations that make no sense. */
static void check_args(const struct fsck_cfg *cfg)
{
	const char *d = cfg->extract_dir, *why;

	if (cfg->has_nid && cfg->path)
		usage_error("%s", "--nid and --path cannot be used together");
	if (cfg->json && (cfg->manifest || cfg->list))
		usage_error(
			"%s",
			"--json cannot be combined with --manifest or --list (all use standard output)");
	if (cfg->manifest && cfg->list)
		usage_error("%s",
			    "--manifest and --list cannot be used together");
	if (d && !*d)
		usage_error("%s", "--extract= needs a directory");
	if (cfg->mount_point && (*cfg->mount_point != '/' ||
				 strpbrk(cfg->mount_point, " \t\n\v\f\r")))
		usage_error(
			"--mount-point=%s: an absolute path without white space",
			cfg->mount_point);
	for (unsigned int i = 0; i < cfg->ndevices; i++)
		if (!strcmp(cfg->devices[i], "-"))
			usage_error(
				"%s",
				"--device=-: only IMAGE can be standard input");
	if (cfg->compare && !*cfg->compare)
		usage_error("%s", "--compare= needs a directory");
	if (cfg->ncats &&
	    (cfg->manifest || cfg->list || cfg->json || cfg->ratio ||
	     cfg->compare || (cfg->tar && !strcmp(cfg->tar, "-"))))
		usage_error(
			"%s",
			"--cat cannot be combined with --manifest, --list, --json, -p, --compare or --tar=- (all use standard output)");
	if (cfg->compare && (cfg->manifest || cfg->list || cfg->json ||
			     (cfg->tar && !strcmp(cfg->tar, "-"))))
		usage_error(
			"%s",
			"--compare cannot be combined with --manifest, --list, --json or --tar=- (all use standard output)");
	if (cfg->tar && !*cfg->tar)
		usage_error("%s", "--tar= needs a file ('-': standard output)");
	if (cfg->format && !cfg->tar)
		usage_error("%s", "--format needs --tar");
	if (cfg->tar_options && !cfg->tar)
		usage_error("%s", "--options needs --tar");
	if (cfg->compress && !cfg->tar)
		usage_error("%s", "--compress needs --tar");
	if (cfg->compress && strcmp(cfg->compress, "none") &&
	    !tar_compression_known(cfg->compress))
		usage_error(
			"--compress=%s: not a compression this build's libarchive writes",
			cfg->compress);
	if (cfg->modify_window >= 0 && !cfg->compare)
		usage_error("%s", "--modify-window needs --compare");
	check_verity_args(cfg);
	if (cfg->ignore_errors && !cfg->extract_dir && !cfg->tar && !cfg->ncats)
		usage_error(
			"%s",
			"--ignore-errors salvages files for --extract=DIR, --tar or --cat");
	if (cfg->ignore_errors && cfg->compare)
		usage_error(
			"%s",
			"--ignore-errors cannot be combined with --compare");
	if (cfg->strip && (cfg->compare || cfg->ncats || cfg->fs_config ||
			   cfg->file_contexts))
		usage_error(
			"%s",
			"--strip-components cannot be combined with --compare, --cat, --fs-config or --file-contexts (their paths are the image's)");
#ifndef HAVE_LIBARCHIVE
	if (cfg->tar) {
		fputs(PROG
		      ": --tar: this fsck.erofs was built without libarchive (Debian package libarchive-dev)\n",
		      stderr);
		exit(FSCK_EXIT_OPERATIONAL);
	}
#endif
	/* as GNU tar: binary data on a terminal is never what was meant */
	if (cfg->tar && !strcmp(cfg->tar, "-") && isatty(STDOUT_FILENO))
		usage_error(
			"%s",
			"--tar=-: refusing to write an archive to a terminal");
	if (cfg->tar && !strcmp(cfg->tar, "-") &&
	    (cfg->manifest || cfg->list || cfg->json || cfg->ratio))
		usage_error(
			"%s",
			"--tar=- cannot be combined with --manifest, --list, --json or -p (all use standard output)");
	if (d && is_root_dir(d) && !cfg->force)
		usage_error("--extract=%s: extracting to / needs --force", d);
	if (cfg->tar && cfg->format && !tar_format_known(cfg->format))
		usage_error("--format=%s: not a format libarchive writes",
			    cfg->format);
	if (cfg->tar && cfg->tar_options &&
	    (why = tar_options_refused(tar_format_of(cfg->tar, cfg->format),
				       cfg->tar_options)))
		usage_error("--options=%s: %s", cfg->tar_options, why);
	if (cfg->digests && cfg->no_digests)
		usage_error(
			"%s",
			"--xattr-inode-digest and --no-xattr-inode-digest cannot be used together");
	/* what says how to extract, with nothing to extract: a mistake */
	if (!d && (cfg->force || cfg->keep_existing ||
		   cfg->preserve_owner >= 0 || cfg->preserve_perms >= 0 ||
		   (cfg->overwrite && !cfg->write_partitions)))
		usage_error(
			"%s",
			"--force, --overwrite, --keep-existing and --preserve go with --extract=DIR (--overwrite with --write-partitions too)");
	if (cfg->keep_existing && cfg->overwrite)
		usage_error(
			"%s",
			"--keep-existing and --overwrite cannot be used together");
	if (cfg->write_image &&
	    (!*cfg->write_image || !strcmp(cfg->write_image, "-")))
		usage_error("%s", "--write-image needs a file");
	/* as --tar=-: a raw image on a terminal is never what was meant */
	if (cfg->write_image && names_terminal(cfg->write_image))
		usage_error(
			"--write-image=%s: refusing to write an image to a terminal",
			cfg->write_image);
	if (cfg->write_partitions && !*cfg->write_partitions)
		usage_error("%s", "--write-partitions needs a directory");
	if (cfg->write_partitions &&
	    (cfg->write_image || cfg->partition || cfg->extract_dir ||
	     cfg->tar || cfg->manifest || cfg->list || cfg->compare ||
	     cfg->ncats || cfg->has_nid || cfg->path))
		usage_error(
			"%s",
			"--write-partitions writes and checks every partition: it takes no --write-image, --partition or other output");
	if (cfg->sparse && !d && !cfg->tar && !cfg->write_image &&
	    !cfg->write_partitions)
		usage_error(
			"%s",
			"--sparse needs --extract=DIR, --tar or --write-image");
	check_partition_args(cfg);
}

/* An output that is one of the inputs would destroy the image: refuse it. */
static void refuse_input(const char *opt, const char *path, const char *input)
{
	if (!input)
		return;
	fprintf(stderr,
		"%s: %s%s%s: the same file as %s, which this run reads: not overwritten\n",
		PROG, opt, path ? "=" : "", path ? path : "",
		strcmp(input, "-") ? input : "standard input");
	exit(FSCK_EXIT_USAGE);
}

static void refuse_output(const char *opt, const char *path)
{
	if (path && strcmp(path, "-"))
		refuse_input(opt, path, inputs_named_by(path));
}

/* No output may be IMAGE, a --device or HASHFILE (inputs.h). */
static void check_outputs(const struct fsck_cfg *cfg)
{
	struct stat st;
	unsigned int i;
	int ret = inputs_add(cfg->image);

	for (i = 0; !ret && i < cfg->ndevices; i++)
		ret = inputs_add(cfg->devices[i]);
	if (!ret && cfg->verity)
		ret = inputs_add(cfg->verity);
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", PROG, cfg->image,
			"out of memory while reading the options");
		exit(FSCK_EXIT_OPERATIONAL);
	}
	refuse_output("--tar", cfg->tar);
	refuse_output("--fs-config", cfg->fs_config);
	refuse_output("--file-contexts", cfg->file_contexts);
	refuse_output("--write-image", cfg->write_image);
	if (!fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode))
		refuse_input("standard output", NULL, inputs_name(&st));
}

void options_check(const struct fsck_cfg *cfg)
{
	check_args(cfg);
	check_outputs(cfg);
}
