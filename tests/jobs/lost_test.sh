#!/bin/bash
# lost_test.sh: `calops kill` of a lost job (share/doc/protocol.md §2): a
# supervisor SIGKILLed leaves its tool running, orphaned (it ignores
# SIGPIPE, so its dead pipe does not stop it).  kill stops the tool's
# process group, with SIGTERM or with SIGKILL after the grace, only when
# its pid still has the start time the job recorded, and records the end:
# an end event numbered after the last, the record killed, a follower
# done.  A pid that is another process now, and a tool already gone, are
# refused with words.
#
#	lost_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: lost_test.sh CALOPS_BINARY}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T=$(mktemp -d /tmp/calops-lost-test.XXXXXX)
J=$T/jobs
FAILED=0
START=$(date +%s%3N)
say() { printf 'lost_test: %5d ms: %s\n' $(($(date +%s%3N) - START)) "$*"; }
fail() { say "FAIL: $*"; FAILED=1; }

TOOLS=
cleanup() {
	local p
	for p in $TOOLS; do kill -KILL -- "-$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

. "$(dirname "$0")/lib.sh"

field() {
	$PY -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$1" "$2"
}
state() {
	"$CALOPS" jobs --jobs "$J" --json | $PY -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]:
    if j["id"] == sys.argv[1]:
        print(j["state"])' "$1"
}
state_is() { [ "$(state "$1")" = "$2" ]; }
lines_at_least() { [ "$(wc -l <"$J/$1/events.jsonl")" -ge "$2" ]; }
# alive PID: running, not a zombie nobody reaped
alive() {
	local s
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || return 1
	[ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]
}
gone() { ! alive "$1"; }

# orphan ID TRAPS: a job whose tool ignores TRAPS, its supervisor killed;
# prints the tool's pid.
orphan() {
	"$CALOPS" run --jobs "$J" --id "$1" -- sh -c \
	    "trap '' $2; while :; do echo tick; sleep 0.05; done" >/dev/null ||
	    fail "$1: run"
	until_ok 20 lines_at_least "$1" 3
	kill -KILL "$(field "$J/$1/job.json" supervisor_pid)"
	until_ok 20 state_is "$1" lost
	field "$J/$1/job.json" pid
}

say "an orphan that ignores SIGPIPE: SIGTERM to its group, the end recorded"
pid=$(orphan t1 PIPE)
TOOLS="$TOOLS $pid"
alive "$pid" || fail "t1: the orphaned tool is not running"
out=$("$CALOPS" kill t1 --jobs "$J" 2>&1)
rc=$?
[ $rc = 0 ] || fail "t1: kill exited $rc: $out"
case $out in
*"t1 killed (SIGTERM to the process group $pid"*) ;;
*) fail "t1: kill said '$out'" ;;
esac
until_ok 10 gone "$pid"
[ "$(state t1)" = killed ] || fail "t1: state '$(state t1)' after kill"
$PY - "$J/t1/events.jsonl" <<'EOF' || fail "t1: events"
import json, sys
raw = open(sys.argv[1], "rb").read()
assert raw.endswith(b"\n"), "the last line has no LF"
evs = [json.loads(l) for l in raw.split(b"\n")[:-1]]
assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1)), "seqs"
assert evs[-1]["type"] == "end" and evs[-1]["signal"] == 15, evs[-1]
assert sum(e["type"] == "end" for e in evs) == 1, "one end"
EOF
timeout 20 "$CALOPS" tail t1 --jobs "$J" --follow >/dev/null ||
    fail "t1: tail --follow of the killed job exited $?"

say "an orphan that ignores SIGTERM too: SIGKILL after the grace"
pid=$(orphan t2 "PIPE TERM")
TOOLS="$TOOLS $pid"
out=$("$CALOPS" kill t2 --grace 0.3 --jobs "$J" 2>&1)
rc=$?
[ $rc = 0 ] || fail "t2: kill exited $rc: $out"
case $out in
*"SIGKILL after the grace"*) ;;
*) fail "t2: kill said '$out'" ;;
esac
until_ok 10 gone "$pid"
[ "$(field "$J/t2/job.json" signal)" = 9 ] || fail "t2: signal not 9"

say "two kills at once: one stops it and records the end, the other says so"
pid=$(orphan t4 "PIPE TERM")
TOOLS="$TOOLS $pid"
"$CALOPS" kill t4 --grace 0.3 --jobs "$J" >"$T/k1" 2>&1 &
k1=$!
"$CALOPS" kill t4 --grace 0.6 --jobs "$J" >"$T/k2" 2>&1 ||
    fail "t4: a kill exited $?: $(cat "$T/k2")"
wait "$k1" || fail "t4: a kill exited $?: $(cat "$T/k1")"
$PY - "$J/t4/events.jsonl" "$J/t4/job.json" <<'EOF' || fail "t4: two kills"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
rec = json.load(open(sys.argv[2]))
ends = [e for e in evs if e["type"] == "end"]
assert len(ends) == 1, "%d end events" % len(ends)
assert ends[0]["signal"] == rec["signal"] == 9, (ends[0], rec["signal"])
assert rec["state"] == "killed"
EOF
grep -q "killed (SIGKILL after the grace" "$T/k1" "$T/k2" ||
    fail "t4: neither kill says what it did: $(cat "$T/k1" "$T/k2")"
until_ok 10 gone "$pid"

say "the tool gone, a child of it in its group lives on: the group is stopped"
"$CALOPS" run --jobs "$J" --id t5 -- sh -c "trap '' PIPE
	sh -c 'trap \"\" PIPE; echo \$\$ >$T/child; while :; do echo c; sleep 0.05; done' &
	while [ ! -e $T/go5 ]; do echo p; sleep 0.05; done" >/dev/null ||
    fail "t5: run"
until_ok 20 test -s "$T/child"
child=$(cat "$T/child")
TOOLS="$TOOLS $child"
kill -KILL "$(field "$J/t5/job.json" supervisor_pid)"
until_ok 20 state_is t5 lost
leader=$(field "$J/t5/job.json" pid)
touch "$T/go5"
until_ok 10 gone "$leader"
alive "$child" || fail "t5: the child is not running"
out=$("$CALOPS" kill t5 --jobs "$J" 2>&1) || fail "t5: kill exited $?: $out"
until_ok 10 gone "$child"
[ "$(state t5)" = killed ] || fail "t5: state '$(state t5)' after kill"

say "a pid that is another process now: not signalled"
pid=$(orphan t3 PIPE)
TOOLS="$TOOLS $pid"
$PY - "$J/t3/job.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["pid_start"] = r["pid_start"].split(":")[0] + ":1"
json.dump(r, open(sys.argv[1], "w"))
EOF
out=$("$CALOPS" kill t3 --jobs "$J" 2>&1)
rc=$?
[ $rc = 1 ] || fail "t3: kill exited $rc: $out"
case $out in
*"pid $pid is another process now"*) ;;
*) fail "t3: kill said '$out'" ;;
esac
alive "$pid" || fail "t3: the process was signalled"
[ "$(state t3)" = lost ] || fail "t3: state '$(state t3)'"
kill -KILL -- "-$pid"
until_ok 10 gone "$pid"

say "a tool already gone: nothing to stop"
out=$("$CALOPS" kill t3 --jobs "$J" 2>&1)
rc=$?
[ $rc = 1 ] || fail "t3 again: kill exited $rc: $out"
case $out in
*"nothing to stop"*) ;;
*) fail "t3 again: kill said '$out'" ;;
esac

[ "$FAILED" = 0 ] && say "PASS"
exit "$FAILED"
