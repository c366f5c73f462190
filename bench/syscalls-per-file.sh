#!/bin/bash
# SPDX-License-Identifier: MIT
#
# syscalls-per-file.sh [OPTIONS]: count the system calls fsck.erofs makes
# per regular file it extracts (strace -f -c), on an image of many small
# files, for one build or two side by side. Prints a table; it never
# passes or fails. See bench/README.md.
set -uo pipefail
export LC_ALL=C

here=$(cd -- "$(dirname -- "$0")" && pwd)
top=$(dirname -- "$here")

usage() {
	cat <<EOF
usage: $0 [OPTIONS]

Options (environment variable in brackets):
  --files=N        small files in the image (default 4000) [FILES]
  --threads=LIST   thread counts for -j (default 1,2) [THREADS]
  --before=PATH    another fsck.erofs to count side by side [BEFORE]
  --image=PATH     count on this image instead of building one [IMAGE]
  -h, --help       this text

Environment: FSCK (default \$top/fsck/fsck.erofs), MKFS (default Debian's
mkfs.erofs), WORK (default /dev/shm/erofs-syscalls).

The image holds FILES files of 1 to 3000 bytes in 40 directories, owned by
root (mkfs.erofs --all-root), lz4hc: extracting it as root is the common
case (owner and mode right from creation). As root it is also extracted
as user 65534 (setpriv), where owners are not set.
EOF
	exit "${1:-2}"
}

FILES=${FILES:-4000}
THREADS=${THREADS:-1,2}
BEFORE=${BEFORE:-}
IMAGE=${IMAGE:-}
FSCK=${FSCK:-$top/fsck/fsck.erofs}
WORK=${WORK:-/dev/shm/erofs-syscalls}
for arg; do
	case $arg in
	--files=*) FILES=${arg#*=} ;;
	--threads=*) THREADS=${arg#*=} ;;
	--before=*) BEFORE=${arg#*=} ;;
	--image=*) IMAGE=${arg#*=} ;;
	-h | --help) usage 0 ;;
	*) usage ;;
	esac
done

die() {
	echo "$0: $*" >&2
	exit 1
}

command -v strace >/dev/null || die "strace is not installed"
[ -x "$FSCK" ] || die "$FSCK: not built"
[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || die "$BEFORE: not executable"
mkdir -p "$WORK" || die "cannot make $WORK"

if [ -z "$IMAGE" ]; then
	mkfs=${MKFS:-$(command -v mkfs.erofs || echo /usr/sbin/mkfs.erofs)}
	[ -x "$mkfs" ] || die "mkfs.erofs not found (Debian package erofs-utils)"
	IMAGE=$WORK/small-$FILES.erofs
	if [ ! -f "$IMAGE" ]; then
		rm -rf "$WORK/tree"
		python3 - "$WORK/tree" "$FILES" <<'EOF' || die "cannot make the tree"
import os, random, sys
top, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(14)
for i in range(n):
    d = os.path.join(top, "d%02d" % (i % 40))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d" % i), "wb") as f:
        f.write(rng.randbytes(rng.randint(1, 3000)))
EOF
		"$mkfs" --quiet -zlz4hc --all-root -T1700000000 "$IMAGE" \
			"$WORK/tree" >/dev/null || die "mkfs.erofs failed"
		rm -rf "$WORK/tree"
	fi
fi

# count FSCK JOBS USER: strace one extraction; prints "files calls" and
# leaves the per-call counts in $WORK/run/strace.
count() {
	local fsck=$1 jobs=$2 user=$3 run=$WORK/run
	local -a as=()

	rm -rf "$run"
	mkdir -p "$run"
	if [ "$user" != root ]; then
		chown 65534:65534 "$run"
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	"${as[@]}" strace -f -c -o "$run/strace" "$fsck" -j"$jobs" \
		--extract="$run/out" "$IMAGE" >/dev/null 2>&1
	echo "$(find "$run/out" -type f | wc -l)" \
		"$(awk '$NF == "total" { print $4 }' "$run/strace")"
}

# The calls that concern files, per file, from $WORK/run/strace; the sum
# of them without linkat (the budget of issue 10) first.
per_file_calls() {
	awk -v n="$1" '
		$NF ~ /^(openat|pwrite64|write|copy_file_range|newfstatat|fstat|ftruncate|fchown|fchownat|fchmod|utimensat|linkat|renameat2?|unlinkat|close|fsetxattr)$/ {
			s = s sprintf("  %s %.2f", $NF, $4 / n)
			if ($NF != "linkat")
				t += $4
		}
		END { printf "%.2f:%s", t / n, s }' "$WORK/run/strace"
}

# Reads and writes of data per file (pread64, read, pwrite64, write,
# copy_file_range): what reading and writing in runs brings down.
io_per_file() {
	awk -v n="$1" '
		$NF ~ /^(pread64|read|pwrite64|write|copy_file_range)$/ {
			t += $4
			s = s sprintf(" %s %.2f", $NF, $4 / n)
		}
		END { printf "%.2f:%s", t / n, s }' "$WORK/run/strace"
}

users=root
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && users="root 65534"
echo "# image: $IMAGE ($FILES small files)"
echo "# syscalls per file: all calls of the run / regular files extracted;"
echo "# the run's fixed cost (start, directories) is spread over the files"
printf '%-6s %-3s %-8s %-8s %-6s %-14s %s\n' user -j before after ratio \
	"file calls" "(before -> after, linkat not counted)"
for user in $users; do
	for jobs in $(tr ',' ' ' <<<"$THREADS"); do
		read -r files calls < <(count "$FSCK" "$jobs" "$user")
		after=$(awk -v c="$calls" -v f="$files" \
			'BEGIN { printf "%.2f", f ? c / f : 0 }')
		detail_after=$(per_file_calls "$files")
		io_after=$(io_per_file "$files")
		before=- ratio=- detail_before=-: io_before=-:
		if [ -n "$BEFORE" ]; then
			read -r bfiles bcalls < <(count "$BEFORE" "$jobs" "$user")
			before=$(awk -v c="$bcalls" -v f="$bfiles" \
				'BEGIN { printf "%.2f", f ? c / f : 0 }')
			ratio=$(awk -v a="$after" -v b="$before" \
				'BEGIN { printf "%.2f", b ? a / b : 0 }')
			detail_before=$(per_file_calls "$bfiles")
			io_before=$(io_per_file "$bfiles")
		fi
		printf '%-6s %-3s %-8s %-8s %-6s %s\n' "$user" "$jobs" \
			"$before" "$after" "$ratio" \
			"${detail_before%%:*} -> ${detail_after%%:*}"
		[ -n "$BEFORE" ] && echo "#   before:${detail_before#*:}"
		echo "#   after: ${detail_after#*:}"
		echo "#   reads+writes per file: ${io_before%%:*} -> ${io_after%%:*}" \
			"(after:${io_after#*:})"
	done
done
rm -rf "$WORK/run"
