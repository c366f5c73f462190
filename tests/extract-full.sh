#!/bin/bash
# extract-full.sh: extraction to a target that runs out of space (TAP).
#
# The target is a 1 MiB tmpfs where mounts work (root), and in any case a
# file size limit (ulimit -f, RLIMIT_FSIZE). The 6 MiB lz4hc-default image
# does not fit: fsck.erofs must exit 8 (operational error, no image
# problem), name the file it could not write (its path in the image, and
# "cannot write DIR/PATH: ..."), not leave that file behind, and keep what
# it extracted before.
set -u
# shellcheck source=testlib.sh
. "${srcdir:-$(dirname "$0")}/testlib.sh"

make_scratch
mnt=$scratch/mnt
trap 'mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"; rm -rf "$scratch"' EXIT
image=${EROFS_TEST_DATA:-}/lz4hc-default.erofs
if [ ! -f "$image" ]; then
	image=$scratch/lz4hc-default.erofs
	unpack "$srcdir/data/lz4hc-default.erofs.xz" "$image" || exit 99
fi
echo "1..4"

# check N WHAT DIR STATUS ERRFILE: the verdict on one full extraction
check()
{
	local n=$1 what=$2 dir=$3 status=$4 err=$5 file
	file=$(sed -n 's|^fsck\.erofs: /\([^:]*\): nid [0-9]*.*cannot write .*|\1|p' \
		"$err" | head -n 1)
	if [ "$status" -ne 8 ]; then
		echo "not ok $n - $what: exit $status, expected 8"
	elif has_sanitizer_report "$err"; then
		echo "not ok $n - $what: sanitizer report"
	elif [ -z "$file" ]; then
		echo "not ok $n - $what: no \"cannot write\" message naming a file"
	elif ! grep -qF "cannot write $dir/$file: " "$err"; then
		echo "not ok $n - $what: the message does not name $dir/$file"
	elif [ -e "$dir/$file" ]; then
		echo "not ok $n - $what: /$file was left behind"
	elif [ ! -d "$dir/bigdir" ]; then
		echo "not ok $n - $what: what was extracted before is gone"
	else
		echo "ok $n - $what: exit 8, /$file named and removed"
		return
	fi
	show "$err"
}

n=0
for jobs in 1 4; do
	n=$((n + 1))
	out=$scratch/fsize-$jobs
	(
		ulimit -f 256
		timeout -k 5 "$FSCK_TIMEOUT" "$FSCK" -j$jobs --extract="$out" \
			--no-preserve-owner "$image" 2>"$scratch/err"
	)
	check $n "RLIMIT_FSIZE, -j$jobs" "$out" $? "$scratch/err"
done

mkdir -p "$mnt"
if [ "$(id -u)" -ne 0 ] || \
		! mount -t tmpfs -o size=1m erofs-full-test "$mnt" 2>/dev/null; then
	echo "ok 3 - full tmpfs, -j1 # SKIP cannot mount a tmpfs"
	echo "ok 4 - full tmpfs, -j4 # SKIP cannot mount a tmpfs"
	exit 0
fi
for jobs in 1 4; do
	n=$((n + 1))
	rm -rf "${mnt:?}"/*
	timeout -k 5 "$FSCK_TIMEOUT" "$FSCK" -j$jobs --extract="$mnt/out" \
		--preserve "$image" 2>"$scratch/err"
	check $n "full tmpfs, -j$jobs" "$mnt/out" $? "$scratch/err"
done
