// SPDX-License-Identifier: MIT
/* fsck.erofs: from the options to the verdict. */
#include <errno.h>
#include <fcntl.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check/check.h"
#include "check/integrity.h"
#include "check/verity.h"
#include "container/container.h"
#include "container/partition_files.h"
#include "erofs/dir.h"
#include "erofs/fragments.h"
#include "erofs/image.h"
#include "erofs/pool.h"
#include "extract/extract.h"
#include "fsck.h"
#include "options.h"
#include "output/android.h"
#include "output/cat.h"
#include "output/compare.h"
#include "output/json.h"
#include "output/list.h"
#include "output/manifest.h"
#include "output/tar/tar.h"
#include "sched/cost.h"
#include "sched/packed_rest.h"
#include "sched/scheduler.h"
#include "util/cpu_share.h"
#include "util/inputs.h"
#include "util/interrupt.h"
#include "util/knobs.h"
#include "util/outfile.h"
#include "util/progress.h"
#include "util/report.h"
#include "util/stdout_check.h"
#include "util/strbuf.h"
#include "visit.h"
#include "walk/nid_named.h"
#include "walk/select.h"
#include "walk/strip.h"
#include "walk/walk.h"

/* The rules of --include, --exclude and --files-from. */
static struct select_rules select_rules = SELECT_RULES_INIT;

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
	report_lib_error(rep, &loc, erofs_ctx_err(ctx), ret);
	return ret;
}

/*
 * Does --nid name a slot past the end of the image (of the metabox, with
 * its bit)? That is no place in the image, but a number mistyped.
 */
static bool nid_past_end(const struct erofs_image *img, uint64_t nid)
{
	uint64_t slot = nid & ~EROFS_NID_METABOX_BIT;
	uint64_t base = img->meta_blkaddr << img->blkszbits;
	uint64_t end = img->devs[0].size;

	if (nid & EROFS_NID_METABOX_BIT) {
		if (!img->has_metabox)
			return true;
		base = 0;
		end = img->metabox.size;
	}
	return slot >= (end - (base < end ? base : end)) >> EROFS_ISLOTBITS;
}

/*
 * A --nid that holds no inode is a usage error when no entry of the tree
 * names it (a number mistyped); one that an entry names is an inode the
 * image damaged, which the walk reports.
 */
static int nid_starts_inode(struct erofs_ctx *ctx, struct report *rep,
			    uint64_t nid)
{
	struct erofs_inode inode;
	int named;

	if (!erofs_read_inode(ctx, nid, &inode))
		return 0;
	erofs_err_drop(erofs_ctx_err(ctx));
	named = nid_named_in_tree(ctx, nid);
	if (named < 0) {
		report_nomem(rep, NULL);
		return named;
	}
	if (named)
		return 0;
	report_usage(
		rep,
		"--nid=%llu: no inode starts there, and no directory entry names it (the root is nid %llu)",
		(unsigned long long)nid,
		(unsigned long long)erofs_ctx_image(ctx)->root_nid);
	return -EINVAL;
}

static int choose_start(struct erofs_ctx *ctx, struct report *rep,
			const struct fsck_cfg *cfg, struct walk_opts *wo,
			char **base)
{
	uint64_t root = erofs_ctx_image(ctx)->root_nid;
	int ret;

	wo->max_depth = WALK_MAX_DEPTH;
	wo->start_nid = root;
	wo->start_parent = root;
	wo->base = "";
	*base = NULL;
	if (cfg->has_nid) {
		if (nid_past_end(erofs_ctx_image(ctx), cfg->nid)) {
			report_usage(
				rep,
				"--nid=%llu: past the end of the inode area of %s",
				(unsigned long long)cfg->nid, rep->image);
			return -EINVAL;
		}
		ret = nid_starts_inode(ctx, rep, cfg->nid);
		if (ret < 0)
			return ret;
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

/* entries: as --json counts them (the start included, or those selected) */
static void print_summary(const struct checker *ck, struct report *rep,
			  const struct walk_stats *st, uint64_t entries)
{
	double ratio = 0;

	report_msg(rep, FSCK_LVL_INFO, "%llu %s, %llu other %s, %llu %s",
		   (unsigned long long)st->dirs,
		   report_noun(st->dirs, "directory", "directories"),
		   (unsigned long long)st->others,
		   report_noun(st->others, "inode", "inodes"),
		   (unsigned long long)entries,
		   report_noun(entries, "entry", "entries"));
	if (ck->digests)
		report_msg(rep, FSCK_LVL_INFO, "%llu inode digests checked",
			   (unsigned long long)ck->digests_checked);
	if (!ck->cfg->ratio || ck->cfg->json)
		return;
	if (ck->logical_blocks)
		ratio = (double)ck->physical_blocks * 100 /
			(double)ck->logical_blocks;
	/* standard output belongs to the listing or the differences, if any */
	fprintf(ck->cfg->manifest || ck->cfg->list || ck->cfg->compare ? stderr
								       : stdout,
		"Compression ratio: %.2f(%%)\n", ratio);
}

/*
 * Where the offsets of the problems lie when the filesystem does not
 * start at byte 0 of IMAGE's file: they count from its start.
 */
static void offsets_origin(const struct erofs_image *img, char *buf, size_t len)
{
	const struct erofs_source *src = img->devs[0].src;
	uint64_t at;

	buf[0] = '\0';
	if (erofs_source_kind(src) == EROFS_SOURCE_SPARSE)
		snprintf(buf, len,
			 "; offsets from byte %llu of the unsparsed image",
			 (unsigned long long)img->devs[0].offset);
	else if (erofs_source_pieces(src) > 1)
		snprintf(buf, len, "; offsets from byte %llu of %s",
			 (unsigned long long)img->devs[0].offset,
			 erofs_source_name(src));
	else if (erofs_source_file_pos(src, img->devs[0].offset, &at) && at)
		snprintf(buf, len, "; offsets from byte %llu of the file",
			 (unsigned long long)at);
}

static void print_image_info(struct report *rep, const struct erofs_image *img)
{
	char features[256], origin[PATH_MAX + 64];

	if (rep->level < FSCK_LVL_INFO)
		return;
	if (erofs_feature_names(img, features, sizeof(features)) < 0)
		features[0] = '\0';
	offsets_origin(img, origin, sizeof(origin));
	report_msg(
		rep, FSCK_LVL_INFO,
		"%s: block size %u, %llu blocks, root nid %llu, features: %s%s",
		rep->image, img->blksz, (unsigned long long)img->blocks,
		(unsigned long long)img->root_nid,
		features[0] ? features : "none", origin);
}

/* What a run produced, for the JSON report. */
struct run_result {
	struct fsck_stats stats;
	uint64_t entries;
	uint64_t digests_checked;
	struct extract_stats extracted;
	struct cpu_share cpu;
	bool walked, have_extracted, have_cpu;
	unsigned int jobs;
};

/* -j by default: as many as cost_threads() would start at most. */
static unsigned int default_jobs(void)
{
	unsigned int n = cost_cpus();

	return n > JOBS_MAX ? JOBS_MAX : n;
}

static bool is_root(void)
{
	return geteuid() == 0;
}

/* Is the start of the walk a directory (else DIR names a file)? */
static bool start_is_dir(struct erofs_ctx *ctx, const struct walk_opts *wo)
{
	struct erofs_inode start;

	/* the walk reads the start again, and reports what fails */
	if (!erofs_read_inode(ctx, wo->start_nid, &start))
		return S_ISDIR(start.mode);
	erofs_err_drop(erofs_ctx_err(ctx));
	return true;
}

static int open_compare(const struct fsck_cfg *cfg, struct report *rep,
			struct erofs_ctx *ctx, const struct walk_opts *wo,
			struct outputs *outs)
{
	struct compare_opts o = {
		.dir = cfg->compare,
		.xattrs = cfg->xattrs,
		.rules = select_active(&select_rules) ? &select_rules : NULL,
		.modify_window = cfg->modify_window,
		.start_is_dir = start_is_dir(ctx, wo),
	};

	return compare_add_output(outs, &o, rep);
}

static int open_extractor(const struct fsck_cfg *cfg, struct report *rep,
			  struct erofs_ctx *ctx, const struct walk_opts *wo,
			  unsigned int threads, struct outputs *outs,
			  struct extractor **x)
{
	struct extract_opts o = {
		.dir = cfg->extract_dir,
		.force = cfg->force,
		.overwrite = cfg->overwrite,
		.keep_existing = cfg->keep_existing,
		.owner = cfg->preserve_owner < 0 ? is_root()
						 : cfg->preserve_owner,
		.perms = cfg->preserve_perms < 0 ? is_root()
						 : cfg->preserve_perms,
		.xattrs = cfg->xattrs,
		.sparse = cfg->sparse,
		.threads = threads,
	};

	o.umask = outfile_umask();
	if (extract_open(x, &o, rep, start_is_dir(ctx, wo)) != FSCK_OK)
		return rep->fatal;
	outputs_add(outs, &extract_output, *x,
		    OUT_CREATES | OUT_OPENS | OUT_DATA |
			    (cfg->xattrs ? OUT_XATTRS : 0));
	return 0;
}

static int open_android(const struct fsck_cfg *cfg, struct report *rep,
			struct outputs *outs)
{
	struct android_opts o = {
		.fs_config = cfg->fs_config,
		.file_contexts = cfg->file_contexts,
		.mount_point = cfg->mount_point,
	};
	struct android *android;
	int ret = android_open(&android, &o, rep);

	if (!ret)
		outputs_add(outs, &android_output, android, 0);
	return ret;
}

static int open_tar(const struct fsck_cfg *cfg, struct report *rep,
		    unsigned int threads, struct outputs *outs)
{
	struct tar_opts o = {
		.file = cfg->tar,
		.format = cfg->format,
		.options = cfg->tar_options,
		.compress = cfg->compress,
		.threads = threads,
		.sparse = cfg->sparse,
	};

	return tar_add_output(outs, &o, rep);
}

static int open_manifest(struct report *rep, struct outputs *outs)
{
	struct manifest *manifest = manifest_new(stdout);

	if (!manifest) {
		report_nomem(rep, NULL);
		return -ENOMEM;
	}
	outputs_add(outs, &manifest_output, manifest, OUT_XATTRS | OUT_DIGEST);
	return 0;
}

static int open_cat(const struct fsck_cfg *cfg, struct report *rep,
		    struct outputs *outs)
{
	struct cat_opts o = {
		.paths = cfg->cats,
		.rels = (const char *const *)cfg->cat_rels,
		.n = cfg->ncats,
		.out = stdout,
	};

	return cat_add_output(outs, &o, rep);
}

static int open_list(struct report *rep, struct outputs *outs)
{
	if (!list_add_output(outs, stdout, rep))
		return 0;
	report_nomem(rep, NULL);
	return -ENOMEM;
}

/*
 * The outputs the options ask for, in the order they take from each
 * other's work (output.h), sized for -j jobs; x: the extractor, for its
 * statistics.
 */
static int open_outputs(const struct fsck_cfg *cfg, struct report *rep,
			struct erofs_ctx *ctx, const struct walk_opts *wo,
			unsigned int jobs, struct outputs *outs,
			struct extractor **x)
{
	int ret = 0;

	if (cfg->fs_config || cfg->file_contexts)
		ret = open_android(cfg, rep, outs);
	if (!ret && cfg->list)
		ret = open_list(rep, outs);
	if (!ret && cfg->manifest)
		ret = open_manifest(rep, outs);
	if (!ret && cfg->compare)
		ret = open_compare(cfg, rep, ctx, wo, outs);
	if (!ret && cfg->tar)
		ret = open_tar(cfg, rep, cost_threads_most(jobs), outs);
	if (!ret && cfg->extract_dir)
		ret = open_extractor(cfg, rep, ctx, wo, cost_workers_most(jobs),
				     outs, x);
	if (!ret && cfg->ncats)
		ret = open_cat(cfg, rep, outs);
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

static int walk_image(struct checker *ck, struct report *rep,
		      struct erofs_ctx *ctx, const struct walk_opts *wo,
		      struct run_result *res)
{
	bool selecting = select_active(&select_rules);
	struct walk_visitor visitor;
	struct walk_stats stats = { 0 };
	struct progress *progress = NULL;
	struct stripper strip;
	struct selector sel;
	bool complete;
	int ret, err;

	if (want_progress(ck->cfg)) {
		progress = progress_start(&ck->pc, image_bytes(erofs_ctx_image(ctx)),
					  erofs_ctx_image(ctx)->inos);
		rep->progress = progress;
	}
	visit_init(ck, &visitor);
	/* a selection matches the paths in the image, before stripping */
	if (ck->cfg->strip)
		strip_start(&strip, ck->cfg->strip, rep, &visitor, &visitor);
	if (selecting)
		select_start(&sel, &select_rules, ctx, &visitor, &visitor);
	ret = check_special_inodes(ck);
	if (!ret)
		ret = walk_tree(ctx, rep, wo, &visitor, &stats);
	err = visit_finish(ck);
	if (!ret && !err && !ck->sched->stopped)
		ret = packed_rest_check(ck);
	complete = !(ret || err || ck->sched->stopped || rep->fatal ||
		     interrupted());
	if (outputs_finish(ck->outs, rep, complete) != FSCK_OK && !ret)
		ret = -EIO;
	res->walked = true;
	res->stats = ck->stats;
	res->digests_checked = ck->digests_checked;
	res->entries = selecting ? sel.entries : stats.entries + 1;
	if (selecting && !ret && !err && !interrupted() &&
	    select_report_missing(&sel, rep, wo->base) < 0)
		report_nomem(rep, NULL);
	if (!ret && !err)
		print_summary(ck, rep, &stats, res->entries);
	rep->progress = NULL;
	progress_stop(progress);
	if (selecting)
		select_fini(&sel);
	if (ck->cfg->strip)
		strip_fini(&strip);
	return ret ? ret : err;
}

/*
 * The fragment cache's budget for the most workers the run may start, or
 * EROFS_FSCK_FRAG_CACHE in bytes (tests of a small cache): an open option,
 * as the image is never changed once open.
 */
static size_t frag_cache_budget(unsigned int jobs)
{
	uint64_t budget;

	if (!knob_value("EROFS_FSCK_FRAG_CACHE", &budget) || budget > SIZE_MAX ||
	    !budget)
		return erofs_frag_cache_budget(cost_workers_most(jobs));
	return (size_t)budget;
}

/*
 * A dm-verity tree that was to be checked and could not be (its root
 * differs, it is damaged): the filesystem is still checked, but no
 * file's bytes go out, as none can be verified (--no-verity reads the
 * image without the tree). The options of such a run, in *own.
 */
static const struct fsck_cfg *
unverifiable_outputs(const struct fsck_cfg *cfg, struct report *rep,
		     const struct verity_check *vc, struct fsck_cfg *own)
{
	if (!vc->unusable || !(cfg->extract_dir || cfg->tar || cfg->ncats))
		return cfg;
	*own = *cfg;
	own->extract_dir = NULL;
	own->tar = NULL;
	own->ncats = 0;
	report_warning(
		rep, NULL,
		"%s: its dm-verity tree cannot be used: nothing is extracted, archived or printed (--no-verity reads the image without it)",
		rep->image);
	return own;
}

/* -d: the workers -j jobs started, when any did or -j asked for them */
static void report_workers(struct report *rep, unsigned int jobs,
			   const struct cost_workers *w)
{
	char turns[48] = "";

	if (jobs <= 1 && !w->threads)
		return;
	if (w->decoders)
		snprintf(turns, sizeof(turns), ", %u decoding at once",
			 w->decoders);
	report_msg(rep, FSCK_LVL_DEBUG,
		   "-j%u: %u worker threads%s (CPUs to run on: %u)", jobs,
		   w->threads, turns, cost_cpus());
}

static int check_image(const struct fsck_cfg *cfg, struct report *rep,
		       struct erofs_image *img, struct run_result *res,
		       struct verity_check *vc)
{
	struct cost_workers workers;
	struct outputs outs = { .n = 0 };
	struct extractor *x = NULL;
	struct sched sched = { 0 };
	struct walk_opts wo;
	struct erofs_ctx *ctx;
	struct checker ck;
	char *base = NULL;
	int ret;

	ctx = erofs_ctx_new(img);
	if (!ctx) {
		report_fatal(rep, "%s: cannot start reading: %s", cfg->image,
			     strerror(ENOMEM));
		return -ENOMEM;
	}
	if (cfg->digests && img->ishare_prefix_id < 0)
		report_warning(rep, NULL, "%s records no inode digests",
			       cfg->image);
	ret = choose_start(ctx, rep, cfg, &wo, &base);
	if (!ret)
		ret = open_outputs(cfg, rep, ctx, &wo, res->jobs, &outs, &x);
	if (ret)
		goto out;
	checker_init(&ck, ctx, rep, cfg, &outs);
	ck.verity = vc->v ? vc : NULL;
	/* a dm-verity tree has every block hashed, as decoding reads it */
	workers = cost_threads(&outs, ck.decode || ck.verity, img,
			       image_bytes(img), res->jobs);
	report_workers(rep, res->jobs, &workers);
	ret = sched_start(&sched, &ck, &workers);
	if (!ret)
		ret = walk_image(&ck, rep, ctx, &wo, res);
	/*
	 * the tree's blocks no read of the walk checked (check/verity.h),
	 * after it: each block is hashed once
	 */
	if (!ret && ck.verity)
		ret = sched_verity(&sched, &ck);
	res->have_cpu = !cpu_share_take(&res->cpu, sched.pool);
	if (res->have_cpu)
		cpu_share_report(&res->cpu, rep);
	sched_stop(&sched);
	if (x) {
		extract_get_stats(x, &res->extracted);
		res->have_extracted = true;
		report_msg(
			rep, FSCK_LVL_INFO,
			"extracted %llu directories, %llu files, %llu symlinks, %llu special files, %llu further names",
			(unsigned long long)res->extracted.dirs,
			(unsigned long long)res->extracted.files,
			(unsigned long long)res->extracted.symlinks,
			(unsigned long long)res->extracted.nodes,
			(unsigned long long)res->extracted.links);
	}
	checker_fini(&ck);
out:
	outputs_close(&outs);
	free(base);
	erofs_ctx_free(ctx);
	return ret;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) +
	       (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* The JSON report; the exit status, with 8 if it could not be made. */
static int write_json(const struct fsck_cfg *cfg, struct report *rep,
		      const struct erofs_image *img,
		      const struct run_result *res, const struct integrity *in,
		      double elapsed, int status)
{
	struct json_summary js = {
		.integrity = in,
		.image = cfg->image,
		.img = img,
		.extract_dir = cfg->extract_dir,
		.jobs = res->jobs,
		.elapsed = elapsed,
		.stats = res->walked ? &res->stats : NULL,
		.entries = res->entries,
		.extracted = res->have_extracted ? &res->extracted : NULL,
		.cpu = res->have_cpu ? &res->cpu : NULL,
		.status = status,
	};

	/* a failed write is reported at exit (stdout_check.h) */
	if (json_write(stdout, &js, rep) != -ENOMEM)
		return status;
	fprintf(stderr, "%s: %s: %s\n", PROG, cfg->image,
		"out of memory for the JSON report");
	return status | FSCK_EXIT_OPERATIONAL;
}

/*
 * What the run verified, and against what (check/integrity.h), into in:
 * said in a line, and a problem for each shortfall with --require-verity.
 */
static void verdict_integrity(const struct fsck_cfg *cfg, struct report *rep,
			      const struct erofs_image *img,
			      const struct run_result *res,
			      const struct verity_check *vc,
			      const struct container_verity *carried,
			      struct integrity *in)
{
	if (integrity_gather(in, cfg, img, vc, carried, res->stats.bytes,
			     res->digests_checked)) {
		report_nomem(rep, NULL);
		return;
	}
	integrity_report(in, cfg, rep);
}

/*
 * A write to standard output that failed stops the run's verdict short,
 * said once: an output that said it already (the listing's own writer)
 * has stopped the run.
 */
static void report_stdout(struct report *rep)
{
	int err = stdout_check_flush();

	if (err && !rep->fatal)
		report_fatal(rep, "standard output: %s", strerror(err));
}

/*
 * A superblock whose checksum is wrong, or an image cut short of the
 * blocks it claims (opened with erofs_open_opts.salvage): each a problem
 * found. A check goes on past them, and so does --ignore-errors, to
 * salvage what the rest holds (reads past the end fail one by one);
 * any other output stops, saying how to go on.
 */
static int superblock_damage(const struct fsck_cfg *cfg, struct report *rep,
			     struct erofs_image **img)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	bool writes = cfg->extract_dir || cfg->tar || cfg->ncats;
	unsigned int i;

	for (i = 0; i < (*img)->ndamage; i++)
		report_lib_error(rep, &loc, &(*img)->damage[i],
				 (*img)->damage[i].code);
	if (!(*img)->ndamage || !writes || cfg->ignore_errors) {
		if ((*img)->ndamage && writes)
			report_msg(
				rep, FSCK_LVL_WARN,
				"%s: going on past the superblock's damage (--ignore-errors)",
				rep->image);
		return 0;
	}
	report_msg(
		rep, FSCK_LVL_WARN,
		"%s: nothing written; --ignore-errors goes on past the superblock's damage and salvages the rest",
		rep->image);
	erofs_image_close(*img);
	*img = NULL;
	return -EFSCORRUPTED;
}

/*
 * Open the image in oo->source, every read of it checked by the dm-verity
 * tree the options name or it carries (vc, check/verity.h), after
 * writing it out with --write-image: 0, a negative errno after
 * reporting, or 1 when --write-image wrote what holds no EROFS.
 */
static int open_image_source(const struct fsck_cfg *cfg, struct report *rep,
			     struct erofs_open_opts *oo,
			     struct erofs_image **img,
			     struct container_verity *carried,
			     struct verity_check *vc)
{
	struct fsck_loc loc = { .label = oo->path,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct erofs_err err;
	uint64_t size;
	int ret;

	/* written out, then checked if it holds EROFS: 1 when not */
	if (cfg->write_image) {
		ret = container_write_image(cfg, rep, oo->source,
					    cfg->write_image);
		if (ret || !container_holds_erofs(oo->source, cfg->offset)) {
			erofs_source_close(oo->source);
			oo->source = NULL;
			return ret ? ret : 1;
		}
	}
	ret = verity_open(vc, cfg, &oo->source, rep, carried);
	if (ret < 0 && ret != -EFSCORRUPTED) {
		erofs_source_close(oo->source);
		oo->source = NULL;
		return ret;
	}
	erofs_err_clear(&err);
	/* the image takes the source over, and closes it if it fails */
	size = erofs_source_size(oo->source);
	ret = erofs_image_open(img, oo, &err);
	if (ret < 0) {
		report_lib_error(rep, &loc, &err, ret);
		verity_offset_hint(vc, cfg, size, rep);
	}
	if (!ret)
		ret = superblock_damage(cfg, rep, img);
	return ret ? ret : verity_cover(vc, cfg, *img, rep);
}

/* IMAGE out of its container (container.h), opened as above. */
static int open_image(const struct fsck_cfg *cfg, struct report *rep,
		      struct erofs_open_opts *oo, struct erofs_image **img,
		      struct container_verity *carried, struct verity_check *vc)
{
	int ret = container_open(cfg, rep, &oo->source, carried);

	if (ret < 0)
		return ret;
	return open_image_source(cfg, rep, oo, img, carried, vc);
}

/*
 * --write-partitions=DIR: each partition of a super image that holds
 * bytes to DIR/NAME.img, as lpunpack writes them, or each partition of a
 * GPT disk to DIR/LABEL.img (partition_files.h says when DIR/partN.img
 * instead), and checked when it is EROFS. The table is read once. Every
 * file is made in DIR's descriptor, following nothing, and replaces
 * nothing without --overwrite.
 */
static void write_partitions(const struct fsck_cfg *cfg, struct report *rep,
			     const struct erofs_open_opts *oo,
			     struct run_result *res)
{
	struct partition_files pf;
	char *path;
	size_t i;
	int dfd;

	if (mkdir(cfg->write_partitions, 0777) && errno != EEXIST) {
		report_fatal(rep, "--write-partitions=%s: %s",
			     cfg->write_partitions, strerror(errno));
		return;
	}
	dfd = open(cfg->write_partitions, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		report_fatal(rep, "--write-partitions=%s: %s",
			     cfg->write_partitions, strerror(errno));
		return;
	}
	if (partition_files_open(&pf, cfg, rep))
		pf.n = 0;
	for (i = 0; i < pf.n && !rep->fatal && !interrupted(); i++) {
		struct fsck_cfg one = *cfg, own;
		struct erofs_open_opts o = *oo;
		struct erofs_image *img = NULL;
		struct verity_check vc = { 0 };

		if (asprintf(&path, "%s/%s", cfg->write_partitions,
			     pf.files[i].file) < 0) {
			report_nomem(rep, NULL);
			break;
		}
		one.write_image = path;
		one.write_dirfd = dfd;
		one.write_name = pf.files[i].file;
		if (!partition_files_source(&pf, i, rep, &o.source) &&
		    !open_image_source(&one, rep, &o, &img, NULL, &vc))
			check_image(unverifiable_outputs(&one, rep, &vc, &own),
				    rep, img, res, &vc);
		erofs_image_close(img);
		verity_close(&vc);
		free(path);
	}
	partition_files_close(&pf);
	close(dfd);
}

/* --list-partitions */
static void list_partitions(const struct fsck_cfg *cfg, struct report *rep)
{
	struct erofs_source *src;

	if (!container_open(cfg, rep, &src, NULL))
		container_list_partitions(cfg, rep, src);
	erofs_source_close(src);
}

/*
 * The threads allocate and free the same working set all run long (file
 * tasks, archive entries, files waiting in --tar's window), one thread
 * often freeing what another allocated. glibc gives a heap's free top
 * back to the kernel past 128 KiB, and serves large requests with mmap:
 * the pages come back as page faults, 110,000 of them at -j2 for an
 * archive of 10^6 small files, against 500 at -j1. Keep freed memory for
 * reuse instead: the peak stays what is in use at once, which the windows
 * bound. Buffers up to TAR_MEM_FILE (4 MiB) then come from the heap too.
 */
static void keep_freed_memory(void)
{
#if defined(HAVE_MALLOC_H) && defined(HAVE_MALLOPT)
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 8 << 20);
#endif
}

int main(int argc, char **argv)
{
	struct erofs_open_opts oo = { 0 };
	struct erofs_image *img = NULL;
	struct container_verity carried = { 0 };
	struct verity_check vc = { 0 };
	struct integrity integrity = { .root = NULL };
	struct run_result res = { 0 };
	struct timespec start;
	struct report rep;
	struct fsck_cfg cfg, own;
	int status, sig;

	clock_gettime(CLOCK_MONOTONIC, &start);
	stdout_check_init();
	keep_freed_memory();
	outfile_init();
	options_parse(&cfg, &select_rules, argc, argv);
	res.jobs = cfg.jobs ? cfg.jobs : default_jobs();
	/* a file past RLIMIT_FSIZE is a write error, not a signal */
	signal(SIGXFSZ, SIG_IGN);
	report_init(&rep, strcmp(cfg.image, "-") ? cfg.image : "standard input",
		    cfg.level);
	/* what "not completed" says was not: the output, not the check */
	if (cfg.extract_dir)
		rep.job = "extraction";
	else if (cfg.tar)
		rep.job = "archive";
	else if (cfg.write_image)
		rep.job = "--write-image";
	else if (cfg.ncats)
		rep.job = "--cat";
	else if (cfg.fs_config)
		rep.job = "--fs-config";
	else if (cfg.file_contexts)
		rep.job = "--file-contexts";
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
	erofs_set_stop_check(interrupted);

	oo.path = rep.image;
	oo.offset = cfg.offset;
	oo.devices = cfg.devices;
	oo.ndevices = cfg.ndevices;
	oo.no_sbcrc = cfg.no_sbcrc;
	oo.salvage = true;
	oo.frag_cache_budget = frag_cache_budget(res.jobs);
	if (cfg.list_partitions)
		list_partitions(&cfg, &rep);
	else if (cfg.write_partitions)
		write_partitions(&cfg, &rep, &oo, &res);
	else if (!open_image(&cfg, &rep, &oo, &img, &carried, &vc) &&
		 !interrupted()) {
		print_image_info(&rep, img);
		check_image(unverifiable_outputs(&cfg, &rep, &vc, &own), &rep,
			    img, &res, &vc);
	}
	if (img && res.walked && !rep.fatal && !interrupted())
		verdict_integrity(&cfg, &rep, img, &res, &vc, &carried,
				  &integrity);
	sig = interrupt_signal();
	if (sig)
		report_cancelled(&rep, "interrupted by %s",
				 interrupt_signal_name(sig));
	report_stdout(&rep);
	status = report_finish(&rep);
	/* --list-partitions --json printed the partitions instead */
	if (cfg.json && !cfg.list_partitions)
		status = write_json(&cfg, &rep, img, &res, &integrity,
				    seconds_since(&start), status);
	integrity_fini(&integrity);
	erofs_image_close(img);
	verity_close(&vc);
	erofs_source_close(carried.hash);
	cpu_share_fini(&res.cpu);
	report_fini(&rep);
	free(cfg.devices);
	for (unsigned int i = 0; i < cfg.ncats; i++)
		free((char *)cfg.cat_rels[i]);
	free(cfg.cats);
	free(cfg.cat_rels);
	select_rules_fini(&select_rules);
	inputs_fini();
	interrupt_restore();
	return status;
}
