# alerts.sh: a soak's open alerts are seen from every screen (issue 30
# (4)): the count on the Soak tab's label and in the status bar, on the
# Board and the Tickets screen alike; ! from there opens the Soak screen
# with its alert journal on the newest open alert; with alert_bell: true in
# the config file the terminal's bell rings when one opens.  A soak whose
# TTFT is far over the SLA, the simulator at 100x (its 24 h take 15 min),
# killed on exit.
. "$(dirname "$0")/lib.sh"

demo_lab --time-scale 100 --ttft-ms 2500
mkdir -p "$TMP/config/calops"
echo "alert_bell: true" >"$TMP/config/calops/config.yaml"

start CALOPS_JOBS_DIR="$TMP/jobdir"
launch "$TMP/lab.yaml"
wait_re "^ G9 "
# A second window made the current one: tmux flags a bell in the other.
ON=test:0
tm new-window -d -t test:1 || fail "cannot make a second window"
tm select-window -t test:1
reject "open alert"
[ "$(tm display -p -t test:0 '#{window_bell_flag}')" = 0 ] ||
    fail "the bell rang before any alert"
keys 2
wait_for "[2 Tickets]"
keys 1
wait_for "[1 Board]"
keys G k r
wait_for "type the chips (0-3) to start it:"
send_text 0-3
keys Enter
wait_re "^ G9 +▶ run"

# On the Tickets screen: the status bar's count, and the Soak tab's badge
# where the tab bar has room for the other tabs (on the Soak tab itself it
# always shows, below).
keys 2
wait_for "[2 Tickets]"
WAIT_SECS=60 wait_re "⚠ [0-9]+ open alerts? \(! shows\)"
if screen | head -1 | grep -qE " 1 +\[2 Tickets\]"; then
	screen | head -1 | grep -qE " 5⚠[0-9]+ " ||
	    fail "the Soak tab shows no count of open alerts"
fi
[ "$(tm display -p -t test:0 '#{window_bell_flag}')" = 1 ] ||
    fail "no bell when the alert opened"

# ! : the Soak screen, the journal shown, an open alert selected.
keys '!'
wait_re "\[5 Soak ⚠[0-9]+\]"
wait_re "^ ALERTS +[0-9]+, [1-9][0-9]* open"
expect_re "→open +unacked +worst [0-9.]+m?s over [0-9.]+m?s"
reject "no open alert"
keys 1
wait_for "[1 Board]"
expect_re "open alerts? \(! shows\)"
quit_calops
finish
