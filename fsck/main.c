// SPDX-License-Identifier: MIT
/* fsck.erofs: options and dispatch. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "erofs/dir.h"
#include "erofs/image.h"
#include "fsck.h"
#include "manifest.h"
#include "report.h"
#include "strbuf.h"
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
};

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
	{ NULL, 0, NULL, 0 },
};

static const char usage_text[] =
	"Usage: " PROG " [OPTIONS] IMAGE\n"
	"Check the integrity of the EROFS filesystem in IMAGE.\n"
	"\n"
	"Options:\n"
	"  -V, --version          print the version number and exit\n"
	"  -d N                   message level: 0 errors only, 2 warnings\n"
	"                         (default), 3 information, 7 and above\n"
	"                         debugging (maximum 9)\n"
	"  -p                     print the total compression ratio of files\n"
	"  -a, -A, -y             accepted for fsck(8); no effect\n"
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
	"  -h, --help             display this help and exit\n"
	"\n"
	"Exit status (as fsck(8), added together):\n"
	"  0   no errors\n"
	"  4   filesystem errors left uncorrected\n"
	"  8   operational error (cannot read the image or a device, out of\n"
	"      memory, a feature or codec this build does not support)\n"
	"  16  usage or syntax error\n";

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
		fputs(PROG ": out of memory\n", stderr);
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

static void parse_args(struct fsck_cfg *cfg, int argc, char **argv)
{
	int c;

	memset(cfg, 0, sizeof(*cfg));
	cfg->level = FSCK_LVL_DEFAULT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":Vd:paAyh", long_options,
				NULL)) != -1) {
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
	if (cfg->has_nid && cfg->path)
		usage_error("%s", "--nid and --path cannot be used together");
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
		report_fatal(rep, "out of memory");
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
			report_fatal(rep, "out of memory");
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
	if (!ck->cfg->ratio)
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

static int check_image(const struct fsck_cfg *cfg, struct report *rep,
		       struct erofs_image *img)
{
	struct manifest *manifest = NULL;
	struct walk_visitor visitor;
	struct walk_stats stats = { 0 };
	struct walk_opts wo;
	struct erofs_ctx ctx;
	struct checker ck;
	char *base = NULL;
	int ret;

	ret = erofs_ctx_init(&ctx, img);
	if (ret < 0) {
		report_fatal(rep, "%s", strerror(-ret));
		return ret;
	}
	if (cfg->manifest && !(manifest = manifest_new())) {
		report_fatal(rep, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	if (cfg->digests && img->ishare_prefix_id < 0)
		report_warning(rep, NULL, "%s records no inode digests",
			       cfg->image);
	checker_init(&ck, &ctx, rep, cfg, manifest);
	ret = choose_start(&ctx, rep, cfg, &wo, &base);
	if (!ret)
		ret = check_special_inodes(&ck);
	if (!ret) {
		checker_visitor(&ck, &visitor);
		ret = walk_tree(&ctx, rep, &wo, &visitor, &stats);
	}
	if (!ret && manifest) {
		ret = manifest_print(manifest, stdout);
		if (ret < 0)
			report_fatal(rep, "cannot write the manifest: %s",
				     strerror(-ret));
	}
	if (!ret)
		print_summary(&ck, rep, &stats);
	checker_fini(&ck);
	free(base);
out:
	manifest_free(manifest);
	erofs_ctx_fini(&ctx);
	return ret;
}

int main(int argc, char **argv)
{
	struct erofs_open_opts oo = { 0 };
	struct erofs_image *img = NULL;
	struct fsck_loc loc = { 0 };
	struct erofs_err err;
	struct report rep;
	struct fsck_cfg cfg;
	int ret;

	parse_args(&cfg, argc, argv);
	report_init(&rep, cfg.image, cfg.level);
	if (cfg.extract_dir) {
		report_fatal(&rep, "--extract=%s: extraction to a directory is not implemented yet",
			     cfg.extract_dir);
		return report_finish(&rep);
	}

	oo.path = cfg.image;
	oo.offset = cfg.offset;
	oo.devices = cfg.devices;
	oo.ndevices = cfg.ndevices;
	oo.no_sbcrc = cfg.no_sbcrc;
	erofs_err_clear(&err);
	ret = erofs_image_open(&img, &oo, &err);
	if (ret < 0) {
		loc.label = cfg.image;
		loc.nid = EROFS_NO_NID;
		loc.offset = EROFS_NO_OFFSET;
		report_lib_error(&rep, &loc, &err, ret);
	} else {
		print_image_info(&rep, img);
		check_image(&cfg, &rep, img);
		erofs_image_close(img);
	}
	free(cfg.devices);
	return report_finish(&rep);
}
