# SPDX-License-Identifier: MIT
"""erofsread.py - a stored image read and edited field by field, for the
tests that damage real images (tests/hardening/corrupt.py,
tests/extraction/salvage.py, tests/archives/tar-cases.py): its inodes,
directories and compressed maps as the variants need them
(docs/format.md), edits with the superblock checksum sealed again, and
the stored images loaded from tests/data or the unpacked ones."""
import struct

from erofstest import (SB, le16, le32, le64, round_up, seal_superblock,
                       stored_image_bytes)

SB_CHKSUM = 0x1
INCOMPAT_48BIT = 0x80
INCOMPAT_BIG_PCLUSTER = 0x2
FLAT_PLAIN, COMPRESSED_FULL, FLAT_INLINE, COMPRESSED_COMPACT = 0, 1, 2, 3
PLAIN, HEAD1, NONHEAD, HEAD2 = 0, 1, 2, 3
CBLKCNT = 0x800


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

    def lookup(self, path):
        """the inode at path (bytes, names apart by '/') from the root"""
        inode = self.root()
        for name in path.split(b"/"):
            inode = self.child(inode, name, path)
        return inode

    def child(self, inode, name, path):
        for block, maxsize in self.dir_blocks(inode):
            for ent in self.dirents(block, maxsize):
                if ent["name"] == name:
                    return Inode(self, ent["nid"])
        raise LookupError("%s: no /%s" % (self.name, path.decode()))


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


def edit(img, change, fix=True):
    """a copy of the image bytes with change(buf) applied"""
    buf = bytearray(img.data)
    change(buf)
    if fix:
        img.fix_checksum(buf)
    return bytes(buf)


def put(fmt, off, value):
    return lambda buf: struct.pack_into(fmt, buf, off, value)


def load(name):
    """the stored test image NAME.erofs"""
    return Image(name, stored_image_bytes(name + ".erofs"))
