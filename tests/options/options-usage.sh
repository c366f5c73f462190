#!/bin/bash
# options-usage.sh: usage errors found before any work, selection rules
# and messages that say what happened and nothing else (TAP).
#
# - an unknown --format, --keep-existing with --overwrite, --sparse with
#   no output, an empty --include, --exclude=/, --modify-window without
#   --compare, --options without --tar, --xattr-inode-digest with
#   --no-xattr-inode-digest, --require-verity with --no-verity,
#   --write-image to a terminal, --force, --overwrite, --keep-existing,
#   --preserve and --no-preserve-owner with nothing to extract: exit 16
#   with one line naming the
#   option and the --help hint, before IMAGE is opened (IMAGE does not
#   exist); "--extract DIR IMAGE" hints at --extract=DIR; --extract=/tmp/..
#   is the root and needs --force;
# - -n and -f, as fsck(8) passes them: no effect; "--tar IMAGE" hints
#   that --tar took IMAGE; --cat=./PATH as --cat=PATH; --list-partitions
#   of a plain image says it is neither GPT nor a super image;
# - a missing IMAGE is named once per line; -d3 counts the entries --json
#   counts; -p beside --manifest prints the ratio on stderr; -V and
#   --help list the codecs;
# - --include=./PATH selects what --include=PATH does; a pattern that
#   selects nothing is a failure naming it (exit 8, as GNU tar's "Not
#   found in archive"); a --files-from path not in the image is exit 8
#   with the verdict "check not completed", never "no errors found", and
#   so is a zip archive whose format refused the devices ("archive not
#   completed"): to standard output it still ends properly, and
#   --tar=FILE is not replaced; --fs-config with a name it cannot hold
#   says "--fs-config not completed", not the check;
# - --tar=- to a full device (/dev/full): the write error and the verdict
#   that the archive is not complete, and no "walk stopped" before them;
# - --list names: spaces and printable UTF-8 as GNU tar lists them, control
#   bytes and backslashes escaped as GNU tar's default quoting does (GNU
#   tar -tf of bsdtar's archive of the same tree is the oracle), and
#   directories with size 0.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

make_scratch
resolve lz4hc-default.erofs || exit 99
img=$path
missing=$scratch/missing.erofs

# usage NAME ARG...: exit 16, one line on stderr but the --help hint
usage()
{
	local name=$1 rc
	shift
	run_fsck "$out" "$err" "$@" "$missing"
	rc=$?
	if [ "$rc" -eq 16 ] && [ "$(grep -vc "^Try " "$err")" -eq 1 ] &&
		! grep -q "missing.erofs" "$err"; then
		tap_ok "$name: exit 16, before the image: $(head -n1 "$err")"
	else
		tap_not_ok "$name (exit $rc)"
	fi
}

usage "--format=bogus" --tar="$scratch/a.tar" --format=bogus
usage "--keep-existing with --overwrite" --extract="$scratch/x" \
	--keep-existing --overwrite
usage "--sparse without --extract=DIR or --tar" --sparse
usage "--include= (an empty pattern)" --include=
usage "--exclude=/" --exclude=/
usage "--modify-window without --compare" --modify-window=1
usage "--options without --tar" --options=xattrheader=ALL
usage "--xattr-inode-digest with --no-xattr-inode-digest" \
	--xattr-inode-digest --no-xattr-inode-digest
usage "--require-verity with --no-verity" --require-verity --no-verity
for opt in --force --overwrite --keep-existing --preserve --no-preserve-owner; do
	usage "$opt without --extract=DIR" "$opt"
done

# "--tar IMAGE": the hint says --tar took IMAGE as its FILE
run_fsck "$out" "$err" --tar "$img"
tap_status "--tar IMAGE: missing IMAGE, with the hint that --tar took it" 16 $? \
	"missing IMAGE (--tar took '.*' as its argument: --tar=ARG IMAGE)"
# --cat=./PATH, as --include=./PATH
run_fsck "$out" "$err" --cat=./bigdir/e00000-tibyktucujzhacxfwlomqubsloalkuvxoicqyy "$img"
rc=$?
run_fsck "$scratch/cat2" "$err" --cat=bigdir/e00000-tibyktucujzhacxfwlomqubsloalkuvxoicqyy "$img"
if [ $rc -eq 0 ] && [ -s "$out" ] && cmp -s "$out" "$scratch/cat2"; then
	tap_ok "--cat=./PATH prints what --cat=PATH prints"
else
	tap_not_ok "--cat=./PATH (exit $rc)" "$err"
fi
# --list-partitions of what has no partition table says which it is not
run_fsck "$out" "$err" --list-partitions "$img"
tap_status "--list-partitions of a plain image: neither GPT nor super" 8 $? \
	"is neither a GPT disk nor an Android super image"

# what fsck(8) passes: -n (no changes) and -f (force) have no effect
run_fsck "$out" "$err" -n -f -a "$img"
tap_status "-n -f -a, as fsck(8) passes them: no effect, exit 0" 0 $?

# a raw image on a terminal, as --tar=- refuses an archive there
if command -v script >/dev/null; then
	script -qec "$FSCK --write-image=/dev/stdout $img" /dev/null >"$out" 2>&1
	rc=$?
	if [ "$rc" -eq 16 ] && grep -q "refusing to write an image to a terminal" "$out"; then
		tap_ok "--write-image=/dev/stdout on a terminal: exit 16"
	else
		tap_not_ok "--write-image=/dev/stdout on a terminal (exit $rc)" "$out"
	fi
else
	tap_skip "--write-image=/dev/stdout on a terminal" "no script"
fi

# -V and --help name the codecs of the build
for opt in -V --help; do
	run_fsck "$out" "$err" "$opt"
	if [ $? -eq 0 ] && grep -q "^Codecs: lz4.* lzma.* deflate.* zstd" "$out"; then
		tap_ok "$opt lists the codecs: $(grep "^Codecs:" "$out")"
	else
		tap_not_ok "$opt lists the codecs" "$out"
	fi
done

# --extract DIR (no '='): the hint names --extract=DIR
run_fsck "$out" "$err" --extract "$scratch/x" "$missing"
tap_status "--extract DIR IMAGE: a hint at --extract=DIR" 16 $? \
	"takes a directory only as --extract="
# / however spelt needs --force
run_fsck "$out" "$err" --extract=/tmp/.. "$img"
tap_status "--extract=/tmp/..: the root, so it needs --force" 16 $? \
	"extracting to / needs --force"
# a file that cannot be opened is named once
run_fsck "$out" "$err" "$missing"
if [ "$(grep -o "missing.erofs" "$err" | wc -l)" -eq 2 ] &&
	grep -q "^fsck.erofs: cannot open $missing: No such file" "$err"; then
	tap_ok "a missing IMAGE: named once in the error, once in the verdict"
else
	tap_not_ok "a missing IMAGE: named once"
fi
# -d3's count of entries is --json's
run_fsck "$out" "$err" -d3 --json "$img"
n=$(sed -n 's/.* \([0-9]*\) entries$/\1/p' "$err")
if [ -n "$n" ] && grep -q "\"entries\": $n," "$out"; then
	tap_ok "-d3 counts $n entries, as --json does"
else
	tap_not_ok "-d3 counts ${n:-no} entries; --json: $(grep '"entries"' "$out")"
fi
# -p beside --manifest: the ratio on stderr, stdout the manifest's own
run_fsck "$out" "$err" -p --manifest "$img"
if [ $? -eq 0 ] && ! grep -q "Compression ratio" "$out" &&
	grep -q "^Compression ratio: " "$err"; then
	tap_ok "-p --manifest: the ratio on stderr"
else
	tap_not_ok "-p --manifest: the ratio on stderr"
fi

# a directory of the image, from its manifest
dir=$("$FSCK" --manifest "$img" | awk '$2 == "d" && $1 != "." { print $1; exit }')
run_fsck "$scratch/plain" "$err" --list --include="$dir" "$img"
run_fsck "$scratch/dotted" "$err" --list --include="./$dir" "$img"
if [ -s "$scratch/plain" ] && cmp -s "$scratch/plain" "$scratch/dotted"; then
	tap_ok "--include=./$dir selects what --include=$dir does"
else
	tap_not_ok "--include=./$dir selects what --include=$dir does" \
		"$scratch/dotted"
fi

run_fsck "$out" "$err" --list --include='no-such-*' "$img"
tap_status "a pattern that selects nothing: exit 8 naming it" 8 $? \
	"fsck.erofs: --include=no-such-\\*: selects nothing in the image$"
run_fsck "$out" "$err" --list --exclude="$dir" --include="$dir/*" "$img"
tap_status "an include an exclude prunes: exit 8, saying so" 8 $? \
	"selects nothing in the image that an --exclude leaves in"

printf '%s\n' "$dir" no/such/path >"$scratch/names"
run_fsck "$out" "$err" -d3 --files-from="$scratch/names" "$img"
rc=$?
if [ "$rc" -eq 8 ] && grep -q "/no/such/path: named by --files-from" "$err" &&
	[ "$(tail -n1 "$err")" = "fsck.erofs: $img: check not completed" ] &&
	! grep -q "no errors" "$err"; then
	tap_ok "a --files-from path not in the image: exit 8, 'check not completed'"
else
	tap_not_ok "a --files-from path not in the image (exit $rc)"
fi

# a zip holds no devices: refused, reported; to standard output the
# archive ends properly, and --tar=FILE is left as it was
run_fsck "$scratch/a.zip" "$err" --tar=- --format=zip "$img"
rc=$?
echo old >"$scratch/b.zip"
run_fsck "$out" "$scratch/b.err" --tar="$scratch/b.zip" --format=zip "$img"
rc2=$?
if [ "$rc" -eq 8 ] && grep -q "entry left out, as" "$err" &&
	[ "$(tail -n1 "$err")" = "fsck.erofs: $img: archive not completed" ] &&
	bsdtar -tf "$scratch/a.zip" >/dev/null 2>&1 && [ "$rc2" -eq 8 ] &&
	[ "$(cat "$scratch/b.zip")" = old ] &&
	grep -q "b.zip: not replaced, as the archive is not complete" "$scratch/b.err"; then
	tap_ok "--format=zip refusing devices: exit 8, the archive ends; FILE kept"
else
	tap_not_ok "--format=zip refusing devices (exit $rc, $rc2)"
fi

# --fs-config: a name with white space is left out of it; the check itself
# completed
mkdir -p "$scratch/ws"
echo x >"$scratch/ws/a b"
mkfs.erofs "$scratch/ws.erofs" "$scratch/ws" >/dev/null 2>&1 || exit 99
run_fsck "$out" "$err" --fs-config="$scratch/ws.txt" "$scratch/ws.erofs"
tap_status "--fs-config, a name it cannot hold: '--fs-config not completed'" \
	8 $? "ws.erofs: --fs-config not completed$"

if [ -w /dev/full ]; then
	timeout 300 "$FSCK" --tar=- "$img" >/dev/full 2>"$err"
	rc=$?
	if [ "$rc" -eq 8 ] && [ "$(grep -vc 'sockets are left out\|not valid UTF-8' "$err")" -eq 2 ] &&
		grep -q "^fsck.erofs: --tar=-: No space left on device" "$err" &&
		grep -q ": archive not completed$" "$err"; then
		tap_ok "--tar=- to /dev/full: the error, then the verdict"
	else
		tap_not_ok "--tar=- to /dev/full (exit $rc)"
	fi
else
	tap_skip "--tar=- to /dev/full" "no /dev/full"
fi

# names as GNU tar lists them
if command -v tar >/dev/null && tar --version 2>/dev/null | grep -q GNU &&
	command -v bsdtar >/dev/null && command -v mkfs.erofs >/dev/null; then
	tree=$scratch/tree
	mkdir -p "$tree/dir with space" || exit 99
	for name in "héllo" $'tab\there' $'new\nline' 'back\slash' $'bad\377byte' \
		$'ctl\001x' 'plain'; do
		echo x >"$tree/dir with space/$name"
	done
	mkfs.erofs -T0 "$scratch/names.erofs" "$tree" >"$err" 2>&1 ||
		exit 99
	run_fsck "$out" "$err" --list "$scratch/names.erofs"
	# the names after the mtime (the 6th field on): paths hold spaces
	sed 's/^\([^ ]* \)\{5\}//' "$out" | grep -v '^\.$' | sort >"$scratch/ours"
	(cd "$tree" && bsdtar -cf "$scratch/names.tar" --format pax *)
	LC_ALL=C.UTF-8 tar -tf "$scratch/names.tar" 2>/dev/null |
		sed 's|/$||' | sort >"$scratch/gnu"
	if cmp -s "$scratch/ours" "$scratch/gnu"; then
		tap_ok "--list names as GNU tar lists them ($(wc -l <"$scratch/gnu") names)"
	else
		tap_not_ok "--list names as GNU tar lists them" "$scratch/ours"
		show "$scratch/gnu"
	fi
	if awk '$1 ~ /^d/ && $3 != 0 { bad = 1 } END { exit bad }' "$out"; then
		tap_ok "--list: directories have size 0"
	else
		tap_not_ok "--list: directories have size 0" "$out"
	fi
else
	tap_skip "--list names as GNU tar lists them" "no GNU tar, bsdtar or mkfs.erofs"
	tap_skip "--list: directories have size 0" "no GNU tar, bsdtar or mkfs.erofs"
fi

tap_plan
[ "$tap_failed" -eq 0 ]
