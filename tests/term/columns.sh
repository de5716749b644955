# columns.sh: list columns use the space there is (views/core/list.c): the
# board's owners are whole once the screen has room for them (120 columns
# and up, 160x45 too), so are the tickets' titles and owners at 160x45, a
# finding's FILE:POSITION keeps its end, l and h scroll the cut cells of
# the findings, a click on a column's title sorts by it (OWNER on Tickets,
# LEVEL on Findings), and a message the status bar cuts is whole in :messages.
. "$(dirname "$0")/lib.sh"

# click ROW COL: button 1 down and up on that cell (1-based), SGR.
click() {
	send_text $'\e[<0;'"$2;$1"'M'
	send_text $'\e[<0;'"$2;$1"'m'
}

# click_title HEADER TITLE: a click on TITLE in the header row that matches
# the extended regex HEADER.
click_title() {
	local row line
	row=$(screen | grep -nE "$1" | head -1 | cut -d: -f1)
	[ -n "$row" ] || fail "no header /$1/"
	line=$(screen | sed -n "${row}p")
	line=${line%%"$2"*}
	click "$row" $((${#line} + 2))
}

start
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
if [ "$COLS" -ge 120 ]; then
	expect_re "^ G3 .* Kenji Watanabe \(compiler team\) +2026-08-26 "
	expect_re "^ G7 .* Daniel Okafor \(runtime team\) +2026-09-15 "
fi

# Tickets: the longest title and owner whole when there is room for them
# (they were cut at 24 cells, however wide the screen).
keys 2
wait_for "5 of 13 tickets have their evidence"
expect_re "^ M01  source/tokenizer freeze +[^ ]+ +100% "
if [ "$COLS" -ge 160 ]; then
	expect_re "^ M04 .* Kenji Watanabe \(compiler team\) "
	expect_re "^ M07 .* Kenji Watanabe \(compiler team\) +⚠ claimed done, ev"
fi
# A click on OWNER's title sorts by owner, and marks it.
click_title '^ ID +TICKET' OWNER
wait_for "sorted by owner"
expect_re "^ ID +TICKET +PROGRESS +STATE +EST +OWNER▾"
[ "$(screen | grep -oE '^ M[0-9]+ ' | head -2 | tr -d ' \n')" = M01M08 ] ||
    fail "Ana Li's M01 then Daniel Okafor's M08 by owner"

keys 3
wait_for "5 of 5 findings"
expect_re "^ G3 +error +G3.unsupported +[^ ]*op-support.csv:row 23 "
keys j
wait_re "^ G0 +info .* complexity 0 \(kind"
# l scrolls the cut cells by 8 columns, behind a "…"; h back.
keys l
wait_re "^ G0 +info +G0\.complexit[^ ]* +[^ ]+ +…ty 0 \(kind"
keys l l l l l l l l l l l l l l l l l l l l l l l l
reject_re "^ G0 +info .*complexity 0 \(kind"
keys h h h h h h h h h h h h h h h h h h h h h h h h h
wait_re "^ G0 +info .* complexity 0 \(kind"

# A click on LEVEL's title sorts by severity, and marks it.
click_title '^ GATE +LEVEL' LEVEL
wait_for "sorted by severity"
expect_re "^ GATE +LEVEL▾ +CHECK"
expect_re "^ G3 +error +G3.unsupported"
# A message longer than the status bar: cut there, pointing at
# :messages, which shows it whole.
long=$(printf 'x%.0s' $(seq 150))
keys :
send_text "no-such-command-${long}-END"
keys Enter
wait_for "unknown command ':no-such-command-xxx"
expect "(:messages)"
reject "-END'"
keys :
send_text messages
keys Enter
wait_for "message 3 of 3"
expect_re "^ [0-9]{2}:[0-9]{2}:[0-9]{2} +sorted by owner"
expect_re "^ [0-9]{2}:[0-9]{2}:[0-9]{2} +sorted by severity"
expect_re "^ [0-9]{2}:[0-9]{2}:[0-9]{2} +unknown command"
expect "xxx-END' (Tab completes)"
keys q
wait_for "sorted by severity (s)"
quit_calops
finish
