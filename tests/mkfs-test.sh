#!/bin/bash
# mkfs-test.sh mkfs/NAME.mkfs: build an image of the generated tree
# (gentree.py) with mkfs.erofs and the options in NAME.mkfs, then check that
#  - "fsck.erofs IMAGE" exits 0 and prints nothing,
#  - "fsck.erofs --extract IMAGE" exits 0,
#  - "fsck.erofs --manifest IMAGE" matches the tree (treemanifest.py) on
#    path, type, mode, owner, size, sha256, rdev, nlink and hard-link group.
# Skips (77) without mkfs.erofs: set MKFS_EROFS to use another one.
set -u
# shellcheck source=lib/testlib.sh
. "${srcdir:-$(dirname "$0")}/lib/testlib.sh"

FIELDS=1,2,3,4,5,6,8,9,10,11

need_mkfs
need_tools "$PYTHON3"

name=$(basename "$1" .mkfs)
read -r -a mkfs_opts <<<"$(grep -v '^#' "$1" | tr '\n' ' ')"
echo "mkfs options: ${mkfs_opts[*]:-(none)}"

make_scratch
tree=$scratch/tree
image=$scratch/$name.erofs
"$PYTHON3" "$srcdir/lib/gentree.py" "$tree" || exit 99
if ! "$mkfs" --quiet "${mkfs_opts[@]}" -T1700000000 \
		-U 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 "$image" "$tree" \
		>"$err" 2>&1; then
	echo "ERROR: mkfs.erofs failed:"
	cat "$err"
	exit 99
fi
failed=0

run_fsck "$out" "$err" "$image"
status=$?
if [ "$status" -eq 0 ] && [ ! -s "$out" ] && quiet "$err"; then
	echo "PASS: fsck exits 0 and prints nothing"
else
	echo "FAIL: fsck exits $status, output:"
	cat "$out" "$err" | head -n 20
	failed=1
fi

run_fsck "$out" "$err" --extract "$image"
status=$?
if [ "$status" -eq 0 ] && ! has_sanitizer_report "$err"; then
	echo "PASS: --extract exits 0"
else
	echo "FAIL: --extract exits $status, output:"
	cat "$out" "$err" | head -n 20
	failed=1
fi

"$PYTHON3" "$srcdir/lib/treemanifest.py" --fields "$FIELDS" "$tree" \
	>"$scratch/expected" || exit 99
run_fsck "$out" "$err" --manifest "$image"
status=$?
if [ "$status" -ne 0 ] || has_sanitizer_report "$err"; then
	echo "FAIL: --manifest exits $status, output:"
	head -n 20 "$err"
	failed=1
elif cut -d' ' -f"$FIELDS" "$out" | cmp -s "$scratch/expected" -; then
	echo "PASS: --manifest matches the tree (fields $FIELDS)"
else
	echo "FAIL: --manifest differs from the tree (fields $FIELDS)," \
		"diff expected actual:"
	cut -d' ' -f"$FIELDS" "$out" | diff "$scratch/expected" - | head -n 40
	failed=1
fi
# The files' contents through an archive whose format holds each name's
# data (zip), runs of zeros as holes: bsdtar unpacks them whole. Zip holds
# no fifo, and bsdtar unpacks no name that is not UTF-8.
file_contents()
{
	"$PYTHON3" "$srcdir/lib/treemanifest.py" --fields 1,2,6,8 "$1" |
		awk '$2 == "f" && $1 !~ /not-utf8/'
}
if command -v bsdtar >/dev/null; then
	run_fsck "$out" "$err" --tar="$scratch/tree.zip" --format=zip \
		--sparse --exclude=fifo --exclude='*-not-utf8' "$image"
	status=$?
	mkdir "$scratch/unzipped" || exit 99
	if [ "$status" -ne 0 ] || has_sanitizer_report "$err" ||
		! bsdtar -xf "$scratch/tree.zip" -C "$scratch/unzipped" \
			2>>"$err"; then
		echo "FAIL: --tar --format=zip --sparse exits $status, output:"
		head -n 20 "$err"
		failed=1
	elif file_contents "$tree" >"$scratch/expected" &&
		file_contents "$scratch/unzipped" >"$scratch/got" &&
		[ -s "$scratch/got" ] && cmp -s "$scratch/expected" "$scratch/got"; then
		echo "PASS: --tar --format=zip --sparse: bsdtar unpacks every file's content"
	else
		echo "FAIL: --tar --format=zip --sparse: contents differ from the tree"
		diff "$scratch/expected" "$scratch/got" | head -n 20
		failed=1
	fi
else
	echo "SKIP: bsdtar not found: archive contents not checked"
fi
exit $failed
