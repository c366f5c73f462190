// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the whole of fsck.erofs on an image made of the fuzzer's
 * bytes. fsck's sources are compiled with -Dmain=fsck_main, so the target
 * runs exactly what the command runs: a full check with every file decoded
 * (--extract), the manifest (every xattr, digests) and the compression ratio.
 *
 * The image goes to a memfd, opened by path through /proc/self/fd. The
 * superblock checksum is not verified (--no-sbcrc): mutated images would
 * otherwise stop there.
 *
 * The manifest goes to /dev/null unless FUZZ_VERBOSE is set; run libFuzzer
 * with -close_fd_mask=2 to silence fsck's messages as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int fsck_main(int argc, char **argv);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int image_fd = -1;
static char image_path[64];

static void die(const char *what)
{
	perror(what);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null_fd;

	image_fd = memfd_create("fuzz-image", MFD_CLOEXEC);
	if (image_fd < 0)
		die("memfd_create");
	snprintf(image_path, sizeof(image_path), "/proc/self/fd/%d",
		 image_fd);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = {
		"fsck.erofs", "--no-sbcrc", "--extract", "--manifest",
		"--xattr-inode-digest", "-p", image_path, NULL,
	};

	set_image(data, size);
	optind = 0;	/* glibc: reinitialise getopt for the next run */
	fsck_main((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv);
	fflush(stdout);
	return 0;
}
