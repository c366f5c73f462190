#!/bin/bash
# SPDX-License-Identifier: MIT
#
# verity-bench.sh [RUNS]: --verity against veritysetup verify, and what it
# adds to an extraction. Prints figures and ratios; it never passes or
# fails. See bench/README.md.
#
# On an uncompressed image of a Debian root filesystem (ROOTFS, made by
# debootstrap when missing, as unsquashfs-bench.sh makes it) and its tree
# (veritysetup format, sha256, 4 KiB blocks): veritysetup verify, ours at
# -j1 and -j2 (a check: mapping only, so the hashing is the work), the
# ratios. On the live-media image of the same tree (lzma, 1 MiB
# pclusters, all fragments) and its tree: --extract -j2 without and with
# --verity, the ratio.
set -uo pipefail
export LC_ALL=C

here=$(cd -- "$(dirname -- "$0")" && pwd)
top=$(dirname -- "$here")
median_of=$here/median-of
RUNS=${1:-5}
FSCK=${FSCK:-$top/fsck/fsck.erofs}
MKFS=${MKFS:-$top/../shared/tools/erofs-utils-1.9.3/mkfs.erofs}
WORK=${WORK:-/dev/shm/erofs-bench}
ROOTFS=${ROOTFS:-$WORK/rootfs}

die() {
	echo "$0: $*" >&2
	exit 1
}

[ -x "$FSCK" ] || die "no fsck.erofs at $FSCK (make first)"
[ -x "$MKFS" ] || die "no mkfs.erofs 1.9.3 at $MKFS (set MKFS)"
command -v veritysetup >/dev/null ||
	die "no veritysetup (apt-get install cryptsetup-bin)"
if [ ! -d "$ROOTFS" ]; then
	[ "$(id -u)" = 0 ] && command -v debootstrap >/dev/null ||
		die "no root filesystem at $ROOTFS (debootstrap, as root)"
	mkdir -p "$WORK" &&
		debootstrap --variant=minbase bookworm "$ROOTFS.tmp" \
			>"$WORK/debootstrap.log" 2>&1 &&
		mv "$ROOTFS.tmp" "$ROOTFS" ||
		die "debootstrap failed: $WORK/debootstrap.log"
fi

# image NAME MKFS-OPTION...: WORK/verity-NAME.erofs, its tree and root
image() {
	local img=$WORK/verity-$1.erofs
	shift
	if [ ! -s "$img" ]; then
		"$MKFS" "$@" -T1700000000 --quiet "$img" "$ROOTFS" >/dev/null ||
			die "mkfs.erofs failed"
	fi
	if [ ! -s "$img.root" ]; then
		veritysetup format "$img" "$img.hash" |
			sed -n 's/^Root hash:[[:space:]]*//p' >"$img.root" ||
			die "veritysetup format failed"
	fi
	echo "$img"
}

# median seconds of RUNS runs of a command
timed() {
	local r s e all=
	for ((r = 0; r < RUNS; r++)); do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		all+=" $(echo "$e - $s" | bc)"
	done
	"$median_of" $all
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

plain=$(image plain)
live=$(image live -zlzma,level=6 -C1048576 -Eall-fragments,fragdedupe=inode)
root=$(cat "$plain.root")
lroot=$(cat "$live.root")
size=$(stat -c %s "$plain")

vs=$(timed veritysetup verify "$plain" "$plain.hash" "$root")
j1=$(timed "$FSCK" -j1 --verity="$plain.hash" --root-hash="$root" "$plain")
j2=$(timed "$FSCK" -j2 --verity="$plain.hash" --root-hash="$root" "$plain")
printf 'uncompressed image, %d MiB, sha256:\n' $((size >> 20))
printf '  veritysetup verify %.3f s, ours -j1 %.3f s, -j2 %.3f s\n' \
	"$vs" "$j1" "$j2"
printf '  -j2 over -j1 %s; veritysetup over ours -j2 %s\n' \
	"$(ratio "$j1" "$j2")" "$(ratio "$vs" "$j2")"

ex=$(timed "$FSCK" -j2 --extract "$live")
exv=$(timed "$FSCK" -j2 --extract --verity="$live.hash" --root-hash="$lroot" \
	"$live")
printf 'live media, --extract -j2: %.3f s, with --verity %.3f s (%s)\n' \
	"$ex" "$exv" "$(ratio "$exv" "$ex")"
