#!/usr/bin/env python3
"""tar-images.py - fsck.erofs --tar on every stored test image (TAP).

For each image of data/index:

 1. "fsck.erofs --tar=- IMAGE" exits 0, says nothing but the one warning
    about sockets (the tree has one), and bsdtar -tv lists the same
    entries as --list, line by line: type and mode, owner, size (or device
    numbers), path, symlink target or hard-link target; Python's tarfile
    reads the archive to its end;
 2. -j2 and -j8 (threads started, files split into one-extent pieces)
    write the same bytes as -j1;
 3. as root: unpacked by bsdtar -xp --xattrs --acls --numeric-owner, the
    tree is the image's expected manifest (treemanifest.py: types, modes,
    owners, sizes, mtimes to the nanosecond, content, devices, hard-link
    groups, every xattr with the odd names, ACLs, capabilities), sockets
    aside, and but for the mtime of "." which bsdtar leaves alone;
 4. as root: unpacked by GNU tar -xp --xattrs --xattrs-include='*' --acls
    --numeric-owner, the same, xattrs included (from the SCHILY.xattr
    records), but for the mtimes before 1970 with nanoseconds (GNU tar
    sets them one second early: the pax "mtime=-1.5" as -2.5).

Image holes become sparse entries: the sparse files of the images with
holes come out as pax sparse entries (checked on the images whose
manifest line for sparse.bin says so, through tarfile).

Environment: FSCK, srcdir, EROFS_TEST_DATA (unpacked images, optional).
"""
import os
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from erofstest import FSCK, SRCDIR, tap, tap_end, without_notes  # noqa: E402
import tarlib  # noqa: E402

DATA = os.path.join(SRCDIR, "data")
THREADED = dict(os.environ, EROFS_FSCK_SYNC_NS="0", EROFS_FSCK_SPLIT="1")
SOCKETS = "fsck.erofs: warning: --tar: sockets are left out " \
    "(1: special/socket)\n" \
    "fsck.erofs: warning: --tar: 1 name not valid UTF-8, stored as its " \
    "bytes with hdrcharset=BINARY (GNU tar warns of the keyword, and " \
    "restores the bytes): names/latin1-\\xe9\\xff\\xfe-not-utf8\n"
# images whose sparse.bin has holes in the image (chunk-based with holes)
HOLED = {"plain-b512-chunk64k-48bit.erofs"}


def check_listing(name, args, tarball):
    """bsdtar -tv and --list: the same entries, in the same order"""
    rc, listing, err = tarlib.run([FSCK, "--list"] + args)
    ours = [line for line in listing.decode("latin-1").splitlines()
            if not line.startswith("s")]
    bsd = subprocess.run(["bsdtar", "-tvf", tarball], capture_output=True)
    theirs = bsd.stdout.decode("latin-1").splitlines()
    bad = tarlib.compare_listing(ours, theirs)
    if rc or bsd.returncode:
        bad.insert(0, "--list exits %d, bsdtar -tv %d: %s" %
                   (rc, bsd.returncode, bsd.stderr.decode()[:200]))
    tap(not bad, "%s: bsdtar -tv lists what --list lists" % name, bad)


def check_tarfile(name, tarball, manifest):
    """tarfile reads it to the end; holes of the image are sparse entries"""
    bad = []
    try:
        with tarfile.open(tarball) as t:
            members = t.getmembers()
            sparse = [m.name for m in members if m.issparse()]
    except (tarfile.TarError, OSError) as e:
        tap(False, "%s: tarfile reads the archive" % name, [str(e)])
        return
    if name in HOLED and "sparse.bin" not in sparse:
        bad.append("sparse.bin is not a sparse entry: %s" % sparse)
    tap(not bad, "%s: the archive reads to its end (%d entries, sparse: %s)"
        % (name, len(members), ",".join(sparse) or "none"), bad)


def check_jobs(name, args, single):
    for j in ("-j2", "-j8"):
        rc, out, err = tarlib.run([FSCK, j, "--tar=-"] + args, env=THREADED)
        tap(rc == 0 and out == single,
            "%s: %s writes the archive -j1 writes" % (name, j),
            ["exit %d, %d bytes against %d" % (rc, len(out), len(single)),
             err])


def check_unpacked(name, tool, tarball, manifest, scratch, ignore):
    """unpack as root with tool; compare with the manifest"""
    if os.geteuid():
        tap(True, "%s: %s unpacks the manifest" % (name, tool),
            directive="SKIP needs root")
        return
    dest = tarlib.fresh_dir(scratch, "x")
    rc, err = tarlib.unpack(tool, tarball, dest)
    with open(os.path.join(DATA, manifest)) as f:
        want = [line for line in f.read().splitlines()
                if line.split(" ")[1] != "s"]
    got = tarlib.tree_manifest(dest)
    bad = tarlib.compare_manifests(want, got, ignore)
    if rc:
        bad.insert(0, "%s exits %d: %s" % (tool, rc, err[:300]))
    tap(not bad, "%s: unpacked by %s, the tree is %s%s" %
        (name, tool, manifest, ignore.get("what", "")), bad)


def main():
    if not tarlib.have_tar(FSCK):
        print("1..0 # SKIP fsck.erofs built without libarchive")
        return 0
    if not shutil.which("bsdtar"):
        print("1..0 # SKIP bsdtar not installed (Debian package "
              "libarchive-tools)")
        return 0
    with tarlib.Scratch() as scratch:
        for name, manifest, opts in tarlib.stored_images(DATA):
            args = tarlib.image_args(name, opts, scratch.path)
            tarball = os.path.join(scratch.path, "a.tar")
            rc, out, err = tarlib.run([FSCK, "-j1", "--tar=-"] + args)
            with open(tarball, "wb") as f:
                f.write(out)
            tap(rc == 0 and without_notes(err) == SOCKETS,
                "%s: --tar=- exits 0 and warns about the socket and the name "
                "that is not UTF-8" % name,
                ["exit %d" % rc, err])
            check_listing(name, args, tarball)
            check_tarfile(name, tarball, manifest)
            check_jobs(name, args, out)
            check_unpacked(name, "bsdtar", tarball, manifest, scratch.path,
                           tarlib.BSDTAR_IGNORES)
            if shutil.which("tar"):
                check_unpacked(name, "tar", tarball, manifest, scratch.path,
                               tarlib.GNUTAR_IGNORES)
            else:
                tap(True, "%s: GNU tar unpacks the manifest" % name,
                    directive="SKIP GNU tar not installed")
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
