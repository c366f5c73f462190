#!/bin/bash
# extract-full.sh: extraction to a target that runs out of space (TAP).
#
# The target is a 1 MiB tmpfs where mounts work (root), and in any case a
# file size limit (ulimit -f, RLIMIT_FSIZE). The 6 MiB lz4hc-default image
# does not fit: fsck.erofs must exit 8 (operational error, no image
# problem), name the file it could not write (its path in the image, and
# "cannot write DIR/PATH: ..."), not leave that file behind, and keep what
# it extracted before. With --path=/sizes, DIR/PATH is the path below
# /sizes.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"
# -j4 starts its threads on these small images, even beyond the CPUs
export EROFS_FSCK_SYNC_NS=0

make_scratch
mnt=$scratch/mnt
trap 'mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"; rm -rf "$scratch"' EXIT
resolve lz4hc-default.erofs || exit 99
image=$path
tap_plan 5

# check WHAT DIR STATUS ERRFILE: the verdict on one full extraction
check()
{
	local what=$1 dir=$2 status=$3 err=$4 file
	file=$(sed -n 's|^fsck\.erofs: /\([^:]*\): nid [0-9]*.*cannot write .*|\1|p' \
		"$err" | head -n 1)
	if [ "$status" -ne 8 ]; then
		tap_not_ok "$what: exit $status, expected 8"
	elif has_sanitizer_report "$err"; then
		tap_not_ok "$what: sanitizer report"
	elif [ -z "$file" ]; then
		tap_not_ok "$what: no \"cannot write\" message naming a file"
	elif ! grep -qF "cannot write $dir/$file: " "$err"; then
		tap_not_ok "$what: the message does not name $dir/$file"
	elif [ -e "$dir/$file" ]; then
		tap_not_ok "$what: /$file was left behind"
	elif [ ! -d "$dir/bigdir" ]; then
		tap_not_ok "$what: what was extracted before is gone"
	else
		tap_ok "$what: exit 8, /$file named and removed"
	fi
}

for jobs in 1 4; do
	out=$scratch/fsize-$jobs
	(
		ulimit -f 256
		timeout -k 5 "$FSCK_TIMEOUT" "$FSCK" -j$jobs --extract="$out" \
			--no-preserve-owner "$image" 2>"$scratch/err"
	)
	check "RLIMIT_FSIZE, -j$jobs" "$out" $? "$scratch/err"
done

out=$scratch/fsize-path
(
	ulimit -f 256
	timeout -k 5 "$FSCK_TIMEOUT" "$FSCK" --path=/sizes --extract="$out" \
		--no-preserve-owner "$image" 2>"$scratch/err"
)
status=$?
if [ $status -eq 8 ] && grep -qF "cannot write $out/size-" "$scratch/err"; then
	tap_ok "RLIMIT_FSIZE, --path=/sizes: the message names DIR/size-*"
else
	tap_not_ok "RLIMIT_FSIZE, --path=/sizes: exit $status, not naming DIR/size-*" \
		"$scratch/err"
fi

mkdir -p "$mnt"
if [ "$(id -u)" -ne 0 ] || \
		! mount -t tmpfs -o size=1m erofs-full-test "$mnt" 2>/dev/null; then
	tap_skip "full tmpfs, -j1" "cannot mount a tmpfs"
	tap_skip "full tmpfs, -j4" "cannot mount a tmpfs"
	exit 0
fi
for jobs in 1 4; do
	rm -rf "${mnt:?}"/*
	timeout -k 5 "$FSCK_TIMEOUT" "$FSCK" -j$jobs --extract="$mnt/out" \
		--preserve "$image" 2>"$scratch/err"
	check "full tmpfs, -j$jobs" "$mnt/out" $? "$scratch/err"
done
