# sanitize.sh: hostile text in a workspace (a G3.unsupported finding whose
# node name carries OSC 52, ESC[2J, CR and U+202E; a gate owner with the
# same) reaches the screen neutralised: caret notation and <U+202E>, the
# screen is not cleared, and no OSC 52 reaches the terminal (tmux, with
# set-clipboard on, would have made a paste buffer of it).
. "$(dirname "$0")/lib.sh"

copy_ws "$MIDPROJECT"
python3 - "$WS" <<'PY' || fail "cannot plant the hostile text"
import sys
ws = sys.argv[1]
evil = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\rX\u202eevil"
p = ws + "/02-onnx/op-support.csv"
node = '"/model/layers.*/self_attn/{q,k}_rotary/RotaryEmbedding"'
with open(p, newline="") as f:
    lines = f.read().split("\n")
assert lines[22].startswith(node)
lines[22] = '"' + evil + '/RotaryEmbedding"' + lines[22][len(node):]
with open(p, "w", newline="") as f:
    f.write("\n".join(lines))
p = ws + "/owners.yaml"
with open(p) as f:
    text = f.read()
old = '"Olga Sokolova (quant team)"'
assert old in text
text = text.replace(old, '"\\e]52;c;b3duZWQ=\\a\\e[2J\\rOlga\\u202eevil"')
with open(p, "w") as f:
    f.write(text)
PY
SHOWN='^[]52;c;cHduZWQ=^G^[[2J^MX<U+202E>evil/RotaryEmbedding'

# clean: nothing but text and SGR attributes in the pane, no paste buffer.
clean() {
	local raw

	raw=$(screen_e)
	printf '%s' "$raw" | grep -q $'\e\\]' && fail "an OSC sequence is in the pane"
	printf '%s' "$raw" | grep -qE $'\e\\[[0-9;:]*[A-Za-ln-z]' &&
	    fail "a control sequence other than SGR is in the pane"
	printf '%s' "$raw" | grep -q $'\r' && fail "a CR is in the pane"
	printf '%s' "$raw" | grep -q $'\u202e' && fail "a raw U+202E is in the pane"
	[ -z "$(tm list-buffers)" ] ||
	    fail "a paste buffer was set: $(tm list-buffers)"
}

# not_cleared VIEW: the frame around the hostile text is all there.
not_cleared() {
	expect_re "^ calops  .*  qwen/qwen3-"
	expect "$1"
	expect "BLOCKED_COMPILER — no launch date may be promised"
	expect_re "\? help$"
}

start
launch "$WS"
wait_for "3 of 11 gates pass"
# The owner of G4, on the board and up close.
expect_re "^ G4   ✔ pass +Quantization +\^\[\]52;c;b3d"
not_cleared "[1 Board]"
expect_re "^ G10 "
clean
keys j j j j Enter
wait_for "Owner: ^[]52;c;b3duZWQ=^G^[[2J^MOlga<U+202E>evil   role: quant"
not_cleared "[1 Board]"
clean
keys q

# The finding: in the list, whole below it, and in the gate's drill-down.
keys 3
wait_for "[3 Findings]"
wait_re "^ G3 +error +G3.unsupported .* node '\^\[\]52"
keys j j j
# Whole below the list, wherever calops breaks the message over its rows.
wait_for "node '$SHOWN'"
expect "(RotaryEmbedding) is unsupported"
expect_re "^ G3.unsupported  02-onnx/op-support.csv:row 23"
not_cleared "[3 Findings]"
expect_re "^ G2 +stale +G2.bound"
expect_re "^ G5 +blocked +G5.script"
clean
keys 1
wait_for "3 of 11 gates pass"
keys j j j Enter
wait_for "First failing check: G3.unsupported (error)"
expect "node '$SHOWN"
not_cleared "[1 Board]"
clean
keys q
wait_for "3 of 11 gates pass"
keys q
wait_exit 0
[ -z "$(tm list-buffers)" ] || fail "a paste buffer was set: $(tm list-buffers)"

# The control: the same OSC 52 straight from the shell does make a buffer,
# so its absence above means something.
run "printf '\\033]52;c;%s\\a' \$(printf control | base64)"
end=$(($(now_ms) + WAIT_SECS * 1000))
until [ "$(tm show-buffer 2>/dev/null)" = control ]; do
	[ "$(now_ms)" -ge "$end" ] &&
	    fail "an OSC 52 from the pane makes no paste buffer: the test proves nothing"
	sleep 0.05
done
finish
