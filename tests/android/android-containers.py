#!/usr/bin/env python3
"""TAP test of Android containers read in place (docs/android.md).

Sparse images: made by img2simg (RAW and FILL chunks) and by
lib/androidimg.py (RAW chunks of a few blocks, FILL chunks of a pattern,
DONT_CARE and CRC32 chunks; checked against simg2img first): --manifest,
--list, --tar, --extract=DIR (compared with --compare=DIR against the raw
image), --offset, -j1/-j2 and a pipe on standard input give what the raw
image gives. Damaged sparse images: each is reported, naming the chunk and
its offset, with the right exit status.

Super images made by lib/androidimg.py: --list-partitions, --partition
with and without the slot suffix, --slot, one and two metadata slots,
header versions 10.0 and 10.2, partitions of several extents, raw and
sparse; a non-EROFS partition, a missing one, a super image without
--partition; damaged geometry, metadata, tables and extents, with the
backup copy used where the primary alone is damaged. --write-partitions
with hostile names (a path out of DIR, "..", a name of the generated
partN kind) and a symlink already at a destination; 300 partitions
written with their table read once (the bytes read, through strace).

img2simg and simg2img (android-sdk-libsparse-utils) are needed for their
checks, which are skipped without them."""
import copy
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import FSCK, crashed, read_file, run_fsck, tap, tap_end, \
    write_file  # noqa: E402
import androidimg as ai  # noqa: E402

DATA = os.environ.get("EROFS_TEST_DATA", "")
HAVE_SIMG = bool(shutil.which("img2simg") and shutil.which("simg2img"))


def same(what, args, want, stdin=None):
    rc, out, err = run_fsck(*args, stdin=stdin)
    tap(rc == 0 and out == want and not crashed(err), what,
        ["exit %d" % rc, err[-600:]])


def reported(what, args, status, text):
    """A damaged container: exit status and message, no crash."""
    rc, _, err = run_fsck(*args)
    tap(rc == status and text in err and not crashed(err), what,
        ["exit %d, want %d; want %r in:" % (rc, status, text), err[-600:]])


def sparse_tests(tmp, raw_img):
    raw = read_file(raw_img)
    want = run_fsck("--manifest", raw_img)[1]
    if HAVE_SIMG:
        simg = os.path.join(tmp, "img2simg.simg")
        subprocess.run(["img2simg", raw_img, simg], check=True)
        for j in ("-j1", "-j2"):
            same("img2simg image: --manifest %s" % j,
                 ("--manifest", j, simg), want)
    else:
        tap(True, "img2simg image", directive="SKIP no img2simg")

    # a FILL pattern before the image, zeros after it, small RAW chunks
    head = b"\xde\xad\xbe\xef" * 2048
    padded = head + ai.pad(raw) + b"\0" * 3 * 4096
    plain = write_file(os.path.join(tmp, "padded.img"), padded)
    chunks = ai.sparse_chunks(padded, max_raw=3, crc_every=5)
    kinds = {c[0] for c in chunks}
    tap(kinds == {ai.RAW, ai.FILL, ai.DONT_CARE, ai.CRC32},
        "the writer makes every chunk type", [sorted(kinds)])
    own = write_file(os.path.join(tmp, "own.simg"), ai.sparse_bytes(chunks))
    if HAVE_SIMG:
        back = os.path.join(tmp, "back.img")
        subprocess.run(["simg2img", own, back], check=True)
        tap(read_file(back) == padded, "simg2img unsparses the writer's image")
    else:
        tap(True, "simg2img", directive="SKIP no simg2img")
    off = "--offset=%d" % len(head)
    for j in ("-j1", "-j2"):
        same("own sparse image, --offset: --manifest %s" % j,
             ("--manifest", off, j, own), want)
    same("own sparse image: --list", ("--list", off, own),
         run_fsck("--list", off, plain)[1])
    same("own sparse image: --tar=-", ("--tar=-", off, own),
         run_fsck("--tar=-", off, plain)[1])
    with open(own, "rb") as f:
        p = subprocess.Popen(["cat"], stdin=f, stdout=subprocess.PIPE)
        same("own sparse image through a pipe",
             ("--manifest", off, "-"), want, stdin=p.stdout)
        p.wait()
    out = os.path.join(tmp, "out")
    rc, _, err = run_fsck("--extract=" + out, "-j2", off, own)
    rc2, diff, err2 = run_fsck("--compare=" + out, raw_img)
    tap(rc == 0 and rc2 == 0 and not diff, "own sparse image: --extract=DIR"
        " holds the raw image's tree", [err[-300:], diff[:300], err2[-300:]])
    fill = write_file(os.path.join(tmp, "fill.simg"), ai.sparse_bytes(
        ai.sparse_chunks(padded, zeros="fill")))
    same("FILL chunks of zeros", ("--manifest", off, fill), want)
    sparse_damage(tmp, chunks, off)


def chunk_offsets(chunks):
    pos, out = 28, []
    for c in chunks:
        out.append(pos)
        pos += 12 + len(c[2])
    return out


def sparse_damage(tmp, chunks, off):
    good = ai.sparse_bytes(chunks)
    offs = chunk_offsets(chunks)
    first_raw = next(i for i, c in enumerate(chunks) if c[0] == ai.RAW)
    first_fill = next(i for i, c in enumerate(chunks) if c[0] == ai.FILL)
    first_crc = next(i for i, c in enumerate(chunks) if c[0] == ai.CRC32)

    def variant(name, data, status, text):
        path = write_file(os.path.join(tmp, "bad.simg"), data)
        reported("damaged sparse image: " + name, ("--extract", off, path),
                 status, text)

    def poke(pos, fmt, value):
        b = bytearray(good)
        struct.pack_into(fmt, b, pos, value)
        return bytes(b)

    at = "chunk %d at byte %d: " % (first_raw, offs[first_raw])
    variant("format version 2", poke(4, "<H", 2), 8, "format version 2.0")
    variant("block size not a multiple of 4", poke(12, "<I", 4094), 4,
            "block size")
    variant("RAW chunk of the wrong size",
            poke(offs[first_raw] + 4, "<I", chunks[first_raw][1] + 1), 4,
            at + "%d bytes of data" % len(chunks[first_raw][2]))
    variant("unknown chunk type", poke(offs[first_raw], "<H", 0xCAC9), 4,
            at + "unknown chunk type 0xcac9")
    variant("header claims a block more", poke(16, "<I", sum(
        c[1] for c in chunks) + 1), 4, "the header says")
    variant("header claims more chunks", poke(20, "<I", len(chunks) + 5),
            4, "past the end of the file")
    variant("truncated in a RAW chunk", good[:offs[first_raw] + 100], 4,
            at + "a size of")
    variant("CRC32 value wrong", poke(offs[first_crc] + 12, "<I", 1), 4,
            "chunk %d says 00000001" % first_crc)
    b = bytearray(good)
    b[offs[first_fill] + 8:offs[first_fill] + 12] = struct.pack("<I", 20)
    variant("FILL chunk of 8 bytes of data", bytes(b), 4,
            "chunk %d at byte %d: a FILL chunk with 8 bytes of data" %
            (first_fill, offs[first_fill]))
    variant("CRC32 chunk claiming blocks",
            poke(offs[first_crc] + 4, "<I", 1), 4,
            "a CRC32 chunk that claims 1 blocks")
    # 8 TiB of DONT_CARE before a CRC32 chunk: verified without a pass
    # over its zeros (a wrong value, so that it must get there)
    huge = chunks[:first_crc] + [[ai.DONT_CARE, 1 << 31, b""],
                                 [ai.CRC32, 0, b"\1\0\0\0"]]
    variant("CRC32 after 8 TiB of DONT_CARE", ai.sparse_bytes(huge), 4,
            "chunk %d says 00000001" % (first_crc + 1))
    variant("header only", good[:28], 4, "past the end of the file")
    variant("shorter than a header", good[:20], 4, "shorter than a header")
    path = write_file(os.path.join(tmp, "bad.simg"), good[:28])
    rc, _, err = run_fsck("--extract", off, path)
    tap(rc == 4 and err.startswith("fsck.erofs: %s: offset " % path),
        "damaged sparse image: the message starts with IMAGE, as "
        "documented", ["exit %d" % rc, err[-300:]])


def ext4_like(size=1 << 20):
    """An ext4 superblock's magic and its incompat feature "extents"."""
    b = bytearray(size)
    struct.pack_into("<H", b, 1080, 0xEF53)
    struct.pack_into("<I", b, 1024 + 96, 0x40)
    return bytes(b)


def make_super(raw_a, raw_b, **kw):
    s = ai.Super(**kw)
    ga = s.group("main_a")
    gb = s.group("main_b")
    s.partition("system_a", ai.pad(raw_a), pieces=3, group=ga)
    s.partition("system_b", group=gb)
    s.partition("vendor_a", ai.pad(raw_b), pieces=2, group=ga)
    s.partition("product_a", ext4_like(), group=ga)
    s.partition("odm_a", group=ga, attrs=0)
    return s


def super_tests(tmp, img_a, img_b):
    raw_a, raw_b = read_file(img_a), read_file(img_b)
    want_a = run_fsck("--manifest", img_a)[1]
    want_b = run_fsck("--manifest", img_b)[1]
    s = make_super(raw_a, raw_b)
    sup = write_file(os.path.join(tmp, "super.img"), s.image())

    rc, out, err = run_fsck("--list-partitions", sup)
    rows = {r.split("\t")[0]: r.split("\t") for r in
            out.decode().splitlines() if not r.startswith("#")}
    ok = (rc == 0 and rows.get("NAME", [None])[0] == "NAME" and
          rows["system_a"][1] == "main_a" and
          rows["system_a"][2] == str(len(ai.pad(raw_a))) and
          rows["system_a"][3] == "readonly" and
          rows["system_a"][4].count("super:") == 3 and
          rows["system_a"][5].startswith("EROFS, 4096-byte blocks") and
          rows["vendor_a"][4].count(",") == 1 and
          rows["product_a"][5] == "ext4" and
          rows["system_b"][5] == "empty" and rows["system_b"][4] == "-" and
          rows["odm_a"][3] == "-")
    tap(ok, "--list-partitions", ["exit %d" % rc, out.decode()[-800:],
                                  err[-300:]])
    rc, out, err = run_fsck("--list-partitions", "--json", sup)
    try:
        js = json.loads(out)
        parts = {p["name"]: p for p in js["partitions"]}
        ok = (rc == 0 and js["slots"] >= 1 and
              js["block_devices"][0]["name"] == "super" and
              list(parts) == [r for r in rows if r != "NAME"] and
              all(parts[n]["group"] == rows[n][1] and
                  parts[n]["size"] == int(rows[n][2]) and
                  parts[n]["content"] == rows[n][5] and
                  ",".join(parts[n]["attributes"] or ["-"]) == rows[n][3] and
                  len(parts[n]["extents"]) == (0 if rows[n][4] == "-" else
                                               rows[n][4].count(",") + 1)
                  for n in parts) and
              parts["system_a"]["slot"] == "a" and
              parts["system_a"]["holds"] == "EROFS" and
              parts["product_a"]["holds"] == "ext4" and
              parts["system_a"]["extents"][0]["device"] == "super")
    except (ValueError, KeyError, IndexError, TypeError) as e:
        ok = False
        err += str(e)
    tap(ok, "--list-partitions --json: the table's partitions, as JSON",
        ["exit %d" % rc, out.decode()[-800:], err[-300:]])
    for name in ("system", "system_a"):
        for j in ("-j1", "-j2"):
            same("--partition=%s %s" % (name, j),
                 ("--manifest", j, "--partition=" + name, sup), want_a)
    same("--partition=vendor --slot=a", ("--manifest", "--slot=a",
                                         "--partition=vendor", sup), want_b)
    out = os.path.join(tmp, "vendor")
    rc, _, err = run_fsck("--extract=" + out, "--partition=vendor_a", sup)
    rc2, diff, _ = run_fsck("--compare=" + out, img_b)
    tap(rc == 0 and rc2 == 0 and not diff, "--extract=DIR --partition",
        [err[-300:], diff[:300]])
    simg = write_file(os.path.join(tmp, "super.simg"), ai.sparse_bytes(
        ai.sparse_chunks(s.image(), max_raw=64)))
    same("sparse super image: --partition=vendor",
         ("--manifest", "--partition=vendor", simg), want_b)
    rc, out, err = run_fsck("--list-partitions", simg)
    tap(rc == 0 and out.split(b"\n")[1:] ==
        run_fsck("--list-partitions", sup)[1].split(b"\n")[1:],
        "sparse super image: --list-partitions", [err[-300:]])
    if HAVE_SIMG:
        simg2 = os.path.join(tmp, "super2.simg")
        subprocess.run(["img2simg", sup, simg2], check=True)
        same("img2simg super image: --partition=system",
             ("--manifest", "--partition=system", simg2), want_a)

    one = write_file(os.path.join(tmp, "one-slot.img"),
                make_super(raw_a, raw_b, slots=1, minor=0).image())
    same("one metadata slot, version 10.0",
         ("--manifest", "--partition=system", one), want_a)
    both = ai.Super()
    both.partition("system_a", ai.pad(raw_a), group=both.group("main_a"))
    both.partition("system_b", ai.pad(raw_b), group=both.group("main_b"))
    bimg = write_file(os.path.join(tmp, "both.img"), both.image())
    reported("both slots hold data, no --slot",
             ("--partition=system", bimg), 16, "--slot=a or --slot=b")
    same("both slots hold data, --slot=b",
         ("--manifest", "--slot=b", "--partition=system", bimg), want_b)
    reported("a partition that is not EROFS",
             ("--partition=product", sup), 8, "holds ext4, not EROFS")
    reported("a partition that is not there", ("--partition=nosuch", sup),
             8, "no partition nosuch (the partitions: system_a, system_b")
    reported("a super image without --partition", (sup,), 16,
             "--partition=NAME")
    reported("--partition on an EROFS image", ("--partition=system", img_a),
             8, "neither a GPT disk nor an Android super image")
    super_damage(tmp, s, want_a)


def flip(img, pos):
    b = bytearray(img)
    b[pos] ^= 0x40
    return b


def super_damage(tmp, s, want_a):
    good = s.image()

    def path(data):
        return write_file(os.path.join(tmp, "bad-super.img"), data)

    def backup_used(name, data, text):
        p = path(data)
        rc, out, err = run_fsck("--manifest", "--partition=system", p)
        tap(rc == 0 and out == want_a and text in err and
            "backup copy" in err, "damaged primary %s, good backup" % name,
            ["exit %d" % rc, err[-600:]])

    backup_used("geometry", flip(good, ai.RESERVED + 50),
                "geometry: SHA-256 checksum mismatch")
    backup_used("metadata header", flip(good, s.primary_metadata_pos() + 60),
                "metadata of slot 0: header SHA-256 checksum mismatch")
    backup_used("metadata tables", flip(good, s.primary_metadata_pos() + 300),
                "metadata of slot 0: tables SHA-256 checksum mismatch")
    rc, out, err = run_fsck("--list-partitions", path(flip(
        good, s.primary_metadata_pos() + 60)))
    tap(rc == 0 and b"system_a" in out and "backup copy" in err,
        "--list-partitions with a damaged primary", [err[-300:]])

    both = flip(flip(good, ai.RESERVED + 50),
                ai.RESERVED + ai.GEOMETRY_SIZE + 50)
    reported("both geometries damaged", ("--partition=system", path(both)),
             4, "geometry: SHA-256 checksum mismatch")
    both = flip(flip(good, s.primary_metadata_pos() + 60),
                s.backup_metadata_pos() + 60)
    reported("both metadata copies damaged",
             ("--partition=system", path(both)), 4, "header SHA-256")

    def sealed(name, mutate, status, text, part="system"):
        t = make_copy(s)
        mutate(t)
        reported(name, ("--partition=" + part, path(t.image())), status,
                 text)

    desc, off = [], 0
    for data, esize, count in s.tables():
        desc.append((off, count, esize))
        off += len(data)
    desc[0] = (0, 1000, 52)
    reported("a table past the tables' bytes", ("--partition=system", path(
        s.image(s.metadata(desc)))), 4, "the partition table")
    sealed("overlapping extents", lambda t: t.extents[3].__setitem__(
        2, t.extents[0][2] + 1), 4, "overlap at sector")
    sealed("an extent past its block device", lambda t: t.extents[1]
           .__setitem__(2, t.size // ai.SECTOR - 4), 4, "outside")
    sealed("an unknown attribute", lambda t: t.partitions[0].__setitem__(
        1, 0x100), 4, "unknown attributes 0x100")
    sealed("a group index past the table", lambda t: t.partitions[0]
           .__setitem__(4, 9), 4, "group 9 of 3")
    sealed("an extent of an unknown type", lambda t: t.extents[0]
           .__setitem__(1, 7), 4, "unknown target type 7")

    def other_device(t):
        t.devices.append([2048, 4096, 0, 64 << 20, "super_b", 0])
        t.extents[0][2:4] = [2048, 1]
    sealed("an extent on another block device", other_device, 8,
           "lies on block device super_b")
    many = ai.Super(max_size=2 << 20)
    for i in range(20000):
        many.partition("p%05d" % i, attrs=0)
    rc, out, err = run_fsck("--list-partitions", path(many.image()))
    tap(rc == 0 and out.count(b"\tempty\n") == 20000,
        "20000 partitions", ["exit %d" % rc, err[-300:]])
    many.partitions[19999][0] = "p00007"
    reported("two partitions of one name", ("--list-partitions",
                                            path(many.image())),
             4, "two partitions named p00007")
    vendor_end = s.extents[4][2] * ai.SECTOR + 1000
    cut = path(good[:vendor_end])
    reported("super image cut inside vendor: vendor",
             ("--partition=vendor", cut), 4, "is past the end of")
    same("super image cut inside vendor: system is whole",
         ("--manifest", "--partition=system", cut), want_a)


def make_copy(s):
    return copy.deepcopy(s)


def allocated(path):
    return os.stat(path).st_blocks * 512


def write_tests(tmp, img_a, img_b):
    """--write-image and --write-partitions: the bytes out of sparse and
    super images, as simg2img and lpunpack give them"""
    raw_a, raw_b = read_file(img_a), read_file(img_b)
    out = os.path.join(tmp, "w.img")
    if HAVE_SIMG:
        simg = os.path.join(tmp, "w.simg")
        subprocess.run(["img2simg", img_a, simg], check=True)
        back = os.path.join(tmp, "simg2img.img")
        subprocess.run(["simg2img", simg, back], check=True)
        rc, _, err = run_fsck("--write-image=" + out, simg)
        tap(rc == 0 and read_file(out) == read_file(back),
            "--write-image of a sparse image: simg2img's bytes, checked",
            ["exit %d" % rc, err[-300:]])
        rc, piped, err = run_fsck("--write-image=/dev/stdout", simg)
        tap(rc == 0 and piped == read_file(back),
            "--write-image=/dev/stdout into a pipe: the same bytes",
            ["exit %d" % rc, err[-300:]])
    else:
        tap(True, "--write-image of a sparse image",
            directive="SKIP no img2simg")
        tap(True, "--write-image=/dev/stdout", directive="SKIP no img2simg")
    s = make_super(raw_a, raw_b)
    sup = write_file(os.path.join(tmp, "w-super.img"), s.image())
    rc, _, err = run_fsck("--write-image=" + out, "--partition=system_a", sup)
    tap(rc == 0 and read_file(out) == ai.pad(raw_a),
        "--write-image --partition=system_a: the partition's bytes",
        ["exit %d" % rc, err[-300:]])
    rc, _, err = run_fsck("--write-image=" + out, "--partition=product_a", sup)
    tap(rc == 0 and read_file(out) == ext4_like() and "not EROFS" not in err,
        "--write-image of an ext4 partition: written, exit 0",
        ["exit %d" % rc, err[-300:]])
    rc, _, err = run_fsck("--sparse", "--write-image=" + out,
                     "--partition=product_a", sup)
    tap(rc == 0 and read_file(out) == ext4_like() and
        allocated(out) < len(ext4_like()) // 2,
        "--write-image --sparse: zero runs become holes",
        ["exit %d, %d bytes allocated" % (rc, allocated(out)), err[-300:]])
    parts = os.path.join(tmp, "parts")
    rc, _, err = run_fsck("-d3", "--write-partitions=" + parts, sup)
    files = sorted(os.listdir(parts)) if os.path.isdir(parts) else []
    tap(rc == 0 and files == ["product_a.img", "system_a.img",
                              "vendor_a.img"] and
        read_file(os.path.join(parts, "system_a.img")) == ai.pad(raw_a) and
        read_file(os.path.join(parts, "vendor_a.img")) == ai.pad(raw_b) and
        err.count("no errors found") == 1,
        "--write-partitions: every partition with bytes, as lpunpack, "
        "the EROFS ones checked", ["exit %d: %s" % (rc, files),
                                   err[-600:]])
    rc, _, err = run_fsck("--write-image=" + sup, "--partition=system_a", sup)
    tap(rc == 16 and "which this run reads" in err,
        "--write-image onto IMAGE: refused (exit 16)",
        ["exit %d" % rc, err[-300:]])


def unsafe_name_tests(tmp):
    """--write-partitions with names a super image may carry: a path out
    of DIR, control bytes, a generated name; what is already in DIR"""
    s = ai.Super()
    g = s.group("main")
    names = ["../../x", "..", "part9", "good"]
    for k, name in enumerate(names):
        s.partition(name, ext4_like(8192 * (k + 1)), group=g)
    sup = write_file(os.path.join(tmp, "n-super.img"), s.image())
    top = os.path.join(tmp, "n1", "n2")
    os.makedirs(top)
    parts = os.path.join(top, "parts")
    rc, _, err = run_fsck("--write-partitions=" + parts, sup)
    files = sorted(os.listdir(parts)) if os.path.isdir(parts) else []
    want = ["good.img", "part1.img", "part2.img", "part3.img"]
    contents = all(read_file(os.path.join(parts, f)) ==
                   ext4_like(8192 * (k + 1))
                   for k, f in enumerate(["part1.img", "part2.img",
                                          "part3.img", "good.img"])
                   if f in files)
    outside = [f for f in os.listdir(os.path.dirname(top)) if f != "n2"] + \
        [f for f in os.listdir(top) if f != "parts"]
    tap(rc == 0 and files == want and contents and not outside and
        "partition 1: its name" in err,
        "--write-partitions: a name with '/', '..' or of the generated "
        "kind becomes partN.img, inside DIR, said",
        ["exit %d: %s, outside %s" % (rc, files, outside), err[-600:]])
    victim = write_file(os.path.join(tmp, "victim"), b"keep me")
    ours = os.path.join(tmp, "n-parts")
    os.mkdir(ours)
    os.symlink(victim, os.path.join(ours, "good.img"))
    rc, _, err = run_fsck("--write-partitions=" + ours, sup)
    tap(rc == 8 and read_file(victim) == b"keep me" and
        os.path.islink(os.path.join(ours, "good.img")) and
        "exists, not replaced" in err,
        "--write-partitions: a symlink at a destination is neither "
        "followed nor replaced (exit 8)", ["exit %d" % rc, err[-600:]])
    rc, _, err = run_fsck("--write-partitions=" + ours, "--overwrite", sup)
    good = os.path.join(ours, "good.img")
    tap(rc == 0 and read_file(victim) == b"keep me" and
        not os.path.islink(good) and read_file(good) == ext4_like(8192 * 4),
        "--write-partitions --overwrite: the symlink replaced, not its "
        "target", ["exit %d" % rc, err[-600:]])


def many_partitions_tests(tmp):
    """--write-partitions of a super image of 300 partitions reads its
    table once: the bytes read (strace) stay within twice the image's
    size, where reading the metadata again for each partition read a
    megabyte a partition"""
    if not shutil.which("strace"):
        tap(True, "--write-partitions reads the table once",
            directive="SKIP no strace")
        return
    s = ai.Super(size=16 << 20, max_size=1 << 20, slots=1)
    g = s.group("main")
    for k in range(300):
        s.partition("p%d" % k, bytes([k & 0xff]) * 4096, group=g)
    sup = write_file(os.path.join(tmp, "many.img"), s.image())
    parts = os.path.join(tmp, "many")
    trace = os.path.join(tmp, "many.strace")
    # LeakSanitizer does not run under ptrace
    asan = os.environ.get("ASAN_OPTIONS", "")
    env = dict(os.environ, ASAN_OPTIONS=asan + (":" if asan else "") +
               "detect_leaks=0")
    p = subprocess.run(["strace", "-f", "-e", "trace=pread64,read",
                        "-o", trace, FSCK, "--write-partitions=" + parts,
                        sup], capture_output=True, timeout=600, env=env)
    with open(trace) as f:
        got = sum(int(line.rsplit("=", 1)[1].split()[0]) for line in f
                  if "pread64(" in line and "= " in line and
                  line.rsplit("=", 1)[1].split()[0].isdigit())
    files = os.listdir(parts) if os.path.isdir(parts) else []
    tap(p.returncode == 0 and len(files) == 300 and
        read_file(os.path.join(parts, "p299.img")) == bytes([299 & 0xff]) *
        4096 and got < 2 * os.path.getsize(sup),
        "--write-partitions of 300 partitions reads the table once "
        "(%d bytes read of a %d-byte image)" % (got, os.path.getsize(sup)),
        ["exit %d, %d files" % (p.returncode, len(files)),
         p.stderr[-300:].decode(errors="replace")])


def main():
    img_a = os.path.join(DATA, "lz4hc-default.erofs")
    img_b = os.path.join(DATA, "zstd-c64k-fragments.erofs")
    if not (os.path.exists(img_a) and os.path.exists(img_b)):
        tap(False, "the stored test images", ["not in %r" % DATA])
        return tap_end()
    with tempfile.TemporaryDirectory() as tmp:
        sparse_tests(tmp, img_a)
        super_tests(tmp, img_a, img_b)
        write_tests(tmp, img_a, img_b)
        unsafe_name_tests(tmp)
        many_partitions_tests(tmp)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
