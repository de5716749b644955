# sshworkspaces.sh: the Workspaces screen (issue 11 §7) on a lab of two
# local workspaces and two SSH hosts of a loopback lab (share/sshlab.sh),
# the console in tmux.  Each workspace is evaluated on its own host.
#
#  1. 8 shows the four, one row each: host, path, the project's status,
#     the eleven gates as glyphs and the first gate not green; the board's
#     workspace is marked.
#  2. A change on host2 (G2's report gone) is seen on R: its row turns to
#     G2.
#  3. Enter on host2's row opens its board: G2 red there, watched on host2;
#     r on G9 there picks host2 first, and host1 can be picked instead;
#     the report back, the row of the workspace on screen is that live
#     board at once (issue 29 (6)), not the copy R evaluated.
#  4. host1 off the network: its row keeps its board and says it is not
#     fresh; back, it is evaluated again.
#
# Skipped (77) without tmux, sshd, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs

lab_up 2 cleanup || fail "the lab did not start: $LAB_LOG"
copy_ws "$MIDPROJECT"
MID=$WS
copy_ws "$COMPLETE"
DONE=$WS
# This machine first, with the two examples, then the lab's own.
awk -v mid="$MID" -v done_="$DONE" '
	/^hosts:$/ { print; print "  - {name: local, transport: local, " \
	    "chips: [0]}"; next }
	/^workspaces:$/ { print; printf "  - {host: local, path: \"%s\"}\n" \
	    "  - {host: local, path: \"%s\"}\n", mid, done_; next }
	{ print }' "$L/lab.yaml" >"$TMP/lab.yaml"

start
launch "$TMP/lab.yaml"
WAIT_SECS=30 wait_re "^ G2 +≈ stale"	# midproject's board first

# ---- 1. every workspace on one screen ----
keys 8
WAIT_SECS=60 wait_re "^. host1 .*/ws +G7 +✔✔✔✔✔✔✔·✔✘· G7 "
WAIT_SECS=60 wait_re "^. host2 .*/ws +G7 +✔✔✔✔✔✔✔·✔✘· G7 "
wait_re "^▸ local .*midproject +BLOCKED_COMPILER +✔✔≈✘✔⊘····· G2 "
wait_re "^  local .*complete +RELEASED +✔✔✔✔✔✔✔✔✔✔✔ -  "
wait_for "4 workspaces, 1 released"

# ---- 2. a change on host2, seen on R ----
report=$(cd "$L/host2/ws" && ls 02-onnx/*.json 2>/dev/null | head -1)
[ -n "$report" ] || fail "no G2 report in the lab's workspace"
cp -p "$L/host2/ws/$report" "$TMP/g2-report"
rm "$L/host2/ws/$report"
keys R
WAIT_SECS=60 wait_re "^. host2 .*/ws +G2 +✔✔[✘·]"
expect_re "^. host1 .*/ws +G7 "

# ---- 3. Enter: the board of host2's workspace ----
keys j j j
wait_re "^  host2 .*G2"		# selected: no mark yet
keys Enter
WAIT_SECS=60 wait_re "^ G2 +(✘ fail|· pending)"
WAIT_SECS=60 wait_for "watched on host2"
# r on G9 from host2's board: the lab's hosts with their states, host2
# (the board's) selected first, not the lab's first; host1 picked instead
# (issue 30 §5), and the confirmation cancelled.
on_gate 9 r
wait_for "Run G9's job on which host?"
wait_re "^ [▸] host2 +up"
expect_re "^   host1 +up"
expect_re "^   local +up"
pick host1
WAIT_SECS=30 wait_re "Start soak 24h · chips [0-9,-]+ on host1\?"
keys Escape
wait_gone "Start soak 24h"
keys 8
wait_re "^▸ host2 "

# ---- 3b. the row of the workspace on screen is its live board ----
# The report back: the board watched on host2 sees it; the Workspaces row
# shows that board at once, not the copy R evaluated a moment ago.
keys 1
cp -p "$TMP/g2-report" "$L/host2/ws/$report"
WAIT_SECS=60 wait_re "^ G2 +✔ pass"
keys 8
wait_for "[8 Workspaces]"
expect_re "^▸ host2 .*/ws +G7 +✔✔✔✔✔✔✔·✔✘· G7 "

# ---- 4. host1 away: its board stays, marked; back: evaluated again ----
sh "$SRC/share/sshlab.sh" down "$L" host1 >/dev/null 2>&1 ||
	fail "sshlab.sh down host1 failed"
keys R
WAIT_SECS=60 wait_re "(1 evaluating|without a fresh board)"
expect_re "^. host1 .*/ws +G7 +✔✔✔✔✔✔✔·✔✘·"
sh "$SRC/share/sshlab.sh" up "$L" host1 >/dev/null 2>&1 ||
	fail "sshlab.sh up host1 failed"
wait_until '!E' "evaluating|without a fresh" 90 ||
	fail "host1's workspace was not evaluated again once it was back"
expect_re "^. host1 .*/ws +G7 +✔✔✔✔✔✔✔·✔✘·"
quit_calops
finish
