#!/bin/bash
# compare.sh: --compare=DIR (TAP).
#
# A tree with files (one big enough to be split among workers), a hard
# link, a symlink, devices, a fifo, xattrs and subdirectories is packed
# by mkfs.erofs; the image compared with the tree itself is equal at -j1
# and -j2. Then, on a fresh copy each time, one property is changed and
# the exact lines of the differences (and exit status 1) are expected, the
# same at -j1 and -j2: mode, owner, size, mtime (a nanosecond), content at
# a given byte of a split file, a symlink target (both named), a type, a device number,
# a hard link broken and one made, xattrs (only with --xattrs; which names
# and how they differ), an entry
# missing (a directory once), an entry only in DIR. A symlink in DIR where
# the image has a directory is a difference and is never followed; --path
# compares a subtree; a selection reports the DIR-only names it would take
# and only those; compact inodes (mkfs.erofs -T) compare at whole seconds,
# and --modify-window=1 takes a second apart as equal; an mtime at the
# start of the 64-bit range differs from DIR's; an ordinary
# user can compare; corruption keeps its own exit status; bad options are
# refused.
#
# Needs root (owners, devices, trusted xattrs) and mkfs.erofs.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP not root: cannot set owners or make devices"
	exit 77
fi
need_tools mkfs.erofs setfattr
make_scratch

src=$scratch/src
mkdir -p "$src/d/e" "$src/sub" || exit 99
echo hello >"$src/f"
echo other >"$src/g"
head -c 6000000 /dev/urandom >"$scratch/rand" || exit 99
# half random, half zeros: both decode paths of a piece
cat "$scratch/rand" >"$src/big"
head -c 6000000 /dev/zero >>"$src/big"
ln "$src/f" "$src/flink"
ln -s f "$src/sym"
echo e >"$src/d/e/x"
echo s >"$src/sub/s"
mknod "$src/chr" c 1 3
mkfifo "$src/fifo"
chown 1000:1000 "$src/g"
setfattr -n user.note -v one "$src/g" 2>/dev/null ||
	setfattr -n trusted.note -v one "$src/g" || exit 99
img=$scratch/img.erofs
mkfs.erofs -zlz4hc "$img" "$src" >"$err" 2>&1 || {
	echo "1..0 # SKIP mkfs.erofs failed: $(head -n1 "$err")"
	exit 77
}

# fresh: a copy of the tree to change, as DIR
fresh()
{
	rm -rf "$scratch/dst"
	cp -a "$src" "$scratch/dst" || exit 99
	dst=$scratch/dst
}

# retime: directories of DIR get their mtimes back after a change
retime()
{
	local d

	(cd "$src" && find . -type d) | while read -r d; do
		[ -d "$dst/$d" ] && [ ! -L "$dst/$d" ] &&
			touch -r "$src/$d" "$dst/$d"
	done
}

# expect NAME WANT-STATUS EXPECTED [OPTION...]: the differences printed,
# exactly, at -j1 and -j2 against $dst.
expect()
{
	local name=$1 want=$2 expected=$3 j rc
	shift 3

	for j in 1 2; do
		run_fsck "$out" "$err" -j$j --compare="$dst" "$@" "$img"
		rc=$?
		if [ "$rc" -eq "$want" ] && [ "$(cat "$out")" = "$expected" ] &&
			! has_sanitizer_report "$err"; then
			tap_ok "$name (-j$j)"
		else
			tap_not_ok "$name (-j$j, exit $rc)" "$out"
			show "$err" 5
		fi
	done
}

fresh
expect "the tree it was made from: equal" 0 ""
expect "the tree it was made from, with --xattrs: equal" 0 "" --xattrs

fresh
chmod 0600 "$dst/sub/s"
expect "mode" 1 "/sub/s: mode 0644 in the image, 0600 in DIR"

fresh
chown 1:2 "$dst/f"
expect "owner, shown on both names of a hard link" 1 \
"/f: owner 0:0 in the image, 1:2 in DIR
/flink: owner 0:0 in the image, 1:2 in DIR"

fresh
echo more >>"$dst/d/e/x"
touch -r "$src/d/e/x" "$dst/d/e/x"
expect "size" 1 "/d/e/x: size 2 in the image, 7 in DIR"

fresh
sec=$(stat -c %Y "$src/sub/s")
nsec=$(stat -c %y "$src/sub/s" | sed 's/.*\.\([0-9]*\) .*/\1/')
nsec=$((10#$nsec + 1))
if [ "$nsec" -ge 1000000000 ]; then
	nsec=$((nsec - 2))
fi
touch -d "@$sec.$(printf %09d "$nsec")" "$dst/sub/s"
expect "mtime, by a nanosecond" 1 \
	"/sub/s: mtime $(stat -c %Y "$src/sub/s").$(stat -c %y "$src/sub/s" | sed 's/.*\.\([0-9]*\) .*/\1/') in the image, $sec.$(printf %09d "$nsec") in DIR"

fresh
printf 'Z' | dd of="$dst/big" bs=1 seek=9000001 conv=notrunc 2>/dev/null
touch -r "$src/big" "$dst/big"
expect "content, in the zeros of a big file" 1 \
	"/big: content differs from offset 9000001 (byte 9000002, as cmp counts)"

fresh
printf '\377' | dd of="$dst/big" bs=1 seek=4500000 conv=notrunc 2>/dev/null
printf 'Z' | dd of="$dst/big" bs=1 seek=11000000 conv=notrunc 2>/dev/null
touch -r "$src/big" "$dst/big"
# the first change is no change where the random byte was 0xff already
if [ "$(od -An -tx1 -j4500000 -N1 "$src/big" | tr -d ' ')" = ff ]; then
	tap_skip "content, two changes" "the random byte was already 0xff"
	tap_skip "content, two changes" "the random byte was already 0xff"
else
	expect "content, the first of two changes" 1 \
		"/big: content differs from offset 4500000 (byte 4500001, as cmp counts)"
fi

fresh
rm "$dst/sym"
ln -s g "$dst/sym"
touch -h -r "$src/sym" "$dst/sym"
retime
expect "symlink target: both named" 1 \
	"/sym: symlink target 'f' in the image, 'g' in DIR"

fresh
rm "$dst/g"
mkdir "$dst/g"
touch -r "$src/g" "$dst/g"
chown 1000:1000 "$dst/g"
chmod 0644 "$dst/g"
retime
expect "type" 1 "/g: a regular file in the image, a directory in DIR"

fresh
rm "$dst/chr"
mknod "$dst/chr" c 1 5
touch -r "$src/chr" "$dst/chr"
chmod --reference="$src/chr" "$dst/chr"
retime
expect "device number" 1 "/chr: device 1,3 in the image, 1,5 in DIR"

fresh
rm "$dst/flink"
cp -p "$dst/f" "$dst/flink"
retime
expect "hard link broken" 1 \
	"/flink: in DIR, not a hard link of the image's other names of it"

fresh
rm "$dst/g"
ln "$dst/sub/s" "$dst/g"
retime
run_fsck "$out" "$err" -j1 --compare="$dst" "$img"
rc=$?
if [ "$rc" -eq 1 ] &&
	grep -qx "/sub/s: in DIR, a hard link of an entry the image holds apart" "$out"; then
	tap_ok "hard link made in DIR"
else
	tap_not_ok "hard link made in DIR (exit $rc)" "$out"
fi

fresh
ns=user
setfattr -n user.note -v two "$dst/g" 2>/dev/null ||
	{ ns=trusted && setfattr -n trusted.note -v two "$dst/g"; }
expect "xattrs, with --xattrs: the one whose value differs" 1 \
	"/g: xattrs differ: $ns.note (value differs)" --xattrs
expect "xattrs, without --xattrs: not compared" 0 ""
setfattr -x "$ns.note" "$dst/g"
setfattr -n "$ns.added" -v 1 "$dst/g"
expect "xattrs, with --xattrs: one removed, one added" 1 \
	"/g: xattrs differ: $ns.note (only in the image), $ns.added (only in DIR)" \
	--xattrs

fresh
rm -r "$dst/d"
retime
expect "a directory missing, reported once" 1 "/d: only in the image"

fresh
echo x >"$dst/sub/new"
mkdir "$dst/newdir"
echo y >"$dst/newdir/inside"
retime
# after the directory that holds them: /sub's before the root's
expect "entries only in DIR" 1 "/sub/new: only in DIR
/newdir: only in DIR"
expect "entries only in DIR, with a selection: those it would take" 1 \
	"/sub/new: only in DIR" --include=sub
expect "entries only in DIR, with a selection: not those it excludes" 0 "" \
	--include=sub --exclude=new
expect "entries only in DIR, --exclude alone: the rest reported" 1 \
	"/newdir: only in DIR" --exclude=new

# compact inodes hold whole seconds (and the superblock's nanoseconds):
# a tree whose times have nanoseconds, packed with -T at its second
tree=$scratch/compact
mkdir -p "$tree/s"
echo x >"$tree/x"
echo y >"$tree/s/y"
find "$tree" -exec touch -h -d @1700000000.123456789 {} +
mkfs.erofs -T1700000000 "$scratch/compact.erofs" "$tree" >"$err" 2>&1
run_fsck "$out" "$err" --compare="$tree" "$scratch/compact.erofs"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$out" ]; then
	tap_ok "compact inodes: mtimes equal at the second they hold"
else
	tap_not_ok "compact inodes: mtimes equal at the second (exit $rc)" "$out"
fi
touch -d @1700000001.5 "$tree/x"
run_fsck "$out" "$err" --compare="$tree" "$scratch/compact.erofs"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "^/x: mtime 1700000000" "$out"; then
	tap_ok "compact inodes: a second apart differs"
else
	tap_not_ok "compact inodes: a second apart differs (exit $rc)" "$out"
fi
run_fsck "$out" "$err" --modify-window=1 --compare="$tree" \
	"$scratch/compact.erofs"
tap_status "--modify-window=1: a second apart is equal" 0 $?

# an extended inode's mtime at the start of the 64-bit range, crafted:
# DIR's time minus it does not fit in 64 bits, and is a difference
PYTHONPATH=${srcdir:-$(dirname "$0")/..}/lib python3 - \
	"$scratch/oldest.erofs" <<'EOF' || exit 99
import sys
from erofsbuild import Image, root_with, S_IFREG, FLAT_PLAIN, FT_REG
img = Image()
root, (nid,) = root_with(img, [(b"f", 64, FT_REG)])
img.inode(nid, S_IFREG | 0o644, 0, FLAT_PLAIN, extended=True,
          mtime=-(1 << 63))
with open(sys.argv[1], "wb") as f:
    f.write(img.finish(root))
EOF
mkdir "$scratch/oldest" && : >"$scratch/oldest/f" || exit 99
chmod 0644 "$scratch/oldest/f"
run_fsck "$out" "$err" --compare="$scratch/oldest" "$scratch/oldest.erofs"
rc=$?
if [ "$rc" -eq 1 ] &&
	grep -q "^/f: mtime -9223372036854775808\.0* in the image" "$out"; then
	tap_ok "an mtime 2^63 seconds before 1970: a difference"
else
	tap_not_ok "an mtime 2^63 seconds before 1970: a difference (exit $rc)" \
		"$out"
fi

fresh
mkdir "$scratch/outside"
echo e >"$scratch/outside/x"
mkdir "$scratch/outside/e"
rm -r "$dst/d"
ln -s ../outside "$dst/d"
retime
expect "a symlink in DIR for a directory: a difference, not followed" 1 \
	"/d: a directory in the image, a symlink in DIR"

fresh
chmod 0600 "$dst/sub/s"
dst=$scratch/dst/sub
run_fsck "$out" "$err" --path=/sub --compare="$dst" "$img"
rc=$?
if [ "$rc" -eq 1 ] &&
	[ "$(cat "$out")" = "/sub/s: mode 0644 in the image, 0600 in DIR" ]; then
	tap_ok "--path compares a subtree"
else
	tap_not_ok "--path compares a subtree (exit $rc)" "$out"
fi

fresh
chmod -R a+rX "$scratch"
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		timeout 300 "$FSCK" --compare="$dst" "$img" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$out" ]; then
		tap_ok "as an ordinary user"
	else
		tap_not_ok "as an ordinary user (exit $rc)" "$out"
		show "$err" 5
	fi
else
	tap_skip "as an ordinary user" "no setpriv"
fi

# corruption: the superblock's magic gone
cp "$img" "$scratch/bad.erofs"
printf '\0\0\0\0' | dd of="$scratch/bad.erofs" bs=1 seek=1024 conv=notrunc \
	2>/dev/null
run_fsck "$out" "$err" --compare="$dst" "$scratch/bad.erofs"
rc=$?
if [ $((rc & 1)) -eq 0 ] && [ "$rc" -ne 0 ]; then
	tap_ok "a corrupt image is not a difference (exit $rc)"
else
	tap_not_ok "a corrupt image is not a difference (exit $rc)"
fi

run_fsck "$out" "$err" --compare="$scratch/missing" "$img"
tap_status "a missing DIR" 8 $? "missing"
run_fsck "$out" "$err" --compare="$dst" --manifest "$img"
tap_status "--compare with --manifest" 16 $? "standard output"
run_fsck "$out" "$err" --compare= "$img"
tap_status "--compare= without a directory" 16 $? "needs a directory"

tap_plan
[ "$tap_failed" -eq 0 ]
