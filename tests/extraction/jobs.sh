#!/bin/bash
# jobs.sh: the number of threads changes nothing but the speed (TAP).
#
# For every stored test image, for damaged copies of a few of them (bytes
# of the second half overwritten with a fixed pattern), and for a
# generated image of two large files damaged in several places, runs
# "fsck.erofs -jN --extract=DIR IMAGE", "fsck.erofs -jN IMAGE" and
# "fsck.erofs -jN --manifest --xattr-inode-digest IMAGE" (content hashed
# in order: split files go through the ordered window) with N = 1, 2 and
# 8, and requires, against -j1: the same exit status, the same standard
# output (the manifest) and standard error (problems in the same order),
# and the same extracted tree (types, modes, sizes, times, link counts,
# symlink targets and file contents).
#
# EROFS_FSCK_SYNC_NS=0 makes the threads start on these small images: at
# -j1 with --extract=DIR, the two workers that take turns to decode. The
# reference is -j1 with no thread at all (EROFS_FSCK_SYNC_NS at its
# largest: no image is worth one). With -j2 and -j8, EROFS_FSCK_SPLIT=1
# splits every decoded file into pieces of one extent each, so that the
# split path, its first-failure rule and its commit by the last piece are
# compared with the whole-file path of -j1 (which never splits). The
# generated image is also run with the default pieces and with pieces of
# about one pcluster.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

data=$srcdir/data
export EROFS_FSCK_SYNC_NS=0
no_threads=18446744073709551615
make_scratch
# extraction is much faster on a tmpfs than on the root filesystem
xroot=$(mktemp -d /dev/shm/erofs-jobs.XXXXXX 2>/dev/null) || xroot=$scratch
trap 'rm -rf "$scratch" "$xroot"' EXIT
damaged="lz4hc-default.erofs lzma-default.erofs deflate-default.erofs
zstd-c64k.erofs lz4hc-fragments.erofs deflate-48bit-c32k.erofs"

# damage SRC DEST FROM STEP: overwrite 64 bytes every STEP bytes from the
# fraction FROM of the image on
damage()
{
	"$PYTHON3" -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
step = int(sys.argv[4])
for off in range(int(len(b) * float(sys.argv[3])), len(b) - 64, step):
	b[off:off + 64] = bytes((off * 7 + i * 13) & 0xff for i in range(64))
open(sys.argv[2], "wb").write(b)' "$@"
}

# tree DIR: what an extraction made, in one text (no Python: it is fast)
tree()
{
	[ -d "$1" ] || { echo "no tree"; return; }
	(cd "$1" && find . -printf '%p %y %m %U %G %s %T@ %n %l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z |
		xargs -0 -r sha256sum)
}

# run_jobs TAG LABEL N OPTION...: one run with -jN into $scratch/TAG.LABEL.*
run_jobs()
{
	local tag=$1 label=$2 j=$3 dir=$xroot/tree
	shift 3
	rm -rf "$dir"
	run_fsck "$scratch/$tag.$label.out" "$scratch/$tag.$label.err" -j"$j" \
		--extract="$dir" "$@"
	echo "$?" >"$scratch/$tag.$label.rc"
	tree "$dir" >"$scratch/$tag.$label.tree" 2>&1
	rm -rf "$dir"
	run_fsck "$scratch/$tag.$label.cout" "$scratch/$tag.$label.cerr" \
		-j"$j" "$@"
	echo "$?" >>"$scratch/$tag.$label.rc"
	run_fsck "$scratch/$tag.$label.mout" "$scratch/$tag.$label.merr" \
		-j"$j" --manifest --xattr-inode-digest "$@"
	echo "$?" >>"$scratch/$tag.$label.rc"
}

# same TAG LABEL: does run LABEL match -j1 inline? Names the first difference.
same()
{
	local f
	for f in rc out err tree cout cerr mout merr; do
		if ! cmp -s "$scratch/$1.1.$f" "$scratch/$1.$2.$f"; then
			why="$2: $f differs from -j1"
			diff "$scratch/$1.1.$f" "$scratch/$1.$2.$f" | show /dev/stdin
			return 1
		fi
	done
	if has_sanitizer_report "$scratch/$1.$2.err" "$scratch/$1.$2.cerr" \
		"$scratch/$1.$2.merr"; then
		why="$2: sanitizer report"
		return 1
	fi
}

# check TAG SPLIT OPTION...: -j1 inline and with the pair of workers that
# take turns to decode, -j2 and -j8 split by SPLIT
check()
{
	local tag=$1 split=$2 j ok=1
	shift 2
	EROFS_FSCK_SYNC_NS=$no_threads run_jobs "$tag" 1 1 "$@"
	run_jobs "$tag" pair 1 "$@"
	for j in 2 8; do
		EROFS_FSCK_SPLIT=$split run_jobs "$tag" "-j$j" "$j" "$@"
	done
	for j in pair -j2 -j8; do
		same "$tag" "$j" || { ok=0; break; }
	done
	if [ "$ok" = 1 ] && [ -n "${problems:-}" ] &&
	   [ "$(grep ': nid ' "$scratch/$tag.1.err" | grep -vc ': warning: ')" != "$problems" ]; then
		why="-j1: not $problems problems"
		show "$scratch/$tag.1.err"
		ok=0
	fi
	if [ "$ok" = 1 ]; then
		tap_ok "$tag: -j1 inline and paired, -j2, -j8 agree (exit" \
			"$(tr '\n' ' ' <"$scratch/$tag.1.rc"))"
	else
		tap_not_ok "$tag: $why" ""
	fi
}

# bigtree DIR: two large files of words, 8 and 4 MiB, compressible 3:1
bigtree()
{
	"$PYTHON3" -c 'import os, random, sys
rnd = random.Random(7)
words = [bytes(rnd.choices(b"abcdefghijklmnopqrstuvwxyz", k=rnd.randint(2, 9)))
	 for _ in range(4096)]
os.makedirs(sys.argv[1])
for name, mib in (("big-a.bin", 8), ("big-b.bin", 4)):
	out = bytearray()
	while len(out) < mib << 20:
		out += b" ".join(rnd.choices(words, k=4096)) + b"\n"
	open(os.path.join(sys.argv[1], name), "wb").write(out[:mib << 20])' "$1"
}

images=()
while read -r name manifest extra; do
	case $name in ''|'#'*) continue ;; esac
	images+=("$name|$extra")
done <"$data/index"
set -- $damaged
tap_plan $((${#images[@]} + $# + 12))

for entry in "${images[@]}"; do
	IFS='|' read -r name extra <<<"$entry"
	resolve "$name" || { echo "Bail out! cannot unpack $name"; exit 0; }
	image=$path
	# shellcheck disable=SC2086
	image_options $extra || exit 99
	check "$name" 1 "${opts[@]}" "$image"
done
for name in $damaged; do
	resolve "$name" || { echo "Bail out! cannot unpack $name"; exit 0; }
	damage "$path" "$scratch/damaged-$name" 0.5 4096 || exit 99
	check "damaged-$name" 1 "$scratch/damaged-$name"
	rm -f "$scratch/damaged-$name"
done

# A file whose data lies whole in its inode's block is checked on the
# walker (-d7 counts them): handing it over costs more than its work. Not
# when its content is hashed (--manifest): then only empty files are, and
# not for an output that opens a file on disk for each file (--extract=DIR).
resolve plain.erofs || { echo "Bail out! cannot unpack plain.erofs"; exit 0; }
err=$scratch/walker.err
walker_files() {
	sed -n 's/.*checked on the walker: \([0-9]*\)$/\1/p' "$err"
}
run_fsck /dev/null "$err" -j2 -d7 --tar=/dev/null "$path"
here=$(walker_files)
others=$(sed -n 's/.* directories, \([0-9]*\) other inodes.*/\1/p' "$err")
if [ -n "$here" ] && [ -n "$others" ] && [ "$here" -gt 0 ] &&
	[ "$here" -lt "$others" ]; then
	tap_ok "-j2 --tar: $here small files of $others inodes checked on the walker"
else
	tap_not_ok "-j2 --tar: no small file checked on the walker, or all"
fi
run_fsck "$scratch/walker.mf" "$err" -j2 -d7 --manifest "$path"
hashed=$(walker_files)
empty=$(awk '$2 == "f" && $6 == "0"' "$scratch/walker.mf" | wc -l)
if grep -q 'other inodes' "$err" && [ "${hashed:-0}" -le "$empty" ] &&
	[ "${hashed:-0}" -lt "${here:-0}" ]; then
	tap_ok "-j2 --manifest: ${hashed:-0} files on the walker, of $empty empty"
else
	tap_not_ok "-j2 --manifest: hashed files checked on the walker" "$err"
fi
run_fsck /dev/null "$err" -j2 -d7 --extract="$xroot/walker" "$path"
if grep -q 'checked on the walker' "$err" || ! grep -q 'other inodes' "$err"; then
	tap_not_ok "-j2 --extract=DIR: files checked on the walker"
else
	tap_ok "-j2 --extract=DIR: every file handed to a worker"
fi
rm -rf "$xroot/walker"

# -j1 decodes on one thread; extracting, two workers take turns at it, so
# that one writes while the other decodes: never two decoding at once.
resolve lzma-default.erofs || { echo "Bail out! cannot unpack lzma-default.erofs"; exit 0; }
run_fsck /dev/null "$err" -j1 -d7 --extract="$xroot/pair" "$path"
if grep -q -- '-j1: 2 worker threads, 1 decoding at once' "$err" &&
	grep -q 'threads decoding at once: at most 1$' "$err" &&
	grep -q 'CPU time: walker [0-9.]* s, workers [0-9.]*, [0-9.]* s' "$err"; then
	tap_ok "-j1 --extract=DIR: two workers, one decoding at a time"
else
	tap_not_ok "-j1 --extract=DIR: not two workers taking turns to decode" \
		"$err"
fi
rm -rf "$xroot/pair"
run_fsck /dev/null "$err" -j2 -d7 --extract="$xroot/pair" "$path"
if grep -q -- '-j2: 2 worker threads (CPUs' "$err" &&
	! grep -q 'decoding at once' "$err"; then
	tap_ok "-j2 --extract=DIR: two workers, both decoding"
else
	tap_not_ok "-j2 --extract=DIR: decoders limited" "$err"
fi
rm -rf "$xroot/pair"

# -d3 shows each role's CPU time and the walker's share: one figure a
# worker, none without workers.
for j in 1 2; do
	run_fsck /dev/null "$err" -j$j -d3 --extract "$path"
	line=$(grep 'CPU time: walker' "$err")
	if [ $j = 1 ]; then
		want='CPU time: walker [0-9.]* s, no workers; the walker.s share 100\.0%$'
	else
		want='CPU time: walker [0-9.]* s, workers [0-9.]*, [0-9.]* s; the walker.s share [0-9.]*%$'
	fi
	if grep -q "$want" <<<"$line"; then
		tap_ok "-j$j -d3: $line"
	else
		tap_not_ok "-j$j -d3: CPU times, got: ${line:-nothing}" /dev/null
	fi
done

# Two large lz4hc files (8 and 4 MiB, about 7 MiB stored), a few pclusters
# damaged in each: several pieces of a file fail, and the file reports
# only its first bad pcluster (one problem per file), whichever piece
# fails first in time.
big=$scratch/big.erofs
if [ ! -x "$mkfs" ]; then
	for what in "undamaged, default pieces" "damaged, default pieces" \
		"damaged, pieces of one pcluster" "one bad pcluster per piece" \
		"one bad pcluster per piece, repeated"; do
		tap_skip "big files, $what" "no mkfs.erofs"
	done
	exit 0
fi
bigtree "$scratch/bigtree" || exit 99
"$mkfs" -zlz4hc -C65536 -T1700000000 --all-root --quiet "$big" \
	"$scratch/bigtree" >/dev/null || exit 99
rm -rf "$scratch/bigtree"
check "big files, undamaged, default pieces" "" "$big"
# pieces of the default size hold several bad pclusters of each file
damage "$big" "$scratch/big-bad.erofs" 0.2 700000 || exit 99
problems=2
check "big files, damaged, default pieces" "" "$scratch/big-bad.erofs"
check "big files, damaged, pieces of one pcluster" 50000 \
	"$scratch/big-bad.erofs"
damage "$big" "$scratch/big-bad.erofs" 0.05 65536 || exit 99
check "big files, one bad pcluster per piece" 50000 "$scratch/big-bad.erofs"

# Which piece fails first in time varies from run to run: repeat the
# decoding without writing (fast) against the -j1 report.
tag="big files, one bad pcluster per piece"
ok=1
run_fsck "$scratch/r1.out" "$scratch/r1.err" -j1 --extract \
	"$scratch/big-bad.erofs"
[ "$?" = 4 ] || { ok=0; show "$scratch/r1.err"; }
for r in 1 2 3 4 5 6; do
	for j in 2 8; do
		EROFS_FSCK_SPLIT=50000 run_fsck "$scratch/r.out" "$scratch/r.err" \
			-j"$j" --extract "$scratch/big-bad.erofs"
		echo "$?" >"$scratch/r.rc"
		if ! cmp -s "$scratch/r1.err" "$scratch/r.err" ||
		   [ "$(cat "$scratch/r.rc")" != 4 ]; then
			diff "$scratch/r1.err" "$scratch/r.err" | show /dev/stdin
			ok=0
		fi
	done
done
if [ "$ok" = 1 ]; then
	tap_ok "$tag: -j2 and -j8 --extract, 6 runs each, report as -j1"
else
	tap_not_ok "$tag: a -j2 or -j8 --extract run differs from -j1" ""
fi
