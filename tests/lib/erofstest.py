# SPDX-License-Identifier: MIT
"""erofstest.py - what the Python tests share: reading and sealing the
bytes of an image they craft or damage (little-endian fields, the
superblock checksum), running fsck.erofs (FSCK in the environment) and
telling a sanitizer's report, and TAP output (one numbered line a check,
the first lines of what went wrong under a failure, the plan last).

A test imports it by name: Python puts the directory of the script it
runs, tests/, first on the module path."""
import hashlib
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys

# tests/ in the source tree, and srcdir as make check gives it
TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRCDIR = os.environ.get("srcdir", TESTS)

SB = 1024                                   # superblock offset


def le16(buf, off):
    return struct.unpack_from("<H", buf, off)[0]


def le32(buf, off):
    return struct.unpack_from("<I", buf, off)[0]


def le64(buf, off):
    return struct.unpack_from("<Q", buf, off)[0]


def round_up(x, a):
    return (x + a - 1) // a * a


def _crc32c_table():
    table = []
    for n in range(256):
        for _ in range(8):
            n = (n >> 1) ^ 0x82F63B78 if n & 1 else n >> 1
        table.append(n)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c_register(data):
    """CRC32C register after data, started at ~0 and not inverted at the
    end, as the superblock checksum is (docs/format.md, "Checksums")"""
    reg = 0xFFFFFFFF
    for byte in data:
        reg = _CRC_TABLE[(reg ^ byte) & 0xFF] ^ (reg >> 8)
    return reg


def seal_superblock(buf, block_size):
    """Store the checksum of the superblock in its field (which counts as
    zero while it is computed): over the rest of block 0 from byte SB on,
    or over block_size bytes when blocks are no larger than SB."""
    length = block_size - SB if block_size > SB else block_size
    struct.pack_into("<I", buf, SB + 4, 0)
    struct.pack_into("<I", buf, SB + 4,
                     crc32c_register(bytes(buf[SB:SB + length])))


FSCK = os.environ.get("FSCK", "../fsck/fsck.erofs")

# The lines a run ends with when no hash tree verified its data against a
# root hash the user gave (fsck/check/integrity.h): a clean run prints
# them and nothing else, and tests that want silence take them out.
NOTE_RE = re.compile(
    r"^fsck\.erofs: .*: (?:(?:no hash tree|the dm-verity tree could not be "
    r"used): [0-9.]+ (?:bytes|[KMGTPE]iB) of file data and every inode "
    r"field are unchecked |root hash taken from the image |device [0-9]+ "
    r"\(.*\): [0-9.]+ (?:bytes|[KMGTPE]iB) that no hash tree covers$).*\n?",
    re.M)


def without_notes(err):
    """err (str or bytes) without those lines"""
    if isinstance(err, bytes):
        return NOTE_RE.sub("", err.decode(errors="surrogateescape")).encode(
            errors="surrogateescape")
    return NOTE_RE.sub("", err)


def _unpacked_copy(name):
    """the copy of a stored image make check unpacked (EROFS_TEST_DATA),
    or None"""
    path = os.path.join(os.environ.get("EROFS_TEST_DATA", "/nonexistent"),
                        name)
    return os.path.abspath(path) if os.path.isfile(path) else None


def stored_image(name, scratch):
    """the path of the stored test image name (data/NAME.xz): make check's
    unpacked copy, or one unpacked into scratch"""
    path = _unpacked_copy(name)
    if path:
        return path
    path = os.path.join(scratch, name)
    if not os.path.isfile(path):
        with lzma.open(os.path.join(SRCDIR, "data", name + ".xz")) as src, \
                open(path, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    return path


def stored_image_bytes(name):
    """the bytes of the stored test image name"""
    path = _unpacked_copy(name)
    if path:
        return read_file(path)
    with lzma.open(os.path.join(SRCDIR, "data", name + ".xz")) as f:
        return f.read()


def incomplete_file(path, rel, want):
    """why the regular file at path, the image's rel, is not that file of
    the image whole (want: manifest_files), or None"""
    with open(path, "rb") as f:
        data = f.read()
    if rel not in want:
        return "%s: not in the image" % rel
    if (len(data), hashlib.sha256(data).hexdigest()) != want[rel]:
        return "%s: %d bytes, not the %d bytes of the image, or other " \
            "content" % (rel, len(data), want[rel][0])
    return None


def manifest_files(manifest):
    """path -> (size, SHA-256) of each regular file a manifest lists"""
    want = {}
    with open(manifest) as f:
        for line in f:
            field = line.split(" ")
            if field[1] == "f":
                want[field[0]] = (int(field[5]), field[7])
    return want


def run_fsck(*args, stdin=None, timeout=300):
    """fsck.erofs with args: its exit status, standard output (bytes) and
    standard error (text)."""
    p = subprocess.run([FSCK, *map(str, args)], capture_output=True,
                       timeout=timeout, stdin=stdin)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def crashed(err):
    """Did a sanitizer report in this standard error?"""
    return "Sanitizer" in err or "runtime error" in err


def verdict(returncode, out, expect, says=None):
    """The complaints about a run on a damaged or hostile image (the one
    rule corrupt.py and hostile.py share): a crash (a signal, or an exit
    status of 124 or more), an exit status not in expect, a sanitizer's
    report or an allocation that failed, output (stdout and stderr, as
    text) not matching the regular expression says."""
    problems = []
    if returncode < 0 or returncode >= 124:
        problems.append("crash: exit status %d" % returncode)
    elif returncode not in expect:
        problems.append("exit %d, expected %s" % (
            returncode, " or ".join(map(str, sorted(expect)))))
    if re.search(r"Sanitizer|runtime error:|out of memory", out):
        problems.append("sanitizer report or out of memory")
    if says and not re.search(says, out, re.I):
        problems.append("output does not match /%s/" % says)
    return problems


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def write_file(path, data):
    """data into path; path."""
    with open(path, "wb") as f:
        f.write(data)
    return path


_count = 0
_failed = False


def tap(ok, what, details=(), directive=""):
    """One check. A directive ("TODO why", "SKIP why") follows the
    description; a failed TODO check does not fail the test."""
    global _count, _failed
    _count += 1
    line = "%s %d - %s" % ("ok" if ok else "not ok", _count, what)
    print(line + (" # " + directive if directive else ""))
    for text in [] if ok else list(details)[:10]:
        print("#   %s" % text)
    _failed |= not ok and not directive.startswith("TODO")
    sys.stdout.flush()


def tap_end():
    """Print the plan; the exit status of the test."""
    print("1..%d" % _count)
    return 1 if _failed else 0
