#!/bin/bash
# not-erofs.sh: a file that holds no EROFS image is named for what it
# holds, exit 8, never "errors found" (TAP); usage errors name the value.
#
# ext4, ext2 (mkfs.ext4/mkfs.ext2 where present), random bytes, gzip, xz,
# zstd, bzip2 data, a tar and a zip archive, a squashfs superblock, a GPT
# disk, an MBR, zeros, an empty file: "IMAGE holds WHAT, not EROFS", exit
# 8. A stored image at a wrong --offset: the offset and the byte of the
# file named. --nid past the inode area and --offset=-1: exit 16 naming
# the value.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

make_scratch

# holds NAME FILE WHAT: exit 8, "FILE holds WHAT, not EROFS"
holds()
{
	local name=$1 file=$2 what=$3 rc
	run_fsck "$out" "$err" "$file"
	rc=$?
	if [ "$rc" -eq 8 ] && grep -qF "$file holds $what, not EROFS" "$err" &&
		! grep -q "errors\? found" "$err"; then
		tap_ok "$name: exit 8, '$what'"
	else
		tap_not_ok "$name (exit $rc)"
	fi
}

f=$scratch/file
"$PYTHON3" - "$f" <<'PY'
import gzip, io, lzma, os, struct, sys, tarfile, zipfile, bz2
base = sys.argv[1]
def put(name, data):
    with open(base + "." + name, "wb") as f:
        f.write(data)
put("random", bytes((i * 131 + 7) % 251 for i in range(65536)))
put("gz", gzip.compress(b"x" * 10000))
put("xz", lzma.compress(b"x" * 10000))
put("bz2", bz2.compress(b"x" * 10000))
put("zst", b"\x28\xb5\x2f\xfd" + bytes(60))
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
    info = tarfile.TarInfo("a")
    info.size = 3
    t.addfile(info, io.BytesIO(b"abc"))
put("tar", buf.getvalue())
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as z:
    z.writestr("a", "abc")
put("zip", buf.getvalue())
put("squashfs", b"hsqs" + bytes(8188))
gpt = bytearray(34 * 512)
gpt[510:512] = b"\x55\xaa"
gpt[512:520] = b"EFI PART"
put("gpt", bytes(gpt))
mbr = bytearray(8192)
mbr[510:512] = b"\x55\xaa"
put("mbr", bytes(mbr))
put("zeros", bytes(8192))
put("empty", b"")
PY
holds "random bytes" "$f.random" "unknown data"
holds "gzip" "$f.gz" "gzip data"
holds "xz" "$f.xz" "xz data"
holds "bzip2" "$f.bz2" "bzip2 data"
holds "zstd" "$f.zst" "zstd data"
holds "a tar archive" "$f.tar" "a tar archive"
holds "a zip archive" "$f.zip" "a zip archive"
holds "squashfs" "$f.squashfs" "squashfs"
holds "a GPT disk" "$f.gpt" "a GPT disk"
holds "an MBR" "$f.mbr" "an MBR disk or boot sector"
holds "zeros" "$f.zeros" "zeros"
holds "an empty file" "$f.empty" "nothing"
for fs in ext4 ext2; do
	if command -v "mkfs.$fs" >/dev/null; then
		truncate -s 8M "$f.$fs"
		"mkfs.$fs" -q -F "$f.$fs" >/dev/null 2>&1
		holds "mkfs.$fs" "$f.$fs" "$fs"
	else
		tap_skip "mkfs.$fs" "no mkfs.$fs"
	fi
done

resolve lz4hc-default.erofs || exit 99
img=$path
run_fsck "$out" "$err" --offset=4096 "$img"
tap_status "a stored image at --offset=4096: both offsets named" 8 $? \
	"at --offset=4096, not EROFS (no EROFS superblock at byte 5120 of the file)"
run_fsck "$out" "$err" --nid=99999999999 "$img"
tap_status "--nid past the inode area: a usage error naming it" 16 $? \
	"--nid=99999999999: past the end of the inode area"
run_fsck "$out" "$err" --offset=-1 "$img"
tap_status "--offset=-1: a usage error naming it" 16 $? "invalid offset '-1'"
tap_plan
[ "$tap_failed" -eq 0 ]
