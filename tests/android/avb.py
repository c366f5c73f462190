#!/usr/bin/env python3
"""TAP test of AVB hashtree footers (docs/android.md, "AVB hashtree
footers"), made by lib/avbimg.py from the published format and checked,
where veritysetup is installed, by veritysetup verify --no-superblock with
the descriptor's parameters: an independent implementation of the tree.

Required: sha256, sha1 and sha512 footers checked with no option, at -j1
and -j2, with --extract=DIR giving the image's tree; a footer in a
partition of a super image and in a sparse image; a byte flipped in a
file's stored data named as verity.sh names it (exit 4), unseen with
--no-verity; --root-hash overriding the vbmeta's digest; the vbmeta's
root said to be the image's own (consistency, not origin) and refused by
--require-verity unless --root-hash gives it; a signed vbmeta said to be
unchecked; a vbmeta with other descriptors first, and one with no
hashtree (no tree to check); and damaged footers, vbmeta blobs and
descriptors (an image size cut short, impossible hash block sizes: exit
4, the filesystem still checked), each a clear message and no crash."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import crashed, run_fsck, tap, tap_end, write_file  # noqa: E402
import androidimg as ai  # noqa: E402
import avbimg  # noqa: E402

DATA = os.environ.get("EROFS_TEST_DATA", "")
VERITYSETUP = shutil.which("veritysetup")
SALT = b"\x5a" * 32
AVB_TREE = 'the dm-verity tree of the AVB hashtree footer (partition "system")'


def reported(what, args, status, texts):
    rc, _, err = run_fsck(*args)
    missing = [t for t in texts if t not in err]
    tap(rc == status and not missing and not crashed(err), what,
        ["exit %d, want %d; missing %r in:" % (rc, status, missing),
         err[-800:]])
    return err


def veritysetup_verify(path, root, tree_offset, blocks, alg):
    p = subprocess.run([VERITYSETUP, "verify", "--no-superblock",
                        "--hash=" + alg, "--data-blocks=%d" % blocks,
                        "--hash-offset=%d" % tree_offset,
                        "--salt=" + SALT.hex(), path, path, root.hex()],
                       capture_output=True, timeout=300)
    return p.returncode == 0


def good_footers(tmp, raw):
    want = run_fsck("--manifest", os.path.join(tmp, "raw.img"))[1]
    for alg in ("sha256", "sha1", "sha512"):
        part, root, off, n = avbimg.add_hashtree_footer(raw, alg=alg,
                                                        salt=SALT)
        img = write_file(os.path.join(tmp, alg + ".img"), part)
        if VERITYSETUP:
            tap(veritysetup_verify(img, root, off, n, alg),
                "%s: veritysetup verify --no-superblock takes the tree" % alg)
        else:
            tap(True, "%s: veritysetup" % alg, directive="SKIP no veritysetup")
        for j in ("-j1", "-j2"):
            rc, out, err = run_fsck("-d3", "--manifest", j, img)
            tap(rc == 0 and out == want and AVB_TREE in err and
                "dm-verity (%s, a tree of " % alg in err and
                " checked, 0 fail" in err,
                "%s footer %s: checked with no option, the manifest the "
                "image's" % (alg, j), ["exit %d" % rc, err[-600:]])
    x = os.path.join(tmp, "x")
    rc, _, err = run_fsck("-j2", "--extract=" + x,
                          os.path.join(tmp, "sha256.img"))
    rc2, diff, err2 = run_fsck("--compare=" + x, os.path.join(tmp, "raw.img"))
    tap(rc == 0 and rc2 == 0 and not diff,
        "--extract=DIR of a footed image holds the image's tree",
        [err[-300:], diff[:300], err2[-300:]])


def flipped(tmp, raw):
    part, root, off, n = avbimg.add_hashtree_footer(raw, salt=SALT)
    at = raw.index(bytes(2 << 20)) + (1 << 20)
    bad = bytearray(part)
    bad[at] ^= 0xff
    img = write_file(os.path.join(tmp, "flip.img"), bad)
    block = at // 4096
    err = reported("a byte of stored data flipped: the file and block named",
                   ("-j2", "--extract", img), 4,
                   ["/zeros-2m.bin: nid ",
                    "dm-verity data block %d fails its hash" % block])
    if VERITYSETUP:
        tap(not veritysetup_verify(img, root, off, n, "sha256"),
            "veritysetup verify fails the same image")
    else:
        tap(True, "veritysetup", directive="SKIP no veritysetup")
    rc, _, err = run_fsck("-d3", "--no-verity", img)
    tap(rc == 0 and "dm-verity" not in err,
        "--no-verity: the tree not checked, the flip unseen", [err[-400:]])
    good = write_file(os.path.join(tmp, "good.img"), part)
    other = bytes(b ^ 1 for b in root)
    reported("--root-hash overrides the vbmeta's digest", ("--root-hash=" +
             other.hex(), good), 4,
             ["its root hash is %s, not %s" % (root.hex(), other.hex())])
    reported("--root-hash of the true root: checked", ("-d3", "--root-hash=" +
             root.hex(), good), 0,
             ["its root hash from --root-hash", "checked, 0 fail"])
    # a root the image carries proves consistency, not origin
    reported("the vbmeta's root, unsigned: said to be the image's own",
             (good,), 0, ["root hash taken from the image (its vbmeta at "
                          "byte ", "proves consistency, not origin"])
    reported("--require-verity: the vbmeta's root refused", (
        "--require-verity", good), 4,
        ["--require-verity: the root hash comes from the image"])
    rc, _, err = run_fsck("--require-verity", "--root-hash=" + root.hex(),
                          good)
    tap(rc == 0 and not err,
        "--require-verity --root-hash of the true root: exit 0, silent",
        ["exit %d" % rc, err[-400:]])
    tree = bytearray(part)
    tree[off + len(tree[off:]) // 3 // 4096 * 4096 + 9] ^= 0xff
    leaf = write_file(os.path.join(tmp, "leaf.img"), tree)
    reported("a byte of the tree flipped: named", (leaf,), 4,
             ["fails its hash"])


def containers(tmp, raw):
    part, _, _, _ = avbimg.add_hashtree_footer(raw, salt=SALT)
    sup = ai.Super()
    sup.partition("system", part, pieces=3)
    img = write_file(os.path.join(tmp, "super.img"), sup.image())
    reported("a footed partition of a super image: checked",
             ("-d3", "--partition=system", img), 0,
             [AVB_TREE, "checked, 0 fail"])
    simg = os.path.join(tmp, "footed.simg")
    ai.write_sparse(simg, part)
    reported("a footed sparse image: checked", ("-d3", simg), 0,
             [AVB_TREE, "checked, 0 fail"])


def vbmeta_kinds(tmp, raw):
    part, _, _, _ = avbimg.add_hashtree_footer(raw, salt=SALT, signed=True)
    reported("a signed vbmeta: its signature said unchecked",
             ("-d3", write_file(os.path.join(tmp, "signed.img"), part)), 0,
             ["whose signature is not checked"])
    prop = avbimg.descriptor(avbimg.TAG_PROPERTY,
                             struct.pack(">QQ", 3, 5) + b"key\0value\0")
    part, _, _, _ = avbimg.add_hashtree_footer(
        raw, salt=SALT, extra_descriptors=[prop, prop])
    reported("a property descriptor first: the hashtree found",
             ("-d3", write_file(os.path.join(tmp, "props.img"), part)), 0,
             [AVB_TREE, "checked, 0 fail"])
    # a boot image's footer: a hash descriptor (tag 2), no tree
    data = ai.pad(raw)
    vb = avbimg.vbmeta([avbimg.descriptor(2, bytes(132))])
    img = bytearray(data + vb + bytes(4096))
    img[-64:] = avbimg.footer(len(raw), len(data), len(vb))
    rc, _, err = run_fsck("-d3",
                          write_file(os.path.join(tmp, "hash.img"), img))
    tap(rc == 0 and "dm-verity" not in err and not crashed(err),
        "a footer with no hashtree descriptor: no tree to check",
        ["exit %d" % rc, err[-400:]])
    # a hashtree descriptor of 8 bytes, its end the vbmeta's end: none of
    # its fields is read before its length is known to hold them
    vb = avbimg.vbmeta([avbimg.descriptor(2, bytes(24)),
                        avbimg.descriptor(avbimg.TAG_HASHTREE, bytes(8))])
    img = bytearray(data + vb + bytes(4096))
    img[-64:] = avbimg.footer(len(raw), len(data), len(vb))
    reported("a hashtree descriptor shorter than its fields, at the "
             "vbmeta's end", (write_file(os.path.join(tmp, "short.img"),
                                         img),), 4,
             ["AVB hashtree descriptor: shorter than its fields"])


def damaged(tmp, raw):
    part, _, off, _ = avbimg.add_hashtree_footer(raw, salt=SALT)
    size = len(part)
    vb_off, vb_size = struct.unpack(">QQ", part[-44:-28])
    desc = vb_off + 256 + 16     # the hashtree descriptor's fields

    def variant(what, at, fmt, value, status, texts):
        img = bytearray(part)
        struct.pack_into(fmt, img, at, value)
        reported(what, (write_file(os.path.join(tmp, "bad.img"), img),),
                 status, texts)

    variant("a footer pointing past the file", size - 44, ">Q", size * 2, 4,
            ["AVB footer: vbmeta of", "not within"])
    variant("a vbmeta larger than AVB allows", size - 36, ">Q", 1 << 30, 4,
            ["AVB footer: vbmeta of 1073741824 bytes"])
    variant("a footer of version 2", size - 60, ">I", 2, 8,
            ["AVB footer: version 2.0, not 1.x"])
    variant("no vbmeta where the footer points", vb_off, ">I", 0, 4,
            ['no "AVB0" magic'])
    variant("descriptors past the vbmeta's end", vb_off + 104, ">Q",
            1 << 20, 4, ["vbmeta: blocks of"])
    variant("a descriptor's size past the others' end", vb_off + 256 + 8,
            ">Q", 1 << 20, 4, ["a descriptor runs past the others' end"])
    variant("a tree past the partition", desc + 12, ">Q", size, 4,
            ["hashtree descriptor:", "not within the partition"])
    variant("a tree over the data", desc + 12, ">Q", 4096, 4,
            ["hashtree descriptor:", "after the data"])
    variant("a salt longer than the descriptor", desc + 92, ">I", 200, 4,
            ["do not fit its"])
    # the image size cut to two blocks: the root still matches, the
    # tree's spare bytes and the filesystem's size say otherwise
    variant("an image size cut to 2 blocks", desc + 4, ">Q", 8192, 4,
            ["holds bytes other than zeros past its 2 digests"])
    variant("dm-verity version 2", desc, ">I", 2, 8,
            ["dm-verity version 2, not 1"])
    # a footer whose vbmeta is damaged: the tree cannot be used, so
    # nothing is extracted
    img = bytearray(part)
    struct.pack_into(">I", img, vb_off, 0)
    out_dir = os.path.join(tmp, "damaged-vbmeta")
    rc, _, err = run_fsck("--extract=" + out_dir,
                          write_file(os.path.join(tmp, "bad.img"), img))
    tap(rc == 4 and not os.path.exists(out_dir) and
        "tree cannot be used: nothing is extracted" in err,
        "a damaged vbmeta: exit 4, nothing extracted",
        ["exit %d" % rc, err[-600:]])
    # impossible parameters the image carries: damage, and the
    # filesystem still checked (its entries counted at -d3)
    img = bytearray(part)
    struct.pack_into(">I", img, desc + 32, 3000)
    reported("hash blocks of 3000 bytes: exit 4, the filesystem checked",
             ("-d3", write_file(os.path.join(tmp, "bad.img"), img)), 4,
             ["hash blocks of 3000", " directories, ", " entries"])
    img = bytearray(part)
    img[vb_off + 256 + 16 + 164 + 6 + 32] ^= 0xff    # the root digest
    reported("a flipped root digest: both hashes named",
             (write_file(os.path.join(tmp, "root.img"), img),), 4,
             ["its root hash is "])


def main():
    src = os.path.join(DATA, "plain.erofs")
    if not os.path.exists(src):
        tap(False, "the stored test images", ["not in %r" % DATA])
        return tap_end()
    with open(src, "rb") as f:
        raw = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        write_file(os.path.join(tmp, "raw.img"), raw)
        good_footers(tmp, raw)
        flipped(tmp, raw)
        containers(tmp, raw)
        vbmeta_kinds(tmp, raw)
        damaged(tmp, raw)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
