#!/bin/bash
# tsan-fsck.sh FSCK IMAGES: fsck.erofs built with ThreadSanitizer, on a few
# images with every decoded file split into one-extent pieces (-j4), so
# that pieces, the fragment cache, read-ahead of the packed inode, the
# ordered window of hashed files (--manifest) and of the archive (--tar,
# when built with libarchive) and the commit by the last piece run
# concurrently; --compare=DIR against an extracted tree, the same and
# changed; a selection, whose packed extents no file read are decoded
# after the walk; -j1 --extract=DIR, whose two workers take turns to
# decode; also on damaged copies, where pieces and packed extents fail;
# with a dm-verity tree, checked as every worker reads (on the damaged
# copy too, whose blocks then fail their hash).
# Not a "make check" test: "make tsan-check" runs it. Prints TAP; exits
# non-zero on any report.
set -u
# shellcheck source=lib/testlib.sh
. "$(dirname "$0")/lib/testlib.sh"
fsck=$1 images=$2
tmp=$(mktemp -d /dev/shm/erofs-tsan.XXXXXX 2>/dev/null || mktemp -d) ||
	exit 99
trap 'rm -rf "$tmp"' EXIT
export EROFS_FSCK_SYNC_NS=0 EROFS_FSCK_SPLIT=1
export TSAN_OPTIONS=halt_on_error=1:exitcode=66
# --tar is there unless built without libarchive
tar=yes
"$fsck" --tar=/dev/null /nonexistent 2>&1 | grep -q 'without libarchive' &&
	tar=

# run EXPECTED-EXIT OPTION...: at -j4, or -j$jobs
run()
{
	local want=$1 j=${jobs:-4} rc
	shift
	rm -rf "$tmp/x"
	"$fsck" -j"$j" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ] || grep -q ThreadSanitizer "$tmp/err"; then
		tap_not_ok "exit $rc (want $want): -j$j $*" ""
		show "$tmp/err" 60
	else
		tap_ok "exit $rc: -j$j $*"
	fi
}

for name in lz4hc-fragments zstd-c64k-fragments deflate-48bit-c32k \
	lzma-c64k lz4hc-dedupe; do
	run 0 --extract="$tmp/x" "$images/$name.erofs"
	run 0 --extract "$images/$name.erofs"
	run 0 --manifest --xattr-inode-digest "$images/$name.erofs"
	[ -z "$tar" ] || run 0 --tar="$tmp/a.tar" "$images/$name.erofs"
done
EROFS_FSCK_READAHEAD=1 run 0 --extract "$images/lz4hc-all-fragments.erofs"
# -j1 extracting: two workers take turns to decode (the image's decoders
# limited to one), the packed inode's extents read ahead meanwhile
for name in lz4hc-all-fragments lzma-c64k; do
	jobs=1 run 0 --extract="$tmp/x" "$images/$name.erofs"
done
# a selection: the packed extents no file read are decoded after the walk
run 0 --extract --include=bigdir "$images/lz4hc-all-fragments.erofs"
# --compare=DIR: the workers read the files on disk beside the image's,
# against the tree itself and against it with one file grown by a byte
"$fsck" --extract="$tmp/tree" "$images/lz4hc-fragments.erofs" \
	>/dev/null 2>&1 || exit 99
run 0 --compare="$tmp/tree" "$images/lz4hc-fragments.erofs"
grown=$(find "$tmp/tree" -type f -size +1k | head -n 1)
[ -n "$grown" ] || exit 99
printf Z >>"$grown"
run 1 --compare="$tmp/tree" "$images/lz4hc-fragments.erofs"
for name in lz4hc-default lz4hc-fragments; do
	python3 - "$images/$name.erofs" "$tmp/bad.erofs" <<'PY' || exit 99
import sys
b = bytearray(open(sys.argv[1], "rb").read())
for off in range(len(b) // 2, len(b) - 64, 4096):
    b[off:off + 64] = bytes((off * 7 + i * 13) & 0xff for i in range(64))
open(sys.argv[2], "wb").write(b)
PY
	run 4 --extract="$tmp/x" "$tmp/bad.erofs"
	jobs=1 run 4 --extract="$tmp/x" "$tmp/bad.erofs"
	run 4 --manifest "$tmp/bad.erofs"
	[ -z "$tar" ] || run 4 --tar="$tmp/a.tar" --sparse "$tmp/bad.erofs"
	[ "$name" = lz4hc-default ] ||
		run 4 --extract --include=bigdir "$tmp/bad.erofs"
done
# a dm-verity tree: every worker's reads check blocks, sharing the kept
# leaves and the bits of blocks read, as the sweep checks the rest
if command -v veritysetup >/dev/null; then
	cp "$images/lz4hc-fragments.erofs" "$tmp/v.erofs" || exit 99
	vroot=$(veritysetup format "$tmp/v.erofs" "$tmp/v.hash" |
		sed -n 's/^Root hash:[[:space:]]*//p')
	vtree=(--verity="$tmp/v.hash" --root-hash="$vroot")
	run 0 --extract="$tmp/x" "${vtree[@]}" "$tmp/v.erofs"
	run 0 "${vtree[@]}" "$tmp/v.erofs"
	run 4 --extract "${vtree[@]}" "$tmp/bad.erofs"
fi
tap_plan
exit $((tap_failed > 0))
