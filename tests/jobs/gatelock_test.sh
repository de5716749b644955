#!/bin/bash
# gatelock_test.sh: `calops run --cwd` and `--gate` with the real binary
# (share/doc/protocol.md §2): the tool runs in the folder --cwd names and
# job.json says so; of eight `run --gate G7` in one workspace released in
# the same instant exactly one starts, the others are refused (exit 3)
# naming its id and who started it; another workspace or another gate is
# not refused; the gate is free again once its job is killed, or its
# supervisor dies.
#
#	gatelock_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: gatelock_test.sh CALOPS_BINARY}
T=$(mktemp -d "/tmp/calops gatelock.XXXXXX")
J=$T/jobs
WS="$T/work space"
FAILED=0
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
export CALOPS_JOBS_DIR=$J

fail() { echo "gatelock_test: FAIL: $*"; FAILED=1; }
# shellcheck source=tests/jobs/lib.sh
. "$(dirname "$0")/lib.sh"

cleanup() {
	stop_jobs "$J"
	rm -rf "$T"
}
trap cleanup EXIT

# field FILE KEY: a member of job.json.
field() {
	$PY -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$1" "$2" 2>/dev/null
}
not_running() { [ "$(field "$J/$1/job.json" state)" != running ]; }

mkdir -p "$WS" "$T/other"
real=$(cd "$WS" && pwd -P)

# The tool runs where --cwd says, and job.json records it.
id=$("$CALOPS" run --cwd "$WS" --actor 'ann@lab' -- /bin/sh -c pwd) ||
    fail "run --cwd did not start"
until_ok 30 not_running "$id"
[ "$(field "$J/$id/job.json" cwd)" = "$real" ] ||
    fail "job.json cwd is '$(field "$J/$id/job.json" cwd)', not '$real'"
[ "$(field "$J/$id/job.json" actor)" = "ann@lab" ] ||
    fail "job.json actor is '$(field "$J/$id/job.json" actor)'"
grep -q "\"msg\":\"$real\"" "$J/$id/events.jsonl" ||
    fail "the tool did not run in '$real': $(cat "$J/$id/events.jsonl")"
if "$CALOPS" run --cwd "$T/nowhere" -- true 2>"$T/err"; then
	fail "run --cwd into a missing folder started"
fi
grep -q "cannot run the job in '$T/nowhere'" "$T/err" ||
    fail "no clear message for a missing --cwd: $(cat "$T/err")"
if "$CALOPS" run --gate G7 -- true 2>/dev/null; then
	fail "--gate without --cwd was taken"
fi

# Eight launches released at once: exactly one starts.  The FIFO is held
# open here for reading and writing, so none of them blocks opening it;
# each waits in read for its line, and the eight lines go in one write.
mkfifo "$T/go"
exec 3<>"$T/go"
for i in 1 2 3 4 5 6 7 8; do
	( read -r _ <&3
	  "$CALOPS" run --cwd "$WS" --gate G7 --actor "user$i@m$i" -- \
	      sleep 60 >"$T/out$i" 2>"$T/err$i"
	  echo $? >"$T/rc$i" ) &
done
printf 'go\ngo\ngo\ngo\ngo\ngo\ngo\ngo\n' >&3
wait
exec 3>&-
started=0
refused=0
for i in 1 2 3 4 5 6 7 8; do
	case $(cat "$T/rc$i") in
	0) started=$((started + 1)); winner=$i ;;
	3) refused=$((refused + 1)) ;;
	*) fail "launch $i: exit $(cat "$T/rc$i"): $(cat "$T/err$i")" ;;
	esac
done
[ "$started" = 1 ] && [ "$refused" = 7 ] ||
    fail "$started started and $refused refused of 8 (1 and 7 wanted)"
if [ "$started" = 1 ]; then
	first=$(cat "$T/out$winner")
	for i in 1 2 3 4 5 6 7 8; do
		[ "$i" = "$winner" ] && continue
		grep -q "G7's job $first, started by user$winner@m$winner" \
		    "$T/err$i" ||
		    fail "refusal $i does not name $first and its starter: $(cat "$T/err$i")"
	done
fi

# Another gate, another workspace: not refused.
g9=$("$CALOPS" run --cwd "$WS" --gate G9 -- sleep 60) ||
    fail "G9 refused beside G7's job"
o7=$("$CALOPS" run --cwd "$T/other" --gate G7 -- sleep 60) ||
    fail "G7 refused in another workspace"
# The same workspace however spelt: refused.
if (cd "$T" && "$CALOPS" run --cwd "./work space/." --gate G7 -- true \
    2>/dev/null); then
	fail "G7 started in the same workspace spelt another way"
fi

# Killed: the gate is free again.
"$CALOPS" kill "$first" >/dev/null || fail "kill $first"
until_ok 30 not_running "$first"
again=$("$CALOPS" run --cwd "$WS" --gate G7 -- sleep 60) ||
    fail "G7 still refused after its job was killed"
# Its supervisor gone (a lost job): free too.
sup=$(field "$J/$again/job.json" supervisor_pid)
pid=$(field "$J/$again/job.json" pid)
kill -KILL "$sup"
kill -KILL -- "-$pid" 2>/dev/null
lost() {
	"$CALOPS" jobs --json | $PY -c 'import json, sys
j = [j for j in json.load(sys.stdin)["jobs"] if j["id"] == sys.argv[1]]
sys.exit(0 if j and j[0]["state"] == "lost" else 1)' "$again"
}
until_ok 30 lost
"$CALOPS" run --cwd "$WS" --gate G7 -- true >/dev/null ||
    fail "G7 still refused after its supervisor died"
for id in $g9 $o7; do "$CALOPS" kill "$id" >/dev/null; done

# The lock held by one that has not named its job yet: a launch waits for
# the name (share/doc/protocol.md §2), which is written only once the
# launch has read the file (inotify says so), and names it; the old code
# said "a job of G7 is starting".  Then a holder that never names its job,
# the file still naming one that ended: that one is not named as running.
ended=$("$CALOPS" run --cwd "$WS" -- true) || fail "a plain job did not start"
until_ok 30 not_running "$ended"
$PY - "$CALOPS" "$J" "$real" "$WS" "$ended" "$T" <<'PY' || FAILED=1
import ctypes, fcntl, json, os, select, struct, subprocess, sys
calops, jobs, real, ws, ended, tmp = sys.argv[1:]
h = 0xcbf29ce484222325
for b in real.encode():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
path = "%s/.gates/G7-%016x.lock" % (jobs, h)
libc = ctypes.CDLL(None, use_errno=True)
IN_ACCESS = 0x1

def fail(msg):
    print("gatelock_test: FAIL: " + msg)
    sys.exit(1)

def hold(text):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.ftruncate(fd, 0)
    os.pwrite(fd, text.encode(), 0)
    return fd

def launch():
    return subprocess.Popen([calops, "run", "--cwd", ws, "--gate", "G7",
                             "--", "true"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

# 1: named once the launch has read the file.
fd = hold("{}")
ino = libc.inotify_init1(os.O_CLOEXEC)
if ino < 0 or libc.inotify_add_watch(ino, path.encode(), IN_ACCESS) < 0:
    fail("inotify: errno %d" % ctypes.get_errno())
p = launch()
r, _, _ = select.select([ino], [], [], 30)
if not r:
    fail("the launch never read the lock file")
holder = {"job": "20261206-000000-abcdef", "actor": "late@lab", "gate": 7,
          "workspace": real, "started": 1.0}
os.ftruncate(fd, 0)
os.pwrite(fd, json.dumps(holder).encode(), 0)
out, err = p.communicate(timeout=60)
if p.returncode != 3 or "20261206-000000-abcdef, started by late@lab" \
        not in err:
    fail("a holder named after the launch read the file: exit %d: %s" %
         (p.returncode, err.strip()))
os.close(fd)
os.close(ino)

# 2: never named; the file names a job that ended.
fd = hold(json.dumps({"job": ended, "actor": "old@lab", "gate": 7,
                      "workspace": real, "started": 1.0}))
p = launch()
out, err = p.communicate(timeout=60)
if p.returncode != 3 or ended in err or "is starting" not in err:
    fail("a holder that never named its job: exit %d: %s" %
         (p.returncode, err.strip()))
os.close(fd)
PY

[ "$FAILED" = 0 ] && echo "gatelock_test: ok"
exit "$FAILED"
