# demogates.sh: every gate the demo lab gives a command for, run from the
# console on the demo lab itself (issue 13), with the simulator's stand-ins
# for each gate's tool.  The demo's evidence of G1, G2, G5 and G8 removed,
# r on each runs its tool in the workspace as a lab job and turns it green:
# the reference harness (G1), the ONNX checks (G2), the compiler run twice
# as G5's reproducibility run -- which rebuilds the very package G6 was
# validated on, so G6 stays green -- and the adapter conformance on chip 0
# (G8, the chip typed); a on G5 adds a third build, and on another
# gate says it is G5's.  Then the knobs, from a copy of the demo's lab file:
# each job turns its gate red on the check that is about it (G1.repro,
# G2.greedy, G8.conformance, G5.builds).  A gate with no command says so.
# Last, a lab with a second workspace on the host: r on its board runs the
# tool there, and the first is left as it was.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"
D=$TMP/state/calops/demo
W=$D/labdemo

start CALOPS_JOBS_DIR="$J"
# The demo's private copy, made by a first start.
launch
wait_re "^ G7 +· pending"
keys q
wait_exit 0
rm "$W/01-reference/outputs.jsonl" "$W/01-reference/outputs.rerun.jsonl" \
    "$W/02-onnx/onnx-report.json" "$W/04-compiler/builds.json" \
    "$W/07-serving/conformance/runner-vs-server.json" ||
	fail "the demo's evidence is not where this test expects it"
package=$(cat "$W/05-calbin/file-sha256.txt")

# run_gate N ANSWER: r on GN, the answer typed to the confirmation.
run_gate() {
	on_gate "$1" r
	wait_for "type the "
	send_text "$2"
	keys Enter
}

launch
for g in 1 2 5 8; do
	wait_re "^ G$g +(✘ fail|· pending)"
done

run_gate 1 G1
WAIT_SECS=60 wait_re "^ G1 +✔ pass"
[ -s "$W/01-reference/outputs.rerun.jsonl" ] || fail "G1 wrote no rerun"

run_gate 2 G2
WAIT_SECS=60 wait_re "^ G2 +✔ pass"

on_gate 5 r
wait_for "Start G5 two builds: calrt-sim on local?"
expect "G6, G7, G8 (bound to the package's tree hash)"
wait_for "type the gate (G5) to start it"
send_text G5
keys Enter
WAIT_SECS=60 wait_re "^ G5 +✔ pass"
# The compile reproduced the package G6 validated, byte for byte.
expect_re "^ G6 +✔ pass"
[ "$(cat "$W/05-calbin/file-sha256.txt")" = "$package" ] ||
	fail "the listing changed"
[ -s "$W/04-compiler/logs/build-2.log" ] || fail "no log of build-2"
grep -q "^\[pack\] output tree sha256" "$W/04-compiler/logs/build-2.log" ||
	fail "build-2's log: $(cat "$W/04-compiler/logs/build-2.log")"

# a: a third build on demand, added to the two.
keys a
wait_for "Start G5 one more build: calrt-sim on local?"
wait_for "type the gate (G5) to start it"
send_text G5
keys Enter
for i in $(seq 1 600); do
	grep -q '"id": "build-3"' "$W/04-compiler/builds.json" && break
	sleep 0.1
done
grep -q '"id": "build-3"' "$W/04-compiler/builds.json" ||
	fail "R added no third build: $(cat "$W/04-compiler/builds.json")"
WAIT_SECS=60 wait_re "^ G5 +✔ pass"
keys j a
wait_for "a is for G5 only"

on_gate 8 r
wait_for "Start G8 calrt-sim · chip 0 on local?"
wait_for "type the chips (0) to start it"
send_text 0
keys Enter
WAIT_SECS=60 wait_re "^ G8 +✔ pass"

on_gate 3 r
wait_for "G3 has no command in the lab file"
keys q
wait_exit 0
# A second workspace for the end, as green as the first is now.
cp -a "$W" "$D/second" || fail "cannot copy the demo's workspace"

# The knobs: each tool reports what its gate must refuse.
sed -e 's/^  G1: calrt-sim reference$/& --nondeterministic/' \
    -e 's/^  G2: calrt-sim onnx-check$/& --greedy-mismatch 3/' \
    -e 's/^  G5: calrt-sim compile$/& --nondeterministic/' \
    -e 's/^  G8: calrt-sim conformance$/& --token-mismatch 2/' \
    "$D/lab.yaml" >"$D/knobs.yaml"
[ "$(grep -c -e '--nondeterministic' -e '-mismatch' "$D/knobs.yaml")" = 4 ] ||
	fail "the demo's gates: map is not the one this test knows"

# knob N ANSWER CHECK: GN's job with its knob fails GN on CHECK.
knob() {
	run_gate "$1" "$2"
	WAIT_SECS=60 wait_re "^ G$1 +✘ fail"
	keys Enter
	wait_for "$3"
	keys q
	wait_re "^ G$1 +✘ fail"
}

launch "$D/knobs.yaml"
wait_re "^ G1 +✔ pass"
knob 1 G1 "G1.repro"
knob 2 G2 "G2.greedy"
knob 8 0 "G8.conformance"
knob 5 G5 "G5.builds"
keys q
wait_exit 0

# Two workspaces on the one host: r on the second's board runs its tool in
# the second, not in the host's first (whose G1 the knob left failing).
rm "$D/second/01-reference/outputs.jsonl" \
    "$D/second/01-reference/outputs.rerun.jsonl"
first=$(sha256sum "$W/01-reference/outputs.jsonl")
sed -e 's|^  - {host: local, path: labdemo}$|&\n  - {host: local, path: second}|' \
    "$D/lab.yaml" >"$D/two.yaml"
grep -q "path: second}" "$D/two.yaml" ||
	fail "the demo's workspaces: are not the ones this test knows"
launch "$D/two.yaml"
wait_re "^ G2 +✘ fail"			# the first's board, as the knob left it
keys 8
wait_re "^  local .*second "
keys g j Enter
wait_re "^ G2 +✔ pass"			# the second's
wait_re "^ G1 +(✘ fail|· pending)"
on_gate 1 r
wait_for "Start G1 calrt-sim · second on local?"
wait_re "^ in +$D/second$"
wait_for "type the gate (G1) to start it"
send_text G1
keys Enter
WAIT_SECS=60 wait_re "^ G1 +✔ pass"
[ -s "$D/second/01-reference/outputs.rerun.jsonl" ] ||
	fail "G1's job wrote nothing in the second workspace"
[ "$(sha256sum "$W/01-reference/outputs.jsonl")" = "$first" ] ||
	fail "G1's job on the second workspace rewrote the first's outputs"
# Back on the first: its G1 as the knob left it.
keys 8 g Enter
wait_re "^ G2 +✘ fail"
expect_re "^ G1 +✘ fail"
keys q
wait_exit 0
finish
