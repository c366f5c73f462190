#!/usr/bin/env python3
"""TAP test of the exit codes and messages at the edges a careful user
hits:

- --nid of a slot where no inode starts, that no directory entry names:
  a usage error (16) naming the root's nid; --nid of an inode the tree
  names but the image damaged: a problem of the image (4);
- --verity: a hash file too short for a superblock is not a tree (16,
  as a random one is), and a tree without a superblock (veritysetup
  --no-superblock) given without the option gets a hint;
- --offset with a tree made for the filesystem alone: a hint that the
  tree covers IMAGE from byte 0;
- --extract=DIR of a file whose inode is damaged: left out, named;
- offsets count from the filesystem's start: with --offset, -d3 says
  where that lies in the file.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

import erofsread  # noqa: E402
from erofstest import read_file, run_fsck, tap, tap_end, \
    write_file  # noqa: E402


def nid_tests(tmp):
    img = erofsread.load("lz4hc-default")
    path = write_file(os.path.join(tmp, "good.erofs"), img.data)
    nid = img.root_nid + 1
    rc, _, err = run_fsck("--nid=%d" % nid, path)
    tap(rc == 16 and "--nid=%d: no inode starts there, and no directory "
        "entry names it (the root is nid %d)" % (nid, img.root_nid) in err,
        "--nid of a slot no inode starts at: exit 16, naming the root",
        ["exit %d" % rc, err[-400:]])
    inode = img.lookup(b"mixed.bin")
    fmt = (inode.format & ~0xE) | (7 << 1)
    bad = write_file(os.path.join(tmp, "bad.erofs"), erofsread.edit(
        img, erofsread.put("<H", inode.pos, fmt)))
    rc, _, err = run_fsck("--nid=%d" % inode.nid, bad)
    tap(rc == 4 and "no inode starts there" not in err,
        "--nid of an inode the tree names, damaged: exit 4",
        ["exit %d" % rc, err[-400:]])
    out = os.path.join(tmp, "x")
    rc, _, err = run_fsck("--extract=" + out, bad)
    tap(rc == 4 and not os.path.exists(os.path.join(out, "mixed.bin")) and
        re.search(r"^fsck\.erofs: /mixed\.bin: .*(layout|format).*$", err,
                  re.M),
        "--extract=DIR of a file whose inode is damaged: left out, named",
        ["exit %d" % rc, err[-400:]])
    shutil.rmtree(out, ignore_errors=True)
    off = write_file(os.path.join(tmp, "off.erofs"), bytes(8192) + img.data)
    rc, _, err = run_fsck("-d3", "--offset=8192", off)
    tap(rc == 0 and re.search(r"^fsck\.erofs: .*off\.erofs: block size "
                              r".*; offsets from byte 8192 of the file$",
                              err, re.M),
        "--offset: -d3 says where the offsets count from",
        ["exit %d" % rc, err[-400:]])
    return path


def verity_tests(tmp, img):
    if not shutil.which("veritysetup"):
        tap(True, "--verity edges", directive="SKIP no veritysetup "
            "(Debian package cryptsetup-bin)")
        return
    work = os.path.join(tmp, "v.img")
    shutil.copyfile(img, work)

    def fmt(hashfile, *opts):
        p = subprocess.run(["veritysetup", "format", *opts, work, hashfile],
                           capture_output=True, text=True, check=True)
        return re.search(r"Root hash:\s+([0-9a-f]+)", p.stdout).group(1)

    hashfile = os.path.join(tmp, "v.hash")
    root = fmt(hashfile)
    for name, data in (("empty", b""), ("100 bytes", read_file(hashfile)[:100]),
                       ("random", os.urandom(8192))):
        bad = write_file(os.path.join(tmp, "bad.hash"), data)
        rc, _, err = run_fsck("--verity=" + bad, "--root-hash=" + root, work)
        tap(rc == 16 and "--verity=%s: dm-verity superblock" % bad in err,
            "--verity, a hash file that is %s: not a tree, exit 16" % name,
            ["exit %d" % rc, err[-400:]])
    nosb = os.path.join(tmp, "nosb.hash")
    root2 = fmt(nosb, "--no-superblock")
    rc, _, err = run_fsck("--verity=" + nosb, "--root-hash=" + root2, work)
    tap(rc == 16 and "a tree made with --no-superblock has none: give "
        "--no-superblock and its parameters" in err,
        "--verity, a tree made --no-superblock given without it: a hint",
        ["exit %d" % rc, err[-400:]])
    off = write_file(os.path.join(tmp, "off.img"),
                     bytes(8192) + read_file(work))
    rc, _, err = run_fsck("--offset=8192", "--verity=" + hashfile,
                          "--root-hash=" + root, off)
    tap(rc == 4 and "covers a file or device holding just that (losetup "
        "-o 8192" in err,
        "--offset, a tree made for the filesystem alone: a hint",
        ["exit %d" % rc, err[-400:]])


def main():
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        img = nid_tests(tmp)
        verity_tests(tmp, img)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
