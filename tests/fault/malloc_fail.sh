#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Allocation failures never give wrong data. For a range of n, the n-th
# allocation fails (tests/fault/malloc_fail.so, preloaded) in:
#   fault/readall [-j 2] IMAGE        every file read through the library
#   fsck.erofs --extract IMAGE        check with all data decoded
#   fsck.erofs --manifest IMAGE       the manifest, with content digests
#   fsck.erofs --extract=DIR IMAGE    extraction, once fsck has it (the
#                                     output is then a listing of DIR)
# Then a few runs where every allocation from the n-th on fails. Each run
# must either exit 0 with exactly the output of a run without
# failures, or exit 8 with a message that names memory. Anything else (a
# crash, exit 4, exit 0 with other output) fails the test.
#
# Environment: EROFS_TEST_DATA (fixture images), FAULT_RUNS (runs per
# image and command, default 30), FAULT_FSCK or FSCK (fsck.erofs to
# test).
set -u

fixtures=${EROFS_TEST_DATA:-/work/shared/fixtures}
runs=${FAULT_RUNS:-30}
shim=$PWD/fault/malloc_fail.so
readall=$PWD/fault/readall
fsck=${FAULT_FSCK:-${FSCK:-$PWD/../fsck/fsck.erofs}}
images="lz4hc-all-fragments.erofs zstd-c64k-fragments.erofs
	deflate-48bit-c32k.erofs lzma-default.erofs lz4hc-metabox.erofs"

# AddressSanitizer and ThreadSanitizer bring their own allocator
if ldd "$readall" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	echo "SKIP: sanitizer build (the shim cannot replace its malloc)"
	exit 77
fi
if [ ! -f "$shim" ] || [ ! -x "$readall" ]; then
	echo "FAIL: $shim or $readall not built"
	exit 1
fi
if [ ! -d "$fixtures" ]; then
	echo "SKIP: no fixtures in $fixtures"
	exit 77
fi

tmp=$(mktemp -d /tmp/malloc_fail.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0

# The commands to try, one per line: a name, then the command.
commands() {
	echo "readall $readall"
	echo "readall-j2 $readall -j 2"
	if [ -x "$fsck" ]; then
		if "$fsck" --help 2>&1 | grep -q -- '--extract'; then
			echo "fsck-extract $fsck --extract"
		fi
		if "$fsck" --help 2>&1 | grep -q -- '--manifest'; then
			echo "fsck-manifest $fsck --manifest"
		fi
		if "$fsck" --help 2>&1 | grep -q -- '--extract=DIR'; then
			echo "fsck-extract-dir $fsck"
		fi
	else
		echo "note: $fsck not built; library runs only" >&2
	fi
}

# Types, modes, sizes, link targets and contents of the tree in DIR.
listing() {
	(cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z |
		xargs -0 -r sha256sum)
}

# run NAME N CMD... IMAGE: one run with the n-th allocation failing (0:
# none); leaves $tmp/out, $tmp/err and $tmp/rc.
run() {
	name=$1
	n=$2
	shift 2
	if [ "$name" = fsck-extract-dir ]; then
		rm -rf "$tmp/tree"
		EROFS_FAIL_ALLOC=$n EROFS_FAIL_ALLOC_COUNT=$tmp/count \
			EROFS_FAIL_ALLOC_PERSIST=$persist LD_PRELOAD=$shim \
			"$@" --extract="$tmp/tree" >/dev/null 2>"$tmp/err" \
			</dev/null
		echo $? >"$tmp/rc"
		listing "$tmp/tree" >"$tmp/out" 2>/dev/null
		return
	fi
	EROFS_FAIL_ALLOC=$n EROFS_FAIL_ALLOC_COUNT=$tmp/count \
		EROFS_FAIL_ALLOC_PERSIST=$persist LD_PRELOAD=$shim \
		"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	echo $? >"$tmp/rc"
}

# The values of n for a command that makes total allocations: all of the
# first ones (set-up), then evenly spread over the rest.
points() {
	total=$1
	awk -v total="$total" -v runs="$runs" 'BEGIN {
		head = runs / 2
		for (n = 1; n <= total && n <= head; n++)
			print n
		rest = runs - head
		if (total > head)
			for (i = 1; i <= rest; i++) {
				n = head + int((total - head) * i / rest)
				if (n > prev && n > head)
					print n
				prev = n
			}
	}'
}

# Ten values of n, marked p, for runs where allocations keep failing.
persist_points() {
	awk -v total="$1" 'BEGIN {
		for (i = 0; i < 10; i++)
			print "p" (1 + int(total * i / 10))
	}'
}

check_one() {
	name=$1
	image=$2
	shift 2
	persist=
	run "$name" 0 "$@" "$image"
	if [ "$(cat "$tmp/rc")" != 0 ]; then
		echo "FAIL: $name $image: exit $(cat "$tmp/rc")" \
			"without injected failures"
		sed 's/^/    /' "$tmp/err" | head -5
		failures=$((failures + 1))
		return
	fi
	cp "$tmp/out" "$tmp/ref"
	total=$(cat "$tmp/count")
	done_ok=0
	done_nomem=0
	for n in $(points "$total") $(persist_points "$total"); do
		case $n in
		p*) persist=1 n=${n#p} ;;
		*) persist= ;;
		esac
		run "$name" "$n" "$@" "$image"
		rc=$(cat "$tmp/rc")
		if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/ref"; then
			done_ok=$((done_ok + 1))
		elif [ "$rc" = 8 ] && grep -qi 'memory' "$tmp/err"; then
			done_nomem=$((done_nomem + 1))
		else
			echo "FAIL: $name $(basename "$image"):" \
				"allocation $n of $total failing" \
				"${persist:+and all after it }gave exit $rc"
			if [ "$rc" = 0 ]; then
				echo "    output differs from the run" \
					"without failures"
			fi
			sed 's/^/    /' "$tmp/err" | head -5
			failures=$((failures + 1))
			continue
		fi
		passes=$((passes + 1))
	done
	echo "$name $(basename "$image"): $total allocations;" \
		"$done_ok runs complete, $done_nomem stopped with exit 8"
}

for img in $images; do
	image=$fixtures/$img
	if [ ! -r "$image" ]; then
		echo "note: $image not found"
		continue
	fi
	commands >"$tmp/commands"
	while read -r name cmd; do
		# word splitting of $cmd is wanted: paths have no spaces here
		# shellcheck disable=SC2086
		check_one "$name" "$image" $cmd
	done <"$tmp/commands"
done

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
