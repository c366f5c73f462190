// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the whole of fsck.erofs on an image made of the fuzzer's
 * bytes. fsck's main.c is compiled again with -Dmain=fsck_main
 * (fsck_main.c), so the target runs exactly what the command runs.
 *
 * The image goes to a memfd, opened by path through /proc/self/fd. The
 * superblock checksum is not verified (--no-sbcrc): mutated images would
 * otherwise stop there. Every run decodes all file data; where fsck can
 * extract to a directory (fsck/extract.h exists), it extracts into a
 * temporary directory, emptied after each input and removed at exit.
 *
 * Byte 0 of an image is ignored by the format (format.md, "Superblock"), so it
 * chooses the options; all bits clear, the seeds' case, is the most thorough
 * run of the checks:
 *   bit 0  decode only (--extract) instead of --extract=DIR --xattrs
 *   bit 4  the image again as its first extra device (--device)
 *   bit 5  debugging messages (-d9)
 *   bits 6-7  which other outputs (output.h) the run has:
 *     0  bit 1 no --manifest, bit 2 no --xattr-inode-digest, bit 3 no -p
 *     1  --tar=FILE --sparse in the format bits 1-3 choose (pax, gnutar,
 *        ustar, cpio, newc, mtree, zip, v7tar), --fs-config=FILE and
 *        --file-contexts=FILE
 *     2  --list with a selection: --include and --exclude patterns, bits
 *        1-3 choosing which (one of them with a leading "./" or a '/')
 *     3  --compare=DIR --xattrs against a small fixed tree made at start
 *        (a file, a hard link, a symlink, a directory), bits 1-3 choosing
 *        -j1/-j2 and a selection
 *
 * An input that holds the magic of Android super metadata in its first
 * 64 KiB (a super image, raw or sparse: docs/android.md) is read as one:
 * with bit 1 set, --list-partitions alone; else the run above with
 * --partition=system. Bit 2 adds --slot=b. Sparse images need nothing:
 * their magic is recognised. An input with "EFI PART" at byte 512 or
 * 4096 (a GPT disk) is read as one: with bit 1 set, --list-partitions
 * alone; else the run above on its EROFS root partition, found as
 * without --partition, with the dm-verity tree of its root-verity
 * partition checked (the seed's UUIDs make its root hash), every read
 * through it, and with bit 2 set --require-verity. An input
 * that ends with an AVB footer has the tree its vbmeta describes checked
 * the same way: the footer, the vbmeta and the tree are the fuzzer's
 * bytes too.
 *
 * The manifest goes to /dev/null unless FUZZ_VERBOSE is set; run libFuzzer
 * with -close_fd_mask=2 to silence fsck's messages as well.
 *
 * A run lasts at most FUZZ_RUN_SECONDS: a timer then sends SIGHUP, which
 * fsck handles as a user's signal (interrupt.h), so the run must stop at
 * once, as tests/hardening/interrupt.sh requires. A small image may declare
 * a file of 2^64 bytes, one hole, whose digest takes days of hashing zeros:
 * that is the work asked for, not a hang, unless the signal does not stop
 * it. Between runs SIGHUP is caught and ignored, should the timer fire
 * late.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <ftw.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if __has_include("extract/extract.h")
#define FUZZ_EXTRACT_DIR 1
#else
#define FUZZ_EXTRACT_DIR 0
#endif

#define FUZZ_RUN_SECONDS 2

int fsck_main(int argc, char **argv);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int image_fd = -1;
static char image_path[64];
static char extract_dir[4096];
static char extract_opt[4096 + 16];
static char device_opt[64 + 16];
static char tar_opt[4096 + 16];
static char fs_config_opt[4096 + 32];
static char file_contexts_opt[4096 + 32];
static char compare_dir[4096];
static char compare_opt[4096 + 16];

static const char *const tar_formats[] = {
	"--format=pax",	  "--format=gnutar", "--format=ustar",
	"--format=cpio",  "--format=newc",   "--format=mtree",
	"--format=zip",	  "--format=v7tar",
};

static const char *const patterns[][2] = {
	{ "--include=*[a-m]*", "--exclude=*z*" },
	{ "--include=./a", "--exclude=b/*" },
	{ "--include=*/", "--exclude=*.[ch]" },
	{ "--include=/?", "--exclude=[!a]*" },
};

static void die(const char *what)
{
	perror(what);
	abort();
}

/* nftw callbacks: make every directory writable, then remove entries */
static int make_writable(const char *path, const struct stat *st, int flag,
			 struct FTW *ftw)
{
	if (flag == FTW_D)
		chmod(path, 0700);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	if (ftw->level && remove(path) < 0 && errno != ENOENT)
		die(path);
	return 0;
}

/* Empty the extraction directory (and remove it too when asked). */
static void clean_extract_dir(int remove_dir)
{
	if (!extract_dir[0])
		return;
	nftw(extract_dir, make_writable, 16, FTW_PHYS);
	if (nftw(extract_dir, remove_entry, 16, FTW_PHYS | FTW_DEPTH) < 0 &&
	    errno != ENOENT)
		die(extract_dir);
	if (remove_dir && rmdir(extract_dir) < 0)
		perror(extract_dir);
}

static void remove_extract_dir(void)
{
	clean_extract_dir(1);
}

/* The tree --compare reads: a file, a hard link, a symlink, a directory. */
static void make_compare_dir(void)
{
	char path[4096 + 16];
	FILE *f;

	snprintf(compare_dir, sizeof(compare_dir), "%s.compare", extract_dir);
	if (mkdir(compare_dir, 0755) < 0)
		die(compare_dir);
	snprintf(path, sizeof(path), "%s/a", compare_dir);
	f = fopen(path, "w");
	if (!f || fputs("fuzz\n", f) < 0 || fclose(f))
		die(path);
	snprintf(path, sizeof(path), "%s/b", compare_dir);
	if (mkdir(path, 0755) < 0)
		die(path);
	snprintf(path, sizeof(path), "%s/b/link", compare_dir);
	snprintf(compare_opt, sizeof(compare_opt), "%s/a", compare_dir);
	if (link(compare_opt, path) < 0)
		die(path);
	snprintf(path, sizeof(path), "%s/sym", compare_dir);
	if (symlink("b/link", path) < 0)
		die(path);
	snprintf(compare_opt, sizeof(compare_opt), "--compare=%s",
		 compare_dir);
}

static void remove_compare_dir(void)
{
	char path[4096 + 16];
	static const char *const names[] = { "sym", "b/link", "b", "a" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", compare_dir, names[i]);
		remove(path);
	}
	rmdir(compare_dir);
}

static void make_extract_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(extract_dir, sizeof(extract_dir), "%s/fuzz_fsck.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(extract_dir))
		die("mkdtemp");
	snprintf(extract_opt, sizeof(extract_opt), "--extract=%s/out",
		 extract_dir);
	snprintf(tar_opt, sizeof(tar_opt), "--tar=%s/archive", extract_dir);
	snprintf(fs_config_opt, sizeof(fs_config_opt), "--fs-config=%s/fsc",
		 extract_dir);
	snprintf(file_contexts_opt, sizeof(file_contexts_opt),
		 "--file-contexts=%s/fc", extract_dir);
	atexit(remove_extract_dir);
	make_compare_dir();
	atexit(remove_compare_dir);
}

static timer_t run_timer;

static void between_runs(int sig)
{
	(void)sig;
}

/* The timer that interrupts a run, and SIGHUP caught between runs. */
static void make_run_timer(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGHUP };
	struct sigaction sa = { .sa_handler = between_runs };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGHUP, &sa, NULL) ||
	    timer_create(CLOCK_MONOTONIC, &ev, &run_timer))
		die("run timer");
}

static void arm_run_timer(time_t seconds)
{
	struct itimerspec its = { .it_value = { .tv_sec = seconds } };

	if (timer_settime(run_timer, 0, &its, NULL))
		die("timer_settime");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null_fd;

	image_fd = memfd_create("fuzz-image", MFD_CLOEXEC);
	if (image_fd < 0)
		die("memfd_create");
	snprintf(image_path, sizeof(image_path), "/proc/self/fd/%d",
		 image_fd);
	snprintf(device_opt, sizeof(device_opt), "--device=%s", image_path);
	make_run_timer();
	if (FUZZ_EXTRACT_DIR)
		make_extract_dir();
	if (getenv("FUZZ_VERBOSE"))
		return 0;
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0)
		die("/dev/null");
	close(null_fd);
	return 0;
}

static void set_image(const uint8_t *data, size_t size)
{
	size_t done = 0;
	ssize_t n;

	if (ftruncate(image_fd, 0) < 0)
		die("ftruncate");
	while (done < size) {
		n = pwrite(image_fd, data + done, size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("pwrite");
		done += (size_t)n;
	}
}

static int run_fsck(const uint8_t *data, size_t size, int argc, char **argv)
{
	set_image(data, size);
	optind = 0;	/* glibc: reinitialise getopt for the next run */
	arm_run_timer(FUZZ_RUN_SECONDS);
	fsck_main(argc, argv);
	arm_run_timer(0);
	fflush(stdout);
	clean_extract_dir(0);
	return 0;
}

/* Bits 6-7 of byte 0: the outputs beyond the checks (the header). */
static int other_outputs(unsigned int opts, char **argv, int argc)
{
	unsigned int sub = (opts >> 1) & 7;

	switch (opts >> 6) {
	case 1:
		argv[argc++] = tar_opt;
		argv[argc++] = (char *)tar_formats[sub];
		argv[argc++] = "--sparse";
		argv[argc++] = fs_config_opt;
		argv[argc++] = file_contexts_opt;
		break;
	case 2:
		argv[argc++] = "--list";
		argv[argc++] = (char *)patterns[sub & 3][0];
		if (sub & 4)
			argv[argc++] = (char *)patterns[sub & 3][1];
		break;
	default:
		argv[argc++] = compare_opt;
		argv[argc++] = "--xattrs";
		argv[argc++] = sub & 1 ? "-j2" : "-j1";
		if (sub & 2)
			argv[argc++] = (char *)patterns[sub >> 2][0];
		break;
	}
	return argc;
}

/* Does the input look like a super image (the geometry's magic)? */
static int holds_super(const uint8_t *data, size_t size)
{
	static const uint8_t magic[4] = { 0x67, 0x44, 0x6c, 0x61 };

	return memmem(data, size < 65536 ? size : 65536, magic,
		      sizeof(magic)) != NULL;
}

/* Does the input look like a GPT disk (a header's signature)? */
static int holds_gpt(const uint8_t *data, size_t size)
{
	return (size >= 520 && !memcmp(data + 512, "EFI PART", 8)) ||
	       (size >= 4104 && !memcmp(data + 4096, "EFI PART", 8));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int opts = size ? data[0] : 0;
	int gpt = holds_gpt(data, size);
	int super = holds_super(data, size) || gpt;
	char *argv[24];
	int argc = 0;

	argv[argc++] = "fsck.erofs";
	if (super && !gpt && (opts & 4))
		argv[argc++] = "--slot=b";
	if (super && (opts & 2)) {
		argv[argc++] = "--list-partitions";
		argv[argc++] = image_path;
		argv[argc] = NULL;
		return run_fsck(data, size, argc, argv);
	}
	if (super && !gpt)
		argv[argc++] = "--partition=system";
	argv[argc++] = "--no-sbcrc";
	if (FUZZ_EXTRACT_DIR && !(opts & 1)) {
		argv[argc++] = extract_opt;
		argv[argc++] = "--xattrs";
		argv[argc++] = "-j1";
	} else {
		argv[argc++] = "--extract";
	}
	if (FUZZ_EXTRACT_DIR && opts >> 6) {
		argc = other_outputs(opts, argv, argc);
	} else {
		if (!(opts & 2))
			argv[argc++] = "--manifest";
		if (!(opts & 4))
			argv[argc++] = "--xattr-inode-digest";
		if (!(opts & 8))
			argv[argc++] = "-p";
	}
	if (gpt && (opts & 4))
		argv[argc++] = "--require-verity";
	if (opts & 16)
		argv[argc++] = device_opt;
	if (opts & 32)
		argv[argc++] = "-d9";
	argv[argc++] = image_path;
	argv[argc] = NULL;
	return run_fsck(data, size, argc, argv);
}
