# board.sh: the board of the demo (no PATH: the bundled midproject) shows
# all eleven gates with the right status and the BLOCKED_COMPILER banner;
# the complete example shows every gate passing and the project RELEASED.
. "$(dirname "$0")/lib.sh"

# gate_is ID GLYPH WORD: the gate's row shows this status.
gate_is() {
	expect_re "^ $1 +$2 $3( |\$)"
}

start
launch
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
expect "project: BLOCKED_COMPILER"
expect "demo: the bundled example workspace"
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
expect "project: RELEASED"
reject "BLOCKED_COMPILER"
reject "demo:"
reject_re "fail|stale|blocked|pending"
keys q
wait_exit 0
finish
