# SPDX-License-Identifier: MIT
"""taplib.py - TAP output for the Python tests: one numbered line a
check, the first lines of what went wrong under a failure, the plan last."""
import sys

_count = 0
_failed = False


def tap(ok, what, details=()):
    global _count, _failed
    _count += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", _count, what))
    for line in [] if ok else list(details)[:10]:
        print("#   %s" % line)
    _failed |= not ok
    sys.stdout.flush()


def tap_end():
    """Print the plan; the exit status of the test."""
    print("1..%d" % _count)
    return 1 if _failed else 0


def tap_skip(what, why):
    """A check that cannot run here: counted as skipped, not passed."""
    global _count
    _count += 1
    print("ok %d - %s # SKIP %s" % (_count, what, why))
    sys.stdout.flush()
