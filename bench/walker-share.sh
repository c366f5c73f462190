#!/bin/bash
# SPDX-License-Identifier: MIT
#
# walker-share.sh [OPTIONS] IMAGE...: the walker's share of a run's CPU
# time (-d3's "CPU time" line: the walker's thread against the run's),
# per image and mode, the median of RUNS runs at -jJOBS, and what Amdahl's
# law makes of it: the most -jN can gain over one thread when the walker's
# work stays serial, 1 / (share + (1 - share) / N). Rows above the
# target share (5%) are marked. Prints figures; it never passes or fails.
# See bench/README.md.
set -uo pipefail
export LC_ALL=C

here=$(cd -- "$(dirname -- "$0")" && pwd)
top=$(dirname -- "$here")
median_of=$here/median-of

usage() {
	cat <<EOF
usage: $0 [OPTIONS] IMAGE...

Options (environment variable in brackets):
  --jobs=N         -jN of the runs measured (default 2) [JOBS]
  --runs=N         runs per row (default 5) [RUNS]
  --modes=LIST     of extract,extract-dir,manifest,tar (default all) [MODES]
  --amdahl=LIST    thread counts to predict for (default 4,16) [AMDAHL]
  --target=PCT     the share a row must not pass (default 5) [TARGET]
  -h, --help       this text

Environment: FSCK (default \$top/fsck/fsck.erofs), OUT (the extraction
directory of extract-dir, on a tmpfs: default /dev/shm/erofs-share-out).
EOF
	exit "${1:-2}"
}

die() {
	echo "$0: $*" >&2
	exit 1
}

JOBS=${JOBS:-2}
RUNS=${RUNS:-5}
MODES=${MODES:-extract,extract-dir,manifest,tar}
AMDAHL=${AMDAHL:-4,16}
TARGET=${TARGET:-5}
images=()
for arg; do
	case $arg in
	--jobs=*) JOBS=${arg#*=} ;;
	--runs=*) RUNS=${arg#*=} ;;
	--modes=*) MODES=${arg#*=} ;;
	--amdahl=*) AMDAHL=${arg#*=} ;;
	--target=*) TARGET=${arg#*=} ;;
	-h | --help) usage 0 ;;
	-*) usage ;;
	*) images+=("$arg") ;;
	esac
done
[ ${#images[@]} -gt 0 ] || usage
for img in "${images[@]}"; do
	[ -r "$img" ] || die "cannot read $img"
done
FSCK=${FSCK:-$top/fsck/fsck.erofs}
OUT=${OUT:-/dev/shm/erofs-share-out}
[ -x "$FSCK" ] || die "no fsck.erofs at $FSCK (make first)"

# mode_args MODE: fsck.erofs's options for a mode
mode_args() {
	case $1 in
	extract) echo "--extract" ;;
	extract-dir) echo "--extract=$OUT" ;;
	manifest) echo "--manifest" ;;
	tar) echo "--tar=/dev/null" ;;
	esac
}

# share IMAGE MODE: one run's walker share in percent, from -d3's line
share() {
	local line
	rm -rf "$OUT"
	# shellcheck disable=SC2046
	line=$("$FSCK" -j"$JOBS" -d3 $(mode_args "$2") "$1" 2>&1 >/dev/null |
		grep "the walker's share")
	rm -rf "$OUT"
	[ -n "$line" ] || return 1
	sed -n "s/.*the walker's share \([0-9.]*\)%.*/\1/p" <<<"$line"
}

amdahl() {
	awk -v p="$1" -v n="$2" 'BEGIN { p /= 100; printf "%.1f", 1 / (p + (1 - p) / n) }'
}

IFS=, read -r -a modes <<<"$MODES"
IFS=, read -r -a counts <<<"$AMDAHL"
printf '%-28s %-12s %8s' image mode "share %"
for n in "${counts[@]}"; do
	printf ' %8s' "-j$n max"
done
printf '\n'
for img in "${images[@]}"; do
	for m in "${modes[@]}"; do
		[ -n "$(mode_args "$m")" ] || die "unknown mode $m"
		vals=()
		for ((r = 0; r < RUNS; r++)); do
			v=$(share "$img" "$m") ||
				die "no CPU time line for $img $m (threads did not start?)"
			vals+=("$v")
		done
		p=$("$median_of" "${vals[@]}")
		printf '%-28s %-12s %8.1f' "$(basename "$img")" "$m" "$p"
		for n in "${counts[@]}"; do
			printf ' %8s' "$(amdahl "$p" "$n")"
		done
		awk -v p="$p" -v t="$TARGET" 'BEGIN { exit !(p > t) }' &&
			printf '  above %s%%' "$TARGET"
		printf '\n'
	done
done
