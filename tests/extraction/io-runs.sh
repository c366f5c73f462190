#!/bin/bash
# io-runs.sh: a file's data is read and written in runs (TAP).
#
# An image of 300 files sized as in a root filesystem (most under 16 KiB,
# a quarter up to 64 KiB, a few up to 400 KiB), lz4hc in 4 KiB pclusters,
# as mkfs.erofs writes a file's pclusters one after the other:
# --extract=DIR at -j1 and -j2 under strace. Each file's pclusters
# that lie next to each other are read with one pread (up to 256 KiB,
# lib/image/data.c), metadata blocks a few at a time (meta_cache.c), and
# the decoded bytes written 64 KiB at a time (check.c): reads plus writes
# come to at most 3 per regular file on average, where one read and one
# write per pcluster came to 6.5. The tree extracted is the tree packed,
# byte for byte, at either -j. Skips without strace or mkfs.erofs.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

need_mkfs
need_tools strace "$PYTHON3"
make_scratch
tree=$scratch/tree
"$PYTHON3" - "$tree" <<'PY' || exit 99
import os, random, sys
top = sys.argv[1]
rng = random.Random(51)
for i in range(300):
    d = os.path.join(top, "d%d" % (i % 10))
    os.makedirs(d, exist_ok=True)
    kind = rng.random()
    size = rng.randint(1, 16 << 10) if kind < 0.7 else \
        rng.randint(16 << 10, 64 << 10) if kind < 0.95 else \
        rng.randint(64 << 10, 400 << 10)
    # half of it compressible: a 4 KiB pcluster holds about 8 KiB
    data = b"".join(rng.randbytes(256) + bytes(256)
                    for _ in range(size // 512 + 1))
    with open(os.path.join(d, "f%03d" % i), "wb") as f:
        f.write(data[:size])
PY
img=$scratch/runs.erofs
"$mkfs" -zlz4hc -T1700000000 --all-root "$img" "$tree" >/dev/null 2>&1 ||
	exit 99

# LeakSanitizer cannot stop the threads of a process strace traces
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
export ASAN_OPTIONS
for j in 1 2; do
	out=$scratch/out$j
	EROFS_FSCK_SYNC_NS=0 strace -f -c -o "$scratch/strace$j" \
		"$FSCK" -j$j --extract="$out" "$img" >/dev/null 2>"$err"
	rc=$?
	calls=$(awk '$NF ~ /^(pread64|read|pwrite64|write)$/ { n += $4 }
		END { print n + 0 }' "$scratch/strace$j")
	files=$(find "$out" -type f | wc -l)
	if [ "$rc" -eq 0 ] && [ "$files" -eq 300 ] &&
		[ "$calls" -le $((3 * files)) ] && diff -r "$tree" "$out" >/dev/null; then
		tap_ok "-j$j: $calls reads and writes for $files files, the tree exact"
	else
		tap_not_ok "-j$j: exit $rc, $calls reads and writes for $files files" \
			"$scratch/strace$j"
	fi
done
tap_plan
[ "$tap_failed" -eq 0 ]
