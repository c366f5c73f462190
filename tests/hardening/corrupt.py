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
import lzma
import os
import re
import struct
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import SB, le16, le32, le64, round_up, seal_superblock, tap, \
    tap_end, verdict

SB_CHKSUM = 0x1
INCOMPAT_48BIT = 0x80
INCOMPAT_BIG_PCLUSTER = 0x2
FLAT_PLAIN, COMPRESSED_FULL, FLAT_INLINE, COMPRESSED_COMPACT = 0, 1, 2, 3
PLAIN, HEAD1, NONHEAD, HEAD2 = 0, 1, 2, 3
CBLKCNT = 0x800

# What the output must mention for each kind of damage.
SAYS_SUPERBLOCK = r"superblock|magic|block ?size|blkszbits|feature|checksum|crc"
SAYS_CHECKSUM = r"checksum|crc"
SAYS_NID = r"nid"
SAYS_ANYTHING = r"\S"

CORRUPT = {4}
CORRUPT_OR_UNREADABLE = {4, 8}


class Inode:
    """the fields of an on-disk inode the variants need"""

    def __init__(self, img, nid):
        buf = img.data
        self.nid = nid
        self.pos = img.meta_blkaddr * img.bs + nid * 32
        fmt = le16(buf, self.pos)
        self.format = fmt
        self.extended = fmt & 1
        self.layout = (fmt >> 1) & 7
        self.mode = le16(buf, self.pos + 4)
        nb = le16(buf, self.pos + 6)
        is_dir = self.mode & 0xF000 == 0x4000
        if self.extended:
            self.isize = 64
            self.size = le64(buf, self.pos + 8)
            hi = nb
        else:
            self.isize = 32
            self.size = le32(buf, self.pos + 8)
            hi = nb if fmt & 0x10 and not is_dir else 0
        self.startblk = le32(buf, self.pos + 16) | hi << 32
        icount = le16(buf, self.pos + 2)
        xattr_isize = 12 + 4 * (icount - 1) if icount else 0
        self.mend = self.pos + self.isize + xattr_isize


class Image:
    """an unpacked test image and what the variants locate in it"""

    def __init__(self, name, data):
        self.name = name
        self.data = bytes(data)
        sb = self.data[SB:SB + 144]
        self.compat = le32(sb, 8)
        self.blkszbits = sb[12]
        self.bs = 1 << self.blkszbits
        self.meta_blkaddr = le32(sb, 40)
        self.incompat = le32(sb, 80)
        root = le16(sb, 14)
        if self.incompat & INCOMPAT_48BIT and le64(sb, 112):
            root = le64(sb, 112)
        self.root_nid = root

    def fix_checksum(self, buf):
        if not self.compat & SB_CHKSUM:
            return
        seal_superblock(buf, self.bs)

    def dir_blocks(self, inode):
        """(abs offset, usable size) of each block of a flat directory"""
        blocks = []
        nblocks = (inode.size + self.bs - 1) // self.bs
        for i in range(nblocks):
            maxsize = min(self.bs, inode.size - i * self.bs)
            if (inode.layout == FLAT_INLINE and i == nblocks - 1 and
                    inode.size % self.bs):
                blocks.append((inode.mend, maxsize))
            else:
                blocks.append(((inode.startblk + i) * self.bs, maxsize))
        return blocks

    def dirents(self, block, maxsize):
        """dirents of one directory block: dicts with pos, nid, name..."""
        buf = self.data
        count = le16(buf, block + 8) // 12
        ents = []
        for i in range(count):
            pos = block + 12 * i
            nameoff = le16(buf, pos + 8)
            if i + 1 < count:
                end = le16(buf, pos + 20)
            else:
                end = nameoff
                while end < maxsize and buf[block + end]:
                    end += 1
            ents.append({"pos": pos, "nid": le64(buf, pos),
                         "nameoff": nameoff, "ftype": buf[pos + 10],
                         "name": buf[block + nameoff:block + end]})
        return ents

    def root(self):
        return Inode(self, self.root_nid)

    def root_entries(self):
        block, maxsize = self.dir_blocks(self.root())[0]
        return block, self.dirents(block, maxsize)

    def lookup(self, name):
        for block, maxsize in self.dir_blocks(self.root()):
            for ent in self.dirents(block, maxsize):
                if ent["name"] == name:
                    return Inode(self, ent["nid"])
        raise LookupError("%s: no /%s" % (self.name, name.decode()))


class CompressedMap:
    """lcluster index of a compressed inode (format.md, "Map header",
    "Full indexes", "Compact indexes")"""

    def __init__(self, img, inode):
        self.img = img
        self.inode = inode
        buf = img.data
        self.hpos = round_up(inode.mend, 8)
        self.advise = le16(buf, self.hpos + 4)
        self.algorithms = buf[self.hpos + 6]
        self.lclusterbits = img.blkszbits + (buf[self.hpos + 7] & 15)
        self.total = -(-inode.size // (1 << self.lclusterbits))
        self.compact = inode.layout == COMPRESSED_COMPACT
        self.big = self.advise & 0x6 != 0
        if self.compact:
            self.ebase = self.hpos + 8
            self.init4 = ((32 - self.ebase % 32) // 4) & 7
            self.n2 = 0
            if self.advise & 1 and self.init4 < self.total:
                self.n2 = (self.total - self.init4) // 16 * 16

    # full indexes: 8-byte records
    def record(self, k):
        return self.hpos + 16 + 8 * k

    def full_type(self, k):
        return le16(self.img.data, self.record(k)) & 3

    # compact indexes: packs of 2 x 16 bits or 16 x 14 bits
    def locate(self, i):
        """(pack start, pack size, bits per entry, entry number in pack)"""
        if i < self.init4:
            pos, size, bits = self.ebase + 4 * i, 8, 16
        elif i < self.init4 + self.n2:
            pos = self.ebase + 4 * self.init4 + 2 * (i - self.init4)
            size, bits = 32, 14
        else:
            pos = (self.ebase + 4 * self.init4 + 2 * self.n2 +
                   4 * (i - self.init4 - self.n2))
            size, bits = 8, 16
        pack = pos - pos % size
        return pack, size, bits, (pos - pack) // (4 if bits == 16 else 2)

    def lobits(self):
        return max(self.lclusterbits, 12)

    def entry(self, i, buf=None):
        """(type, lo) of compact entry i"""
        buf = self.img.data if buf is None else buf
        pack, _, bits, j = self.locate(i)
        word = le32(buf, pack + j * bits // 8) >> (j * bits % 8)
        lobits = self.lobits()
        return (word >> lobits) & 3, word & ((1 << lobits) - 1)

    def set_entry(self, buf, i, typ, lo):
        pack, _, bits, j = self.locate(i)
        off = pack + j * bits // 8
        shift = j * bits % 8
        lobits = self.lobits()
        mask = ((1 << (lobits + 2)) - 1) << shift
        word = le32(buf, off) & ~mask
        word |= ((typ << lobits) | (lo & ((1 << lobits) - 1))) << shift
        struct.pack_into("<I", buf, off, word)

    def compact_blkaddr(self, i):
        """first block of the pcluster whose HEAD is compact entry i"""
        pack, size, bits, j = self.locate(i)
        base = le32(self.img.data, pack + size - 4)
        first = i - j
        t = j - 1
        count = 0
        while t >= 0:
            typ, lo = self.entry(first + t)
            if typ == NONHEAD and self.big:
                if lo & CBLKCNT:
                    count += lo & 0x7FF
                    t -= 2
                elif lo >= 2:
                    t -= lo - 1
                else:
                    raise LookupError("lookback distance below 2")
            elif typ == NONHEAD:
                if lo < 1:
                    raise LookupError("lookback distance 0")
                t -= lo
            else:
                count += 1
                t -= 1
        return base + count if self.big else base + 1 + count

    def types(self):
        if self.compact:
            return [self.entry(i)[0] for i in range(self.total)]
        return [self.full_type(k) for k in range(self.total)]

    def compressed_head(self):
        """index and first block of the first compressed (HEAD1) pcluster"""
        for i, typ in enumerate(self.types()):
            if typ != HEAD1:
                continue
            if self.compact:
                return i, self.compact_blkaddr(i)
            return i, le32(self.img.data, self.record(i) + 4)
        raise LookupError("%s: no compressed pcluster" % self.img.name)

    def nonhead(self, after=1):
        """an lcluster that is NONHEAD, no CBLKCNT, not last in its pack"""
        for i, typ in enumerate(self.types()):
            if i < after or typ != NONHEAD:
                continue
            if not self.compact:
                if not le16(self.img.data, self.record(i) + 4) & CBLKCNT:
                    return i
                continue
            _, _, bits, j = self.locate(i)
            last = j == (16 if bits == 14 else 2) - 1
            if not last and not self.entry(i)[1] & CBLKCNT:
                return i
        raise LookupError("%s: no plain NONHEAD lcluster" % self.img.name)

    def pcluster_blocks(self, i):
        """blocks of the pcluster whose HEAD is lcluster i"""
        if not self.big or i + 1 >= self.total:
            return 1
        if self.compact:
            typ, lo = self.entry(i + 1)
        else:
            typ = self.full_type(i + 1)
            lo = le16(self.img.data, self.record(i + 1) + 4)
        return lo & 0x7FF if typ == NONHEAD and lo & CBLKCNT else 1

    def set_full(self, buf, k, typ=None, clusterofs=None, blkaddr=None,
                 delta0=None):
        pos = self.record(k)
        if typ is not None:
            struct.pack_into("<H", buf, pos, le16(buf, pos) & ~3 | typ)
        if clusterofs is not None:
            struct.pack_into("<H", buf, pos + 2, clusterofs)
        if blkaddr is not None:
            struct.pack_into("<I", buf, pos + 4, blkaddr)
        if delta0 is not None:
            struct.pack_into("<H", buf, pos + 4, delta0)

    def cblkcnt(self):
        """an lcluster holding a pcluster size (CBLKCNT)"""
        for i, typ in enumerate(self.types()):
            if typ != NONHEAD:
                continue
            if self.compact:
                lo = self.entry(i)[1]
            else:
                lo = le16(self.img.data, self.record(i) + 4)
            if lo & CBLKCNT:
                return i
        raise LookupError("%s: no CBLKCNT lcluster" % self.img.name)


class Variant:
    def __init__(self, name, data, expect, says, extract=False, opts=()):
        self.name = name
        self.data = data
        self.expect = expect
        self.says = says
        self.extract = extract
        self.opts = list(opts)


def edit(img, change, fix=True):
    """a copy of the image bytes with change(buf) applied"""
    buf = bytearray(img.data)
    change(buf)
    if fix:
        img.fix_checksum(buf)
    return bytes(buf)


def put(fmt, off, value):
    return lambda buf: struct.pack_into(fmt, buf, off, value)


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


def load(datadir, name):
    """the image, unpacked by make check (EROFS_TEST_DATA) or from data/"""
    unpacked = os.path.join(os.environ.get("EROFS_TEST_DATA", "/nonexistent"),
                            name + ".erofs")
    if os.path.exists(unpacked):
        with open(unpacked, "rb") as f:
            return Image(name, f.read())
    with lzma.open(os.path.join(datadir, name + ".erofs.xz")) as f:
        return Image(name, f.read())


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


def variants(datadir, pattern):
    for image, makers in PLAN:
        img = load(datadir, image)
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
    srcdir = os.environ.get("srcdir", TESTS)
    datadir = os.path.join(srcdir, "data")
    fsck = os.environ.get("FSCK", "../fsck/fsck.erofs")
    timeout = int(os.environ.get("FSCK_TIMEOUT_CORRUPT", "20"))

    todo = list(variants(datadir, args.pattern))
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
            problems = run(fsck, path, v, timeout)
            mode = " (--extract)" if v.extract else ""
            tap(not problems, v.name + mode, problems)
            if not args.write:
                os.unlink(path)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
