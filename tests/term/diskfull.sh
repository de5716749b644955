# diskfull.sh: the console on a full disk (issue 10): its state folder
# (the mirrors in streams/, the action log) and the jobs folder share a
# small tmpfs, which fills while soaks started from the console run.  The
# runner prints numbered metric events in phases the test releases one by
# one (files in $CTL), so what is written, waits and is lost is the test's
# to say.  Two soaks:
#
#  1. Full for a while, then freed: once the supervisor's stalled event is
#     the last line of events.jsonl, the Soak screen says "degraded: disk
#     full since HH:MM" and the status line that the mirror cannot be
#     appended to; freed, it goes back to live and the job ends done, its
#     outcome logged.
#  2. Still full when the job ends: the console's own writes fail then (a
#     mirror append, the action log's outcome), and what it could not
#     write it must not claim: no outcome in the log, no torn line, and
#     the status line says so.
#
# Each time, once the disk has room again, the console catches its mirror
# up from the host and logs the outcome it could not, in the same session
# (labstream.c keep_retry()).  Consoles are then started again, which must
# add nothing.  Afterwards, for each job: events.jsonl has seqs 1..N, hello first, end
# last; every line the runner printed is an event or counted in a gap, in
# its place; the console's mirror equals events.jsonl byte for byte;
# actions.jsonl holds exactly one outcome for it, also after one more
# restart.  The figures are printed.
#
# It mounts a file system, so it needs root (CI runs as root); elsewhere it
# is skipped (exit 77).
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "$TEST: SKIP: mounting a small file system needs root"
	exit 77
fi
DISK=$TMP/disk
mkdir -p "$DISK"
if ! mount -t tmpfs -o size=32m,mode=0700 calops-termdiskfull "$DISK"; then
	echo "$TEST: SKIP: cannot mount a tmpfs here"
	exit 77
fi
# The tmux server and the jobs go first (kill_jobs), then the file system.
cleanup() {
	tm kill-server >/dev/null 2>&1
	umount "$DISK" 2>/dev/null || umount -l "$DISK"
	rm -rf "$TMP"
}

J=$DISK/jobs
jobs_dir "$J"
STATE=$DISK/state
mkdir -p "$STATE"
STREAMS=$STATE/calops/streams/local
A=$STATE/calops/actions.jsonl
CTL=$TMP/ctl
mkdir -p "$CTL"
PY=$(command -v python3) || fail "python3 is needed (share/bootstrap.sh test)"

fill_disk() { head -c 64M /dev/zero >"$DISK/$1" 2>/dev/null; true; }
free_disk() { rm -f "$DISK"/fill*; }

# The runner, whatever the soak's arguments: $CTL/phases is "count:size
# ...", each phase after the test touches go<N> (the first at once), and
# wrote<N> once its lines are out.  Line n of the job is a metric event
# with "line": n and size bytes of padding.  A last phase of 0 lines holds
# the runner until the test lets it exit.
cat >"$TMP/runner.py" <<'EOF'
import os, sys, time
ctl = sys.argv[1]
n = 0
for p, spec in enumerate(open(ctl + "/phases").read().split()):
    count, size = map(int, spec.split(":"))
    while p > 0 and not os.path.exists("%s/go%d" % (ctl, p)):
        time.sleep(0.02)
    for i in range(count):
        n += 1
        sys.stdout.write('{"v":1,"ts":%.3f,"type":"metric","chip":0,'
            '"values":{"line":%d,"ttft_ms":40},"pad":"%s"}\n'
            % (time.time(), n, "x" * size))
    sys.stdout.flush()
    open("%s/wrote%d" % (ctl, p), "w").close()
EOF

copy_ws "$COMPLETE"
cat >"$TMP/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0]}
workspaces:
  - {host: local, path: $(yaml_str "$WS")}
runner: $PY $TMP/runner.py $CTL
EOF

# until_ok SECS CMD...: poll until CMD succeeds (a bound, never a pace).
until_ok() {
	local secs=$1 end

	shift
	end=$(($(now_ms) + secs * 1000))
	until "$@"; do
		[ "$(now_ms)" -ge "$end" ] && fail "waited $secs s for: $*"
		sleep 0.05
	done
}
last_is() { tail -n 1 "$J/$2/events.jsonl" | grep -q "\"type\":\"$1\""; }
has_event() { grep -q "\"type\":\"$1\"" "$J/$2/events.jsonl"; }
job_done() { grep -q '"state": *"done"' "$J/$1/job.json"; }
# The supervisor gives up the job's lock last, after its reserves.
sup_gone() { flock -n -s "$J/$1/lock" true; }
mirrored() { grep -q "\"line\":$2," "$STREAMS/$1.jsonl" 2>/dev/null; }
same() { cmp -s "$J/$1/events.jsonl" "$STREAMS/$1.jsonl"; }
logged() { grep -q "\"job\":\"$1\"" "$A" 2>/dev/null; }
outcome_is() { [ "$(outcomes "$1" 2>/dev/null)" = "$2" ]; }

# outcomes ID: how many outcome records the action log holds for the job;
# every line of the log must be a whole JSON object.
outcomes() {
	$PY - "$A" "$1" <<'EOF'
import json, sys
n = 0
for i, l in enumerate(open(sys.argv[1], "rb").read().split(b"\n")[:-1]):
    try:
        r = json.loads(l)
    except ValueError:
        sys.exit("actions.jsonl line %d is not JSON: %r" % (i + 1, l[:80]))
    n += r.get("job") == sys.argv[2] and "outcome" in r
print(n)
EOF
}

# account ID: every runner line an event or counted in a gap, in its
# place: the lines a gap counts are those missing before the next line
# written (or at the end), so each line's number is the one due.
account() {
	$PY - "$J/$1/events.jsonl" "$J/$1/job.json" "$CTL/phases.$1" <<'EOF'
import json, sys
path, record, phases = sys.argv[1:]
sent = sum(int(p.split(":")[0]) for p in open(phases).read().split())
raw = open(path, "rb").read()
if not raw.endswith(b"\n"):
    sys.exit("%s does not end in a line feed" % path)
stream = [json.loads(l) for l in raw.split(b"\n")[:-1]]
if [e["seq"] for e in stream] != list(range(1, len(stream) + 1)):
    sys.exit("the seqs of %s are not 1..%d" % (path, len(stream)))
first, last = stream[0], stream[-1]
if first["type"] != "hello" or last["type"] != "end" or \
        (last["state"], last["exit_code"]) != ("done", 0):
    sys.exit("not hello first and a done end last: %r, %r" % (first, last))
written = gaps = lost = 0
for e in stream:
    if e["type"] == "gap":
        if not (e["lost"] > 0 and e["since"] <= e["until"]):
            sys.exit("a bad gap: %r" % e)
        gaps += 1
        lost += e["lost"]
    elif e["type"] == "metric":
        if e["values"]["line"] != written + lost + 1:
            sys.exit("line %d where %d was due (%d counted lost)"
                % (e["values"]["line"], written + lost + 1, lost))
        written += 1
if written + lost != sent:
    sys.exit("%d lines sent, %d written, %d lost" % (sent, written, lost))
if json.load(open(record))["lost_lines"] != lost:
    sys.exit("job.json's lost_lines is not the gaps' %d" % lost)
print("%d lines sent, %d written, %d lost (in %d gap event(s)); %d events"
    % (sent, written, lost, gaps, len(stream)))
EOF
}

# new_job BEFORE: a job in $J not in the list BEFORE, as $ID.
new_job() {
	ID=$(ls "$J" | grep -vxF -e "$1" | head -n 1)
	[ -n "$ID" ]
}

# soak PHASES: start a 1 h soak from the Soak screen with the runner's
# phases; $ID is its job.
soak() {
	local before

	rm -f "$CTL"/go* "$CTL"/wrote*
	printf '%s\n' "$1" >"$CTL/phases"
	before=$(ls "$J")
	keys s
	wait_for "soak for how long?"
	send_text "1h"
	keys Enter
	wait_for "type the chips (0) to start it:"
	send_text "0"
	keys Enter
	until_ok 30 new_job "$before"
	cp "$CTL/phases" "$CTL/phases.$ID"
}

start CALOPS_JOBS_DIR="$J" XDG_STATE_HOME="$STATE"
launch "$TMP/lab.yaml"
wait_for "11/11 pass"
keys 5
wait_for "[5 Soak]"
wait_for "s: start one on local"

# 1. Full for a while, then freed.  Phase 1: 10 MB of 4 KiB lines while
# full, past what the supervisor keeps waiting (8 MiB): some are lost.
soak "500:40 2500:4000 500:40"
ID1=$ID
until_ok 30 mirrored "$ID1" 500
fill_disk fill
touch "$CTL/go1"
until_ok 60 test -e "$CTL/wrote1"
until_ok 60 last_is stalled "$ID1"
wait_re "degraded: disk full since [0-9]{2}:[0-9]{2}" 30
in_messages "No space left on device: cannot append to '"
free_disk
until_ok 60 has_event resumed "$ID1"
wait_re " live [0-9]+s" 30
touch "$CTL/go2"
until_ok 60 job_done "$ID1"
wait_re "ended [0-9]{2}:[0-9]{2}" 60
until_ok 30 outcome_is "$ID1" 1
# The mirror fell behind while its disk was full: it catches up in this
# session once there is room again.
until_ok 60 same "$ID1"

# 2. Still full when the job ends.  The action log is first padded (with a
# record of its own) to the end of a page: a tmpfs takes a write into a
# page a file already has, so the outcome must need a new one to fail.
# The console's stream reader (its `calops tail`, a slow link) is stopped
# while the job ends, so that the disk is filled again after the
# supervisor has given back its reserves (the tail kept past events.jsonl,
# the record's spare room), as another writer would, before the console
# hears of the end.
soak "100:40 200:4000 0:0"
ID2=$ID
until_ok 30 mirrored "$ID2" 100
until_ok 30 logged "$ID2"
$PY - "$A" "$(getconf PAGESIZE)" <<'EOF' || fail "cannot pad $A"
import fcntl, json, os, sys, time
path, page = sys.argv[1], int(sys.argv[2])
with open(path, "ab") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    rec = {"ts": round(time.time(), 3), "user": "calops-test",
           "host": "local", "chip": None, "job": None, "what": "padding",
           "command": ""}
    bare = len(json.dumps(rec, separators=(",", ":"))) + 1
    want = -os.fstat(f.fileno()).st_size % page
    if want < bare:
        want += page
    rec["command"] = "x" * (want - bare)
    f.write(json.dumps(rec, separators=(",", ":")).encode() + b"\n")
EOF
fill_disk fill
touch "$CTL/go1"
until_ok 60 test -e "$CTL/wrote1"
until_ok 60 last_is stalled "$ID2"
wait_re "degraded: disk full since [0-9]{2}:[0-9]{2}" 30
in_messages "No space left on device: cannot append to '"
pid=$(calops_pid) || fail "no calops running"
tails=$(pgrep -P "$pid" -f "calops tail .*-- $ID2\$") ||
    fail "no calops tail $ID2 under the console"
kill -STOP $tails
touch "$CTL/go2"
until_ok 60 job_done "$ID2"
until_ok 60 sup_gone "$ID2"
fill_disk fill2
kill -CONT $tails
wait_re "ended [0-9]{2}:[0-9]{2}" 60
calops_pid >/dev/null || fail "calops is not running any more"
n=$(outcomes "$ID2") || fail "$n"
[ "$n" = 0 ] || fail "$n outcome(s) of $ID2 logged on a full disk"
has_event gap "$ID2" || fail "$ID2: no gap event"
# The last word on the status line, after the job's "done": the outcome
# could not be logged (the path is clipped at these widths).
in_messages "No space left on device: cannot append to '"
free_disk
# Room again: the mirror catches up and the outcome is logged, once, in
# this session.
until_ok 60 same "$ID2"
until_ok 60 outcome_is "$ID2" 1
quit_calops

# Started again on the freed disk: each mirror catches up from its host,
# and the outcome not logged is logged, once.
launch "$TMP/lab.yaml"
wait_for "11/11 pass"
until_ok 60 same "$ID1"
until_ok 60 same "$ID2"
until_ok 60 outcome_is "$ID2" 1
keys q
wait_exit 0
launch "$TMP/lab.yaml"
wait_for "11/11 pass"
# Two soaks on the lab: the Soak screen lists them, the newest selected.
keys 5
wait_for "2 soaks on the lab"
keys Enter
wait_re "ended [0-9]{2}:[0-9]{2}"
quit_calops

for id in "$ID1" "$ID2"; do
	out=$(account "$id" 2>&1) || fail "$id: $out"
	same "$id" || fail "the mirror of $id differs from its events.jsonl"
	n=$(outcomes "$id") || fail "$n"
	[ "$n" = 1 ] || fail "$n outcome records of $id in $A"
	echo "$TEST (${COLS}x$ROWS): $id: $out"
done
finish
