#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tar-bench.sh: time "fsck.erofs -jN --tar=/dev/null" at -j1 and -j2 on
# (a) an lzma image of many files (a tree of bench/mktree.sh) and (b) an
# image of one large deflate file, both made with MKFS; print the median
# times, the -j1/-j2 ratio and the peak RSS (/usr/bin/time -v) of each.
# The issue asks for a ratio of at least 1.6 for both, and a peak RSS
# within 64 MiB + 16 MiB per thread. Prints figures; never passes or
# fails. Images are kept in WORK and made again only when their mkfs
# command changes.
#
# Environment: FSCK (default $top/fsck/fsck.erofs), MKFS (default
# $top/../shared/tools/erofs-utils-1.9.3/mkfs.erofs), WORK (default
# /dev/shm/erofs-tar-bench), TREE_MIB (tree of (a), default 200), BIG_MIB
# (the file of (b), default 512), RUNS (default 3).
set -uo pipefail
export LC_ALL=C

here=$(cd -- "$(dirname -- "$0")" && pwd)
top=$(dirname -- "$here")
FSCK=${FSCK:-$top/fsck/fsck.erofs}
MKFS=${MKFS:-$top/../shared/tools/erofs-utils-1.9.3/mkfs.erofs}
WORK=${WORK:-/dev/shm/erofs-tar-bench}
TREE_MIB=${TREE_MIB:-200}
BIG_MIB=${BIG_MIB:-512}
RUNS=${RUNS:-3}
UUID=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0

die() {
	echo "$0: $*" >&2
	exit 1
}

[ -x "$FSCK" ] || die "no fsck.erofs at $FSCK: build it or set FSCK"
[ -x "$MKFS" ] || die "no mkfs.erofs at $MKFS: set MKFS (1.9.3, with lzma and deflate)"
[ -x /usr/bin/time ] || die "no /usr/bin/time (Debian package time)"
mkdir -p "$WORK" || die "cannot make $WORK"

# mkimage IMG TREE MKFS-OPTION...: make IMG unless made by the same command
mkimage() {
	local img=$1 tree=$2 cmd
	shift 2
	cmd="$MKFS $* -T1700000000 --mkfs-time -U $UUID --quiet"
	if [ -f "$img" ] && [ "$(cat "$img.cmd" 2>/dev/null)" = "$cmd" ]; then
		return
	fi
	rm -f "$img" "$img.cmd"
	$cmd "$img" "$tree" >"$WORK/mkfs.log" 2>&1 ||
		die "$cmd failed: see $WORK/mkfs.log"
	echo "$cmd" >"$img.cmd"
}

# The file of (b): text-like bytes deflate packs about 3:1, never repeating
# within its window, the same on every machine.
make_big() {
	local dir=$WORK/big
	[ -f "$dir/big.bin" ] && [ "$(stat -c %s "$dir/big.bin")" = \
		$((BIG_MIB << 20)) ] && return
	rm -rf "$dir"
	mkdir -p "$dir"
	python3 - "$dir/big.bin" "$BIG_MIB" <<'PY' || die "cannot write big.bin"
import hashlib, sys
words = [hashlib.sha256(b"%d" % i).hexdigest()[:1 + i % 9] for i in range(4096)]
with open(sys.argv[1], "wb") as f:
    state = 1
    for _ in range(int(sys.argv[2])):
        chunk = []
        size = 0
        while size < 1 << 20:
            state = (state * 1103515245 + 12345) & 0x7fffffff
            w = words[state % 4096]
            chunk.append(w)
            size += len(w) + 1
        f.write((" ".join(chunk) + " ").encode()[:1 << 20])
PY
}

# run LABEL IMAGE: RUNS timed runs at -j1 and -j2
run() {
	local label=$1 img=$2 j i t rss secs med1 med2 rss1 rss2
	for j in 1 2; do
		secs=()
		rss=0
		for ((i = 0; i < RUNS; i++)); do
			/usr/bin/time -v -o "$WORK/time.out" "$FSCK" -j$j \
				--tar=/dev/null "$img" 2>"$WORK/err" ||
				die "fsck.erofs -j$j failed on $img: $(head -c 300 "$WORK/err")"
			t=$(awk -F': ' '/Elapsed \(wall clock\)/ {
				n = split($2, p, ":"); s = 0
				for (k = 1; k <= n; k++) s = s * 60 + p[k]
				print s }' "$WORK/time.out")
			secs+=("$t")
			t=$(awk -F': ' '/Maximum resident/ { print $2 }' \
				"$WORK/time.out")
			[ "$t" -gt "$rss" ] && rss=$t
		done
		t=$("$here/median-of" "${secs[@]}")
		if [ "$j" = 1 ]; then med1=$t rss1=$rss; else med2=$t rss2=$rss; fi
	done
	awk -v l="$label" -v a="$med1" -v b="$med2" -v r1="$rss1" -v r2="$rss2" \
		'BEGIN { printf "%-28s -j1 %7.2f s  -j2 %7.2f s  ratio %.2f  peak RSS -j1 %.1f MiB, -j2 %.1f MiB\n",
			l, a, b, (b > 0 ? a / b : 0), r1 / 1024, r2 / 1024 }'
}

if [ ! -d "$WORK/tree" ]; then
	"$here/mktree.sh" "$WORK/tree" "$TREE_MIB" >/dev/null ||
		die "mktree.sh failed"
fi
mkimage "$WORK/many-lzma.erofs" "$WORK/tree" -zlzma -C65536
make_big
mkimage "$WORK/big-deflate.erofs" "$WORK/big" -zdeflate -C65536

echo "# $("$FSCK" -V), $(nproc) CPUs, $RUNS runs each, median; $(date -u +%FT%TZ)"
echo "# (a) $(find "$WORK/tree" -type f | wc -l) files, $TREE_MIB MiB tree; (b) one $BIG_MIB MiB file"
run "(a) many files, lzma" "$WORK/many-lzma.erofs"
run "(b) one large file, deflate" "$WORK/big-deflate.erofs"
