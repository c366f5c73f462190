#!/usr/bin/env python3
"""salvage.py - --ignore-errors: what a damaged image still yields (TAP).

Each case damages a copy of a stored image (lib/erofsread.py), then
extracts it with --extract=DIR --ignore-errors and compares the tree with
the undamaged image's extraction, file by file: every file is there with
its size and its bytes, but for the ranges a warning names as salvaged
("bytes A to B unreadable: salvaged as zeros"), which are zeros, and but
for the files the damage took (under a damaged directory, or an inode
that cannot be read), each of which an error names. The exit status is
4, nothing else is in the tree, and the damaged file itself is there:

- a pcluster of a file filled with 0xFF, at -j1 and -j2 (a range of that
  file salvaged; without --ignore-errors the file is left out whole); with
  --sparse the salvaged range is a hole; --tar holds the same salvaged
  bytes (Python's tarfile reads them), and --cat writes them;
- the packed inode's first pcluster (files whose fragments it holds);
- a name in a subdirectory's block (that directory's entries are lost,
  the rest of the tree is not);
- a file's inode (that file is lost, and named);
- a wrong superblock checksum: --ignore-errors goes on past it, saying
  so, and every file comes back; without it nothing is written and the
  run says how to go on;
- an image cut to 60% of its blocks: the blocks before the cut are read,
  a read past it fails by itself, and the files held before it come back
  (half of the tree, its large directory's blocks lying past the cut);
- without --ignore-errors, the damaged file's lines say it was not
  extracted;
- a salvaged file keeps the time it was written, not the image's mtime:
  --keep-existing with the undamaged image replaces it, as it replaces a
  file of the same size and another mtime (and keeps one of the same
  size and mtime, as rsync's quick check).

Environment: FSCK, srcdir, EROFS_TEST_DATA (as corrupt.py).
"""
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

import erofsread  # noqa: E402
from erofstest import FSCK, le64, tap, tap_end  # noqa: E402

SALVAGED = re.compile(r"^fsck\.erofs: /(.*?): nid \d+(?:, offset \d+)?: "
                      r"warning: bytes (\d+) to (\d+) unreadable: "
                      r"salvaged as zeros$")
PROBLEM = re.compile(r"^fsck\.erofs: /(.*?): nid \d+")


def files_of(root):
    """relative path -> bytes of every regular file below root, and the
    set of every entry"""
    files, entries = {}, set()
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            entries.add(rel)
            if name in filenames and os.path.isfile(path) and \
                    not os.path.islink(path):
                with open(path, "rb") as f:
                    files[rel] = f.read()
    return files, entries


def salvaged_ranges(stderr):
    ranges = {}
    for line in stderr.splitlines():
        m = SALVAGED.match(line)
        if m:
            ranges.setdefault(m.group(1), []).append(
                (int(m.group(2)), int(m.group(3)) + 1))
    return ranges


def compare(good, got, ranges, lost_ok):
    """complaints about got (files of a salvaging run) against good"""
    problems = []
    for rel, data in good.items():
        if rel not in got:
            if not lost_ok(rel):
                problems.append("%s: missing" % rel)
            continue
        mine = got[rel]
        if len(mine) != len(data):
            problems.append("%s: %d bytes, not %d" % (rel, len(mine),
                                                      len(data)))
            continue
        want = bytearray(data)
        for lo, hi in ranges.get(rel, []):
            want[lo:hi] = bytes(hi - lo)
        if bytes(want) != mine:
            problems.append("%s: bytes differ outside what was salvaged, "
                            "or the salvaged ones are not zeros" % rel)
    for rel in got:
        if rel not in good:
            problems.append("%s: not in the image" % rel)
    return problems


def run(args, env=None):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120, env=env)


class Case:
    def __init__(self, fsck, tmp, name, img, data):
        self.fsck, self.tmp, self.name, self.img = fsck, tmp, name, img
        self.path = os.path.join(tmp, name + ".erofs")
        with open(self.path, "wb") as f:
            f.write(data)
        good = os.path.join(tmp, img.name + ".good")
        if not os.path.isdir(good):
            ok = os.path.join(tmp, img.name + ".erofs")
            with open(ok, "wb") as f:
                f.write(img.data)
            r = run([fsck, "--extract=" + good, ok])
            if r.returncode:
                raise RuntimeError("undamaged %s: exit %d" %
                                   (img.name, r.returncode))
        self.good, self.good_entries = files_of(good)

    def extract(self, *opts, env=None):
        out = os.path.join(self.tmp, self.name + ".out")
        shutil.rmtree(out, ignore_errors=True)
        r = run([self.fsck, "--extract=" + out, *opts, self.path], env=env)
        err = r.stderr.decode(errors="replace")
        got, entries = files_of(out) if os.path.isdir(out) else ({}, set())
        return r.returncode, err, got, entries, out

    def check(self, what, want_file, lost_ok=lambda rel: False, *opts,
              env=None):
        rc, err, got, _, out = self.extract("--ignore-errors", *opts, env=env)
        ranges = salvaged_ranges(err)
        problems = compare(self.good, got, ranges, lost_ok)
        if rc != 4:
            problems.append("exit %d, not 4" % rc)
        if want_file is not None and want_file not in got:
            problems.append("%s, the damaged file, not extracted" % want_file)
        if want_file is not None and want_file not in ranges:
            problems.append("no range of %s salvaged" % want_file)
        problems += ["stderr: " + line for line in err.splitlines()[:6]] \
            if problems else []
        tap(not problems, "%s: %s" % (self.name, what), problems)
        return ranges, out


def first_pcluster_filled(img, inode):
    """the image with inode's first compressed pcluster all 0xFF"""
    zmap = erofsread.CompressedMap(img, inode)
    head, blkaddr = zmap.compressed_head()
    start = blkaddr * img.bs
    length = zmap.pcluster_blocks(head) * img.bs

    def fill(buf):
        buf[start:start + length] = b"\xff" * length
    return erofsread.edit(img, fill)


def pcluster_damage(img):
    return first_pcluster_filled(img, img.lookup(b"mixed.bin"))


def packed_damage(img):
    nid = le64(img.data, erofsread.SB + 96)
    return first_pcluster_filled(img, erofsread.Inode(img, nid))


def subdir_damage(img, dirname):
    """a '/' in the name of an entry of dirname's first block"""
    inode = img.lookup(dirname)
    block, maxsize = img.dir_blocks(inode)[0]
    ents = img.dirents(block, maxsize)
    victim = next(e for e in ents if e["name"] not in (b".", b".."))
    return erofsread.edit(img, erofsread.put("<B", block + victim["nameoff"],
                                         0x2F))


def inode_damage(img, name):
    """the file's inode layout set to 7, which no layout is"""
    inode = img.lookup(name)
    fmt = (inode.format & ~0xE) | (7 << 1)
    return erofsread.edit(img, erofsread.put("<H", inode.pos, fmt))


def keep_existing(c, tmp):
    """a salvaged file keeps the time it was written, so that extracting
    the undamaged image with --keep-existing over it replaces it; a file
    of the same size with another mtime (another version) is replaced
    too, and one of the same size and mtime is kept"""
    out = os.path.join(tmp, "keep.out")
    shutil.rmtree(out, ignore_errors=True)
    run([FSCK, "--extract=" + out, "--ignore-errors", c.path])
    good_img = os.path.join(tmp, c.img.name + ".erofs")
    problems = []
    try:
        written = os.stat(os.path.join(out, "mixed.bin")).st_mtime
        if abs(time.time() - written) > 3600:
            problems.append("the salvaged file has the image's mtime")
        other = os.path.join(out, "sizes", "size-4095")
        with open(other, "r+b") as f:
            data = f.read()
            f.seek(0)
            f.write(bytes(b ^ 0x55 for b in data))
        os.utime(other, (1000000000, 1000000000))
        same = os.path.join(out, "sizes", "size-4096")
        st = os.stat(same)
        with open(same, "r+b") as f:
            kept = bytes(b ^ 0x33 for b in f.read())
            f.seek(0)
            f.write(kept)
        os.utime(same, ns=(st.st_atime_ns, st.st_mtime_ns))
    except OSError as e:
        problems.append("the salvaged extraction: %s" % e)
        kept = None
    r = run([FSCK, "--extract=" + out, "--keep-existing", good_img])
    got, _ = files_of(out)
    if got.get("mixed.bin") != c.good.get("mixed.bin"):
        problems.append("the salvaged file was kept")
    if got.get("sizes/size-4095") != c.good.get("sizes/size-4095"):
        problems.append("a file of another mtime was kept")
    if kept is None or got.get("sizes/size-4096") != kept:
        problems.append("a file of the same size and mtime was replaced")
    if r.returncode:
        problems.append("exit %d" % r.returncode)
    tap(not problems, "--keep-existing over a salvaged extraction: the "
        "salvaged file and one of another mtime replaced, one of the same "
        "size and mtime kept", problems +
        r.stderr.decode(errors="replace").splitlines()[:4])


def main():
    threaded = dict(os.environ, EROFS_FSCK_SYNC_NS="0")
    with tempfile.TemporaryDirectory(prefix="tmp.salvage.", dir=".") as tmp:
        img = erofsread.load("lz4hc-default")
        c = Case(FSCK, tmp, "pcluster", img, pcluster_damage(img))
        ranges, out = c.check("-j1 --ignore-errors, a pcluster filled",
                              "mixed.bin")
        c.check("-j2 --ignore-errors, a pcluster filled", "mixed.bin",
                lambda rel: False, "-j2", env=threaded)

        rc, err, got, _, _ = c.extract()
        others = {k: v for k, v in c.good.items() if k != "mixed.bin"}
        tap(rc == 4 and "mixed.bin" not in got and
            not compare(others, {k: v for k, v in got.items()}, {},
                        lambda rel: False),
            "pcluster: without --ignore-errors the file is left out whole",
            ["exit %d" % rc] + err.splitlines()[:4])
        tap(re.search(r"^fsck\.erofs: /mixed\.bin: nid \d+, offset \d+: "
                      r"warning: not extracted, as its data failed the "
                      r"check", err, re.M),
            "pcluster: without --ignore-errors a line says it was not "
            "extracted", err.splitlines()[:4])

        rng = ranges.get("mixed.bin", [(0, 0)])[0]
        _, err, got, _, out = c.extract("--ignore-errors", "--sparse")
        block = (rng[0] + 4095) // 4096 * 4096
        hole = False
        if block + 4096 <= rng[1] and "mixed.bin" in got:
            with open(os.path.join(out, "mixed.bin"), "rb") as f:
                try:
                    hole = os.lseek(f.fileno(), block, os.SEEK_DATA) > block
                except OSError:
                    hole = True
        tap(hole and salvaged_ranges(err) == ranges,
            "pcluster: with --sparse the salvaged range %d-%d is a hole" %
            rng, err.splitlines()[:4])

        r = run([FSCK, "--tar=-", "--ignore-errors", c.path])
        problems = []
        try:
            with tarfile.open(fileobj=io.BytesIO(r.stdout)) as t:
                data = t.extractfile("mixed.bin").read()
            want = bytearray(c.good["mixed.bin"])
            for lo, hi in ranges["mixed.bin"]:
                want[lo:hi] = bytes(hi - lo)
            if data != bytes(want):
                problems.append("the archive's mixed.bin is not the "
                                "salvaged one")
        except (tarfile.TarError, KeyError) as e:
            problems.append("tarfile: %s" % e)
        if r.returncode != 4:
            problems.append("exit %d" % r.returncode)
        tap(not problems, "pcluster: --tar holds the salvaged bytes",
            problems)
        r = run([FSCK, "--cat=mixed.bin", "--ignore-errors", c.path])
        tap(r.returncode == 4 and r.stdout == bytes(want),
            "pcluster: --cat writes the salvaged bytes",
            ["exit %d, %d bytes" % (r.returncode, len(r.stdout))])

        keep_existing(c, tmp)

        img = erofsread.load("lz4hc-all-fragments")
        c = Case(FSCK, tmp, "packed", img, packed_damage(img))
        ranges, _ = c.check("the packed inode's first pcluster filled", None)
        tap(len(ranges) > 0, "packed: files whose fragments it held "
            "salvaged (%d)" % len(ranges))

        img = erofsread.load("lz4hc-default")
        c = Case(FSCK, tmp, "subdir", img, subdir_damage(img, b"sizes"))
        c.check("a name in sizes/'s block: its entries lost, the rest not",
                None, lambda rel: rel.startswith("sizes/"))
        _, err, got, entries, _ = c.extract("--ignore-errors")
        tap("sizes" in entries and
            len([k for k in c.good if not k.startswith("sizes/")]) ==
            len([k for k in got if not k.startswith("sizes/")]),
            "subdir: sizes/ itself and every file outside it extracted")

        c = Case(FSCK, tmp, "inode", img, inode_damage(img, b"mixed.bin"))
        rc, err, got, _, _ = c.extract("--ignore-errors")
        named = any(m and m.group(1) == "mixed.bin"
                    for m in map(PROBLEM.match, err.splitlines()))
        problems = compare(c.good, got, salvaged_ranges(err),
                           lambda rel: rel == "mixed.bin")
        tap(rc == 4 and named and "mixed.bin" not in got and not problems,
            "inode: a file's inode damaged: that file lost and named, "
            "the rest extracted", problems + err.splitlines()[:4])
        superblock_damage(tmp, img)
    return tap_end()


def superblock_damage(tmp, img):
    data = bytearray(img.data)
    data[1024 + 4] ^= 0x40  # the superblock checksum
    c = Case(FSCK, tmp, "sbcrc", img, bytes(data))
    _, err, _, _, _ = c.extract("--ignore-errors")
    c.check("a wrong superblock checksum: every file salvaged", None)
    tap("superblock checksum mismatch" in err and
        "going on past the superblock's damage (--ignore-errors)" in err,
        "sbcrc: the mismatch reported, and that the run goes on past it",
        err.splitlines()[:4])
    rc, err, got, _, _ = c.extract()
    tap(rc == 4 and not got and "--ignore-errors goes on past the "
        "superblock's damage" in err,
        "sbcrc: without --ignore-errors nothing written, saying how to "
        "go on", ["exit %d, %d files" % (rc, len(got))] +
        err.splitlines()[:4])
    blocks = len(img.data) // 4096
    c = Case(FSCK, tmp, "truncated", img, img.data[:blocks * 6 // 10 * 4096])
    c.check("cut to 60% of its blocks: what lies before the cut salvaged",
            None, lambda rel: True)
    rc, err, got, _, _ = c.extract("--ignore-errors")
    tap(rc == 4 and len(got) >= len(c.good) // 2 and
        "image truncated" in err,
        "truncated: %d of %d files come back" % (len(got), len(c.good)),
        ["exit %d" % rc] + err.splitlines()[:4])


if __name__ == "__main__":
    sys.exit(main())
