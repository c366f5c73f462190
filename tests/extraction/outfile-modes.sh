#!/bin/bash
# outfile-modes.sh: the files fsck.erofs writes besides an extracted tree
# are created as the caller's umask says (TAP).
#
# --tar=FILE, --fs-config=FILE and --file-contexts=FILE of a stored image,
# with umask 022 and 077, with and without --extract=DIR (which sets the
# process umask to 0 to give entries their exact modes): each file is
# 0666 & ~umask, never wider.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

make_scratch
resolve lz4hc-default.erofs || exit 99
img=$path

for mask in 022 077; do
	want=$(printf '%o' $((0666 & ~8#$mask)))
	for extract in "" "--extract=$scratch/x"; do
		rm -rf "$scratch/x" "$scratch/o"
		mkdir "$scratch/o"
		(umask "$mask" && TMPDIR=$scratch/o run_fsck /dev/null "$err" \
			$extract --tar="$scratch/o/a.tar" \
			--fs-config="$scratch/o/fs_config" \
			--file-contexts="$scratch/o/file_contexts" "$img")
		rc=$?
		what="umask $mask${extract:+, with --extract=DIR}"
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 8 ]; then
			tap_not_ok "$what: exit $rc"
			continue
		fi
		for f in a.tar fs_config file_contexts; do
			got=$(stat -c %a "$scratch/o/$f" 2>/dev/null)
			if [ "$got" = "$want" ]; then
				tap_ok "$what: $f is $got"
			else
				tap_not_ok "$what: $f is ${got:-missing}, not $want"
			fi
		done
	done
done
tap_plan
[ "$tap_failed" -eq 0 ]
