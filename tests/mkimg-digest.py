#!/usr/bin/env python3
"""mkimg-digest.py IMAGE: a tiny EROFS image with image-share digests.

Debian's mkfs.erofs 1.5 cannot write `--xattr-inode-digest` images, so
this writes one by hand (docs/format.md, "Image-share digests"): compat
ISHARE_XATTRS and PLAIN_XATTR_PFX, one long prefix "erofs.fingerprint.v1"
(base index 0, hidden) whose number is ishare_xattr_prefix_id, and three
regular files:

  /good   digest xattr "sha256:" + SHA-256 of its content
  /bad    digest xattr with one bit flipped
  /plain  no digest xattr

Expected: `fsck.erofs IMAGE` exits 0; `fsck.erofs --xattr-inode-digest
IMAGE` exits 4 with one problem, "/bad: ... content does not match its
sha256 digest xattr"; `--manifest` shows no xattrs (the digest is hidden).
"""
import hashlib, struct, sys

BS = 4096
PREFIX = b"erofs.fingerprint.v1"

def inode(mode, size, nlink, ino, icount=0, layout=2, u=0xFFFFFFFF):
    return struct.pack('<HHHHIIIIHHI', layout << 1, icount, mode, nlink,
                       size, 0, u, ino, 0, 0, 0)

def digest_xattr(content, good=True):
    d = hashlib.sha256(content).digest()
    if not good:
        d = bytes([d[0] ^ 1]) + d[1:]
    val = b"sha256:" + d
    ent = struct.pack('<BBH', 0, 0x80, len(val)) + val
    ent += b'\0' * (-len(ent) % 4)
    hdr = struct.pack('<IB7x', 0, 0)
    region = hdr + ent
    return region, 1 + (len(region) - 12) // 4

def build(out, files):
    meta = bytearray()
    # layout: root at nid 0, then files
    names = [b'.', b'..'] + [f[0] for f in files]
    order = sorted(range(len(names)), key=lambda i: names[i])
    dirsize = 12 * len(names) + sum(len(n) for n in names)
    root = inode(0o40755, dirsize, 2, 1)
    pos = 32 + dirsize
    nids = [0, 0]
    blobs = []
    for i, (name, content, kind) in enumerate(files):
        pos = (pos + 31) & ~31
        nids.append(pos // 32)
        if kind == 'none':
            region, icount = b'', 0
        else:
            region, icount = digest_xattr(content, kind == 'good')
        blob = inode(0o100644, len(content), 1, 2 + i, icount) + region + content
        blobs.append((pos, blob))
        pos += len(blob)
    dirents = b''
    nameoff = 12 * len(names)
    namebytes = b''
    for i in order:
        ft = 2 if i < 2 else 1
        dirents += struct.pack('<QHBB', nids[i], nameoff + len(namebytes), ft, 0)
        namebytes += names[i]
    meta = bytearray(root + dirents + namebytes)
    for p, blob in blobs:
        meta += b'\0' * (p - len(meta))
        meta += blob
    assert len(meta) <= BS
    img = bytearray(2 * BS)
    img[BS:BS + len(meta)] = meta
    pfx = struct.pack('<HB', 1 + len(PREFIX), 0) + PREFIX
    img[2048:2048 + len(pfx)] = pfx
    sb = bytearray(128)
    struct.pack_into('<IIIBBH', sb, 0, 0xE0F5E1E2, 0, 0x02 | 0x10 | 0x20, 12, 0, 0)
    struct.pack_into('<Q', sb, 16, 1 + len(files))
    struct.pack_into('<I', sb, 36, 2)        # blocks
    struct.pack_into('<I', sb, 40, 1)        # meta_blkaddr
    struct.pack_into('<I', sb, 80, 0x40)     # XATTR_PREFIXES
    sb[91] = 1                               # xattr_prefix_count
    struct.pack_into('<I', sb, 92, 2048 // 4)
    sb[105] = 0                              # ishare prefix id
    img[1024:1152] = sb
    open(out, 'wb').write(img)

build(sys.argv[1], [(b'good', b'hello world\n', 'good'),
                    (b'bad', b'other content\n', 'bad'),
                    (b'plain', b'no digest\n', 'none')])
