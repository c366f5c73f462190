#!/usr/bin/env python3
"""extracted.py [--all] DIR MANIFEST: after an extraction that failed part
way, check that every regular file in DIR is complete: its size and SHA-256
are those of the same path in MANIFEST (fsck.erofs --manifest of the image).
A truncated or short file left at its final name, or a stray file, is a
file that looks complete but is not. With --all, after an extraction that
succeeded, every regular file of MANIFEST must be in DIR as well. Prints
the problems; exit 1 if any."""
import os
import sys

sys.path.insert(0, os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from erofstest import incomplete_file, manifest_files  # noqa: E402
from treemanifest import escape  # noqa: E402


def main():
    args = sys.argv[1:]
    every = args[0] == "--all"
    if every:
        args = args[1:]
    top, manifest = os.fsencode(args[0]), args[1]
    want = manifest_files(manifest)
    bad = []
    seen = set()
    for root, _, files in os.walk(top):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            rel = escape(os.path.relpath(path, top))
            seen.add(rel)
            problem = incomplete_file(path, rel, want)
            if problem:
                bad.append(problem)
    if every:
        bad += ["%s: missing" % rel for rel in sorted(want.keys() - seen)]
    for line in bad[:10]:
        print(line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
