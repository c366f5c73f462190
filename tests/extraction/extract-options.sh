#!/bin/bash
# extract-options.sh: extraction options and their edge cases (TAP).
#
#  - usage errors (exit 16): --extract=/ without --force, -j0, --json
#    with --list;
#  - DIR: created if missing, an empty one accepted, one with entries
#    refused without --force; --force without --overwrite reports each
#    entry in the way (exit 8); --force --overwrite replaces them (exit 0)
#    with the same result;
#  - --path to a subtree, and to a regular file (DIR is then the file);
#  - owners and modes: root with --no-preserve-owner (modes kept, no
#    set-id bits), root with --no-preserve-perms (umask applied), an
#    ordinary user (owned by the user, umask applied, no set-id bits), an
#    ordinary user with --preserve-perms, one with --preserve (owners
#    refused: exit 8, and no set-id bit kept, as bsdtar -p); read-only and
#    mode-0000 directories still receive their entries;
#  - xattrs only with --xattrs; a DIR with a default ACL passes nothing
#    to the extracted entries;
#  - no progress line when stderr is not a terminal, or with --no-progress
#    on one (script(1));
#  - a directory tree 600 levels deep with 40 descriptors allowed (needs
#    mkfs.erofs).
#
# Pieces that need root (owners, another user) are skipped otherwise.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"
# -j4 starts its threads on these small images, even beyond the CPUs
export EROFS_FSCK_SYNC_NS=0

make_scratch
chmod 0755 "$scratch"
resolve lz4hc-default.erofs || exit 99
image=$path
manifest=$srcdir/data/s1-small.manifest
root=false
[ "$(id -u)" -eq 0 ] && root=true
fsck()
{
	timeout -k 5 "$FSCK_TIMEOUT" "$FSCK" "$@" >"$scratch/stdout" 2>"$err"
}

# expect_status WHAT STATUS PATTERN ARG...: exit status and a message
expect_status()
{
	local what=$1 want=$2 pattern=$3
	shift 3
	fsck "$@"
	local got=$?
	if [ "$got" -ne "$want" ] || has_sanitizer_report "$err"; then
		tap_not_ok "$what: exit $got, expected $want"
	elif [ -n "$pattern" ] && ! grep -qE "$pattern" "$err"; then
		tap_not_ok "$what: no message matching '$pattern'"
	else
		tap_ok "$what"
	fi
}

# subtree SUB [FIELDS]: the expected manifest of SUB, relative to it
subtree()
{
	"$PYTHON3" - "$manifest" "$1" "${2:-}" <<'EOF'
import sys
src, sub, fields = sys.argv[1], sys.argv[2], sys.argv[3]
keep = [int(f) - 1 for f in fields.split(",")] if fields else None
for line in open(src):
    f = line.rstrip("\n").split(" ")
    if f[0] == sub:
        f[0] = "."
    elif f[0].startswith(sub + "/"):
        f[0] = f[0][len(sub) + 1:]
    else:
        continue
    if f[10] != "-":
        f[10] = f[10][len(sub) + 1:]
    print(" ".join(f[k] for k in keep) if keep else " ".join(f))
EOF
}

# modes SUB UID GID UMASK KEEP_SETID: expected fields 1,2,3,4,5 of SUB
modes()
{
	subtree "$1" 1,2,3,4,5 | "$PYTHON3" -c 'import sys
uid, gid, umask, setid = sys.argv[1], sys.argv[2], int(sys.argv[3], 8), sys.argv[4] == "1"
for line in sys.stdin:
    path, kind, mode, u, g = line.split()
    m = int(mode, 8)
    if kind != "l":
        m &= ~umask
        if not setid:
            m &= ~0o6000
    print(path, kind, "%04o" % m, uid if uid != "-" else u,
          gid if gid != "-" else g)' "$2" "$3" "$4" "$5"
}

# same WHAT DIR EXPECTED [FIELDS]: treemanifest DIR matches
same()
{
	local what=$1 dir=$2 want=$3 fields=${4:-1,2,3,4,5,6,7,8,9,10,11,12}
	"$PYTHON3" "$srcdir/lib/treemanifest.py" --fields "$fields" "$dir" \
		>"$scratch/got" 2>"$err"
	if cmp -s "$scratch/got" "$want"; then
		tap_ok "$what"
	else
		diff "$want" "$scratch/got" >"$err"
		tap_not_ok "$what: the tree differs"
	fi
}

tap_plan 24

# usage errors
expect_status "--extract=/ needs --force" 16 "needs --force" \
	--extract=/ "$image"
expect_status "-j0 is a usage error" 16 "takes 1 to" -j0 "$image"
expect_status "--json and --list together" 16 "cannot be combined" \
	--json --list "$image"

# DIR: missing, empty, with entries
d=$scratch/d1
expect_status "DIR created when missing" 0 "" --extract="$d" \
	--path=/sizes "$image"
d=$scratch/d2
mkdir "$d"
expect_status "an empty DIR is accepted" 0 "" --extract="$d" \
	--path=/sizes "$image"
expect_status "a DIR with entries needs --force" 8 "not empty" \
	--extract="$d" --path=/sizes "$image"
expect_status "--force without --overwrite: entries in the way" 8 \
	"exists" --extract="$d" --force --path=/sizes "$image"
expect_status "--force --overwrite replaces them" 0 "" --extract="$d" \
	--force --overwrite --path=/sizes "$image"
subtree sizes 1,2,3,6,7,8 >"$scratch/want"
same "the overwritten tree is right" "$d" "$scratch/want" 1,2,3,6,7,8

# --path to a file
d=$scratch/file-out
fsck --extract="$d" --path=/sizes/size-65536 "$image"
want=$(grep '^sizes/size-65536 ' "$manifest" | cut -d' ' -f8)
if [ -f "$d" ] && [ "$(sha256sum <"$d" | cut -d' ' -f1)" = "$want" ]; then
	tap_ok "--path to a regular file extracts it as DIR"
else
	tap_not_ok "--path to a regular file: wrong or missing $d"
fi

# owners and modes
if $root; then
	d=$scratch/r1
	fsck --extract="$d" --no-preserve-owner --path=/perms "$image"
	modes perms 0 0 0 0 >"$scratch/want"
	same "root, --no-preserve-owner: modes kept, no set-id bits" \
		"$d" "$scratch/want" 1,2,3,4,5
	d=$scratch/r2
	(umask 027 && fsck --extract="$d" --no-preserve-perms --path=/perms \
		"$image")
	modes perms - - 027 1 >"$scratch/want"
	same "root, --no-preserve-perms: owners kept, umask applied" \
		"$d" "$scratch/want" 1,2,3,4,5
else
	tap_skip "root, --no-preserve-owner" "needs root"
	tap_skip "root, --no-preserve-perms" "needs root"
fi

# as_user CMD...: run as nobody (from root) or as ourselves
if $root && command -v setpriv >/dev/null; then
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	uid=65534 gid=65534
	user_top=$scratch/user
	mkdir "$user_top" && chown 65534:65534 "$user_top"
elif ! $root; then
	as_user() { "$@"; }
	uid=$(id -u) gid=$(id -g)
	user_top=$scratch/user
	mkdir "$user_top"
else
	user_top=
fi
if [ -n "$user_top" ]; then
	d=$user_top/u1
	(umask 027 && as_user "$FSCK" --extract="$d" --path=/perms \
		"$image" >"$scratch/stdout" 2>"$err")
	status=$?
	modes perms "$uid" "$gid" 027 0 >"$scratch/want"
	if [ "$status" -ne 0 ]; then
		tap_not_ok "ordinary user: exit $status"
	elif $root; then
		same "ordinary user: owned by the user, umask, no set-id" \
			"$d" "$scratch/want" 1,2,3,4,5
	else
		tap_skip "ordinary user: modes" "cannot read mode-0000 directories"
	fi
	d=$user_top/u2
	as_user "$FSCK" --extract="$d" --preserve-perms --path=/perms \
		"$image" >"$scratch/stdout" 2>"$err"
	status=$?
	modes perms "$uid" "$gid" 0 0 >"$scratch/want"
	if [ "$status" -ne 0 ]; then
		tap_not_ok "ordinary user, --preserve-perms: exit $status"
	elif $root; then
		same "ordinary user, --preserve-perms: modes, no set-id" \
			"$d" "$scratch/want" 1,2,3,4,5
	else
		tap_skip "ordinary user, --preserve-perms: modes" \
			"cannot read mode-0000 directories"
	fi
	# --preserve: the owners are refused, so the set-id bits go too
	d=$user_top/u3
	as_user "$FSCK" --extract="$d" --preserve --path=/perms \
		"$image" >"$scratch/stdout" 2>"$err"
	status=$?
	if $root && [ "$status" -eq 8 ] && grep -q "owners not set on" "$err" &&
		[ -f "$d/mode-4755" ] && [ -z "$(find "$d" -perm /6000)" ]; then
		tap_ok "ordinary user, --preserve: owners refused, no set-id kept"
	elif ! $root; then
		tap_skip "ordinary user, --preserve" "not root: owners may be ours"
	else
		tap_not_ok "ordinary user, --preserve (exit $status): $(find "$d" -perm /6000 | head -n 3)"
	fi
else
	tap_skip "ordinary user" "no setpriv"
	tap_skip "ordinary user, --preserve-perms" "no setpriv"
	tap_skip "ordinary user, --preserve" "no setpriv"
fi

# xattrs only when asked
if $root; then
	d=$scratch/x1
	fsck --extract="$d" --path=/xattrs "$image"
	subtree xattrs 1,12 | sed 's/ .*/ -/' >"$scratch/want"
	same "no xattrs without --xattrs" "$d" "$scratch/want" 1,12
	d=$scratch/x2
	fsck --extract="$d" --xattrs --path=/xattrs "$image"
	subtree xattrs 1,12 >"$scratch/want"
	same "xattrs with --xattrs" "$d" "$scratch/want" 1,12
else
	tap_skip "no xattrs without --xattrs" "needs root (trusted.*)"
	tap_skip "xattrs with --xattrs" "needs root (trusted.*)"
fi

# a second extraction over the first, everything replaced
if $root; then
	d=$scratch/twice
	fsck --extract="$d" --preserve --xattrs "$image"
	expect_status "whole image again with --force --overwrite" 0 "" \
		--extract="$d" --force --overwrite --preserve --xattrs "$image"
	same "the overwritten image matches its manifest" "$d" "$manifest"
else
	tap_skip "whole image again with --force --overwrite" "needs root"
	tap_skip "the overwritten image matches its manifest" "needs root"
fi

# a DIR that passes a default ACL down: nothing inherited stays
if $root; then
	d=$scratch/acl
	mkdir "$d"
	acl=$(sed -n 's/^xattrs\/acl-default-dir .*system\.posix_acl_default=\([0-9a-f]*\).*/\1/p' \
		"$manifest")
	if "$PYTHON3" -c 'import os, sys
os.setxattr(sys.argv[1], "system.posix_acl_default", bytes.fromhex(sys.argv[2]))' \
			"$d" "$acl" 2>"$err"; then
		fsck --extract="$d" --force --preserve --xattrs "$image"
		same "DIR with a default ACL: no inherited ACL left" "$d" \
			"$manifest"
	else
		tap_skip "DIR with a default ACL" "no POSIX ACLs here"
	fi
else
	tap_skip "DIR with a default ACL" "needs root"
fi

# progress: never on a pipe, never with --no-progress
d=$scratch/p1
fsck --extract="$d" "$image"
if [ -s "$err" ] && ! $root; then
	tap_skip "no progress line on a pipe" "entries could not be created"
elif grep -q $'\r' "$err"; then
	tap_not_ok "progress line on a pipe"
else
	tap_ok "no progress line on a pipe"
fi
if command -v script >/dev/null; then
	d=$scratch/p2
	script -qec "$FSCK --no-progress --extract=$d --path=/sizes $image" \
		/dev/null >"$scratch/tty" 2>&1
	if grep -q 'entries' "$scratch/tty"; then
		cp "$scratch/tty" "$err"
		tap_not_ok "progress line despite --no-progress"
	else
		tap_ok "no progress line with --no-progress on a terminal"
	fi
else
	tap_skip "no progress line with --no-progress on a terminal" "no script"
fi

# deep tree, few descriptors
if [ -x "$mkfs" ]; then
	tree=$scratch/deep
	"$PYTHON3" - "$tree" <<'EOF'
import os, sys
cur = sys.argv[1]
os.mkdir(cur)
for i in range(600):
    cur = os.path.join(cur, "d%03d" % i)
    os.mkdir(cur)
    for k in range(2):
        with open(os.path.join(cur, "f%d" % k), "w") as f:
            f.write("x" * (i + k))
    if i % 100 == 0:
        os.makedirs(os.path.join(cur, "side", "a"))
EOF
	"$mkfs" --quiet -zlz4hc "$scratch/deep.erofs" "$tree" >/dev/null 2>&1
	for jobs in 1 4; do
		d=$scratch/deep-$jobs
		(ulimit -n 40 && fsck -j$jobs --extract="$d" \
			"$scratch/deep.erofs")
		status=$?
		"$PYTHON3" "$srcdir/lib/treemanifest.py" --fields 1,2,6,8 "$tree" \
			>"$scratch/want"
		if [ "$status" -ne 0 ]; then
			tap_not_ok "600 levels, 40 descriptors, -j$jobs: exit $status"
		else
			same "600 levels, 40 descriptors, -j$jobs" "$d" \
				"$scratch/want" 1,2,6,8
		fi
	done
else
	tap_skip "600 levels, 40 descriptors, -j1" "no mkfs.erofs"
	tap_skip "600 levels, 40 descriptors, -j4" "no mkfs.erofs"
fi
