# release.sh: the release owner at the Release screen (share/doc/
# release.md §2, §5) on a copy of the complete example, with the example
# approver's key re-encrypted under a passphrase and named by the config's
# release_key.  A wrong typed number cancels and a key that is not trusted
# is refused (another asked for), each with nothing appended and the lock
# let go; a rollback
# with the number, the default key and its passphrase (never on screen)
# moves `current` and appends one record; while this console holds the
# lock for a promote, a second console is refused at once and told who
# holds it; then the promote goes through, after its chip step: typed as
# every chip-disturbing job is, golden streaming on the screen, the record
# carrying the result's hash.  Mid chip step, Q, :q and ^C are refused; a
# console killed then leaves the chip step marked, said on the Release
# screen, and `calops release recover` signs its refusal.  Every record
# the console signed is checked by `calops release audit` and by openssl.
. "$(dirname "$0")/lib.sh"

copy_ws "$COMPLETE"
REL=$WS/08-release
PASS=tr0ub4dor-horse
openssl pkey -in "$SRC/share/examples/keys/mei.chen.pem" -aes256 \
    -passout "pass:$PASS" -out "$TMP/approver.pem" 2>/dev/null ||
    fail "cannot encrypt the example key"
# In the pane's home folder: its path is typed from "~/" (Tab, below).
mkdir -p "$TMP/home"
openssl genpkey -algorithm ed25519 -out "$TMP/home/stranger.pem" 2>/dev/null ||
    fail "cannot make a stranger's key"
mkdir -p "$TMP/config/calops"
printf 'release_key: %s\nrelease_actor: Ada Owner\n' "$TMP/approver.pem" \
    >"$TMP/config/calops/config.yaml"

records() {
	wc -l <"$REL/audit.jsonl" | tr -d ' '
}

current_is() {
	[ "$(readlink "$REL/current")" = "generations/$1" ] ||
	    fail "current is $(readlink "$REL/current"), not generations/$1"
}

# lock_let_go WHAT: wait (WAIT_SECS) until no process holds the release
# lock: a cancelled approval's command is signalled, and lets its lock go
# when it has ended, which a loaded machine can delay past the next key.
lock_let_go() {
	until_true flock -n "$REL/.lock" true ||
		fail "$1: the release lock is still held: $(cat "$REL/.lock")"
}

# logged N CURRENT WHAT: the log holds N records and current points to
# generation CURRENT, else WHAT failed.
logged() {
	[ "$(records)" = "$1" ] || fail "$3 ($(records) records, not $1)"
	current_is "$2"
}

# last_record ERE WHAT: the log's last record matches ERE, else WHAT is
# not what it says.
last_record() {
	tail -1 "$REL/audit.jsonl" | grep -Eq "$1" ||
	    fail "$2: $(tail -1 "$REL/audit.jsonl")"
}

# pane_calops ARG...: calops with the pane's state, cache and config (its
# jobs, its hash cache), from the test.
pane_calops() {
	XDG_STATE_HOME=$TMP/state XDG_CACHE_HOME=$TMP/cache \
	    XDG_CONFIG_HOME=$TMP/config "$CALOPS" "$@"
}

# The runner: the simulator, held open after a golden run for as long as
# $TMP/golden.hold exists, so that the test, not the machine's speed,
# decides when a chip step's golden ends (a loaded machine could finish
# it before the keys the test sends arrive).
cat >"$TMP/held-runner" <<'EOF'
#!/bin/sh
"$@"
rc=$?
for arg; do
	[ "$arg" = golden ] || continue
	while [ -e "$(dirname "$0")/golden.hold" ]; do sleep 0.05; done
done
exit $rc
EOF
chmod +x "$TMP/held-runner"

# The lab: this machine, two chips, the workspace (and `spare`, with no
# workspace, which the chip step's host picker shows and refuses), and the
# simulator as the runner at 20 times real time, so that a promote's chip
# step (golden's 16 cases) streams for a few seconds.
cat >"$TMP/lab.yaml" <<EOF
hosts:
  - {name: spare, transport: local, chips: [0]}
  - {name: local, transport: local, chips: [0, 1]}
workspaces:
  - {host: local, path: $(yaml_str "$WS")}
runner: [$(yaml_str "$TMP/held-runner"), $(yaml_str "$(dirname "$CALOPS")/calrt-sim"), --time-scale, "20"]
EOF

start
launch "$TMP/lab.yaml"
wait_for "RELEASED"
keys 9
wait_for "[9 Release]"
wait_for "chain intact"
expect "current candidate"

# A wrong number: cancelled, nothing signed, the lock let go.
keys b
wait_for "type 1 to roll back to generation 1"
send_text 7
keys Enter
wait_for "cancelled: '7' is not 1"
logged 2 2 "a cancelled rollback appended a record"
lock_let_go "a cancelled rollback"

# A key no trusted-keys/ file matches: refused before anything is signed,
# and another key asked for, as after a path that names no key (issue 30
# (11)); Esc then cancels.  Its path is typed as far as "~/stra" and Tab
# completes it, as a shell does: the refusal names the whole file, the
# '~' read as the home folder; Tab after a path nothing matches says so
# beside it.
keys b
wait_for "type 1 to roll back to generation 1"
send_text 1
keys Enter
wait_for "approver's key (Enter:"
send_text "~/stra"
keys Tab
keys Enter
wait_for "home/stranger.pem' is not one of"
expect "another key (Esc cancels; Enter:"
send_text "$TMP/no-such-k"
keys Tab
wait_for "no match"
send_text "ey.pem"
keys Enter
wait_for "cannot read the key '"
expect "another key (Esc cancels; Enter:"
keys Escape
wait_for "cancelled: nothing signed, nothing changed"
logged 2 2 "a stranger's approval appended a record"
lock_let_go "a cancelled approval"

# The rollback: the number, the config's key, its passphrase unseen.
keys b
wait_for "type 1 to roll back to generation 1"
expect "ROLL BACK: generation 2"
expect "verifies: signed by a trusted key"
send_text 1
keys Enter
wait_for "approver's key (Enter:"
keys Enter
wait_for "(not shown):"
send_text "$PASS"
reject "$PASS"
keys Enter
wait_for "why, for the audit log"
reject "$PASS"
send_text "rolled back from the term test"
keys Enter
# Cut at 80 columns: the status bar points at :messages, which has it whole.
wait_for "rolled back: 'current' now points to"
logged 3 1 "the rollback did not append exactly one record"
last_record '"actor":"Ada Owner","key_id":"mei.chen","action":"rollback","from":2,"to":1,"reason":"rolled back from the term test"' \
    "the record is not the rollback"
keys :
send_text messages
keys Enter
wait_for "'current' now points to generation 1 (was generation 2),"
keys q
wait_for "[9 Release]"
grep -qF "$PASS" "$REL/audit.jsonl" "$REL/.lock" && fail "the passphrase is in a file"

# approve_promote: from the number asked to the chip step's confirmation
# answered: 2, the config's key, its passphrase, the default reason, the
# host and chip picked (local, the workspace's, selected first; chip 1),
# and the chip typed (release.md §6: confirmed as every job that disturbs
# a chip).
approve_promote() {
	send_text 2
	keys Enter
	wait_for "approver's key (Enter:"
	keys Enter
	wait_for "(not shown):"
	send_text "$PASS"
	keys Enter
	wait_for "why, for the audit log"
	keys Enter
	wait_for "Run generation 2's chip step on which host?"
	wait_re "^ [▸] local +up"
	expect_re "^   spare +up .* no workspace"
	pick spare
	wait_for "the lab file names no workspace on host 'spare'"
	pick local
	wait_for "Run generation 2's chip step on which chip of local?"
	wait_re "^ [▸] chip 0 +idle"
	pick "chip 1"
	wait_for "type the chips (1) to start it"
	expect "chip step gen 2 · chip 1"
	send_text 1
	keys Enter
}

# promote_held: p approved, its chip step's golden running and held open
# until $TMP/golden.hold goes.
promote_held() {
	: >"$TMP/golden.hold"
	wait_for "current 1 · candidate 2"
	lock_let_go "the approval before"
	keys p
	wait_for "type 2 to promote to generation 2"
	approve_promote
	wait_re "chip step +.*golden [0-9]+/16"
}

# A promote whose chip step the approver stops (Esc while golden runs):
# its job is killed, and the refusal, cut short, is signed onto the log;
# current stays.  Golden is held open until the approver has stopped it.
promote_held
# Leaving the screen, or the console (Q), would stop the job with no
# refusal signed: the screen stays, saying so, and the chip step goes on.
keys Q
wait_for "chip step running: Esc stops it"
reject "quit? type y"
keys 1
wait_for "chip step running: Esc stops it"
wait_re "chip step +.*golden [0-9]+/16"
# ^C, the way out that never asks, is refused the same way: it too would
# leave the job running with no refusal signed.  (Had it quit, the Esc
# after it would reach the shell, and no refusal would come.)
keys C-c
wait_for "chip step running: Esc stops it"
wait_re "chip step +.*golden [0-9]+/16"
reject "exited"
keys Escape
# The refusal signed: its record on the screen's audit log.  The console's
# word on it may already have given way in the status bar (the record
# starts an evaluation, which may say something of its own): it is in
# :messages.
wait_re "^ #4 .* refused +1 → 2 "
keys :
send_text messages
keys Enter
wait_for "refused, and the refusal is on the audit log"
keys q
wait_re "^ #4 .* refused +1 → 2 "
rm -f "$TMP/golden.hold"
logged 4 1 "the stopped chip step was not refused once"
last_record '"action":"refused","from":1,"to":2,"reason":"the chip step \(job [^)]*\) was cut short: stopped by the approver"' \
    "the stopped chip step's refusal"
[ -e "$REL/promote-pending.json" ] &&
    fail "a chip step that ended in its refusal left its marker"

# The console killed (SIGKILL) while golden runs: nothing can be signed
# then, but the host marked the chip step once its job started
# (release.md §2): the status and the Release screen say so, p is
# refused, and `calops release recover` stops the job and signs the
# refusal.
promote_held
for _ in $(seq 1 200); do
	[ -e "$REL/promote-pending.json" ] && break
	sleep 0.05
done
[ -e "$REL/promote-pending.json" ] || fail "the console's chip step left no marker"
kill -KILL "$(calops_pid)"
wait_exit 137
# Its host side (apply --hold) sees its input end and lets go of the lock.
WAIT_SECS=30 lock_let_go "a killed console's approval"
job=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["promote"]["job"])' \
    "$REL/promote-pending.json")
grep -q '"by":"a console"' "$REL/promote-pending.json" ||
    fail "the marker: $(cat "$REL/promote-pending.json")"
logged 4 1 "a killed console's promote appended a record"
pane_calops release status "$WS" >"$TMP/status" 2>&1 &&
    fail "status exits 0 with a chip step cut short"
grep -q "interrupted: the promote to generation 2 was cut short during its chip step (job $job on local, chip 1" \
    "$TMP/status" || fail "status: $(cat "$TMP/status")"
launch "$TMP/lab.yaml"
wait_for "RELEASED"
keys 9
wait_for "cut short: the chip step of the promote to 2 (job $job"
keys p
in_messages "promote to generation 2 was cut short"
pane_calops release recover "$WS" --key "$SRC/share/examples/keys/mei.chen.pem" \
    --lab "$TMP/lab.yaml" >"$TMP/recover" 2>&1 ||
    fail "recover: $(cat "$TMP/recover")"
rm -f "$TMP/golden.hold"
logged 5 1 "recover did not sign one refusal"
last_record "\"action\":\"refused\",\"from\":1,\"to\":2,\"reason\":\"the chip step \\(job $job\\) was cut short: the console was killed\"" \
    "the killed console's refusal"
pane_calops jobs --json | python3 -c 'import json,sys
j = [j for j in json.load(sys.stdin)["jobs"] if j["id"] == sys.argv[1]]
assert j and j[0]["state"] != "running", j' "$job" ||
    fail "recover left the killed console's job $job running"
keys R
wait_gone "cut short: the chip step of the promote"

# A promote holds the lock while its owner decides: a second console is
# refused at once, and told who holds it.  (The state is read again after
# the switch: p acts on what the screen shows.)
wait_for "current 1 · candidate 2"
keys p
wait_for "type 2 to promote to generation 2"
expect "bindings match today's artifacts"
ON=second
second "$WS"
wait_for "RELEASED"
keys 9
wait_for "chain intact"
keys p
wait_for "locked by Ada Owner"
ON=test
# The chip step: golden's progress streams on the Release screen; the
# record carries the host, the chip, the job and the result's hash.
approve_promote
wait_for "[9 Release]"
wait_re "chip step +.*golden [0-9]+/16"
wait_for "promoted: 'current' now points to" 60
logged 6 2 "the promote did not append exactly one record"
last_record '"action":"promote","from":1,"to":2,"reason":"promote to generation 2","chip_step":\{"host":"local","chip":1,"job":"[^"]+","golden_sha256":"[0-9a-f]{64}","result":"pass"\}' \
    "the promote's record has no chip step"
job=$(tail -1 "$REL/audit.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["chip_step"]["job"])')
sum=$(sha256sum "$REL"/chip-steps/2-"$job"/golden.json | cut -d' ' -f1)
last_record "\"golden_sha256\":\"$sum\"" \
    "golden_sha256 is not the result file's ($sum)"
# Generation 2's observation window keeps 1, which it replaced.
wait_re "1 kept until [0-9-]+ [0-9:]+ "

# A target that does not verify (its manifest one byte off its signature):
# said before anything is typed; the number, the key and its passphrase
# sign a refusal, which goes on the log; current stays.
sed -i 's/"generation": 1,/"generation":  1,/' \
    "$REL/generations/1/release-manifest.json"
wait_for "current 2 · candidate 2"
keys R
wait_re "1 kept until [0-9-]+ [0-9:]+ .*✘"
lock_let_go "the promote"
keys b
wait_for "does not verify"
send_text 1
keys Enter
wait_for "approver's key (Enter:"
keys Enter
wait_for "(not shown):"
send_text "$PASS"
keys Enter
wait_for "the refusal is on the audit log"
logged 7 2 "the refusal was not logged once"
last_record '"action":"refused","from":2,"to":1,' \
    "the last record is not the refusal"

# Independent checks: the chain, and each signature the console made.
"$CALOPS" release audit "$WS" >/dev/null ||
    fail "the chain does not verify: $("$CALOPS" release audit "$WS")"
openssl pkey -in "$SRC/share/examples/keys/mei.chen.pem" -pubout \
    -out "$TMP/pub.pem" 2>/dev/null || fail "cannot take the public key"
for n in 3 4 5 6 7; do
	line=$(sed -n "${n}p" "$REL/audit.jsonl")
	printf '%s}' "${line%%,\"sig\":*}" >"$TMP/signed"
	sig=${line##*\"sig\":\"}
	printf '%s' "${sig%\"\}}" | base64 -d >"$TMP/sig"
	openssl pkeyutl -verify -pubin -inkey "$TMP/pub.pem" -rawin \
	    -in "$TMP/signed" -sigfile "$TMP/sig" >/dev/null 2>&1 ||
	    fail "openssl does not verify record $n"
done
# The headless command asks the passphrase on the terminal without echo:
# ^C there leaves the terminal as it was (echo on), and nothing changed.
keys Q
wait_exit 0
# (A shell that survives the ^C reads the terminal's modes right after:
# bash's own prompt would set them again.)
cat >"$TMP/interrupted.sh" <<EOF
trap : INT
$(printf '%q' "$CALOPS") release rollback $(printf '%q' "$WS") \
    --key $(printf '%q' "$TMP/approver.pem") --confirm 1
echo "status \$?"
stty -a >$(printf '%q' "$TMP/stty")
echo "modes read"
EOF
run "sh $(printf '%q' "$TMP/interrupted.sh")"
wait_for "Passphrase for"
keys C-c
wait_for "modes read"
grep -q '[^-]echo ' "$TMP/stty" ||
    fail "^C at the passphrase left the terminal without echo: $(cat "$TMP/stty")"
logged 7 2 "an interrupted rollback appended a record"
finish
