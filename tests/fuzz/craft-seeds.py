#!/usr/bin/env python3
"""craft-seeds.py DIR: write small, valid images of what mkfs.erofs 1.5
cannot make (make-seeds.sh covers the rest) as fuzzer seeds: MicroLZMA
(liblzma through ctypes), DEFLATE and Zstandard pclusters, HEAD2
lclusters, encoded extents (48BIT), fragments in a packed inode, inline
(ztailpacking) pclusters, long xattr name prefixes with shared xattrs,
directories without ".", a device table. Built with the image builder of
tests/lib/erofsbuild.py; needs the zstd command for the Zstandard
seed. With FSCK set, every seed must pass "fsck.erofs --extract".
"""
import ctypes
import ctypes.util
import os
import struct
import subprocess
import sys
import zlib

here = os.path.dirname(os.path.abspath(sys.argv[0]))
sys.path.insert(0, os.path.join(here, "..", "lib"))
import erofsbuild as h  # noqa: E402

BS = h.BS
INCOMPAT_COMPR_HEAD2 = INCOMPAT_DEVICE_TABLE = 0x8
INCOMPAT_ZTAILPACKING = 0x10
INCOMPAT_XATTR_PREFIXES = 0x40
ADVISE_BIG1, ADVISE_INLINE, ADVISE_FRAGMENT = 0x2, 0x8, 0x20
HEAD2 = 3


def text(n, seed=0):
    out = b"".join(b"line %d of seed %d, some words to compress\n" % (i, seed)
                   for i in range(n // 30 + 1))
    return out[:n]


def deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def zstd(data):
    return subprocess.run(["zstd", "-q", "-19", "--zstd=wlog=15",
                           "--no-check", "-c"],
                          input=data, capture_output=True,
                          check=True).stdout


class LzmaStream(ctypes.Structure):
    """liblzma's lzma_stream"""
    _fields_ = [("next_in", ctypes.c_void_p), ("avail_in", ctypes.c_size_t),
                ("total_in", ctypes.c_uint64), ("next_out", ctypes.c_void_p),
                ("avail_out", ctypes.c_size_t),
                ("total_out", ctypes.c_uint64),
                ("allocator", ctypes.c_void_p), ("internal", ctypes.c_void_p),
                ("reserved", ctypes.c_byte * 128)]


def microlzma(data):
    """MicroLZMA (format.md, "MicroLZMA") of all of data, at most one
    block, by liblzma's
    lzma_microlzma_encoder (xz 5.4) through ctypes"""
    lib = ctypes.CDLL(ctypes.util.find_library("lzma") or "liblzma.so.5")
    opts = ctypes.create_string_buffer(512)     # lzma_options_lzma
    if lib.lzma_lzma_preset(opts, 6):
        raise OSError("lzma_lzma_preset failed")
    ctypes.c_uint32.from_buffer(opts, 0).value = 1 << 16    # dict_size
    strm = LzmaStream()
    if lib.lzma_microlzma_encoder(ctypes.byref(strm), opts):
        raise OSError("lzma_microlzma_encoder failed")
    src = ctypes.create_string_buffer(data, len(data))
    dst = ctypes.create_string_buffer(BS)
    strm.next_in, strm.avail_in = ctypes.addressof(src), len(data)
    strm.next_out, strm.avail_out = ctypes.addressof(dst), BS
    ret = lib.lzma_code(ctypes.byref(strm), 3)              # LZMA_FINISH
    used, made = strm.total_in, strm.total_out
    lib.lzma_end(ctypes.byref(strm))
    if ret != 1 or used != len(data):                       # LZMA_STREAM_END
        raise OSError("MicroLZMA: %d, %d of %d bytes" % (ret, used,
                                                          len(data)))
    return dst.raw[:made]


def padded(stream):
    """a one-block pcluster: the stream right-aligned ("Zero padding")"""
    if len(stream) > BS:
        raise ValueError("stream of %d bytes" % len(stream))
    return bytes(BS - len(stream)) + stream


def cfg_records(algs):
    """compression configuration records for the algorithm bits
    (format.md, "Compression algorithms")"""
    out = b""
    for alg in range(4):
        if not algs & (1 << alg):
            continue
        out += bytes(-len(out) % 4)
        if alg == 0:
            out += struct.pack("<HHH10x", 14, 65535, 1)
        elif alg == 1:
            out += struct.pack("<HIH8x", 14, 1 << 16, 0)
        elif alg == 2:
            out += struct.pack("<HB5x", 6, 15)
        else:
            out += struct.pack("<HBB4x", 6, 0, 10)
    return out


class Tree:
    """a root directory (FLAT_INLINE) of regular files: add() reserves each
    file's inode and metadata, write() fills it; finish() the image"""

    def __init__(self, meta_blocks=2, incompat=0, algs=0):
        self.img = h.Image(meta_blocks=meta_blocks)
        self.img.incompat = incompat
        if algs:
            self.img.incompat |= h.INCOMPAT_BIG_PCLUSTER
            self.img.sb["compr_algs"] = algs
            self.img.after_sb = cfg_records(algs)
        self.files = []

    def add(self, name, meta_size, ftype=h.FT_REG):
        self.files.append((name, meta_size, ftype))

    def layout(self):
        self.root, nids = h.root_with(self.img, self.files)
        return dict(zip((f[0] for f in self.files), nids))


def compressed(img, nid, size, header, records, tail=b""):
    """a COMPRESSED_FULL extended inode: header (8 bytes), 8 reserved
    bytes, records (type, clusterofs, blkaddr or (d0, d1)), tail"""
    end = img.inode(nid, h.S_IFREG | 0o644, size, h.COMPRESSED_FULL,
                    u=1, extended=True)
    raw = header + bytes(8)
    for typ, ofs, arg in records:
        if typ == h.NONHEAD:
            raw += struct.pack("<HHHH", typ, ofs, arg[0], arg[1])
        else:
            raw += struct.pack("<HHI", typ, ofs, arg)
    raw += tail
    img.meta[end:end + len(raw)] = raw


def header(advise=0, algs=0, fragoff=0, idata=0):
    if fragoff:
        return struct.pack("<IHBB", fragoff, advise, algs, 0)
    return struct.pack("<HHHBB", 0, idata, advise, algs, 0)


def codec_seed(algo, encode):
    """files of one, two and three lclusters in one pcluster each, with
    the end-of-file PLAIN record"""
    t = Tree(algs=1 << algo)
    sizes = {b"one": 3000, b"two": 8192, b"three": 8192 + 700}
    for name in sizes:
        t.add(name, 64 + 16 + 8 * 3)
    nids = t.layout()
    for name, size in sizes.items():
        data = text(size, len(name))
        blk = t.img.data_block(padded(encode(data)))
        nl = (size + BS - 1) // BS
        recs = [(h.HEAD1, 0, blk)]
        recs += [(h.NONHEAD, 0, (k, 1)) for k in range(1, nl)]
        if size % BS and nl > 1:
            # the extent ends inside the last lcluster ("Full indexes")
            recs[-1] = (h.PLAIN, size % BS, 0)
        compressed(t.img, nids[name], size, header(algs=algo), recs)
    return t.img.finish(t.root)


def head2_seed():
    """HEAD1 lclusters in DEFLATE, HEAD2 in Zstandard, a PLAIN (raw) one"""
    t = Tree(algs=(1 << 2) | (1 << 3), incompat=INCOMPAT_COMPR_HEAD2)
    t.add(b"mixed", 64 + 16 + 8 * 3)
    nids = t.layout()
    parts = [text(BS, 1), text(BS, 2), os.urandom(BS)]
    b0 = t.img.data_block(padded(deflate(parts[0])))
    b1 = t.img.data_block(padded(zstd(parts[1])))
    b2 = t.img.data_block(parts[2])
    recs = [(h.HEAD1, 0, b0), (HEAD2, 0, b1), (h.PLAIN, 0, b2)]
    compressed(t.img, nids[b"mixed"], 3 * BS, header(algs=2 | 3 << 4), recs)
    return t.img.finish(t.root)


def extents_seed():
    """48BIT encoded extents: sorted records (16 bytes) with an LZ4, a raw
    and a hole extent; per-lcluster records of 8 and 4 bytes"""
    t = Tree(incompat=h.INCOMPAT_48BIT | h.INCOMPAT_0PADDING)
    t.add(b"sorted", 64 + 8 + 8 + 16 * 3)
    t.add(b"per8", 64 + 8 + 8 * 2)
    t.add(b"per4", 64 + 8 + 8 + 4 * 2)
    nids = t.layout()
    img = t.img
    lz = h.lz4_run(2 * BS)
    b0 = img.data_block(padded(lz))
    b1 = img.data_block(text(BS, 3))
    img.data_block(text(BS, 4))

    def ext_inode(nid, size, advise, body):
        end = img.inode(nid, h.S_IFREG | 0o644, size, h.COMPRESSED_FULL,
                        u=2, extended=True)
        img.meta[end:end + len(body)] = body

    body = struct.pack("<IHH", 3, h.ADVISE_EXTENTS | 4, 0) + bytes(8)
    body += struct.pack("<IIII", 0x10000000 | BS, b0 * BS, 0, 0)
    body += struct.pack("<IIII", BS, b1 * BS, 0, 2 * BS)
    body += struct.pack("<IIII", 0, 0, 0, 3 * BS)
    ext_inode(nids[b"sorted"], 4 * BS, 0, body)
    # recsz 8: one record per lcluster, raw blocks
    body = struct.pack("<IHH", 0, h.ADVISE_EXTENTS | 2, 0)
    body += struct.pack("<II", BS, b1 * BS) + struct.pack("<II", BS, b1 * BS)
    ext_inode(nids[b"per8"], 2 * BS, 0, body)
    # recsz 4: base address, then contiguous pclusters
    body = struct.pack("<IHH", 0, h.ADVISE_EXTENTS, 0)
    body += struct.pack("<Q", b1 * BS) + struct.pack("<II", BS, 200)
    ext_inode(nids[b"per4"], BS + 200, 0, body)
    return img.finish(t.root)


def fragments_seed():
    """a flat packed inode holding a whole file and the tail of another,
    an inline LZ4 tail pcluster (ztailpacking)"""
    t = Tree(incompat=h.INCOMPAT_FRAGMENTS | h.INCOMPAT_0PADDING |
             INCOMPAT_ZTAILPACKING)
    t.add(b"whole", 64 + 8)
    t.add(b"tailfrag", 64 + 16 + 8 * 2)
    t.add(b"inline", 64 + 16 + 8 * 2 + 64)
    nids = t.layout()
    img = t.img
    packed_data = text(300, 7) + text(500, 8)
    packed = img.reserve(64)
    pblk = img.data_block(packed_data)
    img.inode(packed, h.S_IFREG | 0o644, len(packed_data), h.FLAT_PLAIN,
              u=pblk, extended=True)
    img.sb["packed_nid"] = packed
    end = img.inode(nids[b"whole"], h.S_IFREG | 0o644, 300,
                    h.COMPRESSED_FULL, extended=True)
    img.meta[end:end + 8] = struct.pack("<Q", h.FRAGMENT_INODE_BIT | 0)
    # tail fragment: lcluster 0 is LZ4, lcluster 1 (the tail HEAD) is the
    # fragment at packed offset 300
    blk = img.data_block(padded(h.lz4_run(BS)))
    compressed(img, nids[b"tailfrag"], BS + 500,
               header(advise=ADVISE_FRAGMENT, fragoff=300),
               [(h.HEAD1, 0, blk), (h.HEAD1, 0, 0)])
    # inline tail: lcluster 1 decodes from LZ4 stored after the index
    stream = h.lz4_run(700)
    blk = img.data_block(padded(h.lz4_run(BS)))
    compressed(img, nids[b"inline"], BS + 700,
               header(advise=ADVISE_INLINE, idata=len(stream)),
               [(h.HEAD1, 0, blk), (h.HEAD1, 0, 0)], tail=stream)
    return img.finish(t.root)


def xattr_seed():
    """long xattr name prefixes (on the primary device), shared and inline
    xattrs, an ACL"""
    t = Tree(incompat=INCOMPAT_XATTR_PREFIXES)
    region = struct.pack("<IB7xI", 0, 1, 0)
    region += entry(0x80, b"opaque", b"y")
    region += entry(1, b"comment", b"hello")
    acl = struct.pack("<I", 2) + b"".join(
        struct.pack("<HHI", tag, perm, 0xFFFFFFFF)
        for tag, perm in ((1, 6), (4, 4), (0x20, 4)))
    region += entry(2, b"", acl)
    t.add(b"x", 32 + len(region))
    nids = t.layout()
    img = t.img
    end = img.inode(nids[b"x"], h.S_IFREG | 0o644, 0, h.FLAT_PLAIN,
                    u=h.HOLE32, xattr_icount=(len(region) - 12) // 4 + 1)
    img.meta[end:end + len(region)] = region
    # block of shared xattrs (id 0), then the prefix table
    shared = entry(6, b"selinux", b"system_u:object_r:etc_t:s0\0")
    xblk = img.data_block(shared)
    img.sb["xattr_blkaddr"] = xblk
    table = struct.pack("<HB", 1 + len(b"overlay."), 4) + b"overlay."
    pblk = img.data_block(table)
    img.sb.update(prefix_count=1, prefix_start=pblk * BS // 4)
    return img.finish(t.root)


def entry(index, name, value):
    raw = struct.pack("<BBH", len(name), index, len(value)) + name + value
    return raw + bytes(-len(raw) % 4)


def dot_omitted_seed():
    """48BIT, directories without "." (DOT_OMITTED), the root nid in the
    8-byte field"""
    img = h.Image()
    img.incompat = h.INCOMPAT_48BIT
    img.reserve(32)     # root nid 1: not 0, so that the 8-byte field is used
    kids = [(b"sub", 0, h.FT_DIR), (b"f", 0, h.FT_REG)]
    root = img.reserve(h.dir_size(kids + [(b"..", 0, 2)], extended=True))
    sub = img.reserve(h.dir_size([(b"..", 0, 2)], extended=True))
    f = img.reserve(64 + 5)
    for nid, entries, nlink in (
            (root, [(b"..", root, 2), (b"sub", sub, 2), (b"f", f, 1)], 3),
            (sub, [(b"..", root, 2)], 2)):
        block = h.dir_block(entries)
        end = img.inode(nid, h.S_IFDIR | 0o755, len(block), h.FLAT_INLINE,
                        u=h.HOLE32, nb=0xFFFF, nlink=nlink, extended=True,
                        fmt_bits=0x10)
        img.meta[end:end + len(block)] = block
    end = img.inode(f, h.S_IFREG | 0o644, 5, h.FLAT_INLINE, u=h.HOLE32,
                    nb=0xFFFF, extended=True)
    img.meta[end:end + 5] = b"hello"
    img.sb.update(root8=root, root_nid=0)
    return img.finish(root)


def multidev_seed():
    """a device table of one extra device, which the fuzz target makes the
    image itself (byte 0 bit 4: --device=IMAGE); 8-byte chunk indexes on
    device 1 and on the primary device, and a hole"""
    t = Tree(incompat=h.INCOMPAT_CHUNKED | INCOMPAT_DEVICE_TABLE)
    t.add(b"chunks", 64 + 8 * 3)
    nids = t.layout()
    img = t.img
    b0 = img.data_block(text(BS, 9))
    b1 = img.data_block(text(BS, 10))
    end = img.inode(nids[b"chunks"], h.S_IFREG | 0o644, 3 * BS,
                    h.CHUNK_BASED, u=0x20, extended=True)
    idx = struct.pack("<HHI", 0, 1, b0) + struct.pack("<HHI", 0, 0, b1)
    idx += struct.pack("<HHI", 0, 0, h.HOLE32)
    img.meta[end:end + len(idx)] = idx
    # the slot right after the superblock: abs 1152 = 9 * 128
    img.after_sb = bytes(64) + struct.pack("<II", 1 + img.meta_blocks +
                                           len(img.data), 0) + bytes(56)
    img.sb.update(extra_devices=1, devt_slotoff=9)
    data = bytearray(img.finish(t.root))
    data[0] = 0x10
    return bytes(data)


SEEDS = {
    "lzma": lambda: codec_seed(1, microlzma),
    "deflate": lambda: codec_seed(2, deflate),
    "zstd": lambda: codec_seed(3, zstd),
    "head2-deflate-zstd-plain": head2_seed,
    "extents-48bit": extents_seed,
    "fragments-ztailpacking": fragments_seed,
    "xattr-prefixes": xattr_seed,
    "dot-omitted-48bit": dot_omitted_seed,
    "multidev-chunks": multidev_seed,
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    fsck = os.environ.get("FSCK")
    bad = 0
    for name, make in SEEDS.items():
        path = os.path.join(out, "crafted-%s.erofs" % name)
        with open(path, "wb") as f:
            f.write(make())
        if fsck:
            devs = ["--device=" + path] if "multidev" in name else []
            p = subprocess.run([fsck, "--extract"] + devs + [path],
                               capture_output=True, text=True)
            if p.returncode:
                bad = 1
                print("%s: exit %d\n%s" % (path, p.returncode, p.stderr))
    sys.exit(bad)


if __name__ == "__main__":
    main()
