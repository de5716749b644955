# live.sh: in a copy of the demo, rewriting an artifact changes what the
# console shows within 2 s without a key press: on the board, on the
# findings, and in the history a drill-down reads ("since it was last
# green").
. "$(dirname "$0")/lib.sh"

# within2s WHAT ERE: the pane shows a line matching ERE within 2 s.
within2s() {
	wait_until E "$2" 2 || fail "$1: the console did not show /$2/ within 2 s"
}

copy_ws "$MIDPROJECT"
start
launch "$WS"
wait_for "3 of 11 gates pass"
expect_re "^ G2 +≈ stale"

# G2: the report now bound to the model.onnx there is (sed -i: a temporary
# file renamed over the report).
hash=$(sha256sum "$WS/02-onnx/model.onnx" | cut -d' ' -f1)
sed -i "s/\"model_sha256\": \"[0-9a-f]*\"/\"model_sha256\": \"$hash\"/" \
    "$WS/02-onnx/onnx-report.json"
within2s "G2 restored" "^ G2 +✔ pass "
within2s "G2 restored" "4 of 11 gates pass"
expect_re "^ G3 +✘ fail"

# G4 on the findings: layer_errors emptied in place (same inode).
keys 3
wait_for "4 of 4 findings"
reject "G2.bound"
python3 - "$WS/03-quant/quant-report.json" <<'PY' || fail "cannot edit the report"
import json, sys
with open(sys.argv[1], "r+") as f:
    d = json.load(f)
    d["layer_errors"] = []
    f.seek(0)
    f.truncate()
    json.dump(d, f, indent=2)
PY
within2s "G4 broken" "^ G4 +error +G4.layers +(03-quant/quant-report\.j|…[a-z./-]*\.json#/layer_errors)"
within2s "G4 broken" "5 of 5 findings"

# The board, and what changed since G4 was last green.
keys 1
wait_re "^ G4 +✘ fail "
expect "3 of 11 gates pass"
keys j j j j Enter
wait_for "First failing check: G4.layers (error)"
expect "layer_errors is empty"
expect_re "^ Since it was last green \([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{5}\): 1 change$"
expect_re "^   changed 03-quant/quant-report.json  [0-9a-f]{16}… (→) [0-9a-f]{16}…$"
keys q
wait_for "GATE STATUS"

# The vendor delivers compile.sh: G5 passes and the banner goes.
expect "BLOCKED_COMPILER — no launch date may be promised"
printf '#!/bin/sh\nexec calcc --config compile-config.yaml "$@"\n' \
    > "$WS/04-compiler/compile.sh"
within2s "compile.sh delivered" "^ G5 +✔ pass "
wait_gone "BLOCKED_COMPILER" 2
expect "4 of 11 gates pass"
expect_re "  at G[0-9]+ [A-Za-z]"
keys q
wait_exit 0
finish
