"""Android Verified Boot hashtree footers for the tests, written from the
published format as docs/android.md ("AVB hashtree footers") describes it:
the image padded to whole blocks, its dm-verity tree after it (no
superblock, the salt before each block, every digest in a power-of-two
slot, the levels top first), a vbmeta blob with one hashtree descriptor,
and the 64-byte footer at the partition's end. Every field is big-endian.
"""
import hashlib
import struct

BLOCK = 4096
TAG_HASHTREE = 1
TAG_PROPERTY = 0


def pad(data, to):
    return data + b"\0" * (-len(data) % to)


def hash_tree(data, block, alg, salt):
    """(root digest, tree bytes) of data (whole blocks), as dm-verity's
    version 1 lays them out."""
    size = hashlib.new(alg).digest_size
    slot = 1 << (size - 1).bit_length()
    levels, src = [], data
    while True:
        level = b"".join(
            hashlib.new(alg, salt + src[i:i + block]).digest().ljust(
                slot, b"\0") for i in range(0, len(src), block))
        levels.append(pad(level, block))
        if len(levels[-1]) == block:
            break
        src = levels[-1]
    root = hashlib.new(alg, salt + levels[-1]).digest()
    return root, b"".join(reversed(levels))


def descriptor(tag, body):
    body = pad(body, 8)
    return struct.pack(">QQ", tag, len(body)) + body


def hashtree_descriptor(image_size, tree_offset, tree_size, block, alg,
                        name, salt, root, version=1):
    fixed = struct.pack(">IQQQIIIQQ32sIIII60s", version, image_size,
                        tree_offset, tree_size, block, block, 0, 0, 0,
                        alg.encode(), len(name), len(salt), len(root), 0,
                        b"")
    return descriptor(TAG_HASHTREE, fixed + name.encode() + salt + root)


def vbmeta(descriptors, signed=False):
    """A vbmeta blob: the header, an authentication block (64 bytes of
    zeros standing for a signature when signed: nothing checks it) and
    the auxiliary block holding the descriptors."""
    desc = b"".join(descriptors)
    auth = b"\0" * 64 if signed else b""
    aux = pad(desc, 64)
    header = struct.pack(">4sIIQQIQQQQQQQQQQQII48s80s", b"AVB0", 1, 0,
                         len(auth), len(aux), 1 if signed else 0,
                         0, 0, 0, 0, 0, 0, 0, 0, 0, len(desc), 0, 0, 0,
                         b"erofs-fsck tests", b"")
    assert len(header) == 256
    return header + auth + aux


def footer(original_size, vbmeta_offset, vbmeta_size):
    return struct.pack(">4sIIQQQ28s", b"AVBf", 1, 0, original_size,
                       vbmeta_offset, vbmeta_size, b"")


def add_hashtree_footer(image, partition_size=None, alg="sha256",
                        salt=b"\x5a" * 32, name="system", block=BLOCK,
                        signed=False, extra_descriptors=()):
    """image (bytes) as an AVB partition: (partition bytes, root digest,
    tree offset, data blocks)."""
    data = pad(image, block)
    root, tree = hash_tree(data, block, alg, salt)
    tree_offset = len(data)
    vb_offset = tree_offset + len(tree)
    vb = vbmeta(list(extra_descriptors) + [hashtree_descriptor(
        len(data), tree_offset, len(tree), block, alg, name, salt, root)],
        signed)
    end = vb_offset + len(vb) + 64
    if partition_size is None:
        partition_size = end + (-end % block)
    assert partition_size >= end
    out = bytearray(partition_size)
    out[:len(data)] = data
    out[tree_offset:vb_offset] = tree
    out[vb_offset:vb_offset + len(vb)] = vb
    out[-64:] = footer(len(image), vb_offset, len(vb))
    return bytes(out), root, tree_offset, len(data) // block
