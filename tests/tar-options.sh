#!/bin/bash
# tar-options.sh: what an archive user of GNU tar and bsdtar expects (TAP).
#
# - --tar=- on a terminal (through script(1)): refused, exit 16, as GNU
#   tar refuses;
# - xattrs in SCHILY.xattr records alone by default: GNU tar extracts the
#   archive of an image with xattrs without one "Ignoring unknown extended
#   header keyword 'LIBARCHIVE.xattr..." warning and restores them;
#   --options=xattrheader=ALL (bsdtar's --options) brings libarchive's
#   records back; an option libarchive does not know is exit 16 naming it;
# - --format=argnu, whose writer takes no directory: the reason, not
#   "Input/output error".
set -u
# shellcheck source=lib/testlib.sh
. "${srcdir:-$(dirname "$0")}/lib/testlib.sh"

need_tools tar setfattr getfattr mkfs.erofs
make_scratch
err=$scratch/err
out=$scratch/out
resolve lz4hc-default.erofs || exit 99
img=$path

if command -v script >/dev/null; then
	script -qec "$FSCK --tar=- $img" /dev/null >"$out" 2>&1
	rc=$?
	if [ "$rc" -eq 16 ] && grep -q "refusing to write an archive to a terminal" "$out"; then
		tap_ok "--tar=- on a terminal: exit 16"
	else
		tap_not_ok "--tar=- on a terminal (exit $rc)" "$out"
	fi
else
	tap_skip "--tar=- on a terminal" "no script"
fi

# an image whose files carry user xattrs
src=$scratch/src
mkdir -p "$src/d"
echo a >"$src/a"
echo b >"$src/d/b"
if ! setfattr -n user.one -v 1 "$src/a" 2>/dev/null; then
	tap_skip "xattrs" "no user xattrs here"
	tap_plan
	exit 0
fi
setfattr -n user.two -v 2 "$src/d/b"
ximg=$scratch/x.erofs
mkfs.erofs -zlz4hc "$ximg" "$src" >"$err" 2>&1 || exit 99

run_fsck "$out" "$err" --tar="$scratch/x.tar" "$ximg"
mkdir "$scratch/gnu"
tar --xattrs --xattrs-include='*' -xf "$scratch/x.tar" -C "$scratch/gnu" \
	>"$out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && ! grep -q "LIBARCHIVE.xattr" "$out" &&
	[ "$(getfattr --only-values -n user.two "$scratch/gnu/d/b" 2>/dev/null)" = 2 ]; then
	tap_ok "pax xattrs: GNU tar restores them, no warning"
else
	tap_not_ok "pax xattrs: GNU tar (exit $rc)" "$out"
fi
run_fsck "$out" "$err" --options=xattrheader=ALL --tar="$scratch/all.tar" "$ximg"
if [ $? -eq 0 ] && grep -aq "LIBARCHIVE.xattr.user.one" "$scratch/all.tar" &&
	! grep -aq "LIBARCHIVE.xattr" "$scratch/x.tar"; then
	tap_ok "--options=xattrheader=ALL: libarchive's records too"
else
	tap_not_ok "--options=xattrheader=ALL"
fi
run_fsck "$out" "$err" --options=bogus=1 --tar="$scratch/b.tar" "$ximg"
tap_status "--options=bogus=1: exit 16 naming it" 16 $? "Undefined option"

run_fsck "$out" "$err" --format=argnu --tar="$scratch/a.ar" "$img"
rc=$?
if [ "$rc" -eq 8 ] && ! grep -q "Input/output error" "$err" &&
	grep -q "archive not completed" "$err"; then
	tap_ok "--format=argnu: $(grep -- '--tar=' "$err" | head -n1)"
else
	tap_not_ok "--format=argnu (exit $rc)"
fi
tap_plan
[ "$tap_failed" -eq 0 ]
