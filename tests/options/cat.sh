#!/bin/bash
# cat.sh: --cat=PATH, one file's bytes on standard output (TAP).
#
# - on a stored image, at -j1 and -j2: the bytes of a file (their SHA-256
#   is the manifest's), of a file with holes, of several --cat in walk
#   order whatever their order on the command line, and of a file over
#   4 MiB (spooled) of an image made by mkfs.erofs;
# - a directory, a symlink: exit 8 naming PATH, nothing written; a path
#   not in the image: exit 8, "named by --cat"; "..", an empty path, a
#   path outside --exclude, --cat with --manifest: exit 16;
# - a file whose data fails its check (a damaged copy): exit 4, none of
#   its bytes written.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

make_scratch
resolve lz4hc-default.erofs || exit 99
img=$path
"$FSCK" --manifest "$img" >"$scratch/manifest" || exit 99

# digest PATH: the manifest's SHA-256 of PATH
digest()
{
	awk -v p="$1" '$1 == p { print $8 }' "$scratch/manifest"
}

for j in 1 2; do
	for f in sizes/size-1048579 sparse.bin hardlinks/a; do
		run_fsck "$out" "$err" -j$j --cat="$f" "$img"
		rc=$?
		got=$(sha256sum <"$out" | cut -d' ' -f1)
		if [ "$rc" -eq 0 ] && [ "$got" = "$(digest "$f")" ]; then
			tap_ok "-j$j --cat=$f: its bytes"
		else
			tap_not_ok "-j$j --cat=$f (exit $rc)"
		fi
	done
	run_fsck "$out" "$err" -j$j --cat=sparse.bin --cat=/hardlinks/a "$img"
	rc=$?
	"$FSCK" --cat=hardlinks/a "$img" >"$scratch/want"
	"$FSCK" --cat=sparse.bin "$img" >>"$scratch/want"
	if [ "$rc" -eq 0 ] && cmp -s "$out" "$scratch/want"; then
		tap_ok "-j$j two --cat: in walk order"
	else
		tap_not_ok "-j$j two --cat (exit $rc)"
	fi
done

# a file spooled on its way
if command -v mkfs.erofs >/dev/null; then
	mkdir -p "$scratch/tree"
	head -c 6000000 /dev/urandom >"$scratch/tree/big"
	mkfs.erofs -zlz4hc "$scratch/big.erofs" "$scratch/tree" >"$err" 2>&1
	run_fsck "$out" "$err" -j2 --cat=big "$scratch/big.erofs"
	rc=$?
	if [ "$rc" -eq 0 ] && cmp -s "$out" "$scratch/tree/big"; then
		tap_ok "--cat of a 6 MB file: its bytes"
	else
		tap_not_ok "--cat of a 6 MB file (exit $rc)"
	fi
else
	tap_skip "--cat of a 6 MB file" "no mkfs.erofs"
fi

# cat_fails NAME STATUS PATTERN ARG...: exit STATUS, the message, no bytes
cat_fails()
{
	local name=$1 want=$2 pattern=$3 rc
	shift 3
	run_fsck "$out" "$err" "$@"
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -q -- "$pattern" "$err" && [ ! -s "$out" ]; then
		tap_ok "$name: exit $rc, $(grep -- "$pattern" "$err" | head -n1)"
	else
		tap_not_ok "$name (exit $rc)"
	fi
}
cat_fails "--cat of a directory" 8 "--cat=hardlinks: a directory, not a regular file" \
	--cat=hardlinks "$img"
cat_fails "--cat of a symlink" 8 "a symlink, not a regular file" \
	--cat="$(awk '$2 == "l" { print $1; exit }' "$scratch/manifest")" "$img"
cat_fails "--cat of a path not in the image" 8 "/no/such: named by --cat" \
	--cat=no/such "$img"
cat_fails "--cat=../x" 16 "without '.' or '..'" --cat=../x "$img"
cat_fails "--cat=/" 16 "a path of a regular file" --cat=/ "$img"
cat_fails "--cat outside the selection" 16 "outside the selection" \
	--cat=hardlinks/a --exclude=hardlinks "$img"
cat_fails "--cat with --manifest" 16 "standard output" --cat=sparse.bin \
	--manifest "$img"

# damaged data: reported, not written (compressible text, damaged in a
# few places, so that its lz4 streams fail to decode)
if [ -f "$scratch/big.erofs" ]; then
	"$PYTHON3" -c 'import sys
out = bytearray()
n = 0
while len(out) < 6 << 20:
	out += b"line %d of some text that compresses well\n" % n
	n += 1
open(sys.argv[1], "wb").write(out)' "$scratch/words.txt"
	rm -rf "$scratch/tree" && mkdir "$scratch/tree"
	mv "$scratch/words.txt" "$scratch/tree/words"
	mkfs.erofs -zlz4hc "$scratch/words.erofs" "$scratch/tree" >"$err" 2>&1
	"$PYTHON3" -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
for off in range(len(b) // 3, len(b) - 64, 50000):
	b[off:off + 64] = bytes((off * 7 + i * 13) & 0xff for i in range(64))
open(sys.argv[1], "wb").write(b)' "$scratch/words.erofs"
	run_fsck "$out" "$err" -j2 --cat=words "$scratch/words.erofs"
	rc=$?
	if [ $((rc & 4)) -eq 4 ] && [ ! -s "$out" ]; then
		tap_ok "--cat of damaged data: exit $rc, nothing written"
	else
		tap_not_ok "--cat of damaged data (exit $rc, $(wc -c <"$out") bytes)"
	fi
else
	tap_skip "--cat of damaged data" "no mkfs.erofs"
fi
tap_plan
[ "$tap_failed" -eq 0 ]
