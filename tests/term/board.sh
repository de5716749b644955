# board.sh: with no PATH the console opens the demo lab, a private copy of
# share/examples/labdemo and demo-lab.yaml made once under
# $XDG_STATE_HOME/calops/demo and reused after, whose board is at the
# runtime stage (G7 pending, G9 failing for want of a soak); the midproject
# example shows all eleven gates with the right status and the
# BLOCKED_COMPILER banner; the complete example shows every gate passing and
# the project RELEASED.
. "$(dirname "$0")/lib.sh"

# gate_is ID GLYPH WORD: the gate's row shows this status.
gate_is() {
	expect_re "^ $1 +$2 $3( |\$)"
}

start
DEMO=$TMP/state/calops/demo
launch
wait_for "8 of 11 gates pass"
for g in G0 G1 G2 G3 G4 G5 G6 G8; do
	gate_is $g ✔ pass
done
gate_is G7 · pending
gate_is G9 ✘ fail
gate_is G10 · pending
expect "at G7 Runtime runner · 8/11 pass"
reject "BLOCKED_COMPILER"
expect_re "^ demo"
expect_re "^ G9 .* 1E 0B 0S 0W"
[ -f "$DEMO/lab.yaml" ] || fail "no private demo lab in $DEMO"
[ -f "$DEMO/labdemo/00-source/source-manifest.json" ] ||
    fail "no private copy of labdemo in $DEMO"
cmp -s "$DEMO/lab.yaml" "$SRC/share/examples/demo-lab.yaml" ||
    fail "the private lab.yaml differs from demo-lab.yaml"
keys q
wait_exit 0
# The copy is made once: what is written into it stays.
printf 'hello\n' >"$DEMO/labdemo/operator-note.txt"
launch
wait_for "8 of 11 gates pass"
expect_re "^ demo"
keys q
wait_exit 0
[ -f "$DEMO/labdemo/operator-note.txt" ] || fail "the demo copy was made again"
[ ! -e "$SRC/share/examples/labdemo/operator-note.txt" ] ||
    fail "the demo wrote into the source tree"

launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
gate_is G0 ✔ pass
gate_is G1 ✔ pass
gate_is G2 ≈ stale
gate_is G3 ✘ fail
gate_is G4 ✔ pass
gate_is G5 ⊘ blocked
for g in G6 G7 G8 G9 G10; do
	gate_is $g · pending
done
[ "$(screen | grep -cE '^ G[0-9]+ ')" = 11 ] || fail "not eleven gate rows"
expect "⊘ BLOCKED_COMPILER — no launch date may be promised"
expect "BLOCKED_COMPILER · 3/11 pass"
reject_re "^ demo"
expect_re "^ GATE +STATUS +NAME +OWNER +DUE +FINDINGS"
reject_re "^ GATE .*…\$"
expect "[1 Board]"
# The gate's findings counted by severity: G3 has one error, G5 one blocker.
expect_re "^ G3 .* 1E 0B 0S 0W"
expect_re "^ G5 .* 0E 1B 0S 0W"
if [ "$COLS" -ge 120 ]; then
	expect_re "^ G3 .*↩ vendor/lowering"
fi
keys q
wait_exit 0

launch "$COMPLETE"
wait_for "11 of 11 gates pass"
for g in G0 G1 G2 G3 G4 G5 G6 G7 G8 G9 G10; do
	gate_is $g ✔ pass
done
expect "RELEASED · 11/11 pass"
reject "BLOCKED_COMPILER"
reject_re "^ demo"
reject_re "fail|stale|blocked|pending"
keys q
wait_exit 0
finish
