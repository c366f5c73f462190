#!/bin/bash
# tar-options.sh: what an archive user of GNU tar and bsdtar expects (TAP).
#
# - --tar=- on a terminal (through script(1)): refused, exit 16, as GNU
#   tar refuses;
# - xattrs in SCHILY.xattr records alone by default: GNU tar extracts the
#   archive of an image with xattrs without one "Ignoring unknown extended
#   header keyword 'LIBARCHIVE.xattr..." warning and restores them;
#   --options=xattrheader=ALL (bsdtar's --options) brings libarchive's
#   records back; an option libarchive does not know is exit 16 naming it;
# - --format=argnu, whose writer takes no directory: the reason, not
#   "Input/output error";
# - hard links where the format cannot link (zip, 7zip, xar, iso9660): every
#   name holds the data, as bsdtar stores them, and bsdtar unpacks each;
#   shar links them; mtree lists every name with nlink and its digest,
#   with no false warning about nanoseconds (its time= keeps them); a zip
#   entry with a UTF-8 name has the UTF-8 flag;
# - the format and compression of a.zip, a.cpio, a.cpio.gz, a.tar.Z,
#   a.tar.lz, A.TAR.GZ and a.TXZ from their suffixes, as bsdtar -a picks
#   them: each archive's magic, and bsdtar lists the names of the plain
#   archive;
# - compressed archives from FILE's suffix (.gz, .tgz, .xz, .zst, .bz2,
#   .lz4, .lzma), each passing its own tool's -t and listed by bsdtar and
#   GNU tar (not .lz4, which GNU tar 1.34 does not read) as the plain
#   archive is; --compress=none; --tar=- --compress=xz; an unknown
#   --compress is exit 16;
# - warc: a path too long for its header is left out and named, and bsdtar
#   reads the rest;
# - times a format cannot hold: ustar's refusal names the entry; newc's
#   range (1970 to 2106) is reported with the entries, which get its
#   nearest end; -d3 names every entry of a kind.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

need_tools tar setfattr getfattr mkfs.erofs
make_scratch
resolve lz4hc-default.erofs || exit 99
img=$path

if command -v script >/dev/null; then
	script -qec "$FSCK --tar=- $img" /dev/null >"$out" 2>&1
	rc=$?
	if [ "$rc" -eq 16 ] && grep -q "refusing to write an archive to a terminal" "$out"; then
		tap_ok "--tar=- on a terminal: exit 16"
	else
		tap_not_ok "--tar=- on a terminal (exit $rc)" "$out"
	fi
else
	tap_skip "--tar=- on a terminal" "no script"
fi

# an image whose files carry user xattrs
src=$scratch/src
mkdir -p "$src/d"
echo a >"$src/a"
echo b >"$src/d/b"
if ! setfattr -n user.one -v 1 "$src/a" 2>/dev/null; then
	tap_skip "xattrs" "no user xattrs here"
	tap_plan
	exit 0
fi
setfattr -n user.two -v 2 "$src/d/b"
ximg=$scratch/x.erofs
mkfs.erofs -zlz4hc "$ximg" "$src" >"$err" 2>&1 || exit 99

run_fsck "$out" "$err" --tar="$scratch/x.tar" "$ximg"
mkdir "$scratch/gnu"
tar --xattrs --xattrs-include='*' -xf "$scratch/x.tar" -C "$scratch/gnu" \
	>"$out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && ! grep -q "LIBARCHIVE.xattr" "$out" &&
	[ "$(getfattr --only-values -n user.two "$scratch/gnu/d/b" 2>/dev/null)" = 2 ]; then
	tap_ok "pax xattrs: GNU tar restores them, no warning"
else
	tap_not_ok "pax xattrs: GNU tar (exit $rc)" "$out"
fi
run_fsck "$out" "$err" --options=xattrheader=ALL --tar="$scratch/all.tar" "$ximg"
if [ $? -eq 0 ] && grep -aq "LIBARCHIVE.xattr.user.one" "$scratch/all.tar" &&
	! grep -aq "LIBARCHIVE.xattr" "$scratch/x.tar"; then
	tap_ok "--options=xattrheader=ALL: libarchive's records too"
else
	tap_not_ok "--options=xattrheader=ALL"
fi
run_fsck "$out" "$err" --options=bogus=1 --tar="$scratch/b.tar" "$ximg"
tap_status "--options=bogus=1: exit 16 naming it" 16 $? "Undefined option"

# hard links in formats that cannot link: every name holds the data
links=$scratch/links
mkdir -p "$links/sub"
printf 'hello\n' >"$links/a"
ln "$links/a" "$links/b"
ln "$links/a" "$links/sub/c"
head -c 5000000 /dev/urandom >"$links/big"
ln "$links/big" "$links/big2"
echo x >"$links/café"
# a time before 1970 and one past 2106: the formats that cannot hold them
echo o >"$links/sub/old"
touch -d "1960-01-01 00:00:00 UTC" "$links/sub/old"
echo y >"$links/future"
touch -d "2200-01-01 00:00:00 UTC" "$links/future"
limg=$scratch/links.erofs
mkfs.erofs -zlz4hc "$limg" "$links" >"$err" 2>&1 || exit 99
for fmt in zip 7zip xar iso9660 shar; do
	run_fsck "$out" "$err" --format=$fmt --tar="$scratch/l.$fmt" "$limg"
	rm -rf "$scratch/lx"
	mkdir "$scratch/lx"
	if [ "$fmt" = shar ]; then
		(cd "$scratch/lx" && sh "$scratch/l.$fmt" >/dev/null 2>&1)
	else
		bsdtar -xf "$scratch/l.$fmt" -C "$scratch/lx" 2>/dev/null
	fi
	bad=
	for n in a b sub/c big big2; do
		# shar holds text alone
		[ "$fmt" = shar ] && [ "${n#big}" != "$n" ] && continue
		cmp -s "$links/$n" "$scratch/lx/$n" || bad="$bad $n"
	done
	if [ -z "$bad" ] && ! grep -q "hard-linked" "$err"; then
		tap_ok "--format=$fmt: every name of a hard-linked file, with its data"
	else
		tap_not_ok "--format=$fmt: names missing or wrong:$bad"
	fi
done
run_fsck "$out" "$err" --format=mtree --tar="$scratch/l.mtree" "$limg"
digest=$(sha256sum <"$links/big" | cut -d' ' -f1)
if [ "$(grep -c "sha256digest=$digest" "$scratch/l.mtree")" -eq 2 ] &&
	grep -q "^./sub/c nlink=3 " "$scratch/l.mtree" &&
	! grep -q "nanoseconds" "$err"; then
	tap_ok "--format=mtree: each name with nlink and its digest, no false nanoseconds warning"
else
	tap_not_ok "--format=mtree: names of hard-linked files" "$scratch/l.mtree"
fi
LC_ALL=C run_fsck "$out" "$err" --format=zip --tar="$scratch/u.zip" "$limg"
if "$PYTHON3" -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
i = z.getinfo("caf\u00e9")
sys.exit(not i.flag_bits & 0x800)' "$scratch/u.zip"; then
	tap_ok "--format=zip: a UTF-8 name has the UTF-8 flag (Python's zipfile reads it)"
else
	tap_not_ok "--format=zip: the UTF-8 flag"
fi

# times a format cannot hold: the entries named, the nearest time written
run_fsck "$out" "$err" --format=ustar --tar="$scratch/t.ustar" "$limg"
tap_status "ustar, a time before 1970: the entry left out is named" 8 $? \
	"1 entry left out, as: .*: sub/old$"
run_fsck "$out" "$err" --format=newc --tar="$scratch/t.newc" "$limg"
rc=$?
if [ "$rc" -eq 0 ] &&
	grep -q "mtimes outside the range its time fields hold .*(2 entries: future, sub/old)" "$err" &&
	bsdtar -tvf "$scratch/t.newc" | grep -q " 1970 sub/old$"; then
	tap_ok "newc: times before 1970 and past 2106 named, set to 1970 and 2106"
else
	tap_not_ok "newc: times out of range (exit $rc)"
fi
run_fsck "$out" "$err" -d3 --format=zip --tar="$scratch/t.zip" "$limg"
if grep -q "mtimes lose their nanoseconds ([0-9]* entries: [^)]* and [0-9]* more)" "$err"; then
	tap_not_ok "-d3: every entry named" "$err"
else
	tap_ok "-d3: every entry of a kind named"
fi

# compressed archives: the compression from FILE's suffix, as tar -a;
# each checked by its own tool and listed by bsdtar (and GNU tar) as the
# plain archive is
plain_n=$(bsdtar -tf "$scratch/x.tar" | wc -l)
for pair in gz:gzip tgz:gzip xz:xz zst:zstd bz2:bzip2 lz4:lz4 lzma:xz; do
	suffix=${pair%%:*} tool=${pair#*:}
	file=$scratch/c.tar.$suffix
	[ "$suffix" = tgz ] && file=$scratch/c.tgz
	run_fsck "$out" "$err" -j2 --tar="$file" "$ximg"
	rc=$?
	if ! command -v "$tool" >/dev/null; then
		tap_skip "--tar=*.$suffix" "no $tool"
		continue
	fi
	if [ "$suffix" = lzma ]; then
		xz --format=lzma -t "$file"
	else
		"$tool" -t "$file"
	fi >/dev/null 2>&1
	tested=$?
	n=$(bsdtar -tf "$file" 2>/dev/null | wc -l)
	gnu=$plain_n
	# GNU tar 1.34 reads every one of these but lz4
	[ "$suffix" = lz4 ] || gnu=$(tar -tf "$file" 2>/dev/null | wc -l)
	if [ "$rc" -eq 0 ] && [ "$tested" -eq 0 ] && [ "$n" -eq "$plain_n" ] &&
		[ "$gnu" -eq "$plain_n" ]; then
		tap_ok "--tar=*.$suffix: $tool -t passes, bsdtar and GNU tar list $n entries"
	else
		tap_not_ok "--tar=*.$suffix (exit $rc, $tool -t $tested, bsdtar $n, GNU tar $gnu of $plain_n)"
	fi
done
run_fsck "$out" "$err" --compress=none --tar="$scratch/n.tar.gz" "$ximg"
if [ "$(head -c 2 "$scratch/n.tar.gz" | od -An -tx1 | tr -d ' ')" != 1f8b ] &&
	tar -tf "$scratch/n.tar.gz" >/dev/null 2>&1; then
	tap_ok "--compress=none: a plain archive whatever the suffix"
else
	tap_not_ok "--compress=none"
fi
if command -v xz >/dev/null; then
	timeout 300 "$FSCK" --tar=- --compress=xz "$ximg" 2>"$err" |
		xz -t
	if [ "${PIPESTATUS[0]}${PIPESTATUS[1]}" = 00 ]; then
		tap_ok "--tar=- --compress=xz: xz -t passes"
	else
		tap_not_ok "--tar=- --compress=xz"
	fi
else
	tap_skip "--tar=- --compress=xz" "no xz"
fi
run_fsck "$out" "$err" --compress=bogus --tar="$scratch/b.tar" "$ximg"
tap_status "--compress=bogus: exit 16 naming it" 16 $? "--compress=bogus"

# warc: a path too long for its record header is left out, named, and
# the archive stays readable; as it misses an entry, FILE is not written
long=$scratch/long
deep=$long/$(printf 'd%.0s' $(seq 120))/$(printf 'e%.0s' $(seq 120))
mkdir -p "$deep"
echo x >"$deep/$(printf 'f%.0s' $(seq 100))"
echo y >"$long/short"
mkfs.erofs "$scratch/long.erofs" "$long" >"$err" 2>&1 || exit 99
run_fsck "$out" "$err" --format=warc --tar=- "$scratch/long.erofs"
rc=$?
bsdtar -tf "$out" >"$scratch/l.list" 2>&1
run_fsck /dev/null "$scratch/l.err" --format=warc --tar="$scratch/l.warc" \
	"$scratch/long.erofs"
rc2=$?
if [ "$rc" -eq 8 ] && grep -q "left out, as: cannot archive file.*: ddd.*fff$" "$err" &&
	[ "$(cat "$scratch/l.list")" = short ] && [ "$rc2" -eq 8 ] &&
	[ ! -e "$scratch/l.warc" ] &&
	grep -q "l.warc: not replaced, as the archive is not complete" "$scratch/l.err"; then
	tap_ok "--format=warc, a path too long: left out, named, the rest readable; FILE not written"
else
	tap_not_ok "--format=warc, a path too long (exit $rc, $rc2)"
fi

run_fsck "$out" "$err" --format=argnu --tar="$scratch/a.ar" "$img"
rc=$?
if [ "$rc" -eq 8 ] && ! grep -q "Input/output error" "$err" &&
	grep -q "archive not completed" "$err"; then
	tap_ok "--format=argnu: $(grep -- '--tar=' "$err" | head -n1)"
else
	tap_not_ok "--format=argnu (exit $rc)"
fi
# the format and the compression from FILE's suffix, as bsdtar -a
# picks them: each archive's magic, and bsdtar lists the same names
suffix_names()
{
	bsdtar -tf "$1" 2>/dev/null | sed 's|^\./||; s|/$||' | grep -v '^\.\?$' | sort
}
"$FSCK" --tar="$scratch/sfx.tar" --path=/bigdir "$img" 2>/dev/null
suffix_names "$scratch/sfx.tar" >"$scratch/sfx.names"
for case in "a.zip 504b0304" "a.cpio 303730373037" "a.cpio.gz 1f8b" \
	"a.tar.Z 1f9d" "a.tar.lz 4c5a4950" "A.TAR.GZ 1f8b" "a.TXZ fd377a58"; do
	set -- $case
	rm -f "$scratch/$1"
	run_fsck "$out" "$err" --tar="$scratch/$1" --path=/bigdir "$img"
	rc=$?
	magic=$(head -c $((${#2} / 2)) "$scratch/$1" | od -An -tx1 | tr -d ' \n')
	inner=
	case $1 in
	a.zip) inner=$("$PYTHON3" -c 'import sys, zipfile
print(len(zipfile.ZipFile(sys.argv[1]).namelist()))' "$scratch/$1" 2>/dev/null) ;;
	a.cpio.gz) inner=$(gzip -dc "$scratch/$1" | head -c 6) ;;
	esac
	if [ $rc -eq 0 ] && [ "$magic" = "$2" ] &&
		[ "$inner" != 0 ] && [ "${1%.gz}" = "$1" -o "$inner" = 070707 ] &&
		suffix_names "$scratch/$1" | cmp -s - "$scratch/sfx.names"; then
		tap_ok "--tar=$1: the format and compression its suffix names ($2...)"
	else
		tap_not_ok "--tar=$1 (exit $rc, magic $magic, inside $inner)" "$err"
	fi
done
tap_plan
[ "$tap_failed" -eq 0 ]
