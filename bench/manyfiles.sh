#!/bin/bash
# SPDX-License-Identifier: MIT
#
# manyfiles.sh [-o OUTDIR] [-l LAYOUT] N D [FSCK]: peak memory and
# extraction time on an image of N small files in D directories, ours side
# by side with the reference fsck.erofs.
#
# The image is made from a tar stream (no source tree on disk) by
# mkfs.erofs 1.9.3 from ../shared/tools when present (--tar=f), else from
# a tree written by Debian's mkfs.erofs; -zlz4hc. LAYOUT "small" (the
# default): file i holds the 16 to 79 bytes "file i\n" repeated, so every
# file is distinct and small. LAYOUT "inline": file i holds 0 to 2047
# bytes ((i * 7919) mod 2048 of "file i\n" repeated), every 97th entry a
# symlink: small files keep their data inline, so inodes lie up to 2 KiB
# apart and the inode area is most of the image. Each mode runs under
# /usr/bin/time -v: check, --extract, --list, --manifest, --tar=/dev/null
# (when built with libarchive), and --extract=DIR to tmpfs and to ext4 on
# a loop device backed by /dev/shm (when losetup works: needs root; made
# without lazy init, and written once untimed), at -j1 and -j2. Printed per
# run: peak RSS, bytes per inode above the 10^0-file baseline image of the
# same layout, seconds, and the CPUs the whole machine kept busy meanwhile
# (ours and the kernel's threads); then the -j2/-j1 ratios. The ext4 runs
# are repeated on an uncompressed image of the same files, whose -j2/-j1
# is the floor that file creation itself sets: the compressed image's
# ratio is printed as a share of it. So is the ceiling that the -j1 run's
# busy CPUs leave for the same work on this machine's CPUs. Timings need
# an idle machine; memory figures do not.
#
# OUTDIR (default /dev/shm/manyfiles) holds the images, kept for re-runs.
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
outdir=/dev/shm/manyfiles
layout=small
while [ "${1:-}" = -o ] || [ "${1:-}" = -l ]; do
	[ "$1" = -o ] && outdir=$2 || layout=$2
	shift 2
done
if [ $# -lt 2 ] || [ $# -gt 3 ] ||
	{ [ "$layout" != small ] && [ "$layout" != inline ]; }; then
	echo "usage: $0 [-o OUTDIR] [-l small|inline] N D [FSCK]" >&2
	exit 2
fi
n=$1
d=$2
fsck=${3:-$here/../fsck/fsck.erofs}
tools=$here/../../shared/tools/erofs-utils-1.9.3
[ -x "$fsck" ] || { echo "$0: no $fsck (build first)" >&2; exit 1; }
mkdir -p "$outdir"

# tar stream of n files spread over d directories, on stdout
gen_tar() {
	python3 - "$1" "$2" "$layout" <<'PY'
import io, sys, tarfile
n, d, layout = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
out = tarfile.open(fileobj=sys.stdout.buffer, mode="w|", format=tarfile.GNU_FORMAT)
def add(name, data=None):
    ti = tarfile.TarInfo(name)
    ti.mtime = 1700000000
    if data is None:
        ti.type = tarfile.DIRTYPE
        ti.mode = 0o755
        out.addfile(ti)
    else:
        ti.size = len(data)
        ti.mode = 0o644
        out.addfile(ti, io.BytesIO(data))
for j in range(d):
    add("d%05d" % j)
for i in range(n):
    line = b"file %d\n" % i
    name = "d%05d/f%08d" % (i % d, i)
    if layout == "small":
        add(name, line * (1 + i % 5))
    elif i % 97 == 96:
        ti = tarfile.TarInfo(name)
        ti.mtime = 1700000000
        ti.type = tarfile.SYMTYPE
        ti.linkname = "f%08d" % (i - 1)
        out.addfile(ti)
    else:
        size = i * 7919 % 2048
        add(name, (line * (size // len(line) + 1))[:size])
out.close()
PY
}

# make IMG from n files in d directories, compressed with ZOPT (-zlz4hc,
# or nothing: uncompressed)
make_image() {
	local img=$1 tree zopt=${4:-}
	if [ -x "$tools/mkfs.erofs" ]; then
		gen_tar "$2" "$3" | "$tools/mkfs.erofs" --quiet --tar=f $zopt \
			-T1700000000 --mkfs-time "$img.tmp" >/dev/null
	else
		tree=$outdir/tree.$$
		rm -rf "$tree"
		mkdir "$tree"
		gen_tar "$2" "$3" | tar -x -C "$tree"
		mkfs.erofs $zopt -T1700000000 "$img.tmp" "$tree" >/dev/null
		rm -rf "$tree"
	fi
	mv "$img.tmp" "$img"
}

# image N D [plain]
image() {
	local img=$outdir/n$1-d$2-$layout${3:+-$3}.erofs zopt=-zlz4hc
	[ -z "${3:-}" ] || zopt=
	[ -f "$img" ] || make_image "$img" "$1" "$2" "$zopt"
	echo "$img"
}

if [ -x "$tools/mkfs.erofs" ]; then
	echo "mkfs: $tools/mkfs.erofs (1.9.3, --tar=f)"
else
	echo "mkfs: $(command -v mkfs.erofs) (Debian)"
fi
ref=
[ -x "$tools/fsck.erofs" ] && ref=$tools/fsck.erofs

big=$(image "$n" "$d")
small=$(image 1 1)
plain=$(image "$n" "$d" plain)

# The machine's busy and idle time so far, in clock ticks: every CPU's
# user, nice, system, irq and softirq; idle and iowait.
cpu_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat
}

# measure CMD...: prints "peakKiB seconds busyCPUs", the last the machine's
# busy share over the run, in CPUs: ours and the kernel's threads (the
# journal's, the loop device's) together.
measure() {
	local log=$outdir/time.log b0 i0 b1 i1
	read -r b0 i0 < <(cpu_ticks)
	/usr/bin/time -v "$@" >/dev/null 2>"$log" || {
		echo "FAILED: $*" >&2
		tail -5 "$log" >&2
		echo "- - -"
		return
	}
	read -r b1 i1 < <(cpu_ticks)
	awk -F': ' -v busy=$((b1 - b0)) -v all=$((b1 - b0 + i1 - i0)) \
		-v ncpu="$(nproc)" '/Maximum resident/ { k = $2 }
		/Elapsed \(wall/ { split($2, t, ":"); s = 0
			for (i = 1; i in t; i++) s = s * 60 + t[i] }
		END { printf "%d %.2f %.2f\n", k, s,
			all ? busy / all * ncpu : 0 }' "$log"
}

tmpfs_dir=$outdir/x
ext4_img=$outdir/ext4.img
ext4_mnt=$outdir/ext4
loopdev=
cleanup() {
	rm -rf "$tmpfs_dir"
	if [ -n "$loopdev" ]; then
		umount "$ext4_mnt" 2>/dev/null || true
		losetup -d "$loopdev" 2>/dev/null || true
	fi
	rm -f "$ext4_img"
	rmdir "$ext4_mnt" 2>/dev/null || true
}
trap cleanup EXIT
setup_ext4() {
	mkdir -p "$ext4_mnt"
	truncate -s 8G "$ext4_img"
	loopdev=$(losetup -f --show "$ext4_img" 2>/dev/null) || return 1
	# no lazy init: zeroing the inode tables in the background would
	# slow down the first run (-j1 by a third at 10^6 files)
	mkfs.ext4 -q -N $((n + d + 1000)) \
		-E lazy_itable_init=0,lazy_journal_init=0 "$loopdev" || return 1
	mount "$loopdev" "$ext4_mnt" || return 1
	# an untimed run first: the first extraction onto a new ext4 on a
	# new backing file took 46 s where the same one again took 33
	"$fsck" -j1 --extract="$ext4_mnt/x" "$plain" >/dev/null 2>&1 || true
	fresh "$ext4_mnt/x"
}
fresh() {
	rm -rf "$1"
	mkdir -p "$1"
	sync
}

printf '%-28s %10s %10s %8s %6s\n' run peak_KiB B/inode seconds CPUs
row() {
	local label=$1 base=$2 img=$3 dest=$4
	shift 4
	local big_r small_r
	[ -z "$dest" ] || fresh "$dest"
	small_r=$(measure "$@" "$small")
	[ -z "$dest" ] || fresh "$dest"
	big_r=$(measure "$@" "$img")
	set -- $big_r $small_r
	if [ "$1" = - ] || [ "$4" = - ]; then
		printf '%-28s %10s\n' "$label" FAILED
		return
	fi
	printf '%-28s %10d %10.1f %8.2f %6.2f\n' "$label" "$1" \
		"$(echo "($1 - $4) * 1024 / $n" | bc -l)" "$2" "$3"
	eval "secs_${base}=$2 cpus_${base}=$3"
}

# upstream does not take -j; its runs are labelled j1
for j in 1 2; do
	row "check -j$j" "check$j" "$big" "" "$fsck" -j$j
	row "--extract -j$j" "xcheck$j" "$big" "" "$fsck" -j$j --extract
	row "--list -j$j" "list$j" "$big" "" "$fsck" -j$j --list
	row "--manifest -j$j" "mf$j" "$big" "" "$fsck" -j$j --manifest
	if "$fsck" --help 2>&1 | grep -q -- --tar; then
		row "--tar -j$j" "tar$j" "$big" "" "$fsck" -j$j --tar=/dev/null
	fi
	row "--extract=tmpfs -j$j" "xt$j" "$big" "$tmpfs_dir" \
		"$fsck" -j$j --extract="$tmpfs_dir"
done
if [ -n "$ref" ]; then
	row "upstream check" "ucheck" "$big" "" "$ref"
	row "upstream --extract" "uxcheck" "$big" "" "$ref" --extract
	row "upstream --extract=tmpfs" "uxt" "$big" "$tmpfs_dir" \
		"$ref" --extract="$tmpfs_dir"
fi
have_ext4=
if setup_ext4 2>/dev/null; then
	have_ext4=1
	for j in 1 2; do
		row "--extract=ext4 -j$j" "xe$j" "$big" "$ext4_mnt/x" \
			"$fsck" -j$j --extract="$ext4_mnt/x"
		row "uncompressed =ext4 -j$j" "pe$j" "$plain" "$ext4_mnt/x" \
			"$fsck" -j$j --extract="$ext4_mnt/x"
	done
	[ -z "$ref" ] || row "upstream --extract=ext4" "uxe" "$big" \
		"$ext4_mnt/x" "$ref" --extract="$ext4_mnt/x"
else
	echo "ext4 on a loop device: not available (needs root)"
fi
ratio() {
	printf '%-28s %s\n' "$1" "$(echo "scale=2; $2 / $3" | bc -l)"
}
echo
ratio "tmpfs -j2/-j1 speed-up" "$secs_xt1" "$secs_xt2"
[ -z "${secs_tar1:-}" ] || ratio "--tar -j2/-j1 speed-up" "$secs_tar1" "$secs_tar2"
[ -z "$ref" ] || ratio "tmpfs upstream/ours-j1" "$secs_uxt" "$secs_xt1"
if [ -n "$have_ext4" ]; then
	ratio "ext4 -j2/-j1 speed-up" "$secs_xe1" "$secs_xe2"
	ratio "uncompressed ext4 -j2/-j1" "$secs_pe1" "$secs_pe2"
	printf '%-28s %.2f\n' "of the uncompressed one's" "$(echo \
		"($secs_xe1 / $secs_xe2) / ($secs_pe1 / $secs_pe2)" | bc -l)"
	# -j1 onto ext4 keeps more than one CPU busy: the kernel's journal
	# and loop device threads work beside ours. With the same work, no
	# -jN can beat the CPUs over what -j1 keeps busy.
	ratio "ext4 -j2/-j1 ceiling" "$(nproc)" "$cpus_xe1"
	ratio "uncompressed ceiling" "$(nproc)" "$cpus_pe1"
	[ -z "$ref" ] || ratio "ext4 upstream/ours-j1" "$secs_uxe" "$secs_xe1"
fi
