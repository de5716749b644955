# gatejobs.sh: r on any gate the lab file's gates: map gives a command
# (issue 13): on a copy of the complete example whose validation report was
# moved away, G6 is not green; r on G6 shows the command, that it touches
# no chip and which later gate goes stale, and asks for the gate's id; a
# wrong answer starts nothing; G6 typed runs the command in the workspace
# as a lab job (here: it puts the report back), and when it ends the board
# is evaluated again and G6 passes.  r on a gate with no command says so.
. "$(dirname "$0")/lib.sh"

copy_ws "$COMPLETE"
mv "$WS/05-calbin/validation.json" "$WS/05-calbin/validation.json.bak"
J=$TMP/jobs
jobs_dir "$J"
cat >"$TMP/lab.yaml" <<LAB
hosts:
  - {name: local, transport: local, chips: [0]}
workspaces:
  - {host: local, path: $WS}
gates:
  G6: [sh, -c, "mv 05-calbin/validation.json.bak 05-calbin/validation.json"]
LAB

start CALOPS_JOBS_DIR="$J"
launch "$TMP/lab.yaml"
wait_re "^ G6 +(✘ fail|· pending)"
keys g j j j j j j r
wait_for "Start G6 sh on local?"
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
[ -e "$WS/05-calbin/validation.json" ] || fail "the job did not run"
keys k k k r
wait_for "G3 has no command in the lab file"
keys q
wait_exit 0
finish
