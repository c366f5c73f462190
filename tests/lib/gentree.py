#!/usr/bin/env python3
"""gentree.py - write a deterministic source tree for mkfs.erofs tests.

usage: gentree.py DIR

DIR must not exist. Every byte, name and mode comes from SHAKE-256 of a
fixed key, so two runs give the same tree. About 9 MiB, 400 entries:
files of 0, 1, 4095, 4096, 4097 ... bytes, multi-MiB compressible and
incompressible files, symlinks, hard links (one with runs of zeros), a
fifo, nested directories, a
directory of a few hundred entries and long names.
"""
import hashlib
import os
import sys

WORDS = (b"erofs fsck block inode extent cluster lz4 zstd lzma deflate "
         b"superblock dirent xattr chunk fragment packed metabox tail "
         b"the of and a to in is it that for on with as").split()


def stream(key, n):
    """n pseudo-random bytes derived from key."""
    return hashlib.shake_256(b"erofs-gentree:" + key.encode()).digest(n)


def text(key, n):
    """n bytes of compressible word text derived from key."""
    out = bytearray()
    seed = stream(key, 4096)
    i = 0
    while len(out) < n:
        out += WORDS[seed[i % len(seed)] % len(WORDS)]
        out += b"\n" if seed[(i + 7) % len(seed)] % 13 == 0 else b" "
        i += 1
    return bytes(out[:n])


def write(path, data, mode=0o644):
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


def sizes(top):
    d = os.path.join(top, "sizes")
    os.mkdir(d)
    for n in (0, 1, 100, 4095, 4096, 4097, 8191, 8192, 65535, 65536,
              65537, 131072 + 3):
        write(os.path.join(d, "rand-%d" % n), stream("rand%d" % n, n))
        write(os.path.join(d, "text-%d" % n), text("text%d" % n, n))


def big(top):
    d = os.path.join(top, "big")
    os.mkdir(d)
    write(os.path.join(d, "text-3m"), text("big-text", 3 * 1048576 + 17))
    write(os.path.join(d, "random-2m"), stream("big-rand", 2 * 1048576 + 5))
    mixed = stream("mixed-rand", 524288) + text("mixed-text", 524288 + 99)
    write(os.path.join(d, "mixed"), mixed)
    striped = b"".join(stream("stripe%d" % i, 16384) if i % 2 else
                       text("stripe%d" % i, 16384) for i in range(32))
    write(os.path.join(d, "striped"), striped)
    write(os.path.join(d, "zeros-1m"), bytes(1048576))
    write(os.path.join(d, "script.sh"), b"#!/bin/sh\necho hi\n", 0o755)


def bigdir(top):
    d = os.path.join(top, "bigdir")
    os.mkdir(d)
    key = stream("bigdir", 400)
    for i in range(300):
        name = "e%04d-%s" % (i, "x" * (key[i] % 40))
        path = os.path.join(d, name)
        kind = key[i + 1] % 20
        if kind == 0:
            os.mkdir(path)
        elif kind == 1:
            os.symlink("../sizes/text-%d" % (4095 + key[i] % 3), path)
        else:
            write(path, text("bigdir%d" % i, key[i + 2] * 7))


def names(top):
    d = os.path.join(top, "names")
    os.mkdir(d)
    # 254 bytes at most: mkfs.erofs 1.5 fails on 255-byte names
    for name in (b"a" * 254, b"\xc3\xa9" * 126 + b"xy",
                 b" leading and trailing space ", b"-dash", b"tab\tname",
                 b"back\\slash", b"quote'\"", b"glob*?[x]", b"..dots",
                 b"\xe9\xff\xfe-not-utf8"):
        write(os.path.join(os.fsencode(d), name), name + b"\n")
    deep = d
    for i in range(12):
        deep = os.path.join(deep, "level%02d-%s" % (i, "n" * 180))
        os.mkdir(deep)
    write(os.path.join(deep, "leaf"), b"deep leaf\n")


def links(top):
    d = os.path.join(top, "links")
    os.mkdir(d)
    os.symlink("../sizes/text-4097", os.path.join(d, "relative"))
    os.symlink("/etc/passwd", os.path.join(d, "absolute"))
    os.symlink("does/not/exist", os.path.join(d, "dangling"))
    os.symlink("../names", os.path.join(d, "to-dir"))
    os.symlink("t" * 1000, os.path.join(d, "long-target"))
    write(os.path.join(d, "hard-a"), text("hardlink", 5000))
    os.link(os.path.join(d, "hard-a"), os.path.join(top, "hard-b"))
    # runs of zeros that an archive's --sparse makes holes, in a file with
    # a second name (whose data an archive may have to copy whole)
    write(os.path.join(d, "zeros-a"), text("zeros", 5000) + bytes(70000) +
          text("zeros-end", 3000) + bytes(9000))
    os.link(os.path.join(d, "zeros-a"), os.path.join(d, "zeros-b"))
    os.mkfifo(os.path.join(d, "fifo"))


def modes(top):
    d = os.path.join(top, "modes")
    os.mkdir(d)
    for m in (0o400, 0o444, 0o600, 0o640, 0o700, 0o755, 0o777):
        write(os.path.join(d, "m%04o" % m), b"%o\n" % m, m)
    os.mkdir(os.path.join(d, "empty-dir"))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2])
    top = sys.argv[1]
    old = os.umask(0o022)
    os.mkdir(top)
    for part in (sizes, big, bigdir, names, links, modes):
        part(top)
    write(os.path.join(top, "empty"), b"")
    os.umask(old)


if __name__ == "__main__":
    main()
