# editor.sh: o on a finding runs $EDITOR (when $VISUAL is unset) with the
# line of the finding ("row 23" of a CSV file: +23; a JSON pointer: the
# line of its value) and the file's path;
# the editor gets the terminal, and the console comes back redrawn.
. "$(dirname "$0")/lib.sh"

# The editor: it records its arguments, takes over the screen (alternate
# screen, cleared) and waits until the test has seen it there.
cat > "$TMP/editor" <<EOS
#!/bin/sh
for a; do printf '%s\n' "\$a"; done > "$TMP/argv.tmp"
mv "$TMP/argv.tmp" "$TMP/argv"
printf '\033[?1049h\033[2J\033[HEDITOR RUNNING\n'
i=0
while [ ! -e "$TMP/go" ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
rm -f "$TMP/go"
printf '\033[?1049l'
EOS
chmod +x "$TMP/editor"

# edit WANT...: the editor ran with these arguments; it is let go, and the
# console is back.
edit() {
	local want

	wait_for "EDITOR RUNNING"
	reject "qwen/qwen3-"
	want=$(printf '%s\n' "$@")
	[ "$(cat "$TMP/argv")" = "$want" ] ||
	    fail "the editor got '$(cat "$TMP/argv")', not '$want'"
	rm -f "$TMP/argv"
	touch "$TMP/go"
	wait_gone "EDITOR RUNNING"
}

start EDITOR="$TMP/editor"
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"

# The G3 finding on the findings view: o, then Enter.
keys 3
wait_for "5 of 5 findings"
keys j j j
wait_for "G3.unsupported  02-onnx/op-support.csv:row 23"
keys o
edit +23 "$MIDPROJECT/02-onnx/op-support.csv"
wait_re "^ calops  .*  qwen/qwen3-.*\[3 Findings\]"
wait_for "5 of 5 findings"
expect_re "^ GATE LEVEL +CHECK +FILE:POSITION +MESSAGE"
expect_re "^ G3 +error +G3.unsupported"
expect "BLOCKED_COMPILER — no launch date may be promised"
keys Enter
edit +23 "$MIDPROJECT/02-onnx/op-support.csv"
wait_for "5 of 5 findings"

# A JSON pointer: the line its value is on.
keys k
wait_for "G2.bound  02-onnx/onnx-report.json#/model_sha256"
line=$(grep -n '"model_sha256"' "$MIDPROJECT/02-onnx/onnx-report.json" |
    cut -d: -f1)
[ -n "$line" ] || fail "no model_sha256 in the example's onnx-report.json"
keys o
edit "+$line" "$MIDPROJECT/02-onnx/onnx-report.json"
wait_for "5 of 5 findings"

# A finding whose file is not there: a message, no editor.
keys g
wait_for "vendor.compile_command  04-compiler/compile.sh"
keys o
wait_for "cannot open '04-compiler/compile.sh'"
# Whole at 120 columns; at 80 the bar points at :messages.
if [ "$COLS" -ge 120 ]; then
	expect "cannot open '04-compiler/compile.sh': it does not exist"
else
	expect "(:messages)"
fi
[ -e "$TMP/argv" ] && fail "the editor ran for a file that is not there"

# From G3's drill-down: o on the line of its first failing check.
keys 1
wait_for "3 of 11 gates pass"
keys j j j Enter
wait_for "First failing check: G3.unsupported (error)"
keys j j j j o
edit +23 "$MIDPROJECT/02-onnx/op-support.csv"
wait_for "First failing check: G3.unsupported (error)"
expect "evidence: 02-onnx/op-support.csv:row 23"
keys q
wait_for "3 of 11 gates pass"
keys q
wait_exit 0

# $VISUAL comes first; an editor that cannot run is said so.
run "export VISUAL=/nonexistent/editor"
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
keys 3 j j j o
wait_for "cannot run '/nonexistent/editor'"
wait_for "[3 Findings]"
[ -e "$TMP/argv" ] && fail "\$EDITOR ran although \$VISUAL is set"
keys Q
wait_exit 0
finish
