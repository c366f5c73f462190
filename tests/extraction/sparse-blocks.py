#!/usr/bin/env python3
"""TAP test of --sparse on compressed images (README, "Tests"): files of
zeros with a little data (lib/sparsetree.py), whose runs of zeros cross
extent boundaries, in an lz4hc image made here by mkfs.erofs and in the
stored lzma and zstd images data/sparse-lzma.erofs and sparse-zstd.erofs
(made by mkfs.erofs 1.9.3 from the same tree). With --extract=DIR
--sparse, at -j1 and -j2, each file has its content and no more space
than its 4 KiB blocks that hold data (st_blocks, one block of slack); with
--tar --sparse, Python's tarfile finds a sparse map whose data is exactly
those blocks, and bsdtar restores the content."""
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import FSCK, stored_image, tap, tap_end  # noqa: E402
import sparsetree  # noqa: E402

SLACK = sparsetree.BLOCK


def run(*args):
    p = subprocess.run([FSCK, *args], capture_output=True, timeout=300)
    return p.returncode, p.stderr.decode(errors="replace")


def images(tmp):
    """(name, path) of each image to try; None for a path not made."""
    out = []
    tree = os.path.join(tmp, "tree")
    sparsetree.make(tree)
    img = os.path.join(tmp, "lz4hc.erofs")
    if shutil.which("mkfs.erofs"):
        p = subprocess.run(["mkfs.erofs", "-zlz4hc", "-T0", img, tree],
                           capture_output=True)
        out.append(("lz4hc", img if p.returncode == 0 else None))
    else:
        out.append(("lz4hc", None))
    for codec in ("lzma", "zstd"):
        out.append((codec, stored_image("sparse-%s.erofs" % codec, tmp)))
    return out


def check_extract(name, img, tmp, jobs):
    dest = os.path.join(tmp, "out-%s-%s" % (name, jobs))
    rc, err = run(jobs, "--extract=" + dest, "--sparse", img)
    if rc:
        tap(False, "%s %s --extract --sparse: exit %d" % (name, jobs, rc),
            err.splitlines())
        return
    for f in sparsetree.FILES:
        want = sparsetree.contents(f)
        path = os.path.join(dest, f)
        with open(path, "rb") as g:
            same = g.read() == want
        used = os.stat(path).st_blocks * 512
        limit = sparsetree.nonzero_blocks(want) * sparsetree.BLOCK + SLACK
        tap(same and used <= limit,
            "%s %s --extract --sparse: %s: %d bytes allocated, at most %d"
            % (name, jobs, f, used, limit),
            ["same content: %s" % same])


def check_tar(name, img, tmp):
    archive = os.path.join(tmp, "%s.tar" % name)
    rc, err = run("--tar=" + archive, "--sparse", img)
    if rc:
        tap(False, "%s --tar --sparse: exit %d" % (name, rc),
            err.splitlines())
        return
    with tarfile.open(archive) as t:
        for m in t:
            if not m.isfile():
                continue
            want = sparsetree.contents(m.name)
            stored = sum(size for _, size in (m.sparse or [(0, m.size)]))
            blocks = sparsetree.nonzero_blocks(want) * sparsetree.BLOCK
            same = t.extractfile(m).read() == want
            tap(same and stored <= blocks,
                "%s --tar --sparse: %s: %d bytes of data stored, at most %d"
                % (name, m.name, stored, blocks),
                ["tarfile reads the same content: %s" % same])
    dest = os.path.join(tmp, "bsdtar-%s" % name)
    os.makedirs(dest)
    p = subprocess.run(["bsdtar", "-xf", archive, "-C", dest],
                       capture_output=True)
    same = p.returncode == 0 and all(
        open(os.path.join(dest, f), "rb").read() == sparsetree.contents(f)
        for f in sparsetree.FILES)
    tap(same, "%s --tar --sparse: bsdtar restores every file" % name,
        [p.stderr.decode(errors="replace")])


def main():
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        for name, img in images(tmp):
            if img is None:
                tap(True, "%s image" % name, directive="SKIP no mkfs.erofs")
                continue
            for jobs in ("-j1", "-j2"):
                check_extract(name, img, tmp, jobs)
            check_tar(name, img, tmp)
    return tap_end()


sys.exit(main())
