#!/bin/bash
# SPDX-License-Identifier: MIT
#
# compress-bench.sh: a compressed archive written by fsck.erofs itself
# against the plain archive piped to the compressor's own tool, both with
# two threads: "fsck.erofs -j2 --tar=X.tar.zst" against "fsck.erofs -j2
# --tar=- | zstd -T2", and the same for xz (-T2), on an lz4hc image of
# a tree of bench/mktree.sh (Debian's mkfs.erofs). Prints the median
# wall times, ours over the pipe's, and each archive's size. Prints
# figures; never passes or fails.
#
# Environment: FSCK (default $top/fsck/fsck.erofs), MKFS (default
# mkfs.erofs), WORK (default /dev/shm/erofs-compress-bench), TREE_MIB
# (default 300), RUNS (default 3), CODECS (default "zstd xz").
set -uo pipefail
export LC_ALL=C

here=$(cd -- "$(dirname -- "$0")" && pwd)
top=$(dirname -- "$here")
FSCK=${FSCK:-$top/fsck/fsck.erofs}
MKFS=${MKFS:-mkfs.erofs}
WORK=${WORK:-/dev/shm/erofs-compress-bench}
TREE_MIB=${TREE_MIB:-300}
RUNS=${RUNS:-3}
CODECS=${CODECS:-zstd xz}

die() {
	echo "$0: $*" >&2
	exit 1
}

[ -x "$FSCK" ] || die "no fsck.erofs at $FSCK: build it or set FSCK"
command -v "$MKFS" >/dev/null || die "no $MKFS (Debian package erofs-utils)"
mkdir -p "$WORK" || die "cannot make $WORK"
img=$WORK/tree.erofs
if [ ! -f "$img" ]; then
	[ -d "$WORK/tree" ] || "$here/mktree.sh" "$WORK/tree" "$TREE_MIB" >/dev/null ||
		die "mktree.sh failed"
	"$MKFS" -zlz4hc "$img" "$WORK/tree" >/dev/null 2>&1 || die "mkfs failed"
fi

# seconds CMD...: the wall time of one run of CMD, in seconds
seconds() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

ours() { "$FSCK" -j2 --tar="$WORK/ours.tar.$1" "$img"; }
piped() {
	"$FSCK" -j2 --tar=- "$img" | "$1" -T2 -q -c >"$WORK/piped.tar.$2"
}

printf '%-5s %12s %12s %10s %14s %14s\n' codec ours-s pipe-s ours/pipe \
	ours-bytes pipe-bytes
for codec in $CODECS; do
	case $codec in
	zstd) suffix=zst ;;
	xz) suffix=xz ;;
	*) die "no such codec: $codec" ;;
	esac
	command -v "$codec" >/dev/null || die "no $codec"
	a=() b=()
	for _ in $(seq "$RUNS"); do
		a+=("$(seconds ours "$suffix")")
		b+=("$(seconds piped "$codec" "$suffix")")
	done
	ma=$(printf '%s\n' "${a[@]}" | "$here/median-of")
	mb=$(printf '%s\n' "${b[@]}" | "$here/median-of")
	printf '%-5s %12.3f %12.3f %10.2f %14d %14d\n' "$codec" "$ma" "$mb" \
		"$(echo "$ma / $mb" | bc -l)" \
		"$(stat -c %s "$WORK/ours.tar.$suffix")" \
		"$(stat -c %s "$WORK/piped.tar.$suffix")"
done
