#!/bin/bash
# Rebuild demo/demo.erofs, the small image the README's quick start checks.
# It was made with Debian 12's erofs-utils 1.5 (mkfs.erofs 1.5) like this:
#   demo/make-demo.sh [/usr/bin/mkfs.erofs]
# The tree is written here from fixed contents; -T and -U pin the times and
# the UUID, so the same mkfs version gives the same image.
set -euo pipefail
umask 022

mkfs=${1:-/usr/bin/mkfs.erofs}
out=$(cd "$(dirname "$0")" && pwd)/demo.erofs
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

chmod 0755 "$tree"
cd "$tree"
mkdir -p docs src/lib empty
printf 'erofs-fsck demo image\n' > README
: > empty-file
for i in $(seq 1 400); do
	printf 'line %04d: the quick brown fox jumps over the lazy dog\n' "$i"
done > docs/fox.txt
seq 1 20000 > docs/numbers.txt
cat > src/hello.c <<'C'
#include <stdio.h>

int main(void)
{
	puts("hello from an EROFS image");
	return 0;
}
C
printf 'int answer(void) { return 42; }\n' > src/lib/answer.c
ln -s docs/fox.txt fox-link
ln docs/numbers.txt numbers-hardlink
chmod 0755 src
touch -h -d @1700000000 -- * docs/* src/* src/lib/* .

rm -f "$out"
"$mkfs" -zlz4hc -T1700000000 -U 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 \
	--all-root --quiet "$out" "$tree"
