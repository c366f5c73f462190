"""Android containers for the tests, written from the formats as
docs/android.md describes them: sparse images (RAW, FILL, DONT_CARE and
CRC32 chunks, which Debian's img2simg does not all make) and super images
(logical partition metadata: geometry, slots, backups, tables)."""
import hashlib
import struct
import zlib

SPARSE_MAGIC = 0xED26FF3A
RAW, FILL, DONT_CARE, CRC32 = 0xCAC1, 0xCAC2, 0xCAC3, 0xCAC4


def sparse_chunks(raw, blk=4096, max_raw=None, zeros="dont_care",
                  crc_every=0):
    """The chunks of raw (a multiple of blk bytes): blocks of one repeated
    4-byte value become FILL chunks (zeros: DONT_CARE, or FILL with
    zeros="fill"), the rest RAW chunks of at most max_raw blocks; with
    crc_every, a CRC32 chunk after every crc_every chunks and at the end.
    Each chunk is [type, blocks, data]."""
    assert len(raw) % blk == 0
    chunks = []
    for i in range(len(raw) // blk):
        b = raw[i * blk:(i + 1) * blk]
        if b == b[:4] * (blk // 4):
            if b[:4] == b"\0\0\0\0" and zeros == "dont_care":
                kind, data = DONT_CARE, b""
            else:
                kind, data = FILL, b[:4]
        else:
            kind, data = RAW, bytearray(b)
        last = chunks[-1] if chunks else None
        if last and last[0] == kind and (
                (kind == RAW and (not max_raw or last[1] < max_raw)) or
                (kind != RAW and last[2] == data)):
            last[1] += 1
            if kind == RAW:
                last[2] += data
            continue
        chunks.append([kind, 1, data])
    if crc_every:
        out, crc, pos = [], 0, 0
        for n, c in enumerate(chunks, 1):
            out.append(c)
            crc = zlib.crc32(raw[pos:pos + c[1] * blk], crc)
            pos += c[1] * blk
            if n % crc_every == 0 or n == len(chunks):
                out.append([CRC32, 0, struct.pack("<I", crc)])
        chunks = out
    return chunks


def sparse_bytes(chunks, blk=4096, total_blocks=None, total_chunks=None,
                 major=1):
    """A sparse image of the chunks ([type, blocks, data] each)."""
    if total_blocks is None:
        total_blocks = sum(c[1] for c in chunks)
    if total_chunks is None:
        total_chunks = len(chunks)
    out = [struct.pack("<IHHHHIIII", SPARSE_MAGIC, major, 0, 28, 12, blk,
                       total_blocks, total_chunks, 0)]
    for kind, blocks, data in chunks:
        out.append(struct.pack("<HHII", kind, 0, blocks, 12 + len(data)))
        out.append(bytes(data))
    return b"".join(out)


def write_sparse(path, raw, **kw):
    blk = kw.pop("blk", 4096)
    with open(path, "wb") as f:
        f.write(sparse_bytes(sparse_chunks(raw, blk, **kw), blk))


# Logical partition metadata (super images)
SECTOR = 512
RESERVED = 4096
GEOMETRY_SIZE = 4096
GEOMETRY_MAGIC = 0x616C4467
HEADER_MAGIC = 0x414C5030
LINEAR, ZERO = 0, 1
READONLY, SLOT_SUFFIXED, UPDATED, DISABLED = 1, 2, 4, 8


def _name(s):
    b = s.encode()
    assert len(b) <= 36
    return b.ljust(36, b"\0")


def geometry(max_size, slots, block_size=4096):
    g = bytearray(struct.pack("<II32sIII", GEOMETRY_MAGIC, 52, b"",
                              max_size, slots, block_size))
    g[8:40] = hashlib.sha256(bytes(g)).digest()
    return bytes(g).ljust(GEOMETRY_SIZE, b"\0")


class Super:
    """The layout of a super image: block devices, groups, partitions
    and their extents, as the metadata tables hold them. Partitions are
    given data; place() lays their extents out."""

    def __init__(self, size=32 << 20, slots=2, max_size=8192, minor=2,
                 block_size=4096, first_sector=None):
        self.size = size
        self.slots = slots
        self.max_size = max_size
        self.minor = minor
        self.block_size = block_size
        meta_end = RESERVED + 2 * GEOMETRY_SIZE + 2 * slots * max_size
        if first_sector is None:
            first_sector = -(-meta_end // (64 << 10)) * (64 << 10) // SECTOR
        # [first_sector, alignment, alignment_offset, size, name, flags]
        self.devices = [[first_sector, 64 << 10, 0, size, "super", 0]]
        self.groups = [["default", 0, 0]]   # name, flags, max size
        self.partitions = []    # name, attrs, first extent, count, group
        self.extents = []       # sectors, type, target, device
        self.data = {}          # sector -> bytes on block device 0
        self.next_sector = first_sector
        self.flags = 0

    def group(self, name, max_size=0):
        self.groups.append([name, 0, max_size])
        return len(self.groups) - 1

    def partition(self, name, data=b"", pieces=1, group=0, attrs=READONLY,
                  gap=8):
        """A partition holding data, cut in pieces extents with gap
        sectors between them (so that they are not in a row)."""
        assert len(data) % SECTOR == 0
        first = len(self.extents)
        sectors = len(data) // SECTOR
        step = -(-sectors // pieces) if sectors else 0
        done = 0
        while done < sectors:
            n = min(step, sectors - done)
            start = self.next_sector
            self.extents.append([n, LINEAR, start, 0])
            self.data[start] = data[done * SECTOR:(done + n) * SECTOR]
            self.next_sector += n + gap
            done += n
        self.partitions.append([name, attrs, first,
                                len(self.extents) - first, group])
        assert self.next_sector * SECTOR <= self.size

    def tables(self):
        parts = b"".join(struct.pack("<36sIIII", _name(p[0]), *p[1:])
                         for p in self.partitions)
        exts = b"".join(struct.pack("<QIQI", *e) for e in self.extents)
        groups = b"".join(struct.pack("<36sIQ", _name(g[0]), g[1], g[2])
                          for g in self.groups)
        devs = b"".join(struct.pack("<QIIQ36sI", d[0], d[1], d[2], d[3],
                                    _name(d[4]), d[5])
                        for d in self.devices)
        return [(parts, 52, len(self.partitions)),
                (exts, 24, len(self.extents)),
                (groups, 48, len(self.groups)),
                (devs, 64, len(self.devices))]

    def metadata(self, descriptors=None):
        """One copy of the metadata; descriptors: [(offset, count, size)]
        to write instead of the true ones (tables stay as they are)."""
        tabs = self.tables()
        body, desc, off = b"", [], 0
        for data, esize, count in tabs:
            desc.append((off, count, esize))
            body += data
            off += len(data)
        desc = descriptors or desc
        hsize = 256 if self.minor >= 2 else 128
        h = bytearray(struct.pack("<IHHI32sI32s", HEADER_MAGIC, 10,
                                  self.minor, hsize, b"", len(body),
                                  hashlib.sha256(body).digest()))
        for d in desc:
            h += struct.pack("<III", *d)
        if hsize == 256:
            h += struct.pack("<I", self.flags) + b"\0" * 124
        h[12:44] = hashlib.sha256(bytes(h)).digest()
        m = bytes(h) + body
        assert len(m) <= self.max_size
        return m.ljust(self.max_size, b"\0")

    def image(self, metadata=None):
        """The super image's bytes (block device 0, whole)."""
        m = metadata or self.metadata()
        img = bytearray(self.size)
        g = geometry(self.max_size, self.slots, self.block_size)
        img[RESERVED:RESERVED + GEOMETRY_SIZE] = g
        img[RESERVED + GEOMETRY_SIZE:RESERVED + 2 * GEOMETRY_SIZE] = g
        start = RESERVED + 2 * GEOMETRY_SIZE
        for copy in range(2 * self.slots):
            pos = start + copy * self.max_size
            img[pos:pos + self.max_size] = m
        for sector, data in self.data.items():
            img[sector * SECTOR:sector * SECTOR + len(data)] = data
        return img

    def primary_metadata_pos(self, slot=0):
        return RESERVED + 2 * GEOMETRY_SIZE + slot * self.max_size

    def backup_metadata_pos(self, slot=0):
        return self.primary_metadata_pos(self.slots + slot)


def pad(data, to=4096):
    return data + b"\0" * (-len(data) % to)
