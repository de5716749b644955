# sshgates.sh: every gate's own tool run on an SSH host (issue 13), on a
# loopback lab of real sshd (share/sshlab.sh) with the console in tmux: the
# demo's workspace on host1, at a path a shell would misread in every way,
# with the evidence of G1, G2, G5 and G8 removed, and the lab file's gates:
# map naming the simulator's stand-ins, as the demo lab does.
#
#  1. r on G1, G2, G5 (the compile twice) and G8 (on host1's chip 0) runs
#     each tool there, in that workspace, as a durable job, and the board
#     (evaluated on host1) turns each gate green.
#  2. `calops run-gate LAB G5 --again` adds a third build there.
#  3. No command in the workspace's path ran.
#  4. A second workspace on host1: r on its board (opened from the
#     Workspaces screen) runs G1's tool in it, not in the first; and
#     `calops run-gate --workspace` runs G2's there.
#
# Skipped (77) without tmux, sshd, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs

lab_up 1 cleanup || fail "the lab did not start: $LAB_LOG"

odd=$'gates \'q\' "dq" $(touch pwned); x\nline2'
WS=$L/host1/$odd
mv "$L/host1/ws" "$WS" || fail "cannot rename the workspace"
rm "$WS/01-reference/outputs.jsonl" "$WS/01-reference/outputs.rerun.jsonl" \
    "$WS/02-onnx/onnx-report.json" "$WS/04-compiler/builds.json" \
    "$WS/07-serving/conformance/runner-vs-server.json" ||
	fail "the demo's evidence is not where this test expects it"
lab_on_host1 "$TMP/lab.yaml" "$WS" "gates:
  G1: calrt-sim reference
  G2: calrt-sim onnx-check
  G5: calrt-sim compile
  G8: calrt-sim conformance
"
[ -e "$HOME/pwned" ] && fail "$HOME/pwned exists before the test"

start
launch "$TMP/lab.yaml"
WAIT_SECS=60 wait_for "watched on host1"
for g in 1 2 5 8; do
	wait_re "^ G$g +(✘ fail|· pending)"
done

# run_gate N ANSWER: r on GN, the answer typed to the confirmation.
run_gate() {
	on_gate "$1" r
	wait_for "on host1?"
	wait_for "type the "
	send_text "$2"
	keys Enter
	WAIT_SECS=90 wait_re "^ G$1 +✔ pass"
}

# ---- 1. each gate's tool on host1 ----
run_gate 1 G1
run_gate 2 G2
run_gate 5 G5
expect_re "^ G6 +✔ pass"
run_gate 8 0
[ -s "$WS/07-serving/conformance/runner-vs-server.json" ] ||
	fail "G8's report is not in host1's workspace"

# ---- 2. a third build, headless ----
id=$("$CALOPS" run-gate "$TMP/lab.yaml" G5 --again 2>"$TMP/rg.err") ||
	fail "run-gate --again on host1: $(cat "$TMP/rg.err")"
for i in $(seq 1 600); do
	grep -q '"id": "build-3"' "$WS/04-compiler/builds.json" && break
	sleep 0.1
done
grep -q '"id": "build-3"' "$WS/04-compiler/builds.json" ||
	fail "no third build on host1 ($id): $(cat "$WS/04-compiler/builds.json")"
WAIT_SECS=90 wait_re "^ G5 +✔ pass"

# ---- 3. nothing the path spells ran ----
find "$L" "$TMP" "$HOME" -maxdepth 3 -name pwned 2>/dev/null | grep -q . &&
	fail "a command in the workspace's path ran"
quit_calops

# ---- 4. a second workspace on host1 ----
WS2=$L/host1/ws2
cp -a "$WS" "$WS2" || fail "cannot copy the workspace"
rm "$WS2/01-reference/outputs.jsonl" "$WS2/01-reference/outputs.rerun.jsonl" \
    "$WS2/02-onnx/onnx-report.json"
first=$(sha256sum "$WS/01-reference/outputs.jsonl" \
    "$WS/02-onnx/onnx-report.json")
lab_on_host1 "$TMP/two.yaml" "$WS" "  - {host: host1, path: \"$WS2\"}
gates:
  G1: calrt-sim reference
  G2: calrt-sim onnx-check
"
launch "$TMP/two.yaml"
WAIT_SECS=60 wait_re "^ G1 +✔ pass"		# the first's board
keys 8
WAIT_SECS=60 wait_re "^  host1 .*/ws2 "
keys g j Enter
WAIT_SECS=60 wait_re "^ G1 +(✘ fail|· pending)"	# the second's
on_gate 1 r
wait_for "Start G1 calrt-sim · ws2 on host1?"
wait_re "^ in +$WS2$"
wait_for "type the gate (G1) to start it"
send_text G1
keys Enter
WAIT_SECS=90 wait_re "^ G1 +✔ pass"
[ -s "$WS2/01-reference/outputs.rerun.jsonl" ] ||
	fail "G1's job wrote nothing in host1's second workspace"
id=$("$CALOPS" run-gate "$TMP/two.yaml" G2 --host host1 --workspace "$WS2" \
    2>"$TMP/rg.err") || fail "run-gate --workspace: $(cat "$TMP/rg.err")"
WAIT_SECS=90 wait_re "^ G2 +✔ pass"
[ -s "$WS2/02-onnx/onnx-report.json" ] ||
	fail "run-gate --workspace ($id) wrote no report in the second"
[ "$(sha256sum "$WS/01-reference/outputs.jsonl" \
    "$WS/02-onnx/onnx-report.json")" = "$first" ] ||
	fail "the jobs on the second workspace rewrote the first's evidence"
quit_calops
finish
