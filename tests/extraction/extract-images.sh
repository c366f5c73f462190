#!/bin/bash
# extract-images.sh: extract every stored test image, as root, and compare
# the tree with the image's expected manifest (TAP). For each image of
# data/index:
#
#  1. "fsck.erofs -j1 --extract=DIR --preserve --xattrs IMAGE" exits 0,
#     prints nothing, and treemanifest.py DIR (which reads the tree with
#     plain system calls, not with this project's library) is the expected
#     manifest, field by field: type, mode, uid, gid, size, mtime with
#     nanoseconds, content hash, symlink target, rdev, hard-link grouping,
#     xattrs (ACLs, trusted.*, security.*);
#  2. the same with -j3;
#  3. where the kernel can mount the image (root, loop devices, EROFS in
#     the kernel, a block size the page size allows), the manifest of the
#     read-only mount equals that of the extraction.
#
# DIR is on a tmpfs mounted here (xattrs, ACLs, 64-bit times); without
# one, in the build directory. Skips (77) unless run as root.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

data=$srcdir/data
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: extraction with owners, devices and trusted.* xattrs needs root"
	exit 77
fi

make_scratch
mnt=$scratch/mnt
kmnt=$scratch/kernel
loops=()
cleanup()
{
	mountpoint -q "$kmnt" 2>/dev/null && umount "$kmnt"
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	rm -rf "$scratch"
}
trap cleanup EXIT
mkdir -p "$mnt" "$kmnt"
if mount -t tmpfs -o size=512m,mode=0700 erofs-extract-test "$mnt" \
		2>/dev/null; then
	echo "# extracting to a tmpfs"
else
	echo "# cannot mount a tmpfs: extracting to $mnt"
fi
out=$mnt/out

# kernel_mount IMAGE BLKSZ OPTION...: mount IMAGE read-only on $kmnt
kernel_mount()
{
	local image=$1 blksz=$2 opt dev mopts=ro offset=0
	shift 2
	if [ "$blksz" -gt "$(getconf PAGESIZE)" ]; then
		why="blocks of $blksz bytes are larger than a page"
		return 1
	fi
	for opt in "$@"; do
		case $opt in
		--offset=*) offset=${opt#--offset=} ;;
		--device=*)
			if ! dev=$(losetup --find --show --read-only \
					"${opt#--device=}" 2>/dev/null); then
				why="no loop device"
				return 1
			fi
			loops+=("$dev")
			mopts+=,device=$dev
			;;
		esac
	done
	if ! dev=$(losetup --find --show --read-only --offset "$offset" \
			"$image" 2>/dev/null); then
		why="no loop device"
		return 1
	fi
	loops+=("$dev")
	if ! mount -t erofs -o "$mopts" "$dev" "$kmnt" 2>"$err"; then
		why="mount -t erofs failed: $(head -n 1 "$err")"
		return 1
	fi
}

kernel_release()
{
	local l
	mountpoint -q "$kmnt" && umount "$kmnt"
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	loops=()
}

images=()
while read -r name manifest extra; do
	case $name in ''|'#'*) continue ;; esac
	images+=("$name|$manifest|$extra")
done <"$data/index"
tap_plan $((3 * ${#images[@]}))

for entry in "${images[@]}"; do
	IFS='|' read -r name manifest extra <<<"$entry"
	resolve "$name" || { echo "Bail out! cannot unpack $name"; exit 0; }
	image=$path
	# shellcheck disable=SC2086
	image_options $extra || exit 99
	extracted_ok=true
	for jobs in 1 3; do
		rm -rf "$out"
		timeout -k 5 "$FSCK_TIMEOUT" "$FSCK" -j$jobs --extract="$out" \
			--preserve --xattrs "${opts[@]}" "$image" \
			>"$scratch/stdout" 2>"$err"
		status=$?
		if [ "$status" -ne 0 ] || ! quiet "$err" || \
				[ -s "$scratch/stdout" ]; then
			tap_not_ok "$name -j$jobs: exit $status"
			extracted_ok=false
			continue
		fi
		"$PYTHON3" "$srcdir/lib/treemanifest.py" "$out" >"$scratch/tree"
		if cmp -s "$scratch/tree" "$data/$manifest"; then
			tap_ok "$name -j$jobs: extraction matches $manifest"
		else
			tap_not_ok "$name -j$jobs: extraction differs from $manifest" ""
			diff "$data/$manifest" "$scratch/tree" >"$scratch/diff"
			show "$scratch/diff" 30
			extracted_ok=false
		fi
	done
	blksz=$("$PYTHON3" -c 'import sys
with open(sys.argv[1], "rb") as f:
	f.seek(int(sys.argv[2]) + 1024 + 12)
	print(1 << f.read(1)[0])' "$image" "$(printf '%s\n' "${opts[@]}" |
		sed -n 's/^--offset=//p' | grep . || echo 0)")
	why=
	if ! $extracted_ok; then
		tap_skip "$name: kernel view" "the extraction failed"
	elif ! kernel_mount "$image" "$blksz" "${opts[@]}"; then
		tap_skip "$name: kernel view" "$why"
	else
		"$PYTHON3" "$srcdir/lib/treemanifest.py" "$kmnt" >"$scratch/kernel.manifest"
		if cmp -s "$scratch/kernel.manifest" "$scratch/tree"; then
			tap_ok "$name: extraction matches the kernel's mount"
		else
			tap_not_ok "$name: extraction differs from the kernel's mount" ""
			diff "$scratch/kernel.manifest" "$scratch/tree" >"$scratch/diff"
			show "$scratch/diff" 30
		fi
	fi
	kernel_release
done
