#!/bin/bash
# diskfull.sh: a job's events on a disk that fills, on a real file system
# (share/doc/protocol.md §3, "A full disk"): the jobs folder is a small
# tmpfs, and the test fills it while a tool writes and a `tail --follow`
# reads.
#
#  1. Full for a while, then freed: the lines that came meanwhile wait and
#     are written in order; past the wait's bound they are counted in one
#     gap event; a note says the stream was stalled and one that it
#     resumed; `calops jobs` says "degraded" while it lasts.
#  2. Still full when the tool exits: what waits is counted in a gap, the
#     end event and the final job.json are written all the same (the job
#     is done, not lost).
#  3. Full before a job starts: `calops run` refuses it, saying why, and
#     leaves no folder behind (a job that could not record its end).
#
# Afterwards, in both: every line the tool wrote is an event or counted in
# a gap, the seqs run 1..N, the follower's copy equals events.jsonl byte
# for byte, and job.json's lost_lines is the gaps' sum.
#
# It mounts a file system, so it needs root (CI runs as root); elsewhere it
# is skipped (exit 77).
#
#	diskfull.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: diskfull.sh CALOPS_BINARY}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

if [ "$(id -u)" != 0 ]; then
	echo "diskfull: SKIP: mounting a small file system needs root"
	exit 77
fi
T=$(mktemp -d /tmp/calops-diskfull.XXXXXX)
DISK=$T/disk
mkdir -p "$DISK"
if ! mount -t tmpfs -o size=16m,mode=0700 calops-diskfull "$DISK"; then
	echo "diskfull: SKIP: cannot mount a tmpfs here"
	rm -rf "$T"
	exit 77
fi
J=$DISK/jobs
FAILED=0
START=$(date +%s%3N)
say() { printf 'diskfull: %5d ms: %s\n' $(($(date +%s%3N) - START)) "$*"; }
fail() { say "FAIL: $*"; FAILED=1; }

cleanup() {
	[ -n "${TAILPID:-}" ] && kill "$TAILPID" 2>/dev/null
	pkill -KILL -f "$T/tool.py" 2>/dev/null
	umount "$DISK" 2>/dev/null || umount -l "$DISK"
	rm -rf "$T"
}
trap cleanup EXIT

. "$(dirname "$0")/lib.sh"

fill_disk() { head -c 64M /dev/zero >"$DISK/fill" 2>/dev/null; true; }
free_disk() { rm -f "$DISK/fill"; }

# The tool: PHASES is "count:size ..." lines to write, each phase after the
# test touches go<N> (the first at once); line "<phase>.<i> <padding>".
cat >"$T/tool.py" <<'EOF'
import os, sys, time
t, phases = sys.argv[1], sys.argv[2:]
for p, spec in enumerate(phases):
    n, size = map(int, spec.split(":"))
    while p > 0 and not os.path.exists("%s/go%d" % (t, p)):
        time.sleep(0.02)
    for i in range(n):
        sys.stdout.write("%d.%d %s\n" % (p, i, "x" * size))
    sys.stdout.flush()
    open("%s/wrote%d" % (t, p), "w").close()
EOF

# last_is TYPE ID: the last event of the job is of that type.
last_is() { tail -n 1 "$J/$2/events.jsonl" | grep -q "\"type\":\"$1\""; }
has_event() { grep -q "\"type\":\"$1\"" "$J/$2/events.jsonl"; }
# state_is ID STATE: as `calops jobs --json` has it ("degraded": a running
# job with a degraded member).
state_is() {
	"$CALOPS" jobs --jobs "$J" --json | $PY -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]:
    if j["id"] == sys.argv[1]:
        state = "degraded" if "degraded" in j else j["state"]
        sys.exit(0 if state == sys.argv[2] else 1)
sys.exit(1)' "$1" "$2"
}

# account ID PHASES: every tool line an event or counted, in order.
account() {
	$PY - "$J/$1/events.jsonl" "$J/$1/job.json" "$@" <<'EOF'
import json, sys
events, record, job, phases = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sent = sum(int(p.split(":")[0]) for p in phases)
lines = open(events, "rb").read().split(b"\n")
assert lines[-1] == b"", "the last line has no LF"
evs = [json.loads(l) for l in lines[:-1]]
assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1)), "seqs"
assert evs[0]["type"] == "hello" and evs[-1]["type"] == "end", "hello/end"
assert evs[-1]["exit_code"] == 0 and evs[-1]["state"] == "done", evs[-1]
got, lost, prev = 0, 0, (-1, -1)
for e in evs:
    if e["type"] == "gap":
        assert e["lost"] > 0 and e["since"] <= e["until"], e
        lost += e["lost"]
    elif e["type"] == "log" and e["msg"][:1].isdigit():
        key = tuple(map(int, e["msg"].split(" ")[0].split(".")))
        assert key > prev, "out of order: %r after %r" % (key, prev)
        prev = key
        got += 1
rec = json.load(open(record))
assert rec["state"] == "done", rec["state"]
assert rec["lost_lines"] == lost, (rec["lost_lines"], lost)
assert got + lost == sent, "sent %d, written %d, lost %d" % (sent, got, lost)
print("sent %d lines: %d written, %d lost and counted in %d gap(s); %d events"
      % (sent, got, lost, sum(e["type"] == "gap" for e in evs), len(evs)))
EOF
}

run_job() {
	local id=$1
	shift
	rm -f "$T"/go* "$T"/wrote*
	"$CALOPS" run --jobs "$J" --id "$id" -- "$PY" "$T/tool.py" "$T" "$@" \
	    >/dev/null || { fail "$id: calops run"; return 1; }
	"$CALOPS" tail "$id" --jobs "$J" --follow >"$T/$id.follow" &
	TAILPID=$!
}

finish_job() {
	local id=$1
	shift
	until_ok 60 state_is "$id" done || return
	wait "$TAILPID" || fail "$id: tail --follow exited $?"
	TAILPID=
	cmp -s "$T/$id.follow" "$J/$id/events.jsonl" ||
	    fail "$id: the follower's copy differs from events.jsonl"
	local out
	if out=$(account "$id" "$@" 2>&1); then
		say "$id: $out"
	else
		fail "$id: $out"
	fi
}

# 1. Full for a while, then freed.  Phase 1 small lines; phase 2 12 MB of
# 4 KiB lines while full (8 MiB wait: some are lost); phase 3 after.
P1=2000:20 P2=3000:4000 P3=2000:20
run_job while "$P1" "$P2" "$P3"
until_ok 30 test -e "$T/wrote0"
until_ok 30 grep -q '"0.1999 ' "$J/while/events.jsonl"
fill_disk
touch "$T/go1"
until_ok 30 test -e "$T/wrote1"
until_ok 30 last_is stalled while
until_ok 30 state_is while degraded
"$CALOPS" jobs --jobs "$J" | grep -q 'degraded' ||
    fail "calops jobs does not say degraded"
free_disk
until_ok 30 has_event resumed while
until_ok 30 state_is while running
touch "$T/go2"
finish_job while "$P1" "$P2" "$P3"
has_event gap while || fail "while: no gap event"

# 2. Still full when the tool exits (phase 2 is more than what the events
# file has allocated ahead).
P1=100:20 P2=200:4000
run_job atexit "$P1" "$P2"
until_ok 30 grep -q '"0.99 ' "$J/atexit/events.jsonl"
fill_disk
touch "$T/go1"
finish_job atexit "$P1" "$P2"
has_event gap atexit || fail "atexit: no gap event"
free_disk
[ ! -e "$J/atexit/job.json.last" ] ||
    fail "atexit: the record's reserve is still there"

# 3. No room at the start: the job is refused, and nothing is left behind.
fill_disk
if out=$("$CALOPS" run --jobs "$J" --id noroom -- true 2>&1); then
	fail "noroom: a job started on a full disk"
fi
case $out in
*"No space left on device"*) ;;
*) fail "noroom: run said '$out'" ;;
esac
[ ! -e "$J/noroom" ] || fail "noroom: a job folder was left behind"
ls -A "$J" | grep -q '^\.new-' && fail "noroom: a hidden folder was left behind"
free_disk

[ "$FAILED" = 0 ] && say "PASS"
exit "$FAILED"
