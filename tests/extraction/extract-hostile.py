#!/usr/bin/env python3
"""extract-hostile.py - extraction of hostile images stays inside DIR (TAP).

usage: extract-hostile.py [--keep DIR] [SUBSTRING]

Patches directory blocks of the plain.erofs test image (uncompressed, so
that its directories can be edited in place) and extracts the result with
"fsck.erofs --extract=DIR" under a scratch directory P (DIR = P/out):

  dotdot      an entry renamed to ".."
  slash       a name containing '/'
  duplicate   two entries of one block with one name
  symlink-dir a symlink (whose target leads out of DIR) at the end of one
              directory block, and a directory of the same name starting
              the next block
  ancestor    a directory entry pointing at an ancestor directory
  exists-*    a symlink already in DIR where the image has a directory or
              a file, with and without --overwrite
  bad-data    a file whose compressed data fails (lz4hc-default.erofs)

Each extraction must report the problem, exit with the expected status
(4: the image is corrupt; 8: an entry in DIR was in the way) and leave P
unchanged outside DIR: P holds a bait directory that a symlink followed
would write into. Each is run with -j1 and -j4: the messages must be the
same, in the same order.

Environment: FSCK, srcdir, EROFS_TEST_DATA, PYTHON3, FSCK_TIMEOUT.
"""
import argparse
import hashlib
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import SB, le16, le32, le64, stored_image_bytes, tap, \
    tap_end, without_notes

FT_DIR = 2
FT_SYMLINK = 7
FLAT_PLAIN, FLAT_INLINE = 0, 2


class Image:
    """Just enough of an uncompressed EROFS image to edit directories."""

    def __init__(self, data):
        self.d = bytearray(data)
        self.bs = 1 << self.d[SB + 12]
        self.meta = le32(self.d, SB + 40)
        self.root = le16(self.d, SB + 14)

    def inode(self, nid):
        pos = self.meta * self.bs + nid * 32
        fmt = le16(self.d, pos)
        ext = fmt & 1
        icount = le16(self.d, pos + 2)
        size = le64(self.d, pos + 8) if ext else le32(self.d, pos + 8)
        xsize = 12 + 4 * (icount - 1) if icount else 0
        return {
            "layout": (fmt >> 1) & 7,
            "mode": le16(self.d, pos + 4),
            "size": size,
            "startblk": le32(self.d, pos + 16),
            "mend": pos + (64 if ext else 32) + xsize,
        }

    def data_blocks(self, nid):
        """(image offset, usable size) of each block of a flat inode"""
        ino = self.inode(nid)
        assert ino["layout"] in (FLAT_PLAIN, FLAT_INLINE), ino
        size, bs = ino["size"], self.bs
        nblocks = (size + bs - 1) // bs
        out = []
        for i in range(nblocks):
            maxsize = min(bs, size - i * bs)
            if ino["layout"] == FLAT_INLINE and i == nblocks - 1:
                out.append((ino["mend"], maxsize))
            else:
                out.append(((ino["startblk"] + i) * bs, maxsize))
        return out

    def dirents(self, off, maxsize):
        count = le16(self.d, off + 8) // 12
        ents = []
        for i in range(count):
            de = off + 12 * i
            nameoff = le16(self.d, de + 8)
            if i + 1 < count:
                end = le16(self.d, de + 20)
            else:
                raw = self.d[off + nameoff:off + maxsize]
                end = nameoff + (raw.index(0) if 0 in raw else len(raw))
            ents.append({
                "pos": de, "nid": le64(self.d, de), "type": self.d[de + 10],
                "nameat": off + nameoff,
                "name": bytes(self.d[off + nameoff:off + end]),
                "room": maxsize - nameoff,
            })
        return ents

    def blocks(self, nid):
        return [self.dirents(off, n) for off, n in self.data_blocks(nid)]

    def lookup(self, path):
        nid = self.root
        for part in path.encode().split(b"/"):
            found = [e for blk in self.blocks(nid) for e in blk
                     if e["name"] == part]
            if not found:
                raise KeyError(path)
            nid = found[0]["nid"]
        return nid

    def entry(self, path):
        parent, _, name = path.rpartition("/")
        pnid = self.lookup(parent) if parent else self.root
        for blk in self.blocks(pnid):
            for e in blk:
                if e["name"] == name.encode():
                    return e
        raise KeyError(path)

    def set_name(self, ent, name):
        """rename in place: same length, or shorter/longer if last"""
        assert len(name) <= ent["room"]
        at = ent["nameat"]
        old = len(ent["name"])
        self.d[at:at + max(old, len(name))] = \
            name + bytes(max(old, len(name)) - len(name))

    def set_target(self, ent, nid, ftype):
        struct.pack_into("<Q", self.d, ent["pos"], nid)
        self.d[ent["pos"] + 10] = ftype


# The cases: each returns (image bytes, fsck options, setup, statuses,
# pattern the messages must match).

def case_dotdot(img):
    blk = img.blocks(img.lookup("sizes"))[-1]
    img.set_name(blk[-1], b"..")
    return ["--path=/sizes"], None, {4}, r"\.\.|order|not after"


def case_slash(img):
    last = img.blocks(img.lookup("sizes"))[-1][-1]
    img.set_name(last, last["name"][:-1] + b"/")
    return ["--path=/sizes"], None, {4}, r"'/'"


def case_duplicate(img):
    blk = img.blocks(img.lookup("sizes"))[0]
    for a, b in zip(blk, blk[1:]):
        if len(a["name"]) == len(b["name"]) and a["name"][0:1] != b".":
            img.set_name(b, a["name"])
            return ["--path=/sizes"], None, {4}, r"duplicate"
    raise RuntimeError("no two names of one length in /sizes")


def bait_target(img, ent):
    """make symlink ent, once in DIR, lead to the bait: ../bait"""
    ino = img.inode(ent["nid"])
    n = ino["size"]
    assert n >= 7 and ino["layout"] == FLAT_INLINE
    img.d[ino["mend"]:ino["mend"] + n] = b"../bait" + b"/" * (n - 7)


def case_symlink_dir(img):
    link = img.entry("links/dangling")
    bait_target(img, link)
    target_dir = img.lookup("hardlinks")
    blocks = img.blocks(img.lookup("bigdir"))
    for blk, nxt in zip(blocks, blocks[1:]):
        last, first = blk[-1], nxt[0]
        if len(first["name"]) <= last["room"]:
            img.set_name(last, first["name"])
            img.set_target(last, link["nid"], FT_SYMLINK)
            img.set_target(first, target_dir, FT_DIR)
            return ["--path=/bigdir"], None, {4}, r"previous block"
    raise RuntimeError("no block border with room in /bigdir")


def case_ancestor(img):
    ent = img.entry("deep/d01/d02/d03")
    img.set_target(ent, img.lookup("deep/d01"), FT_DIR)
    return ["--path=/deep"], None, {4}, r"reached a second time"


def existing_symlink(name, overwrite):
    def setup(top, out):
        os.mkdir(out)
        os.symlink(os.path.join(top, "bait"), os.path.join(out, name))

    def case(img):
        del img
        opts = ["--force"] + (["--overwrite"] if overwrite else [])
        path = "--path=/deep" if name == "d01" else "--path=/sizes"
        if overwrite:
            return [path] + opts, setup, {0}, None
        return [path] + opts, setup, {8}, r"exists"
    return case


CASES = {
    "dotdot": case_dotdot,
    "slash": case_slash,
    "duplicate": case_duplicate,
    "symlink-dir": case_symlink_dir,
    "ancestor": case_ancestor,
    "exists-dir": existing_symlink("d01", False),
    "exists-dir-overwrite": existing_symlink("d01", True),
    "exists-file": existing_symlink("size-1", False),
    "exists-file-overwrite": existing_symlink("size-1", True),
}


def snapshot(top, skip):
    """everything under top but skip, without following symlinks"""
    seen = {}
    for root, dirs, files in os.walk(top):
        if root == top and skip in dirs:
            dirs.remove(skip)
        for name in dirs + files:
            path = os.path.join(root, name)
            st = os.lstat(path)
            what = (stat.S_IFMT(st.st_mode), st.st_mode, st.st_size,
                    st.st_mtime_ns)
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    what += (hashlib.sha256(f.read()).hexdigest(),)
            elif stat.S_ISLNK(st.st_mode):
                what += (os.readlink(path),)
            seen[os.path.relpath(path, top)] = what
    st = os.lstat(top)
    seen["."] = (st.st_mode, st.st_mtime_ns)
    return seen


def make_bait(top):
    bait = os.path.join(top, "bait")
    os.mkdir(bait)
    with open(os.path.join(bait, "victim"), "w") as f:
        f.write("must not change\n")
    os.utime(bait, ns=(10**18, 10**18))
    os.utime(top, ns=(10**18, 10**18))


def fsck(args):
    timeout = int(os.environ.get("FSCK_TIMEOUT", "300"))
    try:
        r = subprocess.run([os.environ.get("FSCK", "../fsck/fsck.erofs")] +
                           args, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, b"", b"timeout\n"
    return r.returncode, r.stdout, r.stderr


def run_case(name, case, scratch):
    img = Image(stored_image_bytes("plain.erofs"))
    opts, setup, statuses, says = case(img)
    path = os.path.join(scratch, name + ".erofs")
    with open(path, "wb") as f:
        f.write(img.d)
    errors = []
    outputs = []
    for jobs in ("-j1", "-j4"):
        top = tempfile.mkdtemp(dir=scratch, prefix=name + ".")
        out = os.path.join(top, "out")
        if setup:
            setup(top, out)
        else:
            os.mkdir(out)
        make_bait(top)
        before = snapshot(top, "out")
        status, _, err = fsck([jobs, "--no-sbcrc", "--extract=" + out] +
                              opts + [path])
        text = err.decode(errors="replace")
        outputs.append(err)
        if status not in statuses:
            errors.append("%s: exit %d, expected %s" %
                          (jobs, status, sorted(statuses)))
        if re.search(r"Sanitizer|runtime error:", text):
            errors.append("%s: sanitizer report" % jobs)
        if says and not re.search(says, text):
            errors.append("%s: no message matching %r" % (jobs, says))
        if snapshot(top, "out") != before:
            errors.append("%s: changed outside DIR" % jobs)
        if not os.path.isdir(out) or os.path.islink(out):
            errors.append("%s: DIR is not a directory" % jobs)
        shutil.rmtree(top, ignore_errors=True)
    if outputs[0] != outputs[1]:
        errors.append("messages differ between -j1 and -j4")
    tap(not errors, name,
        errors + outputs[0].decode(errors="replace").splitlines()[:10])


def bad_data_block(data, scratch):
    """a data block of lz4hc-default whose damage hits one file"""
    bs = 4096
    path = os.path.join(scratch, "probe.erofs")
    for blk in range(len(data) // bs - 1, 0, -1):
        d = bytearray(data)
        d[blk * bs + 1024:blk * bs + 1088] = bytes(64)
        with open(path, "wb") as f:
            f.write(d)
        status, _, err = fsck(["-j1", "--extract", path])
        lines = without_notes(err.decode(errors="replace")).splitlines()
        if status == 4 and len(lines) == 2 and \
                re.match(r"fsck\.erofs: (/\S+): nid", lines[0]):
            return d, re.match(r"fsck\.erofs: /(\S+): nid",
                               lines[0]).group(1)
    return None, None


def run_bad_data(scratch):
    name = "bad-data"
    data, victim = bad_data_block(stored_image_bytes("lz4hc-default.erofs"), scratch)
    if data is None:
        tap(False, name + ": no damaged block found")
        return
    path = os.path.join(scratch, name + ".erofs")
    with open(path, "wb") as f:
        f.write(data)
    errors = []
    for jobs in ("-j1", "-j4"):
        out = tempfile.mkdtemp(dir=scratch, prefix=name + ".")
        status, _, err = fsck([jobs, "--extract=" + out, "--force",
                               "--no-preserve-owner", path])
        text = err.decode(errors="replace")
        if status & ~8 != 4:
            errors.append("%s: exit %d, expected 4" % (jobs, status))
        if victim not in text:
            errors.append("%s: %s not named" % (jobs, victim))
        if os.path.lexists(os.path.join(out, victim)):
            errors.append("%s: %s was left in DIR" % (jobs, victim))
        if not os.path.isfile(os.path.join(out, "sizes", "size-4096")):
            errors.append("%s: the other files are missing" % jobs)
        shutil.rmtree(out, ignore_errors=True)
    tap(not errors, "%s: %s reported and not left behind" % (name, victim),
        errors)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", help="keep the scratch directory here")
    ap.add_argument("pattern", nargs="?", default="")
    args = ap.parse_args()
    names = [n for n in list(CASES) + ["bad-data"] if args.pattern in n]
    scratch = args.keep or tempfile.mkdtemp(prefix="tmp.hostile.",
                                            dir=os.getcwd())
    os.makedirs(scratch, exist_ok=True)
    try:
        for name in names:
            if name == "bad-data":
                run_bad_data(scratch)
            else:
                run_case(name, CASES[name], scratch)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
