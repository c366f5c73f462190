// SPDX-License-Identifier: MIT
/* fsck.erofs --help and -V, and the one way a usage error is told. */
#ifdef HAVE_LIBARCHIVE
#include <archive.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "erofs/decompress.h"
#include "erofs/format.h"
#include "fsck.h"
#include "options.h"
#include "options_internal.h"
#include "util/report.h"

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
	"  -a, -A, -y, -n, -f     accepted for fsck(8); no effect\n"
	"  -j, --jobs=N           decode on N threads at once (default: the CPUs\n"
	"                         to run on)\n"
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
	"                         mkfs.erofs --xattr-inode-digest (checked\n"
	"                         whenever data is decoded)\n"
	"  --no-xattr-inode-digest  do not check them\n"
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

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" PROG " --help' for more information.\n", stderr);
	exit(FSCK_EXIT_USAGE);
}

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

void options_print_version(void)
{
	printf(PROG " (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
	print_codecs();
}

void options_print_help(void)
{
	fputs(usage_text, stdout);
	print_codecs();
}
