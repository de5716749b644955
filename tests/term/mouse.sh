# mouse.sh: a click is a click under every TERM the console supports, and
# never keys (issue 30 (1)): with TERM=screen and tmux-256color ncurses reads
# only X10 reports (kmous=\E[M), so the console asks for SGR reports (1006)
# and reads them itself; with xterm-256color ncurses reads them.  The bytes
# are sent as a terminal sends them (tmux send-keys -l): a click selects the
# row under it, one on a tab opens that tab, one while the command line is
# open closes it first; a report split in two is one click; a sequence no
# terminfo names is dropped, and a lone Esc is still the Esc key.
. "$(dirname "$0")/lib.sh"

# click ROW COL: button 1 down and up on that cell (1-based), SGR.
click() {
	send_text $'\e[<0;'"$2;$1"'M'
	send_text $'\e[<0;'"$2;$1"'m'
}

# line_of ERE: the 1-based row of the first line matching ERE.
line_of() {
	screen | grep -nE -- "$1" | head -1 | cut -d: -f1
}

# col_of TEXT: the 1-based column of TEXT's second character on the first
# line (a tab's digit), in characters (every one of them a column here).
col_of() {
	local line

	line=$(screen | head -1)
	line=${line%%"$1"*}
	echo $((${#line} + 2))
}

# board_only: the board is still the tab, nothing typed opened a screen or
# a prompt; ? then shows help over it (a key read after the click, so the
# click was read before it).
board_only() {
	keys '?'
	wait_re "^ Help "
	expect "[1 Board]"
	reject "q, :q or ^C quits"
	keys q
	wait_re "^ GATE +STATUS"
}

for term in screen tmux-256color xterm-256color; do
	start TERM=$term
	launch "$MIDPROJECT"
	wait_for "3 of 11 gates pass"
	wait_re "^ G10 "
	[ "$(tm display -p -t test '#{mouse_sgr_flag}')" = 1 ] ||
	    fail "$term: the console did not ask for SGR mouse reports"

	# The click of the issue: row 12, column 10; G8's row here.
	row=$(line_of '^ G8 ')
	[ "$row" = 12 ] || fail "$term: G8 is on row $row, not 12"
	click 12 10
	board_only
	keys Enter
	wait_re "^ G8 llama.cpp adapter"
	expect "[1 Board]"
	keys q
	wait_re "^ GATE +STATUS"

	# G5 by a click split between two writes, then Enter: its why.
	row=$(line_of '^ G5 ')
	send_text $'\e[<0;5'
	send_text ";${row}M"
	send_text $'\e[<0;5;'"${row}m"
	keys Enter
	wait_re "^ G5 Reproducible compile"
	keys q
	wait_re "^ GATE +STATUS"

	# A tab by a click (where the tab bar has room for the others); the
	# command line closed by one, which then selects the row under it.
	if [ "$COLS" -ge 120 ]; then
		click 1 "$(col_of ' 3 ')"
		wait_for "[3 Findings]"
		keys :
		wait_re '^:'
		click 1 "$(col_of ' 1 ')"
		wait_for "[1 Board]"
		reject_re '^:'
	fi
	keys :
	wait_re '^:'
	click "$(line_of '^ G3 ')" 5
	wait_re "^ 3 of 11 gates pass"
	keys Enter
	wait_for "First failing check: G3.unsupported (error)"
	keys q
	wait_re "^ GATE +STATUS"

	# A key no terminfo names (Ctrl-F12, 2 and 4 in it) and an Alt key:
	# nothing; a lone Esc is Esc.
	send_text $'\e[24;5~'
	send_text $'\e2'
	board_only
	keys Escape
	wait_for "q, :q or ^C quits"

	keys q
	wait_exit 0
	[ "$(tm display -p -t test '#{mouse_any_flag}#{mouse_sgr_flag}')" = 00 ] ||
	    fail "$term: mouse modes left on after q"
	stop_server
done
finish
