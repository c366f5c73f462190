#!/usr/bin/env python3
"""corrupt.py - hostile-input tests of fsck.erofs (TAP).

usage: corrupt.py [--write DIR] [--list] [SUBSTRING]

Writes damaged variants of images from tests/data (a superblock field, the
root inode, a directory block, a compressed index, a pcluster's bytes, a
truncated image) and checks that fsck.erofs (with --extract where only the
data is damaged) exits with the expected code, says what is wrong and
neither crashes nor hangs, and that -j2 and -j8 (threads started, files
split into one-extent pieces) give the same exit status, standard output
and standard error as -j1. The superblock checksum is recomputed after each
change, so that damage past the superblock is not caught by the checksum
alone (except for the variants that test the checksum).

SUBSTRING runs only the variants whose name contains it; --list prints the
names; --write DIR also keeps every variant image in DIR.

Environment: FSCK (fsck.erofs to test), srcdir (tests/ sources),
EROFS_TEST_DATA (unpacked images, optional), FSCK_TIMEOUT_CORRUPT (seconds
per run, default 20).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import FSCK, SB, tap, tap_end, verdict  # noqa: E402
from erofsread import (  # noqa: E402
    NONHEAD, CBLKCNT, CompressedMap, edit, put, load)

# What the output must mention for each kind of damage.
SAYS_SUPERBLOCK = r"superblock|magic|block ?size|blkszbits|feature|checksum|crc"
SAYS_CHECKSUM = r"checksum|crc"
SAYS_NID = r"nid"
SAYS_ANYTHING = r"\S"

CORRUPT = {4}
CORRUPT_OR_UNREADABLE = {4, 8}


class Variant:
    def __init__(self, name, data, expect, says, extract=False, opts=()):
        self.name = name
        self.data = data
        self.expect = expect
        self.says = says
        self.extract = extract
        self.opts = list(opts)


def superblock_variants(img):
    def xor(off, mask):
        def change(buf):
            buf[off] ^= mask
        return change

    # a byte the checksum covers but nothing else checks: the UUID
    uuid = SB + 48
    yield Variant("sb-magic", edit(img, xor(SB, 0xFF)),
                  CORRUPT_OR_UNREADABLE, SAYS_SUPERBLOCK)
    for bits in (8, 17):
        yield Variant("sb-blkszbits-%d" % bits,
                      edit(img, put("<B", SB + 12, bits)),
                      CORRUPT_OR_UNREADABLE, SAYS_SUPERBLOCK)
    yield Variant("sb-incompat-unknown",
                  edit(img, put("<I", SB + 80, img.incompat | 0x200)),
                  CORRUPT_OR_UNREADABLE, r"feature|incompat")
    yield Variant("sb-checksum-field", edit(img, xor(SB + 4, 0x01), False),
                  CORRUPT_OR_UNREADABLE, SAYS_CHECKSUM)
    yield Variant("sb-checksum-covered-byte",
                  edit(img, xor(uuid, 0x5A), False),
                  CORRUPT_OR_UNREADABLE, SAYS_CHECKSUM)
    yield Variant("sb-checksum-covered-byte-no-sbcrc",
                  edit(img, xor(uuid, 0x5A), False), {0}, None,
                  opts=["--no-sbcrc"])


def root_inode_variants(img):
    root = img.root()
    pos = root.pos
    layout = put("<H", pos, root.format & ~0xE | 6 << 1)
    yield Variant("root-layout-6", edit(img, layout),
                  CORRUPT_OR_UNREADABLE, SAYS_NID)
    yield Variant("root-format-reserved-bit",
                  edit(img, put("<H", pos, root.format | 0x20)),
                  CORRUPT_OR_UNREADABLE, SAYS_NID)
    yield Variant("root-mode-regular",
                  edit(img, put("<H", pos + 4, 0o100644)),
                  CORRUPT, r"nid|root")
    yield Variant("root-mode-no-type",
                  edit(img, put("<H", pos + 4, 0o000755)),
                  CORRUPT, SAYS_NID)
    huge = put("<Q", pos + 8, 1 << 40) if root.extended else \
        put("<I", pos + 8, 0xFFFFF000)
    yield Variant("root-size-huge", edit(img, huge), CORRUPT, SAYS_NID)
    zero = put("<Q" if root.extended else "<I", pos + 8, 0)
    yield Variant("root-size-zero", edit(img, zero), CORRUPT, SAYS_NID)


def directory_variants(img):
    block, ents = img.root_entries()
    dots = (b".", b"..")
    first = ents[0]
    yield Variant("dir-nameoff0-zero",
                  edit(img, put("<H", first["pos"] + 8, 0)), CORRUPT, SAYS_NID)
    yield Variant("dir-nameoff0-unaligned",
                  edit(img, put("<H", first["pos"] + 8, first["nameoff"] + 1)),
                  CORRUPT, SAYS_NID)
    yield Variant("dir-nameoff0-beyond-block",
                  edit(img, put("<H", first["pos"] + 8, 0xFFF0)),
                  CORRUPT, SAYS_NID)
    yield Variant("dir-nameoff-decreasing",
                  edit(img, put("<H", ents[2]["pos"] + 8,
                                ents[1]["nameoff"] - 1)),
                  CORRUPT, SAYS_NID)

    plain = [i for i, e in enumerate(ents[:-1])
             if e["name"] not in dots and len(e["name"]) >= 3 and
             ents[i + 1]["name"] not in dots and ents[i + 1]["name"][0] < 0x7E]
    victim = ents[plain[0]]
    name_at = block + victim["nameoff"]
    yield Variant("dir-name-slash", edit(img, put("<B", name_at + 1, 0x2F)),
                  CORRUPT, SAYS_NID)
    yield Variant("dir-name-nul", edit(img, put("<B", name_at + 1, 0)),
                  CORRUPT, SAYS_NID)
    yield Variant("dir-name-order", edit(img, put("<B", name_at, 0x7E)),
                  CORRUPT, SAYS_NID)
    yield Variant("dir-file-type-9",
                  edit(img, put("<B", victim["pos"] + 10, 9)),
                  CORRUPT, SAYS_NID)
    regular = next(e for e in ents if e["ftype"] == 1)
    yield Variant("dir-file-type-mismatch",
                  edit(img, put("<B", regular["pos"] + 10, 2)),
                  CORRUPT, SAYS_NID)
    beyond = len(img.data) // 32 + 4096
    yield Variant("dir-nid-beyond-image",
                  edit(img, put("<Q", victim["pos"], beyond)),
                  CORRUPT_OR_UNREADABLE, SAYS_NID)
    dotdot = next(e for e in ents if e["name"] == b"..")
    yield Variant("dir-dotdot-to-file",
                  edit(img, put("<Q", dotdot["pos"], regular["nid"])),
                  CORRUPT, SAYS_NID)
    subdir = next(e for e in ents if e["ftype"] == 2 and e["name"] not in dots)
    yield Variant("dir-subdir-is-root",
                  edit(img, put("<Q", subdir["pos"], img.root_nid)),
                  CORRUPT, SAYS_NID)


def index_variants(img):
    zmap = CompressedMap(img, img.lookup(b"mixed.bin"))
    head, _ = zmap.compressed_head()
    nonhead = zmap.nonhead(after=head + 1)
    kind = "compact" if zmap.compact else "full"

    def nonhead_at(i, lo):
        if zmap.compact:
            return lambda buf: zmap.set_entry(buf, i, NONHEAD, lo)
        return lambda buf: zmap.set_full(buf, i, typ=NONHEAD, delta0=lo)

    def variant(what, change, expect=CORRUPT):
        return Variant("%s-index-%s" % (kind, what), edit(img, change),
                       expect, SAYS_NID)

    yield variant("first-nonhead", nonhead_at(0, 1))
    yield variant("lookback-0", nonhead_at(nonhead, 0))
    yield variant("lookback-before-start", nonhead_at(nonhead, nonhead + 5))
    if zmap.big:
        yield variant("cblkcnt-2047", nonhead_at(zmap.cblkcnt(),
                                                 CBLKCNT | 0x7FF))
    else:
        yield variant("cblkcnt-without-big-pcluster",
                      nonhead_at(nonhead, CBLKCNT | 1))
    if zmap.compact:
        pack, size, _, _ = zmap.locate(head)
        far = put("<I", pack + size - 4, 0xFFFFFF00)
    else:
        far = lambda buf: zmap.set_full(buf, head, blkaddr=0xFFFFFF00)
        yield variant("clusterofs-beyond-lcluster",
                      lambda buf: zmap.set_full(buf, head, clusterofs=0xFFFF))
    yield variant("blkaddr-beyond-image", far)
    other = 3 if zmap.algorithms & 0xF != 3 else 0
    yield variant("algorithm-not-enabled",
                  put("<B", zmap.hpos + 6, zmap.algorithms & 0xF0 | other),
                  CORRUPT_OR_UNREADABLE)


def data_variants(img):
    zmap = CompressedMap(img, img.lookup(b"mixed.bin"))
    head, blkaddr = zmap.compressed_head()
    start = blkaddr * img.bs
    length = zmap.pcluster_blocks(head) * img.bs

    def fill(byte):
        def change(buf):
            buf[start:start + length] = bytes([byte]) * length
        return change

    yield Variant("pcluster-filled-ff", edit(img, fill(0xFF)), CORRUPT,
                  SAYS_NID, extract=True)
    yield Variant("pcluster-zeroed", edit(img, fill(0x00)), CORRUPT,
                  SAYS_NID, extract=True)


def truncation_variants(img):
    size = len(img.data)
    cuts = sorted({0, 512, SB, SB + 64, SB + 128, img.bs, 2 * img.bs,
                   size // 2, size - img.bs, size - 1})
    for cut in cuts:
        yield Variant("truncated-%d" % cut, img.data[:cut],
                      CORRUPT_OR_UNREADABLE, SAYS_ANYTHING)


PLAN = [
    ("lz4hc-default", (superblock_variants, root_inode_variants,
                       directory_variants, index_variants, data_variants,
                       truncation_variants)),
    ("plain", (superblock_variants, root_inode_variants,
               directory_variants, truncation_variants)),
    ("lz4hc-b512", (superblock_variants, root_inode_variants,
                    directory_variants, index_variants, truncation_variants)),
    ("lz4hc-legacy", (index_variants, data_variants)),
    ("lz4hc-c64k", (index_variants, data_variants)),
    ("lz4hc-c64k-legacy", (index_variants, data_variants)),
    ("zstd-default", (index_variants, data_variants)),
    ("lzma-default", (data_variants,)),
    ("deflate-default", (data_variants,)),
    ("plain-b512-chunk64k-48bit", (root_inode_variants, directory_variants)),
]


# -j2 and -j8 must find what -j1 finds: threads started whatever the
# image's size, every decoded file split into one-extent pieces
THREADED_ENV = dict(os.environ, EROFS_FSCK_SYNC_NS="0", EROFS_FSCK_SPLIT="1")


def run(fsck, path, variant, timeout):
    """None if the run behaved, else a list of complaint lines"""
    args = [fsck] + variant.opts + (["--extract"] if variant.extract else [])
    try:
        proc = subprocess.run(args + ["-j1", path], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ["hang: no exit after %d s" % timeout]
    out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    problems = verdict(proc.returncode, out, variant.expect, variant.says)
    if not problems:
        problems = same_with_threads(args, path, proc, timeout)
    if problems:
        problems.append("command: %s" % " ".join(args + ["-j1", path]))
        problems += ["output: " + line for line in out.splitlines()[:15]]
    return problems or None


def same_with_threads(args, path, single, timeout):
    """complaints where -j2 or -j8 differs from the -j1 run single"""
    for jobs in (2, 8):
        try:
            proc = subprocess.run(args + ["-j%d" % jobs, path],
                                  stdin=subprocess.DEVNULL, env=THREADED_ENV,
                                  capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ["-j%d: hang: no exit after %d s" % (jobs, timeout)]
        for what, a, b in (("exit status", single.returncode, proc.returncode),
                           ("stdout", single.stdout, proc.stdout),
                           ("stderr", single.stderr, proc.stderr)):
            if a != b:
                text = b.decode("utf-8", "replace") if what == "stderr" \
                    else str(b)
                return ["-j%d: %s differs from -j1's" % (jobs, what)] + [
                    "-j%d %s: %s" % (jobs, what, line)
                    for line in text.splitlines()[:15]]
    return []


def variants(pattern):
    for image, makers in PLAN:
        img = load(image)
        for maker in makers:
            try:
                for v in maker(img):
                    v.name = "%s: %s" % (image, v.name)
                    if pattern in v.name:
                        yield v
            except (LookupError, IndexError, StopIteration) as e:
                yield Variant("%s: %s" % (image, maker.__name__), None,
                              None, None)
                print("# cannot build %s for %s: %s" % (
                    maker.__name__, image, e))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pattern", nargs="?", default="")
    ap.add_argument("--write", metavar="DIR")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    timeout = int(os.environ.get("FSCK_TIMEOUT_CORRUPT", "20"))

    todo = list(variants(args.pattern))
    if args.list:
        for v in todo:
            print(v.name)
        return 0
    with tempfile.TemporaryDirectory(prefix="tmp.corrupt.", dir=".") as tmp:
        for v in todo:
            if v.data is None:
                tap(False, "%s: variant could not be built" % v.name)
                continue
            name = re.sub(r"[^A-Za-z0-9._-]+", "-", v.name) + ".erofs"
            where = args.write or tmp
            if args.write:
                os.makedirs(args.write, exist_ok=True)
            path = os.path.join(where, name)
            with open(path, "wb") as f:
                f.write(v.data)
            problems = run(FSCK, path, v, timeout)
            mode = " (--extract)" if v.extract else ""
            tap(not problems, v.name + mode, problems)
            if not args.write:
                os.unlink(path)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
