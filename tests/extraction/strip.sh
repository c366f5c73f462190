#!/bin/bash
# strip.sh: --strip-components=N against GNU tar's (TAP).
#
# A tree with two top-level directories that both hold "sub" (merged
# once stripped), a file at the top, hard links whose first name is kept
# and one whose first name is stripped, is packed by mkfs.erofs and, the
# same tree, by GNU tar. With --strip-components=1:
# - --extract=DIR at -j1 and -j2 makes the tree GNU tar's
#   "tar -x --strip-components=1" makes of the archive (types, modes,
#   sizes, contents), keeps the link whose first name stays a link, writes
#   the one whose first name was stripped as a file with its data and says
#   so (a warning naming it, exit 0; GNU tar fails to link it and makes
#   nothing), and leaves DIR's own mode alone (the start is stripped with
#   the rest of the top); a DIR the run makes gets the mode mkdir(1)
#   gives, not the 0700 of an interrupted run;
# - --list, --manifest and --tar name the same paths, and GNU tar reads
#   the archive, hard link included;
# - an --include pattern matches the path in the image, before stripping;
# - N deeper than every path: nothing but the check;
# - with --compare, --cat, --fs-config, or N not a number: exit 16.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

need_tools mkfs.erofs tar
make_scratch
src=$scratch/src
mkdir -p "$src/top/sub" "$src/top2/sub" || exit 99
echo a >"$src/top/a"
echo b >"$src/top/sub/b"
echo c >"$src/top2/sub/c"
printf 'root file\n' >"$src/rootfile"
ln "$src/top/a" "$src/top2/alink"
ln "$src/rootfile" "$src/top2/rootlink"
ln -s ../a "$src/top/sub/sym"
chmod 0751 "$src/top2"
img=$scratch/img.erofs
mkfs.erofs -T1700000000 "$img" "$src" >"$err" 2>&1 || {
	cat "$err"
	exit 99
}
(cd "$src" && tar -cf "$scratch/src.tar" --sort=name rootfile top top2) ||
	exit 99
mkdir "$scratch/gnu" || exit 99
# GNU tar cannot link rootlink (its first name is stripped) and fails it;
# the reference holds the copy of it fsck.erofs writes instead
tar -C "$scratch/gnu" -xf "$scratch/src.tar" --strip-components=1 \
	2>"$err"
[ ! -e "$scratch/gnu/rootlink" ] && grep -q rootlink "$err" || exit 99
cp -p "$src/rootfile" "$scratch/gnu/rootlink" || exit 99

# tree DIR: types, modes, sizes and contents of what is below DIR
tree()
{
	(cd "$1" && find . -mindepth 1 -printf '%p %y %m %s %l\n' |
		LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z |
		xargs -0 -r sha256sum)
}

tree "$scratch/gnu" >"$scratch/gnu.tree"
tap_plan 14
export EROFS_FSCK_SYNC_NS=0
for j in 1 2; do
	x=$scratch/x$j
	mkdir -m 0700 "$x" || exit 99
	run_fsck "$out" "$err" -j$j --extract="$x" --strip-components=1 "$img"
	rc=$?
	tree "$x" >"$scratch/ours.tree"
	if [ $rc -eq 0 ] && cmp -s "$scratch/gnu.tree" "$scratch/ours.tree" &&
		[ "$(stat -c %h "$x/alink")" = 2 ] &&
		[ "$(stat -c %a "$x")" = 700 ] &&
		grep -q '^fsck.erofs: /top2/rootlink: nid [0-9]*: warning: its first name was left out by --strip-components' "$err"; then
		tap_ok "-j$j --extract=DIR --strip-components=1: GNU tar's tree, alink a link, rootlink a file, said so"
	else
		diff "$scratch/gnu.tree" "$scratch/ours.tree" >"$scratch/diff"
		cat "$err" >>"$scratch/diff"
		tap_not_ok "-j$j --extract=DIR --strip-components=1 (exit $rc)" \
			"$scratch/diff"
	fi
done

# DIR made by the run: the mode mkdir(1) gives it, not 0700
run_fsck "$out" "$err" --extract="$scratch/made" --strip-components=1 "$img"
rc=$?
want=$(printf '%o' $((0777 & ~0$(umask))))
if [ $rc -eq 0 ] && [ "$(stat -c %a "$scratch/made")" = "$want" ]; then
	tap_ok "--strip-components, DIR made by the run: mode $want, as mkdir makes it"
else
	tap_not_ok "--strip-components, DIR made by the run: mode $(stat -c %a "$scratch/made") (exit $rc)" "$err"
fi

# the paths GNU tar's extraction holds, in C order
(cd "$scratch/gnu" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort) \
	>"$scratch/gnu.paths"

run_fsck "$out" "$err" --list --strip-components=1 "$img"
rc=$?
# sub comes twice, once from each top directory
sed -e 's/ -> .*//' -e 's/ link to .*//' -e 's/.* //' "$out" |
	LC_ALL=C sort -u >"$scratch/list.paths"
if [ $rc -eq 0 ] && cmp -s "$scratch/gnu.paths" "$scratch/list.paths" &&
	grep -q '^h.* alink link to a$' "$out"; then
	tap_ok "--list --strip-components=1: the stripped paths, alink a link to a"
else
	tap_not_ok "--list --strip-components=1 (exit $rc)" "$out"
fi

run_fsck "$out" "$err" --manifest --strip-components=1 "$img"
rc=$?
awk '{ print $1 }' "$out" | LC_ALL=C sort -u >"$scratch/mf.paths"
if [ $rc -eq 0 ] && cmp -s "$scratch/gnu.paths" "$scratch/mf.paths"; then
	tap_ok "--manifest --strip-components=1: the stripped paths"
else
	tap_not_ok "--manifest --strip-components=1 (exit $rc)" "$out"
fi

run_fsck "$out" "$err" --tar="$scratch/ours.tar" --strip-components=1 "$img"
rc=$?
# both top directories hold sub: its entry comes twice, as in GNU tar's
tar -tf "$scratch/ours.tar" | sed 's|/$||' | LC_ALL=C sort -u \
	>"$scratch/tar.paths"
mkdir "$scratch/fromtar" || exit 99
if [ $rc -eq 0 ] && cmp -s "$scratch/gnu.paths" "$scratch/tar.paths" &&
	tar -C "$scratch/fromtar" -xf "$scratch/ours.tar" &&
	tree "$scratch/fromtar" | cmp -s - "$scratch/gnu.tree" &&
	[ "$(stat -c %h "$scratch/fromtar/alink")" = 2 ]; then
	tap_ok "--tar --strip-components=1: GNU tar lists and extracts GNU tar's tree"
else
	tap_not_ok "--tar --strip-components=1 (exit $rc)" "$scratch/tar.paths"
fi

# the pattern is the image's path: top2/* selects alink, rootlink, sub
run_fsck "$out" "$err" --list --strip-components=1 --include='top2/*' "$img"
rc=$?
got=$(sed -e 's/ -> .*//' -e 's/.* //' "$out" | LC_ALL=C sort | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$got" = "alink rootlink sub sub/c " ]; then
	tap_ok "--include matches the path in the image, before stripping"
else
	tap_not_ok "--include with --strip-components: got '$got' (exit $rc)" \
		"$out"
fi

run_fsck "$out" "$err" --list --strip-components=2 "$img"
rc=$?
got=$(sed -e 's/ -> .*//' -e 's/.* //' "$out" | LC_ALL=C sort | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$got" = "b c sym " ]; then
	tap_ok "--strip-components=2: only what lies three deep"
else
	tap_not_ok "--strip-components=2: got '$got' (exit $rc)" "$out"
fi

run_fsck "$out" "$err" --list --strip-components=9 "$img"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$out" ]; then
	tap_ok "--strip-components deeper than every path: nothing listed"
else
	tap_not_ok "--strip-components=9 (exit $rc)" "$out"
fi

mkdir -p "$scratch/cmp" || exit 99
run_fsck "$out" "$err" --strip-components=1 --compare="$scratch/cmp" "$img"
tap_status "--strip-components with --compare: a usage error" 16 $? \
	'cannot be combined with --compare'
run_fsck "$out" "$err" --strip-components=1 --cat=top/a "$img"
tap_status "--strip-components with --cat: a usage error" 16 $? \
	'cannot be combined'
run_fsck "$out" "$err" --strip-components=1 --fs-config="$scratch/fsc" "$img"
tap_status "--strip-components with --fs-config: a usage error" 16 $? \
	'cannot be combined'
run_fsck "$out" "$err" --strip-components=x "$img"
tap_status "--strip-components=x: a usage error" 16 $? 'strip-components'
run_fsck "$out" "$err" --strip-components=-1 "$img"
tap_status "--strip-components=-1: a usage error" 16 $? 'strip-components'
[ $tap_failed -eq 0 ]
