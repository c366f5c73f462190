// SPDX-License-Identifier: MIT
/* fsck.erofs: the command line, into a struct fsck_cfg. */
#ifdef HAVE_LIBARCHIVE
#include <archive.h>
#endif
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/decompress.h"
#include "erofs/format.h"
#include "erofs/gpt.h"
#include "erofs/hash.h"
#include "erofs/lp.h"
#include "erofs/verity.h"
#include "fsck.h"
#include "options.h"
#include "output/tar/tar.h"
#include "util/inputs.h"
#include "util/report.h"
#include "walk/select.h"
#include "walk/walk.h"

enum {
	OPT_DEVICE = 256,
	OPT_OFFSET,
	OPT_NID,
	OPT_PATH,
	OPT_NO_SBCRC,
	OPT_EXTRACT,
	OPT_DIGEST,
	OPT_MANIFEST,
	OPT_FORCE,
	OPT_OVERWRITE,
	OPT_KEEP_EXISTING,
	OPT_PRESERVE,
	OPT_NO_PRESERVE,
	OPT_PRESERVE_OWNER,
	OPT_NO_PRESERVE_OWNER,
	OPT_PRESERVE_PERMS,
	OPT_NO_PRESERVE_PERMS,
	OPT_XATTRS,
	OPT_NO_XATTRS,
	OPT_LIST,
	OPT_JSON,
	OPT_NO_PROGRESS,
	OPT_INCLUDE,
	OPT_EXCLUDE,
	OPT_FILES_FROM,
	OPT_SPARSE,
	OPT_IGNORE_ERRORS,
	OPT_FS_CONFIG,
	OPT_FILE_CONTEXTS,
	OPT_MOUNT_POINT,
	OPT_TAR,
	OPT_COMPARE,
	OPT_FORMAT,
	OPT_PARTITION,
	OPT_SLOT,
	OPT_LIST_PARTITIONS,
	OPT_MODIFY_WINDOW,
	OPT_STRIP_COMPONENTS,
	OPT_VERITY,
	OPT_ROOT_HASH,
	OPT_HASH_OFFSET,
	OPT_NO_VERITY,
	OPT_NO_SUPERBLOCK,
	OPT_VERITY_HASH,
	OPT_DATA_BLOCK_SIZE,
	OPT_HASH_BLOCK_SIZE,
	OPT_DATA_BLOCKS,
	OPT_SALT,
	OPT_VERITY_FORMAT,
	OPT_TAR_OPTIONS,
	OPT_COMPRESS,
	OPT_CAT,
	OPT_NULL,
	OPT_WRITE_IMAGE,
	OPT_WRITE_PARTITIONS,
};

static const struct option long_options[] = {
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "partition", required_argument, NULL, OPT_PARTITION },
	{ "slot", required_argument, NULL, OPT_SLOT },
	{ "list-partitions", no_argument, NULL, OPT_LIST_PARTITIONS },
	{ "nid", required_argument, NULL, OPT_NID },
	{ "path", required_argument, NULL, OPT_PATH },
	{ "no-sbcrc", no_argument, NULL, OPT_NO_SBCRC },
	{ "extract", optional_argument, NULL, OPT_EXTRACT },
	{ "xattr-inode-digest", no_argument, NULL, OPT_DIGEST },
	{ "manifest", no_argument, NULL, OPT_MANIFEST },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
	{ "keep-existing", no_argument, NULL, OPT_KEEP_EXISTING },
	{ "preserve", no_argument, NULL, OPT_PRESERVE },
	{ "no-preserve", no_argument, NULL, OPT_NO_PRESERVE },
	{ "preserve-owner", no_argument, NULL, OPT_PRESERVE_OWNER },
	{ "no-preserve-owner", no_argument, NULL, OPT_NO_PRESERVE_OWNER },
	{ "preserve-perms", no_argument, NULL, OPT_PRESERVE_PERMS },
	{ "no-preserve-perms", no_argument, NULL, OPT_NO_PRESERVE_PERMS },
	{ "xattrs", no_argument, NULL, OPT_XATTRS },
	{ "no-xattrs", no_argument, NULL, OPT_NO_XATTRS },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "files-from", required_argument, NULL, OPT_FILES_FROM },
	{ "null", no_argument, NULL, OPT_NULL },
	{ "write-image", required_argument, NULL, OPT_WRITE_IMAGE },
	{ "write-partitions", required_argument, NULL, OPT_WRITE_PARTITIONS },
	{ "sparse", no_argument, NULL, OPT_SPARSE },
	{ "ignore-errors", no_argument, NULL, OPT_IGNORE_ERRORS },
	{ "fs-config", required_argument, NULL, OPT_FS_CONFIG },
	{ "file-contexts", required_argument, NULL, OPT_FILE_CONTEXTS },
	{ "mount-point", required_argument, NULL, OPT_MOUNT_POINT },
	{ "tar", required_argument, NULL, OPT_TAR },
	{ "compare", required_argument, NULL, OPT_COMPARE },
	{ "modify-window", required_argument, NULL, OPT_MODIFY_WINDOW },
	{ "strip-components", required_argument, NULL, OPT_STRIP_COMPONENTS },
	{ "verity", required_argument, NULL, OPT_VERITY },
	{ "root-hash", required_argument, NULL, OPT_ROOT_HASH },
	{ "hash-offset", required_argument, NULL, OPT_HASH_OFFSET },
	{ "no-verity", no_argument, NULL, OPT_NO_VERITY },
	{ "no-superblock", no_argument, NULL, OPT_NO_SUPERBLOCK },
	{ "hash", required_argument, NULL, OPT_VERITY_HASH },
	{ "data-block-size", required_argument, NULL, OPT_DATA_BLOCK_SIZE },
	{ "hash-block-size", required_argument, NULL, OPT_HASH_BLOCK_SIZE },
	{ "data-blocks", required_argument, NULL, OPT_DATA_BLOCKS },
	{ "salt", required_argument, NULL, OPT_SALT },
	{ "verity-format", required_argument, NULL, OPT_VERITY_FORMAT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "options", required_argument, NULL, OPT_TAR_OPTIONS },
	{ "compress", required_argument, NULL, OPT_COMPRESS },
	{ "cat", required_argument, NULL, OPT_CAT },
	{ "jobs", required_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static const char usage_text[] =
	"Usage: " PROG " [OPTIONS] IMAGE\n"
	"Check the integrity of the EROFS filesystem in IMAGE ('-': standard\n"
	"input), and optionally extract it to a directory.\n"
	"\n"
	"Options:\n"
	"  -V, --version          print the version number and exit\n"
	"  -d N                   message level: 0 errors only, 2 warnings\n"
	"                         (default), 3 information, 7 debugging\n"
	"                         (0 to 9: 1 is 0, 4 to 6 are 3, 8 and 9 are 7)\n"
	"  -p                     print the total compression ratio of files\n"
	"  -a, -A, -y             accepted for fsck(8); no effect\n"
	"  -j, --jobs=N           N threads (default: the CPUs to run on; 1: none)\n"
	"  --device=PATH          an extra device of a multi-device image;\n"
	"                         repeat in device table order\n"
	"  --offset=N             the image starts N bytes into IMAGE (into\n"
	"                         the partition, or the unsparsed image)\n"
	"  --nid=N                check from inode N instead of the root\n"
	"  --path=PATH            check from PATH inside the image instead of\n"
	"                         the root\n"
	"  --no-sbcrc             do not verify the superblock checksum\n"
	"  --extract              also decompress all file data and verify it\n"
	"  --xattr-inode-digest   verify per-file SHA-256 digests recorded by\n"
	"                         mkfs.erofs --xattr-inode-digest\n"
	"  --manifest             print one line per entry (path, type, mode,\n"
	"                         owner, size, mtime, SHA-256, rdev, links,\n"
	"                         xattrs)\n"
	"  --list                 print one line per entry like tar -tv (type\n"
	"                         and mode, owner, size, mtime, path, target)\n"
	"  --json                 a JSON report on standard output at the end\n"
	"                         (counts, ratio, time, every problem)\n"
	"  --no-progress          no progress line on a terminal\n"
	"  --include=PATTERN      only entries matching PATTERN (fnmatch; a\n"
	"                         name without '/' matches any component;\n"
	"                         '*' never matches '/', '**' any number of\n"
	"                         directories), with the whole subtree of a\n"
	"                         directory; repeatable\n"
	"  --exclude=PATTERN      leave out entries matching PATTERN and what\n"
	"                         is below them; wins over --include\n"
	"  --files-from=FILE      only the paths in FILE, one a line ('-':\n"
	"                         standard input); a missing one is an error\n"
	"  --null                 --files-from paths end with a NUL byte\n"
	"  --strip-components=N   leave out the first N components of every\n"
	"                         path below the start, and the entries of N\n"
	"                         or fewer (--extract=DIR, --tar, --list,\n"
	"                         --manifest)\n"
	"  --fs-config=FILE       write Android's fs_config of the entries\n"
	"                         (path, owner, mode, capabilities) to FILE\n"
	"  --file-contexts=FILE   write their SELinux labels to FILE, in\n"
	"                         file_contexts form\n"
	"  --mount-point=PREFIX   the paths of both start with PREFIX\n"
	"                         (default /)\n"
	"  -h, --help             display this help and exit\n"
	"\n"
	"Containers (IMAGE may be an Android sparse image, read in place):\n"
	"  --partition=NAME       read logical partition NAME of the super\n"
	"                         image IMAGE (system, or system_a; raw or\n"
	"                         sparse), or the partition of the GPT disk\n"
	"                         IMAGE of that index, label or type (root,\n"
	"                         usr-arm64, ...; without it, the one EROFS\n"
	"                         root or usr partition)\n"
	"  --slot=a|b             the slot of --partition when a name has\n"
	"                         both\n"
	"  --list-partitions      list the partitions of the super image or\n"
	"                         GPT disk IMAGE (name or label, size, where,\n"
	"                         what each holds) and exit\n"
	"  --write-image=FILE     write IMAGE's bytes out of its container (a\n"
	"                         sparse image unsparsed, the partition of\n"
	"                         --partition) to FILE, whatever it holds;\n"
	"                         then check it if it is EROFS\n"
	"  --write-partitions=DIR every partition of the super image or GPT\n"
	"                         disk to DIR/NAME.img, as lpunpack; EROFS\n"
	"                         ones checked\n"
	"\n"
	"Extraction:\n"
	"  --extract=DIR          check, and extract the tree (or the subtree\n"
	"                         of --path or --nid) to DIR, made if missing\n"
	"  --force                extract to /, or into a directory that has\n"
	"                         entries (entries in the way are left alone)\n"
	"  --overwrite            extract into DIR as it is, replacing entries\n"
	"                         that exist (a symlink in the way is removed,\n"
	"                         never followed)\n"
	"  --keep-existing        resume an interrupted extraction: keep\n"
	"                         entries that exist and are complete,\n"
	"                         replace the others\n"
	"  --preserve             same owners and permissions as in the image\n"
	"                         (default for root)\n"
	"  --preserve-owner       same owners as in the image\n"
	"  --preserve-perms       same permissions as in the image\n"
	"  --no-preserve          owned by you, permissions with your umask\n"
	"                         (default for other users)\n"
	"  --no-preserve-owner    owned by you\n"
	"  --no-preserve-perms    apply your umask to permissions\n"
	"  --[no-]xattrs          restore extended attributes and ACLs\n"
	"                         (default off)\n"
	"  --sparse               aligned 4 KiB blocks of zeros become holes\n"
	"                         (also in a --tar archive)\n"
	"  --verity=HASHFILE      check every data block of IMAGE against the\n"
	"                         dm-verity hash tree in HASHFILE (as\n"
	"                         veritysetup format writes it); with\n"
	"  --root-hash=HEX        the tree's root hash (sha1, sha256, sha512);\n"
	"                         alone: the root hash of the tree IMAGE\n"
	"                         carries (AVB footer, GPT verity partition),\n"
	"                         checked by default\n"
	"  --hash-offset=N        the tree lies in IMAGE from byte N\n"
	"  --no-verity            do not check the tree IMAGE carries\n"
	"  --no-superblock        the tree has no superblock; its parameters,\n"
	"                         as veritysetup takes them: --hash=ALG\n"
	"                         (sha256), --data-block-size=N and\n"
	"                         --hash-block-size=N (4096), --data-blocks=N\n"
	"                         (all of IMAGE), --salt=HEX (none),\n"
	"                         --verity-format=0|1 (1)\n"
	"  --ignore-errors        salvage damaged files: write what can be\n"
	"                         read, the unreadable ranges as zeros (holes\n"
	"                         with --sparse), each reported (exit 4)\n"
	"\n"
	"Archive:\n"
	"  --tar=FILE             check, and write the tree (or the subtree of\n"
	"                         --path or --nid) to FILE as a pax archive\n"
	"                         ('-': standard output); files whose data\n"
	"                         fails the check are left out\n"
	"  --format=NAME          another libarchive format for --tar (ustar,\n"
	"                         gnutar, cpio, newc, zip, ...); what it cannot\n"
	"                         hold is reported\n"
	"  --cat=PATH             check, and write the regular file PATH to\n"
	"                         standard output (repeat: in walk order)\n"
	"  --compress=NAME        compress the archive: gzip, xz, zstd, bzip2,\n"
	"                         lz4, lzma or none (default: FILE's suffix,\n"
	"                         .tar.gz, .tgz, .tar.zst ..., as tar -a)\n"
	"  --options=OPTS         libarchive's format and filter options, as\n"
	"                         bsdtar's --options (xattrheader=ALL, ...)\n"
	"\n"
	"Comparison:\n"
	"  --compare=DIR          check, and compare the tree (or the subtree\n"
	"                         of --path or --nid) with DIR: type, mode,\n"
	"                         owner, size, mtime, rdev, symlink target,\n"
	"                         hard links, content (xattrs with --xattrs);\n"
	"                         one line per difference on standard output\n"
	"  --modify-window=N      mtimes at most N seconds apart are equal\n"
	"                         (default: as precise as the inode holds)\n"
	"\n"
	"Exit status (as fsck(8), added together):\n"
	"  0   no errors\n"
	"  1   --compare: the image and DIR differ\n"
	"  4   filesystem errors left uncorrected\n"
	"  8   operational error (cannot read the image or a device, out of\n"
	"      memory, a feature or codec this build does not support, an\n"
	"      entry that could not be extracted)\n"
	"  16  usage or syntax error\n"
	"  32  interrupted by SIGINT, SIGTERM or SIGHUP\n";

static void __attribute__((format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" PROG " --help' for more information.\n", stderr);
	exit(FSCK_EXIT_USAGE);
}

/* The codecs compiled in, and what writes archives: -V and --help. */
static void print_codecs(void)
{
	const struct erofs_codec *c;
	unsigned int alg;

	fputs("\nCodecs:", stdout);
	for (alg = 0; alg < Z_EROFS_COMPRESSION_MAX; alg++) {
		c = erofs_codec_get(alg);
		if (c)
			printf(" %s%s", c->name,
			       c->available ? "" : " (not built)");
	}
#ifdef HAVE_LIBARCHIVE
	puts("\nArchives (--tar): libarchive " ARCHIVE_VERSION_ONLY_STRING);
#else
	puts("\nArchives (--tar): none, built without libarchive");
#endif
}

static uint64_t parse_u64(const char *s, const char *what)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		usage_error("invalid %s '%s': a number from 0", what, s);
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		usage_error("invalid %s '%s'%s", what, s,
			    errno == ERANGE ? ": too large" : "");
	return v;
}

static uint64_t parse_u64_max(const char *s, const char *what, uint64_t max)
{
	uint64_t v = parse_u64(s, what);

	if (v > max)
		usage_error("invalid %s '%s': at most %llu", what, s,
			    (unsigned long long)max);
	return v;
}

static void *options_nomem(const char *opt, const char *arg)
{
	fprintf(stderr, "%s: %s=%s: %s\n", PROG, opt, arg,
		"out of memory while reading the options");
	exit(FSCK_EXIT_OPERATIONAL);
}

/* --cat=PATH: a path of the image, without "." or ".." in it. */
static void add_cat(struct fsck_cfg *cfg, const char *path)
{
	const char **cats, **rels;
	char *rel = strdup(path + strspn(path, "/")), *c, *save = NULL;
	size_t len;

	if (!rel)
		options_nomem("--cat", path);
	len = strlen(rel);
	while (len && rel[len - 1] == '/')
		rel[--len] = '\0';
	if (!len)
		usage_error("--cat=%s: a path of a regular file in the image",
			    path);
	c = strdup(rel);
	if (!c)
		options_nomem("--cat", path);
	for (char *tok = strtok_r(c, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save))
		if (!strcmp(tok, ".") || !strcmp(tok, ".."))
			usage_error("--cat=%s: a path without '.' or '..'",
				    path);
	free(c);
	cats = realloc(cfg->cats, (cfg->ncats + 1) * sizeof(*cats));
	if (cats)
		cfg->cats = cats;
	rels = realloc(cfg->cat_rels, (cfg->ncats + 1) * sizeof(*rels));
	if (rels)
		cfg->cat_rels = rels;
	if (!cats || !rels)
		options_nomem("--cat", path);
	cfg->cats[cfg->ncats] = path;
	cfg->cat_rels[cfg->ncats++] = rel;
}

static void add_device(struct fsck_cfg *cfg, const char *path)
{
	const char **devs;

	devs = realloc(cfg->devices, (cfg->ndevices + 1) * sizeof(*devs));
	if (!devs) {
		fprintf(stderr, "%s: --device=%s: %s\n", PROG, path,
			"out of memory while reading the options");
		exit(FSCK_EXIT_OPERATIONAL);
	}
	devs[cfg->ndevices++] = path;
	cfg->devices = devs;
}

static void parse_level(struct fsck_cfg *cfg, const char *arg)
{
	uint64_t v = parse_u64(arg, "message level for -d");

	if (v > FSCK_LVL_MAX)
		usage_error("message level for -d must be 0 to 9, not %s", arg);
	cfg->level = (int)v;
}

static void parse_jobs(struct fsck_cfg *cfg, const char *arg)
{
	uint64_t v = parse_u64(arg, "number of jobs");

	if (!v || v > JOBS_MAX)
		usage_error("-j takes 1 to %u, not %s", JOBS_MAX, arg);
	cfg->jobs = (unsigned int)v;
}

/* The extraction options; false if c is not one of them. */
static bool parse_extract_opt(struct fsck_cfg *cfg, int c)
{
	switch (c) {
	case OPT_FORCE:
		cfg->force = true;
		break;
	case OPT_OVERWRITE:
		cfg->overwrite = true;
		break;
	case OPT_KEEP_EXISTING:
		cfg->keep_existing = true;
		break;
	case OPT_PRESERVE:
	case OPT_NO_PRESERVE:
		cfg->preserve_owner = c == OPT_PRESERVE;
		cfg->preserve_perms = c == OPT_PRESERVE;
		break;
	case OPT_PRESERVE_OWNER:
	case OPT_NO_PRESERVE_OWNER:
		cfg->preserve_owner = c == OPT_PRESERVE_OWNER;
		break;
	case OPT_PRESERVE_PERMS:
	case OPT_NO_PRESERVE_PERMS:
		cfg->preserve_perms = c == OPT_PRESERVE_PERMS;
		break;
	case OPT_XATTRS:
	case OPT_NO_XATTRS:
		cfg->xattrs = c == OPT_XATTRS;
		break;
	case OPT_SPARSE:
		cfg->sparse = true;
		break;
	case OPT_IGNORE_ERRORS:
		cfg->ignore_errors = true;
		break;
	default:
		return false;
	}
	return true;
}

/* The rules of --include, --exclude and --files-from: options_parse's. */
static struct select_rules *select_rules;

static void parse_pattern(const char *arg, bool exclude)
{
	const char *opt = exclude ? "exclude" : "include";
	int ret = select_add_pattern(select_rules, arg, exclude);

	if (ret == -EINVAL)
		usage_error("--%s=%s: invalid pattern", opt, arg);
	if (ret < 0) {
		fprintf(stderr, "%s: --%s=%s: %s\n", PROG, opt, arg,
			"out of memory while reading the options");
		exit(FSCK_EXIT_OPERATIONAL);
	}
}

static const char **add_files_from(const char **list, unsigned int *n,
				   const char *file)
{
	const char **more = realloc(list, (*n + 1) * sizeof(*list));

	if (!more)
		options_nomem("--files-from", file);
	more[(*n)++] = file;
	return more;
}

/* --null: --files-from separates paths with NUL bytes, as find -print0 */
static bool names_nul;

static void parse_files_from(const char *arg)
{
	unsigned long line;
	int ret = select_read_names(select_rules, arg, names_nul, &line);

	if (ret == -EINVAL)
		fprintf(stderr, "%s: --files-from=%s: line %lu: %s\n", PROG,
			arg, line, "a NUL byte in a path");
	else if (ret < 0)
		fprintf(stderr, "%s: --files-from=%s: %s\n", PROG, arg,
			strerror(-ret));
	if (ret < 0)
		exit(FSCK_EXIT_OPERATIONAL);
}

static bool is_hex(const char *s)
{
	return strspn(s, "0123456789abcdefABCDEF") == strlen(s);
}

/* --verity to --verity-format */
static void check_verity_args(const struct fsck_cfg *cfg)
{
	const char *h = cfg->root_hash;
	bool named = cfg->verity || cfg->have_hash_offset;
	size_t n = h ? strlen(h) : 0;

	if (named && !h)
		usage_error("%s",
			    "--verity and --hash-offset need --root-hash");
	if (h && ((n != 2 * EROFS_SHA1_LEN && n != 2 * EROFS_SHA256_LEN &&
		   n != 2 * EROFS_SHA512_LEN) ||
		  !is_hex(h)))
		usage_error(
			"--root-hash=%s: %u, %u or %u hexadecimal digits (sha1, sha256, sha512)",
			h, 2 * EROFS_SHA1_LEN, 2 * EROFS_SHA256_LEN,
			2 * EROFS_SHA512_LEN);
	if (cfg->no_verity && (named || h))
		usage_error(
			"%s",
			"--no-verity goes with none of --verity, --hash-offset and --root-hash");
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
	if (cfg->salt && strcmp(cfg->salt, "-") &&
	    (strlen(cfg->salt) % 2 || !is_hex(cfg->salt) ||
	     strlen(cfg->salt) > 2 * EROFS_VERITY_SALT_MAX))
		usage_error(
			"--salt=%s: an even number of hexadecimal digits, at most %u, or -",
			cfg->salt, 2 * EROFS_VERITY_SALT_MAX);
}

/* --data-block-size and --hash-block-size: veritysetup's range. */
static uint32_t parse_verity_block(const char *arg, const char *what)
{
	uint64_t v = parse_u64_max(arg, what, 65536);

	if (v < 512 || (v & (v - 1)))
		usage_error("invalid %s '%s': a power of two from 512 to 65536",
			    what, arg);
	return (uint32_t)v;
}

/* One of --no-superblock's parameters. */
static void parse_tree_param(struct fsck_cfg *cfg, int opt, const char *arg)
{
	cfg->have_tree_params = true;
	switch (opt) {
	case OPT_VERITY_HASH:
		cfg->verity_hash = arg;
		break;
	case OPT_DATA_BLOCK_SIZE:
		cfg->data_block_size =
			parse_verity_block(arg, "--data-block-size");
		break;
	case OPT_HASH_BLOCK_SIZE:
		cfg->hash_block_size =
			parse_verity_block(arg, "--hash-block-size");
		break;
	case OPT_DATA_BLOCKS:
		cfg->data_blocks = parse_u64(arg, "--data-blocks");
		if (!cfg->data_blocks)
			usage_error("%s",
				    "invalid --data-blocks '0': at least 1");
		break;
	case OPT_SALT:
		cfg->salt = strcmp(arg, "-") ? arg : NULL;
		break;
	default:
		cfg->verity_format =
			(uint32_t)parse_u64_max(arg, "--verity-format", 1);
		break;
	}
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
	    (why = tar_options_refused(cfg->format, cfg->tar_options)))
		usage_error("--options=%s: %s", cfg->tar_options, why);
	if (cfg->keep_existing && cfg->overwrite)
		usage_error(
			"%s",
			"--keep-existing and --overwrite cannot be used together");
	if (cfg->write_image &&
	    (!*cfg->write_image || !strcmp(cfg->write_image, "-")))
		usage_error("%s", "--write-image needs a file");
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

/*
 * --cat within the other rules of the selection, if any, then selected
 * (as a --files-from line is).
 */
static void select_cats(const struct fsck_cfg *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->ncats; i++)
		if (select_active(select_rules) &&
		    !select_takes(select_rules, cfg->cat_rels[i]))
			usage_error(
				"--cat=%s: outside the selection of --include, --exclude and --files-from",
				cfg->cats[i]);
	for (i = 0; i < cfg->ncats; i++)
		if (select_add_cat(select_rules, cfg->cat_rels[i]))
			options_nomem("--cat", cfg->cats[i]);
}

void options_parse(struct fsck_cfg *cfg, struct select_rules *rules, int argc,
		   char **argv)
{
	select_rules = rules;
	bool names_stdin = false; /* --files-from=-, read last */
	const char **files_from = NULL; /* read after --null is known */
	unsigned int nfiles_from = 0;
	int c;

	memset(cfg, 0, sizeof(*cfg));
	cfg->level = FSCK_LVL_DEFAULT;
	cfg->preserve_owner = -1;
	cfg->preserve_perms = -1;
	cfg->modify_window = -1;
	cfg->verity_hash = "sha256";
	cfg->data_block_size = 4096;
	cfg->hash_block_size = 4096;
	cfg->verity_format = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":Vd:paAyhj:", long_options,
				NULL)) != -1) {
		if (parse_extract_opt(cfg, c))
			continue;
		switch (c) {
		case 'V':
			printf(PROG " (%s) %s\n", PACKAGE_NAME,
			       PACKAGE_VERSION);
			print_codecs();
			exit(FSCK_EXIT_OK);
		case 'h':
			fputs(usage_text, stdout);
			print_codecs();
			exit(FSCK_EXIT_OK);
		case 'd':
			parse_level(cfg, optarg);
			break;
		case 'p':
			cfg->ratio = true;
			break;
		case 'a':
		case 'A':
		case 'y':
			break;
		case OPT_DEVICE:
			add_device(cfg, optarg);
			break;
		case OPT_OFFSET:
			cfg->offset = parse_u64(optarg, "offset");
			break;
		case OPT_NID:
			cfg->nid = parse_u64(optarg, "nid");
			cfg->has_nid = true;
			break;
		case OPT_PATH:
			cfg->path = optarg;
			break;
		case OPT_NO_SBCRC:
			cfg->no_sbcrc = true;
			break;
		case OPT_EXTRACT:
			if (optarg)
				cfg->extract_dir = optarg;
			else
				cfg->decode = true;
			break;
		case OPT_DIGEST:
			cfg->digests = true;
			break;
		case OPT_MANIFEST:
			cfg->manifest = true;
			break;
		case OPT_LIST:
			cfg->list = true;
			break;
		case OPT_JSON:
			cfg->json = true;
			break;
		case OPT_NO_PROGRESS:
			cfg->no_progress = true;
			break;
		case OPT_FS_CONFIG:
			cfg->fs_config = optarg;
			break;
		case OPT_FILE_CONTEXTS:
			cfg->file_contexts = optarg;
			break;
		case OPT_MOUNT_POINT:
			cfg->mount_point = optarg;
			break;
		case OPT_INCLUDE:
		case OPT_EXCLUDE:
			parse_pattern(optarg, c == OPT_EXCLUDE);
			break;
		case OPT_FILES_FROM:
			if (strcmp(optarg, "-"))
				files_from = add_files_from(
					files_from, &nfiles_from, optarg);
			else
				names_stdin = true;
			break;
		case OPT_NULL:
			names_nul = true;
			break;
		case OPT_WRITE_IMAGE:
			cfg->write_image = optarg;
			break;
		case OPT_WRITE_PARTITIONS:
			cfg->write_partitions = optarg;
			break;
		case OPT_TAR:
			cfg->tar = optarg;
			break;
		case OPT_COMPARE:
			cfg->compare = optarg;
			break;
		case OPT_VERITY:
			cfg->verity = optarg;
			break;
		case OPT_ROOT_HASH:
			cfg->root_hash = optarg;
			break;
		case OPT_HASH_OFFSET:
			cfg->hash_offset =
				parse_u64_max(optarg,
					      "byte offset for --hash-offset",
					      UINT64_MAX);
			cfg->have_hash_offset = true;
			break;
		case OPT_NO_VERITY:
			cfg->no_verity = true;
			break;
		case OPT_NO_SUPERBLOCK:
			cfg->no_superblock = true;
			break;
		case OPT_VERITY_HASH:
		case OPT_DATA_BLOCK_SIZE:
		case OPT_HASH_BLOCK_SIZE:
		case OPT_DATA_BLOCKS:
		case OPT_SALT:
		case OPT_VERITY_FORMAT:
			parse_tree_param(cfg, c, optarg);
			break;
		case OPT_STRIP_COMPONENTS:
			cfg->strip = (unsigned int)parse_u64_max(
				optarg,
				"number of components for --strip-components",
				WALK_MAX_DEPTH);
			break;
		case OPT_MODIFY_WINDOW:
			cfg->modify_window = (int64_t)parse_u64_max(
				optarg, "number of seconds for --modify-window",
				INT32_MAX);
			break;
		case OPT_FORMAT:
			cfg->format = optarg;
			break;
		case OPT_TAR_OPTIONS:
			cfg->tar_options = optarg;
			break;
		case OPT_COMPRESS:
			cfg->compress = optarg;
			break;
		case OPT_CAT:
			add_cat(cfg, optarg);
			break;
		case OPT_PARTITION:
			cfg->partition = optarg;
			break;
		case OPT_SLOT:
			if ((*optarg != 'a' && *optarg != 'b') || optarg[1])
				usage_error("--slot=%s: a or b", optarg);
			cfg->slot = *optarg;
			break;
		case OPT_LIST_PARTITIONS:
			cfg->list_partitions = true;
			break;
		case 'j':
			parse_jobs(cfg, optarg);
			break;
		case ':':
			usage_error("option '%s' needs an argument",
				    argv[optind - 1]);
			break;
		default:
			if (optopt) {
				char opt[3] = { '-', (char)optopt, '\0' };

				usage_error("unknown option '%s'", opt);
			}
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_error("%s", "missing IMAGE");
	if (optind + 1 < argc && cfg->decode && !cfg->extract_dir)
		usage_error(
			"unexpected argument '%s' (--extract takes a directory only as --extract=%s)",
			argv[optind + 1], argv[optind]);
	if (optind + 1 < argc)
		usage_error("unexpected argument '%s'", argv[optind + 1]);
	cfg->image = argv[optind];
	for (unsigned int i = 0; i < nfiles_from; i++)
		parse_files_from(files_from[i]);
	free(files_from);
	check_args(cfg);
	check_outputs(cfg);
	select_cats(cfg);
	if (names_stdin && !strcmp(cfg->image, "-"))
		usage_error(
			"%s",
			"--files-from=- and IMAGE - cannot both be standard input");
	if (names_stdin)
		parse_files_from("-");
}
