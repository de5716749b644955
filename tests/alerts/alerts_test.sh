#!/bin/bash
# alerts_test.sh: `calops alerts LAB` with real processes (issue 32,
# share/doc/alerts.md):
#
#  1. On a local lab whose workspace is a copy of labdemo (G9 red: no
#     soak), with only a hook (every default rule): the hook appends each
#     alert to a file and curl posts it to a small HTTP receiver on
#     127.0.0.1; gate.red on G9 fires once into both, with the alert's id,
#     its labels and a startsAt, and the journal says it was sent.
#  2. A second `calops alerts` on the same state folder says who sends
#     (as --journal does) and waits.
#  3. The first SIGKILLed, the second takes over and sends nothing again;
#     a simulated 24 h soak then turns G9 green and the resolution arrives
#     once, with the same id; `calops alerts --journal --json` shows it ended.
#  4. With an empty state folder, a leaking soak started on the host by
#     `calops run` directly (no console, no calops alerts started it) is
#     listed, adopted and judged: leak fires for it.
#  5. A job started the same way that exits 3 fires job.failed once; one
#     that had failed before calops alerts started does not.
#  6. The lock changing hands: a second calops alerts waits; a job that
#     fails while it waits is told once, by the first (the second keeps
#     it, and does not tell it again); the first stopped
#     (SIGSTOP: it holds the lock, hears nothing), a job fails, the second
#     keeps it; the first SIGKILLed, the second takes over and tells it,
#     once, and not the one the first told.
#  7. A gate that changes while no process sends is told once: with a
#     gate.changed rule, the first journals the gates' baseline (G9
#     red); stopped (SIGSTOP) while a soak turns G9 green, then SIGKILLed,
#     the second takes over and tells "G9 went from fail to pass" once;
#     stopped, the soak's evidence removed (G9 red again) and started
#     again, calops alerts tells "from pass to fail" once; nothing else.
#  8. On a loopback SSH lab (share/sshlab.sh; skipped without sshd), a
#     host dropped with `sshlab.sh down` for longer than for: fires
#     host.down, and brought back `up` resolves it, once each.
#
#	alerts_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: alerts_test.sh CALOPS_BINARY}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
SIM=$(dirname "$CALOPS")/calrt-sim
LABSH=$SRC/share/sshlab.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
FAILED=0
START=$(date +%s%3N)
say() { printf 'alerts_test: %5d ms: %s\n' $(($(date +%s%3N) - START)) "$*"; }
fail() { say "FAIL: $*"; FAILED=1; }
skip() { say "SKIP: $*"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/calops alerts test.XXXXXX")
PIDS=()
SSHLAB=
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	if [ -n "$SSHLAB" ]; then
		sh "$LABSH" stop "$SSHLAB" >/dev/null 2>&1
		rm -rf "$SSHLAB"
	fi
	rm -rf "$T"
}
trap cleanup EXIT

# wait_for SECONDS COMMAND...: until the command succeeds, or fail.
wait_for() {
	local t=$(($(date +%s) + $1))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -ge "$t" ] && return 1
		sleep 0.1
	done
}
count() {
	local n
	n=$(grep -c -- "$2" "$1" 2>/dev/null)
	echo "${n:-0}"
}
has() { [ "$(count "$1" "$2")" -ge "${3:-1}" ]; }

# The receiver: every POST body appended to a file, a line each.
cat >"$T/receiver.py" <<'EOF'
import http.server, sys
out, portfile = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(out, "ab") as f:
            f.write(body + b"\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(portfile + ".tmp", "w") as f:
    f.write(str(s.server_port))
import os
os.rename(portfile + ".tmp", portfile)
s.serve_forever()
EOF
"$PY" "$T/receiver.py" "$T/received" "$T/port" &
PIDS+=($!)
wait_for 20 test -s "$T/port" || { fail "the receiver did not start"; exit 1; }
URL=http://127.0.0.1:$(cat "$T/port")/hook

mkdir -p "$T/state"
export XDG_STATE_HOME=$T/state
cp -a "$SRC/share/examples/labdemo" "$T/ws"
# The hook: the alert appended to a file, then posted by curl.
cat >"$T/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0, 1]}
workspaces:
  - {host: local, path: "$T/ws"}
runner: ["$SIM", --time-scale, "3000"]
alerts:
  hook: [sh, -c, 'tee -a "\$0" | curl -sf --data-binary @- "\$1"',
         "$T/hooked", "$URL"]
EOF

# run_alerts [LAB OUT]: calops alerts on LAB (lab.yaml), its output
# appended to OUT (alerts.out); its pid in ALERTS.
run_alerts() {
	"$CALOPS" alerts "${1:-$T/lab.yaml}" >>"${2:-$T/alerts.out}" 2>&1 &
	ALERTS=$!
	PIDS+=($ALERTS)
}
# standby LAB OUT: a second calops alerts on LAB, its output in OUT, that
# says who sends and waits; its pid in STANDBY.
standby() {
	"$CALOPS" alerts "$1" >"$2" 2>&1 &
	STANDBY=$!
	PIDS+=($STANDBY)
	wait_for 20 grep -q "alerts sent by calops alerts, pid $ALERTS" "$2" ||
		fail "a second calops alerts does not say who sends: $(cat "$2")"
}
# take_over OUT: the one that sends SIGKILLed, the standby (its output in
# OUT) sends.
take_over() {
	kill -KILL "$ALERTS"
	wait "$ALERTS" 2>/dev/null
	ALERTS=$STANDBY
	wait_for 20 grep -q "this calops alerts sends alerts" "$1" ||
		fail "the second did not take over: $(cat "$1")"
}

# 1. gate.red fires once, into the file and the receiver.
run_alerts
wait_for 60 has "$T/received" '"alertname":"gate.red"' ||
	fail "gate.red did not reach the receiver: $(cat "$T/alerts.out")"
has "$T/hooked" '"status":"firing"' || fail "the hook's file has no firing"
ID=$(grep -o '"fingerprint":"[0-9a-f]*"' "$T/received" | head -1 |
    cut -d'"' -f4)
[ ${#ID} = 16 ] || fail "no 16-digit id in what was received"
grep -q '"gate":"G9"' "$T/received" || fail "the alert does not name G9"
grep -q '"startsAt":"20' "$T/received" || fail "no startsAt"
sent_ok() {
	"$CALOPS" alerts --journal --json >"$T/journal.json" 2>/dev/null
	grep -q '"sent": true' "$T/journal.json"
}
wait_for 20 sent_ok || fail "the journal does not show the alert sent"
say "1. gate.red $ID fired into the hook's file and the receiver"

# 2. One sender a state folder: a second calops alerts says who sends
# and waits; so does --journal.
standby "$T/lab.yaml" "$T/second.out"
"$CALOPS" alerts --journal >"$T/journal.txt"
grep -q "^(alerts sent by calops alerts, pid $ALERTS)$" "$T/journal.txt" ||
	fail "--journal does not say who sends: $(tail -1 "$T/journal.txt")"
"$CALOPS" alerts --journal --json | grep -q "\"pid\": $ALERTS" ||
	fail "--journal --json does not say who sends"
say "2. a second calops alerts on the state folder waits, and says who sends"

# 3. SIGKILL: the second takes over, sending nothing twice and the
# resolution once.
take_over "$T/second.out"
"$SIM" stress --workspace "$T/ws" --duration 24h --time-scale 0 \
    --chips 0-1 >"$T/sim.out" 2>&1 || fail "the simulated soak failed"
wait_for 60 has "$T/received" '"status":"resolved"' ||
	fail "no resolution: $(cat "$T/alerts.out")"
[ "$(count "$T/received" '"status":"firing"')" = 1 ] ||
	fail "the firing was sent $(count "$T/received" '"status":"firing"') times"
[ "$(count "$T/received" '"status":"resolved"')" = 1 ] ||
	fail "the resolution was sent more than once"
grep '"status":"resolved"' "$T/received" | grep -q "\"fingerprint\":\"$ID\"" ||
	fail "the resolution's id is not the firing's"
"$CALOPS" alerts --journal --json >"$T/journal.json"
grep -q '"ongoing": false' "$T/journal.json" ||
	fail "the journal does not show the alert ended"
say "3. taken over after SIGKILL: nothing twice, resolved once"
kill "$ALERTS"
wait "$ALERTS" 2>/dev/null

# 4. A soak no console started: listed on its host, adopted, judged.
mkdir -p "$T/state4"
export XDG_STATE_HOME=$T/state4
export CALOPS_JOBS_DIR=$T/hostjobs
cat >"$T/lab4.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0, 1]}
workspaces:
  - {host: local, path: "$T/ws"}
runner: ["$SIM"]
alerts:
  hook: [sh, -c, 'cat >> "\$0"; echo >> "\$0"', "$T/hooked4"]
  rules:
    - {kind: leak}
    - {kind: job.failed}
EOF
"$CALOPS" run --id old-failure -- sh -c 'exit 4' >/dev/null 2>&1
old_ended() { "$CALOPS" jobs --json | grep -q '"state": *"failed"'; }
wait_for 20 old_ended || fail "the old failing job did not end"
run_alerts "$T/lab4.yaml" "$T/alerts4.out"
"$CALOPS" run --id outside-soak -- "$SIM" --time-scale 900 stress \
    --calbin "$T/ws/05-calbin/package" --duration 90m --chips 0-1 \
    --leak-rate 4e9 --run outside >"$T/run4.out" 2>&1 ||
	fail "calops run could not start the soak: $(cat "$T/run4.out")"
wait_for 90 has "$T/hooked4" '"alertname":"leak"' ||
	fail "leak did not fire for the outside soak: $(cat "$T/alerts4.out")"
grep '"alertname":"leak"' "$T/hooked4" | grep -q '"job":"outside-soak"' ||
	fail "the leak alert does not name the outside soak"
say "4. a soak started by calops run on the host: adopted, leak fired"

# 5. A job started the same way that fails: job.failed, once.
"$CALOPS" run --id outside-fail -- sh -c 'exit 3' >/dev/null 2>&1
# (the whole line: the hook writes it in pieces)
failed_line() {
	grep '"alertname":"job.failed"' "$T/hooked4" 2>/dev/null |
	    grep -q '"job":"outside-fail".*exit 3'
}
wait_for 60 failed_line ||
	fail "no job.failed with exit 3: $(cat "$T/alerts4.out")"
# A second failure fires once it is listed, a listing that lists the
# first again: still once for it, and never for the job that had failed
# before calops alerts started.
"$CALOPS" run --id outside-fail2 -- sh -c 'exit 5' >/dev/null 2>&1
wait_for 60 has "$T/hooked4" 'exit 5' ||
	fail "job.failed did not fire for the second failure"
[ "$(count "$T/hooked4" '"job":"outside-fail"')" = 1 ] ||
	fail "job.failed fired $(count "$T/hooked4" '"job":"outside-fail"') times"
grep -q 'old-failure' "$T/hooked4" &&
	fail "job.failed fired for a job that had failed before"
say "5. a job started by calops run that exits 3: job.failed, once"

# 6. A job that fails while the lock changes hands is told once.  The
# second tells nothing of a job that ended before it first listed its
# host: probes fail one after another until it keeps one (it has listed
# the host), each told by the first.
standby "$T/lab4.yaml" "$T/standby.out"
PROBES=0
while [ $PROBES -lt 5 ] &&
    ! grep -q "job handover-probe.* kept" "$T/standby.out"; do
	PROBES=$((PROBES + 1))
	"$CALOPS" run --id "handover-probe$PROBES" -- sh -c 'exit 9' \
	    >/dev/null 2>&1
	wait_for 60 has "$T/hooked4" "\"job\":\"handover-probe$PROBES\"" ||
		fail "the first did not tell probe $PROBES"
	wait_for 10 grep -q "job handover-probe$PROBES on local failed: kept" \
	    "$T/standby.out"
done
grep -q "job handover-probe.* kept" "$T/standby.out" ||
	fail "the second kept no job end: $(cat "$T/standby.out")"
kill -STOP "$ALERTS"
"$CALOPS" run --id handover-fail -- sh -c 'exit 7' >/dev/null 2>&1
wait_for 60 grep -q "job handover-fail on local failed: kept" \
    "$T/standby.out" ||
	fail "the second did not keep the failure: $(cat "$T/standby.out")"
take_over "$T/standby.out"
wait_for 60 has "$T/hooked4" '"job":"handover-fail"' ||
	fail "job.failed was lost in the handover: $(cat "$T/standby.out")"
handover_sent() {
	"$CALOPS" alerts --journal 2>/dev/null | grep 'handover-fail' |
	    grep -q ' sent '
}
wait_for 20 handover_sent || fail "the journal does not show it sent"
[ "$(count "$T/hooked4" '"job":"handover-fail"')" = 1 ] ||
	fail "job.failed told $(count "$T/hooked4" '"job":"handover-fail"') times"
for n in $(seq "$PROBES"); do
	[ "$(count "$T/hooked4" "\"job\":\"handover-probe$n\"")" = 1 ] ||
		fail "probe $n told more than once"
done
say "6. a job failed while the lock changed hands: told once"
kill "$ALERTS"
wait "$ALERTS" 2>/dev/null
unset CALOPS_JOBS_DIR

# 7. A gate changed while no process sends is told once.
mkdir -p "$T/state7"
export XDG_STATE_HOME=$T/state7
cp -a "$SRC/share/examples/labdemo" "$T/ws7"
cat >"$T/lab7.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0, 1]}
workspaces:
  - {host: local, path: "$T/ws7"}
alerts:
  hook: [sh, -c, 'cat >> "\$0"; echo >> "\$0"', "$T/hooked7"]
  rules:
    - {kind: gate.red}
    - {kind: gate.changed}
EOF
run_alerts "$T/lab7.yaml" "$T/alerts7.out"
JOURNAL7=$T/state7/calops/alerts/journal.jsonl
wait_for 60 grep -qs '"baseline":\[[^]]*"fail"' "$JOURNAL7" ||
	fail "no baseline journaled: $(cat "$T/alerts7.out")"
wait_for 20 has "$T/hooked7" '"alertname":"gate.red"' ||
	fail "gate.red did not fire: $(cat "$T/alerts7.out")"
standby "$T/lab7.yaml" "$T/standby7.out"
# The first holds the lock and hears nothing; the second runs no board.
kill -STOP "$ALERTS"
"$SIM" stress --workspace "$T/ws7" --duration 24h --time-scale 0 \
    --chips 0-1 --run handover >"$T/sim7.out" 2>&1 ||
	fail "the simulated soak failed: $(tail -3 "$T/sim7.out")"
take_over "$T/standby7.out"
wait_for 60 has "$T/hooked7" 'G9 went from fail to pass' ||
	fail "the change in the handover was not told: $(cat "$T/standby7.out")"
wait_for 20 has "$T/hooked7" '"status":"resolved"' ||
	fail "gate.red did not resolve: $(cat "$T/standby7.out")"
all_sent() {
	"$CALOPS" alerts --journal --json >"$T/journal7.json" 2>/dev/null
	! grep -q '"sent": false' "$T/journal7.json"
}
wait_for 20 all_sent || fail "the journal does not show all sent"
kill "$ALERTS"
wait "$ALERTS" 2>/dev/null
[ "$(count "$T/hooked7" 'G9 went from fail to pass')" = 1 ] ||
	fail "the change was told $(count "$T/hooked7" 'G9 went') times"
say "7. G9 turned green in a handover: told once, by the second"
# None runs: G9 red again, then calops alerts started.
rm -rf "$T/ws7/07-serving/soak/handover"
run_alerts "$T/lab7.yaml" "$T/alerts7.out"
wait_for 60 has "$T/hooked7" 'G9 went from pass to fail' ||
	fail "the change while none ran was not told: $(cat "$T/alerts7.out")"
wait_for 20 all_sent || fail "the journal does not show all sent"
kill "$ALERTS"
wait "$ALERTS" 2>/dev/null
[ "$(count "$T/hooked7" '"alertname":"gate.changed"')" = 2 ] ||
	fail "gate.changed told $(count "$T/hooked7" \
	    '"alertname":"gate.changed"') times, not twice: $(cat "$T/hooked7")"
say "7. G9 turned red while none ran: told once, on the restart"
export XDG_STATE_HOME=$T/state

# 8. A host down for longer than for: fires, then resolves.
. "$SRC/tests/remote/lib.sh"
if ! (sshlab_prereqs) >/dev/null 2>&1; then
	say "8. skipped: no loopback SSH lab here"
	exit $FAILED
fi
sshlab_prereqs
SSHLAB=$(mktemp -d "$BASE/calops-alerts-ssh.XXXXXX")
sh "$LABSH" start "$SSHLAB" 1 --calops "$CALOPS" >"$T/sshlab.out" 2>&1 ||
	{ fail "sshlab start: $(cat "$T/sshlab.out")"; exit 1; }
cat >>"$SSHLAB/lab.yaml" <<EOF
alerts:
  hook: [sh, -c, 'cat >> "\$0"; echo >> "\$0"', "$T/sshhooked"]
  rules:
    - {kind: host.down, for: 2}
EOF
mkdir -p "$T/sshstate"
export XDG_STATE_HOME=$T/sshstate
"$CALOPS" alerts "$SSHLAB/lab.yaml" >>"$T/ssh.out" 2>&1 &
ALERTS=$!
PIDS+=($ALERTS)
up_ok() { "$CALOPS" hosts --timeout 5 "$SSHLAB/lab.yaml" >/dev/null 2>&1; }
wait_for 60 up_ok || fail "host1 is not up"
sh "$LABSH" down "$SSHLAB" host1 >/dev/null 2>&1
wait_for 60 has "$T/sshhooked" '"alertname":"host.down"' ||
	fail "host.down did not fire: $(cat "$T/ssh.out")"
sh "$LABSH" up "$SSHLAB" host1 >/dev/null 2>&1
wait_for 120 has "$T/sshhooked" '"status":"resolved"' ||
	fail "host.down did not resolve: $(cat "$T/ssh.out")"
[ "$(count "$T/sshhooked" '"status":"firing"')" = 1 ] ||
	fail "host.down fired more than once"
say "8. host1 down for longer than for: fired, then resolved"
exit $FAILED
