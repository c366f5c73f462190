#!/usr/bin/env python3
"""tar-cases.py - fsck.erofs --tar on images made here, on a damaged image,
with other formats and bad options (TAP).

A tree is made (as root: devices, a fifo, two sockets, owners, set-id and
sticky bits, security.capability, security.selinux, trusted.* and user.*
xattrs with '=', '%' and non-ASCII bytes in their names, access and
default ACLs, hard links, a file of zeros but one block, a 6 MiB file)
and packed with Debian's mkfs.erofs 1.5, uncompressed and lz4hc. Then:

 1. as root, for both images: bsdtar -xp --xattrs --acls --numeric-owner
    unpacks --tar=- into exactly the tree of the image's --manifest,
    sockets aside (one warning for both) and but for the mtime of "." and
    the odd xattr names, which the SCHILY.xattr records (the only ones by
    default) hold URL-encoded (one warning);
    the same with --sparse; with --options=xattrheader=ALL, the odd names
    exactly too (from libarchive's own records) beside their encoded
    copies;
 2. --sparse makes the file of zeros a sparse entry with one data block
    and a smaller archive; without it the entry is not sparse;
 3. -j1, -j2 and -j8 (files split into one-extent pieces) write the same
    bytes, with --sparse too;
 4. the 6 MiB file waits in a spool in TMPDIR: a TMPDIR that does not
    exist is an error naming it (exit 8);
 5. a damaged image (corrupt.py's pcluster-filled-ff of lz4hc-default):
    exit 4; bsdtar reads the archive to its end; the damaged file is not in
    it; every other entry is (as root: unpacked, the manifest but that
    file's line); -j2 and -j8 write the same archive;
 6. --format=ustar, gnutar, cpio, newc, zip: what the format cannot hold is
    warned about once per kind (each line once; cpio and newc hold hard
    links), bsdtar reads the archive to its end; an unknown format is a
    usage error naming it (16);
    an mtime too far from 1970 for a calendar date (the fuzzer's input in
    data/regressions) gets the nearest 32-bit time, with one warning, in
    zip, iso9660, xar and 7zip, and is kept in pax;
 7. bad options: --tar=- with --list, --format without --tar and an empty
    --tar= are usage errors (16); an output that cannot be created is an
    error naming it (8), and so is one that fills up (/dev/full);
 8. no privilege needed: as uid 65534 (when run as root), with the image
    on standard input, --tar=- succeeds and bsdtar -tv lists what --list
    lists;
 9. --tar together with --extract=DIR writes the archive --tar alone
    writes, the xattrs and default ACL of directories included;
10. no write() or pwrite() hands the kernel more than 64 KiB (outfile.c):
    --tar=FILE (the 6 MiB file spooled, -j2 in pieces), --extract=DIR,
    and --tar=FILE of the image through a pipe (spooled whole); skipped
    without strace.

Environment: FSCK, srcdir, EROFS_TEST_DATA (unpacked images, optional).
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile

SRCDIR = os.environ.get(
    "srcdir", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SRCDIR, "lib"))
sys.path.insert(0, os.path.join(SRCDIR, "hardening"))
from erofstest import FSCK, tap, tap_end, without_notes  # noqa: E402
import corrupt  # noqa: E402
import erofsread  # noqa: E402
import tarlib  # noqa: E402

THREADED = dict(os.environ, EROFS_FSCK_SYNC_NS="0", EROFS_FSCK_SPLIT="1")
ROOT = os.geteuid() == 0
BLOCK = 4096
ODD_NAMES = [b"user.a=b", b"user.100%", b"user.caf\xc3\xa9",
             b"user.latin\xe9\xff", b"user.%3D"]


def write(path, data, mode=0o644):
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


def try_run(args):
    return subprocess.run(args, capture_output=True).returncode == 0


def make_root_parts(top):
    os.mknod(os.path.join(top, "null"), 0o620 | 0o020000, os.makedev(1, 3))
    os.mknod(os.path.join(top, "loop9"), 0o640 | 0o060000, os.makedev(7, 9))
    os.chown(os.path.join(top, "loop9"), 1234, 5678)
    write(os.path.join(top, "setuid"), b"#!/bin/sh\n", 0o4755)
    os.chown(os.path.join(top, "setuid"), 1000, 1000)
    os.chmod(os.path.join(top, "setuid"), 0o4755)
    write(os.path.join(top, "cap"), b"cap\n", 0o755)
    try_run(["setcap", "cap_net_raw+ep", os.path.join(top, "cap")])
    for name, value in ((b"security.selinux", b"system_u:object_r:x:s0\0"),
                        (b"trusted.overlay.opaque", b"y")):
        try:
            os.setxattr(os.path.join(top, "cap"), name, value)
        except OSError:
            pass


def make_tree(top):
    os.mkdir(top)
    write(os.path.join(top, "plain"), b"plain\n")
    write(os.path.join(top, "odd-xattrs"), b"odd\n")
    for i, name in enumerate(ODD_NAMES):
        try:
            os.setxattr(os.path.join(top, "odd-xattrs"), name,
                        b"value %d \0\xff" % i)
        except OSError:
            pass
    write(os.path.join(top, "acl-file"), b"acl\n")
    try_run(["setfacl", "-m", "u:1000:rw,g:100:r", os.path.join(top,
                                                                "acl-file")])
    os.mkdir(os.path.join(top, "acl-dir"))
    try_run(["setfacl", "-d", "-m", "u:1000:rwx",
             os.path.join(top, "acl-dir")])
    os.mkdir(os.path.join(top, "sticky"), 0o1777)
    os.chmod(os.path.join(top, "sticky"), 0o3777)
    os.mkfifo(os.path.join(top, "fifo"))
    for name in ("sock1", "sock2"):
        s = socket.socket(socket.AF_UNIX)
        s.bind(os.path.join(top, name))
        s.close()
    write(os.path.join(top, "linked"), b"linked " * 1000)
    os.mkdir(os.path.join(top, "sub"))
    os.link(os.path.join(top, "linked"), os.path.join(top, "sub", "link2"))
    os.link(os.path.join(top, "linked"), os.path.join(top, "zz-link3"))
    os.symlink("plain", os.path.join(top, "symlink"))
    zeros = bytearray(64 * BLOCK)
    zeros[20 * BLOCK:21 * BLOCK] = b"x" * BLOCK
    write(os.path.join(top, "zeros"), bytes(zeros))
    write(os.path.join(top, "big"), os.urandom(3 << 20) + b"ab" * (3 << 19))
    deep = os.path.join(top, *(["d" * 60] * 5))
    os.makedirs(deep)
    write(os.path.join(deep, "f" * 90), b"deep\n")
    if ROOT:
        make_root_parts(top)
    os.utime(os.path.join(top, "plain"), ns=(0, 1234567890123456789))


def mkfs(image, tree, opts):
    return try_run(["mkfs.erofs", "--quiet", "--preserve-mtime"] + opts +
                   [image, tree])


def manifest_lines(image):
    rc, out, err = tarlib.run([FSCK, "--manifest", image])
    return [line for line in out.decode().splitlines()
            if line.split(" ")[1] != "s"]


def tar_out(args, env=None):
    return tarlib.run([FSCK, "--tar=-"] + args, env=env)


def check_roundtrip(tag, image, scratch, extra):
    if not ROOT:
        tap(True, "%s: bsdtar unpacks the image's manifest" %
            " ".join([tag] + extra), directive="SKIP needs root")
        return
    tarball = os.path.join(scratch, "rt.tar")
    rc, out, err = tar_out(extra + [image])
    with open(tarball, "wb") as f:
        f.write(out)
    dest = tarlib.fresh_dir(scratch, "rt")
    urc, uerr = tarlib.unpack("bsdtar", tarball, dest)
    ignores = tarlib.BSDTAR_ALL_IGNORES if "--options=xattrheader=ALL" \
        in extra else tarlib.BSDTAR_IGNORES
    bad = tarlib.compare_manifests(manifest_lines(image),
                                   tarlib.tree_manifest(dest), ignores)
    want_err = "fsck.erofs: warning: --tar: sockets are left out " \
        "(2: sock1, sock2)\n" \
        "fsck.erofs: warning: --format=pax: xattr names with '=', '%' or " \
        "bytes outside printable ASCII are URL-encoded in SCHILY.xattr " \
        "records (GNU tar and bsdtar restore them under the encoded names; " \
        "--options=xattrheader=ALL adds records bsdtar restores exactly) " \
        "(1 entry: odd-xattrs)\n"
    if rc or without_notes(err) != want_err or urc:
        bad.insert(0, "exit %d, bsdtar %d: %s %s" % (rc, urc, err, uerr))
    tap(not bad, "%s: bsdtar unpacks the image's manifest, the warnings "
        "for the sockets and odd xattr names" % " ".join([tag] + extra), bad)


def sparse_map(tarball, name):
    with tarfile.open(tarball) as t:
        m = t.getmember(name)
        return m.sparse if m.issparse() else None


def check_sparse(image, scratch):
    sizes = {}
    maps = {}
    for opt in ([], ["--sparse"]):
        rc, out, err = tar_out(opt + [image])
        path = os.path.join(scratch, "sp.tar")
        with open(path, "wb") as f:
            f.write(out)
        sizes[bool(opt)] = len(out)
        maps[bool(opt)] = sparse_map(path, "zeros")
    want = [(20 * BLOCK, BLOCK), (64 * BLOCK, 0)]
    tap(maps[True] == want and maps[False] is None and
        sizes[True] < sizes[False],
        "--sparse: the file of zeros is a sparse entry of one block, "
        "a smaller archive; without it not sparse",
        ["maps %s, sizes %s" % (maps, sizes)])


def check_jobs(tag, image):
    for extra in ([], ["--sparse"]):
        rc, single, err = tar_out(["-j1"] + extra + [image])
        for j in ("-j2", "-j8"):
            rc2, out, err2 = tar_out([j] + extra + [image], env=THREADED)
            tap(rc == rc2 and out == single,
                "%s: %s writes the archive -j1 writes" %
                (" ".join([tag] + extra), j),
                ["exit %d/%d, %d bytes against %d" %
                 (rc, rc2, len(out), len(single)), err2])


def check_spool(image):
    env = dict(os.environ, TMPDIR="/nonexistent/spool-dir")
    rc, out, err = tarlib.run([FSCK, "--tar=/dev/null", image], env=env)
    tap(rc == 8 and "/nonexistent/spool-dir" in err and "spool" in err,
        "a spool in a TMPDIR that does not exist: exit 8, naming it",
        ["exit %d" % rc, err])


def check_damaged(scratch):
    img = erofsread.load("lz4hc-default")
    variant = next(v for v in corrupt.data_variants(img)
                   if v.name == "pcluster-filled-ff")
    image = os.path.join(scratch, "damaged.erofs")
    with open(image, "wb") as f:
        f.write(variant.data)
    tarball = os.path.join(scratch, "damaged.tar")
    rc, out, err = tar_out(["-j1", image])
    with open(tarball, "wb") as f:
        f.write(out)
    listed = subprocess.run(["bsdtar", "-tf", tarball], capture_output=True)
    names = {tarlib.bsdtar_name(n) for n in
             listed.stdout.decode("latin-1").split("\n") if n}
    with open(os.path.join(SRCDIR, "data", "s1-small.manifest")) as f:
        want = [line for line in f.read().splitlines()
                if line.split(" ")[1] != "s"]
    expected = {tarlib.manifest_name(line) for line in want} - {b"mixed.bin"}
    said = "--tar: 1 file left out, whose data or xattrs failed" in err
    tap(rc == 4 and listed.returncode == 0 and names == expected and said,
        "damaged: exit 4, bsdtar reads the archive to its end, every entry "
        "but the damaged file, which the report counts", ["exit %d, bsdtar %d, missing %s, extra %s"
                                 % (rc, listed.returncode,
                                    sorted(expected - names)[:5],
                                    sorted(names - expected)[:5]), err])
    for j in ("-j2", "-j8"):
        rc2, out2, _ = tar_out([j, image], env=THREADED)
        tap(rc2 == 4 and out2 == out,
            "damaged: %s writes the archive -j1 writes" % j,
            ["exit %d, %d bytes against %d" % (rc2, len(out2), len(out))])
    if not ROOT:
        tap(True, "damaged: the other files unpack exactly",
            directive="SKIP needs root")
        return
    dest = tarlib.fresh_dir(scratch, "dmg")
    tarlib.unpack("bsdtar", tarball, dest)
    want = [line for line in want if not line.startswith("mixed.bin ")]
    bad = tarlib.compare_manifests(want, tarlib.tree_manifest(dest),
                                   tarlib.BSDTAR_IGNORES)
    tap(not bad, "damaged: the other files unpack exactly", bad)


FORMATS = {
    "ustar": ["extended attributes", "ACLs", "nanoseconds", "holes"],
    "gnutar": ["extended attributes", "ACLs", "nanoseconds", "holes"],
    "cpio": ["extended attributes"],
    "newc": ["extended attributes"],
    "zip": ["extended attributes"],
}


def check_formats(image, scratch):
    for fmt, kinds in sorted(FORMATS.items()):
        path = os.path.join(scratch, "fmt.out")
        rc, out, err = tarlib.run([FSCK, "--tar=" + path, "--sparse",
                                   "--format=" + fmt, image])
        lines = err.splitlines()
        bad = ["said twice: %s" % line for line in set(lines)
               if lines.count(line) > 1]
        bad += ["no warning about %s" % kind for kind in kinds
                if sum(kind in line for line in lines) != 1]
        listed = subprocess.run(["bsdtar", "-tf", path], capture_output=True)
        if listed.returncode or rc not in (0, 8):
            bad.append("exit %d, bsdtar -t %d: %s" %
                       (rc, listed.returncode, listed.stderr[:200]))
        tap(not bad, "--format=%s: warned once per kind (%s), bsdtar reads "
            "it" % (fmt, ", ".join(kinds)), bad + lines)
    rc, out, err = tarlib.run([FSCK, "--tar=/dev/null", "--format=nosuch",
                               image])
    tap(rc == 16 and "--format=nosuch" in err,
        "an unknown --format: exit 16, naming it", ["exit %d" % rc, err])


DATELESS = os.path.join(SRCDIR, "data", "regressions",
                        "zip-mtime-without-date.exit-4.erofs")


def check_dateless(scratch):
    """An mtime whose year overflows an int: the formats that store dates
    get the nearest 32-bit time (zip and iso9660 the nearest of their
    range), with one warning; pax keeps it."""
    path = os.path.join(scratch, "dateless.out")
    for fmt, clamped in (("zip", True), ("iso9660", True), ("xar", True),
                         ("7zip", True), ("pax", False)):
        if os.path.exists(path):
            os.unlink(path)
        rc, out, err = tarlib.run([FSCK, "--no-sbcrc", "--tar=" + path,
                                   "--format=" + fmt, DATELESS])
        said = sum("too far from 1970 for a calendar date" in line or
                   "outside the range its time fields hold" in line
                   for line in err.splitlines())
        listed = subprocess.run(["bsdtar", "-tf", path], capture_output=True)
        names = listed.stdout.decode("latin-1").split()
        ok = (rc == 4 and said == (1 if clamped else 0) and
              listed.returncode == 0 and "per4" in names)
        tap(ok, "--format=%s, an mtime without a calendar date: exit 4, %s, "
            "bsdtar lists the file" % (fmt, "one warning" if clamped
                                       else "kept"),
            ["exit %d, warned %d times, bsdtar %d: %s" %
             (rc, said, listed.returncode, names), err])


def drop_to_nobody():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def check_ordinary_user(image, scratch):
    """--tar needs no privilege: as uid 65534 (from root), with the image
    on standard input, bsdtar -tv lists what --list lists"""
    with open(image, "rb") as f:
        p = subprocess.run([FSCK, "--tar=-", "-"], stdin=f,
                           capture_output=True,
                           preexec_fn=drop_to_nobody if ROOT else None)
    tarball = os.path.join(scratch, "user.tar")
    with open(tarball, "wb") as f:
        f.write(p.stdout)
    rc, listing, err = tarlib.run([FSCK, "--list", image])
    ours = [line for line in listing.decode("latin-1").splitlines()
            if not line.startswith("s")]
    bsd = subprocess.run(["bsdtar", "-tvf", tarball], capture_output=True)
    bad = tarlib.compare_listing(ours, bsd.stdout.decode("latin-1")
                                 .splitlines())
    if p.returncode or rc or bsd.returncode:
        bad.insert(0, "--tar exits %d, --list %d, bsdtar -tv %d: %s" %
                   (p.returncode, rc, bsd.returncode,
                    p.stderr.decode(errors="replace")[:300]))
    tap(not bad, "as %s, --tar=- of the image on standard input: bsdtar "
        "-tv lists what --list lists" %
        ("uid 65534" if ROOT else "this user"), bad)


def check_with_extract(image, scratch):
    rc, alone, err = tar_out([image])
    archive = os.path.join(scratch, "with-extract.tar")
    out_dir = os.path.join(scratch, "with-extract")
    rc2, _, err2 = tarlib.run([FSCK, "--tar=" + archive,
                               "--extract=" + out_dir, image])
    with open(archive, "rb") as f:
        both = f.read()
    shutil.rmtree(out_dir, ignore_errors=True)
    tap(rc == rc2 == 0 and both == alone,
        "--tar with --extract=DIR writes the archive --tar alone writes",
        ["exit %d/%d, %d bytes against %d" % (rc, rc2, len(both),
                                              len(alone)), err, err2])


def check_options(image):
    cases = [
        (["--tar=-", "--list"], 16, "--tar=-"),
        (["--format=ustar"], 16, "--format needs --tar"),
        (["--tar="], 16, "--tar="),
        (["--tar=/nonexistent/dir/a.tar"], 8, "/nonexistent/dir/a.tar"),
        (["--tar=/dev/full"], 8, "--tar=/dev/full: No space left"),
    ]
    for args, code, says in cases:
        rc, out, err = tarlib.run([FSCK] + args + [image])
        tap(rc == code and says in err and not out,
            "%s: exit %d, saying %s" % (" ".join(args), code, says),
            ["exit %d" % rc, err])


WRITE_MAX = 64 << 10
# strace -s 0: write(FD, ""..., COUNT) and pwrite64(FD, ""..., COUNT, OFF)
WRITE_CALL = re.compile(r'\b(?:write|pwrite64)\(\d+, ""(?:\.\.\.)?, (\d+)')


def largest_write(args, image, log, pipe):
    """(exit status, standard error, the largest count of a write call,
    calls seen), the image named or, with pipe, through a pipe on
    standard input"""
    cmd = ["strace", "-f", "-s", "0", "-e", "trace=write,pwrite64",
           "-o", log, FSCK] + args + ["-" if pipe else image]
    # LeakSanitizer cannot run under a tracer; the other cases check leaks
    asan = [o for o in os.environ.get("ASAN_OPTIONS", "").split(":") if o]
    env = dict(THREADED, ASAN_OPTIONS=":".join(asan + ["detect_leaks=0"]))
    if pipe:
        with open(image, "rb") as f:
            feed = {"input": f.read()}
    else:
        feed = {"stdin": subprocess.DEVNULL}
    p = subprocess.run(cmd, env=env, capture_output=True, **feed)
    with open(log) as f:
        counts = [int(m.group(1)) for m in map(WRITE_CALL.search, f) if m]
    return (p.returncode, p.stderr.decode(errors="replace"),
            max(counts, default=0), len(counts))


def check_write_sizes(image, scratch):
    what = "no write of more than 64 KiB"
    if not shutil.which("strace"):
        tap(True, what, directive="SKIP strace not installed (Debian "
            "package strace)")
        return
    base = os.path.join(scratch, "writes")
    for n, (how, args, pipe) in enumerate((
            ("--tar=FILE", ["-j2", "--tar=" + base + ".tar"], False),
            ("--extract=DIR", ["-j2", "--extract=" + base + ".d"], False),
            ("--tar=FILE of the image through a pipe",
             ["--tar=" + base + "-pipe.tar"], True))):
        rc, err, most, calls = largest_write(
            args, image, "%s%d.strace" % (base, n), pipe)
        tap(rc == 0 and calls > 1 and most == WRITE_MAX,
            "%s: %s (the largest: %d bytes, of %d calls)" %
            (how, what, most, calls), ["exit %d" % rc, err[:300]])


def main():
    if not tarlib.have_tar(FSCK):
        print("1..0 # SKIP fsck.erofs built without libarchive")
        return 0
    for tool, package in (("bsdtar", "libarchive-tools"),
                          ("mkfs.erofs", "erofs-utils")):
        if not shutil.which(tool):
            print("1..0 # SKIP %s not installed (Debian package %s)" %
                  (tool, package))
            return 0
    with tarlib.Scratch() as scratch:
        tree = os.path.join(scratch.path, "tree")
        make_tree(tree)
        images = {}
        for tag, opts in (("plain", ["-Eforce-inode-extended"]),
                          ("lz4hc", ["-zlz4hc"])):
            images[tag] = os.path.join(scratch.path, tag + ".erofs")
            if not mkfs(images[tag], tree, opts):
                print("Bail out! mkfs.erofs %s failed" % tag)
                return 1
        for tag, image in sorted(images.items()):
            check_roundtrip(tag, image, scratch.path, [])
            check_roundtrip(tag, image, scratch.path, ["--sparse"])
            check_roundtrip(tag, image, scratch.path,
                            ["--options=xattrheader=ALL"])
            check_jobs(tag, image)
        check_sparse(images["plain"], scratch.path)
        check_spool(images["lz4hc"])
        check_damaged(scratch.path)
        check_formats(images["plain"], scratch.path)
        check_dateless(scratch.path)
        check_options(images["plain"])
        check_with_extract(images["plain"], scratch.path)
        check_ordinary_user(images["lz4hc"], scratch.path)
        check_write_sizes(images["lz4hc"], scratch.path)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
