#!/bin/bash
# manyfiles.sh: an image of many small files, made at test time with
# mkfs.erofs (MKFS_EROFS, else the one installed), and
#  1. its manifest matches the tree (treemanifest.py), with names that
#     extend a directory's name by a byte below '/' ("p", "p-x", "p.d"),
#     whose paths sort between the directory and its entries, and a hard
#     link whose smallest name comes late in directory order;
#  2. --extract=DIR gives that tree, times of the directories included
#     (those descended after their siblings get theirs all the same);
#  3. -j2 --extract=DIR and --compare=DIR start two threads where the
#     files' data alone is too little work for threads (-j2 --extract
#     starts none): creating or opening the files is the work;
#  4. check, --extract, --list and --manifest at -j1 and -j2 run under an
#     address-space limit (ulimit -v) of what each needs for a one-file
#     image plus HEADROOM_KIB: memory does not grow with the file count
#     (it grew by 100 bytes a file to check, 400 for a manifest).
# Skips (77) without mkfs.erofs or python3, and under a sanitizer, whose
# shadow memory makes address-space limits meaningless.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

FIELDS=1,2,3,4,5,6,8,9,10,11
NFILES=50000
NDIRS=100
HEADROOM_KIB=3072

need_mkfs
need_tools "$PYTHON3"
sanitized=
if nm "$FSCK" 2>/dev/null | grep -q '__asan_init\|__tsan_init\|__msan_init' ||
		ldd "$FSCK" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	sanitized=1
fi

make_scratch
# every run takes the same malloc arenas, whatever the threads do
export MALLOC_ARENA_MAX=1

# make_tree DIR N: N small files in NDIRS directories, and the odd names
make_tree()
{
	"$PYTHON3" - "$1" "$2" "$NDIRS" <<'PY'
import os, sys
top, n, ndirs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.mkdir(top)
for j in range(min(n, ndirs)):
    os.mkdir(os.path.join(top, "d%03d" % j))
for i in range(n):
    path = os.path.join(top, "d%03d" % (i % ndirs), "f%06d" % i)
    with open(path, "wb") as f:
        f.write(b"file %d\n" % i)
if n < 1000:
    sys.exit(0)
for d in ("p", "p.d", "p-", "z"):
    os.mkdir(os.path.join(top, d))
for f in ("p/x", "p-x", "p.d/y", "p-/w", "p0", "p-/p-"):
    with open(os.path.join(top, f), "wb") as fh:
        fh.write(f.encode())
# visited first under z/, its smallest name is p-/link
with open(os.path.join(top, "z", "link"), "wb") as fh:
    fh.write(b"linked\n")
os.link(os.path.join(top, "z", "link"), os.path.join(top, "p-", "link"))
PY
}

# make_image TREE IMAGE
make_image()
{
	if ! "$mkfs" --quiet -T1700000000 \
			-U 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 "$2" "$1" \
			>"$scratch/mkfs.err" 2>&1; then
		echo "Bail out! mkfs.erofs failed: $(head -n 3 "$scratch/mkfs.err")"
		exit 99
	fi
}

make_tree "$scratch/one" 1 || exit 99
make_image "$scratch/one" "$scratch/one.erofs"
make_tree "$scratch/many" "$NFILES" || exit 99
make_image "$scratch/many" "$scratch/many.erofs"
rm -rf "$scratch/one"

tap_plan 13
"$PYTHON3" "$srcdir/lib/treemanifest.py" --fields "$FIELDS" "$scratch/many" \
	>"$scratch/expected" || exit 99
rm -rf "$scratch/many"
run_fsck "$scratch/out" "$scratch/err" -j2 --manifest "$scratch/many.erofs"
status=$?
if [ "$status" -ne 0 ]; then
	tap_not_ok "--manifest exits $status" "$scratch/err"
elif cut -d' ' -f"$FIELDS" "$scratch/out" | cmp -s "$scratch/expected" -; then
	tap_ok "--manifest of $NFILES files matches the tree"
else
	tap_not_ok "--manifest differs from the tree, diff expected actual:" ""
	cut -d' ' -f"$FIELDS" "$scratch/out" | diff "$scratch/expected" - |
		head -n 20 | sed 's/^/#   /'
fi

mf_fields=1,2,3,4,5,6,7,8,9,10,11
cut -d' ' -f"$mf_fields" "$scratch/out" >"$scratch/image.manifest"
run_fsck "$scratch/xout" "$scratch/err" -j2 --extract="$scratch/x" \
	--no-preserve-owner "$scratch/many.erofs"
status=$?
if [ "$status" -ne 0 ]; then
	tap_not_ok "--extract=DIR exits $status" "$scratch/err"
elif "$PYTHON3" "$srcdir/lib/treemanifest.py" --fields "$mf_fields" \
		"$scratch/x" | sed 's/^\(\S* \S* \S*\) [0-9]* [0-9]*/\1 0 0/' |
		cmp -s <(sed 's/^\(\S* \S* \S*\) [0-9]* [0-9]*/\1 0 0/' \
			 "$scratch/image.manifest") -; then
	tap_ok "--extract=DIR gives the tree, directory times included"
else
	tap_not_ok "the extracted tree differs from the image's manifest" ""
fi
rm -rf "$scratch/x"

# expect_threads N WHAT ARG...: -j2 -d7 ARG... on the image says it starts
# N worker threads, by its own rule, not the tests' EROFS_FSCK_SYNC_NS=0,
# which starts them always
expect_threads()
{
	local want=$1 what=$2 n
	shift 2
	if [ "$(nproc)" -lt 2 ]; then
		tap_skip "-j2 $what" "one CPU"
		return
	fi
	(unset EROFS_FSCK_SYNC_NS
	 run_fsck /dev/null "$scratch/err" -j2 -d7 "$@" "$scratch/many.erofs")
	n=$(sed -n 's/.*-j2: \([0-9]*\) worker threads (CPUs .*/\1/p' \
		"$scratch/err")
	if [ "$n" = "$want" ]; then
		tap_ok "-j2 $what"
	else
		tap_not_ok "-j2 $what: '$n' worker threads, expected $want" \
			"$scratch/err"
	fi
}

expect_threads 0 "--extract: no threads for this little data" --extract
expect_threads 2 "--extract=DIR: threads to create the files" \
	--extract="$scratch/x"
expect_threads 2 "--compare=DIR: threads to open the files" \
	--compare="$scratch/x"
rm -rf "$scratch/x"

# runs_within KIB IMAGE ARG...: does fsck exit 0 with KIB of address space?
runs_within()
{
	local kib=$1 image=$2
	shift 2
	(ulimit -v "$kib" && exec "$FSCK" "$@" "$image") >/dev/null 2>&1
}

# least_kib IMAGE ARG...: the least address space (to 256 KiB) fsck needs
least_kib()
{
	local lo=1024 hi=$((1 << 21)) mid

	runs_within "$hi" "$@" || { echo 0; return; }
	while [ $((hi - lo)) -gt 256 ]; do
		mid=$(((lo + hi) / 2))
		if runs_within "$mid" "$@"; then
			hi=$mid
		else
			lo=$mid
		fi
	done
	echo "$hi"
}

for j in 1 2; do
	for mode in check --extract --list --manifest; do
		what="$mode -j$j, $NFILES files"
		args=(-j$j)
		[ "$mode" = check ] || args+=("$mode")
		if [ -n "$sanitized" ]; then
			tap_skip "$what" "sanitizer build"
			continue
		fi
		base=$(least_kib "$scratch/one.erofs" "${args[@]}")
		if [ "$base" -eq 0 ]; then
			tap_not_ok "$what: fails on a one-file image" ""
			continue
		fi
		limit=$((base + HEADROOM_KIB))
		if runs_within "$limit" "$scratch/many.erofs" "${args[@]}"; then
			tap_ok "$what within $limit KiB (one file: $base)"
		else
			tap_not_ok "$what: fails within $limit KiB (one file: $base, needs $(least_kib "$scratch/many.erofs" "${args[@]}"))" ""
		fi
	done
done
