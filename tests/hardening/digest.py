#!/usr/bin/env python3
"""TAP test of --xattr-inode-digest on an image built by mkimg-digest.py:
/good carries a correct digest, /bad a wrong one, /plain none."""
import os
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import FSCK, tap, tap_end



def run(*args):
    p = subprocess.run([FSCK, *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout + p.stderr


def main():
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        img = os.path.join(tmp, "digest.erofs")
        subprocess.run([sys.executable, os.path.join(TESTS, "mkimg-digest.py"),
                        img], check=True)
        checks = []
        rc, out = run(img)
        checks.append(("plain check ignores digests", rc == 0 and not out,
                       rc, out))
        rc, out = run("--xattr-inode-digest", img)
        bad = [l for l in out.splitlines() if "/bad" in l]
        checks.append(("--xattr-inode-digest finds the bad digest",
                       rc == 4 and len(bad) == 1 and "digest" in bad[0],
                       rc, out))
        checks.append(("no problem reported for /good or /plain",
                       "/good" not in out and "/plain" not in out, rc, out))
        rc, out = run("--manifest", img)
        checks.append(("the digest xattr is hidden from the manifest",
                       rc == 0 and "fingerprint" not in out, rc, out))
    for name, ok, rc, out in checks:
        tap(ok, name, ("exit %d" % rc, *out.splitlines()))
    return tap_end()


sys.exit(main())
