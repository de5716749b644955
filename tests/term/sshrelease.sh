# sshrelease.sh: approvals over a transport (share/doc/release.md §5) on a
# loopback lab of real sshd (share/sshlab.sh): the complete example on
# host1, at a path a shell would misread in every way, its Release screen
# in a console whose lab has no local host.  The private key stays here:
# the console reads the state there (release status|audit --json), holds
# the lock there (release apply --hold) while its owner decides, signs the
# record here and sends it on that command's stdin.
#
#  1. The Release screen shows host1's generations and audit chain.
#  2. An approval left with Esc lets go of the lock on host1 at once: a
#     headless approval there is not refused.
#  3. A rollback with the typed number and the key moves `current` on
#     host1, appends one record that host1's own `calops release audit`
#     verifies, and the board is evaluated again there.
#  4. `calops run-gate` runs G6's command of the lab file's gates: map
#     there, in that workspace.
#  5. No command in the workspace's path ran.
#
# Skipped (77) without tmux, sshd, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs

lab_up 1 cleanup || fail "the lab did not start: $LAB_LOG"

odd=$'rel \'q\' "dq" $(touch pwned); x\nline2'
WS=$L/host1/$odd
cp -a "$COMPLETE" "$WS" || fail "cannot copy the complete example"
REL=$WS/08-release
lab_on_host1 "$TMP/lab.yaml" "$WS" 'gates:
  G6: [sh, -c, "pwd > g6-remote.out"]
'
mkdir -p "$TMP/config/calops"
printf 'release_key: %s\nrelease_actor: Remote Owner\n' \
    "$SRC/share/examples/keys/mei.chen.pem" >"$TMP/config/calops/config.yaml"
[ -e "$HOME/pwned" ] && fail "$HOME/pwned exists before the test"

start
launch "$TMP/lab.yaml"
WAIT_SECS=60 wait_for "RELEASED"

# ---- 1. host1's release ----
keys 9
WAIT_SECS=30 wait_for "chain intact"
expect "on host1"
expect "current candidate"

# ---- 2. an approval given up lets go of the lock there ----
keys b
WAIT_SECS=30 wait_for "type 1 to roll back to generation 1"
expect "ROLL BACK: generation 2"
keys Escape
wait_for "cancelled: nothing signed"
ok=
for i in $(seq 1 100); do
	out=$("$CALOPS" release apply "$WS" --hold 1 --json </dev/null 2>&1)
	case $out in *'"result":"locked"'*) sleep 0.1 ;; *) ok=1; break ;; esac
done
[ -n "$ok" ] || fail "host1's lock is still held after Esc: $out"
[ "$(wc -l <"$REL/audit.jsonl")" = 2 ] || fail "Esc appended a record"

# ---- 3. the rollback, signed here, acted on there ----
keys b
WAIT_SECS=30 wait_for "type 1 to roll back to generation 1"
send_text 1
keys Enter
wait_for "approver's key (Enter:"
keys Enter
wait_for "why, for the audit log"
send_text "over ssh"
keys Enter
WAIT_SECS=30 wait_for "rolled back: 'current' now points to"
[ "$(readlink "$REL/current")" = generations/1 ] ||
	fail "current on host1 is $(readlink "$REL/current")"
[ "$(wc -l <"$REL/audit.jsonl")" = 3 ] ||
	fail "the rollback did not append exactly one record"
tail -1 "$REL/audit.jsonl" | grep -q '"actor":"Remote Owner","key_id":"mei.chen","action":"rollback","from":2,"to":1,"reason":"over ssh"' ||
	fail "the record is not the rollback: $(tail -1 "$REL/audit.jsonl")"
"$CALOPS" release audit "$WS" >/dev/null ||
	fail "host1's chain does not verify: $("$CALOPS" release audit "$WS")"
WAIT_SECS=30 wait_re "current 1 · candidate 2"

# ---- 4. a gate's own command there, headless (issue 13) ----
id=$("$CALOPS" run-gate "$TMP/lab.yaml" G6 2>"$TMP/rg.err") ||
	fail "run-gate on host1: $(cat "$TMP/rg.err")"
for i in $(seq 1 300); do
	[ -s "$WS/g6-remote.out" ] && break
	sleep 0.1
done
[ "$(cat "$WS/g6-remote.out" 2>/dev/null)" = "$WS" ] ||
	fail "G6's command did not run in host1's workspace ($id)"

# ---- 5. nothing the path spells ran ----
find "$L" "$TMP" "$HOME" -maxdepth 3 -name pwned 2>/dev/null | grep -q . &&
	fail "a command in the workspace's path ran"
quit_calops
finish
