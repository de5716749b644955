# gatejobs.sh: r on a gate the lab file's gates: map gives a command
# (issue 13), with the simulator's stand-in for the package validator
# (calrt-sim validate) as G6's tool, on a copy of the complete example
# whose validation report and listing were removed: G6 is not green.  r on
# G6 shows the command, that it touches no chip and which later gate goes
# stale, and asks for the gate's id; a wrong answer starts nothing; G6
# typed runs the validator in the workspace as a lab job, and when it ends
# the board is evaluated again and G6 passes.  With the validator's knob
# (--finding ERROR:E-TEST) the same job turns G6 red on G6.errors.  r on a
# gate with no command says so.
. "$(dirname "$0")/lib.sh"

copy_ws "$COMPLETE"
rm "$WS/05-calbin/validation.json" "$WS/05-calbin/file-sha256.txt"
J=$TMP/jobs
jobs_dir "$J"
# lab FILE [VALIDATOR OPTION]: a lab of this machine with G6's validator.
lab() {
	cat >"$1" <<LAB
hosts:
  - {name: local, transport: local, chips: [0]}
workspaces:
  - {host: local, path: $(yaml_str "$WS")}
gates:
  G6: calrt-sim validate --full-hash --output 05-calbin/validation.json --calbin 05-calbin/package ${2:-}
LAB
}
lab "$TMP/lab.yaml"
lab "$TMP/knob.yaml" "--finding ERROR:E-TEST"

start CALOPS_JOBS_DIR="$J"
launch "$TMP/lab.yaml"
wait_re "^ G6 +(✘ fail|· pending)"
on_gate 6 r
wait_for "Start G6 calrt-sim on local?"
expect "none: it works on the workspace's files"
expect "G10 (its release binds validation.json)"
wait_for "type the gate (G6) to start it"
send_text G5
keys Enter
wait_for "not started: 'G5' is not the gate (G6)"
[ -e "$WS/05-calbin/validation.json" ] && fail "a cancelled job ran"
keys r
wait_for "type the gate (G6) to start it"
send_text G6
keys Enter
WAIT_SECS=30 wait_re "^ G6 +✔ pass"
[ -s "$WS/05-calbin/file-sha256.txt" ] || fail "the validator wrote no listing"
keys k k k r
wait_for "G3 has no command in the lab file"
keys q
wait_exit 0

# The validator's knob: the same job, and G6 fails on what it reports.
launch "$TMP/knob.yaml"
wait_re "^ G6 +✔ pass"
on_gate 6 r
wait_for "type the gate (G6) to start it"
send_text G6
keys Enter
WAIT_SECS=30 wait_re "^ G6 +✘ fail"
keys Enter
wait_for "ERROR E-TEST"
keys q q
wait_exit 0
finish
