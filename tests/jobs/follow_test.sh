#!/bin/bash
# follow_test.sh: the resumable follower (src/lab/follow.c) end to end.  A real
# durable job prints numbered lines; tests/unit/follow_driver.c follows it
# through the local transport, is killed with SIGKILL twice mid-run and
# restarted; the seqs it handed over must be exactly 1..N, none twice, and
# follow.json must forget the job once its end event is delivered.
#
#	follow_test.sh CALOPS_BINARY FOLLOW_DRIVER
set -u

CALOPS=${1:?usage: follow_test.sh CALOPS_BINARY FOLLOW_DRIVER}
DRIVER=${2:?usage: follow_test.sh CALOPS_BINARY FOLLOW_DRIVER}
T=$(mktemp -d /tmp/calops-follow-test.XXXXXX)
export XDG_STATE_HOME=$T/state CALOPS_JOBS_DIR=$T/jobs
OUT=$T/out
FAILED=0
say() { printf 'follow_test: %s\n' "$*"; }
fail() { say "FAIL: $*"; FAILED=1; }
cleanup() { [ -n "${PID:-}" ] && kill -KILL "$PID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

id=$("$CALOPS" run -- sh -c 'i=1; while [ $i -le 800 ]; do echo "line $i"; i=$((i+1)); sleep 0.004; done') ||
	{ fail "calops run"; exit 1; }
say "job $id"

# Kill the driver twice mid-run with SIGKILL, then let the third finish.
for pause in 0.8 0.9; do
	"$DRIVER" "$CALOPS" "$id" "$OUT" 2>>"$T/driver.err" &
	PID=$!
	sleep "$pause"
	kill -KILL "$PID"
	wait "$PID" 2>/dev/null
	PID=
	n=$(wc -l <"$OUT")
	saved=$(python3 -c 'import json,sys; print([s["last_seq"] for s in json.load(open(sys.argv[1]))["streams"]])' "$XDG_STATE_HOME/calops/follow.json" 2>/dev/null)
	say "killed after ${pause}s: $n events shown, follow.json: $saved"
	[ "$n" -gt 0 ] || fail "nothing shown before the kill"
done
timeout 60 "$DRIVER" "$CALOPS" "$id" "$OUT" 2>>"$T/driver.err" ||
	fail "the last driver did not finish: $(cat "$T/driver.err")"
cat "$T/driver.err"

last=$(tail -n 1 "$CALOPS_JOBS_DIR/$id/events.jsonl" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"])')
python3 - "$OUT" "$last" <<'PY' || fail "the seqs shown are not 1..$last once each"
import sys
seqs = [int(x) for x in open(sys.argv[1])]
n = int(sys.argv[2])
dups = len(seqs) - len(set(seqs))
missing = sorted(set(range(1, n + 1)) - set(seqs))
print("follow_test: %d shown, %d distinct, %d repeats, missing %s, N %d"
      % (len(seqs), len(set(seqs)), dups, missing[:10], n))
sys.exit(0 if dups == 0 and not missing and set(seqs) == set(range(1, n + 1)) else 1)
PY
[ "$last" -ge 802 ] || fail "the job has $last events, not 802"
grep -q "\"$id\"" "$XDG_STATE_HOME/calops/follow.json" &&
	fail "follow.json still remembers the finished job"
[ $FAILED = 0 ] && say "ok"
exit $FAILED
