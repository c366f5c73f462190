#!/bin/bash
# SPDX-License-Identifier: MIT
#
# readbench.sh [IMAGE [PATH...]]: the read-path table. For each file, runs
# bench/readbench with the optimised and the plain extent lookup (seq4k,
# rand4k with 1 and 4 threads, seq128k) and prints medians and ratios.
# Defaults: the shared seed-48bit.erofs and its two files. Environment:
# READBENCH (the program), RUNS (runs per flavour, default 3), WARM=1 (do
# not drop the page cache), VERBOSE=1 (also print readbench's own lines).
set -uo pipefail
export LC_ALL=C

here=$(cd -- "$(dirname -- "$0")" && pwd)
top=$(dirname -- "$here")

READBENCH=${READBENCH:-$here/readbench}
RUNS=${RUNS:-3}
shared=$top/../shared/bench
image=${1:-$shared/seed-48bit.erofs}
shift $(($# > 0 ? 1 : 0))
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(/large_48bit.bin /shifted_mixed.bin)
JOBS=("seq4k 1" "rand4k 1" "rand4k 4" "seq128k 1")

die() {
	echo "$0: $*" >&2
	exit 1
}

[ -x "$READBENCH" ] || die "no readbench at $READBENCH: run make, or set READBENCH"
[ -r "$image" ] || die "cannot read $image"

# Expected sha256 of a file from the image's manifest, if there is one.
expected_sha() {
	local rel=${1#/}
	[ -r "$image.manifest" ] || return 0
	awk -v p="$rel" '$1 == p && $2 == "f" { print $8 }' "$image.manifest"
}

# Median of field KEY over the lines of lookup flavour FLAVOUR, printed
# with printf format FMT (default %.0f).
field() {
	local out=$1 flavour=$2 key=$3 fmt=${4:-%.0f}
	awk -v f="lookup=$flavour" -v k="$key=" '
		$1 ~ /^workload=/ {
			hit = 0
			for (i = 1; i <= NF; i++)
				if ($i == f)
					hit = 1
			if (!hit)
				next
			for (i = 1; i <= NF; i++)
				if (index($i, k) == 1)
					print substr($i, length(k) + 1)
		}' <<<"$out" | "$here/median-of" | awk -v f="$fmt" '{ printf f, $1 }'
}

sha_state() {
	local out=$1 want=$2 got
	got=$(grep -o 'sha256=[0-9a-f]*' <<<"$out" | cut -d= -f2 | sort -u)
	if [ -z "$got" ]; then
		echo -
	elif [ -z "$want" ]; then
		cut -c1-12 <<<"$got" | paste -sd,
	elif [ "$got" = "$want" ]; then
		echo ok
	else
		echo BAD
	fi
}

FMT="%-18s %-8s %3s %10s %10s %7s %9s %9s %7s %7s %6s %6s\n"

cache=cold
[ "${WARM:-0}" = 1 ] && cache=warm
echo "# readbench $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n):" \
     "$(nproc) CPUs, Linux $(uname -r)"
echo "# image $image; $RUNS runs per flavour, medians; page cache: $cache"
echo "# opt: optimised encoded-extent lookup; plain: binary search;" \
     "meta/lk: metadata blocks read per lookup; hint%: lookups served by the hint"
# shellcheck disable=SC2059
printf "$FMT" file workload thr "iops opt" "iops plain" opt/pl "MiB/s opt" \
       "MiB/s pl" "meta/lk" "meta/lk" "hint%" sha256
# shellcheck disable=SC2059
printf "$FMT" "" "" "" "" "" "" "" "" opt plain opt ""
for path in "${paths[@]}"; do
	want=$(expected_sha "$path")
	for job in "${JOBS[@]}"; do
		read -r wl n <<<"$job"
		args=(--compare "--threads=$n" "--runs=$RUNS")
		[ "${WARM:-0}" = 1 ] && args+=(--warm)
		if ! out=$("$READBENCH" "$image" "$path" "$wl" "${args[@]}"); then
			# shellcheck disable=SC2059
			printf "$FMT" "$path" "$wl" "$n" failed - - - - - - - -
			continue
		fi
		[ "${VERBOSE:-0}" = 1 ] && printf '# %s\n' "${out//$'\n'/$'\n'# }"
		ratio=$(awk -F= '/^ratio / { print $NF }' <<<"$out")
		# shellcheck disable=SC2059
		printf "$FMT" "$path" "$wl" "$n" \
		       "$(field "$out" opt iops)" "$(field "$out" plain iops)" \
		       "$ratio" \
		       "$(field "$out" opt mibps %.1f)" \
		       "$(field "$out" plain mibps %.1f)" \
		       "$(field "$out" opt meta_reads_per_lookup %.2f)" \
		       "$(field "$out" plain meta_reads_per_lookup %.2f)" \
		       "$(field "$out" opt hint_hits %.1f)" \
		       "$(sha_state "$out" "$want")"
	done
done
