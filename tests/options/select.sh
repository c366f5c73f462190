#!/bin/bash
# select.sh: --include, --exclude and --files-from (TAP).
#
# On an image made by mkfs.erofs from a small tree, each case gives the
# paths expected, and each is checked against --list, --manifest, the
# tree --extract=DIR makes and the entry count of --json:
#  - a name pattern (any component), a path pattern, an anchored one,
#    one for directories only; '*' within one component, '**' across any
#    number of directories (include and exclude); --null --files-from;
#  - a directory excluded, or included, with its whole subtree; exclude
#    wins over include; directories that lead to no selected entry left
#    out, one whose children come after its siblings included;
#  - --files-from (from a file and from standard input) with a path that
#    is not in the image: named on stderr, exit 8, the rest still done;
#  - patterns relative to --path;
#  - a hard-linked file whose first name is excluded: its first selected
#    name carries the data;
#  - a plain check decodes only what is selected: a damaged file fails
#    the check when selected, not when excluded;
#  - an empty pattern and an unreadable --files-from are refused.
#
# Needs mkfs.erofs (skipped without it).
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

need_tools mkfs.erofs
make_scratch
export LC_ALL=C

# The tree: "a" is followed by "a-b" and "a.c", so its children come
# after them in walk order.
tree=$scratch/tree
mkdir -p "$tree/a/sub" "$tree/a-b" "$tree/b/deep/er" "$tree/empty" || exit 99
echo x >"$tree/a/x.c"
echo y >"$tree/a/sub/y.h"
echo z >"$tree/a.c"
echo q >"$tree/a-b/q.c"
echo o >"$tree/b/deep/er/f.o"
echo k >"$tree/b/keep.c"
ln "$tree/a/x.c" "$tree/b/x-link.c"
ln -s a.c "$tree/lnk"
echo t >"$tree/top.txt"
img=$scratch/sel.erofs
mkfs.erofs -T0 "$img" "$tree" >"$err" 2>&1 || {
	echo "1..0 # SKIP mkfs.erofs failed: $(head -n1 "$err")"
	exit 77
}

# paths MODE ARG...: the selected paths as MODE shows them, one a line;
# the exit status of fsck.erofs in $rc.
paths()
{
	local mode=$1 dir=$scratch/x
	shift
	rm -rf "$dir"
	case $mode in
	list)
		run_fsck "$out" "$err" --list "$@"
		rc=$?
		awk '{ print $6 }' "$out"
		;;
	manifest)
		run_fsck "$out" "$err" --manifest "$@"
		rc=$?
		awk '{ print $1 }' "$out"
		;;
	extract)
		run_fsck "$out" "$err" --extract="$dir" "$@"
		rc=$?
		echo .
		(cd "$dir" 2>/dev/null && find . -mindepth 1 | sed 's|^\./||' |
			sort)
		;;
	json)
		run_fsck "$out" "$err" --json "$@"
		rc=$?
		sed -n 's/^  "entries": \([0-9]*\),$/\1/p' "$out"
		;;
	esac
}

# case NAME STATUS "EXPECTED PATHS" ARG...: each mode shows those paths
# and exits with STATUS.
case_()
{
	local name=$1 status=$2 want mode got
	want=$(printf '%s\n' $3)
	shift 3
	for mode in list manifest extract json; do
		paths $mode "$@" >"$scratch/got"
		got=$(cat "$scratch/got")
		if [ $mode = json ]; then
			[ "$got" = "$(echo "$want" | wc -l)" ]
		else
			[ "$got" = "$want" ]
		fi && [ "$rc" -eq "$status" ]
		if [ $? -eq 0 ]; then
			tap_ok "$name: $mode"
		else
			tap_not_ok "$name: $mode (exit $rc)"
			echo "$got" | head -n 20 | sed 's/^/#   got: /'
		fi
	done
}

case_ "name pattern" 0 ". a a-b a-b/q.c a.c a/x.c b b/keep.c b/x-link.c" \
	--include='*.c' "$img"
case_ "name pattern, a directory reached" 0 ". a a/sub a/sub/y.h" \
	--include='*.h' "$img"
case_ "path pattern" 0 ". a a/sub a/sub/y.h" --include='*/sub' "$img"
case_ "anchored pattern" 0 ". a.c" --include='/a.c' "$img"
case_ "directories only" 0 ". a a/sub a/sub/y.h" --include='sub/' "$img"
# '*' never crosses '/'; '**' spans any number of directories, none too
case_ "'*/x.c': one directory deep only" 0 ". a a/x.c" --include='*/x.c' "$img"
case_ "'**/*.o': at any depth" 0 ". b b/deep b/deep/er b/deep/er/f.o" \
	--include='**/*.o' "$img"
case_ "'**/x.c': at the top and below" 0 ". a a/x.c" --include='**/x.c' "$img"
case_ "'b/**/f.o': directories between" 0 ". b b/deep b/deep/er b/deep/er/f.o" \
	--include='b/**/f.o' "$img"
case_ "--exclude='**/*.c'" 0 \
	". a a-b a/sub a/sub/y.h b b/deep b/deep/er b/deep/er/f.o empty lnk top.txt" \
	--exclude='**/*.c' "$img"
printf 'a/x.c\0top.txt\0' >"$scratch/names0"
case_ "--null --files-from" 0 ". a a/x.c top.txt" --null \
	--files-from="$scratch/names0" "$img"
case_ "an included directory brings its subtree" 0 \
	". b b/deep b/deep/er b/deep/er/f.o" --include='b/deep' "$img"
case_ "an excluded directory prunes its subtree" 0 \
	". a a-b a-b/q.c a.c a/sub a/sub/y.h a/x.c empty lnk top.txt" \
	--exclude=b "$img"
case_ "exclude wins over include" 0 ". a-b a-b/q.c a.c b b/keep.c b/x-link.c" \
	--include='*.c' --exclude=a "$img"
case_ "exclude within an included directory" 0 \
	". b b/deep b/deep/er b/keep.c b/x-link.c" --include=/b --exclude='*.o' \
	"$img"
# a, whose children come after a-b and a.c, is scanned ahead to know
# whether to hand it on at its place
case_ "a directory descended after its siblings, nothing below it" 0 \
	". b b/deep b/deep/er b/keep.c b/x-link.c" --include=b --exclude='*.o' \
	"$img"
case_ "a directory descended after its siblings, a match below it" 0 \
	". a a/sub a/sub/y.h" --include=y.h "$img"
case_ "patterns relative to --path" 0 ". sub sub/y.h" --path=/a \
	--include=/sub "$img"

printf '%s\n' a/sub/y.h /nope/x ./b//x-link.c a/sub/none >"$scratch/names"
case_ "--files-from, a path not in the image" 8 \
	". a a/sub a/sub/y.h b b/x-link.c" --files-from="$scratch/names" "$img"
if grep -q '/nope/x: named by --files-from, not in the image' "$err" &&
	grep -q '/a/sub/none: named by --files-from, not in the image' "$err"; then
	tap_ok "--files-from: the missing path named"
else
	tap_not_ok "--files-from: the missing path named"
fi
printf 'a/nothing\n' >"$scratch/names"
case_ "--files-from, a missing path below a directory scanned ahead" 8 "." \
	--files-from="$scratch/names" "$img"
: >"$scratch/names"
case_ "--files-from, an empty list" 0 "." --files-from="$scratch/names" "$img"

# a/sub damaged (its inode's layout 7, which no layout is): the scan ahead
# of a leaves it to the walk, which reports it, match below a or not
"$PYTHON3" - "$srcdir/lib" "$img" "$scratch/bad.erofs" <<'EOF' || exit 99
import sys
sys.path.insert(0, sys.argv[1])
import erofsread
from erofstest import read_file, write_file
img = erofsread.Image("sel", read_file(sys.argv[2]))
inode = img.lookup(b"a/sub")
layout7 = (inode.format & ~0xE) | (7 << 1)
write_file(sys.argv[3], erofsread.edit(img, erofsread.put("<H", inode.pos,
                                                          layout7)))
EOF
for inc in y.h keep.c nothing; do
	run_fsck "$out" "$err" --list --include="$inc" "$scratch/bad.erofs"
	tap_status "--include=$inc, a damaged directory below one scanned ahead" \
		4 $? '/a/sub: nid [0-9]*, offset [0-9]*: unknown data layout 7'
done
got=$(printf 'b/keep.c\n' | "$FSCK" --list --files-from=- "$img" 2>"$err" |
	awk '{ print $6 }')
if [ "$got" = "$(printf '.\nb\nb/keep.c')" ]; then
	tap_ok "--files-from=-: standard input"
else
	tap_not_ok "--files-from=-: standard input"
fi

# b/x-link.c is the second name of a/x.c: with a excluded it is the first
# selected name, a file of its own.
x=$scratch/x
rm -rf "$x"
if run_fsck "$out" "$err" --extract="$x" --exclude=a "$img" &&
	[ "$(cat "$x/b/x-link.c")" = x ] &&
	[ "$(stat -c %h "$x/b/x-link.c")" -eq 1 ]; then
	tap_ok "hard link: the first selected name carries the data"
else
	tap_not_ok "hard link: the first selected name carries the data"
fi

# A damaged file: only a check that selects it sees the damage.
ctree=$scratch/ctree
mkdir -p "$ctree/d"
"$PYTHON3" -c 'import sys
with open(sys.argv[1] + "/d/bad.txt", "w") as f:
	f.write("SELECTMARKER")
	f.writelines("line %d of a compressible file\n" % i for i in range(3000))
with open(sys.argv[1] + "/good.txt", "w") as f:
	f.writelines("other %d\n" % i for i in range(3000))' "$ctree"
cimg=$scratch/damaged.erofs
mkfs.erofs -zlz4 -T0 "$cimg" "$ctree" >"$err" 2>&1 &&
	"$PYTHON3" -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"SELECTMARKER")
assert i > 0
for k in range(i + 12, i + 200):
	b[k] ^= 0x5a
open(sys.argv[1], "wb").write(b)' "$cimg"
for c in "4 --include=d" "4 --include=bad.txt" "0 --exclude=d" \
	"0 --include=good.txt" "4"; do
	set -- $c
	want=$1
	shift
	run_fsck "$out" "$err" --extract "$@" "$cimg"
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		tap_ok "damaged file, check with ${*:-no selection}: exit $want"
	else
		tap_not_ok "damaged file, check with ${*:-no selection}: exit $rc"
	fi
done

for bad in 16:--include= 16:--exclude=/ "8:--files-from=$scratch/none"; do
	opt=${bad#*:}
	run_fsck "$out" "$err" --list "$opt" "$img"
	tap_status "$opt refused" "${bad%%:*}" $? "${opt%%=*}"
done
tap_plan
