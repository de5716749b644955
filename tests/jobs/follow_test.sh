#!/bin/bash
# follow_test.sh: the follower (src/lab/follow.c) end to end, resumed as
# every consumer resumes it, after what it kept.  A real durable job prints
# numbered lines; tests/unit/follow_driver.c follows it through the local
# transport, is killed with SIGKILL twice mid-run and restarted after the
# last seq its output holds; the seqs it handed over must be exactly 1..N,
# none twice, and the follower must keep no file of its own.
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

# Kill the driver twice mid-run with SIGKILL, once it has shown 100 and
# then 300 events (a condition, not a time), then let the third finish.
touch "$OUT"
for want in 100 300; do
	"$DRIVER" "$CALOPS" "$id" "$OUT" 2>>"$T/driver.err" &
	PID=$!
	while [ "$(wc -l <"$OUT")" -lt "$want" ] && kill -0 "$PID" 2>/dev/null
	do
		sleep 0.01
	done
	kill -KILL "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	PID=
	n=$(wc -l <"$OUT")
	say "killed at $n events shown"
	[ "$n" -ge "$want" ] || fail "the driver ended at $n events, before $want"
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
[ -e "$XDG_STATE_HOME/calops/follow.json" ] &&
	fail "the follower wrote a position file of its own"
[ $FAILED = 0 ] && say "ok"
exit $FAILED
