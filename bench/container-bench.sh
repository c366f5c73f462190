#!/bin/bash
# SPDX-License-Identifier: MIT
#
# container-bench.sh [IMAGE...]: an EROFS image read raw, as an Android
# sparse image (img2simg), and as partition system_a of a super image in
# four extents, raw and sparse (tests/lib/androidimg.py), side by side:
# median time and peak RSS (/usr/bin/time -v) of "--extract" (check and
# decode) and "--extract=DIR" (onto WORK, a tmpfs by default) at -j1 and
# -j2, each container's time over the raw image's. The variants take
# turns within each run, so that drift of the machine falls on all of
# them. Prints figures; never passes or fails.
#
# Default IMAGE: the largest image of ../shared/bench beside the
# repository. Environment: FSCK (default $top/fsck/fsck.erofs), WORK
# (default /dev/shm/erofs-container-bench), RUNS (default 5).
set -uo pipefail
export LC_ALL=C

here=$(cd -- "$(dirname -- "$0")" && pwd)
top=$(dirname -- "$here")
FSCK=${FSCK:-$top/fsck/fsck.erofs}
WORK=${WORK:-/dev/shm/erofs-container-bench}
RUNS=${RUNS:-5}

die() {
	echo "$0: $*" >&2
	exit 1
}

[ -x "$FSCK" ] || die "no fsck.erofs at $FSCK: build it or set FSCK"
[ -x /usr/bin/time ] || die "no /usr/bin/time (Debian package time)"
command -v img2simg >/dev/null ||
	die "no img2simg (Debian package android-sdk-libsparse-utils)"
mkdir -p "$WORK" || die "cannot make $WORK"
if [ $# -eq 0 ]; then
	set -- "$(ls -S "$top"/../shared/bench/*.erofs 2>/dev/null | head -n 1)"
	[ -f "$1" ] || die "no IMAGE given and none in ../shared/bench"
fi

# containers IMAGE: WORK/raw.img, sparse.simg, super.img, super.simg
containers() {
	cp "$1" "$WORK/raw.img" || die "cannot copy $1"
	img2simg "$WORK/raw.img" "$WORK/sparse.simg" || die "img2simg failed"
	python3 - "$top/tests/lib" "$WORK" <<'PY' || die "cannot make super images"
import os, sys
sys.path.insert(0, sys.argv[1])
import androidimg as ai
work = sys.argv[2]
raw = ai.pad(open(os.path.join(work, "raw.img"), "rb").read())
s = ai.Super(size=len(raw) + (8 << 20), slots=2, max_size=65536)
s.partition("system_a", raw, pieces=4, group=s.group("main_a"))
img = s.image()
open(os.path.join(work, "super.img"), "wb").write(img)
ai.write_sparse(os.path.join(work, "super.simg"), bytes(img))
PY
}

# one VARIANT MODE J: one timed run; prints "seconds rss_kib"
one() {
	local variant=$1 mode=$2 j=$3 args=()
	case $variant in
	raw) args=("$WORK/raw.img") ;;
	sparse) args=("$WORK/sparse.simg") ;;
	super) args=(--partition=system "$WORK/super.img") ;;
	super-sparse) args=(--partition=system "$WORK/super.simg") ;;
	esac
	local start end
	rm -rf "$WORK/out"
	[ "$mode" = extract ] && mode=--extract || mode=--extract=$WORK/out
	start=$(date +%s.%N)
	/usr/bin/time -v -o "$WORK/time.out" "$FSCK" -j"$j" "$mode" \
		"${args[@]}" 2>"$WORK/err" ||
		die "fsck.erofs -j$j $mode ${args[*]} failed: $(head -c 300 "$WORK/err")"
	end=$(date +%s.%N)
	awk -F': ' -v a="$start" -v b="$end" \
		'/Maximum resident/ { r = $2 } END { print b - a, r }' \
		"$WORK/time.out"
}

variants=(raw sparse super super-sparse)
for img in "$@"; do
	containers "$img"
	echo "# $("$FSCK" -V), $(nproc) CPUs, $RUNS runs each, median; $(date -u +%FT%TZ)"
	echo "# $(basename "$img"): $(stat -c %s "$WORK/raw.img") bytes raw," \
		"$(stat -c %s "$WORK/sparse.simg") sparse," \
		"super $(stat -c %s "$WORK/super.img"), sparse super $(stat -c %s "$WORK/super.simg")"
	printf '%-12s %-4s' mode j
	for v in "${variants[@]}"; do printf ' %13s' "$v s"; done
	for v in "${variants[@]:1}"; do printf ' %13s' "$v/raw"; done
	for v in "${variants[@]}"; do printf ' %10s' "$v MiB"; done
	echo
	for mode in extract extract-dir; do
		for j in 1 2; do
			declare -A secs=() rss=()
			for ((i = 0; i < RUNS; i++)); do
				for v in "${variants[@]}"; do
					read -r t r < <(one "$v" "$mode" "$j")
					secs[$v]+="$t "
					[ "${rss[$v]:-0}" -lt "$r" ] && rss[$v]=$r
				done
			done
			printf '%-12s -j%-2s' "$mode" "$j"
			declare -A med=()
			for v in "${variants[@]}"; do
				# shellcheck disable=SC2086
				med[$v]=$("$here/median-of" ${secs[$v]})
				printf ' %13.3f' "${med[$v]}"
			done
			for v in "${variants[@]:1}"; do
				awk -v a="${med[$v]}" -v b="${med[raw]}" \
					'BEGIN { printf " %13.3f", (b > 0 ? a / b : 0) }'
			done
			for v in "${variants[@]}"; do
				awk -v r="${rss[$v]}" 'BEGIN { printf " %10.1f", r / 1024 }'
			done
			echo
			unset secs rss med
		done
	done
done
rm -rf "$WORK/out"
