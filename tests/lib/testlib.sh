# shellcheck shell=bash
# Shared by the image test scripts (sourced, bash).
#
# Environment (set by tests/Makefile.am, defaults for running by hand from
# the build's tests/ directory):
#   srcdir   the source tests/ directory
#   FSCK     the fsck.erofs under test
#   PYTHON3  python3
#   FSCK_TIMEOUT  seconds one fsck run may take (default 300)

: "${srcdir:=$(dirname "$0")/..}"
: "${FSCK:=../fsck/fsck.erofs}"
: "${PYTHON3:=python3}"
: "${FSCK_TIMEOUT:=300}"

# A scratch directory in the current (build) directory, removed on exit,
# and in it the paths err and out for a run's stderr and stdout.
make_scratch()
{
	scratch=$(mktemp -d "$PWD/tmp.XXXXXX") || exit 99
	trap 'rm -rf "$scratch"' EXIT
	err=$scratch/err
	out=$scratch/out
}

# unpack SRC.xz DEST: decompress a stored test image.
unpack()
{
	"$PYTHON3" -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as src, open(sys.argv[2], "wb") as dst:
	shutil.copyfileobj(src, dst, 1 << 20)' "$1" "$2"
}

# resolve NAME: set path to the stored test image NAME: the copy in
# $EROFS_TEST_DATA if there is one, else unpacked into $scratch.
resolve()
{
	path=${EROFS_TEST_DATA:-}/$1
	[ -f "$path" ] && return 0
	path=$scratch/$1
	[ -f "$path" ] || unpack "$srcdir/data/$1.xz" "$path"
}

# image_options OPTION...: the options of an image's index line in the
# array opts, each OPTION=@NAME turned into OPTION=PATH of the image NAME.
image_options()
{
	local opt

	opts=()
	for opt in "$@"; do
		case $opt in
		*=@*)
			resolve "${opt#*=@}" || return 1
			opt=${opt%%=@*}=$path
			;;
		esac
		opts+=("$opt")
	done
}

# run_fsck OUT ERR ARG...: run fsck.erofs with a time limit and return its
# exit status; a timeout gives 124 or more, like a crash.
run_fsck()
{
	local out=$1 err=$2
	shift 2
	timeout -k 5 "$FSCK_TIMEOUT" "$FSCK" "$@" >"$out" 2>"$err"
}

# The lines a run ends with when no hash tree verified its data against a
# root hash the user gave (fsck/check/integrity.h): a clean run prints
# them and nothing else.
NOTE_ERE='^fsck\.erofs: .*: ((no hash tree|the dm-verity tree could not be used): [0-9.]+ (bytes|[KMGTPE]iB) of file data and every inode field are unchecked |root hash taken from the image |device [0-9]+ \(.*\): [0-9.]+ (bytes|[KMGTPE]iB) that no hash tree covers$)'

# quiet FILE: does FILE hold nothing but those lines?
quiet()
{
	! grep -qEv "$NOTE_ERE" "$1"
}

# Does this output carry a sanitizer report?
has_sanitizer_report()
{
	grep -qE 'Sanitizer|runtime error:' "$@"
}

# show FILE [LINES]: print the start of a file as TAP diagnostics.
show()
{
	head -n "${2:-20}" "$1" | sed 's/^/#   /'
}

# need_tools TOOL...: skip the whole test (exit 77) unless each is there.
# The mkfs.erofs that builds test images: MKFS_EROFS, else the one on the
# PATH or in /usr/sbin. need_mkfs skips the test when there is none.
mkfs=${MKFS_EROFS:-$(command -v mkfs.erofs || echo /usr/sbin/mkfs.erofs)}
need_mkfs()
{
	[ -x "$mkfs" ] && return
	echo "1..0 # SKIP mkfs.erofs not installed (Debian package erofs-utils)"
	exit 77
}

need_tools()
{
	local tool

	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		echo "1..0 # SKIP $tool not found"
		exit 77
	done
}

# TAP lines numbered in tap_n: tap_ok NAME; tap_not_ok NAME [FILE], then
# the start of FILE (default $err, none if empty) as diagnostics, counted
# in tap_failed; tap_skip NAME REASON; tap_plan [COUNT], the plan: first,
# with the COUNT of tests to come, or at the end without.
tap_n=0
tap_failed=0

tap_ok()
{
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

tap_not_ok()
{
	local file=${2-${err:-}}

	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
	if [ -n "$file" ]; then
		show "$file"
	fi
}

tap_skip()
{
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

tap_plan()
{
	echo "1..${1:-$tap_n}"
}

# tap_status NAME WANT RC [REGEX]: ok when the exit status RC is WANT and
# $err matches REGEX.
tap_status()
{
	if [ "$3" -eq "$2" ] && { [ $# -lt 4 ] || grep -q -- "$4" "$err"; }; then
		tap_ok "$1"
	else
		tap_not_ok "$1 (exit $3)"
	fi
}
