#!/usr/bin/env python3
"""crash-safe.py - a killed or failed extraction leaves no incomplete file
under its own name (TAP).

Extracts lz4hc-default.erofs (small files, files of 512 KiB and more,
hard links, symlinks) with "fsck.erofs --extract=DIR", slowed down by
fault/io_fail.so (EROFS_FAULT_READ_DELAY_US) so that runs last long enough
to be killed anywhere, in five configurations: -j1, -j4, -j4 with every
file split into pieces (EROFS_FSCK_SPLIT=1), each with unnamed files
(O_TMPFILE, the default) and with hidden names forced (EROFS_FSCK_TMPFILE=0,
-j1 and -j4 split).

kill -9: each trial kills the run (SIGKILL) after a random time, then:
  - every regular file in DIR under a name of the image has the image's
    size and SHA-256 (the expected manifest, data/s1-small.manifest);
  - no other regular file is left, but hidden names (.fsck.erofs-<16 hex>)
    in the fallback configurations, which a rerun removes;
  - a rerun, with --force and alternately --overwrite and --keep-existing,
    exits 0 and gives the exact tree (treemanifest.py DIR is the expected
    manifest) with no hidden name left.

--keep-existing over a complete tree where a file was changed (same
size and mtime), one truncated and one replaced by a directory keeps the
first (same inode, same bytes) and replaces the other two; --overwrite
then gives the
exact tree, the changed file replaced by a new inode.

An ordinary user (setpriv) with a tmpfs over /proc in a private mount
namespace cannot link unnamed files: every file is written under a
hidden name and renamed, all complete, no hidden name left.

Write faults: the n-th write fails with ENOSPC or EIO (EROFS_FAULT_WRITE,
EROFS_FAULT_ERRNO), at -j1 and -j4, unnamed and hidden names: exit 8, the
file named in "cannot write PATH" does not exist, every regular file left
is complete, no hidden name is left.

Environment: FSCK, srcdir, EROFS_TEST_DATA, IO_FAIL, CRASH_TRIALS (kill
trials per configuration, default 10), CRASH_SEED (printed), CRASH_SCRATCH
(where DIR is made: /dev/shm if writable, else the current directory).
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import (FSCK, SRCDIR, incomplete_file, manifest_files,
                       stored_image, tap, tap_end)
from treemanifest import escape

IO_FAIL = os.environ.get("IO_FAIL", os.path.abspath("fault/io_fail.so"))
TRIALS = int(os.environ.get("CRASH_TRIALS", "10"))
SEED = int(os.environ.get("CRASH_SEED", str(int(time.time()))))
READ_DELAY_US = 300
# tmpfs: extracting to the build directory's disk is ten to fifty times
# slower, and the trials would take minutes
SCRATCH = os.environ.get("CRASH_SCRATCH", "/dev/shm" if os.access(
    "/dev/shm", os.W_OK) else os.getcwd())
TMP_NAME = re.compile(rb"^\.fsck\.erofs-[0-9a-f]{16}$")
IMAGE = "lz4hc-default.erofs"
MANIFEST = os.path.join(SRCDIR, "data", "s1-small.manifest")

# EROFS_FSCK_SYNC_NS=0: the image holds too little work for -j4 to start
# threads on its own, and fsck.erofs starts no more than the CPUs
THREADS = {"EROFS_FSCK_SYNC_NS": "0"}
CONFIGS = [
    ("-j1", ["-j1"], {}),
    ("-j4", ["-j4"], THREADS),
    ("-j4 split", ["-j4"], dict(THREADS, EROFS_FSCK_SPLIT="1")),
    ("-j1 hidden names", ["-j1"], {"EROFS_FSCK_TMPFILE": "0"}),
    ("-j4 split hidden names", ["-j4"],
     dict(THREADS, EROFS_FSCK_SPLIT="1", EROFS_FSCK_TMPFILE="0")),
]

def env_with(extra, slow, shim=False):
    """the environment of a run: slow reads, or the shim for faults"""
    env = dict(os.environ)
    env.update(extra)
    if slow:
        env["EROFS_FAULT_READ_DELAY_US"] = str(READ_DELAY_US)
    if slow or shim:
        env["LD_PRELOAD"] = IO_FAIL
        # the shim comes before the sanitizer runtime
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                               ":verify_asan_link_order=0").lstrip(":")
    return env


def survey(top, want):
    """(problems, complete files, hidden names) of a tree left behind"""
    bad, complete, hidden = [], 0, 0
    for root, _, files in os.walk(os.fsencode(top)):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            if TMP_NAME.match(name):
                hidden += 1
                continue
            rel = escape(os.path.relpath(path, os.fsencode(top)))
            problem = incomplete_file(path, rel, want)
            if problem:
                bad.append(problem)
            else:
                complete += 1
    return bad, complete, hidden


def tree_manifest(top):
    out = subprocess.run([sys.executable,
                          os.path.join(SRCDIR, "lib", "treemanifest.py"), top],
                         stdout=subprocess.PIPE, check=True).stdout
    return out.decode()


def exact(top, expected):
    got = tree_manifest(top)
    if got == expected:
        return []
    g, e = got.splitlines(), expected.splitlines()
    return (["extra: " + x for x in sorted(set(g) - set(e))] +
            ["missing: " + x for x in sorted(set(e) - set(g))])


def timed_run(args, env):
    t0 = time.monotonic()
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=300)
    return time.monotonic() - t0


def kill_trials(scratch, image, want, expected, rng, name, opts, extra):
    out = os.path.join(scratch, "out")
    shutil.rmtree(out, ignore_errors=True)
    base = [FSCK] + opts + ["--preserve", "--xattrs", "--extract=" + out,
                            image]
    # the shortest of three runs: one run slowed by a busy machine would
    # put most kills after the runs have ended
    span = None
    for _ in range(3):
        shutil.rmtree(out, ignore_errors=True)
        took = timed_run(base, env_with(extra, True))
        span = took if span is None else min(span, took)
    problems, seen, hidden_total, killed = [], 0, 0, 0
    for trial in range(TRIALS):
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.Popen(base, env=env_with(extra, True),
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.02, span))
        if p.poll() is None:
            killed += 1
        else:
            # it ended before the kill: kill the next ones sooner
            span = max(0.05, span * 0.7)
        p.kill()
        p.wait()
        bad, complete, hidden = survey(out, want)
        seen += complete
        hidden_total += hidden
        problems += ["trial %d: %s" % (trial, b) for b in bad]
        if hidden and "EROFS_FSCK_TMPFILE" not in extra:
            problems.append("trial %d: %d hidden names with unnamed files"
                            % (trial, hidden))
        rerun = "--overwrite" if trial % 2 else "--keep-existing"
        r = subprocess.run(base[:-2] + ["--force", rerun] + base[-2:],
                           env=env_with(extra, False),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode:
            problems.append("trial %d: rerun %s: exit %d: %s" %
                            (trial, rerun, r.returncode,
                             r.stderr.decode(errors="replace")[:200]))
        problems += ["trial %d: after %s: %s" % (trial, rerun, d)
                     for d in exact(out, expected)]
    tap(not problems and killed > 0,
        "kill -9, %s: %d runs killed of %d (up to %.2f s in), %d complete "
        "files seen, none damaged; %d hidden names left, all removed by "
        "the reruns, which gave the exact tree"
        % (name, killed, TRIALS, span, seen, hidden_total), problems)


def write_faults(scratch, image, want, rng):
    out = os.path.join(scratch, "out")
    shutil.rmtree(out, ignore_errors=True)
    env = env_with({"EROFS_FAULT_WRITE": str(1 << 40)}, False, True)
    r = subprocess.run([FSCK, "--extract=" + out, image], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    m = re.search(rb"not injected: \d+ reads, (\d+) writes", r.stderr)
    if not m:
        tap(False, "write faults: cannot count the writes",
            r.stderr.decode(errors="replace").splitlines())
        return
    writes = int(m.group(1))
    for err in ("ENOSPC", "EIO"):
        for jobs in ("-j1", "-j4"):
            for hidden in (False, True):
                extra = dict(THREADS) if jobs != "-j1" else {}
                if hidden:
                    extra["EROFS_FSCK_TMPFILE"] = "0"
                at = rng.randint(writes // 4, writes - 1)
                write_fault(image, out, want, err, jobs, extra, at)


def write_fault(image, out, want, err, jobs, extra, at):
    shutil.rmtree(out, ignore_errors=True)
    env = env_with(dict(extra, EROFS_FAULT_WRITE=str(at),
                        EROFS_FAULT_ERRNO=err), False, True)
    r = subprocess.run([FSCK, jobs, "--extract=" + out, image], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = r.stderr.decode(errors="replace")
    m = re.search(r"cannot write (\S+): ", stderr)
    problems = []
    if r.returncode != 8:
        problems.append("exit %d, not 8" % r.returncode)
    if not m:
        problems.append("no 'cannot write PATH' message")
    elif os.path.lexists(m.group(1)):
        problems.append("%s exists" % m.group(1))
    bad, complete, hidden = survey(out, want)
    problems += bad
    if hidden:
        problems.append("%d hidden names left" % hidden)
    what = "%s into write %d, %s%s" % (
        err, at, jobs,
        " hidden names" if "EROFS_FSCK_TMPFILE" in extra else "")
    tap(not problems,
        "%s: exit 8, the file that failed is not there, %d complete files "
        "left, no hidden name" % (what, complete),
        problems + stderr.splitlines())


def keep_existing(scratch, image, expected):
    """what --keep-existing keeps and what it replaces"""
    out = os.path.join(scratch, "out")
    shutil.rmtree(out, ignore_errors=True)
    opts = ["--preserve", "--xattrs", "--extract=" + out, image]
    subprocess.run([FSCK] + opts, check=True)
    kept = os.path.join(out, "mixed.bin")
    short = os.path.join(out, "text", "words-big.txt")
    retyped = os.path.join(out, "empty")
    st = os.stat(kept)
    with open(kept, "r+b") as f:
        f.write(b"same size, other bytes")
    # the size and the mtime are what a kept file is judged by
    os.utime(kept, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.truncate(short, 100)
    os.unlink(retyped)
    os.mkdir(retyped)
    ino = os.stat(kept).st_ino
    r = subprocess.run([FSCK, "--force", "--keep-existing"] + opts,
                       stderr=subprocess.PIPE)
    problems = []
    if r.returncode:
        problems.append("exit %d: %s" % (r.returncode, r.stderr.decode()))
    with open(kept, "rb") as f:
        if not f.read().startswith(b"same size, other bytes"):
            problems.append("mixed.bin (right size) was written again")
    if os.stat(kept).st_ino != ino:
        problems.append("mixed.bin (right size) was replaced")
    diff = exact(out, expected)
    if len(diff) != 2 or not all("mixed.bin" in d for d in diff):
        problems.append("not the image's tree but for mixed.bin:")
        problems += diff
    tap(not problems,
        "--keep-existing: a file of the right size and mtime is kept, a "
        "short file and an entry of the wrong type are replaced", problems)
    r = subprocess.run([FSCK, "--force", "--overwrite"] + opts,
                       stderr=subprocess.PIPE)
    diff = exact(out, expected)
    tap(not r.returncode and not diff and os.stat(kept).st_ino != ino,
        "--overwrite then replaces it (a new inode) and gives the exact tree",
        diff)


def without_proc(scratch, image, want):
    """an ordinary user without /proc: hidden names"""
    out = os.path.join(scratch, "noproc")
    os.chmod(scratch, 0o755)
    os.mkdir(out)
    os.chown(out, 65534, 65534)
    unshare, setpriv = shutil.which("unshare"), shutil.which("setpriv")
    if not unshare or not setpriv:
        tap(True, "no /proc # SKIP needs unshare and setpriv")
        return
    # a tmpfs over /proc in a private mount namespace: not procfs
    r = subprocess.run([unshare, "--mount", "--propagation", "private",
                        "sh", "-c", 'mount -t tmpfs none /proc && exec "$@"',
                        "sh", setpriv, "--reuid=65534", "--regid=65534",
                        "--clear-groups", FSCK, "--force",
                        "--extract=" + out, image],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = r.stderr.decode(errors="replace")
    if err.startswith(("mount:", "unshare:")):
        tap(True, "no /proc # SKIP cannot mount in a namespace here")
        return
    if "Sanitizer" in err:
        tap(True, "no /proc # SKIP the sanitizer runtime needs /proc")
        return
    bad, complete, hidden = survey(out, want)
    ok = not bad and not hidden and complete == len(want)
    tap(ok, "an ordinary user without /proc: hidden names, %d of %d files "
        "complete, no hidden name left (exit %d)"
        % (complete, len(want), r.returncode), bad + err.splitlines())


def main():
    if not os.path.isfile(IO_FAIL):
        print("1..0 # SKIP %s not built" % IO_FAIL)
        return 0
    print("# CRASH_SEED=%d CRASH_TRIALS=%d" % (SEED, TRIALS))
    rng = random.Random(SEED)
    scratch = tempfile.mkdtemp(prefix="crash-safe.", dir=SCRATCH)
    try:
        image = stored_image(IMAGE, scratch)
        want = manifest_files(MANIFEST)
        with open(MANIFEST) as f:
            expected = f.read()
        if os.geteuid():
            print("1..0 # SKIP the exact tree (owners, devices) needs root")
            return 0
        for name, opts, extra in CONFIGS:
            kill_trials(scratch, image, want, expected, rng, name, opts,
                        extra)
        write_faults(scratch, image, want, rng)
        keep_existing(scratch, image, expected)
        without_proc(scratch, image, want)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
