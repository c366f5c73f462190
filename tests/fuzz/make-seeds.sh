#!/bin/bash
# make-seeds.sh DIR: build the fuzzer's seed images in DIR with mkfs.erofs
# (Debian's erofs-utils 1.5): one tiny tree, every layout that mkfs can
# write, each image a few KiB so that the fuzzer's mutations land on
# metadata. The stored seeds (tests/fuzz/seeds) were made with this script.
set -eu
out=$1
mkfs=${MKFS_EROFS:-mkfs.erofs}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/tree

mkdir -p "$tree/d/e" "$tree/empty"
printf 'hello\n' >"$tree/a"
for i in $(seq 1 150); do echo "line $i of a compressible file"; done \
	>"$tree/d/text"
head -c 1200 /dev/urandom >"$tree/d/e/random"
head -c 4096 /dev/zero >"$tree/zero4k"
ln "$tree/a" "$tree/d/hardlink"
ln -s a "$tree/symlink"
ln -s "$(printf 'x%.0s' $(seq 1 300))" "$tree/d/longlink"
mkfifo "$tree/fifo"
mknod "$tree/chr" c 1 3 2>/dev/null || true
truncate -s 9000 "$tree/sparse"
python3 - "$tree" <<'PY' || true
import os, sys
t = sys.argv[1]
for name in ("a", "d/text", "d"):
    os.setxattr(os.path.join(t, name), b"user.shared", b"value")
os.setxattr(os.path.join(t, "a"), b"user.comment", b"x" * 40)
os.setxattr(os.path.join(t, "d/e/random"), b"trusted.overlay.opaque", b"y")
PY

mkdir -p "$out"
make_seed()
{
	local name=$1
	shift
	"$mkfs" --quiet -T1700000000 \
		-U 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 "$@" \
		"$out/$name.erofs" "$tree" >/dev/null
}
make_seed plain
make_seed plain-noinline -Enoinline_data
make_seed plain-extended -Eforce-inode-extended -x1
make_seed chunk-blockmap --chunksize=4096 -Eforce-inode-blockmap
make_seed chunk-indexes --chunksize=8192 -Eforce-chunk-indexes
make_seed lz4 -zlz4
make_seed lz4hc -zlz4hc
make_seed lz4hc-big -zlz4hc -C16384
make_seed lz4hc-ztailpacking -zlz4hc -Eztailpacking
make_seed lz4hc-legacy -zlz4hc -Elegacy-compress
make_seed lz4-compact-inodes -zlz4 -Eforce-inode-compact

# The same images with byte 0 choosing the other outputs (fuzz_fsck.c):
# archives in pax, cpio and mtree, a listing with a selection, a
# comparison at -j1 and -j2.
seed_outputs()
{
	local base=$1 byte name
	shift
	for byte in "$@"; do
		name=$base-out$byte
		cp "$out/$base.erofs" "$out/$name.erofs"
		printf "\\x$byte" | dd of="$out/$name.erofs" bs=1 count=1 \
			conv=notrunc 2>/dev/null
	done
}
seed_outputs lz4hc 40 46 4a 80 8a c0 c2
seed_outputs plain 40 88 c4

# A GPT disk made by sfdisk (fdisk's package), sectors from 34 on so that
# it stays small: lz4.erofs in a root partition, and its dm-verity tree
# (veritysetup format, cryptsetup-bin, a fixed salt and UUID) in the
# root-verity one beside it, the two partitions' UUIDs making the tree's
# root hash, so that the tree is checked as a disk image's is.
hash=$tmp/lz4.verity
root=$(veritysetup format --salt=5a5a5a5a --uuid=01234567-89ab-cdef-0123-456789abcdef \
	"$out/lz4.erofs" "$hash" | sed -n 's/^Root hash:[[:space:]]*//p')
uuid()
{
	printf '%s-%s-%s-%s-%s' "${1:0:8}" "${1:8:4}" "${1:12:4}" "${1:16:4}" \
		"${1:20:12}"
}
gpt=$out/gpt-disk.img
dd if=/dev/zero of="$gpt" bs=512 count=123 status=none
printf 'label: gpt\nfirst-lba: 34\nstart=34, size=32, type=4f68bce3-e8cd-4db1-96e7-fbcaf984b709, uuid=%s, name="root"\nstart=66, size=16, type=2c7357ed-ebd2-46d9-aec1-23d437ec2bf5, uuid=%s, name="root-verity"\n' \
	"$(uuid "${root:0:32}")" "$(uuid "${root:32:32}")" | sfdisk -q "$gpt"
dd if="$out/lz4.erofs" of="$gpt" bs=512 seek=34 conv=notrunc status=none
dd if="$hash" of="$gpt" bs=512 seek=66 conv=notrunc status=none

# lz4.erofs as an Android partition with an AVB hashtree footer
# (tests/lib/avbimg.py), found and checked with no option.
PYTHONPATH=$(dirname "$0")/../lib python3 -c '
import sys, avbimg
raw = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(avbimg.add_hashtree_footer(raw)[0])' \
	"$out/lz4.erofs" "$out/avb-footer.erofs"
