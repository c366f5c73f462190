#!/bin/bash
# stdout-errors.sh: no write to standard output is lost silently (TAP).
#
# To /dev/full: --json, -p, --list, --manifest, --help, -V, and --compare
# of a tree that differs: exit status with 8 set, one message naming
# standard output and "No space left on device", and where a
# run was made, no "no errors found" at -d3. --tar=- to a pipe whose
# reader stops after 100 bytes: killed by SIGPIPE, as the manual says.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

if [ ! -w /dev/full ]; then
	echo "1..0 # SKIP no /dev/full"
	exit 77
fi
make_scratch
resolve lz4hc-default.erofs || exit 99
img=$path

# full NAME WANT ARG...: exit WANT with stdout on /dev/full, the message
full()
{
	local name=$1 want=$2 rc
	shift 2
	timeout 300 "$FSCK" "$@" >/dev/full 2>"$err"
	rc=$?
	if [ "$rc" -eq "$want" ] &&
		[ "$(grep -c "standard output: No space left on device$" "$err")" -eq 1 ] &&
		! grep -q "no errors found" "$err"; then
		tap_ok "$name >/dev/full: exit $rc, the error named once"
	else
		tap_not_ok "$name >/dev/full (exit $rc)"
	fi
}

full "--json" 8 --json "$img"
full "-p" 8 -d3 -p "$img"
full "--list" 8 -d3 --list "$img"
full "--manifest" 8 --manifest "$img"
full "--help" 8 --help
full "-V" 8 -V
mkdir "$scratch/tree"
full "--compare of a tree that differs" 9 --compare="$scratch/tree" "$img"
if grep -q "check not completed" "$err"; then
	tap_ok "--compare >/dev/full: the verdict says the check is not completed"
else
	tap_not_ok "--compare >/dev/full: the verdict"
fi

timeout 300 "$FSCK" --tar=- "$img" 2>"$err" | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 141 ] && [ ! -s "$err" ]; then
	tap_ok "--tar=- | head -c 100: killed by SIGPIPE, nothing said"
else
	tap_not_ok "--tar=- | head -c 100 (exit $rc)"
fi
tap_plan
[ "$tap_failed" -eq 0 ]
