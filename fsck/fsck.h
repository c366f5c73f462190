/* SPDX-License-Identifier: MIT */
/* The command's configuration, filled from the command line. */
#ifndef FSCK_FSCK_H
#define FSCK_FSCK_H

#include <stdbool.h>
#include <stdint.h>

struct fsck_cfg {
	const char *image;
	const char **devices;		/* --device, in order */
	unsigned int ndevices;
	uint64_t offset;		/* --offset */
	const char *partition;		/* --partition */
	char slot;			/* --slot: 'a', 'b' or 0 */
	bool list_partitions;		/* --list-partitions */
	bool no_sbcrc;
	bool has_nid;			/* --nid */
	uint64_t nid;
	const char *path;		/* --path */
	bool decode;			/* --extract without a directory */
	const char *extract_dir;	/* --extract=DIR */
	bool force;			/* --force */
	bool overwrite;			/* --overwrite */
	bool keep_existing;		/* --keep-existing */
	bool sparse;  /* --sparse */
	bool ignore_errors; /* --ignore-errors: salvage damaged files */
	const char *tar;		/* --tar=FILE, "-": standard output */
	const char *format;		/* --format, for --tar */
	const char *tar_options;	/* --options, for --tar */
	const char *compress;		/* --compress, for --tar */
	const char *write_image;	/* --write-image=FILE */
	const char *write_partitions;	/* --write-partitions=DIR */
	/*
	 * Set for each partition --write-partitions writes: DIR, open, and
	 * the file's name in it (write_image is then DIR/NAME, as shown).
	 * -1 otherwise.
	 */
	int write_dirfd;
	const char *write_name;
	const char **cats;		/* --cat, as given */
	const char **cat_rels;		/* normalized */
	unsigned int ncats;
	const char *compare;		/* --compare=DIR */
	unsigned int strip; /* --strip-components */
	const char *verity; /* --verity=HASHFILE */
	const char *root_hash; /* --root-hash=HEX */
	uint64_t hash_offset; /* --hash-offset */
	bool have_hash_offset;
	bool no_verity; /* --no-verity: not the tree IMAGE carries */
	bool no_superblock; /* --no-superblock: the tree's parameters: */
	const char *verity_hash; /* --hash, "sha256" */
	uint32_t data_block_size, hash_block_size; /* 4096 */
	uint64_t data_blocks; /* --data-blocks; 0: the whole data device */
	const char *salt; /* --salt=HEX; NULL: none */
	uint32_t verity_format; /* --verity-format, 1 */
	bool have_tree_params; /* any of --hash to --verity-format */
	int64_t modify_window;		/* --modify-window, -1 if not given */
	int preserve_owner;		/* -1: as root only */
	int preserve_perms;		/* -1: as root only */
	bool xattrs;			/* --xattrs */
	bool digests;			/* --xattr-inode-digest */
	bool no_digests;		/* --no-xattr-inode-digest */
	bool require_verity;		/* --require-verity */
	bool manifest;
	bool list;			/* --list */
	bool json;			/* --json */
	bool no_progress;		/* --no-progress */
	const char *fs_config;		/* --fs-config=FILE */
	const char *file_contexts;	/* --file-contexts=FILE */
	const char *mount_point;	/* --mount-point=PREFIX */
	bool ratio;			/* -p */
	unsigned int jobs;		/* -j, 0 for the default */
	int level;			/* -d */
};

#endif
