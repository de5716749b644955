#!/bin/bash
# tools_test.sh: the simulator's stand-ins for the gates' own tools (issue
# 13: share/sim/README.md, validate, compile, reference, onnx-check and
# conformance) write evidence their gate accepts, each knob fails the check
# it is about, and bad input is an error that names the file and leaves the
# evidence there as it was.
#
# usage: tests/sim/tools_test.sh CALOPS CALRT_SIM
#
# Works on copies of share/examples/labdemo (the examples are never
# touched); verdicts come from `calops check --json` read with python3.
set -euo pipefail
export LC_ALL=C

[ $# -eq 2 ] || { echo "usage: tools_test.sh CALOPS CALRT_SIM" >&2; exit 2; }
CALOPS=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SIM=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
top=$(cd "$(dirname "$0")/../.." && pwd)
demo=$top/share/examples/labdemo
work=$(mktemp -d "${TMPDIR:-/tmp}/tools_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache

ws=$work/ws
cp -a "$demo" "$ws"

failures=0
ok() { printf 'ok   %s\n' "$*"; }
bad() { printf 'FAIL %s\n' "$*"; failures=$((failures + 1)); }

# tool CMD ARGS...: the tool in the workspace's root, as a gate's job runs
# it; exit status in $rc, stdout in $work/out, stderr in $work/err.
tool() {
	rc=0
	(cd "$ws" && "$SIM" "$@") >"$work/out" 2>"$work/err" || rc=$?
}

expect_rc() {	# expect_rc WANT WHAT
	if [ "$rc" -eq "$1" ]; then ok "$2 (exit $rc)"
	else bad "$2: exit $rc, wanted $1"; cat "$work/out" "$work/err"; fi
}

# gate GATE WANT_STATUS [CHECK TEXT]: GATE's status, and a finding of CHECK
# whose message holds TEXT.
gate() {
	"$CALOPS" check --json --gate "$1" "$ws" >"$work/check.json" || true
	if python3 - "$work/check.json" "$@" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
gate, want = sys.argv[2:4]
g = [g for g in doc["gates"] if g["id"] == gate][0]
if g["status"] != want:
    sys.exit("%s is %s" % (gate, g["status"]))
if len(sys.argv) > 4:
    check, text = sys.argv[4:6]
    if not any(f["check"] == check and text in f["message"]
               for f in g["findings"]):
        sys.exit("no %s finding with '%s'" % (check, text))
EOF
	then ok "$1 $2${3:+ on $3}"
	else bad "$1 not $2${3:+ on $3}"; fi
}

# err_says TEXT WHAT: the tool's stderr or error event holds TEXT.
err_says() {
	if grep -qF -- "$1" "$work/err" "$work/out"; then ok "$2: '$1'"
	else bad "$2: no '$1' in"; cat "$work/err" "$work/out"; fi
}

# --- G5: the compiler -----------------------------------------------------
rm -rf "$ws/05-calbin/package"
tool compile
expect_rc 0 "compile"
if diff -r "$demo/05-calbin/package" "$ws/05-calbin/package" >/dev/null; then
	ok "compile rebuilt the example's package byte for byte"
else bad "compile's package differs from the example's"; fi
grep -q '^\[pack\] output tree sha256 [0-9a-f]\{64\}$' "$work/out" &&
    ok "compile logs the output tree" || bad "compile's log: $(cat "$work/out")"
tree1=$(sha256sum "$ws/05-calbin/package/chip0/prefill_b1_s8192/program.bin")
BUILD_ID=b1 tool compile --nondeterministic
expect_rc 0 "compile --nondeterministic"
tree2=$(sha256sum "$ws/05-calbin/package/chip0/prefill_b1_s8192/program.bin")
[ "$tree1" != "$tree2" ] && ok "--nondeterministic changes the programs" ||
    bad "--nondeterministic built the same program"
if ! ls -a "$ws/05-calbin" | grep -q 'calcc-\|old-'; then
	ok "compile leaves no temporary folder"
else bad "compile left: $(ls -a "$ws/05-calbin")"; fi

rm -f "$ws/04-compiler/builds.json"
rc=0
"$CALOPS" repro-build "$ws" -- "$SIM" compile --nondeterministic \
    >"$work/out" 2>&1 || rc=$?
expect_rc 1 "repro-build of a nondeterministic compile"
gate G5 fail G5.builds "output differs from the first build"
"$CALOPS" repro-build "$ws" -- "$SIM" compile >"$work/out" 2>&1 || true
gate G5 pass
gate G6 pass

# Bad input: the package as it was, an error naming the file.
cfg=$ws/04-compiler/compile-config.yaml
cp "$cfg" "$work/cfg.yaml"
before=$("$CALOPS" hash --no-cache "$ws/05-calbin/package" "$ws/00-source")
mkdir -p "$work/outside/package"
echo keep >"$work/outside/package/keep.txt"
sed -i 's|^output: .*|output: ../../outside|' "$cfg"
tool compile
expect_rc 2 "compile with an output outside the workspace"
err_says "04-compiler/compile-config.yaml: 'output'" "outside the workspace"
sed -i 's|^output: .*|output: ../05-calbin|' "$cfg"
tool compile
expect_rc 2 "compile into a gate's own folder"
err_says "a package goes into a folder of its own" "a gate's folder"
sed -i 's|^output: .*|output: nonexist/../../00-source|' "$cfg"
tool compile
expect_rc 2 "compile with '..' in its output"
err_says "name it without '.', '..'" "'..' in the output"
ln -s "$work/outside" "$ws/05-outside"
sed -i 's|^output: .*|output: ../05-outside/package|' "$cfg"
tool compile
expect_rc 2 "compile through a symbolic link out of the workspace"
err_says "'05-outside' leads outside the workspace" "a link out"
[ "$(cat "$work/outside/package/keep.txt" 2>/dev/null)" = keep ] &&
    ok "the folder outside is untouched" || bad "compile wrote outside"
rm "$ws/05-outside"
ln -s "$ws/05-calbin/package" "$ws/05-calbin/linked"
sed -i 's|^output: .*|output: ../05-calbin/linked|' "$cfg"
tool compile
expect_rc 2 "compile onto a symbolic link"
err_says "it is a symbolic link, not a folder" "a link as output"
rm "$ws/05-calbin/linked"
cp "$work/cfg.yaml" "$cfg"
sed -i 's|^  - name: decode_b1_s8192|  - name: prefill_b1_s8192|' "$cfg"
tool compile
expect_rc 2 "compile with a profile named twice"
err_says "profile 'prefill_b1_s8192' is named twice" "a profile twice"
cp "$work/cfg.yaml" "$cfg"
sed -i 's|^profiles:|profile:|' "$cfg"
tool compile
expect_rc 2 "compile with no profiles"
err_says "'profiles' must list" "no profiles"
cp "$work/cfg.yaml" "$cfg"
printf 'model: [unclosed\n' >"$cfg"
tool compile
expect_rc 2 "compile with broken YAML"
err_says "cannot parse '04-compiler/compile-config.yaml' at 2:1" "broken YAML"
cp "$work/cfg.yaml" "$cfg"
mv "$ws/04-compiler/compiler-manifest.json" "$work/cm.json"
tool compile
expect_rc 2 "compile without a compiler manifest"
err_says "04-compiler/compiler-manifest.json" "no compiler manifest"
mv "$work/cm.json" "$ws/04-compiler/compiler-manifest.json"
[ "$("$CALOPS" hash --no-cache "$ws/05-calbin/package" "$ws/00-source")" = \
    "$before" ] && "$CALOPS" check --gate G6 "$ws" >/dev/null &&
    ok "a refused compile left the package and G0 alone" ||
    bad "a refused compile touched the package or G0"

# --- G1: the reference harness --------------------------------------------
rm "$ws/01-reference/outputs.jsonl" "$ws/01-reference/outputs.rerun.jsonl"
gate G1 pending
tool reference
expect_rc 0 "reference"
gate G1 pass
tool reference --nondeterministic
expect_rc 1 "reference --nondeterministic"
gate G1 fail G1.repro "records differ from outputs.jsonl on re-run"
# A sample_id may be an integer.
python3 - "$ws/01-reference/prompts.jsonl" <<'EOF'
import json, sys
p = sys.argv[1]
lines = open(p).read().splitlines()
first = json.loads(lines[0])
first["sample_id"] = 9001
lines[0] = json.dumps(first)
open(p, "w").write("\n".join(lines) + "\n")
EOF
tool reference
expect_rc 0 "reference with an integer sample_id"
grep -q '^{"sample_id":9001,' "$ws/01-reference/outputs.jsonl" &&
    ok "the integer sample_id kept as an integer" ||
    bad "sample 9001: $(head -c 200 "$ws/01-reference/outputs.jsonl")"
gate G1 pass
cp "$ws/01-reference/outputs.jsonl" "$work/outputs.jsonl"
cp "$ws/01-reference/prompts.jsonl" "$work/prompts.jsonl"
printf '{"sample_id": "cut", "token_ids": [1, 2' \
    >>"$ws/01-reference/prompts.jsonl"
tool reference
expect_rc 2 "reference on a truncated prompts line"
err_says "01-reference/prompts.jsonl:121:" "truncated line"
cmp -s "$work/outputs.jsonl" "$ws/01-reference/outputs.jsonl" &&
    ok "the refused run wrote nothing" || bad "the refused run wrote outputs"
cp "$work/prompts.jsonl" "$ws/01-reference/prompts.jsonl"

# --- G2: the ONNX checks --------------------------------------------------
rm "$ws/02-onnx/onnx-report.json" "$ws/02-onnx/op-inventory.json"
tool onnx-check
expect_rc 0 "onnx-check"
gate G2 pass
# The inventory is counted from model.onnx's nodes: the one the example
# generator lists for the graph it wrote.
python3 - "$demo/02-onnx/op-inventory.json" "$ws/02-onnx/op-inventory.json" \
    <<'EOF' && ok "the op inventory is the graph's" || bad "the op inventory"
import json, sys
want, got = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(0 if want == got and len(got) > 10 else "%r != %r" % (got, want))
EOF
# The checker: each refusal is G2.checker's, and the inventory of the
# model before it is gone (G2 and G3 would judge it).
onnx=$ws/02-onnx
cp "$onnx/model.onnx" "$onnx/model.onnx.data" "$work/"
refused_model() {	# refused_model WHAT TEXT: onnx-check on the broken model
	[ -s "$onnx/op-inventory.json" ] || bad "$1: no inventory before"
	tool onnx-check
	expect_rc 1 "onnx-check on $1"
	gate G2 fail G2.checker "$2"
	if [ -e "$onnx/op-inventory.json" ]; then
		bad "$1: the last inventory stayed"
	fi
}
whole_model() {		# whole_model: back as it was, and its inventory
	rm -f "$onnx/model.onnx" "$onnx/model.onnx.data"
	cp "$work/model.onnx" "$work/model.onnx.data" "$onnx/"
	tool onnx-check
	expect_rc 0 "onnx-check on the whole model again"
}
truncate -s 100000 "$onnx/model.onnx.data"
refused_model "external data cut short" \
    "reads 12288 bytes from byte 98304 of 02-onnx/model.onnx.data, which has 100000"
whole_model
head -c 30000 "$work/model.onnx" >"$onnx/model.onnx"
refused_model "a model cut short" \
    "02-onnx/model.onnx is not an ONNX model: byte 18: field 7 says"
whole_model
printf '\x08\x08\x3f\x01' >"$onnx/model.onnx"
refused_model "a model with a group" "byte 2: field 7 has wire type 7"
whole_model
: >"$onnx/model.onnx"
refused_model "an empty model" "byte 0: the file is empty"
whole_model
rm "$onnx/model.onnx.data"
refused_model "no external data" \
    "initializer 'weight.0': '02-onnx/model.onnx.data' does not exist"
whole_model
printf 'secret\n' >"$work/outside.data"
ln -sf "$work/outside.data" "$onnx/model.onnx.data"
# Refused by the read that keeps to the workspace, before any size is
# looked at: the outside file's 7 bytes are never said.
refused_model "external data through a link out of the workspace" \
    "initializer 'weight.0': '02-onnx/model.onnx.data' "
if grep -q "which has 7" "$ws/02-onnx/onnx-report.json"; then
	bad "the checker said the size of a file outside the workspace"
fi
whole_model
[ "$(cat "$work/outside.data")" = secret ] ||
    bad "the file outside the workspace was written"
# A tensor's name of two-byte characters, cut to fit the message: still
# UTF-8, so the report is written.
python3 - "$top/share/examples/mkworkspace.py" "$onnx/model.onnx" <<'EOF'
import sys
src = open(sys.argv[1]).read().split("\ndef main")[0]
g = {"__name__": "mkworkspace"}
exec(src, g)
t = g["pb_int"](2, 16) + g["pb_str"](8, "a" + "\u00e9" * 40)
for k, v in (("location", "../elsewhere"), ("length", "1")):
    t += g["pb_len"](13, g["pb_str"](1, k) + g["pb_str"](2, v))
graph = g["pb_len"](1, g["pb_str"](4, "MatMul")) + \
    g["pb_len"](5, t + g["pb_int"](14, 1))
open(sys.argv[2], "wb").write(g["pb_int"](1, 8) + g["pb_len"](7, graph) +
                             g["pb_len"](8, g["pb_int"](2, 17)))
EOF
refused_model "a long name of two-byte characters" \
    "initializer 'a$(printf '\303\251%.0s' $(seq 31))': location '../elsewhere' is not a file beside the model"
whole_model
cp "$onnx/export-config.yaml" "$work/export-config.yaml"
sed -i 's|^opset: 17$|opset: 18|' "$onnx/export-config.yaml"
refused_model "an opset the config does not say" \
    "the model imports opset 17 of ai.onnx; 02-onnx/export-config.yaml says 18"
cp "$work/export-config.yaml" "$onnx/export-config.yaml"
whole_model
tool onnx-check --greedy-mismatch 3
expect_rc 1 "onnx-check --greedy-mismatch 3"
gate G2 fail G2.greedy "115 of 118"
mv "$ws/01-reference/outputs.jsonl" "$work/o.jsonl"
tool onnx-check
expect_rc 2 "onnx-check without the reference"
err_says "G1's job first" "no reference"
mv "$work/o.jsonl" "$ws/01-reference/outputs.jsonl"
ecfg=$ws/02-onnx/export-config.yaml
cp "$ecfg" "$work/export-config.yaml"
python3 - "$ecfg" <<'EOF'
import sys
p = sys.argv[1]
text = open(p).read()
head, rest = text.split("profiles:\n", 1)
tail = rest[rest.index("output:"):]
open(p, "w").write(head + "profiles: [prefill, decode]\n" + tail)
EOF
tool onnx-check
expect_rc 0 "onnx-check with profiles as a list of names"
gate G2 pass
sed -i 's|^profiles: \[prefill, decode\]$|profiles: [{input_ids: [1, 1]}]|' \
    "$ecfg"
tool onnx-check
expect_rc 2 "onnx-check with profiles that name none"
err_says "'profiles' names no profile" "unnamed profiles"
cp "$work/export-config.yaml" "$ecfg"

# --- G8: the adapter conformance ------------------------------------------
rm "$ws/07-serving/conformance/runner-vs-server.json"
rc=0
(cd "$ws" && CALOPS_CHIP=2 "$SIM" conformance) >"$work/out" 2>"$work/err" ||
    rc=$?
expect_rc 0 "conformance"
err_says "CreateVDevice: chip 2" "the chip from CALOPS_CHIP"
gate G8 pass
tool conformance --token-mismatch 2
expect_rc 1 "conformance --token-mismatch 2"
gate G8 fail G8.conformance "116 of 118"

# --- G6: the package validator --------------------------------------------
rm "$ws/05-calbin/validation.json" "$ws/05-calbin/file-sha256.txt"
tool validate --calbin 05-calbin/package
expect_rc 0 "validate"
gate G6 pass
tool validate --calbin 05-calbin/package --finding ERROR:E-TEST
expect_rc 1 "validate --finding ERROR:E-TEST"
gate G6 fail G6.errors "E-TEST"

if [ "$failures" -ne 0 ]; then
	echo "tools_test: $failures failure(s)"
	exit 1
fi
echo "tools_test: all passed"
