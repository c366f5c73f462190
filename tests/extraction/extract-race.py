#!/usr/bin/env python3
"""extract-race.py - a local attacker racing the extraction changes nothing
outside DIR (TAP). Needs root: skipped otherwise.

Symlink swaps. An image of a tree of world-writable directories (made at
test time with mkfs.erofs, Debian's erofs-utils) is extracted again and
again into P/out, a world-writable directory, while an unprivileged
process (uid 65534, forked and setuid) keeps swapping the directories the
extractor creates for symlinks to P/outside, a world-writable directory
with a file, a subdirectory and a fifo: it renames each directory away and
puts the symlink in its place, and plants the symlink where a directory is
still to come. Three scenarios, at -j1 and -j4: a fresh extraction
(--force, the attacker may plant first), and reruns over a complete tree
(whose directories are world-writable) with --force --overwrite and with
--force --keep-existing. After each scenario nothing under P/outside may
differ: the same names, and for each the same type, mode, owner, size,
mtime and ctime (so no chmod, chown, utimes or link either).

Swapped nodes (the gap between creating a node by name and reopening it
to set its metadata). The shim fault/swap_node.so replaces every fifo and
symlink right after mknodat/symlinkat made it by a hard link to a node of
uid 65534 outside DIR, as a user could with fs.protected_hardlinks off.
The extractor must notice ("changed while being created", once per
swap) and leave both victims as they were: owner, mode, mtime (not ctime:
the shim's links change it).

Environment: FSCK, srcdir, SWAP_NODE (the shim), EROFS_TEST_DATA,
RACE_RUNS (extractions per scenario and -j, default 40), MKFS_EROFS.
"""
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lib"))

from erofstest import FSCK, stored_image, tap, tap_end

SWAP_NODE = os.environ.get("SWAP_NODE", os.path.abspath("fault/swap_node.so"))
RUNS = int(os.environ.get("RACE_RUNS", "40"))
NOBODY = 65534
SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else os.getcwd()
# -j4 starts its threads on these small images, even beyond the CPUs
os.environ["EROFS_FSCK_SYNC_NS"] = "0"

def find_mkfs():
    path = os.environ.get("MKFS_EROFS") or shutil.which("mkfs.erofs")
    if not path and os.access("/usr/sbin/mkfs.erofs", os.X_OK):
        path = "/usr/sbin/mkfs.erofs"
    return path


def make_tree(top):
    """world-writable directories three levels deep, a few files each;
    returns the directories' paths relative to top"""
    dirs = []
    for a in range(4):
        for b in range(3):
            rel = os.path.join("w%d" % a, "s%d" % b)
            os.makedirs(os.path.join(top, rel), exist_ok=True)
            dirs += [os.path.dirname(rel), rel]
            for i in range(12):
                with open(os.path.join(top, rel, "f%d" % i), "wb") as f:
                    f.write(b"%d" % i * (i * 300 + 1))
    dirs = sorted(set(dirs))
    for rel in [""] + dirs:
        os.chmod(os.path.join(top, rel), 0o777)
    return dirs


def snapshot(top):
    """names and metadata of everything under top, never following"""
    snap = {}
    for root, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(root, name)
            st = os.lstat(path)
            snap[os.path.relpath(path, top)] = (
                stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode),
                st.st_uid, st.st_gid, st.st_size, st.st_mtime_ns,
                st.st_ctime_ns, st.st_nlink)
    st = os.lstat(top)
    snap["."] = (st.st_mode, st.st_uid, st.st_gid, st.st_mtime_ns,
                 st.st_ctime_ns)
    return snap


def owner_mode_times(snap):
    """what chown, chmod and utimes change; a hard link changes ctime and
    nlink, and the shim makes those"""
    return {k: v[:4] + v[5:6] for k, v in snap.items() if k != "."}


def differences(before, after):
    out = []
    for k in sorted(set(before) | set(after)):
        if before.get(k) != after.get(k):
            out.append("%s: %s -> %s" % (k, before.get(k), after.get(k)))
    return out


def attacker(out, dirs, outside, counter):
    """as uid 65534: swap directories for symlinks to outside, forever"""
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)
    swaps = n = 0
    while True:
        for rel in dirs:
            path = os.path.join(out, rel)
            n += 1
            try:
                # not through a symlink of its own: the attacker would
                # write outside itself
                if os.path.realpath(os.path.dirname(path)) != \
                        os.path.dirname(path):
                    continue
                if os.path.isdir(path) and not os.path.islink(path):
                    os.rename(path, "%s.moved%d" % (path, n))
                os.symlink(outside, path)
                swaps += 1
            except OSError:
                pass
        if n % 64 == 0:
            try:
                with open(counter, "w") as f:
                    f.write(str(swaps))
            except OSError:
                pass


def clear(path):
    """empty path as root, never following a symlink (the attacker keeps
    adding entries: what it adds meanwhile may stay)"""
    for name in os.listdir(path):
        p = os.path.join(path, name)
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass


def extract(args, out, image):
    return subprocess.run([FSCK] + args + ["--extract=" + out, image],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          timeout=300)


def symlink_swaps(scratch, mkfs):
    tree = os.path.join(scratch, "tree")
    dirs = make_tree(tree)
    image = os.path.join(scratch, "ww.erofs")
    r = subprocess.run([mkfs, "--quiet", "-zlz4hc", "-T1700000000", image,
                        tree], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    if r.returncode:
        tap(False, "symlink swaps: mkfs.erofs failed",
            r.stderr.decode(errors="replace").splitlines())
        return
    os.chmod(scratch, 0o755)
    outside = os.path.join(scratch, "outside")
    os.makedirs(os.path.join(outside, "sub"))
    with open(os.path.join(outside, "file"), "w") as f:
        f.write("outside\n")
    os.mkfifo(os.path.join(outside, "fifo"), 0o600)
    for p in (outside, os.path.join(outside, "sub")):
        os.chmod(p, 0o777)
    os.chown(os.path.join(outside, "file"), NOBODY, NOBODY)
    out = os.path.join(scratch, "out")
    os.mkdir(out)
    os.chmod(out, 0o777)
    counter = os.path.join(scratch, "swaps")
    with open(counter, "w") as f:
        f.write("0")
    os.chown(counter, NOBODY, NOBODY)
    before = snapshot(outside)
    pid = os.fork()
    if pid == 0:
        try:
            attacker(out, dirs, outside, counter)
        finally:
            os._exit(0)
    try:
        for name, args in (("fresh extraction", []),
                           ("rerun", ["--overwrite"]),
                           ("rerun", ["--keep-existing"])):
            for jobs in ("-j1", "-j4"):
                scenario(name, ["--force", jobs] + args, out, image,
                         outside, before, counter)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def read_counter(counter):
    """the attacker's count of swaps; it rewrites the file (truncating it
    first) as it goes, so an empty read is one caught in between"""
    for _ in range(1000):
        with open(counter) as f:
            text = f.read()
        if text:
            return int(text)
        time.sleep(0.001)
    raise RuntimeError("%s stays empty" % counter)


def scenario(name, args, out, image, outside, before, counter):
    statuses = {}
    swaps0 = read_counter(counter)
    for _ in range(RUNS):
        clear(out)
        if name == "rerun":
            extract(["--force", "--overwrite"], out, image)
        r = extract(args, out, image)
        statuses[r.returncode] = statuses.get(r.returncode, 0) + 1
    time.sleep(0.05)
    swaps = read_counter(counter) - swaps0
    diff = differences(before, snapshot(outside))
    bad = [s for s in statuses if s not in (0, 8)]
    tap(not diff and not bad and swaps > 0,
        "symlink swaps, %s %s: %d runs, about %d directories swapped for "
        "symlinks, exit statuses %s, nothing outside DIR changed"
        % (name, " ".join(args), RUNS, swaps,
           ",".join("%d:%d" % kv for kv in sorted(statuses.items()))),
        diff + ["exit %d" % s for s in bad] +
        ([] if swaps else ["the attacker swapped nothing"]))


def node_swaps(scratch):
    image = stored_image("lz4hc-default.erofs", scratch)
    victims = os.path.join(scratch, "victims")
    os.mkdir(victims)
    fifo = os.path.join(victims, "fifo")
    link = os.path.join(victims, "symlink")
    os.mkfifo(fifo, 0o600)
    os.symlink("/nonexistent", link)
    os.chown(fifo, NOBODY, NOBODY)
    os.lchown(link, NOBODY, NOBODY)
    for jobs in ("-j1", "-j4"):
        out = os.path.join(scratch, "nodes" + jobs)
        before = snapshot(victims)
        env = dict(os.environ, LD_PRELOAD=SWAP_NODE, SWAP_FIFO=fifo,
                   SWAP_SYMLINK=link)
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                               ":verify_asan_link_order=0").lstrip(":")
        r = subprocess.run([FSCK, jobs, "--preserve", "--extract=" + out,
                            image], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=300)
        err = r.stderr.decode(errors="replace")
        swapped = [int(x.split()[-1]) for x in err.splitlines()
                   if x.startswith("swap_node: swapped")]
        noticed = err.count("changed while being created")
        diff = differences(owner_mode_times(before),
                           owner_mode_times(snapshot(victims)))
        ok = (not diff and swapped and swapped[0] > 0 and
              noticed == swapped[0] and r.returncode == 8)
        tap(ok, "swapped nodes %s: %s swapped for hard links to uid %d's "
            "nodes, %d noticed, exit %d, the victims unchanged"
            % (jobs, swapped[0] if swapped else "none", NOBODY, noticed,
               r.returncode), diff + err.splitlines())


def main():
    if os.geteuid():
        print("1..0 # SKIP needs root (an attacker of another uid)")
        return 0
    scratch = tempfile.mkdtemp(prefix="extract-race.", dir=SCRATCH)
    try:
        mkfs = find_mkfs()
        if mkfs:
            symlink_swaps(scratch, mkfs)
        else:
            n = 6
            for _ in range(n):
                tap(True, "symlink swaps # SKIP no mkfs.erofs "
                    "(Debian package erofs-utils)")
        if os.path.isfile(SWAP_NODE):
            node_swaps(scratch)
        else:
            tap(True, "swapped nodes # SKIP %s not built" % SWAP_NODE)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return tap_end()


if __name__ == "__main__":
    sys.exit(main())
