#!/usr/bin/env python3
"""make-android-seeds.py SEEDS: the fuzzer's seeds of Android containers
(docs/android.md), made from the small seed SEEDS/lz4.erofs with
tests/lib/androidimg.py: a sparse image of every chunk type, a super
image of two slots whose system_a lies in two extents, and a sparse copy
of that super image. The stored ones were made with this script."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))

import androidimg as ai  # noqa: E402


def main():
    seeds = sys.argv[1]
    with open(os.path.join(seeds, "lz4.erofs"), "rb") as f:
        raw = ai.pad(f.read())
    padded = b"\x11\x22\x33\x44" * 1024 + raw + b"\0" * 4096
    ai.write_sparse(os.path.join(seeds, "android-sparse.simg"), padded,
                    max_raw=2, crc_every=3)
    s = ai.Super(size=(128 + 64) << 10, slots=2, max_size=4096)
    s.partition("system_a", raw, pieces=2, group=s.group("main_a"), gap=2)
    s.partition("vendor_a", b"\0" * 4096, group=1)
    img = bytes(s.image())
    end = s.next_sector * ai.SECTOR
    with open(os.path.join(seeds, "android-super.img"), "wb") as f:
        f.write(img[:end])
    ai.write_sparse(os.path.join(seeds, "android-super.simg"),
                    ai.pad(img[:end]))


if __name__ == "__main__":
    main()
