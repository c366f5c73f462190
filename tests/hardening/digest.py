#!/usr/bin/env python3
"""TAP test of --xattr-inode-digest on an image built by mkimg-digest.py:
/good carries a correct digest, /bad a wrong one, /plain none. Every run
that decodes data checks the digests the image carries (--extract,
--extract=DIR, --tar, --cat, --manifest): /bad is reported (exit 4) and
left out of the outputs, salvaged with --ignore-errors;
--no-xattr-inode-digest turns the check off."""
import os
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import FSCK, tap, tap_end, without_notes



def run(*args):
    p = subprocess.run([FSCK, *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout + p.stderr


def extracted(img, out_dir, *args):
    """--extract=OUT_DIR with args: exit status, messages and the names
    extracted (the messages end with them)"""
    rc, out = run(*args, "--extract=" + out_dir, img)
    got = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []
    return rc, out + " %s" % got, got


def main():
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        img = os.path.join(tmp, "digest.erofs")
        subprocess.run([sys.executable, os.path.join(TESTS, "mkimg-digest.py"),
                        img], check=True)
        checks = []
        rc, out = run(img)
        checks.append(("plain check ignores digests",
                       rc == 0 and not without_notes(out), rc, out))
        rc, out = run("--xattr-inode-digest", img)
        bad = [l for l in out.splitlines() if "/bad" in l]
        checks.append(("--xattr-inode-digest finds the bad digest",
                       rc == 4 and len(bad) == 1 and "digest" in bad[0],
                       rc, out))
        checks.append(("no problem reported for /good or /plain",
                       "/good" not in out and "/plain" not in out, rc, out))
        rc, out = run("--manifest", img)
        lines = out.splitlines()
        checks.append(("the digest xattr is hidden from the manifest",
                       "fingerprint" not in out, rc, out))
        checks.append(("--manifest checks the digests the image carries: "
                       "/bad reported, no hash printed for it",
                       rc == 4 and any(l.startswith("bad f ") and
                                       " - - 1 - -" in l for l in lines) and
                       any("/bad" in l and "digest" in l for l in lines),
                       rc, out))
        rc, out, got = extracted(img, os.path.join(tmp, "x"))
        checks.append(("--extract=DIR checks them: /bad left out (exit 4)",
                       rc == 4 and got == ["good", "plain"], rc, out))
        tar = os.path.join(tmp, "t.tar")
        rc, out = run("--tar=" + tar, img)
        names = subprocess.run(["tar", "-tf", tar], capture_output=True,
                               text=True).stdout.split()
        checks.append(("--tar checks them: /bad not archived (exit 4)",
                       rc == 4 and "bad" not in names and "good" in names,
                       rc, out + " %s" % names))
        p = subprocess.run([FSCK, "--cat=bad", img], capture_output=True,
                           timeout=60)
        checks.append(("--cat checks them: /bad not printed (exit 4)",
                       p.returncode == 4 and not p.stdout, p.returncode,
                       p.stderr.decode(errors="replace")))
        rc, out = run("--extract", img)
        checks.append(("--extract checks them (exit 4)",
                       rc == 4 and "/bad" in out, rc, out))
        rc, out, got = extracted(img, os.path.join(tmp, "y"),
                                 "--no-xattr-inode-digest")
        checks.append(("--no-xattr-inode-digest: not checked, all extracted",
                       rc == 0 and got == ["bad", "good", "plain"], rc, out))
        rc, out, got = extracted(img, os.path.join(tmp, "z"),
                                 "--ignore-errors")
        checks.append(("--ignore-errors: /bad salvaged as it is, exit 4",
                       rc == 4 and got == ["bad", "good", "plain"], rc, out))
    for name, ok, rc, out in checks:
        tap(ok, name, ("exit %d" % rc, *out.splitlines()))
    return tap_end()


sys.exit(main())
