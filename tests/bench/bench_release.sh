#!/bin/bash
# bench_release.sh: issue 12's two release numbers, printed beside their
# peers with PASS/MISS.
#
# usage: tests/bench/bench_release.sh [BUILD]       (default: build)
#
#   1. `calops release verify WS N` of a candidate whose calbin package is
#      $MB MiB (default 2048) in $FILES files (default 2500), cold (the page
#      cache dropped before each run when this is root; "warm" is printed
#      otherwise), against `openssl speed -evp sha256 -multi $(nproc)`
#      as the ceiling (target >= 0.85x), beside sha256sum of the same files
#      on every CPU (xargs -P), cold too, cat of them on every CPU and
#      32 at a time, the files read with O_DIRECT 32 at a time (the disk
#      itself, past any page cache of this kernel), cat of them from the
#      page cache, and verify again warm (hashing alone).  Medians of
#      $RUNS (default 3).  Dropping this kernel's page cache does not make
#      reads cold in a VM whose host caches its disk: when the files read
#      after a drop come at half the page cache's speed or more, or verify
#      reads faster than the disk read O_DIRECT, the figures are printed
#      as "dropped", not "cold", and it says why.
#   2. the switch once verified: `calops release rollback` to an earlier
#      generation (no bindings to hash), the whole command (start, lock,
#      state, signature, the record appended and fsynced, the link renamed
#      and the folder fsynced), median of $SWITCHES (default 21) (target
#      <= 20 ms), and its CPU time (user + system: on a loaded machine the
#      wall time is mostly the wait for a CPU), no chip step (release.md
#      §6); beside it the promote back
#      to the candidate, whose bindings (2 MiB in that small copy) are
#      hashed again, with its chip step (inspect and golden as a lab job on
#      this machine, the simulator at --time-scale 0): the whole command,
#      the job itself (its first event to its end event, as its
#      events.jsonl stamps them), and the promote's overhead beyond that
#      job (target <= 1 s); and the promote --no-chip-step.
# The workspace is made under $TMPDIR (a copy of share/examples/complete,
# its package replaced, a generation 3 bound to it and signed with the
# example key) and removed at the end, with the hash cache, state and
# config calops keeps meanwhile (XDG_*_HOME point there: nothing is
# written to ~/.cache/calops).  Not part of ctest.
set -euo pipefail

BUILD=${1:-build}
MB=${MB:-2048}
FILES=${FILES:-2500}
RUNS=${RUNS:-3}
SWITCHES=${SWITCHES:-21}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CALOPS=$(cd "$BUILD" && pwd)/calops
KEY=$TOP/share/examples/keys/mei.chen.pem
[ -x "$CALOPS" ] || { echo "bench_release: no '$CALOPS'" >&2; exit 2; }
export LC_ALL=C.UTF-8

W=$(mktemp -d "${TMPDIR:-/tmp}/calops-bench-release.XXXXXX")
trap 'rm -rf "$W"' EXIT
# `calops hash` keeps a hash cache: the benchmark's, not the user's.
export XDG_CACHE_HOME=$W/cache XDG_STATE_HOME=$W/state \
    XDG_CONFIG_HOME=$W/config
R=$W/ws/08-release

. "$(dirname "$0")/lib.sh"
now_ns() { date +%s%N; }
cold=warm
[ -w /proc/sys/vm/drop_caches ] && cold=cold
drop() {
	sync
	if [ "$cold" = cold ]; then
		echo 3 >/proc/sys/vm/drop_caches
	fi
}

echo "calops release benchmarks: $CALOPS"
echo "  $(nproc) CPUs, $(uname -r), $(openssl version); $(date -u \
    '+%Y-%m-%d %H:%M:%S UTC')"

# ---- the workspace ----
cp -a "$TOP/share/examples/complete" "$W/ws"
rm -rf "$W/ws/05-calbin/package"
mkdir -p "$W/ws/05-calbin/package"
# FILES files of about MB/FILES MiB each, in 50 folders, random bytes.
per=$((MB * 1048576 / FILES))
python3 - "$W/ws/05-calbin/package" "$FILES" "$per" <<'PYEOF'
import os, sys
root, n, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    d = os.path.join(root, "part%02d" % (i % 50))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel%04d.bin" % i), "wb") as f:
        left = per + (i % 7) * 4096
        while left > 0:
            k = min(left, 1 << 20)
            f.write(os.urandom(k))
            left -= k
PYEOF
total=$(du -sb "$W/ws/05-calbin/package" | cut -f1)
tree=$("$CALOPS" hash "$W/ws/05-calbin/package" | awk '{ print $1 }')
mkdir "$R/generations/3"
python3 - "$R/generations/2/release-manifest.json" "$tree" \
    >"$R/generations/3/release-manifest.json" <<'PYEOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["generation"], m["previous_generation"] = 3, 2
m["calbin_tree_sha256"] = sys.argv[2]
print(json.dumps(m, indent=2))
PYEOF
openssl pkeyutl -sign -inkey "$KEY" -rawin \
    -in "$R/generations/3/release-manifest.json" | base64 -w0 \
    >"$R/generations/3/release-manifest.json.sig"
"$CALOPS" release verify "$W/ws" 3 >/dev/null ||
	{ echo "bench_release: generation 3 does not verify" >&2; exit 1; }
echo
echo "1. verify a candidate: $((total / 1048576)) MiB in $FILES files" \
    "(median of $RUNS)"

# The ceiling: SHA-256 in memory on every CPU.
ceil=$(openssl speed -evp sha256 -multi "$(nproc)" -bytes 1048576 \
    -seconds 3 2>/dev/null | awk '/^(evp|sha256|SHA256)/ && NF >= 2 {
	v = $NF; sub(/k$/, "", v); x = v } END { printf "%.1f", x * 1000 / 1048576 }')
: >"$W/t"
# cold CMD...: CMD's time in microseconds, the page cache dropped first.
cold_us() {
	local t0 t1

	drop
	t0=$(now_ns)
	"$@" >/dev/null
	t1=$(now_ns)
	echo $(( (t1 - t0) / 1000 ))
}
# each P CMD...: CMD on the package's files, P at a time.
each() {
	local p=$1

	shift
	( cd "$W/ws/05-calbin/package" && find . -type f -print0 |
	    xargs -0 -P "$p" -n 16 "$@" )
}
# direct FILE...: each file read with O_DIRECT, past this kernel's cache.
direct() {
	local f

	for f; do
		dd if="$f" of=/dev/null bs=1M iflag=direct status=none
	done
}
export -f direct
# resident: the bytes of the package in the page cache (fincore).
resident() {
	( cd "$W/ws/05-calbin/package" && find . -type f -print0 |
	    xargs -0 fincore --bytes --noheadings --output RES ) |
	    awk '{ n += $1 } END { print n + 0 }'
}
left=
for _ in $(seq "$RUNS"); do
	a=$(cold_us "$CALOPS" release verify "$W/ws" 3)
	b=$(cold_us each "$(nproc)" sha256sum)
	c=$(cold_us each "$(nproc)" cat)
	# Many reads in flight: the best the page cache's path gets.
	d=$(cold_us each 32 cat)
	# The disk itself: O_DIRECT, 32 files at a time.
	e=$(cold_us each 32 bash -c 'direct "$@"' direct)
	[ -n "$left" ] || { drop; left=$(resident); }
	# Warm: the page cache holds it all (what hashing alone costs), and
	# reading it from there.
	t0=$(now_ns)
	"$CALOPS" release verify "$W/ws" 3 >/dev/null
	t1=$(now_ns)
	each "$(nproc)" cat >/dev/null
	t2=$(now_ns)
	echo "$a $b $c $(( (t1 - t0) / 1000 )) $d $e" \
	    "$(( (t2 - t1) / 1000 ))" >>"$W/t"
done
ours=$(awk '{ print $1 }' "$W/t" | median)
peer=$(awk '{ print $2 }' "$W/t" | median)
disk=$(awk '{ print $3 }' "$W/t" | median)
warm=$(awk '{ print $4 }' "$W/t" | median)
deep=$(awk '{ print $5 }' "$W/t" | median)
raw=$(awk '{ print $6 }' "$W/t" | median)
cached=$(awk '{ print $7 }' "$W/t" | median)
mibs() { awk -v n="$total" -v us="$1" 'BEGIN {
	printf "%.1f", n / 1048576 / (us / 1e6) }'; }
# Cold is cold only if the reads after a drop went to a disk: slower than
# the page cache by half at least, and no faster than the disk itself.
why=
if [ "$cold" = cold ]; then
	why=$(awk -v c="$(mibs "$disk")" -v m="$(mibs "$cached")" \
	    -v v="$(mibs "$ours")" -v r="$(mibs "$raw")" -v left="$left" \
	    -v n="$total" 'BEGIN {
		if (left > n / 100)
			printf "%.0f%% of the package stayed in the page cache " \
			    "after the drop; ", 100 * left / n
		if (c >= m / 2)
			printf "after the drop cat read at %.1f MiB/s, %.0f%% " \
			    "of its %.1f MiB/s from the page cache; ", c,
			    100 * c / m, m
		if (v > 1.1 * r)
			printf "verify read at %.1f MiB/s, %.1fx the disk " \
			    "read O_DIRECT (%.1f MiB/s); ", v, v / r, r }')
	[ -z "$why" ] || cold=dropped
fi
row "calops release verify ($cold)" "$(mibs "$ours")" MiB/s
row "sha256sum on $(nproc) CPUs, the package ($cold)" "$(mibs "$peer")" MiB/s
row "cat of the package on $(nproc) CPUs ($cold)" "$(mibs "$disk")" \
    MiB/s
row "cat, 32 at a time ($cold)" "$(mibs "$deep")" MiB/s
row "O_DIRECT reads, 32 at a time (the disk at its best)" "$(mibs "$raw")" \
    MiB/s
row "cat on $(nproc) CPUs from the page cache" "$(mibs "$cached")" MiB/s
row "openssl speed -evp sha256 -multi $(nproc) (memory)" "$ceil" MiB/s
row "verify / openssl ceiling" "$(awk -v a="$(mibs "$ours")" -v b="$ceil" \
    'BEGIN { printf "%.2f", a / b }')" x ">=" 0.85
row "verify / reading the files alone" "$(awk -v a="$disk" -v b="$ours" \
    'BEGIN { printf "%.2f", a / b }')" x
row "verify / the disk at its best" "$(awk -v a="$raw" -v b="$ours" \
    'BEGIN { printf "%.2f", a / b }')" x
row "calops release verify (warm: all in the page cache)" "$(mibs "$warm")" \
    MiB/s
row "warm verify / openssl ceiling" "$(awk -v a="$(mibs "$warm")" \
    -v b="$ceil" 'BEGIN { printf "%.2f", a / b }')" x
row "verify / sha256sum" "$(awk -v a="$peer" -v b="$ours" \
    'BEGIN { printf "%.2f", a / b }')" x
if [ "$cold" = dropped ]; then
	echo "  cold is not cold here: ${why%; }." | fold -s -w 78 |
	    sed '2,$s/^/    /'
	echo "    reads after a drop are served from above the disk (most" \
	    "likely the VM's host caching it): the \"dropped\" figures are" \
	    "not the disk's." | fold -s -w 74 | sed '2,$s/^/    /'
fi

# ---- 2. the switch ----
# On a small copy: complete/ with a generation 3 that binds its artifacts
# (a promote goes to the candidate and hashes its bindings: 2 MiB here).
S=$W/small
cp -a "$TOP/share/examples/complete" "$S"
mkdir "$S/08-release/generations/3"
sed -e 's/"generation": 2/"generation": 3/' \
    -e 's/"previous_generation": 1/"previous_generation": 2/' \
    "$S/08-release/generations/2/release-manifest.json" \
    >"$S/08-release/generations/3/release-manifest.json"
openssl pkeyutl -sign -inkey "$KEY" -rawin \
    -in "$S/08-release/generations/3/release-manifest.json" | base64 -w0 \
    >"$S/08-release/generations/3/release-manifest.json.sig"
# The chip step's lab: this machine, the small copy, the bundled simulator
# as fast as it goes; its jobs and caches under $W.
printf 'hosts:\n  - {name: local, transport: local, chips: [0]}\nworkspaces:\n  - {host: local, path: "%s"}\nrunner: ["%s", --time-scale, "0"]\n' \
    "$S" "$(dirname "$CALOPS")/calrt-sim" >"$W/lab.yaml"
CHIP=(--lab "$W/lab.yaml" --host local --chip 0)
export XDG_STATE_HOME=$W/state XDG_CACHE_HOME=$W/cache
# job_span ID: the job's own time in ms, its first event to its end event.
job_span() {
	python3 -c 'import json, sys
ts = [json.loads(l)["ts"] for l in open(sys.argv[1])]
print("%.3f" % ((ts[-1] - ts[0]) * 1000))' \
	    "$XDG_STATE_HOME/calops/jobs/$1/events.jsonl"
}
# timed CMD...: CMD's wall time and its CPU time (user + system) in
# microseconds, "WALL CPU": on a loaded machine the wall time is mostly
# waiting for a CPU, the CPU time what the command itself costs.
timed() {
	python3 - "$@" <<'PYEOF'
import resource, subprocess, sys, time
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
t1 = time.perf_counter()
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
print("%d %d" % ((t1 - t0) * 1e6, cpu * 1e6))
PYEOF
}
echo
echo "2. the switch: rollback 3 -> 2 (no bindings to hash, no chip step)," \
    "promote 2 -> 3 with its chip step (median of $SWITCHES each)"
"$CALOPS" release promote "$S" 3 --key "$KEY" --confirm 3 "${CHIP[@]}" \
    >/dev/null 2>&1
: >"$W/s"
for _ in $(seq "$SWITCHES"); do
	read -r rbw rbc < <(timed "$CALOPS" release rollback "$S" \
	    --key "$KEY" --confirm 2)
	t1=$(now_ns)
	"$CALOPS" release promote "$S" 3 --key "$KEY" --confirm 3 \
	    "${CHIP[@]}" >/dev/null 2>"$W/err"
	t2=$(now_ns)
	job=$(sed -n 's/^calops: chip step: job \([^ ]*\) on .*/\1/p' "$W/err")
	"$CALOPS" release rollback "$S" --key "$KEY" --confirm 2 >/dev/null
	t3=$(now_ns)
	"$CALOPS" release promote "$S" 3 --key "$KEY" --confirm 3 \
	    --no-chip-step --reason 'the benchmark' >/dev/null
	t4=$(now_ns)
	echo "$rbw $(( (t2 - t1) / 1000 ))" \
	    "$(job_span "$job") $(( (t4 - t3) / 1000 )) $rbc" >>"$W/s"
done
rb=$(awk '{ print $1 / 1000 }' "$W/s" | median)
rbcpu=$(awk '{ print $5 / 1000 }' "$W/s" | median)
pr=$(awk '{ print $2 / 1000 }' "$W/s" | median)
job=$(awk '{ print $3 }' "$W/s" | median)
over=$(awk '{ print $2 / 1000 - $3 }' "$W/s" | median)
skip=$(awk '{ print $4 / 1000 }' "$W/s" | median)
row "calops release rollback, the whole command" "$rb" ms "<=" 20
row "  its CPU time (user + system)" "$rbcpu" ms
row "calops release promote with its chip step" "$pr" ms
row "  the chip step's job (inspect + golden)" "$job" ms
row "  the promote's overhead beyond that job" "$over" ms "<=" 1000
row "calops release promote --no-chip-step (2 MiB hashed)" "$skip" ms
"$CALOPS" release audit "$S" >/dev/null ||
	{ echo "bench_release: the chain does not verify" >&2; exit 1; }
echo "  (the audit chain verifies: $(wc -l <"$S/08-release/audit.jsonl")" \
    "records)"
