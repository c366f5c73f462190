// SPDX-License-Identifier: MIT
/* fsck.erofs: the command line, into a struct fsck_cfg. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsck.h"
#include "options.h"
#include "options_internal.h"
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
	OPT_NO_DIGEST,
	OPT_REQUIRE_VERITY,
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
	{ "no-xattr-inode-digest", no_argument, NULL, OPT_NO_DIGEST },
	{ "require-verity", no_argument, NULL, OPT_REQUIRE_VERITY },
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

/*
 * --cat=PATH: a path of the image (from a leading '/' or "./", as
 * --include takes it), without "." or ".." in it.
 */
static void add_cat(struct fsck_cfg *cfg, const char *path)
{
	const char **cats, **rels;
	char *rel = strdup(path + select_anchor(path)), *c, *save = NULL;
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
	const char *took_last; /* the option that took the last word */
	int c;

	memset(cfg, 0, sizeof(*cfg));
	cfg->level = FSCK_LVL_DEFAULT;
	cfg->write_dirfd = -1;
	cfg->preserve_owner = -1;
	cfg->preserve_perms = -1;
	cfg->modify_window = -1;
	cfg->verity_hash = "sha256";
	cfg->data_block_size = 4096;
	cfg->hash_block_size = 4096;
	cfg->verity_format = 1;
	opterr = 0;
	took_last = NULL;
	while ((c = getopt_long(argc, argv, ":Vd:paAynfhj:", long_options,
				NULL)) != -1) {
		/* "--tar IMAGE": the last word taken as the option's */
		if (optarg && optind == argc && optarg == argv[argc - 1] &&
		    argc >= 2 && !strncmp(argv[argc - 2], "--", 2))
			took_last = argv[argc - 2];
		if (parse_extract_opt(cfg, c))
			continue;
		switch (c) {
		case 'V':
			options_print_version();
			exit(FSCK_EXIT_OK);
		case 'h':
			options_print_help();
			exit(FSCK_EXIT_OK);
		case 'd':
			parse_level(cfg, optarg);
			break;
		case 'p':
			cfg->ratio = true;
			break;
		/* fsck(8)'s: repair (none to do: read-only), no, force */
		case 'a':
		case 'A':
		case 'y':
		case 'n':
		case 'f':
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
		case OPT_NO_DIGEST:
			cfg->no_digests = true;
			break;
		case OPT_REQUIRE_VERITY:
			cfg->require_verity = true;
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
	if (optind >= argc && took_last)
		usage_error(
			"missing IMAGE (%s took '%s' as its argument: %s=ARG IMAGE)",
			took_last, argv[argc - 1], took_last);
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
	options_check(cfg);
	select_cats(cfg);
	if (names_stdin && !strcmp(cfg->image, "-"))
		usage_error(
			"%s",
			"--files-from=- and IMAGE - cannot both be standard input");
	if (names_stdin)
		parse_files_from("-");
}
