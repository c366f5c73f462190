#!/usr/bin/env python3
"""TAP test: the archives of --tar taken by the tools people pipe them
into, which are the oracles here, on every stored image (data/index):

 1. GNU tar (root): unpacking our pax archive gives no more warnings of
    any kind than GNU tar gives on bsdtar's own pax archive of the same
    tree (extracted with --extract=DIR --xattrs), and restores the file
    capabilities and SELinux labels of the tree (tar-images.py compares
    the whole tree);
 2. cpio: --format=newc and --format=cpio (odc) hold every entry --list
    shows but sockets (bsdtar -t counts them), GNU cpio -i unpacks every
    one of them, and the later names of a hard-linked file as links of
    its inode: one inode with the image's link count and size;
 3. mtree: every entry has the image's link count (nlink=) and every
    regular file the SHA-256 of its content (sha256digest=), as the
    image's manifest says.

Environment: FSCK, srcdir, EROFS_TEST_DATA (unpacked images, optional).
"""
import collections
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from erofstest import FSCK, SRCDIR, tap, tap_end  # noqa: E402
import tarlib  # noqa: E402

DATA = os.path.join(SRCDIR, "data")
ROOT = os.geteuid() == 0


def manifest_of(args):
    rc, out, err = tarlib.run([FSCK, "--manifest"] + args)
    return [line.split(" ") for line in out.decode().splitlines()]


def warning_kinds(text):
    """GNU tar's warnings, counted by kind: the keyword of an unknown
    header, or the message without the names and numbers it holds"""
    kinds = collections.Counter()
    for line in text.splitlines():
        m = re.search(r"unknown extended header keyword '([^']*)'", line)
        if m:
            key = m.group(1)
            if key.startswith("LIBARCHIVE.xattr."):
                key = "LIBARCHIVE.xattr.*"
            kinds["keyword " + key] += 1
        elif "time stamp" in line:
            kinds["time stamp " + ("old" if "implausibly old" in line
                                   else "future")] += 1
        elif line.startswith("tar: "):
            kinds[re.sub(r"'[^']*'|\S*: |[0-9.]+", "", line)] += 1
    return kinds


def gnutar_unpack(tarball, dest):
    p = subprocess.run(tarlib.UNPACK["tar"] + [tarball], cwd=dest,
                       capture_output=True, env=dict(os.environ,
                                                     LC_ALL="C.UTF-8"))
    return p.returncode, p.stderr.decode(errors="replace")


def xattrs_of(path):
    try:
        return {n: os.getxattr(path, n, follow_symlinks=False)
                for n in os.listxattr(path, follow_symlinks=False)}
    except OSError:
        return None


def check_gnutar(name, args, scratch):
    if not ROOT:
        tap(True, "%s: GNU tar" % name, directive="SKIP needs root")
        return
    ours = os.path.join(scratch, "ours.tar")
    rc, _, err = tarlib.run([FSCK, "--tar=" + ours] + args)
    tree = tarlib.fresh_dir(scratch, "tree")
    shutil.rmtree(tree)
    rc2, _, err2 = tarlib.run([FSCK, "--extract=" + tree, "--xattrs"] + args)
    theirs = os.path.join(scratch, "bsdtar.tar")
    p = subprocess.run(["bsdtar", "-cf", theirs, "--format", "pax",
                        "--xattrs", "--acls", "-C", tree, "."],
                       capture_output=True)
    if rc or rc2 or p.returncode:
        tap(False, "%s: archives made" % name,
            [err, err2, p.stderr.decode(errors="replace")])
        return
    ours_dest = tarlib.fresh_dir(scratch, "gnu-ours")
    rc, err = gnutar_unpack(ours, ours_dest)
    bsd_dest = tarlib.fresh_dir(scratch, "gnu-bsd")
    _, err_bsd = gnutar_unpack(theirs, bsd_dest)
    ours, theirs = warning_kinds(err), warning_kinds(err_bsd)
    extra = ours - theirs
    tap(rc == 0 and not extra,
        "%s: GNU tar warns no more than on bsdtar's archive (%s)"
        % (name, ", ".join("%s %d" % kv for kv in sorted(ours.items()))
           or "no warning"),
        ["exit %d" % rc, "more: %s" % sorted(extra.items())] +
        err.splitlines())
    lost = []
    for top, dirs, files in os.walk(tree):
        for entry in dirs + files:
            path = os.path.join(top, entry)
            want = xattrs_of(path)
            got = xattrs_of(os.path.join(ours_dest,
                                         os.path.relpath(path, tree)))
            for key in ("security.capability", "security.selinux"):
                if want and key in want and (not got or
                                             got.get(key) != want[key]):
                    lost.append("%s: %s" % (os.path.relpath(path, tree), key))
    tap(not lost, "%s: GNU tar restores capabilities and SELinux labels"
        % name, lost)


def listed_entries(args):
    rc, out, err = tarlib.run([FSCK, "--list"] + args)
    return [line for line in out.decode("latin-1").splitlines()
            if not line.startswith("s")]


def check_cpio(name, args, manifest, scratch, fmt):
    archive = os.path.join(scratch, "a." + fmt)
    rc, _, err = tarlib.run([FSCK, "--tar=" + archive, "--format=" + fmt]
                            + args)
    # what libarchive refused, or links the format should hold
    left_out = [line for line in err.splitlines()
                if "entries left out" in line or "later names" in line]
    listed = len(listed_entries(args))
    bsd = subprocess.run(["bsdtar", "-tf", archive], capture_output=True)
    # names may hold newlines: bsdtar -t escapes them, one entry a line
    counted = len(bsd.stdout.splitlines())
    tap(rc == 0 and not left_out and counted == listed,
        "%s: --format=%s holds the %d entries --list shows"
        % (name, fmt, listed),
        ["exit %d" % rc, "bsdtar -t counts %d" % counted] +
        err.splitlines())
    dest = tarlib.fresh_dir(scratch, "cpio-" + fmt)
    p = subprocess.run(["cpio", "-idm", "--quiet", "--no-absolute-filenames",
                        "-F", archive], cwd=dest, capture_output=True)
    groups = collections.defaultdict(list)
    bad = []
    for f in manifest:
        path = os.path.join(dest.encode(), tarlib.manifest_name(" ".join(f)))
        if f[1] != "s" and not os.path.lexists(path):
            bad.append("%s: not unpacked by GNU cpio" % f[0])
        if f[1] == "f" and f[9] not in ("-", "1"):
            groups[f[10]].append(f)
    for leader, names in groups.items():
        inodes = set()
        for f in names:
            path = os.path.join(dest.encode(),
                                tarlib.manifest_name(" ".join(f)))
            try:
                st = os.lstat(path)
            except OSError as e:
                bad.append("%s: %s" % (f[0], e))
                continue
            inodes.add(st.st_ino)
            if st.st_nlink != int(f[9]) or st.st_size != int(f[5]):
                bad.append("%s: %d links, %d bytes; the image: %s, %s" %
                           (f[0], st.st_nlink, st.st_size, f[9], f[5]))
        if len(inodes) > 1:
            bad.append("%s: %d inodes for one" % (leader, len(inodes)))
    tap(p.returncode == 0 and not bad,
        "%s: --format=%s: GNU cpio unpacks every entry, %d hard-link "
        "groups each one inode" % (name, fmt, len(groups)),
        [p.stderr.decode(errors="replace")] + bad)


def mtree_path(word):
    raw = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), word)
    raw = raw[2:] if raw.startswith("./") else raw
    return raw.encode("latin-1") if raw != "." else b"."


def check_mtree(name, args, manifest, scratch):
    archive = os.path.join(scratch, "a.mtree")
    rc, _, err = tarlib.run([FSCK, "--tar=" + archive, "--format=mtree"]
                            + args)
    want = {tarlib.manifest_name(" ".join(f)): f for f in manifest}
    bad = []
    seen = 0
    defaults = {}
    with open(archive, "rb") as f:
        for line in f.read().decode("latin-1").splitlines():
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "/set":
                defaults.update(w.split("=", 1) for w in words[1:])
                continue
            if words[0] == "/unset":
                for w in words[1:]:
                    defaults.pop(w, None)
                continue
            keys = dict(defaults)
            keys.update(w.split("=", 1) for w in words[1:] if "=" in w)
            path = mtree_path(words[0])
            m = want.get(path)
            if not m or m[1] == "s":
                continue
            seen += 1
            nlink = "1" if m[9] == "-" else m[9]
            # libarchive's writer leaves out nlink=1, mtree's default
            if m[1] != "d" and keys.get("nlink", "1") != nlink:
                bad.append("%s: nlink=%s, the image %s" %
                           (m[0], keys.get("nlink", "1"), nlink))
            if m[1] == "f" and keys.get("sha256digest") != m[7]:
                bad.append("%s: sha256digest=%s, the image %s" %
                           (m[0], keys.get("sha256digest"), m[7]))
    tap(rc == 0 and seen and not bad,
        "%s: --format=mtree: %d entries with the image's nlink and "
        "sha256digest" % (name, seen), ["exit %d" % rc] + err.splitlines()
        + bad)


def main():
    if not tarlib.have_tar(FSCK):
        print("1..0 # SKIP fsck.erofs built without libarchive")
        return 0
    for tool in ("bsdtar", "tar", "cpio"):
        if not shutil.which(tool):
            print("1..0 # SKIP %s not installed" % tool)
            return 0
    with tarlib.Scratch() as scratch:
        work = os.path.abspath(scratch.path)
        for name, _, opts in tarlib.stored_images(DATA):
            args = tarlib.image_args(name, opts, work)
            manifest = manifest_of(args)
            check_gnutar(name, args, work)
            for fmt in ("newc", "cpio"):
                check_cpio(name, args, manifest, work, fmt)
            check_mtree(name, args, manifest, work)
    return tap_end()


sys.exit(main())
