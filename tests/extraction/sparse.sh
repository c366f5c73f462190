#!/bin/bash
# sparse.sh: --extract=DIR --sparse (TAP).
#
# Files of zeros with a little data (at the start, in the middle, at the
# end, none at all) made at test time, stored compressed (lz4) and
# uncompressed by mkfs.erofs: extracted with --sparse, each has the same
# size and content, and takes a small fraction of its size on disk;
# with threads (-j2, files split into pieces) too.
#
# Needs mkfs.erofs (skipped without it).
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

need_tools mkfs.erofs
make_scratch

tree=$scratch/tree
mkdir "$tree" || exit 99
"$PYTHON3" -c 'import sys
d = sys.argv[1]
m = 1 << 20
for name, parts in (("head", [(0, b"head")]),
		    ("middle", [(16 * m, b"middle" * 1000)]),
		    ("tail", [(24 * m, b"tail")]),
		    ("zeros", [])):
	with open(d + "/" + name, "wb") as f:
		for off, data in parts:
			f.seek(off)
			f.write(data)
		f.truncate(24 * m + 4 + 4096 * 3 + 17)
' "$tree" || exit 99

for z in "" -zlz4; do
	img=$scratch/sparse${z:--plain}.erofs
	mkfs.erofs $z -T0 "$img" "$tree" >"$err" 2>&1 || {
		tap_not_ok "mkfs.erofs $z"
		continue
	}
	for j in -j1 -j2; do
		out=$scratch/out
		rm -rf "$out"
		EROFS_FSCK_SYNC_NS=0 run_fsck "$scratch/stdout" "$err" $j \
			--extract="$out" --sparse "$img"
		rc=$?
		what="${z:-uncompressed} $j"
		if [ "$rc" -ne 0 ]; then
			tap_not_ok "$what: exit $rc"
			continue
		fi
		for f in head middle tail zeros; do
			size=$(stat -c %s "$out/$f")
			used=$(($(stat -c %b "$out/$f") * $(stat -c %B "$out/$f")))
			if cmp -s "$tree/$f" "$out/$f" &&
				[ $((used * 16)) -lt "$size" ]; then
				tap_ok "$what: $f: same content, $used of $size bytes allocated"
			else
				tap_not_ok "$what: $f: $used of $size bytes allocated"
			fi
		done
	done
done
tap_plan
