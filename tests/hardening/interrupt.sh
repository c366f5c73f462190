#!/bin/bash
# interrupt.sh: a signal during a run (TAP).
#
# Reads of the image are slowed down by the LD_PRELOAD shim
# fault/io_fail.so (EROFS_FAULT_READ_DELAY_US), so that extracting or
# checking lz4hc-default takes several seconds at -j1 and -j2 with a small
# image. A signal is sent once the run is well under way; then:
#
#  - SIGINT, SIGTERM during --extract=DIR and during --extract (decoding
#    only), at -j1 and -j2, during --extract=DIR of lz4hc-fragments at -j2
#    with the packed inode read ahead, SIGTERM during a check without
#    decoding (-j2):
#    exit 32 within INTERRUPT_LIMIT seconds of the signal (1, or 3 under
#    sanitizers; the latency is printed), the message "interrupted by
#    SIG...", the verdict "... not completed" and no other message, and
#    every regular file left in DIR complete (fault/extracted.py against
#    the image's manifest);
#  - SIGINT during --tar=FILE at -j2: the same messages (nothing said to
#    have failed, nothing the format cannot hold), and FILE holds what it
#    held before the run, with no hidden file of the run left beside it;
#  - SIGHUP during --extract=DIR --json: exit 32, well-formed JSON with
#    exit_status 32, completed false and the interruption as the fatal
#    problem;
#  - a second signal while the first is being handled (SIGHUP and
#    SIGTERM sent to a stopped process, then SIGCONT): killed by it;
#  - without slow reads, on an image that takes seconds of decoding
#    (hostile.py's packed extents of 12 MiB decoded for each file): SIGTERM
#    at -j1 and -j2, exit 32 within the limit, only whole files left
#    (skipped if decoding it becomes fast);
#  - a file of 255 TiB that is one hole (data/huge-hole.erofs), whose
#    digest takes days of hashing zeros: SIGTERM during --manifest at -j1
#    and -j2, exit 32 within the limit and only the interruption said;
#  - SIGPIPE: "--list | head -n 1" dies of SIGPIPE, with nothing on
#    stderr; "--extract=DIR --list | head -n 1" stops as if interrupted
#    (exit 32, "interrupted by SIGPIPE", no incomplete file left).
#
# Background jobs of a script ignore SIGINT: runs start through
# "env --default-signal" where env has it, else the SIGINT cases are
# skipped.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

: "${IO_FAIL:=$PWD/fault/io_fail.so}"
: "${EROFS_TEST_DATA:=$PWD/images}"
: "${READ_DELAY_US:=20000}"
# the shim comes before the sanitizer runtime in the library list
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
export ASAN_OPTIONS
# seconds from the signal to the exit: 1, or 3 for a sanitizer build
if [ -z "${INTERRUPT_LIMIT:-}" ]; then
	INTERRUPT_LIMIT=1
	if ldd "$FSCK" 2>/dev/null | grep -q 'libasan\|libubsan' ||
			nm "$FSCK" 2>/dev/null | grep -q __asan_init; then
		INTERRUPT_LIMIT=3
	fi
fi

if [ ! -f "$IO_FAIL" ]; then
	echo "1..0 # SKIP $IO_FAIL not built"
	exit 0
fi
make_scratch
resolve lz4hc-default.erofs || exit 99
image=$(realpath "$path")
dir=$scratch/dir
manifest=$scratch/manifest

# Start fsck.erofs ARG... in the background with slow reads: pid in $pid.
default_signal=
env --default-signal=INT true 2>/dev/null && default_signal=--default-signal
start_slow()
{
	# shellcheck disable=SC2086
	EROFS_FAULT_READ_DELAY_US=$READ_DELAY_US EROFS_FAULT_PATH=$image \
		LD_PRELOAD=$IO_FAIL env $default_signal \
		"$FSCK" "$@" "$image" >"$out" 2>"$err" &
	pid=$!
}

now()
{
	echo "${EPOCHREALTIME/[,]/.}"
}

# under_way: wait until the extraction has written a few files, or (no
# DIR) for a while
under_way()
{
	local i
	for i in $(seq 50); do
		sleep 0.1
		[ "$i" -ge 7 ] && [ ! -d "$dir" ] && return
		[ -d "$dir" ] && [ "$(find "$dir" -type f | wc -l)" -ge 20 ] &&
			return
	done
}

# interrupt SIG: wait until the run is under way, send SIG, wait for it.
# Sets status and latency (seconds, 3 decimals); 1 if it ended too soon.
interrupt()
{
	local sig=$1 t0 t1
	under_way
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"
		status=$?
		return 1
	fi
	t0=$(now)
	kill -s "$sig" "$pid"
	wait "$pid"
	status=$?
	t1=$(now)
	latency=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	return 0
}

too_slow()
{
	awk -v l="$latency" -v m="$INTERRUPT_LIMIT" 'BEGIN { exit !(l > m) }'
}

# Only the interruption and the verdict on stderr.
only_interruption()
{
	local sig=$1
	grep -qx "fsck.erofs: interrupted by $sig" "$err" &&
		grep -qx "fsck.erofs: $image: .* not completed" "$err" &&
		[ "$(wc -l <"$err")" -eq 2 ]
}

# case NAME SIG ARG...: interrupt a run; check status, time, messages.
case_run()
{
	local name=$1 sig=$2
	shift 2
	rm -rf "$dir"
	start_slow "$@"
	if ! interrupt "$sig"; then
		tap_not_ok "$name: the run ended (exit $status) before the signal" \
			"$err"
	elif [ "$status" -ne 32 ]; then
		tap_not_ok "$name: exit $status, not 32" "$err"
	elif too_slow; then
		tap_not_ok "$name: stopped ${latency} s after $sig, more than $INTERRUPT_LIMIT s" ""
	elif ! only_interruption "$sig"; then
		tap_not_ok "$name: messages" "$err"
	elif [ -d "$dir" ] && ! "$PYTHON3" "$srcdir/fault/extracted.py" \
			"$dir" "$manifest" >"$out"; then
		tap_not_ok "$name: an incomplete file was left" "$out"
	else
		local files=
		[ -d "$dir" ] &&
			files=", $(find "$dir" -type f | wc -l) complete files left"
		tap_ok "$name: $sig: exit 32 ${latency} s later," \
			"'interrupted by $sig'$files"
	fi
}

run_fsck "$manifest" "$err" --manifest "$image" || {
	echo "1..0 # SKIP cannot make the manifest of $image"
	exit 0
}
total=$(awk '$2 == "f"' "$manifest" | wc -l)

for jobs in 1 2; do
	for sig in INT TERM; do
		if [ "$sig" = INT ] && [ -z "$default_signal" ]; then
			tap_skip "-j$jobs --extract=DIR ($total files), SIGINT" \
				"env has no --default-signal"
			tap_skip "-j$jobs --extract (check and decode), SIGINT" \
				"env has no --default-signal"
			continue
		fi
		case_run "-j$jobs --extract=DIR ($total files)" "SIG$sig" \
			-j"$jobs" --extract="$dir"
		case_run "-j$jobs --extract (check and decode)" "SIG$sig" \
			-j"$jobs" --extract
	done
done

# Read-ahead of the packed inode (threads forced on a small image): files
# whose fragments are decoded ahead, by other threads, are complete or
# absent.
resolve lz4hc-fragments.erofs || exit 99
saved_image=$image saved_manifest=$manifest
image=$(realpath "$path")
manifest=$scratch/ra.manifest
if run_fsck "$manifest" "$err" --manifest "$image"; then
	for sig in INT TERM; do
		if [ "$sig" = INT ] && [ -z "$default_signal" ]; then
			tap_skip "-j2 --extract=DIR, packed inode read ahead, SIGINT" \
				"env has no --default-signal"
			continue
		fi
		EROFS_FSCK_SYNC_NS=0 EROFS_FSCK_READAHEAD=1 case_run \
			"-j2 --extract=DIR, packed inode read ahead" "SIG$sig" \
			-j2 --extract="$dir"
	done
else
	tap_not_ok "cannot make the manifest of $image" "$err"
fi
image=$saved_image manifest=$saved_manifest
case_run "-j2 (check, no decoding)" SIGTERM -j2
# an archive interrupted: no file is said to have failed its check
if [ -n "$default_signal" ]; then
	echo "what FILE held" >"$scratch/interrupted.tar"
	case_run "-j2 --tar=FILE" SIGINT -j2 --tar="$scratch/interrupted.tar"
	if [ "$(cat "$scratch/interrupted.tar")" = "what FILE held" ] &&
		[ -z "$(find "$scratch" -maxdepth 1 -name '.interrupted.tar.*')" ]; then
		tap_ok "-j2 --tar=FILE, SIGINT: FILE holds what it held, no hidden file left"
	else
		tap_not_ok "-j2 --tar=FILE, SIGINT: FILE replaced or a hidden file left" ""
	fi
else
	tap_skip "-j2 --tar=FILE, SIGINT" "env has no --default-signal"
	tap_skip "-j2 --tar=FILE, SIGINT: FILE kept" "env has no --default-signal"
fi

# --json: well-formed, with the interruption
rm -rf "$dir"
start_slow -j2 --json --extract="$dir"
if ! interrupt SIGHUP; then
	tap_not_ok "--json: the run ended (exit $status) before the signal" "$err"
elif [ "$status" -ne 32 ]; then
	tap_not_ok "--json: exit $status, not 32" "$err"
elif ! "$PYTHON3" -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit_status"] == 32, r["exit_status"]
assert r["completed"] is False
p = [x for x in r["problems"] if x["severity"] == "fatal"]
assert [x["message"] for x in p] == ["interrupted by SIGHUP"], p' \
		"$out" 2>"$scratch/py"; then
	tap_not_ok "--json: the JSON report" "$scratch/py"
else
	tap_ok "--json: SIGHUP: exit 32 ${latency} s later, well-formed JSON," \
		"exit_status 32, completed false, fatal 'interrupted by SIGHUP'"
fi

# a second signal ends the process at once: both arrive together, on a
# stopped process that is then continued
rm -rf "$dir"
start_slow -j2 --extract="$dir"
under_way
kill -s STOP "$pid"
kill -s HUP "$pid"
kill -s TERM "$pid"
kill -s CONT "$pid"
wait "$pid"
status=$?
if [ "$status" -ne 129 ] && [ "$status" -ne 143 ]; then
	tap_not_ok "SIGHUP and SIGTERM: exit $status, not killed by either" "$err"
else
	tap_ok "SIGHUP and SIGTERM together: killed by the second (status $status)"
fi

# CPU-bound, no slow reads: hostile.py's 10000 files spread over 64 packed
# extents of 12 MiB each, too large for the fragment cache: even queued in
# the order of their fragments, 4096 files at a time, they decode 2 GiB
cpu_image=$scratch/alternating.erofs
if "$PYTHON3" -c 'import sys
sys.path.insert(0, sys.argv[1] + "/hardening")
import hostile
with open(sys.argv[2], "wb") as f:
	f.write(hostile.shared_fragment(10000, False, 64))' "$srcdir" "$cpu_image" \
		2>"$err"; then
	for jobs in 1 2; do
		rm -rf "$dir"
		# not under timeout(1): it would send the signal twice
		"$FSCK" -j"$jobs" --extract="$dir" "$cpu_image" >"$out" \
			2>"$err" &
		pid=$!
		name="CPU-bound -j$jobs --extract=DIR"
		if ! interrupt SIGTERM; then
			tap_skip "$name" \
				"the run ended (exit $status) before the signal: the image is no longer slow"
		elif [ "$status" -ne 32 ]; then
			tap_not_ok "$name: exit $status, not 32" "$err"
		elif too_slow; then
			tap_not_ok "$name: stopped ${latency} s after SIGTERM" ""
		elif ! grep -qx "fsck.erofs: interrupted by SIGTERM" "$err"; then
			tap_not_ok "$name: messages" "$err"
		elif ! "$PYTHON3" -c 'import os, sys
for root, _, files in os.walk(sys.argv[1]):
	for name in files:
		with open(os.path.join(root, name), "rb") as f:
			assert f.read() == b"a" * 100, name' "$dir" 2>"$out"; then
			tap_not_ok "$name: an incomplete file was left" "$out"
		else
			tap_ok "$name: SIGTERM: exit 32 ${latency} s later," \
				"$(find "$dir" -type f | wc -l) complete files left"
		fi
	done
else
	tap_not_ok "CPU-bound: cannot build the image" "$err"
fi

# A hole hashed for --manifest: data/huge-hole.erofs holds a file of
# 255 TiB in 24 KiB, all of it one hole, whose digest takes days of
# hashing zeros. SIGTERM at -j1 and -j2 (the file split into pieces that
# hash in order) still stops the run at once.
hole_image=$scratch/huge-hole.erofs
if unpack "$srcdir/data/huge-hole.erofs.xz" "$hole_image"; then
	for j in 1 2; do
		name="--manifest -j$j of a 255 TiB hole"
		rm -rf "$dir"
		env $default_signal "$FSCK" --no-sbcrc -j$j --manifest \
			"$hole_image" >"$out" 2>"$err" &
		pid=$!
		if ! interrupt TERM; then
			tap_not_ok "$name: ended (exit $status) before the signal" \
				"$err"
		elif [ "$status" -ne 32 ]; then
			tap_not_ok "$name: exit $status, not 32" "$err"
		elif too_slow; then
			tap_not_ok "$name: stopped ${latency} s after SIGTERM, more than $INTERRUPT_LIMIT s" ""
		elif ! grep -qx "fsck.erofs: interrupted by SIGTERM" "$err" ||
			[ "$(wc -l <"$err")" -ne 2 ]; then
			tap_not_ok "$name: messages" "$err"
		else
			tap_ok "$name: SIGTERM: exit 32 ${latency} s later"
		fi
	done
else
	tap_not_ok "huge hole: cannot unpack the image" ""
fi

# SIGPIPE. The check: the usual death of a filter, nothing on stderr.
EROFS_FAULT_READ_DELAY_US=$READ_DELAY_US EROFS_FAULT_PATH=$image \
	LD_PRELOAD=$IO_FAIL "$FSCK" --list "$image" 2>"$err" | head -n 1 \
	>/dev/null
status=${PIPESTATUS[0]}
if [ "$status" -ne 141 ] || [ -s "$err" ]; then
	tap_not_ok "--list | head -n 1: exit $status, not 141 (SIGPIPE)" "$err"
else
	tap_ok "--list | head -n 1: killed by SIGPIPE, nothing on stderr"
fi
# The extraction: stops as if interrupted.
rm -rf "$dir"
EROFS_FAULT_READ_DELAY_US=$READ_DELAY_US EROFS_FAULT_PATH=$image \
	LD_PRELOAD=$IO_FAIL "$FSCK" --list --extract="$dir" "$image" \
	2>"$err" | head -n 1 >/dev/null
status=${PIPESTATUS[0]}
if [ "$status" -ne 32 ]; then
	tap_not_ok "--extract=DIR --list | head -n 1: exit $status, not 32" "$err"
elif ! only_interruption SIGPIPE; then
	tap_not_ok "--extract=DIR --list | head -n 1: messages" "$err"
elif ! "$PYTHON3" "$srcdir/fault/extracted.py" "$dir" "$manifest" \
		>"$out"; then
	tap_not_ok "--extract=DIR --list | head -n 1: an incomplete file was left" \
		"$out"
else
	tap_ok "--extract=DIR --list | head -n 1: exit 32," \
		"'interrupted by SIGPIPE', no incomplete file left"
fi

tap_plan
exit $((tap_failed > 0))
