# labjobs.sh: gate jobs from the board on a lab (issue 4 §4) and nothing
# lost across a console crash (§2): on a workspace whose G7 and G9 evidence
# is missing, r on G7 and on G9 (the simulator at --time-scale 3000: a 24 h
# soak in about 30 s) shows the gates running with progress; the console is
# SIGKILLed in the middle of the soak and started again, then its stream
# reader (`calops tail`) is SIGKILLed as a dropped link; the streams resume,
# both gates turn green when their jobs end, and each job's mirror in
# $XDG_STATE_HOME/calops/streams holds every event of the job exactly once,
# in order: the same bytes as the job's own events.jsonl.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"

copy_ws "$COMPLETE"
rm -rf "$WS/06-runtime/faults" "$WS/06-runtime/correctness/golden.json" \
    "$WS/07-serving/soak"
cat >"$TMP/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0, 1]}
workspaces:
  - {host: local, path: $(yaml_str "$WS")}
runner: [$(yaml_str "$(dirname "$CALOPS")/calrt-sim"), --time-scale, "3000"]
EOF

start CALOPS_JOBS_DIR="$J"
launch "$TMP/lab.yaml"
wait_re "^ G7 +· pending"
wait_re "^ G9 +✘ fail"

# G7: golden + the eight faults, confirmed by typing its chip.
keys j j j j j j j r
# Its chip picked (issue 30): the first idle one, or chip 0.
wait_for "Run G7's job on which chip of local?"
keys Enter
wait_for "Start G7 golden + 8 faults · chip 0 on local?"
send_text "0"
keys Enter
# At 3000x the G7 job may be over before a frame shows it running.
wait_re "^ G7 +(▶ run|✔ pass)"
# The soak takes chip 0 too: while G7's job still runs there the question
# is the weighed one (type the job's id), not the chips this test types.
# On a loaded machine that job can outlast the next keys; let it end.
WAIT_SECS=120 wait_re "^ G7 +✔ pass"
# G9: a wrong answer cancels, the chips typed start the soak.
keys j j r
wait_for "Start soak 24h · chips 0,1 on local?"
send_text "y"
keys Enter
# The answer's message may be replaced at once (the G7 job ending, an
# evaluation): what counts is that nothing started.
wait_gone "Start soak 24h · chips 0,1 on local?"
reject_re "^ G9 +▶ run"
[ "$(ls "$J" | wc -l)" -eq 1 ] || fail "a wrong answer started a job: $(ls "$J")"
keys r
wait_for "Start soak 24h · chips 0,1 on local?"
send_text "0,1"
keys Enter
wait_re "^ G9 +▶ run"

# The soak is under way: SIGKILL the console (no chance to flush anything).
STREAMS=$TMP/state/calops/streams/local
for i in $(seq 1 100); do
	[ "$(cat "$STREAMS"/*.jsonl 2>/dev/null | wc -l)" -gt 200 ] && break
	sleep 0.1
done
pid=$(calops_pid) || fail "no calops running"
kill -9 "$pid"
wait_for "[calops#1 exited 137]"
[ "$(ls "$J" | wc -l)" -eq 2 ] || fail "expected 2 jobs in $J"
for d in "$J"/*/; do
	grep -q '"type":"end"' "$d/events.jsonl" &&
	    grep -q '"stress"' "$d/job.json" &&
	    fail "the soak ended before the console was killed: too fast"
done

# Started again: both streams resume where the mirror ends.
launch "$TMP/lab.yaml"
wait_re "^ G9 +▶ run"

# A dropped stream (a dead link, on a local host): once the replay is done
# and the console follows again, its `calops tail` children are SIGKILLed
# mid-soak; it follows again from the mirror's last seq + 1 after its
# backoff.  A mirror that missed what came meanwhile fails the check below.
pid=$(calops_pid) || fail "no calops running"
tails=
for i in $(seq 1 400); do
	tails=$(pgrep -P "$pid" -f "calops tail ") && break
	sleep 0.05
done
[ -n "$tails" ] || fail "no calops tail under the console after 20 s"
kill -9 $tails
WAIT_SECS=120 wait_re "^ G7 +✔ pass"
WAIT_SECS=120 wait_re "^ G9 +✔ pass"

# Every event exactly once: the mirror is the job's own stream, byte for
# byte, and its seqs run 1..N.
for d in "$J"/*/; do
	same_stream "$d/events.jsonl" "$STREAMS/$(basename "$d").jsonl"
done
# The action log has both starts and both outcomes.
A=$TMP/state/calops/actions.jsonl
[ "$(grep -c '"outcome"' "$A")" -eq 2 ] || fail "expected 2 outcomes in $A"
keys q
wait_exit 0
finish
