# nocolor.sh: with NO_COLOR set (or --color never) the console sends no
# colour at all, and --color always sends them despite NO_COLOR; on any
# screen and in any theme (attributes such as bold and reverse remain, and
# each status keeps its glyph and word); the selected line is still seen,
# in reverse video.  Without NO_COLOR the same check does find colours.
. "$(dirname "$0")/lib.sh"

# colours: the colour SGR parameters in the pane (30-38 40-48 90-97
# 100-107; 39 and 49, "default colour", are what tmux writes after a reset).
colours() {
	screen_e | grep -oE $'\e\\[[0-9;:]*m' | tr -d '\033[m' | tr ';:' '\n\n' |
	    awk '($1 >= 30 && $1 <= 38) || ($1 >= 40 && $1 <= 48) ||
	    ($1 >= 90 && $1 <= 97) || ($1 >= 100 && $1 <= 107)' | sort -u |
	    tr '\n' ' '
}

no_colours() {
	local c

	c=$(colours)
	[ -z "$c" ] || fail "$1: colour SGR parameters: $c"
}

# is_reversed GATE: the gate's row starts in reverse video.
is_reversed() {
	screen_e | grep -qE $'^\e\\[([0-9]+;)*7(;[0-9]+)*m(\e\\[[0-9;]*m)* '"$1 "
}

reversed() {
	local end=$(($(now_ms) + WAIT_SECS * 1000))

	until is_reversed "$1"; do
		[ "$(now_ms)" -ge "$end" ] &&
		    fail "the row of $1 is not in reverse video"
		sleep 0.05
	done
}

start NO_COLOR=1
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
expect_re "^ G0   ✔ pass"
expect_re "^ G2   ≈ stale"
expect_re "^ G3   ✘ fail"
expect_re "^ G5   ⊘ blocked"
expect_re "^ G6   · pending"
no_colours board
reversed G0
keys j
reversed G1
is_reversed G0 && fail "G0 is still in reverse video"
keys Enter
wait_for "G1 Reference baseline"
no_colours "G1 up close"
keys q 2
wait_for "5 of 13 tickets have their evidence"
no_colours tickets
keys 3
wait_for "5 of 5 findings"
no_colours findings
keys / ; send_text G3 ; keys Enter
wait_for "filter: G3"
no_colours "a filter"
keys ?
wait_for "Help — q to close"
no_colours help
keys q
for theme in light high-contrast dark; do
	keys : ; send_text "theme $theme" ; keys Enter
	wait_re "^ theme $theme "
	no_colours "the $theme theme"
done
keys Q
wait_exit 0

# --color always wins over NO_COLOR, as it does for check.
launch --color always "$MIDPROJECT"
wait_for "3 of 11 gates pass"
[ -n "$(colours)" ] || fail "--color always: no colours"
keys q
wait_exit 0

# The control: colours without NO_COLOR.
run "unset NO_COLOR"
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
[ -n "$(colours)" ] || fail "no colours even without NO_COLOR: the check proves nothing"
keys q
wait_exit 0

# --color never, without NO_COLOR: none, and the selection reversed.
launch --color never "$MIDPROJECT"
wait_for "3 of 11 gates pass"
no_colours "--color never"
reversed G0
keys q
wait_exit 0
finish
