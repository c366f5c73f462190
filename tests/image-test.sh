#!/bin/bash
# image-test.sh DATA/NAME.erofs.xz: check one stored test image (TAP).
#
#  1. "fsck.erofs IMAGE" exits 0 and prints nothing;
#  2. "fsck.erofs --extract IMAGE" exits 0;
#  3. "fsck.erofs --manifest IMAGE" prints exactly the expected manifest.
#
# data/index gives the manifest and extra options of each image.
set -u
# shellcheck source=lib/testlib.sh
. "${srcdir:-$(dirname "$0")}/lib/testlib.sh"

xz=$1
name=$(basename "$xz" .xz)
data=$(dirname "$xz")
tap_plan 3

entry=$(awk -v img="$name" '$1 == img { $1 = ""; print; exit }' \
	"$data/index")
if [ -z "$entry" ]; then
	echo "Bail out! $name is not listed in $data/index"
	exit 0
fi
read -r manifest extra <<<"$entry"

make_scratch
# resolve NAME: set $path to the unpacked NAME, from "make check"
# (EROFS_TEST_DATA) or else unpacked here
resolve()
{
	path=${EROFS_TEST_DATA:-}/$1
	[ -f "$path" ] && return
	path=$scratch/$1
	unpack "$data/$1.xz" "$path" && return
	echo "Bail out! cannot unpack $data/$1.xz"
	exit 0
}
resolve "$name"
image=$path
opts=()
for opt in $extra; do
	case $opt in
	*=@*)
		resolve "${opt#*=@}"
		opt=${opt%%=@*}=$path
		;;
	esac
	opts+=("$opt")
done

run_fsck "$out" "$err" "${opts[@]}" "$image"
status=$?
if [ "$status" -eq 0 ] && [ ! -s "$out" ] && quiet "$err"; then
	tap_ok "$name: fsck exits 0 and prints nothing"
else
	tap_not_ok "$name: fsck exits $status" "$out"
	show "$err"
fi

run_fsck "$out" "$err" --extract "${opts[@]}" "$image"
status=$?
if [ "$status" -eq 0 ] && ! has_sanitizer_report "$err"; then
	tap_ok "$name: --extract exits 0"
else
	tap_not_ok "$name: --extract exits $status" "$out"
	show "$err"
fi

run_fsck "$out" "$err" --manifest "${opts[@]}" "$image"
status=$?
if [ "$status" -ne 0 ] || has_sanitizer_report "$err"; then
	tap_not_ok "$name: --manifest exits $status"
elif cmp -s "$out" "$data/$manifest"; then
	tap_ok "$name: --manifest matches $manifest"
else
	tap_not_ok "$name: --manifest differs from $manifest" ""
	echo "# diff expected actual (first 40 lines):"
	diff "$data/$manifest" "$out" >"$scratch/diff"
	show "$scratch/diff" 40
	show "$err"
fi
