#!/usr/bin/env python3
"""treemanifest.py - print the manifest of a directory tree.

usage: treemanifest.py [--fields N,N,...] [--no-xattrs] DIR

The format is the one "fsck.erofs --manifest" prints for an image: one line
per entry, "." (DIR itself) first, then every path below DIR in byte order
of the raw relative path, twelve fields separated by single spaces:

   1 path       bytes outside 0x21..0x7e, and the backslash, as \\xHH
   2 type       f d l c b p s
   3 mode       permission bits, 4 octal digits
   4 uid        5 gid
   6 size       regular: bytes; symlink: target length; c b p s: 0; dir: -
   7 mtime      seconds.nanoseconds (9 digits), seconds may be negative
   8 sha256     of the content (regular) or of the target (symlink), else -
   9 rdev       major:minor for c and b, else -
  10 nlink      non-directories only, else -
  11 linkgroup  nlink > 1: escaped smallest path of the same inode, else -
  12 xattrs     - or name=hexvalue items sorted by name, joined by ","
                (names escaped like paths, and "," "=" as \\x2c \\x3d)

--fields keeps only the listed fields (1-based), e.g. --fields 1,2,6,8.
"""
import argparse
import hashlib
import os
import stat
import sys

TYPE_CHAR = {
    stat.S_IFREG: "f", stat.S_IFDIR: "d", stat.S_IFLNK: "l",
    stat.S_IFCHR: "c", stat.S_IFBLK: "b", stat.S_IFIFO: "p",
    stat.S_IFSOCK: "s",
}


def escape(raw, also=b""):
    return "".join(chr(c) if 0x21 <= c <= 0x7e and c != 0x5c and c not in also
                   else "\\x%02x" % c for c in raw)


def digest_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def xattr_field(path):
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return "-"
    items = []
    for name in names:
        raw = os.fsencode(name)
        value = os.getxattr(path, name, follow_symlinks=False)
        items.append((raw, escape(raw, b",=") + "=" + value.hex()))
    return ",".join(text for _, text in sorted(items)) or "-"


def relative_paths(top):
    """every path below top, relative, as bytes; iterative, no symlink follow"""
    pending = [b""]
    found = []
    while pending:
        rel = pending.pop()
        with os.scandir(os.path.join(top, rel) if rel else top) as it:
            for entry in it:
                path = os.path.join(rel, entry.name) if rel else entry.name
                found.append(path)
                if entry.is_dir(follow_symlinks=False):
                    pending.append(path)
    return sorted(found)


def entry_fields(rel, full, st, group, with_xattrs):
    kind = TYPE_CHAR.get(stat.S_IFMT(st.st_mode), "?")
    size = sha = rdev = nlink = linkgroup = "-"
    if kind == "f":
        size = str(st.st_size)
        sha = digest_file(full)
    elif kind == "l":
        target = os.readlink(full)
        size = str(len(target))
        sha = hashlib.sha256(target).hexdigest()
    elif kind in "cbps":
        size = "0"
    if kind in "cb":
        rdev = "%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
    if kind != "d":
        nlink = str(st.st_nlink)
        if st.st_nlink > 1:
            linkgroup = escape(group[(st.st_dev, st.st_ino)])
    sec, nsec = divmod(st.st_mtime_ns, 1000000000)
    return [escape(rel), kind, "%04o" % stat.S_IMODE(st.st_mode),
            str(st.st_uid), str(st.st_gid), size, "%d.%09d" % (sec, nsec),
            sha, rdev, nlink, linkgroup,
            xattr_field(full) if with_xattrs else "-"]


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--fields", default="1,2,3,4,5,6,7,8,9,10,11,12")
    ap.add_argument("--no-xattrs", action="store_true")
    args = ap.parse_args()
    try:
        keep = [int(n) - 1 for n in args.fields.split(",")]
    except ValueError:
        ap.error("--fields takes numbers separated by commas")
    if any(not 0 <= n < 12 for n in keep):
        ap.error("--fields: fields are numbered 1 to 12")
    top = os.fsencode(args.dir)
    if not os.path.isdir(top):
        ap.error("%s is not a directory" % args.dir)

    entries = [(b".", top)]
    entries += [(rel, os.path.join(top, rel)) for rel in relative_paths(top)]
    stats = [os.lstat(full) for _, full in entries]
    group = {}
    for (rel, _), st in zip(entries, stats):
        if not stat.S_ISDIR(st.st_mode):
            group.setdefault((st.st_dev, st.st_ino), rel)

    out = sys.stdout
    for (rel, full), st in zip(entries, stats):
        fields = entry_fields(rel, full, st, group, not args.no_xattrs)
        out.write(" ".join(fields[n] for n in keep) + "\n")


if __name__ == "__main__":
    main()
