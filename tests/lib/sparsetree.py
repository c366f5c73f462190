"""The tree of the --sparse tests: files of zeros with a little data, laid
out so that runs of zeros cross the extents of compressed images. The same
bytes every time (a fixed generator), so that images stored in data/ and
trees made at test time agree.

sparsetree.py DIR makes the tree in DIR."""
import os
import random
import sys

BLOCK = 4096
M = 1 << 20

# name: (size, [(offset, length of random bytes)])
FILES = {
    "zeros-4m": (4 * M, []),
    "runs": (8 * M + 77, [(0, 5000), (3 * M + 123, 100), (5 * M - 1, 2),
                          (8 * M + 70, 7)]),
    "dense-then-zeros": (6 * M, [(0, 200000)]),
    "odd-tail": (3 * M + 1234, [(M + 4095, 2)]),
}


def contents(name):
    size, parts = FILES[name]
    rng = random.Random(name)
    data = bytearray(size)
    for off, length in parts:
        data[off:off + length] = bytes(rng.randrange(1, 256)
                                       for _ in range(length))
    return bytes(data)


def nonzero_blocks(data):
    """How many aligned 4 KiB blocks hold a byte that is not zero."""
    return sum(1 for i in range(0, len(data), BLOCK)
               if data[i:i + BLOCK].strip(b"\0"))


def make(path):
    os.makedirs(path, exist_ok=True)
    for name in FILES:
        with open(os.path.join(path, name), "wb") as f:
            f.write(contents(name))


if __name__ == "__main__":
    make(sys.argv[1])
