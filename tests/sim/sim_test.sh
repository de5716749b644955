#!/bin/bash
# sim_test.sh: calrt-sim writes G7/G9 evidence that the gates accept, and
# each of its knobs fails the check a real chip's trouble would fail.
#
# usage: tests/sim/sim_test.sh CALOPS CALRT_SIM
#
# Works on a copy of share/examples/complete with its G7/G9 artifacts
# removed (the examples are never touched): golden, the eight faults and a
# 24 h soak at --time-scale 0 make `calops check --gate G7 --gate G9` pass;
# then --leak-rate, --error-rate, --ttft-ms, an 8 h soak only, --no-recover,
# --abort, --unstructured and --mismatch each produce their finding, one
# --seed gives byte-identical artifacts, --time-scale sleeps, and SIGTERM
# ends a soak with its artifacts written.  Findings are read from
# `calops check --json` with python3.
set -euo pipefail
export LC_ALL=C

[ $# -eq 2 ] || { echo "usage: sim_test.sh CALOPS CALRT_SIM" >&2; exit 2; }
CALOPS=$1
SIM=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sim_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache	# never the user's own hash cache

ws=$work/ws
pkg=$ws/05-calbin/package
soak=$ws/07-serving/soak
cp -a "$top/share/examples/complete" "$ws"
rm -f "$ws/06-runtime/correctness/golden.json" "$ws"/06-runtime/faults/*.json
rm -rf "${soak:?}"/*

failures=0
ok() { printf 'ok   %s\n' "$*"; }
bad() { printf 'FAIL %s\n' "$*"; failures=$((failures + 1)); }

# sim CMD ARGS...: run the simulator fast and seeded; its exit status is
# left in $rc and its events in $work/out.jsonl.
sim() {
	local cmd=$1
	shift
	rc=0
	"$SIM" "$cmd" --calbin "$pkg" --time-scale 0 --seed 7 "$@" \
	    >"$work/out.jsonl" 2>"$work/err.txt" || rc=$?
}

# expect_rc WANT WHAT: the last sim's exit status.
expect_rc() {
	if [ "$rc" -eq "$1" ]; then ok "$2 (exit $rc)"
	else bad "$2: exit $rc, wanted $1"; cat "$work/err.txt"; fi
}

# check_ws: evaluate G7 and G9 into $work/check.json; the status in $crc.
check_ws() {
	crc=0
	"$CALOPS" check --json --gate G7 --gate G9 "$ws" >"$work/check.json" ||
	    crc=$?
}

# has CHECK SEVERITY TEXT: a finding of CHECK (or a sub-id) with that
# severity whose message or path contains TEXT.
has() {
	python3 - "$work/check.json" "$@" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
check, sev, text = sys.argv[2:5]
for g in doc["gates"]:
    for f in g["findings"]:
        if (f["check"] == check or f["check"].startswith(check + ".")) and \
           f["severity"] == sev and (text in f["message"] or text in f["path"]):
            sys.exit(0)
sys.exit(1)
EOF
}

expect() {	# expect CHECK SEVERITY TEXT WHAT
	if has "$1" "$2" "$3"; then ok "$4: $1 $2 ($3)"
	else bad "$4: no $1 $2 finding with '$3'"; cat "$work/check.json"; fi
}

expect_not() {	# expect_not CHECK SEVERITY TEXT WHAT
	if has "$1" "$2" "$3"; then bad "$4: unexpected $1 $2 with '$3'"
	else ok "$4: no $1 $2 for '$3'"; fi
}

faults="missing-tensor bad-csr oob-slice kv-full submit-busy wait-timeout
	ccu-exception reset-warmup"

# --- the evidence a healthy runner leaves -------------------------------
sim golden
expect_rc 0 "golden"
for f in $faults; do
	sim fault --scenario "$f"
	expect_rc 0 "fault $f"
done
sim stress --duration 24h --run release-24h
expect_rc 0 "stress 24h"
check_ws
if [ "$crc" -eq 0 ]; then ok "calops check --gate G7 --gate G9 passes"
else bad "calops check --gate G7 --gate G9: exit $crc"; cat "$work/check.json"; fi
expect G9.duration info "'release-24h', 24.0 h (release evidence)" "24 h soak"

# --- each knob fails the check a real chip would fail -------------------
knob() {	# knob RUN ARGS...: a 24 h soak at a lighter load
	local run=$1
	shift
	sim stress --duration 24h --rate 0.5 --run "$run" "$@"
}
knob knob-leak --leak-rate 50000000
expect_rc 1 "--leak-rate 50000000"
check_ws
expect G9.leak error "knob-leak/metrics.jsonl" "--leak-rate"
expect_not G9.soak error "knob-leak" "--leak-rate"
rm -rf "${soak:?}/knob-leak"

knob knob-device --leak-rate 50000000 --leak-in device
check_ws
expect G9.leak error "device_mem_bytes grows" "--leak-in device"
rm -rf "${soak:?}/knob-device"

knob knob-errors --error-rate 0.05
expect_rc 1 "--error-rate 0.05"
check_ws
expect G9.soak error "knob-errors: success rate" "--error-rate"
expect_not G9.leak error "knob-errors" "--error-rate"
rm -rf "${soak:?}/knob-errors"

knob knob-ttft --ttft-ms 3000
expect_rc 1 "--ttft-ms 3000"
check_ws
expect G9.soak error "knob-ttft: TTFT P99" "--ttft-ms"
expect_not G9.soak error "knob-ttft: success" "--ttft-ms"
rm -rf "${soak:?}/knob-ttft"

mv "$soak/release-24h" "$work/release-24h"
sim stress --duration 8h --run candidate-8h
expect_rc 0 "stress 8h"
check_ws
expect G9.duration error "no passing soak of 24 h" "8 h only"
expect G9.duration info "'candidate-8h', 8.0 h (candidate evidence)" "8 h only"
rm -rf "${soak:?}/candidate-8h"
mv "$work/release-24h" "$soak/release-24h"

fault_knob() {	# fault_knob FLAG MESSAGE
	sim fault --scenario wait-timeout "$1"
	expect_rc 1 "fault wait-timeout $1"
	check_ws
	expect G7.faults error "$2" "$1"
	sim fault --scenario wait-timeout
}
fault_knob --no-recover "wait-timeout: the runner did not recover"
fault_knob --abort "wait-timeout: the runner aborted"
fault_knob --unstructured "wait-timeout: the runner gave no structured error"

sim golden --mismatch 17:32
expect_rc 1 "golden --mismatch 17:32"
check_ws
expect G7.golden error "case prefill 17 decode 32: logits_match" "--mismatch"
sim golden

check_ws
if [ "$crc" -eq 0 ]; then ok "G7 and G9 pass again once the knobs are off"
else bad "G7/G9 after the knobs: exit $crc"; cat "$work/check.json"; fi

# --- determinism: one seed, one byte stream -----------------------------
artifacts() {	# the artifacts a seeded golden, fault and 1 h soak write
	sim golden
	cat "$ws/06-runtime/correctness/golden.json" >"$1"
	sim fault --scenario ccu-exception
	cat "$ws/06-runtime/faults/ccu-exception.json" >>"$1"
	sim stress --duration 1h --run seeded-1h
	cat "$work/out.jsonl" "$soak/seeded-1h/metrics.jsonl" \
	    "$soak/seeded-1h/summary.json" >>"$1"
}
artifacts "$work/a"
rm -rf "${soak:?}/seeded-1h"
artifacts "$work/b"
if cmp -s "$work/a" "$work/b"; then ok "--seed 7 twice: byte-identical"
else bad "--seed 7 twice: artifacts differ"; fi
tail -n +2 "$soak/seeded-1h/metrics.jsonl" >"$work/m7"
"$SIM" stress --calbin "$pkg" --time-scale 0 --seed 8 --duration 1h \
    --run seeded-8 >/dev/null || true
if tail -n +2 "$soak/seeded-8/metrics.jsonl" | cmp -s "$work/m7" -; then
	bad "--seed 8 gives the same events as --seed 7"
else ok "--seed 8 differs from --seed 7"; fi
rm -rf "${soak:?}/seeded-8"

# --- a run never writes into another's folder (workspace.md, G9) ---------
grep -q '"outcome": "completed"' "$soak/seeded-1h/summary.json" &&
    ok "a completed run says so: outcome completed" ||
    bad "a completed run's summary has no outcome completed"
(cd "$soak/seeded-1h" && sha256sum metrics.jsonl summary.json) >"$work/sums"
rc=0
"$SIM" stress --calbin "$pkg" --time-scale 0 --seed 8 --duration 1h \
    --run seeded-1h >"$work/again.jsonl" 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "run folder .*seeded-1h' exists" \
    "$work/again.jsonl" &&
    (cd "$soak/seeded-1h" && sha256sum -c --quiet "$work/sums") &&
    [ -z "$(find "$soak" -name '.seeded-1h*')" ]; then
	ok "a second run named as the first: refused, the first byte-identical"
else bad "a second run named as the first: exit $rc, or the first changed"; fi
rm -rf "${soak:?}/seeded-1h"
# Under a job, the default name carries the job's id: two soaks of the same
# day and span are two folders.
CALOPS_JOB=20260921-101500-a1b2c3 "$SIM" stress --calbin "$pkg" \
    --time-scale 0 --seed 7 --duration 1h >/dev/null || true
CALOPS_JOB=20260921-111500-d4e5f6 "$SIM" stress --calbin "$pkg" \
    --time-scale 0 --seed 7 --duration 1h >/dev/null || true
if [ "$(find "$soak" -mindepth 1 -maxdepth 1 -name '*-1h-2026092[1]-1[01]1500-*' |
    wc -l)" -eq 2 ]; then
	ok "two soaks under two jobs: two run folders named by their job ids"
else bad "two soaks under two jobs: $(ls "$soak")"; fi
rm -rf "${soak:?}"/*

# --- the clock: --time-scale sleeps, SIGTERM ends a run cleanly ---------
t0=$(date +%s%N)
"$SIM" stress --calbin "$pkg" --seed 7 --duration 600 --time-scale 1200 \
    --run paced >/dev/null
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$ms" -ge 400 ] && [ "$ms" -le 5000 ]; then
	ok "600 s at --time-scale 1200 took $ms ms"
else bad "600 s at --time-scale 1200 took $ms ms, wanted ~500"; fi
rm -rf "${soak:?}/paced"

"$SIM" stress --calbin "$pkg" --seed 7 --duration 24h --time-scale 500 \
    --run stopped >"$work/stopped.jsonl" &
pid=$!
sleep 1
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
if [ "$rc" -eq 2 ] && grep -q '"interrupted": true' \
    "$soak/stopped/summary.json" &&
    grep -q '"outcome": "killed"' "$soak/stopped/summary.json" &&
    tail -n 1 "$work/stopped.jsonl" |
    grep -q '"status":"error"' &&
    cmp -s "$work/stopped.jsonl" "$soak/stopped/metrics.jsonl"; then
	ok "SIGTERM: exit 2, summary says killed, metrics.jsonl = stdout"
else bad "SIGTERM: exit $rc or artifacts missing"; fi
rm -rf "${soak:?}/stopped"

# --- the command line ---------------------------------------------------
rc=0
"$SIM" fault --calbin "$pkg" --scenario no-such --time-scale 0 \
    >"$work/out.jsonl" || rc=$?
if [ "$rc" -eq 2 ] && grep -q '"status":"error"' "$work/out.jsonl"; then
	ok "unknown scenario: exit 2 with an error result"
else bad "unknown scenario: exit $rc"; fi
rc=0
"$SIM" golden --calbin "$pkg" --duration 1h 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] && ok "an option of another command: exit 2" ||
    bad "--duration on golden: exit $rc"

if [ "$failures" -ne 0 ]; then
	echo "sim_test: $failures failure(s)"
	exit 1
fi
echo "sim_test: all passed"
