#!/bin/bash
# SPDX-License-Identifier: MIT
#
# unsquashfs-bench.sh [OPTIONS]: extraction of one root filesystem packed
# four ways, by fsck.erofs from an EROFS image and by unsquashfs from the
# nearest SquashFS image, onto a tmpfs: wall time at -jN against -p N, run
# for run, the ratio ours/unsquashfs, and peak RSS. Prints figures and
# ratios; it never passes or fails. See bench/README.md.
#
# The pairings (EROFS by MKFS, mkfs.erofs 1.9.3; SquashFS by mksquashfs):
#   live     -zlzma,level=6 -C1048576 -Eall-fragments,fragdedupe=inode
#            against -comp xz -b 1M (live media as distributions pack them)
#   lzma64k  -zlzma,level=6 -C65536 -Efragments  against -comp xz -b 128K
#   zstd48   -zzstd -C65536 -E48bit               against -comp zstd -b 128K
#   lz4hc    -zlz4hc -C65536                      against -comp lz4 -Xhc -b 128K
set -uo pipefail
export LC_ALL=C

here=$(cd -- "$(dirname -- "$0")" && pwd)
top=$(dirname -- "$here")
median_of=$here/median-of

usage() {
	cat <<EOF
usage: $0 [OPTIONS]

Options (environment variable in brackets):
  --threads=LIST   thread counts, -jN against -p N (default 1,2) [THREADS]
  --runs=N         timed runs per row (default 5) [RUNS]
  --only=LIST      pairings, from: live,lzma64k,zstd48,lz4hc [ONLY]
  -h, --help       this text

Environment: FSCK (default \$top/fsck/fsck.erofs), MKFS (mkfs.erofs
1.9.3, default \$top/../shared/tools/erofs-utils-1.9.3/mkfs.erofs), WORK
(default /dev/shm/erofs-bench), ROOTFS (default WORK/rootfs: made by
debootstrap --variant=minbase bookworm when missing, as root), OUT (the
extraction directory, on a tmpfs: default /dev/shm/erofs-unsq-out).
EOF
	exit "${1:-2}"
}

die() {
	echo "$0: $*" >&2
	exit 1
}

THREADS=${THREADS:-1,2}
RUNS=${RUNS:-5}
ONLY=${ONLY:-live,lzma64k,zstd48,lz4hc}
for arg; do
	case $arg in
	--threads=*) THREADS=${arg#*=} ;;
	--runs=*) RUNS=${arg#*=} ;;
	--only=*) ONLY=${arg#*=} ;;
	-h | --help) usage 0 ;;
	*) usage ;;
	esac
done

FSCK=${FSCK:-$top/fsck/fsck.erofs}
MKFS=${MKFS:-$top/../shared/tools/erofs-utils-1.9.3/mkfs.erofs}
WORK=${WORK:-/dev/shm/erofs-bench}
ROOTFS=${ROOTFS:-$WORK/rootfs}
OUT=${OUT:-/dev/shm/erofs-unsq-out}
[ -x "$FSCK" ] || die "no fsck.erofs at $FSCK (make first)"
[ -x "$MKFS" ] || die "no mkfs.erofs 1.9.3 at $MKFS (set MKFS)"
command -v mksquashfs >/dev/null && command -v unsquashfs >/dev/null ||
	die "no mksquashfs/unsquashfs (apt-get install squashfs-tools)"
[ -x /usr/bin/time ] || die "no /usr/bin/time (apt-get install time)"
mkdir -p "$WORK" || die "cannot make $WORK"
if [ ! -d "$ROOTFS" ]; then
	[ "$(id -u)" = 0 ] && command -v debootstrap >/dev/null ||
		die "no root filesystem at $ROOTFS (debootstrap, as root)"
	debootstrap --variant=minbase bookworm "$ROOTFS.tmp" \
		>"$WORK/debootstrap.log" 2>&1 && mv "$ROOTFS.tmp" "$ROOTFS" ||
		die "debootstrap failed: $WORK/debootstrap.log"
fi

# pairing NAME: the mkfs.erofs and mksquashfs options of a pairing
erofs_opts() {
	case $1 in
	live) echo "-zlzma,level=6 -C1048576 -Eall-fragments,fragdedupe=inode" ;;
	lzma64k) echo "-zlzma,level=6 -C65536 -Efragments" ;;
	zstd48) echo "-zzstd -C65536 -E48bit" ;;
	lz4hc) echo "-zlz4hc -C65536" ;;
	esac
}

squashfs_opts() {
	case $1 in
	live) echo "-comp xz -b 1M" ;;
	lzma64k) echo "-comp xz -b 128K" ;;
	zstd48) echo "-comp zstd -b 128K" ;;
	lz4hc) echo "-comp lz4 -Xhc -b 128K" ;;
	esac
}

# build NAME: both images, once (kept in WORK, keyed by the options)
build() {
	local e=$WORK/unsq-$1.erofs s=$WORK/unsq-$1.sqfs
	if [ ! -s "$e" ]; then
		# shellcheck disable=SC2046
		"$MKFS" $(erofs_opts "$1") -T1700000000 --quiet "$e.tmp" \
			"$ROOTFS" >/dev/null && mv "$e.tmp" "$e" ||
			die "mkfs.erofs failed for $1"
	fi
	if [ ! -s "$s" ]; then
		# shellcheck disable=SC2046
		mksquashfs "$ROOTFS" "$s.tmp" $(squashfs_opts "$1") -noappend \
			-quiet -no-progress >/dev/null && mv "$s.tmp" "$s" ||
			die "mksquashfs failed for $1"
	fi
}

# timed OUTFILE CMD...: run CMD onto an empty OUT, append "secs rss_kib"
timed() {
	local out=$1
	shift
	rm -rf "$OUT"
	/usr/bin/time -a -o "$out" -f '%e %M' "$@" >/dev/null 2>&1
	rm -rf "$OUT"
}

col() { awk -v c="$1" '{ print $c }' "$2"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

printf '%-8s %3s %10s %10s %6s %12s %12s\n' pairing j "ours s" \
	"unsq s" ours/u "ours RSS MiB" "unsq RSS MiB"
IFS=, read -r -a pairings <<<"$ONLY"
IFS=, read -r -a threads <<<"$THREADS"
for p in "${pairings[@]}"; do
	[ -n "$(erofs_opts "$p")" ] || die "unknown pairing $p"
	build "$p"
	for j in "${threads[@]}"; do
		ours=$(mktemp) unsq=$(mktemp)
		for ((r = 0; r < RUNS; r++)); do
			timed "$ours" "$FSCK" -j"$j" --extract="$OUT" \
				"$WORK/unsq-$p.erofs"
			timed "$unsq" unsquashfs -p "$j" -q -d "$OUT" \
				"$WORK/unsq-$p.sqfs"
		done
		a=$(col 1 "$ours" | "$median_of") b=$(col 1 "$unsq" | "$median_of")
		ra=$(col 2 "$ours" | "$median_of") rb=$(col 2 "$unsq" | "$median_of")
		printf '%-8s %3s %10.3f %10.3f %6s %12.0f %12.0f\n' "$p" "$j" \
			"$a" "$b" "$(ratio "$a" "$b")" "$(ratio "$ra" 1024)" \
			"$(ratio "$rb" 1024)"
		rm -f "$ours" "$unsq"
	done
done
