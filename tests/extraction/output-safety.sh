#!/bin/bash
# output-safety.sh: no output destroys an input, and every run that could
# not do all it was asked ends with a verdict that says so (TAP).
#
# - an output file that is IMAGE or a --device (--tar=IMAGE, through a
#   symlink, --fs-config=./IMAGE, --file-contexts=IMAGE, --tar=DEVICE,
#   standard output appended to IMAGE, IMAGE on standard input): exit 16
#   naming it, before anything is written, and the file is unchanged;
# - --extract=DIR --overwrite where DIR holds IMAGE under the name of one
#   of the image's files: that entry is reported and not replaced, IMAGE
#   is unchanged, the rest is extracted, exit 8 and "extraction not
#   completed";
# - --tar=FILE over an existing FILE: a complete run replaces it (with
#   FILE's permissions), one stopped by a failed read of the image
#   (fault/io_fail.so) leaves it as it was, and no hidden file;
#   --tar=/dev/stdout redirected to a file is written in place, and so is
#   a FILE in a directory where the user may make no file;
# - --overwrite and --keep-existing extract into a directory that is not
#   empty (without --force); without them it is refused, naming them;
# - an entry that cannot be created (--force, an entry of that name in
#   the way): exit 8, the verdict "extraction not completed" last, and no
#   "no errors found" at -d3.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

make_scratch
resolve lz4hc-default.erofs || exit 99
cp "$path" "$scratch/img.erofs"
img=$scratch/img.erofs
cp "$img" "$scratch/orig.erofs"
# a regular file of the image, and its top directory
file=$("$FSCK" --manifest "$img" | awk '$2 == "f" && $1 ~ /\// { print $1; exit }')
top=${file%%/*}

# refused NAME ARG...: exit 16 naming the input, IMAGE unchanged
refused()
{
	local name=$1 rc
	shift
	run_fsck "$out" "$err" "$@"
	rc=$?
	if [ "$rc" -eq 16 ] && grep -q "the same file as .*which this run reads" "$err" &&
		cmp -s "$img" "$scratch/orig.erofs"; then
		tap_ok "$name: exit 16, $(head -n1 "$err")"
	else
		tap_not_ok "$name (exit $rc)"
	fi
}

refused "--tar=IMAGE" --tar="$img" "$img"
ln -s img.erofs "$scratch/out.tar"
refused "--tar=a symlink to IMAGE" --tar="$scratch/out.tar" "$img"
refused "--fs-config=./IMAGE" --fs-config="$scratch/./img.erofs" "$img"
refused "--file-contexts=IMAGE" --file-contexts="$img" "$img"
cp "$img" "$scratch/blob"
cp "$img" "$scratch/blob.orig"
run_fsck "$out" "$err" --device="$scratch/blob" --tar="$scratch/blob" "$img"
rc=$?
if [ "$rc" -eq 16 ] && cmp -s "$scratch/blob" "$scratch/blob.orig"; then
	tap_ok "--tar=DEVICE of --device=DEVICE: exit 16, the device unchanged"
else
	tap_not_ok "--tar=DEVICE of --device=DEVICE (exit $rc)"
fi
# appended NAME IMAGE-ARG ARG...: standard output appended to IMAGE,
# standard input IMAGE too: exit 16, IMAGE unchanged
appended()
{
	local name=$1 rc
	shift
	timeout 300 "$FSCK" "$@" <"$img" >>"$img" 2>"$err"
	rc=$?
	if [ "$rc" -eq 16 ] && cmp -s "$img" "$scratch/orig.erofs"; then
		tap_ok "$name: exit 16, IMAGE unchanged"
	else
		tap_not_ok "$name (exit $rc)"
		cp "$scratch/orig.erofs" "$img"
	fi
}
appended "--list IMAGE >>IMAGE" --list "$img"
appended "--tar=- - <IMAGE >>IMAGE" --tar=- -

# the image inside DIR, under the name of one of its files
x=$scratch/x
mkdir -p "$x/$(dirname "$file")"
cp "$img" "$x/$file"
run_fsck "$out" "$err" --extract="$x" --overwrite "$x/$file"
rc=$?
if [ "$rc" -eq 8 ] && cmp -s "$x/$file" "$scratch/orig.erofs" &&
	grep -q "/$file: .*is the image .* never replaced" "$err" &&
	[ "$(tail -n1 "$err")" = "fsck.erofs: $x/$file: extraction not completed" ] &&
	[ "$(find "$x" -type f | wc -l)" -gt 2 ]; then
	tap_ok "--extract=DIR --overwrite over IMAGE: IMAGE kept, the rest extracted"
else
	tap_not_ok "--extract=DIR --overwrite over IMAGE (exit $rc)"
fi

# --tar=FILE over FILE: replaced when complete, kept when not
echo old >"$scratch/a.tar"
chmod 640 "$scratch/a.tar"
run_fsck "$out" "$err" --tar="$scratch/a.tar" "$img"
rc=$?
if [ "$rc" -eq 0 ] && tar -tf "$scratch/a.tar" >/dev/null 2>&1 &&
	[ "$(stat -c %a "$scratch/a.tar")" = 640 ]; then
	tap_ok "--tar=FILE over FILE: replaced, FILE's mode kept"
else
	tap_not_ok "--tar=FILE over FILE (exit $rc, mode $(stat -c %a "$scratch/a.tar"))"
fi
echo old >"$scratch/b.tar"
: "${IO_FAIL:=$PWD/fault/io_fail.so}"
if [ -f "$IO_FAIL" ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0" \
		EROFS_FAULT_PREAD=40 EROFS_FAULT_PATH=$img LD_PRELOAD=$IO_FAIL \
		timeout 300 "$FSCK" -j1 --tar="$scratch/b.tar" "$img" \
		>"$out" 2>"$err"
	rc=$?
	if [ "$rc" -eq 8 ] && [ "$(cat "$scratch/b.tar")" = old ] &&
		grep -q "archive not completed" "$err" &&
		[ -z "$(find "$scratch" -name '.b.tar.*')" ]; then
		tap_ok "--tar=FILE, a read of the image fails: exit 8, FILE as it was"
	else
		tap_not_ok "--tar=FILE, a read of the image fails (exit $rc)"
	fi
else
	tap_skip "--tar=FILE, a read of the image fails" "no $IO_FAIL"
fi

# /dev/stdout names a descriptor: written in place, even to a file
timeout 300 "$FSCK" --tar=/dev/stdout "$img" >"$scratch/stdout.tar" 2>"$err"
rc=$?
if [ "$rc" -eq 0 ] && tar -tf "$scratch/stdout.tar" >/dev/null 2>&1 &&
	[ -z "$(find "$scratch" -name '.stdout*')" ]; then
	tap_ok "--tar=/dev/stdout to a file: written in place"
else
	tap_not_ok "--tar=/dev/stdout to a file (exit $rc)"
fi

# a FILE that may be written in a directory where nothing may be made
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir "$scratch/ro"
	: >"$scratch/ro/a.tar"
	chmod 666 "$scratch/ro/a.tar"
	chmod 755 "$scratch/ro" "$scratch"
	chmod 644 "$img"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		timeout 300 "$FSCK" --tar="$scratch/ro/a.tar" "$img" 2>"$err"
	rc=$?
	if [ "$rc" -eq 0 ] && tar -tf "$scratch/ro/a.tar" >/dev/null 2>&1; then
		tap_ok "--tar=FILE in a directory that takes no new file: written in place"
	else
		tap_not_ok "--tar=FILE in a directory that takes no new file (exit $rc)"
	fi
else
	tap_skip "--tar=FILE in a directory that takes no new file" "not root"
fi

# a directory that is not empty
for opt in --overwrite --keep-existing; do
	rm -rf "$x"
	mkdir -p "$x"
	echo mine >"$x/mine"
	run_fsck "$out" "$err" --extract="$x" "$opt" "$img"
	rc=$?
	if [ "$rc" -eq 0 ] && [ -f "$x/$file" ] && [ "$(cat "$x/mine")" = mine ]; then
		tap_ok "$opt into a directory that is not empty: extracted"
	else
		tap_not_ok "$opt into a directory that is not empty (exit $rc)"
	fi
done
rm -rf "$x"
mkdir -p "$x"
echo mine >"$x/mine"
run_fsck "$out" "$err" --extract="$x" "$img"
tap_status "a directory that is not empty, no option: refused" 8 $? \
	"not empty (--overwrite .*--keep-existing"

# an entry in the way, with --force alone
rm -rf "$x"
mkdir -p "$x"
echo mine >"$x/$top"
run_fsck "$out" "$err" -d3 --extract="$x" --force "$img"
rc=$?
if [ "$rc" -eq 8 ] && grep -q "(--overwrite replaces it)" "$err" &&
	[ "$(tail -n1 "$err")" = "fsck.erofs: $img: extraction not completed" ] &&
	! grep -q "no errors" "$err"; then
	tap_ok "--force, an entry in the way: exit 8, 'extraction not completed' last"
else
	tap_not_ok "--force, an entry in the way (exit $rc)"
fi
tap_plan
[ "$tap_failed" -eq 0 ]
