#!/bin/bash
# extract-outputs.sh: --list, --manifest and --json against expected files
# (TAP). Each case runs with -j1 and -j3; the output must equal
# data/expected/FILE. JSON reports must parse (python's json module) and
# equal the expected one but for what changes from run to run (elapsed
# time, jobs, version, the paths given on the command line).
#
# The damaged image is lz4hc-default with 64 zero bytes written into a
# pcluster of /text/words-1m.txt (block 300), so that the JSON report has
# a problem with a path, a nid, an offset and a message.
set -u
# shellcheck source=../lib/testlib.sh
. "${srcdir:-$(dirname "$0")/..}/lib/testlib.sh"

expected=$srcdir/data/expected
make_scratch

resolve lz4hc-default.erofs || exit 99
default=$path
resolve lz4hc-48bit.erofs || exit 99
bit48=$path
resolve plain-b512-chunk4k-blobdev.erofs || exit 99
blobimg=$path
resolve plain-b512-chunk4k-blobdev.blob || exit 99
blob=$path
damaged=$scratch/damaged.erofs
cp "$default" "$damaged" && chmod u+w "$damaged" || exit 99
"$PYTHON3" -c 'import sys
with open(sys.argv[1], "r+b") as f:
	f.seek(300 * 4096 + 1024)
	f.write(bytes(64))' "$damaged" || exit 99

# name|kind|expected file|status|option...  (DIR: an extraction directory)
cases=(
	"list|text|lz4hc-default.list|0|--list|$default"
	"list 48bit|text|lz4hc-48bit.list|0|--list|$bit48"
	"manifest xattrs|text|lz4hc-default-xattrs.manifest|0|--manifest|--path=/xattrs|$default"
	"manifest times 48bit|text|lz4hc-48bit-times.manifest|0|--manifest|--path=/times|$bit48"
	"json|json|lz4hc-default.json|0|--json|-p|$default"
	"json extract|json|lz4hc-default-extract.json|0|--json|--extract=DIR|--path=/hardlinks|$default"
	"json damaged|json|lz4hc-default-damaged.json|4|--json|--extract|$damaged"
	"json blob|json|plain-b512-chunk4k-blobdev.json|0|--json|--device=$blob|$blobimg"
)
tap_plan $((2 * ${#cases[@]}))

# the JSON report without what changes between runs; a report made here
# (got) must hold the CPU times, a walker's and at most one a job (at -j1,
# two that take turns to decode), and the walker's share of them
json_norm()
{
	"$PYTHON3" -c 'import json, sys
with open(sys.argv[1]) as f:
	r = json.load(f)
if sys.argv[2] == "got":
	cpu, share = r.pop("cpu_seconds"), r.pop("walker_cpu_share")
else:
	cpu, share = {"walker": 0, "workers": []}, 0
total = cpu["walker"] + sum(cpu["workers"])
assert cpu["walker"] >= 0 and all(t >= 0 for t in cpu["workers"])
assert len(cpu["workers"]) <= max(r["jobs"], 2), cpu
assert 0 <= share <= 1, share
# each figure is rounded to a millisecond: the share, of the figures
# before rounding, times the rounded total is the rounded walker time
assert abs(share * total - cpu["walker"]) <= 0.0005 * (len(cpu["workers"]) + 2), (cpu, share)
assert cpu["workers"] or share in (0, 1), share
for key in ("elapsed_seconds", "jobs", "version"):
	del r[key]
r["image"] = r["image"].rsplit("/", 1)[-1]
for d in r.get("integrity", {}).get("devices", []):
	d["path"] = d["path"].rsplit("/", 1)[-1]
if r["extract_dir"] is not None:
	r["extract_dir"] = "DIR"
json.dump(r, sys.stdout, indent=1, sort_keys=True)
print()' "$1" "$2"
}

for c in "${cases[@]}"; do
	IFS='|' read -r -a f <<<"$c"
	name=${f[0]} kind=${f[1]} want=$expected/${f[2]} status=${f[3]}
	for jobs in 1 3; do
		args=()
		for a in "${f[@]:4}"; do
			[ "$a" = --extract=DIR ] && \
				a=--extract=$scratch/dir-$((tap_n + 1))
			args+=("$a")
		done
		run_fsck "$scratch/out" "$scratch/err" -j$jobs "${args[@]}"
		got=$?
		if [ "$got" -ne "$status" ] || \
				has_sanitizer_report "$scratch/err"; then
			tap_not_ok "$name -j$jobs: exit $got, expected $status" \
				"$scratch/err"
			continue
		fi
		if [ "$kind" = json ]; then
			if ! json_norm "$scratch/out" got >"$scratch/got" \
					2>"$scratch/err"; then
				tap_not_ok "$name -j$jobs: not valid JSON" \
					"$scratch/err"
				continue
			fi
			json_norm "$want" want >"$scratch/want" || exit 99
		else
			cp "$scratch/out" "$scratch/got"
			cp "$want" "$scratch/want"
		fi
		if cmp -s "$scratch/got" "$scratch/want"; then
			tap_ok "$name -j$jobs: output matches ${f[2]}"
		else
			tap_not_ok "$name -j$jobs: output differs from ${f[2]}" ""
			diff "$scratch/want" "$scratch/got" >"$scratch/diff"
			show "$scratch/diff" 30
		fi
	done
done
