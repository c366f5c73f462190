#!/bin/bash
# readahead.sh: read-ahead of the packed inode changes nothing but the
# speed (TAP).
#
# For every stored test image with fragments or dedupe, and for damaged
# copies of two of them (bytes of the second half overwritten with a fixed
# pattern, which hits packed extents that many files share), runs
# "fsck.erofs -jN --extract=DIR IMAGE" and "fsck.erofs -jN --manifest
# IMAGE" with N = 1 (never reads ahead), 2 and 8 (threads forced on by
# EROFS_FSCK_SYNC_NS=0), with the default window and with a window of one
# extent (EROFS_FSCK_READAHEAD=1), and requires, against -j1: the same
# exit status, standard output (the manifest), standard error (problems
# and their order) and extracted tree. That -j2 did read ahead is taken
# from its -d7 statistics line, "(N read ahead, M held back)" with N > 0.
#
# Then a small fragment cache (EROFS_FSCK_FRAG_CACHE, a few extents): -j2 still
# extracts the same tree, and the most the cache held at once stays within
# the budget plus what readers and prefetches in flight pin (one extent of
# at most a quarter of the budget each: 2N + 1 of them with N threads).
#
# Then the count of packed bytes decoded (--json): with the default cache,
# which holds these packed inodes whole, every encoded byte is decoded
# exactly once at -j1 and -j2; with a cache of two extents, that -j2
# extraction decodes some again (the count can tell).
#
# Last, files whose data is one fragment longer than the read-ahead window
# (EROFS_FSCK_READAHEAD=4096) are cut at the packed inode's extents: -j2
# splits them into more pieces than files (its -d7 line "split files: N,
# in M pieces"), decodes every packed byte once, and extracts the same
# tree as -j1; its --manifest, whose pieces hash from the fragment cache,
# is the same as -j1's.
#
# And --tar, whose ordered window holds a file's data from when its task
# is queued: with a window of 4 MiB (EROFS_FSCK_TAR_WINDOW), less than the
# 5.7 MB of data of the files held at once, the held files are queued in
# as many batches as --extract queues them (-d7 "held files: N, queued in
# M batches"): they take no room while held, so a full window does not
# cut the hold short; with a window of one byte, where every file waits
# for the ones before it, -j2 and -j8 still end and write the archive
# -j1 writes with the default window; so do they with a window of 256
# KiB, where files held wait for room when their turn comes (-d7 "held
# files waiting for an output's room: N"), read ahead for as they wait.
#
# And a selection (--include=bigdir), whose files leave most packed extents
# unread: those are decoded after the walk as tasks (-d7 "packed extents
# no file read, decoded after the walk: N", N > 0), every packed byte once
# at -j1 and -j2 (--json), and -j2 and -j8 report what -j1 reports, in the
# same order, on the damaged images too, whose problems lie in extents no
# selected file reads.
#
# And the first file held: -j2 reads ahead for it as the walker meets it,
# so that the workers decode the packed inode's first extents while the
# walker fills the first batch (-d7 "read-ahead tasks queued while the
# first files were held: N", N > 0); -j1, without threads, does not.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

export EROFS_FSCK_SYNC_NS=0
unset EROFS_FSCK_READAHEAD EROFS_FSCK_FRAG_CACHE EROFS_FSCK_SPLIT
make_scratch
xroot=$(mktemp -d /dev/shm/erofs-ra.XXXXXX 2>/dev/null) || xroot=$scratch
trap 'rm -rf "$scratch" "$xroot"' EXIT
# lz4hc-dedupe has no packed inode: nothing to read ahead
images="lz4hc-fragments.erofs lz4hc-all-fragments.erofs lz4hc-dedupe.erofs
lz4hc-c64k-dedupe-fragments-ztailpacking.erofs
lz4hc-fragments-xattr-prefix.erofs zstd-c64k-fragments.erofs"
no_packed="lz4hc-dedupe.erofs"
damaged="lz4hc-fragments.erofs lz4hc-c64k-dedupe-fragments-ztailpacking.erofs"

damage()
{
	"$PYTHON3" -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
for off in range(len(b) // 2, len(b) - 64, 4096):
	b[off:off + 64] = bytes((off * 7 + i * 13) & 0xff for i in range(64))
open(sys.argv[2], "wb").write(b)' "$@"
}

tree()
{
	[ -d "$1" ] || { echo "no tree"; return; }
	(cd "$1" && find . -printf '%p %y %m %U %G %s %T@ %n %l\n' |
		LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z |
		xargs -0 -r sha256sum)
}

# run TAG N RUN IMAGE: --extract=DIR and --manifest with -jN into
# $scratch/TAG.RUN.*
run()
{
	local tag=$1 j=$2 r=$3 image=$4 dir=$xroot/tree
	rm -rf "$dir"
	run_fsck "$scratch/$tag.$r.out" "$scratch/$tag.$r.err" -j"$j" \
		--extract="$dir" "$image"
	echo "$?" >"$scratch/$tag.$r.rc"
	tree "$dir" >"$scratch/$tag.$r.tree" 2>&1
	rm -rf "$dir"
	run_fsck "$scratch/$tag.$r.mout" "$scratch/$tag.$r.merr" -j"$j" \
		--manifest "$image"
	echo "$?" >>"$scratch/$tag.$r.rc"
}

# same TAG A B: do runs A and B agree? Names the first difference.
same()
{
	local f
	for f in rc out err tree mout merr; do
		if ! cmp -s "$scratch/$1.$2.$f" "$scratch/$1.$3.$f"; then
			why="$3: $f differs from $2"
			diff "$scratch/$1.$2.$f" "$scratch/$1.$3.$f" |
				show /dev/stdin
			return 1
		fi
	done
	if has_sanitizer_report "$scratch/$1.$3.err" "$scratch/$1.$3.merr"
	then
		why="$3: sanitizer report"
		return 1
	fi
}

# read_ahead IMAGE: extents -j2 decoded ahead, from its statistics
read_ahead()
{
	"$FSCK" -d7 -j2 --extract "$1" 2>&1 >/dev/null |
		sed -n 's/.*fragment cache: .* (\([0-9]*\) read ahead, .*/\1/p'
}

# check TAG IMAGE
check()
{
	local tag=$1 image=$2 j ok=1 ra
	run "$tag" 1 1 "$image"
	for j in 2 8; do
		run "$tag" "$j" "$j" "$image"
		EROFS_FSCK_READAHEAD=1 run "$tag" "$j" "$j-one" "$image"
	done
	for j in 2 2-one 8 8-one; do
		same "$tag" 1 "$j" || { ok=0; break; }
	done
	ra=$(read_ahead "$image")
	if [ "$tag" = "$no_packed" ]; then
		[ -z "$ra" ] || { why="-j2 read ahead ($ra)"; ok=0; }
		ra=0
	elif [ "$ok" = 1 ] && ! [ "${ra:-0}" -gt 0 ]; then
		why="-j2 read no extent ahead ('${ra}')"
		ok=0
	fi
	if [ "$ok" = 1 ]; then
		tap_ok "$tag: -j1, -j2, -j8 agree," \
			"$ra extents read ahead" \
			"(exit $(tr '\n' ' ' <"$scratch/$tag.1.rc"))"
	else
		tap_not_ok "$tag: $why" ""
	fi
}

# small_cache IMAGE NAME BUDGET: a cache of BUDGET bytes at -j2
small_cache()
{
	local image=$1 name=$2 budget=$3 peak rc
	local limit=$((budget + 5 * budget / 4))
	run_fsck "$scratch/s.out" "$scratch/s.err" -j1 \
		--extract="$xroot/t1" "$image"
	tree "$xroot/t1" >"$scratch/s1.tree" 2>&1
	EROFS_FSCK_FRAG_CACHE=$budget run_fsck "$scratch/s.out" \
		"$scratch/s.err" -d7 -j2 --extract="$xroot/t2" "$image"
	rc=$?
	tree "$xroot/t2" >"$scratch/s2.tree" 2>&1
	rm -rf "$xroot/t1" "$xroot/t2"
	peak=$(sed -n \
		's/.*fragment cache: budget [0-9]*, peak \([0-9]*\) .*/\1/p' \
		"$scratch/s.err")
	if [ "$rc" != 0 ] || ! cmp -s "$scratch/s1.tree" "$scratch/s2.tree"
	then
		tap_not_ok "$name, cache of $budget bytes: exit $rc or another tree than -j1" \
			"$scratch/s.err"
	elif [ -z "$peak" ] || [ "$peak" -eq 0 ] || [ "$peak" -gt "$limit" ]
	then
		tap_not_ok "$name, cache of $budget bytes: peak '$peak' not in 1..$limit" \
			""
	else
		tap_ok "$name, cache of $budget bytes: same tree," \
			"peak $peak bytes <= $limit"
	fi
}

# decoded NAME PATH: packed_decoded_bytes against packed_encoded_bytes
decoded()
{
	local name=$1 img=$2 j enc dec counts=
	for j in 1 2; do
		"$FSCK" -j$j --json --extract "$img" >"$scratch/d.json" \
			2>"$scratch/d.err"
		counts+=" $("$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["packed_decoded_bytes"], d["packed_encoded_bytes"])' \
			"$scratch/d.json" 2>>"$scratch/d.err")"
	done
	EROFS_FSCK_FRAG_CACHE=131072 "$FSCK" -j2 --json --extract "$img" \
		>"$scratch/d.json" 2>>"$scratch/d.err"
	read -r enc dec < <("$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["packed_encoded_bytes"], d["packed_decoded_bytes"])' \
		"$scratch/d.json" 2>>"$scratch/d.err")
	set -- $counts
	if [ $# = 4 ] && [ "$1" = "$2" ] && [ "$3" = "$4" ] &&
		[ "$1" = "$enc" ] && [ "${dec:-0}" -gt "$enc" ]; then
		tap_ok "$name: $enc encoded bytes decoded once at -j1 and -j2," \
			"$dec with a 128 KiB cache"
	else
		tap_not_ok "$name: decoded/encoded -j1, -j2 '$counts'," \
			"small cache '$dec' of '$enc'" "$scratch/d.err"
	fi
}

# cut_fragments NAME PATH: whole fragments past the window, in pieces
cut_fragments()
{
	local name=$1 img=$2 rc files=0 pieces=0 enc dec
	run_fsck "$scratch/c.out" "$scratch/c.err" -j1 \
		--extract="$xroot/t1" "$img"
	tree "$xroot/t1" >"$scratch/c1.tree" 2>&1
	run_fsck "$scratch/c1.mf" "$scratch/c.err" -j1 --manifest "$img"
	EROFS_FSCK_READAHEAD=4096 EROFS_FSCK_SPLIT=1000 run_fsck \
		"$scratch/c2.mf" "$scratch/c.err" -j2 --manifest "$img"
	EROFS_FSCK_READAHEAD=4096 EROFS_FSCK_SPLIT=1000 run_fsck \
		"$scratch/c.json" "$scratch/c.err" -d7 -j2 --json \
		--extract="$xroot/t2" "$img"
	rc=$?
	tree "$xroot/t2" >"$scratch/c2.tree" 2>&1
	rm -rf "$xroot/t1" "$xroot/t2"
	read -r files pieces < <(sed -n \
		's/.*split files: \([0-9]*\), in \([0-9]*\) pieces.*/\1 \2/p' \
		"$scratch/c.err")
	read -r enc dec < <("$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["packed_encoded_bytes"], d["packed_decoded_bytes"])' \
		"$scratch/c.json" 2>>"$scratch/c.err")
	if [ "$rc" != 0 ] || ! cmp -s "$scratch/c1.tree" "$scratch/c2.tree"
	then
		tap_not_ok "$name, fragments cut: exit $rc or another tree than -j1" \
			"$scratch/c.err"
	elif ! [ "${pieces:-0}" -gt "${files:-0}" ] ||
		! [ "${files:-0}" -gt 0 ]; then
		tap_not_ok "$name, fragments cut: '$files' files in '$pieces' pieces" \
			"$scratch/c.err"
	elif [ -z "$enc" ] || [ "$enc" != "$dec" ]; then
		tap_not_ok "$name, fragments cut: '$dec' of '$enc' decoded" \
			"$scratch/c.err"
	elif ! [ -s "$scratch/c1.mf" ] ||
		! cmp -s "$scratch/c1.mf" "$scratch/c2.mf"; then
		tap_not_ok "$name, fragments cut: another manifest than -j1" \
			"$scratch/c.err"
	else
		tap_ok "$name, fragments cut: $files files in $pieces pieces," \
			"$enc packed bytes decoded once, same tree and" \
			"manifest as -j1"
	fi
}

# first_held NAME PATH: the walker reads ahead for the first file it holds,
# before the first batch is released, at -j2 only
first_held()
{
	local name=$1 img=$2 j n line=
	for j in 1 2; do
		run_fsck "$scratch/f.out" "$scratch/f.err" -d7 -j$j --extract \
			"$img"
		n=$(sed -n 's/.*read-ahead tasks queued while the first files were held: \([0-9]*\)$/\1/p' \
			"$scratch/f.err")
		line="$line -j$j: ${n:-none}"
	done
	if [ "$line" = " -j1: none -j2: ${line##* }" ] &&
		[ "${line##* }" != none ]; then
		tap_ok "$name: read-ahead queued before the first batch of" \
			"held files was released:$line"
	else
		tap_not_ok "$name: read-ahead before the first batch:$line" \
			"$scratch/f.err"
	fi
}

# selected_rest NAME PATH: the packed extents a selection leaves unread
selected_rest()
{
	local name=$1 img=$2 j rc n counts=
	for j in 1 2 8; do
		run_fsck "$scratch/r.out" "$scratch/r$j.err" -j$j --extract \
			--include=bigdir "$img"
		echo "$?" >"$scratch/r$j.rc"
	done
	for j in 2 8; do
		if ! cmp -s "$scratch/r1.rc" "$scratch/r$j.rc" ||
			! cmp -s "$scratch/r1.err" "$scratch/r$j.err" ||
			has_sanitizer_report "$scratch/r$j.err"; then
			diff "$scratch/r1.err" "$scratch/r$j.err" |
				show /dev/stdin
			tap_not_ok "$name, --include=bigdir: -j$j reports otherwise than -j1" \
				"$scratch/r$j.err"
			return
		fi
	done
	rc=$(cat "$scratch/r1.rc")
	for j in 1 2; do
		run_fsck "$scratch/r.json" "$scratch/r.err" -d7 -j$j --json \
			--extract --include=bigdir "$img"
		counts+=" $("$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["packed_decoded_bytes"], d["packed_encoded_bytes"])' \
			"$scratch/r.json" 2>>"$scratch/r.err")"
	done
	n=$(sed -n 's/.*packed extents no file read, decoded after the walk: \([0-9]*\) .*/\1/p' \
		"$scratch/r.err")
	set -- $counts
	if ! [ "${n:-0}" -gt 0 ]; then
		tap_not_ok "$name, --include=bigdir: -j2 decoded '${n}' extents after the walk" \
			"$scratch/r.err"
	elif [ "$rc" = 0 ] && ! { [ $# = 4 ] && [ "$1" = "$2" ] &&
		[ "$3" = "$4" ] && [ "$1" = "$3" ]; }; then
		tap_not_ok "$name, --include=bigdir: decoded/encoded -j1, -j2 '$counts'" \
			"$scratch/r.err"
	else
		tap_ok "$name, --include=bigdir: $n packed extents decoded" \
			"after the walk at -j2; -j2 and -j8 report as -j1" \
			"(exit $rc)"
	fi
}

# tar_window NAME PATH: held files take room in --tar's window once queued
tar_window()
{
	local name=$1 img=$2 j want got w rc stalls
	run_fsck "$scratch/w.out" "$scratch/w.err" -j1 --tar="$scratch/w1.tar" \
		"$img"
	want=$("$FSCK" -d7 -j2 --extract "$img" 2>&1 >/dev/null |
		grep 'held files:')
	for j in 1 2; do
		EROFS_FSCK_TAR_WINDOW=4194304 run_fsck "$scratch/w.out" \
			"$scratch/w.err" -d7 -j$j --tar="$scratch/w2.tar" "$img"
		rc=$?
		got=$(grep 'held files:' "$scratch/w.err")
		if [ "$rc" != 0 ] || [ -z "$want" ] || [ "$got" != "$want" ]
		then
			tap_not_ok "$name, --tar -j$j, window of 4 MiB: exit $rc, '$got', --extract: '$want'" \
				"$scratch/w.err"
			return
		fi
		if ! cmp -s "$scratch/w1.tar" "$scratch/w2.tar"; then
			tap_not_ok "$name, --tar -j$j, window of 4 MiB: another archive" \
				"$scratch/w.err"
			return
		fi
	done
	for j in 2 8; do
		EROFS_FSCK_TAR_WINDOW=1 run_fsck "$scratch/w.out" \
			"$scratch/w.err" -j$j --tar="$scratch/w2.tar" "$img"
		rc=$?
		if [ "$rc" != 0 ] || ! cmp -s "$scratch/w1.tar" "$scratch/w2.tar"
		then
			tap_not_ok "$name, --tar -j$j, window of one byte: exit $rc or another archive" \
				"$scratch/w.err"
			return
		fi
		EROFS_FSCK_TAR_WINDOW=262144 run_fsck "$scratch/w.out" \
			"$scratch/w.err" -d7 -j$j --tar="$scratch/w2.tar" \
			"$img"
		rc=$?
		stalls=$(sed -n "s/.*held files waiting for an output's room: \([0-9]*\)$/\1/p" \
			"$scratch/w.err")
		if [ "$rc" != 0 ] || [ "${stalls:-0}" -eq 0 ] ||
			! cmp -s "$scratch/w1.tar" "$scratch/w2.tar"; then
			tap_not_ok "$name, --tar -j$j, window of 256 KiB: exit $rc, ${stalls:-no} held files waited for room, or another archive" \
				"$scratch/w.err"
			return
		fi
	done
	w=${want#*held files: }
	tap_ok "$name, --tar: $w with a window of 4 MiB as with --extract;" \
		"the same archive with a window of one byte at -j2 and -j8," \
		"and of 256 KiB, where $stalls held files waited for room"
}

set -- $images
count=$#
set -- $damaged
tap_plan $((count + 2 * $# + 7))
for name in $images; do
	resolve "$name" || { echo "Bail out! cannot unpack $name"; exit 0; }
	check "$name" "$path"
done
for name in $damaged; do
	resolve "$name" || { echo "Bail out! cannot unpack $name"; exit 0; }
	damage "$path" "$scratch/damaged-$name" || exit 99
	check "damaged-$name" "$scratch/damaged-$name"
	selected_rest "damaged-$name" "$scratch/damaged-$name"
done
while read -r name budget; do
	resolve "$name" || { echo "Bail out! cannot unpack $name"; exit 0; }
	small_cache "$path" "$name" "$budget"
done <<EOF
lz4hc-fragments.erofs 131072
zstd-c64k-fragments.erofs 2097152
EOF
resolve lz4hc-fragments.erofs || { echo "Bail out! cannot unpack"; exit 0; }
decoded lz4hc-fragments.erofs "$path"
resolve lz4hc-all-fragments.erofs || { echo "Bail out! cannot unpack"; exit 0; }
cut_fragments lz4hc-all-fragments.erofs "$path"
tar_window lz4hc-all-fragments.erofs "$path"
first_held lz4hc-all-fragments.erofs "$path"
selected_rest lz4hc-all-fragments.erofs "$path"
