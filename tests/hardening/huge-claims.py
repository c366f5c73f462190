#!/usr/bin/env python3
"""TAP test of what a container or an image may claim, in sizes, that it
does not hold: none of it is read, scanned or written byte by byte, the
room it would take is checked before writing, every loop sees a signal,
and a --tar=FILE that would miss entries leaves FILE as it was.

- A sparse image of a few MiB ending in a DONT_CARE chunk to 2^32-1
  blocks (16 TiB), and a super image whose partition ends in a ZERO
  extent of 2^34 sectors (8 TiB, within what ext4 holds): --write-image
  --sparse writes them as holes, without --sparse they are refused
  before writing, naming the size.
- data/huge-hole.erofs, a file of 255 TiB of hole (as the fuzz target's
  file of 512 PiB, which --tar fed to libarchive 1 MiB at a time, never
  ending, deaf to SIGTERM): --tar (pax) stores the hole in its sparse
  map; a format that stores the hole as zeros is refused before a byte of
  it is written to a file, and to /dev/null a SIGTERM stops it (exit
  32).
- --tar=FILE whose archive misses an entry (a file left out for want of
  TMPDIR room, named; a fifo --format=zip cannot hold) leaves FILE as it
  was, saying so.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import FSCK, crashed, read_file, run_fsck, \
    stored_image, tap, tap_end, write_file  # noqa: E402
import androidimg as ai  # noqa: E402

HUGE_SIZE = 280375465099264
TIB = 1 << 40


def allocated(path):
    return os.stat(path).st_blocks * 512


def fsck(*args):
    """run_fsck; a run still going after 120 s (the bug) gives "timeout"."""
    try:
        return run_fsck(*args, timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout", b"", "still running after 120 s"


def head(path, n):
    with open(path, "rb") as f:
        return f.read(n)


def raw_of(tmp):
    raw = read_file(stored_image("plain.erofs", tmp))
    return raw + b"\0" * (-len(raw) % 4096)


def write_image_tests(tmp, raw):
    chunks = ai.sparse_chunks(raw)
    chunks.append([ai.DONT_CARE, 0xFFFFFFFF - len(raw) // 4096, b""])
    simg = write_file(os.path.join(tmp, "huge.simg"),
                      ai.sparse_bytes(chunks))
    s = ai.Super()
    s.partition("system", raw)
    s.extents.append([1 << 34, ai.ZERO, 0, 0])
    s.partitions[-1][3] += 1
    sup = write_file(os.path.join(tmp, "huge.super"), s.image())
    for what, img, args, size in (
            ("sparse image, 16 TiB of DONT_CARE", simg, [],
             0xFFFFFFFF * 4096),
            ("super image, a ZERO extent of 8 TiB", sup,
             ["--partition=system"], len(raw) + (1 << 43))):
        out = os.path.join(tmp, "w.img")
        rc, _, err = fsck("--sparse", "--write-image=" + out, *args, img)
        ok = rc == 0 and os.path.isfile(out) and \
            os.path.getsize(out) == size and allocated(out) < (64 << 20)
        tap(ok and head(out, len(raw)) == raw,
            "%s: --write-image --sparse writes its zeros as holes" % what,
            ["exit %s" % rc, err[-600:]])
        if os.path.exists(out):
            os.unlink(out)
        rc, _, err = fsck("--write-image=" + out, *args, img)
        tap(rc == 8 and "needs %d bytes" % size in err and
            "--sparse" in err and not os.path.exists(out),
            "%s: without --sparse refused before writing, naming the size"
            % what, ["exit %s" % rc, err[-600:]])


def tar_entries(path):
    import tarfile
    with tarfile.open(path) as t:
        return [(m.name, m.size, getattr(m, "sparse", None))
                for m in t.getmembers()]


def huge_hole_tests(tmp):
    huge = stored_image("huge-hole.erofs", tmp)
    out = os.path.join(tmp, "h.tar")
    rc, _, err = fsck("--no-sbcrc", "--tar=" + out, huge)
    got = tar_entries(out) if rc == 0 else []
    sparse = [e for e in got if e[0] == "sorted"]
    tap(rc == 0 and len(sparse) == 1 and sparse[0][1] == HUGE_SIZE and
        sparse[0][2] and sparse[0][2][0] == (0, 12288) and
        os.path.getsize(out) < (1 << 20) and not crashed(err),
        "255 TiB of hole: --tar (pax) stores it in the sparse map",
        ["exit %s" % rc, str(got), err[-600:]])
    write_file(out, b"old")
    rc, _, err = fsck("--no-sbcrc", "--format=gnutar", "--tar=" + out, huge)
    tap(rc == 8 and "sorted needs 255.0 TiB in the archive" in err and
        read_file(out) == b"old",
        "255 TiB of hole, a format that stores it as zeros: refused "
        "before writing, FILE left as it was",
        ["exit %s" % rc, err[-600:]])
    p = subprocess.Popen([FSCK, "--no-sbcrc", "--format=gnutar",
                          "--tar=/dev/null", huge], stderr=subprocess.PIPE)
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=60)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        rc = "none: still running 60 s after SIGTERM"
    tap(rc == 32 and b"interrupted by SIGTERM" in err,
        "255 TiB of zeros to /dev/null: the first SIGTERM stops it",
        ["exit %s" % rc, err.decode(errors="replace")[-600:]])


def make_tree_image(tmp):
    tree = os.path.join(tmp, "tree")
    os.mkdir(tree)
    write_file(os.path.join(tree, "big"), os.urandom(5 << 20))
    write_file(os.path.join(tree, "small"), b"hi\n")
    os.mkfifo(os.path.join(tree, "fifo"))
    img = os.path.join(tmp, "tree.erofs")
    subprocess.run(["mkfs.erofs", img, tree], check=True,
                   capture_output=True)
    return img


def tar_kept_tests(tmp):
    img = make_tree_image(tmp)
    out = write_file(os.path.join(tmp, "kept.zip"), b"old")
    rc, _, err = run_fsck("--format=zip", "--tar=" + out, img)
    tap(rc == 8 and read_file(out) == b"old" and "fifo" in err and
        "not replaced, as the archive is not complete" in err,
        "--format=zip of an image with a fifo: FILE left as it was",
        ["exit %d" % rc, err[-600:]])
    small = os.path.join(tmp, "small-tmp")
    os.mkdir(small)
    if os.geteuid() != 0:
        tap(True, "a full TMPDIR", directive="SKIP mounting needs root")
        return
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs",
                       small]).returncode:
        tap(True, "a full TMPDIR", directive="SKIP no tmpfs mount")
        return
    try:
        write_file(out, b"old")
        env = dict(os.environ, TMPDIR=small)
        p = subprocess.run([FSCK, "--tar=" + out, img], env=env,
                           capture_output=True, timeout=120)
        err = p.stderr.decode(errors="replace")
        tap(p.returncode == 8 and read_file(out) == b"old" and
            "1 file left out: cannot keep their data in %s (TMPDIR): "
            "No space left on device: big" % small in err,
            "a full TMPDIR: the file left out is named, FILE left as it was",
            ["exit %d" % p.returncode, err[-600:]])
    finally:
        subprocess.run(["umount", small])


def main():
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        write_image_tests(tmp, raw_of(tmp))
        huge_hole_tests(tmp)
        tar_kept_tests(tmp)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
