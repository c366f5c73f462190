# SPDX-License-Identifier: MIT
"""tarlib.py - what the --tar tests share: running fsck.erofs, a scratch
directory (on a tmpfs as root, for every kind of xattr), unpacking with
bsdtar or GNU tar, comparing manifests and listings."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from erofstest import stored_image

TREEMANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "treemanifest.py")

UNPACK = {
    "bsdtar": ["bsdtar", "-xp", "--xattrs", "--acls", "--numeric-owner",
               "-f"],
    "tar": ["tar", "-xp", "--xattrs", "--xattrs-include=*", "--acls",
            "--numeric-owner", "-f"],
}

# bsdtar leaves the mtime of "." alone, and restores an xattr whose name
# libarchive URL-encodes ('=', '%', bytes outside printable ASCII) under
# that encoded name, from the SCHILY.xattr record, the only one fsck.erofs
# writes by default (with --options=xattrheader=ALL, under both names)
BSDTAR_IGNORES = {"root_mtime": True, "schily_names": True,
                  "what": " (but the mtime of \".\", and odd xattr names "
                          "URL-encoded)"}
# the same, for an archive written with --options=xattrheader=ALL
BSDTAR_ALL_IGNORES = {"root_mtime": True, "schily_copies": True,
                      "what": " (but the mtime of \".\", and the "
                              "URL-encoded copies of odd xattr names)"}
# GNU tar sets a pax mtime before 1970 with a fraction one second early
# (the "-1.5" of times/minus-half comes back as -2.5); it restores xattrs
# from the SCHILY.xattr records, where libarchive URL-encodes odd names
GNUTAR_IGNORES = {"root_mtime": False, "negative_nsec": True,
                  "schily_names": True,
                  "what": " (but mtimes before 1970 with nanoseconds, and "
                          "odd xattr names URL-encoded)"}


def stored_images(data):
    """(image, manifest, options) of each line of data/index"""
    with open(os.path.join(data, "index")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, manifest, *opts = line.split()
                yield name, manifest, opts


def image_args(name, opts, scratch):
    """fsck.erofs's arguments for an index line: its options, each
    OPTION=@NAME naming the unpacked image NAME, then the image"""
    out = []
    for opt in opts:
        if "=@" in opt:
            key, other = opt.split("=@", 1)
            opt = key + "=" + stored_image(other, scratch)
        out.append(opt)
    return out + [stored_image(name, scratch)]


def run(args, env=None, stdin=None):
    """(exit status, standard output bytes, standard error text)"""
    p = subprocess.run(args, env=env, stdin=stdin, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def have_tar(fsck):
    """is --tar built in? (the usage error of a bad option otherwise)"""
    rc, _, err = run([fsck, "--tar=/dev/null", "/nonexistent"])
    return "without libarchive" not in err


class Scratch:
    """a temporary directory, on a tmpfs when root can mount one"""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="tar-test.", dir=".")
        self.mounted = os.geteuid() == 0 and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1g,mode=0700",
             "erofs-tar-test", self.path], capture_output=True
        ).returncode == 0
        return self

    def __exit__(self, *exc):
        if self.mounted:
            subprocess.run(["umount", self.path])
        shutil.rmtree(self.path, ignore_errors=True)


def fresh_dir(parent, name):
    path = os.path.join(parent, name)
    shutil.rmtree(path, ignore_errors=True)
    os.mkdir(path)
    return path


def unpack(tool, tarball, dest):
    p = subprocess.run(UNPACK[tool] + [os.path.abspath(tarball)], cwd=dest,
                       capture_output=True)
    return p.returncode, p.stderr.decode(errors="replace")


def tree_manifest(path):
    out = subprocess.run([sys.executable, TREEMANIFEST, path],
                         capture_output=True, check=True).stdout
    return out.decode().splitlines()


def _xattr_name(item):
    """the raw name of a manifest xattr item, and the rest"""
    name, value = item.rsplit("=", 1)
    return _unescape_list(name), value


def _escape_xattr_name(raw):
    return "".join(chr(c) if 0x21 <= c <= 0x7e and c not in b"\\,="
                   else "\\x%02x" % c for c in raw)


def _url_encoded(raw):
    """the name as libarchive writes it in pax xattr records"""
    return "".join(chr(c) if 33 <= c <= 126 and c not in b"%="
                   else "%%%02X" % c for c in raw).encode()


def _schily_items(items, ignore):
    """xattr items with libarchive's SCHILY.xattr names: renamed (GNU
    tar), or with the renamed copies added (bsdtar)"""
    out = []
    for item in items:
        raw, value = _xattr_name(item)
        enc = _url_encoded(raw)
        if enc == raw:
            out.append(item)
            continue
        copy = "%s=%s" % (_escape_xattr_name(enc), value)
        out += [copy] if ignore.get("schily_names") else [item, copy]
    return sorted(out, key=lambda i: _xattr_name(i)[0])


def _fields(line, ignore, want=False):
    f = line.split(" ")
    if want and f[11] != "-" and (ignore.get("schily_names") or
                                  ignore.get("schily_copies")):
        f[11] = ",".join(_schily_items(f[11].split(","), ignore))
    if f[0] == "." and ignore.get("root_mtime"):
        f[6] = "*"
    if ignore.get("negative_nsec") and f[6].startswith("-") and \
            not f[6].endswith(".000000000"):
        f[6] = "*"
    return f


def compare_manifests(want, got, ignore):
    """differences between manifest lines, as text"""
    w = {line.split(" ")[0]: _fields(line, ignore, True) for line in want}
    g = {line.split(" ")[0]: _fields(line, ignore) for line in got}
    bad = ["missing: %s" % p for p in sorted(set(w) - set(g))]
    bad += ["unexpected: %s" % p for p in sorted(set(g) - set(w))]
    for p in sorted(set(w) & set(g)):
        if w[p] != g[p]:
            bad.append("%s: want %s, got %s" %
                       (p, " ".join(w[p][1:]), " ".join(g[p][1:])))
    return bad


def _unescape_list(s):
    return re.sub(rb"\\x([0-9a-f]{2})",
                  lambda m: bytes([int(m.group(1), 16)]), s.encode())


_C_ESCAPES = {"\\": b"\\", "n": b"\n", "t": b"\t", "r": b"\r", "a": b"\a",
              "b": b"\b", "f": b"\f", "v": b"\v"}


def _unescape_quoted(s):
    """the raw bytes of a name as bsdtar and --list quote it, read as
    latin-1 text: octal and C escapes, other bytes as they are"""
    out = b""
    i = 0
    while i < len(s):
        if s[i] == "\\" and re.match(r"[0-7]{3}", s[i + 1:i + 4]):
            out += bytes([int(s[i + 1:i + 4], 8)])
            i += 4
        elif s[i] == "\\" and s[i + 1:i + 2] in _C_ESCAPES:
            out += _C_ESCAPES[s[i + 1]]
            i += 2
        else:
            out += s[i].encode("latin-1")
            i += 1
    return out


def tar_name(raw):
    raw = raw.rstrip(b"/")
    return raw[2:] if raw.startswith(b"./") else raw or b"."


def manifest_name(line):
    """the raw path of a manifest line"""
    return _unescape_list(line.split(" ")[0])


def bsdtar_name(name):
    """the raw path of a name bsdtar -t prints"""
    return tar_name(_unescape_quoted(name))


def _split_target(perm, rest, unescape):
    sep = {"h": " link to ", "l": " -> "}.get(perm[0])
    if sep and sep in rest:
        name, target = rest.split(sep, 1)
        return tar_name(unescape(name)), unescape(target)
    return tar_name(unescape(rest)), None


def _list_entry(line):
    perm, owner, size, _, _, rest = line.split(" ", 5)
    name, target = _split_target(perm, rest, _unescape_quoted)
    return perm, owner, size, name, target


def _bsdtar_entry(line):
    perm, _, uid, gid, size, _, _, _, rest = line.split(None, 8)
    if perm.endswith("+"):
        # an ACL: libarchive's mode has its group entry's bits, not the
        # mask's (unpacking sets the mask, giving the inode's mode back)
        perm = perm[:4] + "***" + perm[7:-1]
    name, target = _split_target(perm, rest, _unescape_quoted)
    return perm, uid + "/" + gid, size, name, target


def compare_listing(ours, theirs):
    """--list lines against bsdtar -tv lines, in order"""
    bad = []
    if len(ours) != len(theirs):
        bad.append("%d entries listed, bsdtar lists %d" %
                   (len(ours), len(theirs)))
    for a, b in zip(ours, theirs):
        x, y = _list_entry(a), _bsdtar_entry(b)
        if y[0][4:7] == "***":
            x = (x[0][:4] + "***" + x[0][7:],) + x[1:]
        if x[0][0] in "hld":
            # bsdtar shows 0 for these; device numbers: both "M,m"
            x, y = x[:2] + x[3:], y[:2] + y[3:]
        if x != y:
            bad.append("--list %r, bsdtar %r" % (a, b))
    return bad
