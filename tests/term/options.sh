# options.sh: --plain prints the board as text (no full screen) and exits 1
# for the demo, 0 for the complete example; a mistyped command or a path
# that names nothing is an error before any screen; --readonly says so in the status
# bar; --ascii draws no UTF-8 glyphs ("+ pass", not "✔ pass").
. "$(dirname "$0")/lib.sh"

# only_ascii WHERE: nothing on the screen but ASCII, the letters of the
# workspace's own names (Tomás, Lucía) and the sanitiser's clipping mark.
only_ascii() {
	local odd

	odd=$(screen | sed 's/[áí]//g' | LC_ALL=C grep -n $'[\x80-\xff]')
	[ -z "$odd" ] || fail "$1: not ASCII: $odd"
}

start

# --plain: the text board, in the shell's own screen.
launch --plain "$MIDPROJECT"
wait_exit 1
all=$(screen_all)
plain() {
	grep -qE -- "$1" <<<"$all" || fail "--plain: no line matches /$1/"
}
plain "^calops check  .*/midproject  model qwen/qwen3-1.7b@"
plain "^project: BLOCKED_COMPILER — no launch date may be promised$"
plain "^GATE STATUS +NAME +OWNER +DUE +FINDINGS$"
plain "^G0 +✔ pass +Model intake"
plain "^G2 +≈ stale +ONNX export"
plain "^G3 +✘ fail +Op support gap"
plain "^G5 +⊘ blocked +Reproducible compile"
plain "^G10 +· pending +Release"
plain "^ +error +G3.unsupported +02-onnx/op-support.csv:row 23 "
plain "^M07 .*claimed done, evidence missing"
[ "$(tm display -p -t test '#{alternate_on}')" = 0 ] || fail "--plain left the main screen"
launch --plain "$COMPLETE"
wait_exit 0
all=$(screen_all)
plain "^project: RELEASED"

# A mistyped command, and a path that names nothing: said before any
# screen, status 2, not a console opened on a folder that is not there.
launch chek
wait_exit 2
expect "calops: unknown command 'chek' (did you mean 'check'?)"
launch no-such-workspace
wait_exit 2
expect "calops: 'no-such-workspace': No such file or directory"
[ "$(tm display -p -t test '#{alternate_on}')" = 0 ] ||
    fail "a path that names nothing opened the full screen"

# --readonly.
launch --readonly "$MIDPROJECT"
wait_for "3 of 11 gates pass"
wait_re "read-only · inotify \([0-9]+ folders\) \? help$"
keys q
wait_exit 0
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
reject "read-only"
keys q
wait_exit 0

# --ascii, on every screen.
launch --ascii "$MIDPROJECT"
wait_for "3 of 11 gates pass - Enter: why"
expect_re "^ G0   \+ pass +Model intake"
expect_re "^ G2   ~ stale +ONNX export"
expect_re "^ G3   x fail +Op support gap"
expect_re "^ G5   # blocked +Reproducible compile"
expect_re "^ G10  \. pending +Release"
expect "# BLOCKED_COMPILER - no launch date may be promised"
[ "$COLS" -ge 120 ] && expect_re "^ G3 .* <- vendor/lowering"
only_ascii board
keys j j j Enter
wait_re "^ G3 Op support gap  x fail"
only_ascii "G3 up close"
keys q Tab
wait_for "5 of 13 tickets have their evidence - 1 claimed"
expect_re "^ M01  source/tokenizer freeze +########## 100%"
expect_re "^ M03  ONNX exporter +\.\.\.\.\.\.\.\.\.\.   0%"
expect_re "^ M07 .* ! claimed done,"
expect_re "^ M01 checks: G0.schema \\+  G0.model_id \\+"
only_ascii tickets
keys 3
wait_for "5 of 5 findings - sorted by gate (s) - all sever"
only_ascii findings
keys ?
wait_for "Help - q to close"
only_ascii help
keys q Q
wait_exit 0
finish
