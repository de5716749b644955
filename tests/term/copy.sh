# copy.sh: y copies the selected finding (or a gate's why) as text, Y as
# Markdown: to the
# terminal's clipboard by OSC 52 (tmux takes it into its paste buffer:
# lib.sh sets set-clipboard on) and to the state folder's copied/ file,
# whose path the status bar (and :messages) says.
. "$(dirname "$0")/lib.sh"

COPIED=$TMP/state/calops/copied

start
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
keys 3
wait_for "5 of 5 findings"
keys j j j
wait_for "G3.unsupported  02-onnx/op-support.csv:row 23"
keys y
wait_for "copied the finding: OSC 52 and"
F=$COPIED/finding.txt
[ -f "$F" ] || fail "no $F"
[ "$(sed -n 1p "$F")" = "G3 error G3.unsupported 02-onnx/op-support.csv:row 23" ] &&
    [ "$(sed -n 2p "$F")" = "owner: Kenji Watanabe (compiler team)" ] &&
    sed -n 3p "$F" | grep -q "^node '/model/layers.*/self_attn/{q,k}_rotary/RotaryEmbedding' (RotaryEmbedding) is unsupported; .* and a runnable case\$" ||
    fail "finding.txt holds: $(cat "$F")"
# The same bytes in tmux's paste buffer, from the OSC 52.
end=$(($(now_ms) + WAIT_SECS * 1000))
until [ "$(tm show-buffer 2>/dev/null)" = "$(cat "$F")" ]; do
	[ "$(now_ms)" -ge "$end" ] &&
	    fail "tmux's paste buffer is not the finding: $(tm show-buffer 2>&1)"
	sleep 0.05
done
[ "$(stat -c %a "$F")" = 600 ] ||
    fail "finding.txt is not 0600"

# The status bar still says y's "copied the finding": the file is what
# tells that Y was done.
keys Y
until_true grep -qsF '**G3 error** `G3.unsupported` in `02-onnx/op-support.csv:row 23` (owner: Kenji Watanabe (compiler team))' \
    "$COPIED/finding.md" ||
	fail "finding.md holds: $(cat "$COPIED/finding.md" 2>&1)"
wait_for "copied the finding: OSC 52 and"
grep -q "^> node '/model/layers" "$COPIED/finding.md" ||
    fail "finding.md has no quoted message"
# The whole message, with the file's path, in :messages.
keys :
send_text messages
keys Enter
wait_for "message 2 of 2"
# The whole path, wrapped over the rows below the list.
screen | sed -n '/message 2 of 2/,$p' | sed 's/^ //' | tr -d '\n' |
    grep -qF "$COPIED/finding.md" || fail ":messages lacks the whole path"
keys q
quit_calops
finish
