# quit.sh: q quits from the board (Esc and Alt keys never do) and leaves the
# terminal as it found it
# (stty settings, cursor shown, main screen, no keypad or mouse modes) with
# a working shell; Ctrl-Z suspends to the shell (jobs lists it) and fg
# brings the console back redrawn; ^C and SIGTERM quit cleanly too.  q on
# another tab goes back to the first; quitting while a job streams asks.
. "$(dirname "$0")/lib.sh"

MODES='alt=#{alternate_on} cursor=#{cursor_flag} keypad=#{keypad_cursor_flag}#{keypad_flag} mouse=#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}#{mouse_all_flag}#{mouse_sgr_flag}'
SANE='alt=0 cursor=1 keypad=00 mouse=00000'

# modes_are WANT WHEN: tmux's view of the pane's modes.
modes_are() {
	local now

	now=$(tm display -p -t test "$MODES")
	[ "$now" = "$1" ] || fail "$2: the pane's modes are '$now', not '$1'"
}

# stty_same NAME: the tty settings now are those from before calops ran.
stty_same() {
	sh_cmd "stty -a > $TMP/stty.$1"
	diff "$TMP/stty.before" "$TMP/stty.$1" ||
	    fail "$1: stty -a differs from before calops ran"
}

# the_board: the board is all there.
the_board() {
	wait_for "3 of 11 gates pass"
	wait_re "^ G10  · pending"
	expect_re "^ calops  .*  qwen/qwen3-"
	expect "BLOCKED_COMPILER — no launch date may be promised"
	expect_re "^ GATE STATUS"
	expect_re "^ G3   ✘ fail"
}

start
sh_cmd "stty -a > $TMP/stty.before"
modes_are "$SANE" "before calops"

launch "$MIDPROJECT"
the_board
# The control: tmux does see the console's modes.
modes_are "alt=1 cursor=0 keypad=11 mouse=10101" "while calops runs"
# Esc never quits, nor an Alt key (Esc and the key at once): the tab keyed
# after them shows that they were read, and the console still runs.
keys Escape
wait_for "q, :q or ^C quits"
keys M-q M-x 2
wait_for "[2 Tickets]"
keys 1
wait_for "[1 Board]"
reject "q, :q or ^C quits"
keys Escape Escape
wait_for "q, :q or ^C quits"
keys 3
wait_for "[3 Findings]"
reject "exited"
keys 1
the_board
keys q
wait_exit 0
modes_are "$SANE" "after q"
stty_same after-q
sh_cmd "echo \$((6 * 7))-is-the-answer"
expect "42-is-the-answer"

# Ctrl-Z, jobs, fg.  Alone on its line: the shell would go on to the next
# command of a list as soon as calops stops.
run "$(printf '%q %q' "$CALOPS" "$MIDPROJECT")"
the_board
keys C-z
# Only the start of the line: a long path wraps the rest; jobs names calops.
wait_re "^\[1\]\+ +Stopped "
modes_are "$SANE" "suspended"
stty_same suspended
sh_cmd "jobs > $TMP/jobs"
grep -qE '^\[1\]\+ +Stopped +.*calops' "$TMP/jobs" ||
    fail "jobs says: $(cat "$TMP/jobs")"
run fg
the_board
modes_are "alt=1 cursor=0 keypad=11 mouse=10101" "after fg"
keys j j j Enter
wait_for "First failing check: G3.unsupported (error)"
keys q
the_board
keys q
wait_re '^\$$'
sh_cmd '(exit $?)'
modes_are "$SANE" "after fg and q"
stty_same after-fg

# ^C quits (raw mode: it is a key); so does SIGTERM from elsewhere.
launch "$MIDPROJECT"
the_board
keys C-c
wait_exit 0
modes_are "$SANE" "after ^C"
stty_same after-ctrl-c
launch "$MIDPROJECT"
the_board
pid=$(calops_pid) || fail "cannot find calops to kill"
kill -TERM "$pid"
wait_exit 0
modes_are "$SANE" "after SIGTERM"
stty_same after-sigterm

# q closes a tab and quits only from the first (help: "close this screen;
# quit from the first"); while a job streams to the console, quitting asks
# first (lazygit's confirmOnQuit): anything but y stays, y quits (issue 30
# (3)).  A soak on the demo workspace, the simulator at real speed, killed
# on exit.
demo_lab --time-scale 1
run "export CALOPS_JOBS_DIR=$(printf '%q' "$TMP/jobdir")"
launch "$TMP/lab.yaml"
wait_re "^ G9 "
keys 3
wait_for "[3 Findings]"
keys q
wait_for "[1 Board]"
expect "q again quits"
keys G k r
wait_for "type the chips (0-3) to start it:"
send_text 0-3
keys Enter
wait_re "^ G9 +▶ run"
keys 5
wait_for "[5 Soak]"
keys q
wait_for "[1 Board]"
keys q
wait_for "1 job streams here (it goes on running without this console): quit? type y:"
send_text n
keys Enter
wait_for "not quitting"
keys Q
wait_for "1 job streams here"
keys Escape
wait_for "not quitting"
keys : ; send_text q ; keys Enter
wait_for "1 job streams here"
send_text y
keys Enter
wait_exit 0
modes_are "$SANE" "after y"
finish
