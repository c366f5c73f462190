#!/usr/bin/env python3
"""hostile.py - resource bounds of fsck.erofs on hostile images (TAP).

usage: hostile.py [--write DIR] [--list] [SUBSTRING]

Builds small images from scratch (docs/format.md: the
superblock, inodes, data layouts, directories, xattrs, compressed files),
each claiming something huge or impossible: a directory tree 100,000
levels deep, directories and files of terabytes, compressed extents of
gigabytes, lcluster indexes that loop, xattr counts past the inode,
symlink targets past 4 KiB, block addresses past the end of the image.
Each run of fsck.erofs (with --extract, so that all data is decoded) must
exit with the expected code (4: corruption), say what is wrong, end within
FSCK_TIMEOUT_HOSTILE seconds (default 20) and stay within RLIMIT_AS
HOSTILE_AS_MIB MiB (default 512). The address space limit is not set for a
build with AddressSanitizer, whose shadow memory needs terabytes of address
space; the time limit still holds there.

SUBSTRING runs only the cases whose name contains it; --list prints the
names; --write DIR also keeps every image in DIR.

Environment: FSCK (fsck.erofs to test), srcdir (tests/ sources),
HOSTILE_TIME_SCALE (multiplies every time limit, for slow runs such as
valgrind's), HOSTILE_SKIP_TODO (skip the cases of known problems).
"""
import argparse
import os
import re
import resource
import struct
import subprocess
import sys
import tempfile
import time

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import tap, tap_end, verdict  # noqa: E402
from erofsbuild import (  # noqa: E402
    BS, INCOMPAT_0PADDING, INCOMPAT_BIG_PCLUSTER, INCOMPAT_CHUNKED,
    INCOMPAT_FRAGMENTS, INCOMPAT_48BIT, INCOMPAT_METABOX,
    FRAGMENT_INODE_BIT, ADVISE_EXTENTS, FLAT_PLAIN, COMPRESSED_FULL,
    FLAT_INLINE, COMPRESSED_COMPACT, CHUNK_BASED, S_IFDIR, S_IFREG,
    S_IFLNK, FT_REG, FT_DIR, FT_LNK, PLAIN, HEAD1, NONHEAD, CBLKCNT,
    HOLE32, Image, dir_block, dir_size, root_with, lz4_literals, lz4_run)

CORRUPT = {4}

SAYS_PAST_END = r"past the end|beyond|truncated|outside"




class Case:
    """todo: a known problem (TAP TODO: an expected failure, and a pass
    that counts as a failure until the TODO goes)"""

    def __init__(self, name, data, says, expect=CORRUPT, opts=("--extract",),
                 timeout=None, todo=None, decoded_max=None):
        self.name = name
        self.todo = todo
        self.data = data
        self.says = says
        self.expect = expect
        self.opts = list(opts)
        self.timeout = timeout
        # the packed inode's bytes decoded (-d3), at most this many times
        # over: the work counted rather than timed
        self.decoded_max = decoded_max


# ---------------------------------------------------------------- trees

def deep_tree(levels):
    """root/d/d/d/... levels directories deep, each a FLAT_INLINE
    directory of ".", ".." and "d" beside its inode"""
    size = dir_size([(b".", 0, 2), (b"..", 0, 2), (b"d", 0, 2)])
    per_block = BS // ((size + 31) // 32 * 32)
    img = Image(meta_blocks=(levels + 1) // per_block + 2)
    nids = [img.reserve(size) for _ in range(levels + 1)]
    for i, nid in enumerate(nids):
        parent = nids[i - 1] if i else nid
        entries = [(b".", nid, FT_DIR), (b"..", parent, FT_DIR)]
        if i < levels:
            entries.append((b"d", nids[i + 1], FT_DIR))
        img.dir_inline(nid, entries, nlink=3 if i < levels else 2)
    return img.finish(nids[0])


def tree_cases():
    deep = deep_tree(100000)
    yield Case("directory tree 100000 levels deep", deep,
               r"nested deeper than 4096 levels")
    yield Case("--path 5000 levels down a tree 100000 levels deep", deep,
               r"nested deeper than 4096 levels",
               opts=("--extract", "--path=" + "/d" * 5000))
    yield Case("directory tree 4096 levels deep (the limit)",
               deep_tree(4096), None, expect={0})
    yield Case("directory tree 4097 levels deep", deep_tree(4097),
               r"nested deeper than 4096 levels")

    img = Image()
    root, (loop,) = root_with(img, [(b"loop", 32 + 60, FT_DIR)], nlink=3)
    img.dir_inline(loop, [(b".", loop, FT_DIR), (b"..", root, FT_DIR),
                          (b"up", root, FT_DIR)], nlink=3)
    yield Case("directory loop back to the root", img.finish(root),
               r"loop|cycle|more than once|already|again|link")


# ------------------------------------------------------------ directories

def huge_dir(size, startblk, extended=True, incompat=0):
    img = Image()
    img.incompat = incompat
    root, (big,) = root_with(img, [(b"big", 64, FT_DIR)], nlink=3)
    if startblk is None:
        startblk = img.data_block(dir_block([(b".", big, FT_DIR),
                                             (b"..", root, FT_DIR)]))
    img.inode(big, S_IFDIR | 0o755, size, FLAT_PLAIN, u=startblk & HOLE32,
              nb=startblk >> 32, nlink=2, extended=extended)
    return img.finish(root)


def dir_cases():
    yield Case("directory of 1 TiB (billions of entries), blocks past the end",
               huge_dir(1 << 40, None), SAYS_PAST_END)
    yield Case("directory of 4 GiB - 1 in a compact inode",
               huge_dir(0xFFFFFFFF, None, extended=False), SAYS_PAST_END)
    yield Case("directory of 1 TiB of holes",
               huge_dir(1 << 40, 0xFFFFFFFFFFFF, incompat=INCOMPAT_48BIT),
               r"director|hole|size")
    yield Case("directory of 2^63 - 1 bytes",
               huge_dir((1 << 63) - 1, None), r"size|past the end|beyond")
    yield Case("directory of 2^64 - 1 bytes",
               huge_dir((1 << 64) - 1, None), r"size|past the end|beyond")


# ------------------------------------------------------------------ files

def one_file(mode, size, layout, u=0, nb=None, extended=True, meta=b"",
             xattr_icount=0, blocks=(), incompat=0, ftype=FT_REG,
             meta_size=None, lz4_cfg=False):
    """an image whose root holds one inode "f"; meta (at most meta_size
    bytes) follows the inode (xattrs, inline data, indexes); blocks are
    data blocks placed first, their addresses handed to u and meta when
    those are callables"""
    if meta_size is None:
        meta_size = len(meta)
    img = Image(meta_blocks=(meta_size + 64) // BS + 2)
    img.incompat = incompat
    if lz4_cfg:
        # COMPR_CFGS: LZ4 only, pclusters of up to 256 blocks
        # (format.md, "Compression algorithms")
        img.incompat |= INCOMPAT_BIG_PCLUSTER
        img.sb["compr_algs"] = 1
        img.after_sb = struct.pack("<HHH10x", 14, 65535, 256)
    addrs = [img.data_block(b) for b in blocks]
    if callable(meta):
        meta = meta(img, addrs)
    if callable(u):
        u = u(img, addrs)
    isize = 64 if extended else 32
    root, (nid,) = root_with(img, [(b"f", isize + len(meta), ftype)])
    end = img.inode(nid, mode, size, layout, u=u, nb=nb, extended=extended,
                    xattr_icount=xattr_icount)
    img.meta[end:end + len(meta)] = meta
    return img.finish(root)


def regular(size, layout, **kw):
    return one_file(S_IFREG | 0o644, size, layout, **kw)


def file_cases():
    tib = 1 << 40
    yield Case("file of 4 TiB, flat blocks past the end",
               regular(4 * tib, FLAT_PLAIN, u=lambda img, a: a[0],
                       blocks=[b"x" * BS]), SAYS_PAST_END)
    yield Case("file of 2^63 - 1 bytes, flat",
               regular((1 << 63) - 1, FLAT_PLAIN, u=lambda img, a: a[0],
                       blocks=[b"x"]), r"size|past the end|beyond")
    yield Case("file of 2^64 - 1 bytes, flat",
               regular((1 << 64) - 1, FLAT_PLAIN, u=lambda img, a: a[0],
                       blocks=[b"x"]), r"size|past the end|beyond")
    yield Case("file of 4 TiB, flat hole marker",
               regular(4 * tib, FLAT_PLAIN, u=HOLE32, nb=0xFFFF,
                       incompat=INCOMPAT_48BIT), r"hole|size")
    yield Case("sparse chunked file of 1 TiB (valid)",
               regular(tib, CHUNK_BASED, u=28, incompat=INCOMPAT_CHUNKED,
                       meta=struct.pack("<I", HOLE32)), None, expect={0})
    yield Case("file of 4 GiB - 1, inline tail with no blocks",
               regular(0xFFFFFFFF, FLAT_INLINE, u=HOLE32, extended=False,
                       meta=b"tail"), SAYS_PAST_END + r"|inline|size")
    # chunk-based: 4-byte block map, chunks of one block, all past the end
    chunks = 4096
    yield Case("chunked file of 16 MiB, every chunk past the end",
               regular(chunks * BS, CHUNK_BASED, u=0, incompat=INCOMPAT_CHUNKED,
                       meta_size=4 * chunks, meta=lambda img, a: b"".join(
                           struct.pack("<I", img.past_end(i + 1))
                           for i in range(chunks))), SAYS_PAST_END)
    # a 1 TiB file of one chunk: chunkbits 28 gives chunks of 1 TiB
    yield Case("chunked file of 1 TiB, one chunk past the end",
               regular(tib, CHUNK_BASED, u=28, incompat=INCOMPAT_CHUNKED,
                       meta_size=4,
                       meta=lambda img, a: struct.pack("<I", img.past_end())),
               SAYS_PAST_END)
    yield Case("chunked file of 1 TiB whose array runs past the image",
               regular(tib, CHUNK_BASED, u=0, incompat=INCOMPAT_CHUNKED,
                       meta=b"\xff" * 64), r"past the end|beyond|chunk")
    yield Case("chunk indexes on device 5 of none",
               regular(BS, CHUNK_BASED, u=0x20, incompat=INCOMPAT_CHUNKED,
                       meta=struct.pack("<HHI", 0, 5, 1)),
               r"device")


# --------------------------------------------------------------- symlinks

def symlink(size, target, layout=FLAT_PLAIN, extended=True):
    return one_file(S_IFLNK | 0o777, size, layout, extended=extended,
                    ftype=FT_LNK, u=lambda img, a: a[0] if a else HOLE32,
                    blocks=[target] if target else [])


def symlink_cases():
    yield Case("symlink target of 5000 bytes",
               symlink(5000, b"a" * 5000 + b"\0"), r"symlink|target|long")
    yield Case("symlink target of 4096 bytes",
               symlink(4096, b"a" * BS), r"symlink|target|long")
    yield Case("symlink target of 4 GiB - 1",
               symlink(0xFFFFFFFF, b"a" * 100, extended=False),
               r"symlink|target|long|past the end|beyond")
    yield Case("symlink target of 2^64 - 1",
               symlink((1 << 64) - 1, b"a" * 100),
               r"symlink|target|long|size|past the end|beyond")


# ----------------------------------------------------------------- xattrs

def xattr_file(icount, region, extended=False):
    return regular(0, FLAT_PLAIN, u=HOLE32, extended=extended,
                   xattr_icount=icount, meta=region)


def xattr_cases():
    header = struct.pack("<IB7x", 0, 255)
    yield Case("255 shared xattr ids in a 16-byte xattr region",
               xattr_file(2, header + b"\0" * 4), r"xattr|shared")
    yield Case("xattr region of 256 KiB past the image",
               xattr_file(0xFFFF, struct.pack("<IB7x", 0, 0)),
               r"xattr|past the end|beyond")
    entry = struct.pack("<BBH", 3, 1, 0xFFFF) + b"big"
    yield Case("inline xattr value of 64 KiB in a 32-byte region",
               xattr_file(6, (struct.pack("<IB7x", 0, 0) + entry).ljust(
                   32, b"\0")), r"xattr|value|past")
    shared = struct.pack("<IB7xI", 0, 1, 0x3FFFFFFF)
    yield Case("shared xattr id past the image",
               xattr_file(5, shared), r"xattr|past the end|beyond|shared")


# ------------------------------------------------------------- compressed

def full_index(records, size, advise=0, blocks=(), incompat=0, algo=0,
               cfgs=False):
    """COMPRESSED_FULL file: map header, 8 reserved bytes, records
    (lcluster type, clusterofs, blkaddr or (delta0, delta1)); record
    blkaddrs may be callables of (img, data block addresses)"""
    def meta(img, addrs):
        header = struct.pack("<IHBB", 0, advise, algo, 0) + bytes(8)
        out = [header]
        for typ, ofs, arg in records:
            if callable(arg):
                arg = arg(img, addrs)
            if typ == NONHEAD:
                out.append(struct.pack("<HHHH", typ, ofs, arg[0], arg[1]))
            else:
                out.append(struct.pack("<HHI", typ, ofs, arg))
        return b"".join(out)
    # the inode is 32-byte aligned and 64 bytes long: hpos is aligned
    return regular(size, COMPRESSED_FULL, u=1, meta=meta, blocks=blocks,
                   incompat=incompat | INCOMPAT_0PADDING,
                   meta_size=16 + 8 * len(records), lz4_cfg=cfgs)




def compressed_cases():
    mib = 1 << 20
    raw = b"r" * BS

    def first(img, a):
        return a[0]

    # one extent of 64 MiB: a HEAD and 16383 NONHEADs (lookback chains of
    # 2047 at most), decoding from one block
    n = 64 * mib // BS
    recs = [(PLAIN, 0, first)]
    recs += [(NONHEAD, 0, (min(k, 2047), 1)) for k in range(1, n)]
    yield Case("extent of 64 MiB from one block",
               full_index(recs, n * BS, blocks=[raw]),
               r"extent|too (long|large|big)|exceed|length|size")

    # a big pcluster of 2047 blocks (8 MiB, past the 1 MiB limit)
    recs = [(HEAD1, 0, first), (NONHEAD, 0, (CBLKCNT | 2047, 1)),
            (PLAIN, 100, 0)]
    yield Case("pcluster of 2047 blocks",
               full_index(recs, 2 * BS + 100, advise=0x2, blocks=[raw],
                          cfgs=True),
               r"pcluster|block|too|exceed|past the end|beyond")

    # 1 TiB file whose index would be 2 GiB of records
    yield Case("compressed file of 1 TiB, index past the image",
               full_index([(PLAIN, 0, first)], 1 << 40, blocks=[raw]),
               r"index|past the end|beyond|size")

    yield Case("compact-indexed file of 1 TiB, index past the image",
               regular(1 << 40, COMPRESSED_COMPACT, u=1,
                       meta=struct.pack("<IHBB", 0, 0x1, 0, 0),
                       incompat=INCOMPAT_0PADDING),
               r"index|past the end|beyond|size|lcluster")

    # lookback loops: distance 0, and past lcluster 0
    recs = [(PLAIN, 0, first), (NONHEAD, 0, (0, 1)), (PLAIN, 0, 0)]
    yield Case("NONHEAD lookback distance 0 (a loop)",
               full_index(recs, 2 * BS + 100, blocks=[raw]),
               r"lookback|distance|index|lcluster")
    recs = [(NONHEAD, 0, (1, 1)), (NONHEAD, 0, (2047, 1))]
    yield Case("NONHEAD lookback past lcluster 0",
               full_index(recs, 2 * BS, blocks=[raw]),
               r"lookback|distance|index|lcluster")
    recs = [(PLAIN, 0, first)] + [(NONHEAD, 0, (1, 0)) for _ in range(3)]
    yield Case("NONHEADs chained to a raw HEAD: 16 KiB from 4 KiB",
               full_index(recs, 4 * BS, blocks=[raw]), r"llen|plen|extent")

    # HEADs whose pclusters overlap: every lcluster's extent decodes from
    # the same block (without DEDUPE)
    # (whether that is an error is not settled: bounded time only)
    recs = [(PLAIN, 0, first) for _ in range(64)]
    yield Case("64 extents sharing one block (overlapping pclusters)",
               full_index(recs, 64 * BS, blocks=[raw]), None,
               expect={0, 4})

    # every pcluster past the end of the image
    recs = [(HEAD1, 0, lambda img, a, k=k: img.past_end(k)) for k in range(16)]
    yield Case("16 pclusters past the end",
               full_index(recs, 16 * BS), SAYS_PAST_END)

    # an LZ4 pcluster that claims 4 KiB but decodes to 16 bytes
    pcl = lz4_literals(b"0123456789abcdef")
    pcl = bytes(BS - len(pcl)) + pcl
    recs = [(HEAD1, 0, first), (PLAIN, 100, 0)]
    yield Case("LZ4 pcluster shorter than its extent",
               full_index(recs, BS + 100, blocks=[pcl]),
               r"lz4|decompress|decod|short|size")


def packed_case(file_size, fragoff, packed_size, packed_header):
    """root file "f" stored whole in the packed inode at fragoff; the
    packed inode is COMPRESSED_FULL with packed_header as its map header"""
    img = Image()
    img.incompat = INCOMPAT_FRAGMENTS | INCOMPAT_0PADDING
    root, (nid,) = root_with(img, [(b"f", 64 + 8, FT_REG)])
    end = img.inode(nid, S_IFREG | 0o644, file_size, COMPRESSED_FULL,
                    extended=True)
    img.meta[end:end + 8] = struct.pack("<Q", FRAGMENT_INODE_BIT | fragoff)
    packed = img.reserve(64 + 8 + 8 + 8)
    end = img.inode(packed, S_IFREG | 0o644, packed_size, COMPRESSED_FULL,
                    extended=True)
    img.meta[end:end + len(packed_header)] = packed_header
    img.sb["packed_nid"] = packed
    return img.finish(root)


def big_pcluster(img, stream, nlcl):
    """the full-index records of one pcluster of nlcl lclusters holding
    stream (padded in front to whole blocks, written as data blocks): its
    HEAD1, then NONHEADs whose delta[1] is the distance to the next HEAD,
    as mkfs writes it"""
    nblk = (len(stream) + BS - 1) // BS
    stream = bytes(nblk * BS - len(stream)) + stream
    pcl = [img.data_block(stream[i:i + BS])
           for i in range(0, len(stream), BS)][0]
    return (struct.pack("<HHI", HEAD1, 0, pcl) +
            struct.pack("<HHHH", NONHEAD, 0, CBLKCNT | nblk, nlcl - 1) +
            b"".join(struct.pack("<HHHH", NONHEAD, 0, min(k, 2047), nlcl - k)
                     for k in range(2, nlcl)))


def shared_fragment(nfiles, broken, next=1):
    """nfiles files, each stored whole in the packed inode, whose next
    extents decode 12 MiB of LZ4 each (and then fail, if broken); file i is
    in extent i % next: decoding an extent once per file would take
    minutes"""
    llen = 12 << 20
    nlcl = llen // BS
    names = [b"f%05d" % i for i in range(nfiles)]
    # root directory blocks (FLAT_PLAIN), nids assigned first
    img = Image(meta_blocks=(nfiles * 64 + nlcl * 8 * next) // BS + 4)
    img.incompat = INCOMPAT_FRAGMENTS | INCOMPAT_0PADDING | \
        INCOMPAT_BIG_PCLUSTER
    img.sb["compr_algs"] = 1
    img.after_sb = struct.pack("<HHH10x", 14, 65535, 256)
    root = img.reserve(32)
    packed = img.reserve(64 + 16 + 8 * nlcl * next)
    nids = [img.reserve(40) for _ in names]
    entries = [(b".", root, FT_DIR), (b"..", root, FT_DIR)]
    entries += [(n, nid, FT_REG) for n, nid in zip(names, nids)]
    entries.sort(key=lambda e: e[0])
    blocks, cur = [], []
    for e in entries:
        if len(dir_block(cur + [e])) > BS:
            blocks.append(cur)
            cur = []
        cur.append(e)
    blocks.append(cur)
    first = None
    for b in blocks:
        addr = img.data_block(dir_block(b))
        first = first or addr
    size = (len(blocks) - 1) * BS + len(dir_block(blocks[-1]))
    img.inode(root, S_IFDIR | 0o755, size, FLAT_PLAIN, u=first,
              nlink=2)
    for i, nid in enumerate(nids):
        end = img.inode(nid, S_IFREG | 0o644, 100, COMPRESSED_FULL,
                        fmt_bits=0x10, nb=0)
        off = i % next * llen + i // next * 100
        img.meta[end:end + 8] = struct.pack("<Q", FRAGMENT_INODE_BIT | off)
    # a big pcluster (format.md, "Pcluster size"): 12 MiB of LZ4 take
    # 48 KiB at least
    stream = lz4_run(llen - 64) + b"\x00\xff\xff" if broken else \
        lz4_run(llen)
    end = img.inode(packed, S_IFREG | 0o644, llen * next, COMPRESSED_FULL,
                    extended=True)
    recs = struct.pack("<IHBB8x", 0, 0x2, 0, 0)
    for _ in range(next):
        recs += big_pcluster(img, stream, nlcl)
    img.meta[end:end + len(recs)] = recs
    img.sb["packed_nid"] = packed
    return img.finish(root)


def extents_file(size, nrecs, records, recsz=16, meta_size=None):
    """COMPRESSED_FULL with encoded extents (format.md) of recsz bytes: records
    are (plen, pstart, lstart)"""
    advise = ADVISE_EXTENTS | {4: 0, 8: 2, 16: 4, 32: 6}[recsz]

    def meta(img, addrs):
        out = struct.pack("<IHH", nrecs & 0xFFFFFFFF, advise, nrecs >> 32)
        # records at round_up(hpos + 8, recsz); hpos is 32-byte aligned
        out += bytes((8 + recsz - 1) // recsz * recsz - 8)
        for plen, pstart, lstart in records:
            if callable(pstart):
                pstart = pstart(img, addrs)
            out += struct.pack("<IIIII12x", plen, pstart & 0xFFFFFFFF,
                               pstart >> 32, lstart & 0xFFFFFFFF,
                               lstart >> 32)[:recsz]
        return out
    return regular(size, COMPRESSED_FULL, u=1, meta=meta, blocks=[b"r" * BS],
                   incompat=INCOMPAT_48BIT | INCOMPAT_0PADDING,
                   meta_size=meta_size or 32 + recsz * len(records))


def fragment_cases():
    yield Case("packed inode that is itself a whole-file fragment",
               packed_case(100, 0, 100,
                           struct.pack("<Q", FRAGMENT_INODE_BIT)),
               r"packed|fragment")
    yield Case("file of 1 TiB in a packed inode of 100 bytes",
               packed_case(1 << 40, 0, 100, struct.pack("<Q", 0)),
               r"packed|fragment|past|beyond|size")
    yield Case("fragment at offset 2^62 of the packed inode",
               packed_case(100, 1 << 62, 100, struct.pack("<Q", 0)),
               r"packed|fragment|past|beyond|size")
    yield Case("10000 files in one broken packed extent of 12 MiB, "
               "decoded at most 4 times over",
               shared_fragment(10000, True), r"lz4|packed", decoded_max=4)
    yield Case("10000 files in one packed extent of 12 MiB, decoded at "
               "most 4 times over", shared_fragment(10000, False), None,
               expect={0}, decoded_max=4)
    # Extents over a quarter of the fragment cache are not cached: files
    # that cycle through them would decode 12 MiB each, but fsck queues
    # the files of a packed inode in the order of their fragments
    # (fsck/sched/task.c), so that one context's last decoded extent
    # serves the files in a row. Also tests/hardening/interrupt.sh's slow
    # image.
    yield Case("10000 files alternating between two packed extents of "
               "12 MiB, decoded at most 4 times over",
               shared_fragment(10000, False, 2), None, expect={0},
               decoded_max=4)


def extent_cases():
    def blk(img, a):
        return a[0] * BS

    def run8k(img, a):
        return img.data_block(bytes(BS - len(lz4_run(2 * BS))) +
                              lz4_run(2 * BS)) * BS
    # (2^47 would set bit 63 of the header: a whole-file fragment)
    yield Case("2^47 - 1 encoded extents, records past the image",
               extents_file(1 << 40, (1 << 47) - 1,
                            [(0x10000000 | BS, blk, 0)]),
               r"extent|record|past|beyond|metadata")
    yield Case("encoded extent of 1 TiB from one block",
               extents_file((1 << 40) + 10, 2,
                            [(BS, blk, 0), (BS, blk, 1 << 40)], recsz=32),
               r"extent|llen|long|raw|12 MiB")
    yield Case("encoded extents in decreasing order",
               extents_file(3 * BS, 3, [(0x10000000 | BS, run8k, 0),
                                        (0x10000000 | BS, run8k, 2 * BS),
                                        (0x10000000 | BS, run8k, BS)]),
               r"extent|lstart|increas|order|sort")
    yield Case("encoded extent with plen of 2 MiB",
               extents_file(BS, 1, [(0x1FFFFF, blk, 0)]),
               r"extent|plen|1 MiB|too|past|beyond|reserved")
    yield Case("encoded extent of 1 TiB, lstart past the end",
               extents_file(BS, 2, [(BS, blk, 0), (BS, blk, 1 << 40)],
                            recsz=32),
               r"extent|lstart|size|beyond|past")


def lz4_sparse(data):
    """an LZ4 block of data that is mostly zeros: literals, and each run
    of 32 zeros or more as a match at distance 1 (the last match ends 12
    bytes before the end, as LZ4 requires)"""
    out = bytearray()

    def length(n):
        while n >= 255:
            out.append(255)
            n -= 255
        out.append(n)

    def sequence(lits, mlen=None):
        m = 0 if mlen is None else min(mlen - 4, 15)
        out.append(min(len(lits), 15) << 4 | m)
        if len(lits) >= 15:
            length(len(lits) - 15)
        out.extend(lits)
        if mlen is not None:
            out.extend(struct.pack("<H", 1))
            if mlen - 4 >= 15:
                length(mlen - 4 - 15)

    start = 0
    for run in re.finditer(rb"\x00{32,}", data):
        z, e = run.start(), min(run.end(), len(data) - 12)
        if e - (z + 1) < 4:
            continue
        sequence(data[start:z + 1], e - (z + 1))
        start = e
    sequence(data[start:])
    return bytes(out)


def metabox_thrash(nfiles):
    """nfiles empty files whose inodes live in the metabox, compressed as
    two extents of 12 MiB; in directory order the inodes cycle through the
    metabox blocks that hold them (one slot each in turn, 79 blocks of
    each extent for 20000 files), alternately in each extent, more blocks
    than a reading context caches: decoding an extent for each inode read
    would take minutes"""
    llen = 12 << 20
    per_block = BS // 32
    nblocks = (nfiles // 2 + per_block) // per_block
    nlcl = llen // BS
    ext = [bytearray(llen), bytearray(llen)]
    nids = []
    for k in range(nfiles):
        e, blk, slot = k % 2, (k // 2) % nblocks, (k // 2) // nblocks
        pos = blk * BS + slot * 32
        ext[e][pos:pos + 32] = struct.pack(
            "<HHHHIIIIHH4x", 0, 0, S_IFREG | 0o644, 1, 0, 0, HOLE32,
            k + 2, 0, 0)
        nids.append(1 << 63 | (e * llen + pos) // 32)
    names = [b"f%05d" % k for k in range(nfiles)]
    img = Image(meta_blocks=(2 * nlcl * 8) // BS + 4)
    img.incompat = INCOMPAT_METABOX | INCOMPAT_48BIT | INCOMPAT_0PADDING | \
        INCOMPAT_BIG_PCLUSTER
    img.sb.update(extslots=1, compr_algs=1)
    img.after_sb = struct.pack("<HHH10x", 14, 65535, 256)
    root = img.reserve(32)
    mbox = img.reserve(64 + 16 + 16 * nlcl)
    entries = [(b".", root, FT_DIR), (b"..", root, FT_DIR)]
    entries += [(n, nid, FT_REG) for n, nid in zip(names, nids)]
    blocks, cur = [], []
    for ent in sorted(entries, key=lambda x: x[0]):
        if len(dir_block(cur + [ent])) > BS:
            blocks.append(cur)
            cur = []
        cur.append(ent)
    blocks.append(cur)
    first = [img.data_block(dir_block(b)) for b in blocks][0]
    size = (len(blocks) - 1) * BS + len(dir_block(blocks[-1]))
    img.inode(root, S_IFDIR | 0o755, size, FLAT_PLAIN, u=first, nlink=2)
    recs = struct.pack("<IHBB8x", 0, 0x2, 0, 0)
    for e in range(2):
        recs += big_pcluster(img, lz4_sparse(bytes(ext[e])), nlcl)
    end = img.inode(mbox, S_IFREG | 0o644, 2 * llen, COMPRESSED_FULL,
                    extended=True)
    img.meta[end:end + len(recs)] = recs
    img.sb["metabox_nid"] = mbox
    return img.finish(root)


def metabox_case(metabox_nid):
    img = Image()
    root, _ = root_with(img, [])
    img.incompat = INCOMPAT_METABOX | INCOMPAT_48BIT
    img.sb.update(extslots=1, metabox_nid=metabox_nid)
    return img.finish(root)


def metabox_cases():
    yield Case("metabox nid with the metabox bit (itself)",
               metabox_case(1 << 63), r"metabox")
    yield Case("metabox inode past the end",
               metabox_case(1 << 40), r"metabox|past the end|beyond")
    # the metabox's cache of decoded extents keeps both: each is decoded
    # once, not once per inode
    yield Case("20000 inodes cycling through two metabox extents of "
               "12 MiB, in 5 s", metabox_thrash(20000), None, expect={0},
               timeout=5)


# ----------------------------------------------------------------- superblock

def sb_case(**fields):
    img = Image()
    root, _ = root_with(img, [])
    img.sb.update(fields)
    return img.finish(root)


def epoch_case():
    """a compact inode's time is seconds past the superblock's epoch
    (format.md, "Times"): the root's, one past the largest 64-bit time"""
    img = Image()
    root, _ = root_with(img, [])
    img.put(root, 12, struct.pack("<I", 1))     # i_mtime
    img.sb["epoch"] = (1 << 63) - 1
    return img.finish(root)


def superblock_cases():
    yield Case("root nid past the end", sb_case(root_nid=0xFFFF),
               SAYS_PAST_END + r"|root|nid")
    yield Case("metadata area past the end",
               sb_case(meta_blkaddr=0x7FFFFFFF), SAYS_PAST_END + r"|root|nid")
    yield Case("block count of 2^32 - 1 blocks (16 TiB)",
               sb_case(blocks=0xFFFFFFFF), r"block|truncat|size|past")
    yield Case("packed inode past the end",
               sb_case(packed_nid=1 << 40, incompat=INCOMPAT_FRAGMENTS),
               SAYS_PAST_END + r"|packed|nid")
    yield Case("epoch of 2^63 - 1, a compact inode a second past it",
               epoch_case(), r"mtime 1 seconds past the superblock's "
               r"epoch 9223372036854775807 overflows")


PLAN = [tree_cases, dir_cases, file_cases, symlink_cases, xattr_cases,
        compressed_cases, fragment_cases, extent_cases, metabox_cases,
        superblock_cases]


def has_asan(path):
    try:
        with open(path, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


def limit_memory(mib):
    def apply():
        limit = mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def run(fsck, path, case, timeout, as_mib):
    """None if the run behaved, else a list of complaint lines"""
    args = [fsck] + case.opts + (["-d3"] if case.decoded_max else []) + \
        [path]
    start = time.monotonic()
    try:
        proc = subprocess.run(args, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout,
                              preexec_fn=limit_memory(as_mib) if as_mib
                              else None)
    except subprocess.TimeoutExpired:
        return ["hang: no exit after %g s" % timeout,
                "command: %s" % " ".join(args)]
    took = time.monotonic() - start
    out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    problems = verdict(proc.returncode, out, case.expect, case.says)
    if case.decoded_max:
        m = re.search(r"packed inode: (\d+) bytes decoded of its (\d+) "
                      r"encoded", out)
        if not m:
            problems.append("no count of packed bytes decoded (-d3)")
        elif int(m.group(1)) > case.decoded_max * int(m.group(2)):
            problems.append("packed bytes decoded %s times over, at most "
                            "%d" % (int(m.group(1)) / int(m.group(2)),
                                    case.decoded_max))
    if problems:
        problems.append("command: %s (%.1f s)" % (" ".join(args), took))
        problems += ["output: " + line for line in out.splitlines()[:15]]
    return problems or None


def main():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pattern", nargs="?", default="")
    ap.add_argument("--write", metavar="DIR")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    fsck = os.environ.get("FSCK", "../fsck/fsck.erofs")
    timeout = int(os.environ.get("FSCK_TIMEOUT_HOSTILE", "20"))
    as_mib = int(os.environ.get("HOSTILE_AS_MIB", "512"))
    scale = float(os.environ.get("HOSTILE_TIME_SCALE", "1"))
    skip_todo = os.environ.get("HOSTILE_SKIP_TODO")
    asan = has_asan(fsck)

    cases = [c for maker in PLAN for c in maker() if args.pattern in c.name]
    if args.list:
        for case in cases:
            print(case.name)
        return 0
    if asan:
        print("# AddressSanitizer build: RLIMIT_AS not set, time limit only")
    with tempfile.TemporaryDirectory(prefix="tmp.hostile.", dir=".") as tmp:
        where = args.write or tmp
        os.makedirs(where, exist_ok=True)
        for case in cases:
            if case.todo and skip_todo:
                tap(True, case.name, directive="SKIP known problem: " +
                    case.todo)
                continue
            name = re.sub(r"[^A-Za-z0-9._-]+", "-", case.name) + ".erofs"
            path = os.path.join(where, name)
            with open(path, "wb") as f:
                f.write(case.data)
            problems = run(fsck, path, case,
                           (case.timeout or timeout) * scale,
                           None if asan else as_mib)
            tap(not problems, case.name, problems,
                "TODO " + case.todo if case.todo else "")
            if not args.write:
                os.unlink(path)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
