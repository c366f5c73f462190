# SPDX-License-Identifier: MIT
"""erofsbuild.py - EROFS images built from scratch, field by field, for
the tests that need layouts no mkfs writes (tests/hardening/hostile.py,
tests/fuzz/craft-seeds.py, tests/hardening/interrupt.sh through
hostile.py): the on-disk constants (docs/format.md), an image under
construction (Image), directory blocks, and LZ4 blocks written by hand."""
import struct

from erofstest import SB, seal_superblock

BS = 4096
MAGIC = 0xE0F5E1E2
COMPAT_SB_CHKSUM, COMPAT_MTIME = 0x1, 0x2
INCOMPAT_0PADDING, INCOMPAT_BIG_PCLUSTER = 0x1, 0x2
INCOMPAT_CHUNKED = 0x4
INCOMPAT_FRAGMENTS = 0x20
INCOMPAT_48BIT = 0x80
INCOMPAT_METABOX = 0x100
FRAGMENT_INODE_BIT = 1 << 63
ADVISE_EXTENTS, ADVISE_FRAGMENT = 0x1, 0x20
FLAT_PLAIN, COMPRESSED_FULL, FLAT_INLINE = 0, 1, 2
COMPRESSED_COMPACT, CHUNK_BASED = 3, 4
S_IFDIR, S_IFREG, S_IFLNK = 0o040000, 0o100000, 0o120000
FT_REG, FT_DIR, FT_LNK = 1, 2, 7
PLAIN, HEAD1, NONHEAD = 0, 1, 2
CBLKCNT = 0x800
HOLE32 = 0xFFFFFFFF


class Image:
    """An image under construction: block 0 holds the superblock, blocks
    1 .. meta_blocks the metadata area (meta_blkaddr 1), then data blocks.
    Inodes are placed first (reserve), filled in later (inode), so that
    directories can name inodes placed after them."""

    def __init__(self, meta_blocks=1):
        self.meta_blocks = meta_blocks
        self.meta = bytearray(meta_blocks * BS)
        self.next_slot = 0
        self.data = []
        self.sb = {}
        self.incompat = 0
        self.inos = 0
        self.after_sb = b""     # compression configuration records

    def reserve(self, nbytes):
        """nid of nbytes of metadata, in one block if they fit in one (an
        inode with its inline tail)"""
        pos = self.next_slot * 32
        if nbytes <= BS and pos // BS != (pos + nbytes - 1) // BS:
            pos = (pos // BS + 1) * BS
        end = pos + nbytes
        if end > len(self.meta):
            raise ValueError("metadata area too small")
        self.next_slot = (end + 31) // 32
        self.inos += 1
        return pos // 32

    def data_block(self, content=b""):
        """block address of a new data block"""
        self.data.append(bytes(content).ljust(BS, b"\0")[:BS])
        return 1 + self.meta_blocks + len(self.data) - 1

    def past_end(self, n=1000):
        """a block address n blocks past the end of the finished image"""
        return 1 + self.meta_blocks + len(self.data) + n

    def put(self, nid, off, raw):
        pos = nid * 32 + off
        self.meta[pos:pos + len(raw)] = raw

    def inode(self, nid, mode, size, layout, u=0, nlink=1, extended=False,
              nb=None, xattr_icount=0, fmt_bits=0, mtime=1700000000):
        """mtime: an extended inode's; a compact one's is the epoch"""
        fmt = (1 if extended else 0) | layout << 1 | fmt_bits
        if extended:
            raw = struct.pack("<HHHHQIIIIqII16x", fmt, xattr_icount, mode,
                              nb or 0, size, u, self.inos, 0, 0,
                              mtime, 0, nlink)
        else:
            raw = struct.pack("<HHHHIIIIHH4x", fmt, xattr_icount, mode,
                              nlink if nb is None else nb, size, 0, u,
                              self.inos, 0, 0)
        self.put(nid, 0, raw)
        return nid * 32 + len(raw)

    def dir_inline(self, nid, entries, nlink=2):
        """a FLAT_INLINE directory of one block at nid (reserved with
        dir_size(entries))"""
        block = dir_block(entries)
        end = self.inode(nid, S_IFDIR | 0o755, len(block), FLAT_INLINE,
                         u=HOLE32, nlink=nlink)
        self.meta[end:end + len(block)] = block

    def finish(self, root_nid, blocks=None):
        sb = bytearray(BS)
        nblocks = 1 + self.meta_blocks + len(self.data)
        fields = {
            "magic": (0, "<I", MAGIC),
            "compat": (8, "<I", COMPAT_SB_CHKSUM | COMPAT_MTIME),
            "blkszbits": (12, "<B", 12),
            "root_nid": (14, "<H", root_nid),
            "inos": (16, "<Q", self.inos),
            "epoch": (24, "<q", 1700000000),
            "blocks": (36, "<I", nblocks if blocks is None else blocks),
            "meta_blkaddr": (40, "<I", 1),
            "xattr_blkaddr": (44, "<I", 0),
            "incompat": (80, "<I", self.incompat),
            "packed_nid": (96, "<Q", 0),
            "compr_algs": (84, "<H", 0),
            "extslots": (13, "<B", 0),
            "root8": (112, "<Q", 0),
            "metabox_nid": (128, "<Q", 0),
            "prefix_count": (91, "<B", 0),
            "prefix_start": (92, "<I", 0),
            "extra_devices": (86, "<H", 0),
            "devt_slotoff": (88, "<H", 0),
        }
        for name, value in self.sb.items():
            off, fmt, _ = fields[name]
            fields[name] = (off, fmt, value)
        for off, fmt, value in fields.values():
            struct.pack_into(fmt, sb, SB + off, value)
        pos = SB + 128 + 16 * self.sb.get("extslots", 0)
        sb[pos:pos + len(self.after_sb)] = self.after_sb
        seal_superblock(sb, BS)
        return bytes(sb) + bytes(self.meta) + b"".join(self.data)


def dir_block(entries):
    """one directory block: entries are (name, nid, file type)"""
    entries = sorted(entries, key=lambda e: e[0])
    nameoff = 12 * len(entries)
    heads, names = b"", b""
    for name, nid, ftype in entries:
        heads += struct.pack("<QHBx", nid, nameoff + len(names), ftype)
        names += name
    return heads + names


def dir_size(entries, extended=False):
    return (64 if extended else 32) + len(dir_block(entries))


def root_with(img, kids, nlink=2):
    """the root directory (reserved first, nid returned) holding kids:
    a list of (name, metadata size, file type); returns root nid
    and the kids' nids"""
    names = [(k[0], 0, k[2]) for k in kids]
    root = img.reserve(dir_size(names + [(b".", 0, FT_DIR),
                                         (b"..", 0, FT_DIR)]))
    nids = [img.reserve(k[1]) for k in kids]
    entries = [(b".", root, FT_DIR), (b"..", root, FT_DIR)]
    entries += [(k[0], nid, k[2]) for k, nid in zip(kids, nids)]
    img.dir_inline(root, entries, nlink=nlink)
    return root, nids


def lz4_literals(data):
    """an LZ4 block made of literals only"""
    n = len(data)
    if n < 15:
        return bytes([n << 4]) + data
    out = bytearray([0xF0])
    rest = n - 15
    while rest >= 255:
        out.append(255)
        rest -= 255
    out.append(rest)
    return bytes(out) + data


def lz4_run(n):
    """an LZ4 block decoding to n bytes "a" (n >= 13): a literal, a match
    at distance 1, five closing literals"""
    match = n - 6 - 4
    token = bytes([0x10 | min(match, 15)])
    out = token + b"a" + struct.pack("<H", 1)
    if match >= 15:
        rest = match - 15
        out += b"\xff" * (rest // 255) + bytes([rest % 255])
    return out + bytes([0x50]) + b"aaaaa"
