# labsoak.sh: any soak of the lab opens in the Soak view (issue 29 (2)).
# A soak started outside this console (`calops run` by hand, as another
# console or a script would) is shown by a console with an empty state
# folder as soon as its Soak screen lists the lab's jobs, caught up from
# the host's events and then moving live; Enter (or s) on its row in Jobs
# opens it in the Soak view; after a restart the console still shows it.
# A second console on a state folder of its own shows it too, moving, and
# again after it restarts.
. "$(dirname "$0")/lib.sh"

demo_lab --time-scale 100
SIM=$(dirname "$CALOPS")/calrt-sim
"$CALOPS" run --jobs "$TMP/jobdir" --id lab-soak -- "$SIM" --time-scale 100 \
    stress --calbin "$TMP/demo/05-calbin/package" --duration 24h \
    --chips 0,1 >/dev/null || fail "cannot start the soak by hand"

start CALOPS_JOBS_DIR="$TMP/jobdir"
launch "$TMP/lab.yaml"
wait_re "^ G9 "
keys 5
wait_for "[5 Soak]"
WAIT_SECS=30 wait_re "(running|catching up) +soak 24h · chips 0,1 @local"
soak_moves "the Soak view"
wait_re "TTFT p99 [0-9]"

# From the Jobs screen: s on its row pushes the Soak view on it.
keys 4
wait_for "[4 Jobs]"
WAIT_SECS=20 wait_for "lab-soak"
keys s
wait_re "(running|catching up) +soak 24h · chips 0,1 @local"
keys q
wait_for "[4 Jobs]"

# Started again: the soak is this console's to show at once, from its
# record and mirror, then resumed from the host.
quit_calops
launch "$TMP/lab.yaml"
wait_re "^ G9 "
keys 5
wait_re "(running|catching up) +soak 24h · chips 0,1 @local"
[ -s "$TMP/state/calops/streams/local/lab-soak.jsonl" ] ||
	fail "no mirror of the soak this console did not start"

# Another console, on a state folder of its own (another person's): it
# shows the same soak, moving, and again once started anew.
pane_env CALOPS_JOBS_DIR="$TMP/jobdir" XDG_STATE_HOME="$TMP/stateB"
mkdir -p "$TMP/stateB"
second "$TMP/lab.yaml"
ON=second
wait_re "^ G9 "
reject "jobs watched"
keys 5
WAIT_SECS=30 wait_re "(running|catching up) +soak 24h · chips 0,1 @local"
soak_moves "the other console"
[ -s "$TMP/stateB/calops/streams/local/lab-soak.jsonl" ] ||
	fail "the other console keeps no mirror of the soak"
tm kill-session -t second
second "$TMP/lab.yaml"
wait_re "^ G9 "
keys 5
WAIT_SECS=30 wait_re "(running|catching up) +soak 24h · chips 0,1 @local"
ON=test
quit_calops
finish
