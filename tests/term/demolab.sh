# demolab.sh: the README's first command's console, end to end (issue 4):
# calops with no PATH opens the demo lab (a private copy, the simulator as
# runner at --time-scale 3000); a soak started from the board on G9 shows
# on the soak screen with its graphs moving; wait-timeout triggered on chip
# 0 from the faults screen (a soak runs on that chip: the chip id is not
# enough, the soak's job id is asked for and typed) shows its structured
# result; G7 run from the board and the soak turn G7
# and G9 green; the action log has every action with its outcome.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"

start CALOPS_JOBS_DIR="$J"
launch
wait_re "^ demo lab"
wait_re "^ G7 +· pending"
wait_re "^ G9 +✘ fail"
[ -f "$TMP/state/calops/demo/lab.yaml" ] || fail "no private demo lab"

# The soak, from the board.
keys j j j j j j j j j r
wait_for "Start soak 24h · chips 0-3 on local?"
expect "type the chips (0-3) to start it:"
send_text "0-3"
keys Enter
wait_re "^ G9 +▶ run"

# The soak screen: the run advances and the graphs change as it does.
keys 5
wait_for "[5 Soak]"
wait_re "▶ running +soak 24h · chips 0-3 @local"
wait_re "^TTFT p99 [0-9.]+m?s"
# Its view is kept while the console runs: left and come back to, the
# window chosen is still the one shown.
wait_for "headlines: 1 min"
keys w
wait_for "headlines: 10 min"
keys 1
wait_for "[1 Board]"
keys 5
wait_for "[5 Soak]"
wait_for "headlines: 10 min"
keys w w w
wait_for "headlines: 1 min"
wait_re "RSS max [0-9.]+[KMG]i"
first=$(screen | grep -o '[0-9hm]*/24h' | head -1)
shot1=$(screen | sed -n '/^TTFT/,$p')
# Both must move: the elapsed time, and the graphs (new samples can take
# a while to reach a visible column on a loaded machine).
for i in $(seq 1 300); do
	now=$(screen | grep -o '[0-9hm]*/24h' | head -1)
	shot2=$(screen | sed -n '/^TTFT/,$p')
	[ -n "$now" ] && [ "$now" != "$first" ] && [ "$shot1" != "$shot2" ] &&
	    break
	sleep 0.1
done
[ "$now" != "$first" ] || fail "the soak's elapsed time does not move ($first)"
[ "$shot1" != "$shot2" ] || fail "the graphs did not change"

# wait-timeout on chip 0 while the soak runs on it: the warning names the
# soak, a wrong chip id cancels, the right one triggers.
keys 6
wait_for "[6 Faults]"
wait_re "^ SCENARIO +chip 0 +chip 1 +chip 2 +chip 3"
keys g j j j j j
wait_re "^ wait-timeout on local:0 · expects CALRT_E_WAIT_TIMEOUT"
# The command wraps where the pane is narrow, and where depends on the
# length of the build's path; each row that goes on ends in a backslash, as
# in a shell: read the rows back as one line.  A quoted word cut there is
# closed and opened again ('/a b/ca'\ then 'lrt-sim'), as sh reads it: the
# '' where the rows meet goes.
command_shown() {
	screen | awk '/^ command  /{on=1; sub(/^ command/, "")}
		on {sub(/^ +/, ""); sub(/ +$/, "");
		if (sub(/\\$/, "")) {printf "%s", $0; next} print; exit}' |
	    sed "s/''//g"
}
# A path with a blank in it is quoted for sh ('…'), as the build's may be.
[[ "$(command_shown)" =~ calrt-sim\'?\ --time-scale\ 3000\ fault\ --calbin\ .*/05-calbin/package\'?\ --chips\ 0\ --scenario\ wait-timeout$ ]] ||
    fail "the exact fault command is not shown: '$(command_shown)'"
# The soak on chip 0 weighs more than an idle chip: the chip id alone
# cancels, the soak's job id triggers (issue 30 (2)).
keys t
wait_for "Run fault wait-timeout on which chip of local?"
# Each chip with what runs on it: the soak, with its job id.
expect_re "^ [▸] chip 0 +busy: soak 24h · chips 0-3 \(job [^ )]+\)"
pick "chip 0"
wait_for "wait-timeout on local:0 would disturb a running job: type its job"
expect "to trigger it anyway, type its job id ("
expect "soak 24h"
soak_id=$(screen | sed -n 's/.*this would disturb soak 24h.*(job \([^)]*\)).*/\1/p' | head -1)
[ -n "$soak_id" ] || fail "the question names no job id"
send_text 0
keys Enter
wait_for "trigger cancelled: it would disturb"
keys t
pick "chip 0"
wait_for "would disturb a running job"
send_text "$soak_id"
keys Enter
WAIT_SECS=60 wait_re "^ wait-timeout +✔ (recovered )?[0-9.]+s"
expect_re "chip0 recovered [0-9.]+ s"

# G7 from the board; the soak and the G7 job end and both gates pass.
keys 1
wait_for "[1 Board]"
keys g j j j j j j j r
# Its chip picked (issue 30): the first idle one, or chip 0.
wait_for "Run G7's job on which chip of local?"
keys Enter
wait_for "Start G7 golden + 8 faults · chip 0 on local?"
# The soak may have ended by now (its 24 h take 29 s here): then the chip.
wait_re "to start it( anyway)?: ?$"
if screen | grep -q "would be disturbed"; then
	send_text disturb
else
	send_text 0
fi
keys Enter
WAIT_SECS=120 wait_re "^ G9 +✔ pass"
WAIT_SECS=120 wait_re "^ G7 +✔ pass"

# Three actions, three outcomes, each with who and the exact command.
A=$TMP/state/calops/actions.jsonl
[ "$(grep -c '"outcome"' "$A")" -eq 3 ] || fail "expected 3 outcomes in $A"
grep -Eq "\"command\":\"[^\"]*calrt-sim'? --time-scale 3000 fault --calbin [^\"]* --chips 0 --scenario wait-timeout\"" "$A" ||
    fail "the fault's command is not in the action log"

keys q
wait_exit 0
finish
