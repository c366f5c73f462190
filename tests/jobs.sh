#!/bin/bash
# jobs.sh: the number of threads changes nothing but the speed (TAP).
#
# For every stored test image, and for damaged copies of a few of them
# (bytes of the second half overwritten with a fixed pattern), runs
# "fsck.erofs -jN --extract=DIR IMAGE" and "fsck.erofs -jN IMAGE" with N =
# 1, 2 and 8, and requires, against -j1: the same exit status, the same
# standard output and standard error (problems in the same order), and the
# same extracted tree (treemanifest.py). EROFS_FSCK_SYNC_NS=0 makes the
# threads start on these small images.
set -u
# shellcheck source=testlib.sh
. "${srcdir:-$(dirname "$0")}/testlib.sh"

data=$srcdir/data
export EROFS_FSCK_SYNC_NS=0
make_scratch
damaged="lz4hc-default.erofs lzma-default.erofs deflate-default.erofs
zstd-c64k.erofs lz4hc-fragments.erofs"

resolve()
{
	path=${EROFS_TEST_DATA:-}/$1
	[ -f "$path" ] && return 0
	path=$scratch/$1
	[ -f "$path" ] || unpack "$data/$1.xz" "$path"
}

# damage SRC DEST: overwrite 64 bytes every 4 KiB in the second half
damage()
{
	"$PYTHON3" -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
for off in range(len(b) // 2, len(b) - 64, 4096):
	b[off:off + 64] = bytes((off * 7 + i * 13) & 0xff for i in range(64))
open(sys.argv[2], "wb").write(b)' "$1" "$2"
}

# run_jobs TAG N OPTION...: one run with -jN into $scratch/TAG.N.*
run_jobs()
{
	local tag=$1 j=$2 dir=$scratch/tree.$1.$2
	shift 2
	rm -rf "$dir"
	run_fsck "$scratch/$tag.$j.out" "$scratch/$tag.$j.err" -j"$j" \
		--extract="$dir" "$@"
	echo "$?" >"$scratch/$tag.$j.rc"
	if [ -d "$dir" ]; then
		"$PYTHON3" "$srcdir/treemanifest.py" "$dir" \
			>"$scratch/$tag.$j.tree" 2>&1
	else
		echo "no tree" >"$scratch/$tag.$j.tree"
	fi
	rm -rf "$dir"
	run_fsck "$scratch/$tag.$j.cout" "$scratch/$tag.$j.cerr" -j"$j" "$@"
	echo "$?" >>"$scratch/$tag.$j.rc"
}

# same TAG N: does -jN match -j1? Names the first difference.
same()
{
	local f
	for f in rc out err tree cout cerr; do
		if ! cmp -s "$scratch/$1.1.$f" "$scratch/$1.$2.$f"; then
			why="-j$2: $f differs from -j1"
			diff "$scratch/$1.1.$f" "$scratch/$1.$2.$f" | show /dev/stdin
			return 1
		fi
	done
	if has_sanitizer_report "$scratch/$1.$2.err" "$scratch/$1.$2.cerr"; then
		why="-j$2: sanitizer report"
		return 1
	fi
}

check()
{
	local tag=$1 j ok=1
	shift
	for j in 1 2 8; do
		run_jobs "$tag" "$j" "$@"
	done
	for j in 2 8; do
		same "$tag" "$j" || { ok=0; break; }
	done
	n=$((n + 1))
	if [ "$ok" = 1 ]; then
		echo "ok $n - $tag: -j1, -j2, -j8 agree (exit $(tr '\n' ' ' \
			<"$scratch/$tag.1.rc"))"
	else
		echo "not ok $n - $tag: $why"
	fi
}

images=()
while read -r name manifest extra; do
	case $name in ''|'#'*) continue ;; esac
	images+=("$name|$extra")
done <"$data/index"
set -- $damaged
echo "1..$((${#images[@]} + $#))"

n=0
for entry in "${images[@]}"; do
	IFS='|' read -r name extra <<<"$entry"
	resolve "$name" || { echo "Bail out! cannot unpack $name"; exit 0; }
	image=$path
	opts=()
	for opt in $extra; do
		case $opt in
		*=@*)
			resolve "${opt#*=@}" || exit 99
			opt=${opt%%=@*}=$path
			;;
		esac
		opts+=("$opt")
	done
	check "$name" "${opts[@]}" "$image"
done
for name in $damaged; do
	resolve "$name" || { echo "Bail out! cannot unpack $name"; exit 0; }
	damage "$path" "$scratch/damaged-$name" || exit 99
	check "damaged-$name" "$scratch/damaged-$name"
	rm -f "$scratch/damaged-$name"
done
