#!/bin/bash
# stdin.sh: IMAGE "-", the image on standard input (TAP).
#
#  - a redirected file (read in place) and a pipe (spooled into $TMPDIR)
#    give the manifest the image's path gives, --offset included, and the
#    spooled copy leaves nothing in $TMPDIR;
#  - a $TMPDIR that does not exist, and one that fills up (a small tmpfs,
#    as root only): exit 8 with a message naming it;
#  - --device=- and --files-from=- with IMAGE "-": usage errors (16).
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

make_scratch

resolve lz4hc-default.erofs || exit 99
img=$path
want=$scratch/want
run_fsck "$want" "$err" --manifest "$img" || {
	echo "1..0 # SKIP --manifest $img fails"
	exit 99
}
tmp=$scratch/tmp
mkdir "$tmp"

same()
{
	local name=$1 rc=$2
	if [ "$rc" -eq 0 ] && cmp -s "$want" "$scratch/got"; then
		tap_ok "$name"
	else
		tap_not_ok "$name (exit $rc)"
	fi
}

TMPDIR=$tmp "$FSCK" --manifest - <"$img" >"$scratch/got" 2>"$err"
same "a redirected file" $?
TMPDIR=$tmp "$FSCK" --manifest - < <(cat "$img") >"$scratch/got" 2>"$err"
same "a pipe" $?
if [ -z "$(ls -A "$tmp")" ]; then
	tap_ok "nothing left in \$TMPDIR"
else
	tap_not_ok "nothing left in \$TMPDIR: $(ls -A "$tmp")"
fi
off=$scratch/offset.img
{ head -c 8192 /dev/zero; cat "$img"; } >"$off"
TMPDIR=$tmp "$FSCK" --manifest --offset=8192 - <"$off" >"$scratch/got" 2>"$err"
same "--offset, a redirected file" $?
TMPDIR=$tmp "$FSCK" --manifest --offset=8192 - < <(cat "$off") \
	>"$scratch/got" 2>"$err"
same "--offset, a pipe" $?

cat "$img" | TMPDIR=$scratch/none "$FSCK" - >/dev/null 2>"$err"
tap_status "\$TMPDIR missing: exit 8, named" 8 "${PIPESTATUS[1]}" \
	"$scratch/none"

small=$scratch/small
mkdir "$small"
if [ "$(id -u)" -ne 0 ]; then
	tap_ok "\$TMPDIR full # SKIP not root"
elif ! mount -t tmpfs -o size=64k tmpfs "$small" 2>"$err"; then
	tap_ok "\$TMPDIR full # SKIP cannot mount a tmpfs: $(head -n1 "$err")"
else
	cat "$img" | TMPDIR=$small "$FSCK" - >/dev/null 2>"$err"
	rc=${PIPESTATUS[1]}
	umount "$small"
	tap_status "\$TMPDIR full: exit 8, named" 8 "$rc" \
		"$small.*No space left"
fi

"$FSCK" --device=- "$img" 2>"$err"
tap_status "--device=-: usage error" 16 $? --device=-
"$FSCK" --files-from=- - <"$img" 2>"$err"
tap_status "--files-from=- with IMAGE -: usage error" 16 $? standard
tap_plan
