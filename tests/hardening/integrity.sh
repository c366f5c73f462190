#!/bin/bash
# integrity.sh: what a dm-verity tree guarantees, tried as an attacker
# would (TAP). A tree veritysetup made for a stored uncompressed image:
# - a block of a file's data that fails its hash is a block that failed
#   to read: the file is left out of --extract=DIR, --tar and --cat
#   (exit 4), every other file is there; --ignore-errors salvages it;
# - a directory block that fails: the directory named, the entries that
#   block holds not walked, the rest of the tree extracted;
# - the image changed while the run reads it (the io_fail.so shim inverts
#   a byte of a file's data once a read has returned it): what reaches
#   the outputs is what was checked, never the changed byte;
# - a clean run without a tree says in one line what is unchecked, and
#   --require-verity then fails; with --verity and --root-hash it passes,
#   saying nothing, every byte verified in --json;
# - a --device no tree covers: said, and --require-verity fails naming it;
# - a tree whose superblock says it covers 2 blocks: the root hash still
#   matches, but the spare slots of its one hash block are not zero: exit
#   4, and with the tree unusable nothing is extracted.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

need_tools veritysetup
# the shim comes before the sanitizer runtime in the library list
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
export ASAN_OPTIONS
make_scratch
resolve plain.erofs || exit 99
img=$scratch/plain.img
cp "$path" "$img" || exit 99
shim=$PWD/fault/io_fail.so
[ -f "$shim" ] || exit 99
root=$(veritysetup format "$img" "$scratch/plain.hash" |
	sed -n 's/^Root hash:[[:space:]]*//p')
[ ${#root} = 64 ] || exit 99
tree=(--verity="$scratch/plain.hash" --root-hash="$root")
# the middle of zeros-2m.bin's data, stored as it is
at=$("$PYTHON3" -c 'import sys
d = open(sys.argv[1], "rb").read()
print(d.index(bytes(2 << 20)) + (1 << 20))' "$img")
tap_plan 12

# flip FILE BYTE: one byte of FILE inverted
flip()
{
	"$PYTHON3" -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2]))
b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xff]))' "$1" "$2"
}

# zeros OUT: is OUT's file zeros-2m.bin 2 MiB of zeros?
zeros()
{
	cmp -s "$1/zeros-2m.bin" <(head -c $((2 << 20)) /dev/zero)
}

cp "$img" "$scratch/bad.img"
flip "$scratch/bad.img" "$at"
run_fsck "$out" "$err" "${tree[@]}" --extract="$scratch/x1" "$scratch/bad.img"
rc=$?
if [ $rc -eq 4 ] && [ ! -e "$scratch/x1/zeros-2m.bin" ] &&
	[ -d "$scratch/x1/bigdir" ] &&
	grep -q "^fsck.erofs: /zeros-2m.bin: .*data block $((at / 4096)) fails its hash" "$err"; then
	tap_ok "--extract=DIR: a file whose block fails its hash is left out, the rest extracted"
else
	tap_not_ok "--extract=DIR of a failing block (exit $rc)" "$err"
fi

run_fsck "$out" "$err" "${tree[@]}" --tar="$scratch/bad.tar" "$scratch/bad.img"
rc=$?
if [ $rc -eq 4 ] && [ -f "$scratch/bad.tar" ] &&
	! tar -tf "$scratch/bad.tar" | grep -q 'zeros-2m.bin' &&
	tar -tf "$scratch/bad.tar" | grep -q '^bigdir/'; then
	tap_ok "--tar: a file whose block fails its hash is not archived"
else
	tap_not_ok "--tar of a failing block (exit $rc)" "$err"
fi

run_fsck "$out" "$err" "${tree[@]}" --cat=zeros-2m.bin "$scratch/bad.img"
rc=$?
if [ $rc -eq 4 ] && [ ! -s "$out" ]; then
	tap_ok "--cat: a file whose block fails its hash is not printed"
else
	tap_not_ok "--cat of a failing block (exit $rc, $(stat -c %s "$out") bytes)" "$err"
fi

run_fsck "$out" "$err" "${tree[@]}" --ignore-errors --extract="$scratch/x2" \
	"$scratch/bad.img"
rc=$?
size=$(stat -c %s "$scratch/x2/zeros-2m.bin" 2>/dev/null)
if [ $rc -eq 4 ] && [ "$size" = $((2 << 20)) ]; then
	tap_ok "--ignore-errors: the file salvaged as a damaged one is"
else
	tap_not_ok "--ignore-errors of a failing block (exit $rc, size $size)" "$err"
fi

# a byte of a directory's block: a name in /bigdir, stored once
cp "$img" "$scratch/dir.img"
dat=$("$PYTHON3" -c 'import sys
print(open(sys.argv[1], "rb").read().index(b"e00300-"))' "$img")
flip "$scratch/dir.img" "$dat"
run_fsck "$out" "$err" "${tree[@]}" --extract="$scratch/x3" "$scratch/dir.img"
rc=$?
if [ $rc -eq 4 ] && [ ! -e "$scratch"/x3/bigdir/e00300-* ] &&
	[ -e "$scratch/x3/zeros-2m.bin" ] &&
	grep -q "^fsck.erofs: /bigdir: .*data block $((dat / 4096)) fails its hash" "$err" &&
	! grep -q "fails its verity hash; nothing this run read" "$err"; then
	tap_ok "a directory block that fails: its entries not walked, named once"
else
	tap_not_ok "a failing directory block (exit $rc)" "$err"
fi

# the race: the byte changed right after a read returned it
for mode in extract tar cat; do
	cp "$img" "$scratch/race.img"
	case $mode in
	extract) args=(--extract="$scratch/x-$mode") ;;
	tar) args=(--tar="$scratch/race.tar") ;;
	cat) args=(--cat=zeros-2m.bin) ;;
	esac
	EROFS_FAULT_PATH="$scratch/race.img" EROFS_FAULT_TAMPER_AT="$at" \
		LD_PRELOAD="$shim" "$FSCK" -j2 "${tree[@]}" "${args[@]}" \
		"$scratch/race.img" >"$out" 2>"$err"
	rc=$?
	case $mode in
	extract) got=$(zeros "$scratch/x-$mode" && echo zeros) ;;
	tar)
		mkdir -p "$scratch/t-$mode"
		tar -xf "$scratch/race.tar" -C "$scratch/t-$mode" zeros-2m.bin
		got=$(zeros "$scratch/t-$mode" && echo zeros)
		;;
	cat) got=$(cmp -s "$out" <(head -c $((2 << 20)) /dev/zero) && echo zeros) ;;
	esac
	if [ $rc -eq 0 ] && [ "$got" = zeros ] &&
		grep -q "io_fail: tampered with byte $at" "$err"; then
		tap_ok "the image changed after its block was read ($mode): the checked bytes are the ones written"
	else
		tap_not_ok "the image changed while read, $mode (exit $rc, ${got:-not the checked bytes})" "$err"
	fi
done

# a tree cut short: its superblock says 2 data blocks, the root the same
cp "$scratch/plain.hash" "$scratch/short.hash"
"$PYTHON3" -c 'import struct, sys
f = open(sys.argv[1], "r+b"); f.seek(72); f.write(struct.pack("<Q", 2))' \
	"$scratch/short.hash"
run_fsck "$out" "$err" --verity="$scratch/short.hash" --root-hash="$root" \
	--extract="$scratch/x4" "$scratch/bad.img"
rc=$?
if [ $rc -eq 4 ] && [ ! -e "$scratch/x4" ] &&
	grep -q "holds bytes other than zeros past its 2 digests" "$err" &&
	grep -q "tree cannot be used: nothing is extracted" "$err" &&
	! veritysetup verify "$scratch/bad.img" "$scratch/short.hash" "$root" \
		>/dev/null 2>&1; then
	tap_ok "a tree cut short to 2 blocks: exit 4 as veritysetup fails, nothing extracted"
else
	tap_not_ok "a tree cut short (exit $rc)" "$err"
fi
# what a clean run says it did not verify, and --require-verity
run_fsck "$out" "$err" "$img"
rc=$?
run_fsck "$out" "$scratch/err2" --require-verity "$img"
rc2=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$err")" = 1 ] &&
	grep -q 'plain.img: no hash tree: [0-9.]* [A-Za-z]* of file data and every inode field are unchecked (EROFS has no checksums' "$err" &&
	[ $rc2 -eq 4 ] && grep -q -- '--require-verity: no dm-verity tree verified the image' "$scratch/err2"; then
	tap_ok "no tree: one line says what is unchecked; --require-verity: exit 4"
else
	tap_not_ok "no tree (exit $rc, $rc2)" "$err"
fi
run_fsck "$out" "$err" --require-verity --json "${tree[@]}" "$img"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$err" ] && "$PYTHON3" -c 'import json, sys
i = json.load(open(sys.argv[1]))["integrity"]
assert i["root_hash_from"] == "option" and i["anchored"], i
assert i["unverified_bytes"] == 0 and i["verified_bytes"] == int(sys.argv[2]), i' "$out" "$(stat -c %s "$img")"; then
	tap_ok "--require-verity with --verity and --root-hash: exit 0, silent, every byte verified in --json"
else
	tap_not_ok "--require-verity with a tree (exit $rc)" "$err"
fi

# a multi-device image: the tree covers the primary device, not the blob
resolve plain-b512-chunk4k-blobdev.erofs || exit 99
cp "$path" "$scratch/blobimg.erofs" || exit 99
resolve plain-b512-chunk4k-blobdev.blob || exit 99
blob=$path
broot=$(veritysetup format --data-block-size=512 --hash-block-size=512 \
	"$scratch/blobimg.erofs" "$scratch/blob.hash" |
	sed -n 's/^Root hash:[[:space:]]*//p')
btree=(--verity="$scratch/blob.hash" --root-hash="$broot" --device="$blob")
run_fsck "$out" "$err" --extract "${btree[@]}" "$scratch/blobimg.erofs"
rc=$?
run_fsck "$out" "$scratch/err2" --require-verity "${btree[@]}" "$scratch/blobimg.erofs"
rc2=$?
if [ $rc -eq 0 ] && grep -q 'device 1 (.*blobdev.blob): [0-9.]* MiB that no hash tree covers' "$err" &&
	[ $rc2 -eq 4 ] && grep -q -- '--require-verity: device 1 (.*blobdev.blob): [0-9]* of its [0-9]* bytes are covered by no hash tree' "$scratch/err2"; then
	tap_ok "--device: data no tree covers said so; --require-verity: exit 4 naming the device"
else
	tap_not_ok "--device with a tree for the primary only (exit $rc, $rc2)" "$err"
fi
[ $tap_failed -eq 0 ]
