#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mktree.sh DIR [MiB]: build a benchmark tree of about MiB mebibytes
# (default 300) from files already on this machine, and write DIR.recipe.
#
# Recipe: the roots /usr/include, /usr/share and /usr/lib are used in that
# order, each allowed an equal share of what is still missing. Inside a
# root, entries are taken in C-locale name order: an entry (file, symlink
# or whole subtree) that fits in the remaining share is copied with cp -a;
# a directory that does not fit is entered and filled the same way, up to
# MAXDEPTH levels; anything else is skipped. A root is done when less than
# SLACK bytes of its share are left; what it leaves goes to the next roots.
# The same machine therefore always gives the same tree, and DIR.recipe
# lists every copied entry so that runs on different machines can be
# compared.
set -euo pipefail
export LC_ALL=C

usage() {
	echo "usage: $0 DIR [MiB]" >&2
	exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	usage
fi
dir=$1
mib=${2:-300}
case $mib in
'' | *[!0-9]*) usage ;;
esac
[ "$mib" -gt 0 ] || usage

ROOTS=(/usr/include /usr/share /usr/lib)
MAXDEPTH=8
SLACK=$((1 << 20))	# a root is done when less than this is left

if [ -e "$dir" ]; then
	echo "$0: $dir exists; remove it first" >&2
	exit 1
fi
mkdir -p -- "$dir"
dir=$(cd -- "$dir" && pwd)
recipe_file=$dir.recipe

left=0			# bytes still allowed for the current root
copied_lines=()		# "bytes source" for every copied entry
entered=()		# directories created by descending into them

mib_of() {
	awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'
}

# Sizes of every entry of a root from one du pass: forking du per entry
# costs minutes on a large /usr/lib.
declare -A sizes
load_sizes() {
	local rec
	sizes=()
	while IFS= read -r -d '' rec; do
		sizes[${rec#*$'\t'}]=${rec%%$'\t'*}
	done < <(du -0ab --max-depth="$MAXDEPTH" -- "$1")
}

entry_size() {
	size=${sizes[$1]-}
	[ -n "$size" ] || size=$(du -sb -- "$1" | cut -f1)
}

# Directories entered rather than copied get their owner, mode and times
# from the source once their content is in place, deepest first, so that
# adding children does not leave the build time as their mtime.
fix_entered_dirs() {
	local i src dst
	for ((i = ${#entered[@]} - 1; i >= 0; i--)); do
		src=${entered[i]}
		dst=$dir$src
		[ -d "$dst" ] || continue
		chown -h --reference="$src" -- "$dst"
		chmod --reference="$src" -- "$dst"
		touch -h -r "$src" -- "$dst"
	done
}

fill() {
	local src=$1 depth=$2 entry
	local -a entries
	mapfile -t entries < <(find "$src" -mindepth 1 -maxdepth 1 \
				    -printf '%f\n' | sort)
	for entry in "${entries[@]}"; do
		[ "$left" -ge "$SLACK" ] || return 0
		entry=$src/$entry
		entry_size "$entry"
		if [ "$size" -le "$left" ]; then
			mkdir -p -- "$(dirname -- "$dir$entry")"
			cp -a -- "$entry" "$dir$entry"
			left=$((left - size))
			copied_lines+=("$size $entry")
		elif [ -d "$entry" ] && [ ! -L "$entry" ] &&
		     [ "$depth" -lt "$MAXDEPTH" ]; then
			entered+=("$entry")
			fill "$entry" $((depth + 1))
		fi
	done
}

target=$((mib << 20))
done_bytes=0
nroots=${#ROOTS[@]}
for ((r = 0; r < nroots; r++)); do
	root=${ROOTS[r]}
	[ -d "$root" ] || continue
	left=$(((target - done_bytes) / (nroots - r)))
	before=$left
	entered+=("$root")
	load_sizes "$root"
	fill "$root" 1
	done_bytes=$((done_bytes + before - left))
done
entered=(/usr "${entered[@]}")
fix_entered_dirs

nfiles=$(find "$dir" -type f | wc -l)
ndirs=$(find "$dir" -type d | wc -l)
nlinks=$(find "$dir" -type l | wc -l)
nother=$(find "$dir" ! -type f ! -type d ! -type l | wc -l)
bytes=$(find "$dir" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
listing=$(cd "$dir" && find . \( -type f -o -type l \) -printf '%y %s %p\n' |
	  sort | sha256sum | cut -d' ' -f1)

{
	echo "# mktree.sh recipe"
	echo "target_mib $mib"
	echo "roots ${ROOTS[*]}"
	echo "rule equal share of the remainder per root; entries in C name order;"
	echo "rule copy (cp -a) what fits, enter directories that do not (depth <= $MAXDEPTH)"
	echo "rule a root is done when less than $SLACK bytes of its share are left"
	echo "files $nfiles"
	echo "dirs $ndirs"
	echo "symlinks $nlinks"
	echo "other $nother"
	echo "file_bytes $bytes"
	echo "file_mib $(mib_of "$bytes")"
	echo "listing_sha256 $listing"
	echo "# copied entries: bytes source"
	printf '%s\n' "${copied_lines[@]}"
} >"$recipe_file"

echo "tree $dir: $nfiles files, $ndirs dirs, $nlinks symlinks," \
	"$(mib_of "$bytes") MiB in files"
echo "recipe: $recipe_file (${#copied_lines[@]} copied entries)"
