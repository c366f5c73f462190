#!/bin/bash
# verity.sh: --verity and --hash-offset against trees veritysetup made
# (TAP).
#
# veritysetup format (cryptsetup-bin) makes the trees: a separate hash
# file, a tree appended to the image (--hash-offset), 1 KiB data and hash
# blocks, sha1 and sha512, trees without a superblock (--no-superblock,
# with the salt, the format 0 of Chrome OS). Required:
# - a tree that matches: exit 0 at -j1 and -j2, with --extract=DIR too,
#   every data block counted at -d3;
# - a root hash that is not the tree's: exit 4, both hashes named, at
#   the offset in the hash file, which the message names;
# - a byte flipped in an uncompressed file's data, which the check alone
#   cannot see (exit 0 without --verity): exit 4 naming the block (the
#   check alone, which reads no file data) and, with --extract, the file,
#   as veritysetup verify fails too; in a block of
#   inodes: each inode in it named (its read fails); in a block nothing
#   uses (past the filesystem's blocks, in the file): named as such;
# - a byte flipped in the tree's leaves: the data blocks it covers named
#   as unchecked, exit 4;
# - a tree of one data block, which covers less than the filesystem:
#   exit 4;
# - a hash file cut short, a tree inside the filesystem, superblocks of an
#   unknown version or algorithm or with hash blocks over 64 KiB or not a
#   power of two, a root hash of the wrong length, and options that do not
#   go together: clear errors, no crash;
# - a disk image systemd-repart makes with a root and a root-verity
#   partition: the tree checked with no option (the root hash is the two
#   partitions' UUIDs, or a root-verity-sig partition's rootHash), a
#   flipped byte named, --root-hash overriding it, --no-verity skipping it.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

need_tools veritysetup
make_scratch
resolve plain.erofs || exit 99
cp "$path" "$scratch/plain.img" || exit 99
resolve lz4hc-default.erofs || exit 99
cp "$path" "$scratch/lz4.img" || exit 99

# format IMG HASH [OPTION...]: the root hash veritysetup prints
format()
{
	local img=$1 hash=$2
	shift 2
	veritysetup format "$@" "$img" "$hash" | sed -n 's/^Root hash:[[:space:]]*//p'
}

# flip FILE BYTE: one byte of FILE inverted
flip()
{
	"$PYTHON3" -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2]))
b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xff]))' "$1" "$2"
}

root=$(format "$scratch/plain.img" "$scratch/plain.hash")
[ ${#root} = 64 ] || exit 99
tap_plan 48

for j in 1 2; do
	run_fsck "$out" "$err" -j$j -d3 --verity="$scratch/plain.hash" \
		--root-hash="$root" "$scratch/plain.img"
	tap_status "-j$j: the tree matches" 0 $? \
		'dm-verity (sha256, a tree of [0-9] levels\?): [0-9]* data blocks of 4096 bytes checked, 0 fail'
done
# at -j1 the pair of workers that take turns to decode starts (the tests'
# EROFS_FSCK_SYNC_NS=0); the tree is hashed on one thread
for j in 1 2; do
	rm -rf "$scratch/x"
	run_fsck "$out" "$err" -j$j -d3 --extract="$scratch/x" \
		--verity="$scratch/plain.hash" --root-hash="$root" \
		"$scratch/plain.img"
	tap_status "-j$j --extract=DIR with --verity: the tree matches" 0 $? \
		'dm-verity (sha256, a tree of [0-9] levels\?): [0-9]* data blocks of 4096 bytes checked, 0 fail'
done

other=$(printf '%s' "$root" | tr '0-9a-f' '1-9a-f0')
run_fsck "$out" "$err" --verity="$scratch/plain.hash" --root-hash="$other" \
	"$scratch/plain.img"
tap_status "another root hash: exit 4, both named, at its offset in the hash file" 4 $? \
	"^fsck.erofs: $scratch/plain.hash: offset [0-9]*: dm-verity tree: its root hash is $root, not $other"

# a byte in the middle of zeros-2m.bin, stored uncompressed
"$FSCK" --manifest "$scratch/plain.img" >/dev/null || exit 99
cp "$scratch/plain.img" "$scratch/flip.img"
at=$("$PYTHON3" -c 'import sys
d = open(sys.argv[1], "rb").read()
print(d.index(bytes(2 << 20)) + (1 << 20))' "$scratch/plain.img")
flip "$scratch/flip.img" "$at"
run_fsck "$out" "$err" "$scratch/flip.img"
tap_status "a byte of stored data flipped: the check alone sees nothing" 0 $?
run_fsck "$out" "$scratch/err2" -j2 --verity="$scratch/plain.hash" \
	--root-hash="$root" "$scratch/flip.img"
rc2=$?
run_fsck "$out" "$err" -j2 --extract --verity="$scratch/plain.hash" \
	--root-hash="$root" "$scratch/flip.img"
rc=$?
block=$((at / 4096))
if [ $rc2 -eq 4 ] &&
	grep -q "data block $block fails its verity hash; this check reads no file data: --extract names the file it belongs to" "$scratch/err2" &&
	[ $rc -eq 4 ] &&
	grep -q "^fsck.erofs: /zeros-2m.bin: nid [0-9]*, offset [0-9]*: dm-verity data block $block fails its hash$" "$err" &&
	! veritysetup verify "$scratch/flip.img" "$scratch/plain.hash" "$root" \
		>/dev/null 2>&1; then
	tap_ok "--verity finds block $block, --extract names the file, as veritysetup fails"
else
	tap_not_ok "a byte of stored data flipped, --verity (exit $rc)"
fi

lroot=$(format "$scratch/lz4.img" "$scratch/lz4.hash")
cp "$scratch/lz4.img" "$scratch/inodes.img"
flip "$scratch/inodes.img" 700000
run_fsck "$out" "$err" --verity="$scratch/lz4.hash" --root-hash="$lroot" \
	"$scratch/inodes.img"
rc=$?
n=$(grep -c 'nid [0-9]*, offset 696320: dm-verity data block 170 fails its hash$' "$err")
if [ $rc -eq 4 ] && [ "$n" -gt 1 ]; then
	tap_ok "a block of inodes: each of its $n inodes named"
else
	tap_not_ok "a block of inodes (exit $rc, $n named)"
fi

# a byte of a directory's block: a name in /bigdir, stored in no other place
cp "$scratch/plain.img" "$scratch/dir.img"
at=$("$PYTHON3" -c 'import sys
print(open(sys.argv[1], "rb").read().index(b"e00300-"))' "$scratch/plain.img")
flip "$scratch/dir.img" "$at"
run_fsck "$out" "$err" --verity="$scratch/plain.hash" --root-hash="$root" \
	"$scratch/dir.img"
tap_status "a byte of a directory block: the directory named" 4 $? \
	"^fsck.erofs: /bigdir: nid [0-9]*, offset [0-9]*: dm-verity data block $((at / 4096)) fails its hash$"

# a block past the filesystem's own, in the file: nothing uses it
cp "$scratch/lz4.img" "$scratch/free.img"
head -c 4096 /dev/zero >>"$scratch/free.img"
froot=$(format "$scratch/free.img" "$scratch/free.hash")
fsize=$(stat -c %s "$scratch/free.img")
flip "$scratch/free.img" $((fsize - 100))
run_fsck "$out" "$err" --verity="$scratch/free.hash" --root-hash="$froot" \
	"$scratch/free.img"
tap_status "a byte nothing uses: the block named as such" 4 $? \
	"data block $((fsize / 4096 - 1)) fails its verity hash; this check reads no file data"
run_fsck "$out" "$err" --extract --verity="$scratch/free.hash" \
	--root-hash="$froot" "$scratch/free.img"
tap_status "a byte nothing uses, --extract: the block named as such" 4 $? \
	"data block $((fsize / 4096 - 1)) fails its verity hash; nothing this run read lies in it"

cp "$scratch/plain.hash" "$scratch/leaf.hash"
size=$(stat -c %s "$scratch/leaf.hash")
flip "$scratch/leaf.hash" $((size - 4096 + 100))
run_fsck "$out" "$err" --verity="$scratch/leaf.hash" --root-hash="$root" \
	"$scratch/plain.img"
tap_status "a byte of the last leaf flipped: its data blocks unchecked" 4 $? \
	'leaf hash block [0-9]* fails its hash: data blocks [0-9]* to [0-9]* cannot be checked'

cp "$scratch/lz4.img" "$scratch/app.img"
isize=$(stat -c %s "$scratch/app.img")
aroot=$(format "$scratch/app.img" "$scratch/app.img" --hash-offset="$isize")
run_fsck "$out" "$err" --hash-offset="$isize" --root-hash="$aroot" \
	"$scratch/app.img"
tap_status "a tree appended to the image (--hash-offset)" 0 $?
run_fsck "$out" "$err" --hash-offset=4096 --root-hash="$aroot" \
	"$scratch/app.img"
tap_status "--hash-offset inside the filesystem: a usage error" 16 $? \
	'--hash-offset=4096: dm-verity superblock: no "verity" signature'

kroot=$(format "$scratch/lz4.img" "$scratch/k.hash" --data-block-size=1024 \
	--hash-block-size=1024)
run_fsck "$out" "$err" -d3 --verity="$scratch/k.hash" --root-hash="$kroot" \
	"$scratch/lz4.img"
tap_status "1 KiB data and hash blocks" 0 $? \
	'(sha256, a tree of 3 levels): [0-9]* data blocks of 1024 bytes checked, 0 fail'

head -c 8192 "$scratch/plain.hash" >"$scratch/short.hash"
run_fsck "$out" "$err" --verity="$scratch/short.hash" --root-hash="$root" \
	"$scratch/plain.img"
tap_status "a hash file cut short: exit 4" 4 $? \
	'past the end of the hash device'

for alg in sha1 sha512; do
	hroot=$(format "$scratch/lz4.img" "$scratch/$alg.hash" --hash=$alg)
	run_fsck "$out" "$err" -j2 -d3 --verity="$scratch/$alg.hash" \
		--root-hash="$hroot" "$scratch/lz4.img"
	tap_status "a $alg tree: checked" 0 $? "($alg, a tree of [0-9] levels\?): [0-9]* data blocks of 4096 bytes checked, 0 fail"
done
run_fsck "$out" "$err" -j2 --verity="$scratch/sha512.hash" --root-hash="$hroot" \
	"$scratch/inodes.img"
tap_status "a $alg tree: a flipped byte named" 4 $? \
	'nid [0-9]*, offset 696320: dm-verity data block 170 fails its hash$'
run_fsck "$out" "$err" --verity="$scratch/sha512.hash" --root-hash="$lroot" \
	"$scratch/lz4.img"
tap_status "a sha512 tree, a sha256 root hash: a usage error" 16 $? \
	'root hash of 32 bytes, not the 64 of sha512'

# superblocks no veritysetup writes: ver VERSION, alg NAME, hbs SIZE
crafted()
{
	cp "$scratch/plain.hash" "$scratch/crafted.hash"
	"$PYTHON3" -c 'import struct, sys
f = open(sys.argv[1], "r+b")
kind, val = sys.argv[2], sys.argv[3]
if kind == "ver":
    f.seek(8); f.write(struct.pack("<I", int(val)))
elif kind == "alg":
    f.seek(32); f.write(val.encode().ljust(32, b"\0"))
else:
    f.seek(68); f.write(struct.pack("<I", int(val)))' "$scratch/crafted.hash" "$1" "$2"
	run_fsck "$out" "$err" --verity="$scratch/crafted.hash" \
		--root-hash="$root" "$scratch/plain.img"
}
crafted ver 2
tap_status "a superblock of version 2: not read, exit 8" 8 $? \
	'superblock: version 2, not 1'
crafted alg md5
tap_status "a superblock naming md5: not computed, exit 8" 8 $? \
	'hash algorithm "md5"; this build checks sha1, sha256 and sha512'
crafted hbs 131072
tap_status "hash blocks of 128 KiB: refused" 16 $? \
	'hash blocks of 131072 (powers of two from 512 to 65536)'
crafted hbs 3000
tap_status "hash blocks of 3000 bytes: refused" 16 $? \
	'hash blocks of 3000 (powers of two'

# trees without a superblock: the parameters as options
nsb=$(veritysetup format --no-superblock --hash=sha1 --data-block-size=1024 \
	--hash-block-size=2048 --format=0 "$scratch/lz4.img" "$scratch/nsb.hash")
nroot=$(printf '%s\n' "$nsb" | sed -n 's/^Root hash:[[:space:]]*//p')
nsalt=$(printf '%s\n' "$nsb" | sed -n 's/^Salt:[[:space:]]*//p')
run_fsck "$out" "$err" -j2 -d3 --verity="$scratch/nsb.hash" --no-superblock \
	--hash=sha1 --data-block-size=1024 --hash-block-size=2048 \
	--verity-format=0 --salt="$nsalt" --root-hash="$nroot" "$scratch/lz4.img"
tap_status "--no-superblock: sha1, 1 KiB data, 2 KiB hash blocks, format 0" \
	0 $? '(sha1, a tree of [0-9] levels\?): [0-9]* data blocks of 1024 bytes checked, 0 fail'
run_fsck "$out" "$err" --verity="$scratch/nsb.hash" --no-superblock \
	--hash=sha1 --data-block-size=1024 --hash-block-size=2048 \
	--salt="$nsalt" --root-hash="$nroot" "$scratch/lz4.img"
tap_status "--no-superblock, the wrong format: the root differs, exit 4" 4 $? \
	"its root hash is [0-9a-f]*, not $nroot"
cp "$scratch/lz4.img" "$scratch/nsbapp.img"
nsb=$(veritysetup format --no-superblock --salt=- --hash-offset="$isize" \
	--data-blocks=$((isize / 4096)) "$scratch/nsbapp.img" "$scratch/nsbapp.img")
nroot=$(printf '%s\n' "$nsb" | sed -n 's/^Root hash:[[:space:]]*//p')
run_fsck "$out" "$err" --hash-offset="$isize" --no-superblock \
	--data-blocks=$((isize / 4096)) --root-hash="$nroot" "$scratch/nsbapp.img"
tap_status "--no-superblock, appended, no salt, --data-blocks" 0 $?
# one data block has a tree of no levels: its digest is the root hash
nsb=$(veritysetup format --no-superblock --data-blocks=1 "$scratch/plain.img" \
	"$scratch/one.hash")
nroot=$(printf '%s\n' "$nsb" | sed -n 's/^Root hash:[[:space:]]*//p')
run_fsck "$out" "$err" -d3 --verity="$scratch/one.hash" --no-superblock \
	--salt="$(printf '%s\n' "$nsb" | sed -n 's/^Salt:[[:space:]]*//p')" \
	--data-blocks=1 --root-hash="$nroot" "$scratch/plain.img"
tap_status "one data block, no levels: a tree that covers less than the filesystem fails" 4 $? \
	'past the 4096 bytes the dm-verity tree covers: the tree does not cover the filesystem'

run_fsck "$out" "$err" --root-hash="$root" "$scratch/plain.img"
tap_status "--root-hash alone, IMAGE carries no tree: a usage error" 16 $? \
	'carries no dm-verity tree'
run_fsck "$out" "$err" --verity="$scratch/plain.hash" "$scratch/plain.img"
tap_status "--verity without --root-hash: a usage error" 16 $? 'need --root-hash'
run_fsck "$out" "$err" --verity="$scratch/plain.hash" --root-hash=abc \
	"$scratch/plain.img"
tap_status "--root-hash=abc: a usage error" 16 $? 'hexadecimal digits'
run_fsck "$out" "$err" --hash=sha1 --verity="$scratch/plain.hash" \
	--root-hash="$root" "$scratch/plain.img"
tap_status "--hash without --no-superblock: a usage error" 16 $? \
	'need --no-superblock'
run_fsck "$out" "$err" --no-superblock "$scratch/plain.img"
tap_status "--no-superblock without a tree: a usage error" 16 $? \
	'--no-superblock needs --verity'
run_fsck "$out" "$err" --no-superblock --hash=md5 --verity="$scratch/plain.hash" \
	--root-hash="$root" "$scratch/plain.img"
tap_status "--hash=md5: a usage error" 16 $? '--hash=md5: sha1, sha256 or sha512'
run_fsck "$out" "$err" --no-superblock --salt=abc --verity="$scratch/plain.hash" \
	--root-hash="$root" "$scratch/plain.img"
tap_status "--salt=abc: a usage error" 16 $? 'an even number of hexadecimal digits'
run_fsck "$out" "$err" --no-superblock --data-block-size=1000 \
	--verity="$scratch/plain.hash" --root-hash="$root" "$scratch/plain.img"
tap_status "--data-block-size=1000: a usage error" 16 $? 'a power of two'
# a discoverable disk image with a root-verity partition (systemd-repart):
# the root hash is the partitions' UUIDs, the tree checked with no option
if ! command -v systemd-repart >/dev/null; then
	for what in matches "a flipped byte named" "--root-hash overrides" \
		"--no-verity" "a root from the image said so" \
		"--require-verity refuses a root from the image" \
		"--require-verity with the root given" \
		"two verity partitions" "the verity partition retyped" \
		"the root-verity-sig partition's root hash" \
		"the signature partition listed as such" \
		"a signature whose root does not pair"; do
		tap_skip "systemd-repart's verity disk image: $what" "no systemd-repart"
	done
	exit $((tap_failed > 0))
fi
mkdir -p "$scratch/defs"
printf '[Partition]\nType=root\nCopyBlocks=%s\nVerity=data\nVerityMatchKey=root\n' \
	"$scratch/lz4.img" >"$scratch/defs/10-root.conf"
printf '[Partition]\nType=root-verity\nVerity=hash\nVerityMatchKey=root\n' \
	>"$scratch/defs/20-verity.conf"
systemd-repart --empty=create --size=auto --dry-run=no \
	--definitions="$scratch/defs" "$scratch/ddi.img" >"$err" 2>&1 || exit 99
run_fsck "$out" "$err" -d3 "$scratch/ddi.img"
tap_status "systemd-repart's verity disk image: checked, the tree too" 0 $? \
	"the dm-verity tree of GPT partition 2 (root-x86-64-verity), its root hash from the partitions' UUIDs"
cp "$scratch/ddi.img" "$scratch/ddi-bad.img"
flip "$scratch/ddi-bad.img" $((1048576 + 700000))
run_fsck "$out" "$err" --extract="$scratch/ddix" "$scratch/ddi-bad.img"
tap_status "systemd-repart's verity disk image: a flipped byte named" 4 $? \
	'nid [0-9]*, offset [0-9]*: dm-verity data block [0-9]* fails its hash$'
run_fsck "$out" "$err" --root-hash="$root" "$scratch/ddi.img"
tap_status "systemd-repart's verity disk image: --root-hash overrides" 4 $? \
	"its root hash is [0-9a-f]*, not $root"
run_fsck "$out" "$err" -d3 --no-verity "$scratch/ddi.img"
if [ $? -eq 0 ] && ! grep -q 'dm-verity' "$err"; then
	tap_ok "systemd-repart's verity disk image: --no-verity skips the tree"
else
	tap_not_ok "systemd-repart's verity disk image: --no-verity"
fi
run_fsck "$out" "$err" "$scratch/ddi.img"
tap_status "systemd-repart's verity disk image: a root from the image said so" 0 $? \
	"root hash taken from the image (the partitions' UUIDs): proves consistency, not origin"
run_fsck "$out" "$err" --require-verity "$scratch/ddi.img"
tap_status "systemd-repart's verity disk image: --require-verity refuses a root from the image" 4 $? \
	"--require-verity: the root hash comes from the image (the partitions' UUIDs), not from --root-hash"
uroot=$(sfdisk -J "$scratch/ddi.img" | "$PYTHON3" -c 'import json, sys
p = json.load(sys.stdin)["partitiontable"]["partitions"]
print((p[0]["uuid"] + p[1]["uuid"]).replace("-", "").lower())')
run_fsck "$out" "$err" --json --require-verity --root-hash="$uroot" "$scratch/ddi.img"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$err" ] && "$PYTHON3" -c 'import json, sys
i = json.load(open(sys.argv[1]))["integrity"]
assert i["root_hash_from"] == "option" and i["anchored"]
assert i["unverified_bytes"] == 0 and i["verified_bytes"] > 0' "$out"; then
	tap_ok "systemd-repart's verity disk image: --require-verity with the root given: exit 0, nothing said, anchored in --json"
else
	tap_not_ok "systemd-repart's verity disk image: --require-verity with the root given (exit $rc)" "$err"
fi
# a decoy: a second root-x86-64-verity partition
cp "$scratch/ddi.img" "$scratch/two.img"
truncate -s +4M "$scratch/two.img"
sfdisk -q --relocate gpt-bak-std "$scratch/two.img" 2>/dev/null
echo ',2M,2c7357ed-ebd2-46d9-aec1-23d437ec2bf5' |
	sfdisk -q --append "$scratch/two.img" 2>/dev/null || exit 99
run_fsck "$out" "$err" "$scratch/two.img"
tap_status "systemd-repart's verity disk image: two verity partitions are ambiguous, exit 4" 4 $? \
	'GPT partitions 2 and 3 are both root-x86-64-verity: which holds the tree of partition 1 is ambiguous'
# the verity partition retyped: checked without a tree, and said so
cp "$scratch/ddi.img" "$scratch/retyped.img"
sfdisk -q --part-type "$scratch/retyped.img" 2 0fc63daf-8483-4772-8e79-3d69d8477de4 ||
	exit 99
run_fsck "$out" "$err" "$scratch/retyped.img"
rc=$?
run_fsck "$out" "$scratch/err2" --require-verity "$scratch/retyped.img"
rc2=$?
if [ $rc -eq 0 ] && grep -q 'no hash tree: [0-9.]* [A-Za-z]* of file data and every inode field are unchecked' "$err" &&
	[ $rc2 -eq 4 ] && grep -q -- '--require-verity: no dm-verity tree verified the image' "$scratch/err2"; then
	tap_ok "systemd-repart's verity disk image: the verity partition retyped: no tree, said, refused by --require-verity"
else
	tap_not_ok "systemd-repart's verity disk image: the verity partition retyped (exit $rc, $rc2)" "$err"
fi
# a signature partition (Verity=signature) needs a key and a certificate
if ! command -v openssl >/dev/null ||
	! openssl req -x509 -newkey rsa:2048 -nodes -keyout "$scratch/key.pem" \
		-out "$scratch/cert.pem" -days 30 -subj /CN=erofs-fsck-test \
		>/dev/null 2>&1; then
	for what in "the root-verity-sig partition's root hash" \
		"the signature partition listed as such" \
		"a signature whose root does not pair"; do
		tap_skip "systemd-repart's verity disk image: $what" "no openssl"
	done
	exit $((tap_failed > 0))
fi
printf '[Partition]\nType=root-verity-sig\nVerity=signature\nVerityMatchKey=root\n' \
	>"$scratch/defs/30-sig.conf"
systemd-repart --empty=create --size=auto --dry-run=no \
	--private-key="$scratch/key.pem" --certificate="$scratch/cert.pem" \
	--definitions="$scratch/defs" "$scratch/sig.img" >"$err" 2>&1 || exit 99
run_fsck "$out" "$err" -d3 "$scratch/sig.img"
tap_status "systemd-repart's verity disk image: the root-verity-sig partition's root hash" 0 $? \
	'its root hash from the rootHash of GPT partition 3 (root-x86-64-verity-sig), its signature not checked'
run_fsck "$out" "$err" --list-partitions "$scratch/sig.img"
rc=$?
if [ $rc -eq 0 ] && grep -q "root-x86-64-verity-sig	.*	a dm-verity signature (JSON)$" "$out"; then
	tap_ok "systemd-repart's verity disk image: the signature partition listed as such"
else
	tap_not_ok "systemd-repart's verity disk image: the signature partition listed as such (exit $rc)" "$out"
fi
# the data partition's UUID changed: the signature's root no longer pairs
cp "$scratch/sig.img" "$scratch/sig2.img"
sfdisk -q --part-uuid "$scratch/sig2.img" 1 01234567-89ab-cdef-0123-456789abcdef ||
	exit 99
run_fsck "$out" "$err" "$scratch/sig2.img"
tap_status "systemd-repart's verity disk image: a signature whose root does not pair with the UUIDs" 4 $? \
	'GPT partitions 1 and 2: their UUIDs are not the two halves of the rootHash of partition 3'
[ $tap_failed -eq 0 ]
