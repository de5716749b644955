# help.sh: ? shows the keys, generated from the key tables (the screen's
# own first, then the global ones); q (or ? again) closes it.
. "$(dirname "$0")/lib.sh"

start
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"

keys ?
wait_for "Help — q to close"
expect_re "^ Board$"
expect_re "^   w +why is this gate not green\?"
expect_re "^ Everywhere$"
expect_re "^   Up k +move up$"
expect_re "^   q +close this screen; quit from the first$"
expect_re "^   Esc +back out: filter, pane, then screen; never quits$"
expect_re "^   a +G5: one more build of its reproducibility run"
# Below the first page at 80x24, with the board's keys above them.
[ "$ROWS" -lt 40 ] || expect_re "^   / +filter the lines \(Esc clears\)$"
[ "$ROWS" -lt 40 ] || expect_re "^   Tab +next screen$"
expect_re "^   > +sort by the next column$"
expect_re "^   < +sort by the previous column$"
# The screens, from the registry: digit and :name.  At 80x24 the first
# page ends before them.
[ "$ROWS" -lt 40 ] || expect_re "^   1 :board +the gate board, G0-G10$"
[ "$ROWS" -lt 40 ] || expect_re "^   6 :faults +fault scenarios x chips"
reject "GATE STATUS"
# The end of the list, scrolled to at 80x24.
keys G
wait_re "^   wheel +scroll$"
# The last screens, on the last page at 120x40.
[ "$ROWS" -lt 40 ] || expect_re "^   8 :workspaces +every workspace of the lab, its gates$"
expect_re "^   \^Z +suspend calops \(fg to return\)$"
keys q
wait_for "GATE STATUS"
wait_for "3 of 11 gates pass"
reject "Help"

# On the findings: their keys first; ? closes it as well.
keys 3
wait_for "[3 Findings]"
keys ?
wait_for "Help — q to close"
expect_re "^ Findings$"
expect_re "^   o +open the finding's file in \\\$EDITOR/\\\$PAGER \\(remote: here\\)"
expect_re "^   s > +sort by the next column$"
expect_re "^   < +sort by the previous column$"
expect_re "^   v +cycle the least severity shown: all, then each one"
keys ?
wait_for "5 of 5 findings"
reject "Help — q to close"
keys F1
wait_for "Help — q to close"
keys Escape
wait_for "5 of 5 findings"
keys Q
wait_exit 0
finish
