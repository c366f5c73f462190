#!/bin/bash
# gpt.sh: GPT disk images made by sfdisk, opened in place (TAP).
#
# A 40 MiB disk of three partitions (root-x86-64 labelled "root" holding
# a stored EROFS image, esp, linux-generic "data"), made by sfdisk:
# - --list-partitions and --list-partitions --json name every partition
#   as sfdisk -J does (index, label, type GUID, UUID, offset, size), the
#   types by their Discoverable Partitions Specification names, and what
#   each holds;
# - with no --partition the one EROFS root partition is checked, and
#   --partition=1, =root (the label) and =root-x86-64 (the type) give the
#   manifest of the image itself; a partition that holds no EROFS, or none
#   of that name, is an error naming it;
# - --write-image writes the partition's bytes, --write-partitions=DIR
#   every partition, under its label;
# - the primary header or its entries damaged: the backup header is read
#   and a warning says so; both damaged, or entries that overlap (CRC32s
#   made right again): exit 4 (errors found) naming what is wrong in each;
# - two EROFS root partitions and no --partition: a usage error;
# - valid headers for both 512- and 4096-byte sectors: exit 4;
# - labels that are no plain file names (part2 beside an unlabelled
#   partition 2, ESC, '/'): --write-partitions writes partN.img, and
#   listings and messages escape them;
# - 4096-byte sectors;
# - the disk image systemd-repart makes of the image (Type=root,
#   CopyBlocks=) and an ESP: checked with no option.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

need_tools sfdisk
make_scratch
resolve lz4hc-default.erofs || exit 99
raw=$path
disk=$scratch/disk.img
root_guid=4f68bce3-e8cd-4db1-96e7-fbcaf984b709

# mkdisk DISK SECTOR TYPE_OF_3: a 40 MiB GPT disk, raw copied into 1;
# 4096-byte sectors through a loop device of that sector size (sfdisk
# takes the device's); 1 when there is none
mkdisk()
{
	local start dev=$1
	dd if=/dev/zero of="$1" bs=1M count=40 status=none || exit 99
	if [ "$2" != 512 ]; then
		dev=$(losetup -f --show --sector-size "$2" "$1" 2>/dev/null) ||
			return 1
	fi
	printf 'label: gpt\nsize=8MiB, type=%s, name="root"\nsize=4MiB, type=c12a7328-f81f-11d2-ba4b-00a0c93ec93b, name="esp"\nsize=8MiB, type=%s, name="data"\n' \
		"$root_guid" "$3" | sfdisk -q "$dev" 2>/dev/null
	start=$(sfdisk -J "$dev" | "$PYTHON3" -c \
		'import json, sys; print(json.load(sys.stdin)["partitiontable"]["partitions"][0]["start"])')
	[ "$dev" = "$1" ] || losetup -d "$dev"
	[ -n "$start" ] || exit 99
	dd if="$raw" of="$1" bs="$2" seek="$start" conv=notrunc status=none ||
		exit 99
}

mkdisk "$disk" 512 0fc63daf-8483-4772-8e79-3d69d8477de4
sfdisk -J "$disk" >"$scratch/sfdisk.json" || exit 99
"$FSCK" --manifest "$raw" >"$scratch/raw.manifest" || exit 99
tap_plan 20

run_fsck "$out" "$err" --list-partitions "$disk"
rc=$?
if [ $rc -eq 0 ] &&
	grep -q "^1	root	root-x86-64	1048576	8388608	[0-9a-f-]*	EROFS, 4096-byte blocks" "$out" &&
	grep -q "^2	esp	esp	9437184	4194304	[0-9a-f-]*	zeros$" "$out" &&
	grep -q "^3	data	linux-generic	13631488	8388608	" "$out"; then
	tap_ok "--list-partitions: three partitions, types by name, EROFS in 1"
else
	tap_not_ok "--list-partitions (exit $rc)" "$out"
fi

run_fsck "$out" "$err" --list-partitions --json "$disk"
rc=$?
if [ $rc -eq 0 ] && "$PYTHON3" - "$out" "$scratch/sfdisk.json" <<'EOF'
import json, sys
ours = json.load(open(sys.argv[1]))
theirs = json.load(open(sys.argv[2]))["partitiontable"]
assert ours["table"] == "gpt" and ours["sector_size"] == 512
assert ours["disk_guid"] == theirs["id"].lower()
assert len(ours["partitions"]) == len(theirs["partitions"]) == 3
for i, (p, q) in enumerate(zip(ours["partitions"], theirs["partitions"])):
    assert p["index"] == i + 1
    assert p["label"] == q["name"]
    assert p["type_guid"] == q["type"].lower()
    assert p["uuid"] == q["uuid"].lower()
    assert p["offset"] == q["start"] * 512 and p["size"] == q["size"] * 512
assert [p["type"] for p in ours["partitions"]] == ["root-x86-64", "esp", "linux-generic"]
assert [p["holds"] for p in ours["partitions"]] == ["EROFS", "zeros", "zeros"]
EOF
then
	tap_ok "--list-partitions --json: what sfdisk -J says, and more"
else
	tap_not_ok "--list-partitions --json (exit $rc)" "$out"
fi

run_fsck "$out" "$err" --manifest -d3 "$disk"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$out" "$scratch/raw.manifest" &&
	grep -q 'GPT partition 1 root (root-x86-64)' "$err"; then
	tap_ok "no --partition: the one EROFS root partition, checked"
else
	tap_not_ok "no --partition (exit $rc)"
fi
for spec in 1 root root-x86-64; do
	run_fsck "$out" "$err" --manifest --partition="$spec" "$disk"
	rc=$?
	if [ $rc -eq 0 ] && cmp -s "$out" "$scratch/raw.manifest"; then
		tap_ok "--partition=$spec: the image's manifest"
	else
		tap_not_ok "--partition=$spec (exit $rc)"
	fi
done
run_fsck "$out" "$err" --partition=esp "$disk"
tap_status "--partition=esp: holds no EROFS" 8 $? 'partition 2 esp holds zeros, not EROFS'
run_fsck "$out" "$err" --partition=9 "$disk"
tap_status "--partition=9: none, the partitions named" 8 $? \
	'no GPT partition 9 (the partitions: 1 root (root-x86-64), 2 esp (esp), 3 data (linux-generic))'

run_fsck "$out" "$err" --partition=root --write-image="$scratch/root.img" "$disk"
rc=$?
dd if="$disk" of="$scratch/root.want" bs=512 skip=2048 count=16384 status=none
if [ $rc -eq 0 ] && cmp -s "$scratch/root.img" "$scratch/root.want"; then
	tap_ok "--write-image: the partition's bytes"
else
	tap_not_ok "--write-image (exit $rc)"
fi
run_fsck "$out" "$err" --write-partitions="$scratch/parts" "$disk"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$scratch/parts/root.img" "$scratch/root.want" &&
	[ "$(stat -c %s "$scratch/parts/esp.img")" = 4194304 ] &&
	[ "$(stat -c %s "$scratch/parts/data.img")" = 8388608 ]; then
	tap_ok "--write-partitions: root.img, esp.img, data.img"
else
	tap_not_ok "--write-partitions (exit $rc)"
fi

# damage BYTE: a copy of the disk with byte BYTE flipped
damage()
{
	cp "$disk" "$scratch/bad.img" || exit 99
	printf '\xff' | dd of="$scratch/bad.img" bs=1 seek="$1" conv=notrunc \
		status=none || exit 99
}

damage $((512 + 60))
run_fsck "$out" "$err" --manifest "$scratch/bad.img"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$out" "$scratch/raw.manifest" &&
	grep -q 'warning: primary GPT: header CRC32 .* does not match; read the backup header' "$err"; then
	tap_ok "primary header damaged: the backup read, a warning"
else
	tap_not_ok "primary header damaged (exit $rc)"
fi
damage $((1024 + 128 + 60))
run_fsck "$out" "$err" --list-partitions "$scratch/bad.img"
rc=$?
if [ $rc -eq 0 ] && grep -q "partition entries' CRC32 .* does not match; read the backup" "$err" &&
	grep -q "^1	root	root-x86-64	" "$out"; then
	tap_ok "primary entries damaged: the backup read, a warning"
else
	tap_not_ok "primary entries damaged (exit $rc)"
fi
cp "$scratch/bad.img" "$scratch/bad2.img"
size=$(stat -c %s "$disk")
printf '\xff' | dd of="$scratch/bad2.img" bs=1 seek=$((size - 512 + 60)) \
	conv=notrunc status=none
run_fsck "$out" "$err" "$scratch/bad2.img"
tap_status "both headers damaged: exit 4, both named" 4 $? \
	'primary GPT: .*; backup GPT: header CRC32'

# overlap: partition 2 starts inside 1, both copies' CRC32s made right
"$PYTHON3" - "$disk" "$scratch/overlap.img" <<'EOF' || exit 99
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
def fix(hdr):
    lba, n, esz = struct.unpack_from("<QII", b, hdr + 72)
    ents = lba * 512
    struct.pack_into("<Q", b, ents + esz + 32, 4096)
    struct.pack_into("<I", b, hdr + 88, zlib.crc32(b[ents:ents + n * esz]))
    hsize = struct.unpack_from("<I", b, hdr + 12)[0]
    struct.pack_into("<I", b, hdr + 16, 0)
    struct.pack_into("<I", b, hdr + 16, zlib.crc32(b[hdr:hdr + hsize]))
fix(512)
fix(len(b) - 512)
open(sys.argv[2], "wb").write(b)
EOF
run_fsck "$out" "$err" --list-partitions "$scratch/overlap.img"
tap_status "overlapping partitions: exit 4" 4 $? \
	'primary GPT: partitions 1 and 2 overlap; backup GPT: partitions 1 and 2 overlap'

mkdisk "$scratch/two.img" 512 "$root_guid"
dd if="$raw" of="$scratch/two.img" bs=512 seek=26624 conv=notrunc status=none
run_fsck "$out" "$err" "$scratch/two.img"
tap_status "two EROFS root partitions, no --partition: a usage error" 16 $? \
	'more than one EROFS root or usr partition'

if ! mkdisk "$scratch/4k.img" 4096 0fc63daf-8483-4772-8e79-3d69d8477de4; then
	tap_skip "4096-byte sectors" "no loop device of 4096-byte sectors"
else
	run_fsck "$out" "$err" --manifest -d3 "$scratch/4k.img"
	rc=$?
	if [ $rc -eq 0 ] && cmp -s "$out" "$scratch/raw.manifest" &&
		grep -q 'GPT partition 1 root (root-x86-64), 8388608 bytes at byte 1048576' "$err"; then
		tap_ok "4096-byte sectors: the root partition checked"
	else
		tap_not_ok "4096-byte sectors (exit $rc)"
	fi
fi
# a discoverable disk image as systemd-repart makes one
if ! command -v systemd-repart >/dev/null; then
	tap_skip "systemd-repart's disk image" "no systemd-repart"
else
	mkdir -p "$scratch/defs"
	printf '[Partition]\nType=root\nCopyBlocks=%s\n' "$raw" \
		>"$scratch/defs/10-root.conf"
	printf '[Partition]\nType=esp\nSizeMinBytes=4M\n' \
		>"$scratch/defs/20-esp.conf"
	if systemd-repart --empty=create --size=auto --dry-run=no \
		--definitions="$scratch/defs" "$scratch/ddi.img" >"$err" 2>&1; then
		run_fsck "$out" "$err" --manifest "$scratch/ddi.img"
		rc=$?
		if [ $rc -eq 0 ] && cmp -s "$out" "$scratch/raw.manifest"; then
			tap_ok "systemd-repart's disk image: its root partition checked"
		else
			tap_not_ok "systemd-repart's disk image (exit $rc)"
		fi
	else
		tap_skip "systemd-repart's disk image" "systemd-repart failed here"
	fi
fi

# valid headers for 512-byte and for 4096-byte sectors: the disk is read
# one way or the other depending on its device, so neither is taken
"$PYTHON3" - "$scratch/both.img" <<'EOF' || exit 99
import struct, sys, uuid, zlib
size = 8 << 20
b = bytearray(size)
b[446 + 4] = 0xEE
struct.pack_into("<II", b, 446 + 8, 1, size // 512 - 1)
b[510:512] = b"\x55\xaa"
def table(sector, entries_lba, first, last):
    ent = bytearray(128 * 128)
    struct.pack_into("<16s16sQQQ", ent, 0,
                     uuid.UUID("0fc63daf-8483-4772-8e79-3d69d8477de4").bytes_le,
                     uuid.uuid4().bytes_le, first, first + 1, 0)
    hdr = bytearray(92)
    struct.pack_into("<8sIIIIQQQQ16sQIII", hdr, 0, b"EFI PART", 0x10000, 92,
                     0, 0, 1, size // sector - 1, first, last,
                     uuid.uuid4().bytes_le, entries_lba, 128, 128,
                     zlib.crc32(ent))
    struct.pack_into("<I", hdr, 16, zlib.crc32(hdr))
    b[sector:sector + 92] = hdr
    b[entries_lba * sector:entries_lba * sector + len(ent)] = ent
table(512, 64, 2048, size // 512 - 34)
table(4096, 2, 256, size // 4096 - 6)
open(sys.argv[1], "wb").write(b)
EOF
run_fsck "$out" "$err" --list-partitions "$scratch/both.img"
tap_status "valid GPT headers for two sector sizes: exit 4, neither read" 4 $? \
	'GPT: valid headers for both 512-byte (at byte 512) and 4096-byte sectors'

# labels that are no file names of their own: one of the generated kind
# (part2, on partition 1, beside an unlabelled partition 2), control
# bytes, a '/'; each file is then partN.img, the labels escaped
dd if=/dev/zero of="$scratch/labels.img" bs=1M count=8 status=none
printf 'label: gpt\nsize=1MiB, name="part2"\nsize=1MiB\nsize=1MiB, name="a\033[2Jb"\nsize=1MiB, name="x/y"\n' |
	sfdisk -q "$scratch/labels.img" || exit 99
printf 'one' | dd of="$scratch/labels.img" bs=1 seek=1048576 conv=notrunc status=none
printf 'two' | dd of="$scratch/labels.img" bs=1 seek=2097152 conv=notrunc status=none
run_fsck "$out" "$err" --write-partitions="$scratch/lparts" "$scratch/labels.img"
rc=$?
if [ $rc -eq 0 ] &&
	[ "$(ls "$scratch/lparts" | tr '\n' ' ')" = "part1.img part2.img part3.img part4.img " ] &&
	[ "$(head -c 3 "$scratch/lparts/part1.img")" = one ] &&
	[ "$(head -c 3 "$scratch/lparts/part2.img")" = two ] &&
	! grep -q $'\033' "$err" && grep -q 'partition 3: its name "a\\x1b\[2Jb"' "$err"; then
	tap_ok "--write-partitions: labels part2, with ESC or '/' written as partN.img, none replaced, the message escaped"
else
	tap_not_ok "--write-partitions of unsafe labels (exit $rc)" "$err"
	ls "$scratch/lparts" >&2
fi
run_fsck "$out" "$err" --list-partitions "$scratch/labels.img"
rc=$?
if [ $rc -eq 0 ] && ! grep -q $'\033' "$out" &&
	grep -q '^3	a\\033\[2Jb	linux-generic' "$out"; then
	tap_ok "--list-partitions: a label's control bytes escaped as --list escapes"
else
	tap_not_ok "--list-partitions of a label with ESC (exit $rc)" "$out"
fi
[ $tap_failed -eq 0 ]
