// SPDX-License-Identifier: MIT
/* fsck.erofs: options and dispatch. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "android.h"
#include "check.h"
#include "erofs/decompress.h"
#include "erofs/dir.h"
#include "erofs/fragments.h"
#include "erofs/image.h"
#include "erofs/pool.h"
#include "extract.h"
#include "fsck.h"
#include "interrupt.h"
#include "json.h"
#include "manifest.h"
#include "progress.h"
#include "report.h"
#include "select.h"
#include "spool.h"
#include "strbuf.h"
#include "tar.h"
#include "walk.h"

#define PROG "fsck.erofs"

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
	OPT_FS_CONFIG,
	OPT_FILE_CONTEXTS,
	OPT_MOUNT_POINT,
	OPT_TAR,
	OPT_FORMAT,
};

#define JOBS_MAX 1024

/*
 * Below this much estimated work threads cost more than they save: each
 * sets up its own reading context and decoders (about 1.5 ms of page
 * faults), and the walker's own share does not shrink. Run inline.
 * EROFS_FSCK_SYNC_NS overrides it (0: never).
 */
#define SYNC_WORK_NS 10000000ULL
#define SYNC_RAW_PER_KIB 500		/* copy (bench/calibrate) */

static const struct option long_options[] = {
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "offset", required_argument, NULL, OPT_OFFSET },
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
	{ "sparse", no_argument, NULL, OPT_SPARSE },
	{ "fs-config", required_argument, NULL, OPT_FS_CONFIG },
	{ "file-contexts", required_argument, NULL, OPT_FILE_CONTEXTS },
	{ "mount-point", required_argument, NULL, OPT_MOUNT_POINT },
	{ "tar", required_argument, NULL, OPT_TAR },
	{ "format", required_argument, NULL, OPT_FORMAT },
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
	"                         (default), 3 information, 7 and above\n"
	"                         debugging (maximum 9)\n"
	"  -p                     print the total compression ratio of files\n"
	"  -a, -A, -y             accepted for fsck(8); no effect\n"
	"  -j, --jobs=N           N threads (default: online CPUs; 1: none)\n"
	"  --device=PATH          an extra device of a multi-device image;\n"
	"                         repeat in device table order\n"
	"  --offset=N             the image starts N bytes into IMAGE\n"
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
	"                         name without '/' matches any component),\n"
	"                         with the whole subtree of a directory;\n"
	"                         repeatable\n"
	"  --exclude=PATTERN      leave out entries matching PATTERN and what\n"
	"                         is below them; wins over --include\n"
	"  --files-from=FILE      only the paths in FILE, one a line ('-':\n"
	"                         standard input); a missing one is an error\n"
	"  --fs-config=FILE       write Android's fs_config of the entries\n"
	"                         (path, owner, mode, capabilities) to FILE\n"
	"  --file-contexts=FILE   write their SELinux labels to FILE, in\n"
	"                         file_contexts form\n"
	"  --mount-point=PREFIX   the paths of both start with PREFIX\n"
	"                         (default /)\n"
	"  -h, --help             display this help and exit\n"
	"\n"
	"Extraction:\n"
	"  --extract=DIR          check, and extract the tree (or the subtree\n"
	"                         of --path or --nid) to DIR, made if missing\n"
	"  --force                extract into a directory that has entries,\n"
	"                         or to /\n"
	"  --overwrite            replace entries that exist (a symlink in\n"
	"                         the way is removed, never followed)\n"
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
	"\n"
	"Archive:\n"
	"  --tar=FILE             check, and write the tree (or the subtree of\n"
	"                         --path or --nid) to FILE as a pax archive\n"
	"                         ('-': standard output); files whose data\n"
	"                         fails the check are left out\n"
	"  --format=NAME          another libarchive format for --tar (ustar,\n"
	"                         gnutar, cpio, newc, zip, ...); what it cannot\n"
	"                         hold is reported\n"
	"\n"
	"Exit status (as fsck(8), added together):\n"
	"  0   no errors\n"
	"  4   filesystem errors left uncorrected\n"
	"  8   operational error (cannot read the image or a device, out of\n"
	"      memory, a feature or codec this build does not support, an\n"
	"      entry that could not be extracted)\n"
	"  16  usage or syntax error\n"
	"  32  interrupted by SIGINT, SIGTERM or SIGHUP\n";

static void usage_error(const char *fmt, const char *arg)
{
	fputs(PROG ": ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry '" PROG " --help' for more information.\n", stderr);
	exit(FSCK_EXIT_USAGE);
}

static uint64_t parse_u64(const char *s, const char *what)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		usage_error("invalid %s", what);
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		usage_error("invalid %s", what);
	return v;
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
		usage_error("-j takes 1 to " "1024" ", not %s", arg);
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
	default:
		return false;
	}
	return true;
}

/* The rules of --include, --exclude and --files-from. */
static struct select_rules select_rules = SELECT_RULES_INIT;

static void parse_pattern(const char *arg, bool exclude)
{
	const char *opt = exclude ? "exclude" : "include";
	int ret = select_add_pattern(&select_rules, arg, exclude);

	if (ret == -EINVAL) {
		fprintf(stderr, "%s: --%s=%s: %s\n", PROG, opt, arg,
			"invalid pattern");
		exit(FSCK_EXIT_USAGE);
	}
	if (ret < 0) {
		fprintf(stderr, "%s: --%s=%s: %s\n", PROG, opt, arg,
			"out of memory while reading the options");
		exit(FSCK_EXIT_OPERATIONAL);
	}
}

static void parse_files_from(const char *arg)
{
	unsigned long line;
	int ret = select_read_names(&select_rules, arg, &line);

	if (ret == -EINVAL)
		fprintf(stderr, "%s: --files-from=%s: line %lu: %s\n", PROG,
			arg, line, "a NUL byte in a path");
	else if (ret < 0)
		fprintf(stderr, "%s: --files-from=%s: %s\n", PROG, arg,
			strerror(-ret));
	if (ret < 0)
		exit(FSCK_EXIT_OPERATIONAL);
}

/* Combinations that make no sense. */
static void check_args(const struct fsck_cfg *cfg)
{
	const char *d = cfg->extract_dir;

	if (cfg->has_nid && cfg->path)
		usage_error("%s", "--nid and --path cannot be used together");
	if (cfg->json && (cfg->manifest || cfg->list))
		usage_error("%s", "--json cannot be combined with --manifest or --list (all use standard output)");
	if (cfg->manifest && cfg->list)
		usage_error("%s",
			    "--manifest and --list cannot be used together");
	if (d && !*d)
		usage_error("%s", "--extract= needs a directory");
	if (cfg->mount_point && (*cfg->mount_point != '/' ||
				 strpbrk(cfg->mount_point, " \t\n\v\f\r")))
		usage_error("--mount-point=%s: an absolute path without white space",
			    cfg->mount_point);
	for (unsigned int i = 0; i < cfg->ndevices; i++)
		if (!strcmp(cfg->devices[i], "-"))
			usage_error("%s", "--device=-: only IMAGE can be standard input");
	if (cfg->tar && !*cfg->tar)
		usage_error("%s", "--tar= needs a file ('-': standard output)");
	if (cfg->format && !cfg->tar)
		usage_error("%s", "--format needs --tar");
#ifndef HAVE_LIBARCHIVE
	if (cfg->tar) {
		fputs(PROG ": --tar: this fsck.erofs was built without libarchive (Debian package libarchive-dev)\n",
		      stderr);
		exit(FSCK_EXIT_OPERATIONAL);
	}
#endif
	if (cfg->tar && !strcmp(cfg->tar, "-") &&
	    (cfg->manifest || cfg->list || cfg->json || cfg->ratio))
		usage_error("%s", "--tar=- cannot be combined with --manifest, --list, --json or -p (all use standard output)");
	if (d && d[strspn(d, "/")] == '\0' && !cfg->force)
		usage_error("--extract=%s: extracting to / needs --force", d);
}

static void parse_args(struct fsck_cfg *cfg, int argc, char **argv)
{
	bool names_stdin = false;	/* --files-from=-, read last */
	int c;

	memset(cfg, 0, sizeof(*cfg));
	cfg->level = FSCK_LVL_DEFAULT;
	cfg->preserve_owner = -1;
	cfg->preserve_perms = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":Vd:paAyhj:", long_options,
				NULL)) != -1) {
		if (parse_extract_opt(cfg, c))
			continue;
		switch (c) {
		case 'V':
			printf(PROG " (%s) %s\n", PACKAGE_NAME,
			       PACKAGE_VERSION);
			exit(FSCK_EXIT_OK);
		case 'h':
			fputs(usage_text, stdout);
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
				parse_files_from(optarg);
			else
				names_stdin = true;
			break;
		case OPT_TAR:
			cfg->tar = optarg;
			break;
		case OPT_FORMAT:
			cfg->format = optarg;
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
	if (optind + 1 < argc)
		usage_error("unexpected argument '%s'", argv[optind + 1]);
	cfg->image = argv[optind];
	check_args(cfg);
	if (names_stdin && !strcmp(cfg->image, "-"))
		usage_error("%s", "--files-from=- and IMAGE - cannot both be standard input");
	if (names_stdin)
		parse_files_from("-");
}

/* PATH without empty components: "/a//b/" -> "a/b". */
static char *normalize_path(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = path, *q;

	while (*p) {
		while (*p == '/')
			p++;
		q = p + strcspn(p, "/");
		if (q > p) {
			if (sb.len)
				sb_addc(&sb, '/');
			sb_add(&sb, p, q - p);
		}
		p = q;
	}
	return sb_detach(&sb);
}

/* Resolve --path: the start nid and the nid of its parent. */
static int resolve_path(struct erofs_ctx *ctx, struct report *rep,
			const char *base, uint64_t *nid, uint64_t *parent)
{
	const char *slash = strrchr(base, '/');
	struct fsck_loc loc = {
		.path = base,
		.pathlen = strlen(base),
		.nid = EROFS_NO_NID,
		.offset = EROFS_NO_OFFSET,
	};
	char *dir;
	int ret;

	ret = erofs_lookup(ctx, base, nid);
	if (ret == -ENOENT || ret == -ENOTDIR) {
		report_fatal(rep, "--path=/%s: %s", base, strerror(-ret));
		return ret;
	}
	if (ret < 0)
		goto lib_error;
	if (!*base) {
		*parent = *nid;
		return 0;
	}
	dir = strndup(base, slash ? (size_t)(slash - base) : 0);
	if (!dir) {
		report_fatal(rep, "--path=/%s: %s", base,
			     "out of memory while looking it up");
		return -ENOMEM;
	}
	ret = erofs_lookup(ctx, dir, parent);
	free(dir);
	if (!ret)
		return 0;
lib_error:
	report_lib_error(rep, &loc, &ctx->err, ret);
	erofs_err_clear(&ctx->err);
	return ret;
}

static int choose_start(struct erofs_ctx *ctx, struct report *rep,
			const struct fsck_cfg *cfg, struct walk_opts *wo,
			char **base)
{
	uint64_t root = ctx->img->root_nid;
	int ret;

	wo->max_depth = WALK_MAX_DEPTH;
	wo->start_nid = root;
	wo->start_parent = root;
	wo->base = "";
	*base = NULL;
	if (cfg->has_nid) {
		wo->start_nid = cfg->nid;
		if (cfg->nid != root)
			wo->start_parent = EROFS_NO_NID;
	} else if (cfg->path) {
		*base = normalize_path(cfg->path);
		if (!*base) {
			report_fatal(rep, "--path=%s: %s", cfg->path,
				     "out of memory while looking it up");
			return -ENOMEM;
		}
		ret = resolve_path(ctx, rep, *base, &wo->start_nid,
				   &wo->start_parent);
		if (ret < 0)
			return ret;
		wo->base = *base;
	}
	wo->whole_tree = wo->start_nid == root;
	return 0;
}

static void print_summary(const struct checker *ck, struct report *rep,
			  const struct walk_stats *st)
{
	double ratio = 0;

	report_msg(rep, FSCK_LVL_INFO,
		   "%llu directories, %llu other inodes, %llu entries",
		   (unsigned long long)st->dirs,
		   (unsigned long long)st->others,
		   (unsigned long long)st->entries);
	if (ck->cfg->digests)
		report_msg(rep, FSCK_LVL_INFO, "%llu inode digests checked",
			   (unsigned long long)ck->digests_checked);
	if (!ck->cfg->ratio || ck->cfg->json)
		return;
	if (ck->logical_blocks)
		ratio = (double)ck->physical_blocks * 100 /
			(double)ck->logical_blocks;
	printf("Compression ratio: %.2f(%%)\n", ratio);
}

static void print_image_info(struct report *rep, const struct erofs_image *img)
{
	char features[256];

	if (rep->level < FSCK_LVL_INFO)
		return;
	if (erofs_feature_names(img, features, sizeof(features)) < 0)
		features[0] = '\0';
	report_msg(rep, FSCK_LVL_INFO,
		   "%s: block size %u, %llu blocks, root nid %llu, features: %s",
		   rep->image, img->blksz, (unsigned long long)img->blocks,
		   (unsigned long long)img->root_nid,
		   features[0] ? features : "none");
}

/* What a run produced, for the JSON report. */
struct run_result {
	struct fsck_stats stats;
	uint64_t entries;
	struct extract_stats extracted;
	bool walked, have_extracted;
	unsigned int jobs;
};

static unsigned int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > JOBS_MAX ? JOBS_MAX : (unsigned int)n;
}

static bool is_root(void)
{
	return geteuid() == 0;
}

static int open_extractor(const struct fsck_cfg *cfg, struct report *rep,
			  struct erofs_ctx *ctx, const struct walk_opts *wo,
			  unsigned int threads, struct extractor **x)
{
	struct extract_opts o = {
		.dir = cfg->extract_dir,
		.force = cfg->force,
		.overwrite = cfg->overwrite,
		.keep_existing = cfg->keep_existing,
		.owner = cfg->preserve_owner < 0 ? is_root() :
						   cfg->preserve_owner,
		.perms = cfg->preserve_perms < 0 ? is_root() :
						   cfg->preserve_perms,
		.xattrs = cfg->xattrs,
		.sparse = cfg->sparse,
		.threads = threads,
	};
	struct erofs_inode start;
	bool is_dir = true;

	o.umask = umask(0);
	umask(o.umask);
	if (!erofs_read_inode(ctx, wo->start_nid, &start))
		is_dir = S_ISDIR(start.mode);
	erofs_err_clear(&ctx->err);
	return extract_open(x, &o, rep, is_dir);
}

static int open_android(const struct fsck_cfg *cfg, struct report *rep,
			struct android **android)
{
	struct android_opts o = {
		.fs_config = cfg->fs_config,
		.file_contexts = cfg->file_contexts,
		.mount_point = cfg->mount_point,
	};

	return android_open(android, &o, rep);
}

static int open_tar(const struct fsck_cfg *cfg, struct report *rep,
		    struct tar_writer **tw)
{
	struct tar_opts o = {
		.file = cfg->tar,
		.format = cfg->format,
		.sparse = cfg->sparse,
	};

	return tar_open(tw, &o, rep);
}

static int make_pool(struct checker *ck, struct report *rep,
		     unsigned int threads, struct erofs_pool **pool)
{
	struct erofs_pool_config pc = {
		.threads = threads,
		.batch_cost = EROFS_POOL_BATCH_COST_NS,
	};
	struct erofs_pool_ops ops = {
		.worker_init = checker_worker_init,
		.worker_fini = checker_worker_fini,
		.priv = ck,
	};
	int ret = erofs_pool_create(pool, &pc, &ops);

	if (ret < 0)
		report_fatal(rep, "%s: cannot start %u threads: %s",
			     rep->image, threads, strerror(-ret));
	return ret;
}

static bool want_progress(const struct fsck_cfg *cfg)
{
	if (cfg->no_progress || cfg->level == 0 || !isatty(STDERR_FILENO))
		return false;
	return !isatty(STDOUT_FILENO) ||
	       !(cfg->manifest || cfg->list || cfg->json);
}

static uint64_t image_bytes(const struct erofs_image *img)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < img->ndevs; i++)
		total += img->devs[i].size;
	return total;
}

/* Work the image holds, from its size and its dearest codec. */
static uint64_t image_work_ns(const struct erofs_image *img)
{
	uint64_t per = SYNC_RAW_PER_KIB, kib = image_bytes(img) >> 10;
	const struct erofs_codec *codec;
	unsigned int alg;

	for (alg = 0; alg < 16; alg++) {
		if (!(img->available_compr_algs & (1U << alg)))
			continue;
		codec = erofs_codec_get(alg);
		if (codec && codec->cost_ns_per_kib > per)
			per = codec->cost_ns_per_kib;
	}
	return kib > UINT64_MAX / per ? UINT64_MAX : kib * per;
}

/*
 * Threads worth starting: none for a single CPU or a small image, and none
 * when nothing is decoded: a task then only maps extents, about as much
 * work as the walker spends finding the file, so threads cannot win.
 */
static unsigned int pool_threads(const struct fsck_cfg *cfg,
				 const struct erofs_image *img,
				 unsigned int jobs)
{
	const char *env = getenv("EROFS_FSCK_SYNC_NS");
	uint64_t limit = SYNC_WORK_NS;
	char *end;

	if (jobs <= 1)
		return 0;
	if (env && *env) {
		limit = strtoull(env, &end, 10);
		if (*end)
			limit = SYNC_WORK_NS;
	}
	if (!limit)
		return jobs;
	if (!(cfg->decode || cfg->extract_dir || cfg->digests ||
	      cfg->manifest || cfg->tar))
		return 0;
	if (sysconf(_SC_NPROCESSORS_ONLN) == 1 || image_work_ns(img) < limit)
		return 0;
	return jobs;
}

static int walk_image(struct checker *ck, struct report *rep,
		      struct erofs_ctx *ctx, const struct walk_opts *wo,
		      struct run_result *res)
{
	bool selecting = select_active(&select_rules);
	struct walk_visitor visitor;
	struct walk_stats stats = { 0 };
	struct progress *progress = NULL;
	struct selector sel;
	int ret, err;

	if (want_progress(ck->cfg)) {
		progress = progress_start(&ck->pc, image_bytes(ctx->img),
					  ctx->img->inos);
		rep->progress = progress;
	}
	checker_visitor(ck, &visitor);
	if (selecting)
		select_start(&sel, &select_rules, ctx, &visitor, &visitor);
	ret = check_special_inodes(ck);
	if (!ret)
		ret = walk_tree(ctx, rep, wo, &visitor, &stats);
	err = checker_finish(ck);
	if (!ret && !err && !ck->stopped)
		ret = check_packed_rest(ck);
	if (ck->x)
		extract_finish(ck->x, ret || err || ck->stopped || rep->fatal);
	if (ck->tar && tar_finish(ck->tar, rep,
				  !(ret || err || ck->stopped || rep->fatal ||
				    interrupted())) &&
	    !ret)
		ret = -EIO;
	res->walked = true;
	res->stats = ck->stats;
	res->entries = selecting ? sel.entries : stats.entries + 1;
	if (selecting && !ret && !err && !interrupted() &&
	    select_report_missing(&sel, rep, wo->base) < 0)
		report_nomem(rep, NULL);
	if (!ret && !err && ck->manifest && !interrupted()) {
		ret = manifest_print(ck->manifest);
		if (ret == -ENOMEM)
			report_fatal(rep, "%s: out of memory while %s",
				     rep->image, "writing the manifest");
		else if (ret < 0)
			report_fatal(rep, "cannot write the manifest: %s",
				     strerror(-ret));
	}
	if (!ret && !err)
		print_summary(ck, rep, &stats);
	rep->progress = NULL;
	progress_stop(progress);
	if (selecting)
		select_fini(&sel);
	return ret ? ret : err;
}

/*
 * EROFS_FSCK_FRAG_CACHE: the fragment cache's budget in bytes, instead of
 * EROFS_FRAG_CACHE_BUDGET (tests of a small cache).
 */
static int set_frag_cache_budget(struct report *rep, struct erofs_image *img)
{
	const char *env = getenv("EROFS_FSCK_FRAG_CACHE");
	unsigned long long budget;
	struct erofs_err err;
	struct fsck_loc loc = { .label = rep->image, .nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	char *end;
	int ret;

	if (!env || !*env)
		return 0;
	budget = strtoull(env, &end, 10);
	if (*end || budget > SIZE_MAX)
		return 0;
	erofs_err_clear(&err);
	ret = erofs_frag_cache_create(img, (size_t)budget, &err);
	if (ret < 0)
		report_lib_error(rep, &loc, &err, ret);
	return ret;
}

static int check_image(const struct fsck_cfg *cfg, struct report *rep,
		       struct erofs_image *img, struct run_result *res)
{
	unsigned int threads = pool_threads(cfg, img, res->jobs);
	struct manifest *manifest = NULL;
	struct extractor *x = NULL;
	struct android *android = NULL;
	struct tar_writer *tw = NULL;
	struct erofs_pool *pool = NULL;
	struct walk_opts wo;
	struct erofs_ctx ctx;
	struct checker ck;
	char *base = NULL;
	int ret, err;

	ret = set_frag_cache_budget(rep, img);
	if (ret < 0)
		return ret;
	ret = erofs_ctx_init(&ctx, img);
	if (ret < 0) {
		report_fatal(rep, "%s: cannot start reading: %s", cfg->image,
			     strerror(-ret));
		return ret;
	}
	if (cfg->manifest && !(manifest = manifest_new(stdout))) {
		report_nomem(rep, NULL);
		ret = -ENOMEM;
		goto out;
	}
	if (cfg->digests && img->ishare_prefix_id < 0)
		report_warning(rep, NULL, "%s records no inode digests",
			       cfg->image);
	ret = choose_start(&ctx, rep, cfg, &wo, &base);
	if (!ret && cfg->extract_dir)
		ret = open_extractor(cfg, rep, &ctx, &wo, threads, &x);
	if (!ret && (cfg->fs_config || cfg->file_contexts))
		ret = open_android(cfg, rep, &android);
	if (!ret && cfg->tar)
		ret = open_tar(cfg, rep, &tw);
	if (ret)
		goto out;
	checker_init(&ck, &ctx, rep, cfg, manifest, x,
		     cfg->list ? stdout : NULL);
	ck.android = android;
	ck.tar = tw;
	ret = make_pool(&ck, rep, threads, &pool);
	if (!ret) {
		checker_set_pool(&ck, pool);
		ret = walk_image(&ck, rep, &ctx, &wo, res);
		erofs_pool_destroy(pool);
	}
	if (x) {
		extract_get_stats(x, &res->extracted);
		res->have_extracted = true;
		report_msg(rep, FSCK_LVL_INFO,
			   "extracted %llu directories, %llu files, %llu symlinks, %llu special files, %llu further names",
			   (unsigned long long)res->extracted.dirs,
			   (unsigned long long)res->extracted.files,
			   (unsigned long long)res->extracted.symlinks,
			   (unsigned long long)res->extracted.nodes,
			   (unsigned long long)res->extracted.links);
	}
	checker_fini(&ck);
out:
	err = android_close(android);
	tar_close(tw);
	extract_close(x);
	free(base);
	manifest_free(manifest);
	erofs_ctx_fini(&ctx);
	return ret ? ret : err;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) +
	       (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static void write_json(const struct fsck_cfg *cfg, struct report *rep,
		       const struct erofs_image *img,
		       const struct run_result *res, double elapsed,
		       int status)
{
	struct json_summary js = {
		.image = cfg->image,
		.img = img,
		.extract_dir = cfg->extract_dir,
		.jobs = res->jobs,
		.elapsed = elapsed,
		.stats = res->walked ? &res->stats : NULL,
		.entries = res->entries,
		.extracted = res->have_extracted ? &res->extracted : NULL,
		.status = status,
	};

	if (json_write(stdout, &js, rep) < 0)
		fprintf(stderr, PROG ": cannot write the JSON report\n");
}

/* Open IMAGE, or with "-" the image on standard input (spool.h). */
static int open_image(const struct fsck_cfg *cfg, struct report *rep,
		      struct erofs_open_opts *oo, struct erofs_image **img)
{
	struct fsck_loc loc = { .label = oo->path, .nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct erofs_err err;
	int ret;

	if (!strcmp(cfg->image, "-")) {
		ret = spool_stdin(rep);
		if (ret < 0)
			return ret;
		oo->use_fd = true;
		oo->fd = ret;
	}
	erofs_err_clear(&err);
	ret = erofs_image_open(img, oo, &err);
	if (oo->use_fd && oo->fd != STDIN_FILENO)
		close(oo->fd);
	if (ret < 0)
		report_lib_error(rep, &loc, &err, ret);
	return ret;
}

int main(int argc, char **argv)
{
	struct erofs_open_opts oo = { 0 };
	struct erofs_image *img = NULL;
	struct run_result res = { 0 };
	struct timespec start;
	struct report rep;
	struct fsck_cfg cfg;
	int status, sig;

	clock_gettime(CLOCK_MONOTONIC, &start);
	parse_args(&cfg, argc, argv);
	res.jobs = cfg.jobs ? cfg.jobs : default_jobs();
	/* a file past RLIMIT_FSIZE is a write error, not a signal */
	signal(SIGXFSZ, SIG_IGN);
	report_init(&rep, strcmp(cfg.image, "-") ? cfg.image : "standard input",
		    cfg.level);
	if (cfg.extract_dir)
		rep.job = "extraction";
	else if (cfg.tar)
		rep.job = "archive";
	if (cfg.json && report_keep_log(&rep)) {
		fprintf(stderr, "%s: %s: %s\n", PROG, cfg.image,
			"out of memory for the JSON report");
		return FSCK_EXIT_OPERATIONAL;
	}
	/*
	 * A closed standard output (--list | head) ends a check the usual
	 * way, killed by SIGPIPE; an extraction stops as if interrupted, so
	 * that the file being written is removed.
	 */
	interrupt_install(cfg.extract_dir != NULL);

	oo.path = rep.image;
	oo.offset = cfg.offset;
	oo.devices = cfg.devices;
	oo.ndevices = cfg.ndevices;
	oo.no_sbcrc = cfg.no_sbcrc;
	if (!open_image(&cfg, &rep, &oo, &img) && !interrupted()) {
		print_image_info(&rep, img);
		check_image(&cfg, &rep, img, &res);
	}
	sig = interrupt_signal();
	if (sig)
		report_cancelled(&rep, "interrupted by %s",
				 interrupt_signal_name(sig));
	status = report_finish(&rep);
	if (cfg.json)
		write_json(&cfg, &rep, img, &res, seconds_since(&start),
			   status);
	erofs_image_close(img);
	report_fini(&rep);
	free(cfg.devices);
	select_rules_fini(&select_rules);
	interrupt_restore();
	return status;
}
