#!/bin/bash
# release_test.sh: `calops release` on copies of the complete example with
# real keys made here by openssl: promote and rollback, the typed number,
# keys that are not the approver's (untrusted, RSA, OpenSSH, encrypted with
# a wrong passphrase), every bad input of issue 12 (a tampered manifest,
# bindings that changed, a revoked target, a dangling or outside `current`,
# a generation folder that is a link, a cut or edited log, a stale record,
# a ts 10 minutes off, two approvers at once), and a crash or a failure at
# every step of the switch.  After each: `current` resolves to a verifying
# generation, the chain verifies, and `current` is the last switch's `to`.
# The records' signatures are checked by openssl pkeyutl, not by calops.
#
#	release_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: release_test.sh CALOPS_BINARY}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
EXAMPLE=$TOP/share/examples/complete
T=$(mktemp -d /tmp/calops-release-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0
fail() { echo "release_test: FAIL: $*"; failed=1; }
export LC_ALL=C.UTF-8

command -v openssl >/dev/null || { echo "release_test: no openssl"; exit 1; }

# Keys: the approver (trusted), a stranger, an RSA key, an OpenSSH key, and
# the approver's key encrypted with a passphrase.
openssl genpkey -algorithm ed25519 -out "$T/ops.pem" 2>/dev/null
openssl genpkey -algorithm ed25519 -out "$T/stranger.pem" 2>/dev/null
openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:2048 \
    -out "$T/rsa.pem" 2>/dev/null
openssl pkey -in "$T/ops.pem" -out "$T/ops-enc.pem" -aes256 \
    -passout pass:'open sesame' 2>/dev/null
openssl pkey -in "$T/ops.pem" -pubout -out "$T/ops.pub"
if command -v ssh-keygen >/dev/null; then
	ssh-keygen -q -t ed25519 -N '' -f "$T/openssh" >/dev/null
fi
echo 'not a key' >"$T/junk.pem"

# The chip step's lab (share/doc/release.md §6): this machine, two chips,
# the test's workspace, and a runner that is the simulator, whose golden
# diverges on one case while $T/mismatch exists and runs in real time (a
# slow chip) while $T/slow does.  Jobs and caches under $T.
export XDG_STATE_HOME=$T/state XDG_CACHE_HOME=$T/cache
SIM=$(dirname "$CALOPS")/calrt-sim
cat >"$T/runner.sh" <<RUNNER
#!/bin/sh
cmd=\$1; shift
scale=0; extra=
[ "\$cmd" = golden ] && [ -e '$T/mismatch' ] && extra='--mismatch 16:32'
[ "\$cmd" = golden ] && [ -e '$T/slow' ] && scale=1
exec '$SIM' --time-scale \$scale "\$cmd" "\$@" \$extra
RUNNER
chmod +x "$T/runner.sh"
printf 'hosts:\n  - {name: local, transport: local, chips: [0, 1]}\nworkspaces:\n  - {host: local, path: "%s"}\nrunner: ["%s"]\n' \
    "$T/ws" "$T/runner.sh" >"$T/lab.yaml"
CHIP=(--lab "$T/lab.yaml" --host local --chip 0)

# sign FILE: base64 Ed25519 signature of FILE's bytes by the approver.
sign() {
	openssl pkeyutl -sign -inkey "$T/ops.pem" -rawin -in "$1" | base64 -w0
}

# A fresh workspace: the complete example (current -> 2, two records), the
# approver trusted, and a generation 3 that is generation 2 re-signed.
fresh() {
	W=$T/ws
	rm -rf "$W"
	cp -a "$EXAMPLE" "$W"
	R=$W/08-release
	cp "$T/ops.pub" "$R/trusted-keys/ops.pub"
}
with_gen3() {
	mkdir "$R/generations/3"
	sed -e 's/"generation": 2/"generation": 3/' \
	    -e 's/"previous_generation": 1/"previous_generation": 2/' \
	    "$R/generations/2/release-manifest.json" \
	    >"$R/generations/3/release-manifest.json"
	sign "$R/generations/3/release-manifest.json" \
	    >"$R/generations/3/release-manifest.json.sig"
}

current() { readlink "$R/current"; }
records() { wc -l <"$R/audit.jsonl"; }
last() { tail -n 1 "$R/audit.jsonl"; }
member() {	# member NAME: of the last record
	last | python3 -c 'import json,sys
v = json.loads(sys.stdin.read())[sys.argv[1]]
print("null" if v is None else v)' "$1"
}

# run EXPECTED_STATUS ARGS...: calops ARGS, its stderr and stdout kept.
run() {
	local want=$1 rc
	shift
	"$CALOPS" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ "$rc" -eq "$want" ] || fail "calops $*: exit $rc, not $want:" \
	    "$(cat "$T/out" "$T/err")"
	return 0
}
said() {	# said REGEX: in what the last run printed
	grep -Eq -- "$1" "$T/out" "$T/err" ||
		fail "expected /$1/ in: $(cat "$T/out" "$T/err")"
}

# Every record's signature by openssl, and the chain's hashes by sha256sum.
verify_log_independently() {
	local prev line body sig key n=0
	prev=0000000000000000000000000000000000000000000000000000000000000000
	while IFS= read -r line; do
		n=$((n + 1))
		body=${line%,\"sig\":*}\}
		sig=${line##*,\"sig\":\"}
		sig=${sig%\"\}}
		key=$(printf '%s' "$line" | python3 -c \
		    'import json,sys; print(json.load(sys.stdin)["key_id"])')
		printf '%s' "$body" >"$T/body"
		printf '%s' "$sig" | base64 -d >"$T/sig"
		openssl pkeyutl -verify -pubin -inkey \
		    "$R/trusted-keys/$key.pub" -rawin -in "$T/body" \
		    -sigfile "$T/sig" >/dev/null 2>&1 ||
			fail "record $n: openssl does not verify its signature"
		case $line in
		*"\"prev_sha256\":\"$prev\""*) ;;
		*) fail "record $n: prev_sha256 is not sha256sum of line" \
		    "$((n - 1))" ;;
		esac
		prev=$(printf '%s' "$line" | sha256sum | cut -d' ' -f1)
	done <"$R/audit.jsonl"
}

# The invariant after anything: current resolves to a generation that
# verifies and is not revoked, the chain verifies, and current is the last
# switch's `to`.
invariant() {
	local what=$1 to
	"$CALOPS" release audit "$W" >"$T/inv" 2>&1 ||
		fail "$what: the audit chain: $(cat "$T/inv")"
	"$CALOPS" release status "$W" --json >"$T/inv" 2>&1
	python3 - "$T/inv" "$what" <<'PYEOF' || failed=1
import json, sys
st = json.load(open(sys.argv[1]))
what = sys.argv[2]
ok = True
def bad(m):
    global ok
    ok = False
    print("release_test: FAIL: %s: %s" % (what, m))
cur = st["current"]
if cur is None or st["current_problem"] is not None:
    bad("current: %s" % st["current_problem"])
else:
    g = [g for g in st["generations"] if g["generation"] == cur][0]
    if not g["verifies"] or g["revoked"]:
        bad("current %d does not verify or is revoked" % cur)
if st["audit"]["last_switch_to"] != cur:
    bad("current %s but the last switch went to %s" %
        (cur, st["audit"]["last_switch_to"]))
if st["roll_forward_due"]:
    bad("a roll-forward is still due")
sys.exit(0 if ok else 1)
PYEOF
	verify_log_independently
}

# ---- the state ----
fresh
run 0 release status "$W" --json
python3 - "$T/out" <<'PYEOF' || fail "status --json"
import json, sys
st = json.load(open(sys.argv[1]))
assert st["schema"] == "calops-release-status/v1", st["schema"]
assert st["current"] == 2 and st["candidate"] == 2, st
assert [g["generation"] for g in st["generations"]] == [1, 2]
assert all(g["verifies"] for g in st["generations"])
assert st["audit"]["records"] == 2 and st["audit"]["intact"]
assert st["audit"]["next_seq"] == 3
assert len(st["audit"]["head_sha256"]) == 64
assert st["generations"][1]["previous_generation"] == 1
assert "onnx_sha256" in st["generations"][1]["bound"]
PYEOF
head=$(tail -n 1 "$R/audit.jsonl" | tr -d '\n' | sha256sum | cut -d' ' -f1)
grep -q "\"head_sha256\": \"$head\"" "$T/out" ||
	fail "status: head_sha256 is not sha256sum of the last line"
invariant "the example"

# ---- the typed number ----
run 2 release rollback "$W" --key "$T/ops.pem"
said 'needs --confirm 1: it is missing; nothing changed'
run 2 release rollback "$W" --key "$T/ops.pem" --confirm 2
said 'a different number was given'
run 2 release promote "$W" 2 --key "$T/ops.pem" --confirm 3
[ "$(current)" = generations/2 ] && [ "$(records)" -eq 2 ] ||
	fail "a wrong --confirm changed something"

# ---- an actor or reason is one plain line: it is signed as it is ----
n=$(records)
run 2 release rollback "$W" --key "$T/ops.pem" --confirm 1 \
    --actor "$(printf 'Eve \342\200\256evil')"
said '--actor holds U\+202E, a bidirectional control, at byte 5: refused'
run 2 release rollback "$W" --key "$T/ops.pem" --confirm 1 \
    --reason "$(printf 'line one\nline two')"
said '--reason holds U\+000A, a control character, at byte 9'
run 2 release rollback "$W" --key "$T/ops.pem" --confirm 1 \
    --reason "$(printf 'a \302\233 b')"
said '--reason holds U\+009B, a control character'
run 2 release revoke "$W" 1 --key "$T/ops.pem" --confirm 1 \
    --reason "$(printf 'bad \377 byte')"
said '--reason holds a byte that is not UTF-8 at byte 5'
[ "$(current)" = generations/2 ] && [ "$(records)" -eq "$n" ] ||
	fail "a refused actor or reason changed something"

# ---- rollback and promote ----
run 0 release rollback "$W" --key "$T/ops.pem" --confirm 1 \
    --actor 'Test Owner' --reason 'soak regression in 2'
said "rolled back: 'current' now points to generation 1"
[ "$(current)" = generations/1 ] || fail "rollback: current is $(current)"
[ "$(member action)" = rollback ] && [ "$(member from)" = 2 ] &&
    [ "$(member to)" = 1 ] && [ "$(member key_id)" = ops ] &&
    [ "$(member actor)" = 'Test Owner' ] &&
    [ "$(member reason)" = 'soak regression in 2' ] &&
    [ "$(member seq)" = 3 ] || fail "rollback record: $(last)"
invariant "rollback"
run 0 release promote "$W" 2 --key "$T/ops.pem" --confirm 2 --json "${CHIP[@]}"
python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
assert d["schema"] == "calops-release-result/v1" and d["result"] == "ok"
assert d["current"] == 2' "$T/out" || fail "promote --json: $(cat "$T/out")"
invariant "promote"
# A rollback goes back, a promote forward.
run 1 release rollback "$W" --to 2 --key "$T/ops.pem" --confirm 2
said 'generation 2 is current|earlier generation'

# ---- keys that do not approve ----
n=$(records)
run 1 release rollback "$W" --key "$T/stranger.pem" --confirm 1
said 'not one of trusted-keys/'
run 1 release rollback "$W" --key "$T/rsa.pem" --confirm 1
said 'an RSA key'
run 1 release rollback "$W" --key "$T/junk.pem" --confirm 1
said 'not a PEM private key'
if [ -f "$T/openssh" ]; then
	run 1 release rollback "$W" --key "$T/openssh" --confirm 1
	said 'an OpenSSH key'
fi
run 1 release rollback "$W" --key "$T/ops-enc.pem" --confirm 1 \
    --passphrase-fd 3 3<<<'not it'
said 'wrong passphrase'
# No terminal and no descriptor: said, never a hang.
setsid "$CALOPS" release rollback "$W" --key "$T/ops-enc.pem" --confirm 1 \
    </dev/null >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || fail "an encrypted key with no terminal"
said 'no terminal'
[ "$(records)" -eq "$n" ] && [ "$(current)" = generations/2 ] ||
	fail "a key that does not approve changed something"
run 0 release rollback "$W" --key "$T/ops-enc.pem" --confirm 1 \
    --passphrase-fd 3 3<<<'open sesame'
invariant "an encrypted key"
run 0 release promote "$W" 2 --key "$T/ops.pem" --confirm 2 "${CHIP[@]}"

# ---- targets that do not verify: a refused record, current kept ----
cp "$R/generations/1/release-manifest.json" "$T/m1"
sed -i '0,/"model_id"/s/"model_id"/"model_ID"/' \
    "$R/generations/1/release-manifest.json"
n=$(records)
run 1 release rollback "$W" --key "$T/ops.pem" --confirm 1
said 'does not verify'
[ "$(records)" -eq $((n + 1)) ] && [ "$(member action)" = refused ] &&
    [ "$(member to)" = 1 ] || fail "a tampered target: $(last)"
[ "$(current)" = generations/2 ] || fail "a tampered target moved current"
invariant "a tampered manifest"
cp "$T/m1" "$R/generations/1/release-manifest.json"

# The candidate's bindings: today's ONNX changed by one byte.
run 0 release rollback "$W" --key "$T/ops.pem" --confirm 1
cp "$W/02-onnx/model.onnx" "$T/onnx"
printf 'x' | dd of="$W/02-onnx/model.onnx" bs=1 seek=100 conv=notrunc \
    2>/dev/null
run 1 release promote "$W" 2 --key "$T/ops.pem" --confirm 2 "${CHIP[@]}"
said 'model.onnx'
[ "$(member action)" = refused ] && [ "$(current)" = generations/1 ] ||
	fail "changed bindings: $(last)"
cp "$T/onnx" "$W/02-onnx/model.onnx"
run 0 release promote "$W" 2 --key "$T/ops.pem" --confirm 2 "${CHIP[@]}"
invariant "bindings"

# A revoked target, by a signed revocations.json.
printf '{"schema": "calops-revocations/v1", "revoked": [{"generation": 1, "reason": "bad calibration", "ts": 1}]}\n' \
    >"$R/revocations.json"
sign "$R/revocations.json" >"$R/revocations.json.sig"
run 1 release rollback "$W" --key "$T/ops.pem" --confirm 1
said 'generation 1 is revoked'
[ "$(member action)" = refused ] || fail "a revoked target: $(last)"
rm "$R/revocations.json" "$R/revocations.json.sig"
invariant "revoked"

# A generation folder that is a symbolic link is never trusted.
mkdir "$T/elsewhere"
cp -a "$R/generations/2" "$T/elsewhere/3"
sed -i 's/"generation": 2/"generation": 3/' \
    "$T/elsewhere/3/release-manifest.json"
sign "$T/elsewhere/3/release-manifest.json" \
    >"$T/elsewhere/3/release-manifest.json.sig"
ln -s "$T/elsewhere/3" "$R/generations/3"
run 1 release status "$W"
said 'symbolic link'
run 1 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
[ "$(current)" = generations/2 ] || fail "a linked generation went live"
rm "$R/generations/3"
invariant "a linked generation"

# `current` dangling: the log says where it points, and whoever looks next
# (status here) rolls it forward.
ln -sfn generations/9 "$R/current"
run 0 release status "$W"
said "rolled forward: 'current' now points to generation 2"
invariant "a dangling current"
# With no switch on the log to go by, a `current` outside generations/ is
# said, and a rollback --to repairs it.
cp "$R/audit.jsonl" "$T/log"
: >"$R/audit.jsonl"
ln -sfn ../../etc "$R/current"
run 1 release status "$W"
said "is not a generation of generations/"
run 0 release rollback "$W" --to 2 --key "$T/ops.pem" --confirm 2
[ "$(current)" = generations/2 ] && [ "$(member from)" = null ] ||
	fail "repairing current: $(current), $(last)"
invariant "current repaired"
fresh

# A cut or edited log: nothing is appended to it.
cp "$R/audit.jsonl" "$T/log"
head -c -1 "$T/log" >"$R/audit.jsonl"
run 1 release rollback "$W" --key "$T/ops.pem" --confirm 1
said 'the log was cut'
cmp -s <(head -c -1 "$T/log") "$R/audit.jsonl" ||
	fail "a cut log was written to"
sed '1s/"actor":"[^"]*"/"actor":"Someone Else"/' "$T/log" >"$R/audit.jsonl"
run 1 release rollback "$W" --key "$T/ops.pem" --confirm 1
said 'broken at record 1'
run 1 release audit "$W"
said 'audit.jsonl:1: the chain is broken'
cp "$T/log" "$R/audit.jsonl"
[ "$(current)" = generations/2 ] || fail "a broken log moved current"

# ---- two approvers at once ----
printf 'Mei Chen on lab-7, pid 4242, since 2026-12-03T03:00:00Z\n' \
    >"$R/.lock"
(
	exec 9<>"$R/.lock"
	flock -x 9
	: >"$T/held"
	while [ ! -e "$T/release-lock" ]; do sleep 0.05; done
) &
holder=$!
while [ ! -e "$T/held" ]; do sleep 0.05; done
run 3 release rollback "$W" --key "$T/ops.pem" --confirm 1
said 'held by Mei Chen on lab-7'
: >"$T/release-lock"
wait "$holder"
[ "$(current)" = generations/2 ] || fail "a second approver acted"
invariant "the lock"

# ---- apply: records signed elsewhere (openssl here) ----
# mkrecord SEQ TS FROM TO ACTION PREV [KEY_ID [SIGNER]]: a signed record
# line as release.md §3 spells it (ts a real: "1796294538.0").
mkrecord() {
	local chip=
	[ "$5" = promote ] && [ -z "${NOCHIP:-}" ] &&
		chip='"chip_step":{"skipped":"by hand"},'
	printf '{"seq":%s,"ts":%s.0,"actor":"openssl","key_id":"%s","action":"%s","from":%s,"to":%s,"reason":"by hand",%s"prev_sha256":"%s"}' \
	    "$1" "$2" "${7:-ops}" "$5" "$3" "$4" "$chip" "$6" >"$T/body"
	printf '%s,"sig":"%s"}\n' "$(head -c -1 "$T/body")" \
	    "$(openssl pkeyutl -sign -inkey "${8:-$T/ops.pem}" -rawin \
	    -in "$T/body" | base64 -w0)"
}
# refuse STATUS REGEX: apply of $T/rec refused so, nothing changed.
refuse() {
	local n0 c0
	n0=$(records)
	c0=$(current)
	"$CALOPS" release apply "$W" <"$T/rec" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq "$1" ] || fail "apply $(head -c 120 "$T/rec"): exit $rc," \
	    "not $1: $(cat "$T/err")"
	said "$2"
	[ "$(records)" -eq "$n0" ] && [ "$(current)" = "$c0" ] ||
		fail "a refused apply changed something: $(last)"
}
now=$(date +%s)
seq=$(($(records) + 1))
head=$(last | tr -d '\n' | sha256sum | cut -d' ' -f1)
mkrecord "$seq" "$now" 2 1 rollback 0000 >"$T/rec"
refuse 1 'lacks a member|wrong type'
mkrecord $((seq - 1)) "$now" 2 1 rollback "$head" >"$T/rec"
refuse 4 'stale'
mkrecord $((seq + 1)) "$now" 2 1 rollback "$head" >"$T/rec"
refuse 1 'not prepared against this log'
mkrecord "$seq" $((now - 600)) 2 1 rollback "$head" >"$T/rec"
refuse 1 'check the clocks'
mkrecord "$seq" $((now + 600)) 2 1 rollback "$head" >"$T/rec"
refuse 1 'check the clocks'
mkrecord "$seq" "$now" 1 2 promote "$head" >"$T/rec"
refuse 1 "'current' is 2"
mkrecord "$seq" "$now" 2 2 promote "$head" >"$T/rec"
refuse 1 'current already'
mkrecord "$seq" "$now" 2 3 rollback "$head" >"$T/rec"
refuse 1 'earlier generation'
# A promote of v3 carries its chip step (release.md §6).
NOCHIP=1 mkrecord "$seq" "$now" 2 3 promote "$head" >"$T/rec"
refuse 1 'carries its chip step'
mkrecord "$seq" "$now" 2 1 demote "$head" >"$T/rec"
refuse 1 'not promote, rollback'
mkrecord "$seq" "$now" null 1 rollback "$head" >"$T/rec"
refuse 1 "from generation -1 but 'current' is 2"
mkrecord "$seq" "$now" 0 1 rollback "$head" >"$T/rec"
refuse 1 'wrong type'
# Signed by a stranger, or by ops in mei.chen's name: refused.
mkrecord "$seq" "$now" 2 1 rollback "$head" ops "$T/stranger.pem" >"$T/rec"
refuse 1 "does not verify with trusted key 'ops'"
mkrecord "$seq" "$now" 2 1 rollback "$head" mei.chen >"$T/rec"
refuse 1 "does not verify with trusted key 'mei.chen'"
# Edited after signing, spelled otherwise, or not one line: refused.
mkrecord "$seq" "$now" 2 1 rollback "$head" >"$T/good"
sed 's/"by hand"/"by hend"/' "$T/good" >"$T/rec"
refuse 1 'does not verify'
sed 's/,"to":/, "to":/' "$T/good" >"$T/rec"
refuse 1 'not in the form'
sed 's/"action"/"\\u0061ction"/' "$T/good" >"$T/rec"
refuse 1 'not in the form'
sed 's/"}$/ "}/' "$T/good" >"$T/rec"
refuse 1 'not in the form'
{ cat "$T/good"; printf '{}\n'; } >"$T/rec"
refuse 2 'exactly one record'
printf 'x\0y\n' >"$T/rec"
refuse 2 'exactly one record'
cp "$T/good" "$T/rec"
"$CALOPS" release apply "$W" --json <"$T/rec" >"$T/out" 2>"$T/err"
[ $? -eq 0 ] || fail "apply of a good record: $(cat "$T/out" "$T/err")"
grep -q '"result": "ok"' "$T/out" || fail "apply --json: $(cat "$T/out")"
[ "$(current)" = generations/1 ] || fail "apply: current is $(current)"
cmp -s <(last) "$T/rec" || fail "apply: the log's line is not the record"
# A refusal sent the same way (what the console does when apply refuses).
seq=$(($(records) + 1))
head=$(last | tr -d '\n' | sha256sum | cut -d' ' -f1)
mkrecord "$seq" "$now" 1 2 refused "$head" >"$T/rec"
"$CALOPS" release apply "$W" <"$T/rec" >"$T/out" 2>"$T/err" ||
	fail "apply of a refusal: $(cat "$T/err")"
[ "$(member action)" = refused ] && [ "$(current)" = generations/1 ] ||
	fail "a refusal moved current"
invariant "apply"
run 0 release promote "$W" 2 --key "$T/ops.pem" --confirm 2 "${CHIP[@]}"

# ---- apply --hold: the console's approval (release.md §5) ----
# JSON lines only; input that ends first changes nothing; the lock is held
# from the start (a second approver is refused with the holder's name);
# the state said under it is what the record is built on; a target that
# does not verify is said so, and the refusal then signed is logged.
run 2 release apply "$W" --hold 1
said 'add --json'
n0=$(records)
"$CALOPS" release apply "$W" --hold 1 --json </dev/null >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || fail "apply --hold with no input: exit $?"
said '^\{"type":"held","current":2,"next_seq":[0-9]+,"head_sha256":"[0-9a-f]{64}","trusted_keys":\['
said '^\{"type":"verified","generation":1,"verifies":true'
said '"result":"cancelled".*"type":"result"'
[ "$(records)" -eq "$n0" ] && [ "$(current)" = generations/2 ] ||
	fail "a cancelled hold changed something"
rm -f "$T/fifo" && mkfifo "$T/fifo"
"$CALOPS" release apply "$W" --hold 1 --json --actor "Hold Er" \
    <"$T/fifo" >"$T/held.out" 2>&1 &
holder=$!
exec 8>"$T/fifo"
for i in $(seq 1 200); do
	grep -q '"type":"verified"' "$T/held.out" && break
	sleep 0.05
done
grep -q '"type":"verified"' "$T/held.out" || fail "apply --hold said nothing"
run 3 release rollback "$W" --key "$T/ops.pem" --confirm 1
said 'held by Hold Er \(approving in a console\)'
seq=$(python3 -c 'import json,sys
print(json.loads(open(sys.argv[1]).readline())["next_seq"])' \
    "$T/held.out")
head=$(python3 -c 'import json,sys
print(json.loads(open(sys.argv[1]).readline())["head_sha256"])' \
    "$T/held.out")
[ "$head" = "$(last | tr -d '\n' | sha256sum | cut -d' ' -f1)" ] ||
	fail "the held state's head is not the log's"
mkrecord "$seq" "$(date +%s)" 2 1 rollback "$head" >&8
exec 8>&-
wait "$holder" || fail "apply --hold of a good record: $(cat "$T/held.out")"
grep -q '"result":"ok"' "$T/held.out" || fail "hold: $(cat "$T/held.out")"
[ "$(current)" = generations/1 ] || fail "hold: current is $(current)"
[ "$(member actor)" = openssl ] || fail "hold: the log's last is not the record"
invariant "apply --hold"
# A target that does not verify (a manifest one byte off its signature):
# the refusal, signed on the held state.
with_gen3
sed -i 's/"previous_generation": 2/"previous_generation":  2/' \
    "$R/generations/3/release-manifest.json"
seq=$(($(records) + 1))
head=$(last | tr -d '\n' | sha256sum | cut -d' ' -f1)
mkrecord "$seq" "$(date +%s)" 1 3 refused "$head" >"$T/rec"
"$CALOPS" release apply "$W" --hold 3 --json <"$T/rec" >"$T/out" 2>"$T/err"
[ $? -eq 0 ] || fail "a refusal through --hold: $(cat "$T/out" "$T/err")"
said '"type":"verified","generation":3,"verifies":false,"bindings_checked":false,"problem":"'
[ "$(member action)" = refused ] && [ "$(current)" = generations/1 ] ||
	fail "a refusal through --hold moved current"
rm -r "$R/generations/3"
invariant "apply --hold refused"
# The candidate verified under the lock, then a bound artifact changed
# while the approver decided (the lock does not cover it): hashed again
# before anything is appended, and refused.
rm -f "$T/fifo" && mkfifo "$T/fifo"
"$CALOPS" release apply "$W" --hold 2 --json <"$T/fifo" >"$T/held.out" 2>&1 &
holder=$!
exec 8>"$T/fifo"
for i in $(seq 1 200); do
	grep -q '"type":"verified"' "$T/held.out" && break
	sleep 0.05
done
grep -q '"type":"verified","generation":2,"verifies":true,"bindings_checked":true' \
    "$T/held.out" || fail "the candidate under --hold: $(cat "$T/held.out")"
cp -p "$W/02-onnx/model.onnx" "$T/model.onnx"
printf 'x' >>"$W/02-onnx/model.onnx"
n0=$(records)
seq=$(($(records) + 1))
head=$(last | tr -d '\n' | sha256sum | cut -d' ' -f1)
mkrecord "$seq" "$(date +%s)" 1 2 promote "$head" >&8
exec 8>&-
wait "$holder"
grep -q '"result":"refused"' "$T/held.out" ||
	fail "a changed artifact was not hashed again: $(cat "$T/held.out")"
[ "$(records)" -eq "$n0" ] && [ "$(current)" = generations/1 ] ||
	fail "a promote over a changed artifact changed something"
cp -p "$T/model.onnx" "$W/02-onnx/model.onnx"
invariant "apply --hold, an artifact changed"
run 0 release promote "$W" 2 --key "$T/ops.pem" --confirm 2 "${CHIP[@]}"

# ---- a log cut after a whole line, a link moved by hand ----
# Not what a crash leaves (current is not the last switch's from): said,
# and nothing moved.  (A cut that leaves that shape cannot be told from a
# crash, and is completed like one.)
fresh
with_gen3
run 0 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
cp "$R/audit.jsonl" "$T/log"
head -n -1 "$T/log" >"$R/audit.jsonl"
run 1 release status "$W"
said 'disagreement'
[ "$(current)" = generations/3 ] || fail "a cut log moved current"
cp "$T/log" "$R/audit.jsonl"
ln -sfn generations/1 "$R/current"
run 1 release status "$W"
said 'disagreement'
[ "$(current)" = generations/1 ] || fail "status moved a link set by hand"
ln -sfn generations/3 "$R/current"
invariant "a disagreement"
fresh

# ---- more that is never trusted ----
# A file named like a generation is none; a planted FIFO hangs nothing.
: >"$R/generations/7"
run 0 release status "$W"
rm "$R/generations/7"
mv "$R/audit.jsonl" "$T/log"
mkfifo "$R/audit.jsonl"
timeout 20 "$CALOPS" release rollback "$W" --key "$T/ops.pem" --confirm 1 \
    >"$T/out" 2>"$T/err" </dev/null
rc=$?
[ $rc -ne 124 ] && [ $rc -ne 0 ] || fail "a FIFO for audit.jsonl: exit $rc"
rm "$R/audit.jsonl"
cp "$T/log" "$R/audit.jsonl"
# A revocations.json whose signature broke: no switch trusts anything.
printf '{"schema": "calops-revocations/v1", "revoked": []}\n' \
    >"$R/revocations.json"
sign "$R/revocations.json" >"$R/revocations.json.sig"
run 0 release status "$W"
printf 'AAAA' >"$R/revocations.json.sig"
run 1 release rollback "$W" --key "$T/ops.pem" --confirm 1
said 'no revocation in it is trusted'
run 1 release revoke "$W" 1 --reason x --key "$T/ops.pem" --confirm 1
said 'not written over'
[ "$(current)" = generations/2 ] || fail "switched with broken revocations"
rm "$R/revocations.json" "$R/revocations.json.sig"
# A long actor: one line in .lock, nothing else of the process's.
run 0 release rollback "$W" --key "$T/ops.pem" --confirm 1 \
    --actor "$(printf 'A%.0s' $(seq 700))"
[ "$(wc -l <"$R/.lock")" -eq 1 ] && ! grep -q "$T" "$R/.lock" ||
	fail ".lock after a long actor: $(head -c 200 "$R/.lock")"
run 0 release promote "$W" 2 --key "$T/ops.pem" --confirm 2 "${CHIP[@]}"
# The passphrase is nowhere.
grep -rqs 'open sesame' "$R" && fail "the passphrase was written"
invariant "never trusted"

# ---- verify ----
fresh
"$CALOPS" release verify "$W" 2 --json >"$T/out" 2>"$T/err" ||
	fail "verify 2: $(cat "$T/out" "$T/err")"
python3 - "$T/out" <<'PYEOF' || fail "verify --json: $(cat "$T/out")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
prog = [l for l in lines if l["type"] == "progress"]
res = lines[-1]
assert res["type"] == "result" and res["schema"] == "calops-release-verify/v1"
assert res["verifies"] and res["bindings_checked"] and res["generation"] == 2
assert prog and prog[-1]["done"] == prog[-1]["total"] > 0
assert all(a["done"] <= b["done"] for a, b in zip(prog, prog[1:]))
PYEOF
run 0 release verify "$W" 1
said '^generation 1 verifies: signed by a trusted key; not revoked; bindings not checked \(not the candidate\)$'
printf 'x' | dd of="$W/03-quant/quant-config.yaml" bs=1 seek=10 \
    conv=notrunc 2>/dev/null
run 1 release verify "$W" 2
said 'quant-config.yaml'
run 1 release verify "$W" 7
said 'there is no generation 7'

# ---- one verdict per generation ----
# Whatever says a generation's verdict says one verdict in the same words:
# `release status` (text and JSON), `verify` (text and JSON), G10 in
# `check --json` (for the candidate) and the console's Release screen,
# drawn headless.  A bound report changed after the promote, a revoked
# generation, a manifest signed by a key nobody trusts.

# agree N: the verdicts on generation N agree; its words go to $T/words.
agree() {
	local rc
	"$CALOPS" release status "$W" >"$T/st.txt" 2>&1
	"$CALOPS" release status "$W" --json >"$T/st.json" 2>/dev/null
	"$CALOPS" release verify "$W" "$1" >"$T/vf.txt" 2>&1
	rc=$?
	"$CALOPS" release verify "$W" "$1" --json >"$T/vf.json" 2>/dev/null
	"$CALOPS" check "$W" --json >"$T/ck.json" 2>/dev/null
	python3 - "$T" "$1" "$rc" <<'PYEOF' || failed=1
import json, re, sys
T, n, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ok = True
def bad(m):
    global ok
    ok = False
    print("release_test: FAIL: generation %d: %s" % (n, m))
st = json.load(open(T + "/st.json"))
g = [g for g in st["generations"] if g["generation"] == n][0]
v = g["verdict"]
vf = [json.loads(l) for l in open(T + "/vf.json")][-1]
ck = json.load(open(T + "/ck.json"))["gates"][10]
if not g["verifies"] == v["verifies"] == vf["verifies"] == (rc == 0):
    bad("status says %s, its verdict %s, verify --json %s, verify exit %d"
        % (g["verifies"], v["verifies"], vf["verifies"], rc))
# The same verdict, but that the status hashed through the hash cache.
same = lambda a, b: {k: a[k] for k in a if k != "cache"} == \
    {k: b[k] for k in b if k != "cache"}
if not same(v, vf["verdict"]) or \
   not g["problem"] == v["problem"] == vf["problem"]:
    bad("status --json and verify --json: %s / %s" % (v, vf["verdict"]))
if v["bindings"] in ("match", "changed") and \
   (v["cache"] is not True or vf["verdict"]["cache"] is not False):
    bad("status did not hash with the cache, or verify not in full")
row = [l for l in open(T + "/st.txt").read().splitlines()
       if re.match(r"^ +%d  " % n, l)]
if not row or not row[0].endswith("  " + v["words"]):
    bad("status says %r, not %r" % (row, v["words"]))
first = open(T + "/vf.txt").readline().rstrip("\n")
if first != "generation %d %s" % (n, v["words"]):
    bad("verify says %r" % first)
if v["candidate"]:
    said = {c: [f["message"] for f in ck["findings"] if f["check"] == c]
            for c in ("G10.signature", "G10.bindings")}
    if (ck["checks"]["G10.signature"] == "held") != (v["signature"] == "ok"):
        bad("G10.signature is %s, the signature %s" %
            (ck["checks"]["G10.signature"], v["signature"]))
    if v["signature"] != "ok" and said["G10.signature"] != [v["problem"]]:
        bad("G10 says %s, the verdict %r" % (said, v["problem"]))
    if v["bindings"] in ("match", "changed"):
        want = "held" if v["bindings"] == "match" else "failed"
        if ck["checks"]["G10.bindings"] != want or said["G10.bindings"] != \
           [c["message"] for c in v["changed"]]:
            bad("G10.bindings is %s: %s; the verdict's: %s" %
                (ck["checks"]["G10.bindings"], said["G10.bindings"],
                 v["changed"]))
open(T + "/words", "w").write(v["words"])
sys.exit(0 if ok else 1)
PYEOF
}
# words_are TEXT: what agree found.
words_are() {
	[ "$(cat "$T/words")" = "$1" ] ||
		fail "the verdict says '$(cat "$T/words")', not '$1'"
}
# screen_row N: generation N's row of the Release screen, the console run
# headless on $W (calops(1) HEADLESS) with a home of its own.
screen_row() {
	mkdir -p "$T/home" "$T/state" "$T/config"
	printf 'timeout 60\nwait board\nkey 9\nwait text chain intact\ndump %s\nkey Q\n' \
	    "$T/screen" >"$T/script"
	rm -f "$T/screen"
	env -i PATH="$PATH" HOME="$T/home" XDG_STATE_HOME="$T/state" \
	    XDG_CONFIG_HOME="$T/config" LANG=C.UTF-8 \
	    "$CALOPS" --headless 120x40 --script "$T/script" "$W" \
	    >"$T/headless" 2>&1 ||
		fail "the Release screen, headless: $(tail -5 "$T/headless")"
	grep -E "^.[[:space:]]+$1 " "$T/screen" | head -n 1
}
# refuses N REGEX: generation N's row has a ✘ and REGEX, no ✔ nor
# "verifies".
refuses() {
	local row
	row=$(screen_row "$1")
	case $row in
	*✔*|*verifies*) fail "the Release screen says of $1: $row" ;;
	*✘*) [[ $row =~ $2 ]] ||
		fail "the Release screen does not say /$2/ of $1: $row" ;;
	*) fail "the Release screen has no ✘ for $1: '$row'" ;;
	esac
}

SOAK=07-serving/soak/2026-09-21-24h/summary.json
fresh
with_gen3
run 0 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
agree 3
words_are "verifies: signed by a trusted key; not revoked; bindings match today's artifacts"
row=$(screen_row 3)
[[ $row == *"✔  verifies"* ]] || fail "generation 3 on the screen: $row"
# A bound report changed by one byte (the same JSON) after the promote.
cp -p "$W/$SOAK" "$T/summary.json"
sed -i '0,/:/s/:/ :/' "$W/$SOAK"
agree 3
words_are "does not verify: bindings changed: $SOAK; signed by a trusted key; not revoked"
grep -q "^ *$SOAK changed since generation 3 was signed" "$T/st.txt" ||
	fail "status does not say why: $(cat "$T/st.txt")"
refuses 3 "bindings changed: 07-serving/soak/"
# The switch refuses as verify does: a rollback and a promote back.
run 0 release rollback "$W" --key "$T/ops.pem" --confirm 2
run 1 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
said "generation 3 does not verify: $SOAK changed since generation 3 was signed"
cp -p "$T/summary.json" "$W/$SOAK"
agree 3
words_are "verifies: signed by a trusted key; not revoked; bindings match today's artifacts"
run 0 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
invariant "one verdict: the report back"

# A revoked generation: the candidate is the one below it.
fresh
with_gen3
run 0 release revoke "$W" 3 --reason 'bad soak' --key "$T/ops.pem" \
    --confirm 3
agree 3
words_are "does not verify: revoked; signed by a trusted key; bindings not checked (not the candidate)"
refuses 3 "revoked; signed by a trusted key"
agree 2
words_are "verifies: signed by a trusted key; not revoked; bindings match today's artifacts"

# A manifest signed by a key nobody trusts: G10's candidate, refused alike.
fresh
with_gen3
openssl pkeyutl -sign -inkey "$T/stranger.pem" -rawin \
    -in "$R/generations/3/release-manifest.json" | base64 -w0 \
    >"$R/generations/3/release-manifest.json.sig"
agree 3
words_are "does not verify: not signed by a trusted key; not revoked; bindings not checked"
refuses 3 "not signed by a trusted key"
run 1 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
said "generation 3's manifest has no signature that verifies with a trusted key"

# ---- revoke ----
fresh
run 2 release revoke "$W" 1 --reason 'bad calibration' --key "$T/ops.pem"
run 1 release revoke "$W" 2 --reason 'x' --key "$T/ops.pem" --confirm 2
said 'generation 2 is current'
run 1 release revoke "$W" 1 --reason 'x' --key "$T/stranger.pem" --confirm 1
said 'not one of trusted-keys/'
[ -e "$R/revocations.json" ] && fail "a refused revoke wrote the file"
n=$(records)
run 0 release revoke "$W" 1 --reason 'bad calibration' --key "$T/ops.pem" \
    --confirm 1
openssl pkeyutl -verify -pubin -inkey "$T/ops.pub" -rawin \
    -in "$R/revocations.json" -sigfile <(base64 -d \
    <"$R/revocations.json.sig") >/dev/null 2>&1 ||
	fail "openssl does not verify revocations.json.sig"
[ "$(records)" -eq "$n" ] || fail "revoke wrote to the audit log"
run 1 release rollback "$W" --key "$T/ops.pem" --confirm 1
said 'generation 1 is revoked'
"$CALOPS" check "$W" --json >"$T/out" 2>/dev/null
python3 -c 'import json,sys; g = json.load(open(sys.argv[1]))["gates"][10]
assert not [f for f in g["findings"] if f["check"].startswith("G10.revoked")]
' "$T/out" || fail "G10 after a revoke: $(cat "$T/out")"
# A crash between the two renames: the next command completes it.  (With
# no observation window for 3, the generation it replaces may be revoked
# at once: release.md §6.)
with_gen3
sed -i 's/"observation_window_h": [0-9.]*/"observation_window_h": 0/' \
    "$R/generations/3/release-manifest.json"
sign "$R/generations/3/release-manifest.json" \
    >"$R/generations/3/release-manifest.json.sig"
run 0 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
{ CALOPS_RELEASE_FAULT=kill-after-revocations-rename "$CALOPS" release \
    revoke "$W" 2 --reason 'superseded' --key "$T/ops.pem" --confirm 2 \
    >/dev/null 2>&1 </dev/null; } 2>/dev/null
[ -e "$R/revocations.json.sig.new" ] || fail "no revocation cut short"
run 0 release status "$W" --json
python3 -c 'import json,sys; st = json.load(open(sys.argv[1]))
assert st["revocations"]["trusted"], st["revocations"]
assert [g["revoked"] for g in st["generations"]] == [True, True, False]
' "$T/out" || fail "the revocation cut short: $(cat "$T/out")"
# A rename that fails there is completed at once: a pair that verifies.
mkdir "$R/generations/4"
sed -e 's/"generation": 3/"generation": 4/' \
    "$R/generations/3/release-manifest.json" \
    >"$R/generations/4/release-manifest.json"
sign "$R/generations/4/release-manifest.json" \
    >"$R/generations/4/release-manifest.json.sig"
CALOPS_RELEASE_FAULT=fail-revocations-rename "$CALOPS" release revoke "$W" \
    4 --reason 'never used' --key "$T/ops.pem" --confirm 4 >"$T/out" 2>&1 ||
	fail "a failed rename of the signature: $(cat "$T/out")"
run 0 release status "$W" --json
python3 -c 'import json,sys; st = json.load(open(sys.argv[1]))
assert st["revocations"]["trusted"], st["revocations"]
assert [g["revoked"] for g in st["generations"]] == [True, True, False, True]
assert st["candidate"] == 3
' "$T/out" || fail "after a failed rename: $(cat "$T/out")"
[ -e "$R/revocations.json.sig.new" ] && fail "a .new file was left"

# ---- the chip step (release.md §6) ----
# chip_member KEY: the last record's chip_step[KEY] ("none": no chip_step).
chip_member() {
	last | python3 -c 'import json,sys
c = json.loads(sys.stdin.read()).get("chip_step")
print("none" if c is None else c.get(sys.argv[1], "-"))' "$1"
}
job_of() { sed -n 's/^calops: chip step: job \([^ ]*\) on .*/\1/p' "$T/err"; }
# golden_running: a promote started in the background ($pid) on a slow
# chip, once its chip step's job ($job) is in golden.
golden_running() {
	touch "$T/slow"
	"$CALOPS" release promote "$W" 3 --key "$T/ops.pem" --confirm 3 \
	    "${CHIP[@]}" >"$T/out" 2>"$T/err" </dev/null &
	pid=$!
	for i in $(seq 1 400); do
		job=$(job_of)
		[ -n "$job" ] && "$CALOPS" tail --from 1 -- "$job" \
		    2>/dev/null | grep -q '"phase":"golden"' && break
		sleep 0.05
	done
}
fresh
with_gen3
n=$(records)
# No lab, no reason, no such chip or host: refused before anything.
run 2 release promote "$W" 3 --key "$T/ops.pem" --confirm 3
said 'runs the chip step first'
run 2 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 --no-chip-step
said 'needs --reason'
run 2 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 \
    --lab "$T/lab.yaml" --host local --chip 7
said 'chip 7 is not one of'
run 2 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 \
    --lab "$T/lab.yaml" --host nowhere --chip 0
said "no host 'nowhere'"
run 2 release rollback "$W" --key "$T/ops.pem" --confirm 1 "${CHIP[@]}"
said 'only with --chip-step'
[ "$(records)" -eq "$n" ] && [ "$(current)" = generations/2 ] ||
	fail "a promote refused for its options changed something"
# A result folder that is a link elsewhere: nothing written through it.
mkdir "$T/away"
ln -s "$T/away" "$R/chip-steps"
run 1 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
said 'chip-steps is not a folder'
[ -z "$(ls -A "$T/away")" ] || fail "a chip step wrote through a link"
rm "$R/chip-steps"
n=$(records)
# A golden that fails: a signed refusal that says so; current kept.
touch "$T/mismatch"
run 1 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
said 'golden failed on the chip'
rm "$T/mismatch"
[ "$(member action)" = refused ] && [ "$(member to)" = 3 ] &&
    [ "$(records)" -eq $((n + 1)) ] && [ "$(chip_member host)" = none ] ||
	fail "a failed golden: $(last)"
member reason | grep -q "job $(job_of)).*1 of 16 golden cases do not match" ||
	fail "a failed golden's reason: $(member reason)"
[ "$(current)" = generations/2 ] || fail "a failed golden moved current"
# Cut short: the promote stopped (SIGTERM) while golden runs on a slow
# chip; its job is stopped too, and the refusal says so.
golden_running
kill -TERM "$pid"
wait "$pid"
rc=$?
rm "$T/slow"
[ "$rc" -eq 1 ] || fail "a promote cut short: exit $rc: $(cat "$T/err")"
said 'was cut short: terminated'
[ "$(member action)" = refused ] || fail "a cut-short golden: $(last)"
"$CALOPS" jobs --json | python3 -c 'import json,sys
j = [j for j in json.load(sys.stdin)["jobs"] if j["id"] == sys.argv[1]]
assert j and j[0]["state"] != "running", j' "$job" ||
	fail "the cut-short chip step's job $job still runs"
[ "$(current)" = generations/2 ] || fail "a cut-short golden moved current"
# Killed (SIGKILL) while golden runs: nothing is signed then, but the
# marker written before the job started stays (release.md §2): the status
# says so, a new promote is refused with that reason, and recover stops the
# job and signs the refusal; then all is as before, and a promote goes on.
n=$(records)
golden_running
kill -KILL "$pid"
wait "$pid" 2>/dev/null
rm "$T/slow"
[ -n "$job" ] || fail "the killed promote's chip step never started"
[ -e "$R/promote-pending.json" ] || fail "a killed chip step left no marker"
grep -q "\"job\":\"$job\"" "$R/promote-pending.json" ||
	fail "the marker does not name job $job: $(cat "$R/promote-pending.json")"
grep -qiE 'passphrase|PRIVATE KEY' "$R/promote-pending.json" &&
	fail "the marker holds key material"
[ "$(records)" -eq "$n" ] || fail "a killed promote appended a record"
run 1 release status "$W"
said "interrupted: the promote to generation 3 was cut short during its chip step \(job $job on local, chip 0"
run 1 release status "$W" --json
python3 -c 'import json,sys; i = json.load(open(sys.argv[1]))["interrupted"]
assert i["generation"] == 3 and i["job"] == sys.argv[2] and i["key_id"] == "ops", i
' "$T/out" "$job" || fail "status --json: $(cat "$T/out")"
run 1 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 "${CHIP[@]}"
said "cut short during its chip step \(job $job.*its refusal is signed first"
[ "$(records)" -eq "$n" ] || fail "a promote refused for the marker appended"
run 0 release recover "$W" --key "$T/ops.pem"
said "the chip step \(job $job\) was cut short: its command was killed"
[ "$(member action)" = refused ] && [ "$(member to)" = 3 ] &&
    [ "$(records)" -eq $((n + 1)) ] ||
	fail "recover: $(last)"
member reason | grep -q "^the chip step (job $job) was cut short: its command was killed$" ||
	fail "recover's reason: $(member reason)"
[ -e "$R/promote-pending.json" ] && fail "recover left the marker"
"$CALOPS" jobs --json | python3 -c 'import json,sys
j = [j for j in json.load(sys.stdin)["jobs"] if j["id"] == sys.argv[1]]
assert j and j[0]["state"] != "running", j' "$job" ||
	fail "recover left the killed promote's job $job running"
invariant "a promote killed during its chip step, recovered"
run 0 release recover "$W" --key "$T/ops.pem"
said 'nothing to recover'
[ "$(current)" = generations/2 ] || fail "a killed chip step moved current"
# Golden passes: the record carries the host, the chip, the job and the
# SHA-256 of the result file the job wrote, signed.
run 0 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 \
    --lab "$T/lab.yaml" --host local --chip 1
said "after its chip step \(job $(job_of) on local, chip 1: golden passed"
sum=$(sha256sum "$R/chip-steps/3-$(job_of)/golden.json" | cut -d' ' -f1)
[ "$(member action)" = promote ] && [ "$(chip_member host)" = local ] &&
    [ "$(chip_member chip)" = 1 ] && [ "$(chip_member job)" = "$(job_of)" ] &&
    [ "$(chip_member golden_sha256)" = "$sum" ] &&
    [ "$(chip_member result)" = pass ] || fail "the chip step's record: $(last)"
last | grep -q '"reason":"promote to generation 3","chip_step":{"host":"local","chip":1,' ||
	fail "chip_step is not between reason and prev_sha256: $(last)"
invariant "a chip step"
# A rollback: no chip step unless asked.
run 0 release rollback "$W" --key "$T/ops.pem" --confirm 2
[ "$(chip_member host)" = none ] || fail "a rollback ran a chip step: $(last)"
# Without a chip step, by the approver's choice: the record says why, and
# so do the status and G10.
run 0 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 \
    --no-chip-step --reason 'lab down: hotfix 7'
[ "$(chip_member skipped)" = 'lab down: hotfix 7' ] ||
	fail "a skipped chip step's record: $(last)"
run 0 release status "$W"
said 'promoted without a chip step: "lab down: hotfix 7"'
"$CALOPS" check "$W" --gate G10 --json >"$T/out" 2>&1
said 'promoted without a chip step: \\"lab down: hotfix 7\\"'
# The observation window (release.md §6): generation 3 went live just now
# with a window of 72 h, so 2, which it replaced, is kept: said by the
# status, refused to revoke, and missing it is G10's error.
run 0 release status "$W"
said 'generation 2 kept until 20[0-9-]+T'
run 1 release revoke "$W" 2 --key "$T/ops.pem" --confirm 2 --reason 'old'
said 'generation 2 is kept until .*observation window is not over'
mv "$R/generations/2" "$T/gen2"
"$CALOPS" check "$W" --gate G10 --json >"$T/out" 2>&1
said 'generation 2 is missing, but it is kept until'
mv "$T/gen2" "$R/generations/2"
run 0 release rollback "$W" --key "$T/ops.pem" --confirm 2 --chip-step \
    "${CHIP[@]}"
[ "$(member action)" = rollback ] && [ "$(chip_member host)" = local ] ||
	fail "rollback --chip-step: $(last)"
invariant "rollback --chip-step"

# ---- a crash or a failure at every step ----
# step ACTION FAULT: the switch with CALOPS_RELEASE_FAULT=FAULT, then the
# next command (status) completes or keeps what the log says.
# The chip step's own steps (release.md §6): killed once its job started
# and once it passed, before the record; a rollback runs it when asked.
for fault in kill-after-lock kill-after-verify kill-after-chip-start \
    kill-after-chip-done kill-after-append \
    kill-after-fsync-log kill-after-symlink kill-after-rename \
    fail-write fail-fsync-log fail-symlink fail-rename fail-fsync-dir; do
	for action in rollback promote; do
		fresh
		with_gen3
		if [ "$action" = rollback ]; then
			args=(rollback "$W" --key "$T/ops.pem" --confirm 1)
			case $fault in
			*-chip-*) args+=(--chip-step "${CHIP[@]}") ;;
			esac
		else
			args=(promote "$W" 3 --key "$T/ops.pem" --confirm 3
			    "${CHIP[@]}")
		fi
		n=$(records)
		{ CALOPS_RELEASE_FAULT=$fault "$CALOPS" release "${args[@]}" \
		    >"$T/out" 2>"$T/err" </dev/null; } 2>/dev/null
		rc=$?
		case $fault in
		kill-*) [ $rc -eq 137 ] ||
			fail "$action $fault: exit $rc, not killed" ;;
		*) [ $rc -eq 1 ] ||
			fail "$action $fault: exit $rc: $(cat "$T/err")" ;;
		esac
		# The link is the old one or the new one, never missing.
		case $(current) in
		generations/1|generations/2|generations/3) ;;
		*) fail "$action $fault: current is '$(current)'" ;;
		esac
		# A chip step's job outlives the command killed: its end
		# first, before the workspace it writes in goes.
		job=$(sed -n 's/^calops: chip step: job \([^ ]*\) on .*/\1/p' \
		    "$T/err")
		[ -n "$job" ] && "$CALOPS" tail --from 1 --follow -- "$job" \
		    >/dev/null 2>&1
		"$CALOPS" release status "$W" >"$T/out" 2>"$T/err"
		[ -L "$R/.current.tmp" ] &&
			fail "$action $fault: a temporary link was left"
		invariant "$action $fault"
		case $fault in
		kill-after-lock|kill-after-verify|kill-after-chip-*|\
		fail-write|fail-fsync-log)
			[ "$(records)" -eq "$n" ] && [ "$(current)" = \
			    generations/2 ] ||
				fail "$action $fault: not as it was" ;;
		*)
			[ "$(records)" -eq $((n + 1)) ] ||
				fail "$action $fault: the record is lost" ;;
		esac
		# Killed once its chip step's marker was written and before
		# its record: it stays until recover signs the refusal
		# (release.md §2); killed after the record, it goes.
		case "$action $fault" in
		*" kill-after-chip-"*|"promote kill-after-verify")
			[ -e "$R/promote-pending.json" ] ||
				fail "$action $fault: no marker left"
			"$CALOPS" release recover "$W" --key "$T/ops.pem" \
			    >"$T/out" 2>&1 || fail "$action $fault: recover:" \
			    "$(cat "$T/out")"
			[ "$(member action)" = refused ] &&
			    [ "$(records)" -eq $((n + 1)) ] &&
			    [ ! -e "$R/promote-pending.json" ] ||
				fail "$action $fault: not recovered: $(last)"
			invariant "$action $fault, recovered" ;;
		*)
			[ -e "$R/promote-pending.json" ] &&
				fail "$action $fault: a marker was left" ;;
		esac
	done
done

# A roll-forward to a target that no longer verifies leaves current.
fresh
{ CALOPS_RELEASE_FAULT=kill-after-append "$CALOPS" release rollback "$W" \
    --key "$T/ops.pem" --confirm 1 >/dev/null 2>&1 </dev/null; } 2>/dev/null
echo ' ' >>"$R/generations/1/release-manifest.json"
run 1 release status "$W"
said "cannot: .*'current' left as it is"
[ "$(current)" = generations/2 ] || fail "rolled forward to a tampered one"

# ---- the example a newcomer tries (share/examples/README.md) ----
# The key and the examples are the generator's, byte for byte.
mkdir "$T/gen"
python3 "$TOP/share/examples/mkworkspace.py" --all "$T/gen" >/dev/null ||
	fail "mkworkspace.py --all"
for d in complete midproject labdemo keys; do
	diff -r "$T/gen/$d" "$TOP/share/examples/$d" >"$T/out" 2>&1 ||
		fail "share/examples/$d is not what mkworkspace.py writes:" \
		    "$(head -20 "$T/out")"
done
cp -a "$EXAMPLE" "$T/try"
W=$T/try
R=$W/08-release
KEY=$TOP/share/examples/keys/mei.chen.pem
run 0 release rollback "$W" --key "$KEY" --confirm 1
[ "$(member key_id)" = mei.chen ] || fail "the example key: $(last)"
run 0 release promote "$W" 2 --key "$KEY" --confirm 2 \
    --no-chip-step --reason "tried without a lab"
run 0 release audit "$W"
said '4 records, the chain verifies'
invariant "the example"

# Nothing signed yet: status says none in words for current and the
# candidate (never -1 or a missing line).
cp -a "$EXAMPLE" "$T/norel"
rm -rf "$T/norel/08-release/current" "$T/norel/08-release/generations" \
    "$T/norel/08-release/audit.jsonl"
mkdir "$T/norel/08-release/generations"
run 1 release status "$T/norel"
said '^current: +none: '
said '^candidate: +none$'

# ---- the chip step on an SSH host (share/sshlab.sh) ----
# The same promote, its chip step run over SSH on a loopback lab host whose
# lab file names this workspace: passed, with its record; and killed right
# after the job started and right after it ended, which changes nothing.
# In a subshell: skipped (77) where sshd cannot run here.
ssh_chip_step() {
	local fault job sum
	SRC=$TOP
	say() { echo "release_test: $*"; }
	skip() { echo "release_test: the SSH host skipped: $*"; exit 77; }
	. "$TOP/tests/remote/lib.sh"
	sshlab_prereqs
	lab_up 1 || { echo "release_test: FAIL: sshlab: $LAB_LOG"; exit 1; }
	fresh
	with_gen3
	lab_on_host1 "$T/sshlab.yaml" "$W"
	run 0 release promote "$W" 3 --key "$T/ops.pem" --confirm 3 \
	    --lab "$T/sshlab.yaml" --host host1 --chip 0
	job=$(job_of)
	said "after its chip step \(job $job on host1, chip 0: golden passed"
	sum=$(sha256sum "$R/chip-steps/3-$job/golden.json" | cut -d' ' -f1)
	[ "$(chip_member host)" = host1 ] &&
	    [ "$(chip_member golden_sha256)" = "$sum" ] ||
		fail "the chip step on an SSH host: $(last)"
	invariant "a chip step on an SSH host"
	for fault in kill-after-chip-start kill-after-chip-done; do
		fresh
		with_gen3
		n=$(records)
		{ CALOPS_RELEASE_FAULT=$fault "$CALOPS" release promote "$W" 3 \
		    --key "$T/ops.pem" --confirm 3 --lab "$T/sshlab.yaml" \
		    --host host1 --chip 0 >"$T/out" 2>"$T/err" </dev/null; } \
		    2>/dev/null
		[ $? -eq 137 ] || fail "ssh $fault: not killed: $(cat "$T/err")"
		job=$(job_of)
		[ -n "$job" ] && XDG_STATE_HOME=$L/host1/state "$CALOPS" tail \
		    --from 1 --follow -- "$job" >/dev/null 2>&1
		"$CALOPS" release status "$W" >/dev/null 2>&1
		invariant "ssh $fault"
		[ "$(records)" -eq "$n" ] && [ "$(current)" = generations/2 ] ||
			fail "ssh $fault: not as it was"
		# recover reaches the job's SSH host through the lab file the
		# marker names.
		run 0 release recover "$W" --key "$T/ops.pem"
		said "the chip step \(job $job\) was cut short"
		[ "$(member action)" = refused ] &&
		    [ "$(records)" -eq $((n + 1)) ] ||
			fail "ssh $fault: not recovered: $(last)"
	done
	exit "$failed"
}
( ssh_chip_step )
case $? in
0|77) ;;
*) failed=1 ;;
esac

[ "$failed" -eq 0 ] && echo "release_test: ok"
exit "$failed"
