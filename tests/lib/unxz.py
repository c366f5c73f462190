#!/usr/bin/env python3
"""unxz.py DESTDIR SRCDIR FILE.xz... - unpack stored test images.

Each FILE.xz (found in the current directory or else in SRCDIR) is
decompressed to DESTDIR/FILE. The images are kept xz-compressed in the
source tree; the tests read the unpacked copies.
"""
import lzma
import os
import shutil
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[0])
    dest, srcdir, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(dest, exist_ok=True)
    for name in files:
        path = name if os.path.exists(name) else os.path.join(srcdir, name)
        target = os.path.join(dest, os.path.basename(name)[:-len(".xz")])
        with lzma.open(path) as src, open(target + ".tmp", "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(target + ".tmp", target)


if __name__ == "__main__":
    main()
