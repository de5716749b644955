# resize.sh: the board reflows when the terminal is resized (120x40 <->
# 80x24), says what it needs ("needs 80x24 · terminal too
# small") below 80x24 and comes back after.
. "$(dirname "$0")/lib.sh"

# resize COLS ROWS: resize the window and wait for tmux to say it did.
resize() {
	tm resize-window -t test -x "$1" -y "$2" || fail "cannot resize to $1x$2"
	[ "$(tm display -p -t test '#{pane_width}x#{pane_height}')" = "$1x$2" ] ||
	    fail "the pane is not $1x$2"
}

# board_at COLS: the whole board, laid out for that width.
board_at() {
	wait_re "^ G10  · pending  Release +Mei Chen"
	wait_for "3 of 11 gates pass"
	expect_re "^ G0   ✔ pass +Model intake"
	expect "BLOCKED_COMPILER — no launch date may be promised"
	if [ "$1" -ge 120 ]; then
		wait_re "^ G3 .*↩ vendor/lowering"
		# The nine tabs do not fit beside this title: digits only.
		expect_re "\\[1 Board\\] 2  3  4  5  6  7  8  9 *$"
		expect "Tomás Ferreira (model tea"
	else
		wait_re "^ G1 +✔ pass +Reference baseline +Tomás Ferre… "
		reject "↩"
	fi
	reject "terminal too small"
	# Nothing is drawn past the last column (no wide characters here).
	local line
	while IFS= read -r line; do
		[ "${#line}" -le "$1" ] || fail "a line is wider than $1 columns"
	done < <(screen)
}

if [ "$COLS" -ge 120 ]; then other="80 24"; else other="120 40"; fi

start
launch "$MIDPROJECT"
board_at "$COLS"
# The title names the workspace, host:path, the path cut from the front
# where it is too long, before the model; the host (this machine's, with no
# lab file) while it leaves the path 8 columns of the line's sixth.
if [ "$COLS" -ge 120 ]; then
	expect_re "^ calops  local:…[^ ]*/midproject  qwen/qwen3-1"
else
	expect_re "^ calops  …[^ ]*/midproject  qwen/qwen3-1"
fi
resize $other
board_at ${other% *}
resize 60 20
wait_for "needs 80x24 · terminal too small (60x20)"
reject "GATE STATUS"
resize 79 40
wait_for "needs 80x24 · terminal too small (79x40)"
# A tiny terminal cuts the line: what it needs comes first, so it shows.
resize 12 3
wait_re "^needs 80x24"
resize "$COLS" "$ROWS"
board_at "$COLS"

# Keys still work after all that; a resize inside a drill-down too.
keys j j j Enter
wait_for "First failing check: G3.unsupported (error)"
resize $other
wait_for "First failing check: G3.unsupported (error)"
resize "$COLS" "$ROWS"
keys q
board_at "$COLS"
keys q
wait_exit 0
finish
