#!/bin/bash
# jobs_test.sh: durable jobs end to end with the real binary (share/doc/protocol.md
# §2): `calops run` returns at once and the job completes; events numbered
# 1..N with hello first and end last; a job outlives its starter's SIGHUP;
# `kill` stops a job within its grace; `tail --from N --follow` started
# mid-run prints each remaining event once; concurrent jobs; a tool writing
# a 10 MB line and binary garbage (and given an argument that is not
# UTF-8) leaves valid JSON lines; a supervisor killed with SIGKILL leaves
# its job "lost".
#
#	jobs_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: jobs_test.sh CALOPS_BINARY}
T=$(mktemp -d /tmp/calops-jobs-test.XXXXXX)
J=$T/jobs
FAILED=0
# Debian's python3 starts in 30 ms; a version manager's shim can take 200.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

START=$(date +%s%3N)
say() { printf 'jobs_test: %5d ms: %s\n' $(($(date +%s%3N) - START)) "$*"; }
fail() { say "FAIL: $*"; FAILED=1; }

# Every job still running at the end is stopped: its tool's process group
# and its supervisor.
cleanup() {
	local pid sup
	$PY - "$J" <<'EOF' 2>/dev/null |
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/job.json"):
	try:
		j = json.load(open(f))
	except ValueError:
		continue
	if j.get("state") == "running":
		print(j.get("pid") or 0, j.get("supervisor_pid") or 0)
EOF
	while read -r pid sup; do
		[ "$pid" != 0 ] && kill -KILL -- "-$pid" 2>/dev/null
		[ "$sup" != 0 ] && kill -KILL "$sup" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT

# field FILE KEY: a member of a JSON file.
field() {
	$PY -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

ms() { date +%s%3N; }

# check_events FILE: every line valid JSON of at most 64 KiB, UTF-8, seq
# 1..N without gaps, hello first, end last.  Prints "N STATE".
check_events() {
	$PY - "$1" <<'EOF'
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
if lines[-1] != b"":
	sys.exit("last line has no LF")
evs = []
for i, raw in enumerate(lines[:-1], 1):
	if len(raw) + 1 > 65536:
		sys.exit("line %d: %d bytes" % (i, len(raw) + 1))
	o = json.loads(raw.decode("utf-8"))
	if o.get("v") != 1 or o.get("seq") != i or not isinstance(o.get("ts"), (int, float)):
		sys.exit("line %d: bad v/seq/ts: %r" % (i, raw[:200]))
	evs.append(o)
if evs[0]["type"] != "hello" or evs[-1]["type"] != "end":
	sys.exit("hello/end misplaced")
if [e["type"] for e in evs].count("end") != 1 or [e["type"] for e in evs].count("hello") != 1:
	sys.exit("more than one hello or end")
print(len(evs), evs[-1].get("state"))
EOF
}

# wait_end ID: until the job's end event (tail --follow exits then).
wait_end() {
	timeout 20 "$CALOPS" tail "$1" --jobs "$J" --follow >/dev/null ||
	    fail "job $1 did not end (tail rc $?)"
}

# wait_lines ID N: until events.jsonl has N lines.
wait_lines() {
	local i
	for i in $(seq 1 200); do
		[ -f "$J/$1/events.jsonl" ] &&
		    [ "$(wc -l <"$J/$1/events.jsonl")" -ge "$2" ] && return 0
		sleep 0.02
	done
	fail "job $1 never had $2 events"
}

# state ID: what `calops jobs --json` says of it.
state() {
	"$CALOPS" jobs --json --jobs "$J" | $PY -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]:
	if j["id"] == sys.argv[1]:
		print(j["state"])' "$1"
}

say "run returns at once; the job completes"
t0=$(ms)
id=$("$CALOPS" run --jobs "$J" -- sh -c 'echo one; sleep 1; echo two >&2; echo "{\"type\":\"metric\",\"values\":{\"x\":1}}"')
rc=$?
t1=$(ms)
[ $rc = 0 ] || fail "run exited $rc"
[ $((t1 - t0)) -lt 900 ] || fail "run took $((t1 - t0)) ms"
[[ $id =~ ^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$ ]] || fail "generated id '$id'"
[ "$(state "$id")" = running ] || fail "job not running right after run"
wait_end "$id"
[ "$(check_events "$J/$id/events.jsonl")" = "5 done" ] || fail "events of $id"
grep -q '"type":"log","level":"warn","msg":"two"' "$J/$id/events.jsonl" ||
    fail "stderr line not a warn log"
grep -q '"type":"metric","values":{"x":1}' "$J/$id/events.jsonl" ||
    fail "the tool's event was not kept"
[ "$(field "$J/$id/job.json" state)" = done ] || fail "job.json not done"
[ "$(field "$J/$id/job.json" exit_code)" = 0 ] || fail "exit code"

say "ids: given, invalid, taken; a command that does not exist"
[ "$("$CALOPS" run --jobs "$J" --id my.job_1 -- true)" = my.job_1 ] ||
    fail "--id"
"$CALOPS" run --jobs "$J" --id my.job_1 -- true 2>/dev/null && fail "id reused"
"$CALOPS" run --jobs "$J" --id .x -- true 2>/dev/null; [ $? = 2 ] ||
    fail "leading dot accepted"
"$CALOPS" run --jobs "$J" --id 'a/b' -- true 2>/dev/null; [ $? = 2 ] ||
    fail "slash accepted"
id=$("$CALOPS" run --jobs "$J" --id nocmd -- /nonexistent/tool 2>/dev/null)
[ $? = 1 ] && [ "$id" = nocmd ] || fail "a missing command"
[ "$(check_events "$J/nocmd/events.jsonl")" = "3 failed" ] ||
    fail "a missing command's events"
"$CALOPS" tail nope --jobs "$J" 2>/dev/null; [ $? = 1 ] || fail "tail unknown"

say "tail --find looks in what the job log shows of each event, summaries too"
"$CALOPS" run --jobs "$J" --id find -- sh -c 'echo hello
echo "{\"type\":\"log\",\"level\":\"warn\",\"msg\":\"oops\"}"
echo "{\"type\":\"metric\",\"chip\":1,\"values\":{\"ttft_ms\":12.5}}"
exit 3' >/dev/null || fail "run find"
wait_end find
# found: the seq of the event, and nothing for what none shows
found() { [ "$("$CALOPS" tail find --jobs "$J" --find "$1")" = "$2" ] ||
    fail "tail --find '$1': '$("$CALOPS" tail find --jobs "$J" --find "$1")'," \
	"not '$2'"; }
found 'OOPS' 3
found 'log warn' 3
found 'job started by' 1
found 'chip 1 ttft_ms=12.5' 4
found 'exit 3' 5
found 'exit_code' ''

say "a job outlives its starter's SIGHUP and ignores SIGHUP itself"
CALOPS=$CALOPS J=$J setsid bash -c \
    '"$CALOPS" run --jobs "$J" --id hup -- sh -c "sleep 0.6; echo survived" >/dev/null; kill -HUP -$$; sleep 5' &
{ wait $!; } 2>/dev/null
wait_lines hup 1
sup=$(field "$J/hup/job.json" supervisor_pid)
kill -HUP "$sup" || fail "supervisor gone after the starter's SIGHUP"
wait_end hup
[ "$(check_events "$J/hup/events.jsonl")" = "3 done" ] || fail "hup events"
grep -q '"msg":"survived"' "$J/hup/events.jsonl" || fail "hup output lost"

say "kill: SIGTERM within the grace; SIGKILL after it"
"$CALOPS" run --jobs "$J" --id k1 -- sleep 100 >/dev/null
# A follower whose reader has gone leaves, even while the job is quiet.
timeout 5 bash -c '"$0" tail k1 --jobs "$1" --from 100 --follow | true' "$CALOPS" "$J" ||
    fail "tail --follow outlived its reader"
t0=$(ms)
out=$("$CALOPS" kill k1 --jobs "$J" --grace 3) || fail "kill exited $?"
t1=$(ms)
[ $((t1 - t0)) -lt 2000 ] || fail "kill took $((t1 - t0)) ms"
[ "$out" = "k1 killed (SIGTERM)" ] || fail "kill said '$out'"
[ "$(check_events "$J/k1/events.jsonl")" = "2 killed" ] || fail "k1 events"
grep -q '"type":"end","state":"killed","signal":15' "$J/k1/events.jsonl" ||
    fail "k1 end event"
"$CALOPS" run --jobs "$J" --id k2 -- sh -c 'trap "" TERM; echo ready; sleep 100' >/dev/null
wait_lines k2 2
out=$("$CALOPS" kill k2 --jobs "$J" --grace 0.3) || fail "kill k2 exited $?"
[ "$out" = "k2 killed (SIGKILL)" ] || fail "kill k2 said '$out'"
[ "$(field "$J/k2/job.json" signal)" = 9 ] || fail "k2 signal"
"$CALOPS" kill k1 --jobs "$J" 2>/dev/null; [ $? = 1 ] || fail "kill twice"
"$CALOPS" kill nope --jobs "$J" 2>/dev/null; [ $? = 1 ] || fail "kill unknown"

say "tail --from N --follow mid-run: the rest, each once (inotify, polling)"
for mode in inotify poll; do
	id=tail-$mode
	"$CALOPS" run --jobs "$J" --id $id -- sh -c 'for i in $(seq 1 40); do echo line $i; sleep 0.02; done' >/dev/null
	wait_lines $id 10
	if [ $mode = poll ]; then
		CALOPS_WATCH_POLL=1 timeout 20 "$CALOPS" tail $id --jobs "$J" \
		    --from 8 --follow >"$T/rest" || fail "tail $mode rc $?"
	else
		timeout 20 "$CALOPS" tail $id --jobs "$J" --from 8 --follow \
		    >"$T/rest" || fail "tail $mode rc $?"
	fi
	"$CALOPS" tail $id --jobs "$J" --from 1 | head -7 >"$T/head"
	cat "$T/head" "$T/rest" | cmp -s - "$J/$id/events.jsonl" ||
	    fail "tail $mode: head + rest differ from events.jsonl"
	[ "$(check_events "$J/$id/events.jsonl")" = "42 done" ] ||
	    fail "$id events"
done
# Past the end: nothing, and --follow does not wait.
[ -z "$(timeout 5 "$CALOPS" tail tail-poll --jobs "$J" --from 43 --follow)" ] ||
    fail "tail past the end"

say "concurrent jobs"
for n in 1 2 3 4; do
	"$CALOPS" run --jobs "$J" --id c$n -- sh -c "for i in \$(seq 1 100); do echo job $n line \$i; done; echo err $n >&2" >/dev/null &
done
wait
for n in 1 2 3 4; do
	wait_end c$n
	[ "$(check_events "$J/c$n/events.jsonl")" = "103 done" ] || fail "c$n events"
	[ "$(grep -c "\"msg\":\"job $n line" "$J/c$n/events.jsonl")" = 100 ] ||
	    fail "c$n lines"
done

say "a 10 MB line and binary garbage: valid JSON lines, bounded memory"
"$CALOPS" run --jobs "$J" --id big -- $PY -c '
import sys, time
o = sys.stdout.buffer
o.write(b"a" * 10000000 + b"\n")
o.write(bytes(b for b in range(256) if b != 10) * 4000 + b"\n")
o.write(b"\xff\xfe\xc3(\x00bad\n")
o.write(b"{\"type\":\"end\"}\n{\"type\":\"progress\",\"seq\":-5}\n")
o.write(b"no newline at the end")
o.flush()
time.sleep(1)' $'caf\xc3\xa9\xff' >/dev/null
sup=$(field "$J/big/job.json" supervisor_pid)
wait_lines big 6
if ! ldd "$CALOPS" 2>/dev/null | grep -q libasan; then
	kb=$(awk '/VmHWM/ { print $2 }' "/proc/$sup/status" 2>/dev/null)
	say "supervisor peak RSS ${kb:-?} kB"
	[ -n "$kb" ] && [ "$kb" -lt 20000 ] ||
	    fail "supervisor peak RSS ${kb:-?} kB"
fi
wait_end big
[ "$(check_events "$J/big/events.jsonl")" = "8 done" ] || fail "big events"
$PY - "$J/big/events.jsonl" <<'EOF' || fail "big: events not as expected"
import json, sys
e = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
# An argument that is not UTF-8 is kept, its bad byte as \xHH, in the
# hello event and in job.json alike.
rec = json.load(open(sys.argv[1].replace("events.jsonl", "job.json")))
assert e[0]["argv"][-1] == "caf\u00e9\\xff", e[0]
assert rec["argv"] == e[0]["argv"], rec
assert e[1]["truncated"] is True and e[1]["msg"].startswith("aaaa"), e[1]
assert e[2]["truncated"] is True and "\\xff" in e[2]["msg"]
assert e[3]["msg"] == "\\xff\\xfe\\xc3(\\x00bad", e[3]
assert e[4]["type"] == "log" and e[4]["msg"] == '{"type":"end"}'
assert e[5]["type"] == "progress" and e[5]["seq"] == 6
assert e[6]["msg"] == "no newline at the end"
EOF

say "a supervisor killed with SIGKILL: events intact, the job lost"
"$CALOPS" run --jobs "$J" --id lost -- sh -c 'echo before; sleep 3; echo after' >/dev/null
wait_lines lost 2
sup=$(field "$J/lost/job.json" supervisor_pid)
kill -KILL "$sup"
sleep 0.1
[ "$(state lost)" = lost ] || fail "state '$(state lost)', not lost"
"$CALOPS" jobs --jobs "$J" | grep -Eq '^lost +lost ' || fail "jobs text"
t0=$(ms)
timeout 10 "$CALOPS" tail lost --jobs "$J" --follow >"$T/lost" 2>/dev/null
rc=$?
[ $rc = 3 ] || fail "tail --follow of a lost job exited $rc"
[ $(($(ms) - t0)) -lt 3000 ] || fail "tail took long to see the job lost"
[ "$(wc -l <"$T/lost")" = 2 ] || fail "lost: events printed"
# Its tool may still be sleeping, orphaned: kill stops it then, or says
# there is nothing to stop (lost_test.sh holds kill of a lost job).
out=$("$CALOPS" kill lost --jobs "$J" 2>&1)
case "$?:$out" in
"0:lost killed (SIGTERM"*|"1:"*"nothing to stop") ;;
*) fail "kill a lost job: $out" ;;
esac

say "a file-size limit: the supervisor lives, lines past it counted, the end written"
(ulimit -f 300
"$CALOPS" run --jobs "$J" --id fsize -- "$PY" -c '
for i in range(20000): print("line %d %s" % (i, "x" * 60))' >/dev/null) ||
    fail "run under ulimit -f"
timeout 60 "$CALOPS" tail fsize --jobs "$J" --follow >/dev/null ||
    fail "fsize: tail --follow exited $?"
"$PY" - "$J/fsize/events.jsonl" "$J/fsize/job.json" <<'EOF' || fail "fsize"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
rec = json.load(open(sys.argv[2]))
assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1)), "seqs"
assert evs[-1]["type"] == "end" and evs[-1]["exit_code"] == 0, evs[-1]
lines = sum(e["type"] == "log" and e["msg"].startswith("line ") for e in evs)
lost = sum(e["lost"] for e in evs if e["type"] == "gap")
stalled = [e for e in evs if e["type"] == "stalled"]
assert stalled and stalled[0]["reason"] == "file size limit", stalled
assert lines + lost == 20000 and lost > 0, (lines, lost)
assert rec["state"] == "done" and rec["lost_lines"] == lost, rec
print("jobs_test: ulimit -f 300: %d lines written, %d counted lost" % (lines, lost))
EOF

say "corrupt job folders are reported, not fatal"
mkdir -p "$J/broken" "$J/empty"
echo '{"id": "broken", "argv": [' >"$J/broken/job.json"
"$CALOPS" jobs --jobs "$J" >"$T/list" || fail "jobs exited $?"
grep -Eq '^broken +corrupt .*not JSON' "$T/list" || fail "broken not reported"
grep -Eq '^empty +corrupt .*no job.json' "$T/list" || fail "empty not reported"
[ "$(state broken)" = corrupt ] || fail "broken in --json"
printf '{"v":1,"seq":1,"ts":1,"type":"hello"}\ngarbage\n{"v":1,"seq":2,"ts":1,"type":"end"}\n{"v":1,"seq":3' \
    >"$J/broken/events.jsonl"
out=$("$CALOPS" tail broken --jobs "$J" 2>"$T/err")
[ "$(printf '%s\n' "$out" | wc -l)" = 2 ] || fail "tail of a corrupt file"
grep -q "line 2: not JSON" "$T/err" || fail "corrupt line not reported"

# The supervisors had nothing to complain of (sanitizer reports land there).
for f in "$J"/*/supervisor.log; do
	[ -s "$f" ] && { fail "$f:"; cat "$f"; }
done
[ -z "$(ls -A "$J" | grep '^\.')" ] || fail "hidden folders left behind"

[ $FAILED = 0 ] && say "all passed"
exit $FAILED
