#!/bin/bash
# SPDX-License-Identifier: MIT
#
# extract-bench.sh [OPTIONS] [IMAGE...]: time fsck.erofs extraction and
# checking on images of a tree built from this machine's files and on the
# images given, against a reference fsck.erofs and, with --before, an
# earlier build of ours. Prints figures and ratios; it never passes or
# fails. See bench/README.md.
set -uo pipefail
export LC_ALL=C

here=$(cd -- "$(dirname -- "$0")" && pwd)
top=$(dirname -- "$here")
median_of=$here/median-of

MODES_ALL="extract-dir extract check manifest digest tar select"
UUID=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
EPOCH=1700000000

usage() {
	cat <<EOF
usage: $0 [OPTIONS] [IMAGE...]

Options (environment variable in brackets):
  --only=MODES       modes to time, from: extract-dir,extract,check,
                     manifest,digest,tar,select [ONLY]
  --layouts          also the live-media, fragments+dedupe and full-scale
                     seed images, made with MKFS [LAYOUTS=1], and the
                     live-media image of a Debian root filesystem: ROOTFS
                     (default WORK/rootfs), made by debootstrap
                     --variant=minbase bookworm when missing, as root
  --threads=LIST     thread counts for -j (default 1,2,nproc) [THREADS]
  --codec=LIST       only images of these codecs [CODECS]
  --pcluster=LIST    only images of these pcluster sizes, e.g. 4k,64k [PCLUSTERS]
  --runs=N           timed runs per row (default 5) [RUNS]
  --images-only      do not build the tree or its images [IMAGES_ONLY=1]
  --no-ref           do not time the reference tool [NO_REF=1]
  --before=PATH      an earlier build of ours, timed at every -j beside
                     this one, run for run [BEFORE]
  --fs=TYPE          extraction target: tmpfs, ext4 or dir [FS]
  -h, --help         this text

Environment: FSCK (default \$top/fsck/fsck.erofs), REF (Debian's fsck.erofs),
MKFS (a newer mkfs.erofs for lzma, deflate and zstd images), DEBMKFS
(Debian's mkfs.erofs), WORK (default /dev/shm/erofs-bench), TREE_MIB
(default 300), FS_MIB (size of the extraction filesystem, default 4096),
SELECT (the --include pattern of mode select, default usr/share),
SHARED (directory of default images, default \$top/../shared/bench).

Without IMAGE arguments the codec-*.erofs images of SHARED are used.
EOF
	exit "${1:-2}"
}

die() {
	echo "$0: $*" >&2
	exit 1
}

note() {
	echo "# $*"
}

# Where a Debian package installed a program, for the reference tools.
debian_tool() {
	local name=$1 path
	path=$(dpkg -L erofs-utils 2>/dev/null | grep -E "/s?bin/$name\$" | head -n1)
	for path in $path /usr/sbin/$name /usr/bin/$name; do
		if [ -x "$path" ]; then
			echo "$path"
			return
		fi
	done
}

abspath() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$PWD/$1" ;;
	esac
}

# "1,2,2,4" -> "1 2 4": numeric, unique, so that -j1 comes first.
thread_list() {
	tr ', ' '\n' <<<"$1" | grep -E '^[0-9]+$' | sort -n -u | paste -sd' '
}

in_list() {
	local want=$1 list=$2
	[ -z "$list" ] && return 0
	tr ', ' '\n' <<<"$list" | grep -qx -- "$want"
}

parse_args() {
	local arg
	images=()
	for arg in "$@"; do
		case $arg in
		--only=*) ONLY=${arg#*=} ;;
		--threads=*) THREADS=${arg#*=} ;;
		--codec=*) CODECS=${arg#*=} ;;
		--pcluster=*) PCLUSTERS=${arg#*=} ;;
		--runs=*) RUNS=${arg#*=} ;;
		--images-only) IMAGES_ONLY=1 ;;
		--layouts) LAYOUTS=1 ;;
		--no-ref) NO_REF=1 ;;
		--before=*) BEFORE=${arg#*=} ;;
		--fs=*) FS=${arg#*=} ;;
		-h | --help) usage 0 ;;
		-*) usage ;;
		*) images+=("$(abspath "$arg")") ;;
		esac
	done
}

set_defaults() {
	FSCK=$(abspath "${FSCK:-$top/fsck/fsck.erofs}")
	REF=${REF:-$(debian_tool fsck.erofs)}
	BEFORE=${BEFORE:+$(abspath "$BEFORE")}
	DEBMKFS=${DEBMKFS:-$(debian_tool mkfs.erofs)}
	MKFS=${MKFS:-}
	RUNS=${RUNS:-5}
	WORK=${WORK:-/dev/shm/erofs-bench}
	TREE_MIB=${TREE_MIB:-300}
	SELECT=${SELECT:-usr/share}
	FS_MIB=${FS_MIB:-4096}
	IMAGES_ONLY=${IMAGES_ONLY:-0}
	NO_REF=${NO_REF:-0}
	ONLY=${ONLY:-extract-dir,extract,check}
	LAYOUTS=${LAYOUTS:-0}
	MKSEED=${MKSEED:-$top/../shared/bench/mkseed.py}
	THREADS=${THREADS:-1,2,$(nproc)}
	CODECS=${CODECS:-}
	PCLUSTERS=${PCLUSTERS:-}
	SHARED=${SHARED:-$top/../shared/bench}
	if [ -z "${FS:-}" ]; then
		if [ "$(id -u)" = 0 ]; then FS=tmpfs; else FS=dir; fi
	fi
}

check_args() {
	local m
	case $RUNS in
	'' | *[!0-9]* | 0) die "RUNS must be a positive number" ;;
	esac
	for m in $(tr ',' ' ' <<<"$ONLY"); do
		grep -qw -- "$m" <<<"$MODES_ALL" || die "unknown mode $m"
	done
	case $FS in
	tmpfs | ext4 | dir) ;;
	*) die "FS must be tmpfs, ext4 or dir" ;;
	esac
	if [ "$FS" != dir ] && [ "$(id -u)" != 0 ]; then
		die "FS=$FS needs root; use FS=dir"
	fi
	[ -x "$FSCK" ] || die "no fsck.erofs at $FSCK: build it or set FSCK=path"
	[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || die "--before: no program at $BEFORE"
	threads=$(thread_list "$THREADS")
	[ -n "$threads" ] || die "no thread count in '$THREADS'"
}

# GNU time gives the peak RSS; install it when we may.
find_time() {
	TIME=/usr/bin/time
	[ -x "$TIME" ] && return
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		note "installing the time package for peak RSS"
		apt-get install -y -qq time >/dev/null 2>&1
	fi
	[ -x "$TIME" ] || { TIME=; note "no /usr/bin/time: peak RSS not measured"; }
}

# Does our fsck.erofs take -jN? Not until its thread option lands.
probe_jobs() {
	local out
	out=$("$FSCK" -j1 -V 2>&1)
	if grep -qiE "(invalid|unrecognized|unknown) option.*j" <<<"$out"; then
		JOBS=0
		note "$FSCK rejects -j1: timing it without -j (threads '-')"
	else
		JOBS=1
	fi
	[ -z "$BEFORE" ] || [ "$JOBS" = 1 ] ||
		die "--before: $FSCK takes no -j, so there is no -j to compare at"
}

tool_version() {
	"$1" -V 2>&1 | head -n1
}

# --- extraction filesystem ---------------------------------------------

MNT=
LOOPDEV=
BACKING=

cleanup() {
	if [ -n "$MNT" ] && mountpoint -q "$MNT"; then
		umount "$MNT"
	fi
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV"
	[ -n "$BACKING" ] && rm -f "$BACKING"
}

setup_fs() {
	case $FS in
	dir)
		MNT=$WORK/out
		mkdir -p "$MNT"
		note "extracting into $MNT, on the filesystem of WORK (not root or FS=dir)"
		return ;;
	esac
	MNT=$WORK/mnt
	mkdir -p "$MNT"
	mountpoint -q "$MNT" && umount "$MNT"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	if [ "$FS" = tmpfs ]; then
		mount -t tmpfs -o size="${FS_MIB}m" erofs-bench "$MNT" ||
			die "cannot mount a tmpfs on $MNT"
		note "extracting onto a fresh tmpfs at $MNT"
		return
	fi
	BACKING=/dev/shm/erofs-bench-ext4.$$.img
	truncate -s "${FS_MIB}M" "$BACKING" || die "cannot create $BACKING"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$BACKING" ||
		die "mkfs.ext4 failed"
	LOOPDEV=$(losetup -f --show "$BACKING") || die "losetup failed"
	mount -o discard "$LOOPDEV" "$MNT" || die "cannot mount $LOOPDEV"
	note "extracting onto a fresh ext4 on $LOOPDEV (backed by $BACKING)"
}

# --- images --------------------------------------------------------------

# Codec of an image: from its name, else from the superblock bitmap
# (feature_incompat bit COMPR_CFGS at 1024+80, algorithms at 1024+84).
image_codec() {
	local img=$1 name incompat algs
	name=$(basename -- "$img")
	case $name in
	*lz4hc*) echo lz4hc; return ;;
	*lz4*) echo lz4; return ;;
	*lzma*) echo lzma; return ;;
	*deflate*) echo deflate; return ;;
	*zstd*) echo zstd; return ;;
	esac
	incompat=$(od -An -tu4 -j1104 -N4 -- "$img" 2>/dev/null | tr -d ' ')
	algs=$(od -An -tu2 -j1108 -N2 -- "$img" 2>/dev/null | tr -d ' ')
	if [ -z "$incompat" ] || [ -z "$algs" ]; then
		echo "?"
	elif ((incompat & 2)); then
		local names=(lz4 lzma deflate zstd) out='' i
		for i in 0 1 2 3; do
			((algs & (1 << i))) && out=${out:+$out+}${names[i]}
		done
		echo "${out:-none}"
	else
		echo "lz4?"
	fi
}

image_pcluster() {
	local name
	name=$(basename -- "$1")
	if [[ $name =~ -([0-9]+[km])[.-] ]]; then
		echo "${BASH_REMATCH[1]}"
	elif [[ $name =~ seed-48bit ]]; then
		echo 32k
	else
		echo "?"
	fi
}

ensure_tree() {
	local tree=$WORK/tree have
	have=$(awk '$1 == "target_mib" { print $2 }' "$tree.recipe" 2>/dev/null)
	if [ "$have" = "$TREE_MIB" ] && [ -d "$tree" ]; then
		note "reusing tree $tree ($TREE_MIB MiB recipe)"
	else
		rm -rf "$tree" "$tree.recipe" "$WORK"/img/tree-*
		note "building a ${TREE_MIB} MiB tree in $tree"
		"$here/mktree.sh" "$tree" "$TREE_MIB" | sed 's/^/# /' ||
			die "mktree.sh failed"
	fi
	note "tree: $(awk '$1 == "files" || $1 == "symlinks" || $1 == "file_mib" ||
		$1 == "listing_sha256" { printf "%s%s %s", sep, $1, $2; sep = " " }' \
		"$tree.recipe")"
}

# Make IMG of TREE with the mkfs command line CMD, or reuse IMG when it was
# made by the same command; print IMG, or nothing when mkfs failed.
mkfs_cached() {
	local img=$1 tree=$2 cmd=$3
	if [ -f "$img" ] && [ "$(cat "$img.cmd" 2>/dev/null)" = "$cmd" ]; then
		echo "$img"
		return
	fi
	rm -f "$img" "$img.cmd"
	if $cmd "$img.tmp" "$tree" >"$WORK/img/mkfs.log" 2>&1; then
		mv "$img.tmp" "$img"
		echo "$cmd" >"$img.cmd"
		echo "$img"
	else
		rm -f "$img.tmp"
		echo "# $cmd failed: see $WORK/img/mkfs.log" >&2
	fi
}

# Build (or reuse) WORK/img/tree-CODEC-PC.erofs with mkfs tool MK.
build_image() {
	local mk=$1 codec=$2 pc=$3 img cmd
	img=$WORK/img/tree-$codec-$pc.erofs
	cmd="$mk -z$codec -C$((${pc%k} * 1024)) -T$EPOCH -U $UUID --quiet"
	mkfs_cached "$img" "$WORK/tree" "$cmd"
}

# Build (or reuse) WORK/img/NAME.erofs of TREE with mkfs options OPTS.
build_layout() {
	local name=$1 tree=$2 img cmd
	shift 2
	img=$WORK/img/$name.erofs
	cmd="$MKFS $* -T$EPOCH --mkfs-time -U $UUID --quiet"
	mkfs_cached "$img" "$tree" "$cmd"
}

# A real tree beside the generated one: a Debian bookworm root filesystem
# (about 6,800 entries, 200 MB), packed as live media are.
collect_rootfs() {
	local rootfs=${ROOTFS:-$WORK/rootfs} img
	if [ ! -d "$rootfs" ] && command -v debootstrap >/dev/null &&
		[ "$(id -u)" = 0 ]; then
		debootstrap --variant=minbase bookworm "$rootfs.tmp" \
			>"$WORK/debootstrap.log" 2>&1 &&
			mv "$rootfs.tmp" "$rootfs"
	fi
	if [ ! -d "$rootfs" ]; then
		note "no root filesystem at $rootfs (debootstrap, as root): no rootfs image"
		return 0
	fi
	img=$(build_layout rootfs-live-lzma-1m "$rootfs" -zlzma,level=6 \
		-C1048576 -Eall-fragments,fragdedupe=inode)
	[ -n "$img" ] && image_list+=("$img")
}

# The layouts of issue 10: live media (lzma, 1 MiB pclusters, every file
# in the packed inode, deduplicated), fragments with dedupe, and the seed
# tree at full scale (a 256 MiB and a 64 MiB file) with inode digests.
collect_layouts() {
	local img
	[ "$LAYOUTS" = 1 ] || return 0
	if [ -z "$MKFS" ]; then
		note "LAYOUTS=1 needs MKFS (mkfs.erofs 1.9.3): no layout images"
		return 0
	fi
	img=$(build_layout tree-live-lzma-1m "$WORK/tree" -zlzma,level=6 \
		-C1048576 -Eall-fragments,fragdedupe=inode)
	[ -n "$img" ] && image_list+=("$img")
	img=$(build_layout tree-fragdedupe-lzma-64k "$WORK/tree" -zlzma \
		-C65536 -Efragments,dedupe)
	[ -n "$img" ] && image_list+=("$img")
	collect_rootfs
	if [ ! -f "$MKSEED" ]; then
		note "no $MKSEED: no full-scale seed image"
		return 0
	fi
	if [ ! -d "$WORK/seed" ]; then
		python3 "$MKSEED" "$WORK/seed.tmp" 28 36 256 >/dev/null &&
			mv "$WORK/seed.tmp" "$WORK/seed"
	fi
	img=$(build_layout seed-full-digest-deflate-32k "$WORK/seed" -E48bit \
		-zdeflate,level=1 -C32768 --xattr-inode-digest)
	[ -n "$img" ] && image_list+=("$img")
}

collect_images() {
	local codec pc img
	image_list=()
	if [ "$IMAGES_ONLY" != 1 ]; then
		ensure_tree
		mkdir -p "$WORK/img"
		for codec in lz4 lz4hc; do
			in_list "$codec" "$CODECS" || continue
			for pc in 4k 64k; do
				in_list "$pc" "$PCLUSTERS" || continue
				[ -n "$DEBMKFS" ] || { note "no Debian mkfs.erofs"; break 2; }
				img=$(build_image "$DEBMKFS" "$codec" "$pc")
				[ -n "$img" ] && image_list+=("$img")
			done
		done
		for codec in lzma deflate zstd; do
			[ -n "$MKFS" ] || break
			in_list "$codec" "$CODECS" || continue
			for pc in 4k 64k; do
				in_list "$pc" "$PCLUSTERS" || continue
				img=$(build_image "$MKFS" "$codec" "$pc")
				[ -n "$img" ] && image_list+=("$img")
			done
		done
		collect_layouts
	fi
	if [ ${#images[@]} -eq 0 ]; then
		for img in "$SHARED"/codec-*.erofs; do
			[ -f "$img" ] && images+=("$img")
		done
		[ ${#images[@]} -gt 0 ] &&
			note "no IMAGE given: using the codec-*.erofs images of $SHARED"
	fi
	for img in "${images[@]}"; do
		[ -r "$img" ] || die "cannot read $img"
		in_list "$(image_codec "$img")" "$CODECS" || continue
		in_list "$(image_pcluster "$img")" "$PCLUSTERS" || continue
		image_list+=("$img")
	done
	[ ${#image_list[@]} -gt 0 ] || die "no image to time"
}

# --- timing --------------------------------------------------------------

TARGET=

# The runs of a row so far, by config ("ref"; the -j count; "-" where the
# tool takes no -j; "b" and the -j count for the build before): wall
# seconds, CPU seconds (user + system) and the largest peak RSS (KiB);
# r_status is "ok" or "fail(RC)", and a failed config runs no more.
declare -A r_secs r_cpu r_kib r_status

# One timed run of "$@" for config c, removing the extraction target first.
run_once() {
	local c=$1 log=$2 rc t0 t1 kib usr sys
	shift 2
	rm -rf "$TARGET"
	[ "$FS" = ext4 ] && sync
	t0=$(date +%s%N)
	if [ -n "$TIME" ]; then
		"$TIME" -o "$WORK/time.out" -f "%M %U %S" "$@" >/dev/null 2>"$log"
	else
		"$@" >/dev/null 2>"$log"
	fi
	rc=$?
	t1=$(date +%s%N)
	if [ $rc -ne 0 ]; then
		r_status[$c]="fail($rc)"
		return
	fi
	r_secs[$c]+=" $(awk -v n=$((t1 - t0)) 'BEGIN { printf "%.4f", n / 1e9 }')"
	[ -n "$TIME" ] || return 0
	read -r kib usr sys < <(tail -n1 "$WORK/time.out")
	[ "$kib" -gt "${r_kib[$c]:-0}" ] && r_kib[$c]=$kib
	r_cpu[$c]+=" $(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')"
}

# What the runs of config c give: m_median (seconds), m_cpu (median CPU
# seconds) and m_rss (MiB, the largest of the runs), or n/a.
run_summary() {
	local c=$1
	m_median=$("$median_of" <<<"${r_secs[$c]}" | awk '{ printf "%.3f", $1 }')
	m_cpu=n/a
	m_rss=n/a
	[ -n "${r_cpu[$c]:-}" ] &&
		m_cpu=$("$median_of" <<<"${r_cpu[$c]}" | awk '{ printf "%.2f", $1 }')
	[ -n "${r_kib[$c]:-}" ] &&
		m_rss=$(awk -v k="${r_kib[$c]}" 'BEGIN { printf "%.1f", k / 1024 }')
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'
}

ROWFMT="%-18s %-8s %-5s %-11s %-7s %9s %6s %8s %7s %8s %8s\n"

row() {
	# shellcheck disable=SC2059
	printf "$ROWFMT" "$@"
	printf '%s\t' "$@" | sed 's/\t$//' >>"$RESULTS"
	echo >>"$RESULTS"
}

# The fsck.erofs arguments of a mode, into margs.
mode_args() {
	case $1 in
	extract-dir) margs=("--extract=$TARGET") ;;
	extract) margs=(--extract) ;;
	check) margs=() ;;
	manifest) margs=(--manifest) ;;
	digest) margs=(--xattr-inode-digest) ;;
	tar) margs=(--tar=/dev/null) ;;
	select) margs=(--extract "--include=$SELECT") ;;
	esac
}

# The reference's arguments of a mode, into rargs; none: it has no such
# mode. Upstream 1.9.3 walks nothing of an image with a packed inode
# unless given --path=/.
ref_args() {
	mode_args "$1"
	rargs=("${margs[@]}")
	case $1 in
	manifest | digest | tar | select) rargs=(); return 1 ;;
	esac
	[ "$REF_PATH" = 1 ] && rargs+=(--path=/)
	return 0
}

# The command of config c in mode, into cmd.
config_cmd() {
	case $1 in
	ref) cmd=("$REF" "${rargs[@]}") ;;
	b*) cmd=("$BEFORE" "-j${1#b}" "${margs[@]}") ;;
	-) cmd=("$FSCK" "${margs[@]}") ;;
	*) cmd=("$FSCK" "-j$1" "${margs[@]}") ;;
	esac
}

config_log() {
	local c=$1
	case $c in
	ref) ;;
	b*) c=before-j${c#b} ;;
	*) c=j${c/-/none} ;;
	esac
	echo "$WORK/logs/$name-$mode-$c.err"
}

# The rows of one mode: its configs run in turn, RUNS rounds, so that a
# machine whose speed drifts over minutes slows every config alike and
# the ratios of one row to another stay side by side.
bench_mode() {
	local c i log j1
	local -a cmd
	local -A med
	r_secs=() r_cpu=() r_kib=() r_status=()
	for ((i = 0; i < RUNS; i++)); do
		for c in "${configs[@]}"; do
			[ -z "${r_status[$c]:-}" ] || continue
			config_cmd "$c"
			run_once "$c" "$(config_log "$c")" "${cmd[@]}" "$img"
		done
	done
	rm -rf "$TARGET"
	for c in "${configs[@]}"; do
		log=$(config_log "$c")
		if [ -n "${r_status[$c]:-}" ]; then
			row "$name" "$codec" "$pc" "$mode" "$c" \
			    "${r_status[$c]}" n/a n/a - n/a -
			failures+=("$log")
			continue
		fi
		rm -f "$log"
		run_summary "$c"
		med[$c]=$m_median
		if [ "$c" = ref ]; then
			row "$name" "$codec" "$pc" "$mode" ref "$m_median" \
			    "$m_cpu" "$m_rss" - - -
			continue
		fi
		# the same build's -j1: "1", or "b1" for the build before
		j1=${c%%[0-9]*}1
		row "$name" "$codec" "$pc" "$mode" "$c" "$m_median" "$m_cpu" \
		    "$m_rss" \
		    "$([ -n "${med[$j1]:-}" ] && [ "$c" != "$j1" ] &&
		       ratio "${med[$j1]}" "$m_median" || echo -)" \
		    "$([ -n "${med[ref]:-}" ] &&
		       ratio "${med[ref]}" "$m_median" || echo n/a)" \
		    "$([ -n "${med[b$c]:-}" ] &&
		       ratio "${med[b$c]}" "$m_median" || echo -)"
	done
}

bench_image() {
	local img=$1 name codec pc mode c
	local -a margs rargs configs
	name=$(basename -- "$img" .erofs)
	codec=$(image_codec "$img")
	pc=$(image_pcluster "$img")
	cat -- "$img" >/dev/null
	for mode in $MODES_ALL; do
		in_list "$mode" "$ONLY" || continue
		configs=()
		if [ "$NO_REF" != 1 ] && [ -n "$REF" ] && ref_args "$mode"; then
			configs+=(ref)
		fi
		mode_args "$mode"
		if [ "$JOBS" = 1 ]; then
			for c in $threads; do
				[ -z "$BEFORE" ] || configs+=("b$c")
				configs+=("$c")
			done
		else
			configs+=(-)
		fi
		bench_mode
	done
}

# How fast each CPU runs the same work (sha256sum of 256 MiB from tmpfs,
# pinned to it), and so the most j1/jN a perfectly parallel run can show
# here: a virtual machine's CPUs need not be alike (seen here: 1.0-1.1 s
# on one, 0.62-0.65 s on the other, which caps j1/j2 near 1.6), and -j1
# runs on whichever the kernel picks.
cpu_speeds() {
	local f=$WORK/cpu-speed.bin cpu c t line='' fastest='' sum=0
	command -v taskset >/dev/null || return 0
	head -c 268435456 /dev/zero >"$f" || return 0
	for cpu in $(taskset -cp $$ | sed 's/.*: //' | tr ',' ' '); do
		case $cpu in
		*-*) cpu=$(seq "${cpu%-*}" "${cpu#*-}") ;;
		esac
		for c in $cpu; do
			t=$( { TIMEFORMAT=%R; time taskset -c "$c" sha256sum \
				"$f" >/dev/null; } 2>&1)
			line+=" cpu$c ${t} s"
			sum=$(awk -v s="$sum" -v t="$t" 'BEGIN { print s + 1 / t }')
			fastest=$(awk -v f="${fastest:-$t}" -v t="$t" \
				'BEGIN { print (t < f) ? t : f }')
		done
	done
	rm -f "$f"
	note "CPU speeds (sha256sum of 256 MiB on each):$line; a" \
	     "perfectly parallel run's j1/jN at most" \
	     "$(awk -v s="$sum" -v f="$fastest" 'BEGIN { printf "%.2f", s * f }')"
}

print_header() {
	local img
	note "extract-bench $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n):" \
	     "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 |
	     sed 's/^ *//'), Linux $(uname -r)"
	note "ours: $FSCK ($(tool_version "$FSCK"))"
	if [ "$NO_REF" = 1 ] || [ -z "$REF" ]; then
		note "reference: none"
	else
		note "reference: $REF ($(tool_version "$REF")), run without -j"
	fi
	[ -z "$BEFORE" ] ||
		note "before: $BEFORE ($(tool_version "$BEFORE")), threads b1, b2, ..."
	note "runs per row: $RUNS; modes: $ONLY; threads:" \
	     "$([ "$JOBS" = 1 ] && echo "$threads" || echo "none (no -j)")"
	for img in "${image_list[@]}"; do
		note "image $(basename -- "$img"): $(du -m --apparent-size -- "$img" |
		     cut -f1) MiB, $img"
	done
	note "each mode's configs run in turn, round after round;" \
	     "median s: median wall time; CPU s: median user + system time;" \
	     "RSS: peak resident set of the runs;"
	note "j1/jN: the same build's -j1 time over this row's; ref/ours:" \
	     "reference time over this row's (> 1: ours is faster);" \
	     "bef/ours: the build before's time at the same -j over ours"
	cpu_speeds
	echo
	# shellcheck disable=SC2059
	printf "$ROWFMT" image codec pclu mode threads "median s" "CPU s" "RSS MiB" \
	       j1/jN ref/ours bef/ours
}

main() {
	parse_args "$@"
	set_defaults
	check_args
	mkdir -p "$WORK/logs" "$WORK/results"
	RESULTS=$WORK/results/$(date -u +%Y%m%dT%H%M%SZ).tsv
	find_time
	probe_jobs
	REF_PATH=0
	if [ -n "$REF" ] && "$REF" --help 2>&1 | grep -q -- --path; then
		REF_PATH=1
	fi
	collect_images
	setup_fs
	TARGET=$MNT/x
	failures=()
	print_header
	for img in "${image_list[@]}"; do
		bench_image "$img"
	done
	echo
	# the host may have changed meanwhile
	cpu_speeds
	note "results also in $RESULTS"
	for log in "${failures[@]}"; do
		note "failed run: $(head -n1 "$log" 2>/dev/null) (see $log)"
	done
	return 0
}

main "$@"
