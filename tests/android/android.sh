#!/bin/bash
# android.sh: --fs-config, --file-contexts, --mount-point (TAP).
#
# An image made by mkfs.erofs from a tree with owners, modes, set-id
# bits, a file capability and SELinux labels (set as root): the fs_config
# and file_contexts text expected, with the default mount point and with
# --mount-point=/system; selection applies; a path with white space is
# left out with exit 8; mkfs.erofs --file-contexts takes what was written
# and labels a bare copy of the tree the same; bad options are refused.
#
# Needs root (security.* xattrs, owners) and mkfs.erofs: skipped without.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP not root: cannot set owners and security xattrs"
	exit 77
fi
need_tools mkfs.erofs setfattr
make_scratch

# same NAME FILE EXPECTED: FILE holds the text EXPECTED.
same()
{
	if [ "$(cat "$2" 2>/dev/null)" = "$3" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1"
		sed 's/^/#   got: /' "$2"
	fi
}

tree=$scratch/tree
mkdir -p "$tree/bin" "$tree/etc" "$tree/x+(y).d" || exit 99
echo s >"$tree/bin/sh"
echo c >"$tree/etc/a.conf"
chmod 0755 "$tree" "$tree/bin" "$tree/etc"
chmod 0751 "$tree/x+(y).d"
chmod 4755 "$tree/bin/sh"
chmod 0640 "$tree/etc/a.conf"
chown 1000:2000 "$tree/etc/a.conf"
chown 0:2000 "$tree/x+(y).d"
label()
{
	setfattr -n security.selinux -v "$1" "$2" 2>"$err" || {
		echo "1..0 # SKIP cannot set security.selinux: $(head -n1 "$err")"
		exit 77
	}
}
# struct vfs_cap_data, revision 2: CAP_NET_ADMIN (12) and bit 33 permitted
setfattr -n security.capability \
	-v 0x0100000200100000000000000200000000000000 "$tree/bin/sh" ||
	exit 99
label u:object_r:rootfs:s0 "$tree"
label u:object_r:system_file:s0 "$tree/bin/sh"
label u:object_r:system_file:s0 "$tree/etc/a.conf"
label u:object_r:weird_file:s0 "$tree/x+(y).d"
img=$scratch/android.erofs
mkfs.erofs -T0 "$img" "$tree" >"$err" 2>&1 || {
	echo "1..0 # SKIP mkfs.erofs failed: $(head -n1 "$err")"
	exit 77
}

fsconfig='/ 0 0 755 capabilities=0x0
bin 0 0 755 capabilities=0x0
bin/sh 0 0 4755 capabilities=0x200001000
etc 0 0 755 capabilities=0x0
etc/a.conf 1000 2000 640 capabilities=0x0
x+(y).d 0 2000 751 capabilities=0x0'
contexts='/ u:object_r:rootfs:s0
/bin/sh u:object_r:system_file:s0
/etc/a\.conf u:object_r:system_file:s0
/x\+\(y\)\.d u:object_r:weird_file:s0'

run_fsck "$out" "$err" --fs-config="$scratch/fs_config" \
	--file-contexts="$scratch/file_contexts" "$img"
tap_status "exit 0" 0 $?
same "fs_config" "$scratch/fs_config" "$fsconfig"
same "file_contexts" "$scratch/file_contexts" "$contexts"

run_fsck "$out" "$err" --fs-config="$scratch/fs_config" \
	--file-contexts="$scratch/file_contexts" --mount-point=/system/ "$img"
same "fs_config, --mount-point=/system/" "$scratch/fs_config" \
	"$(echo "$fsconfig" | sed '2,$s|^|system/|')"
same "file_contexts, --mount-point=/system/" "$scratch/file_contexts" \
	"$(echo "$contexts" | sed '1s|^/ |/system |; 2,$s|^/|/system/|')"

run_fsck "$out" "$err" --fs-config="$scratch/fs_config" --include=bin "$img"
same "fs_config with --include=bin" "$scratch/fs_config" \
	"$(echo "$fsconfig" | sed -n '1,3p')"

if mkfs.erofs --help 2>&1 | grep -q -- --file-contexts; then
	bare=$scratch/bare
	cp -r "$tree" "$bare"
	find "$bare" -exec setfattr -x security.selinux {} \; 2>/dev/null
	run_fsck "$out" "$err" --file-contexts="$scratch/file_contexts" "$img"
	mkfs.erofs -T0 --file-contexts="$scratch/file_contexts" \
		"$scratch/relabelled.erofs" "$bare" >"$err" 2>&1
	run_fsck "$out" "$err" --file-contexts="$scratch/again" \
		"$scratch/relabelled.erofs"
	same "mkfs.erofs --file-contexts takes it back" "$scratch/again" \
		"$contexts"
else
	tap_ok "mkfs.erofs --file-contexts # SKIP this mkfs.erofs has none"
fi

space=$scratch/space
mkdir -p "$space"
echo a >"$space/a b"
echo c >"$space/c"
mkfs.erofs -T0 "$scratch/space.erofs" "$space" >"$err" 2>&1 || exit 99
run_fsck "$out" "$err" --fs-config="$scratch/fs_config" "$scratch/space.erofs"
tap_status "a path with white space: exit 8, named" 8 $? \
	'/a.x20b: .*white space'
same "a path with white space: the rest written" "$scratch/fs_config" \
	"$(printf '/ 0 0 755 capabilities=0x0\nc 0 0 644 capabilities=0x0')"

run_fsck "$out" "$err" --fs-config="$scratch/none/fs_config" "$img"
tap_status "an uncreatable --fs-config: exit 8, named" 8 $? \
	"$scratch/none/fs_config"
run_fsck "$out" "$err" --fs-config="$scratch/fs_config" --mount-point=system \
	"$img"
tap_status "a relative --mount-point: exit 16" 16 $?
tap_plan
