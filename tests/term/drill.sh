# drill.sh: Enter on a gate of the board shows why it is not green: G3's
# first failing check with its evidence; q (or Left) goes back to the board
# with the same gate selected.
. "$(dirname "$0")/lib.sh"

start
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
keys j j j Enter
wait_for "First failing check: G3.unsupported (error)"
expect_re "^ G3 Op support gap +✘ fail"
expect "Owner: Kenji Watanabe (compiler team)"
expect "evidence: 02-onnx/op-support.csv:row 23"
expect "(RotaryEmbedd"
# The whole message, wrapped at the width drawn: its last words are there.
expect "a runnable case"
expect_re "^ +sha256 [0-9a-f]{64}"
expect_re "^ Holds back: "
reject "GATE STATUS"
keys q
wait_for "GATE STATUS"
wait_for "3 of 11 gates pass"
reject "First failing check"

# Still on G3: w asks the same question; Left backs out.
keys w
wait_for "First failing check: G3.unsupported (error)"
keys Left
wait_for "GATE STATUS"

# A blocked gate and a pending one.
keys j j Enter
wait_for "First failing check: G5.script (blocked)"
expect "evidence: 04-compiler/compile.sh"
keys q
wait_for "GATE STATUS"
keys j Enter
wait_re "^ G6 Static package validation +· pending"
expect "Pending: its primary artifact"
keys Escape
wait_for "GATE STATUS"
keys q
wait_exit 0
finish
