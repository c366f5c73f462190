#!/usr/bin/env python3
"""TAP test: a dm-verity failure inside a run of pclusters read at once
(lib/image/data.c reads a file's pclusters that follow each other with
one read) fails closed. A tree veritysetup made for a stored lz4hc image
in 4 KiB pclusters; one byte of the third pcluster of mixed.bin changed:

- --extract=DIR is exit 4, mixed.bin is not there, every other file is,
  as the undamaged image gives it, and the failure names mixed.bin;
- --tar leaves mixed.bin out (exit 4), --cat=mixed.bin writes nothing;
- a byte changed in the first pcluster instead: the same.
"""
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

import erofsread  # noqa: E402
from erofstest import run_fsck, tap, tap_end, write_file  # noqa: E402


def files_of(root):
    got = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    got[os.path.relpath(p, root)] = f.read()
    return got


def case(tmp, img, good, pcluster):
    inode = img.lookup(b"mixed.bin")
    zmap = erofsread.CompressedMap(img, inode)
    _, blkaddr = zmap.compressed_head()
    at = (blkaddr + pcluster) * img.bs + 100
    data = bytearray(img.data)
    data[at] ^= 0xFF
    bad = write_file(os.path.join(tmp, "bad%d.erofs" % pcluster), data)
    tree = ["--verity=" + os.path.join(tmp, "img.hash"),
            "--root-hash=" + ROOT]
    what = "a byte of pcluster %d of mixed.bin" % pcluster
    out = os.path.join(tmp, "x%d" % pcluster)
    rc, _, err = run_fsck(*tree, "--extract=" + out, bad)
    got = files_of(out) if os.path.isdir(out) else {}
    others = {k: v for k, v in good.items() if k != "mixed.bin"}
    tap(rc == 4 and got == others and
        re.search(r"^fsck\.erofs: /mixed\.bin: .*fails its hash", err, re.M),
        "%s: --extract=DIR exit 4, it left out, the rest exact" % what,
        ["exit %d, %d of %d others" % (rc, len(got), len(others)),
         err[-500:]])
    rc, tar, err = run_fsck(*tree, "--tar=-", bad)
    names = []
    try:
        with tarfile.open(fileobj=io.BytesIO(tar)) as t:
            names = t.getnames()
    except tarfile.TarError as e:
        err += " tarfile: %s" % e
    tap(rc == 4 and names and "mixed.bin" not in names,
        "%s: --tar leaves it out, exit 4" % what, ["exit %d" % rc, err[-500:]])
    rc, cat, err = run_fsck(*tree, "--cat=mixed.bin", bad)
    tap(rc == 4 and cat == b"", "%s: --cat writes none of it" % what,
        ["exit %d, %d bytes" % (rc, len(cat)), err[-500:]])


def main():
    global ROOT
    if not shutil.which("veritysetup"):
        print("1..0 # SKIP no veritysetup (Debian package cryptsetup-bin)")
        return 0
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        img = erofsread.load("lz4hc-default")
        path = write_file(os.path.join(tmp, "img.erofs"), img.data)
        p = subprocess.run(["veritysetup", "format", path,
                            os.path.join(tmp, "img.hash")],
                           capture_output=True, text=True, check=True)
        ROOT = re.search(r"Root hash:\s+([0-9a-f]+)", p.stdout).group(1)
        good_dir = os.path.join(tmp, "good")
        rc, _, err = run_fsck("--extract=" + good_dir, path)
        if rc:
            print("Bail out! undamaged image: exit %d" % rc)
            return 1
        good = files_of(good_dir)
        for pcluster in (2, 0):
            case(tmp, img, good, pcluster)
    return tap_end()


ROOT = ""

if __name__ == "__main__":
    sys.exit(main())
