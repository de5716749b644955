#!/bin/bash
# watch_test.sh: `calops watch WS` and `calops version` (protocol.md §1,
# v2), with the real binary: a watching event first, once the watch is in
# place; then a change prints one changed event naming the
# workspace-relative paths (a new folder may stand for what was made in
# it before the watch could see inside; a burst is one event; past 64 paths it says
# truncated; editor droppings are not changes); polling says truncated (it
# cannot tell which); closing stdin ends it with 0; a workspace that
# cannot be watched is an error.  `version --json` is {"version",
# "protocol": 1}.
#
#	watch_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: watch_test.sh CALOPS_BINARY}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T=$(mktemp -d /tmp/calops-watch-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

"$PY" - "$CALOPS" "$T" <<'PYEOF'
import json, os, select, signal, subprocess, sys, time

calops, top = sys.argv[1], sys.argv[2]
failed = False

def fail(msg):
    global failed
    print("watch_test: FAIL: " + msg)
    failed = True

def start(ws, poll=False):
    env = dict(os.environ)
    env.pop("CALOPS_WATCH_POLL", None)
    if poll:
        env["CALOPS_WATCH_POLL"] = "1"
    p = subprocess.Popen([calops, "watch", ws], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env)
    # First, once the watch is in place: watching, seq 1, and how.
    e = event(p)
    if e is None or e.get("type") != "watching" or e.get("seq") != 1 or \
            e.get("how", "").split(" ")[0] not in ("inotify", "polling"):
        fail("the first event is not watching: %r" % e)
    return p

def event(p, limit=30):
    """The next event; a bound for a stuck run, never a pace."""
    r, _, _ = select.select([p.stdout], [], [], limit)
    if not r:
        return None
    line = p.stdout.readline()
    return json.loads(line) if line else None

def write(path, text="x"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)

def ready(p, ws):
    """Until the watch reports: a probe file, then its event."""
    n = 0
    while True:
        write(os.path.join(ws, ".probe%d" % n))
        e = event(p, 2)
        if e is not None:
            return
        n += 1
        if n > 15:
            fail("the watch never reported")
            return

# version
out = subprocess.run([calops, "version", "--json"], capture_output=True,
                     text=True)
v = json.loads(out.stdout)
if set(v) != {"version", "protocol"} or v["protocol"] != 1 or \
        not isinstance(v["version"], str):
    fail("version --json: %r" % out.stdout)
out = subprocess.run([calops, "version"], capture_output=True, text=True)
if not out.stdout.startswith("calops %s (protocol 1)" % v["version"]):
    fail("version: %r" % out.stdout)

# inotify: the paths, relative, a dropping left out
ws = os.path.join(top, "ws")
os.makedirs(os.path.join(ws, "05-calbin"))
p = start(ws)
ready(p, ws)
write(os.path.join(ws, ".#lock.yaml"))
write(os.path.join(ws, "05-calbin", "manifest.yaml"))
write(os.path.join(ws, "new", "deep", "f.json"))
e = event(p)
seen = set()
while e is not None:
    if e.get("type") != "changed" or e.get("v") != 1 or \
            not isinstance(e.get("seq"), int):
        fail("not a changed event: %r" % e)
        break
    seen |= set(e["paths"])
    # A folder made with files in it may be named for them all.
    if "05-calbin/manifest.yaml" in seen and any(
            ("new/deep/f.json" + "/").startswith(x + "/") for x in seen):
        break
    e = event(p)
else:
    fail("no event for the changes (saw %r)" % sorted(seen))
if any(x.startswith(".#") for x in seen):
    fail("an editor dropping was a change: %r" % sorted(seen))
if any(x.startswith("/") for x in seen):
    fail("a path is not workspace-relative: %r" % sorted(seen))

# a burst of 100 files: capped, truncated.  The folder is watched first
# (a probe in it reported by name), and the watch is stopped while the
# files are written, so that the 100 are one burst however loaded the
# machine: written at the pace of a busy CI box they could otherwise come
# as several short bursts, or be folded into the new folder's name.
n = 0
while True:
    write(os.path.join(ws, "burst", ".probe%d" % n))
    e = event(p, 2)
    if e is not None and any(x.startswith("burst/") for x in e["paths"]):
        break
    n += 1
    if n > 15:
        fail("the burst folder was never watched")
        break
os.kill(p.pid, signal.SIGSTOP)
for i in range(100):
    write(os.path.join(ws, "burst", "f%03d" % i))
os.kill(p.pid, signal.SIGCONT)
got, trunc = set(), False
while len(got) < 64 and not trunc:
    e = event(p)
    if e is None:
        fail("the burst was not reported")
        break
    got |= set(e["paths"])
    trunc |= e.get("truncated", False)
if not trunc or any(len(x) > 200 for x in got):
    fail("a burst of 100 is not said truncated: %d paths" % len(got))

# stdin closed: it ends, 0
p.stdin.close()
try:
    rc = p.wait(30)
except subprocess.TimeoutExpired:
    p.kill()
    rc = "still running"
if rc != 0:
    fail("after stdin closed: %r" % rc)

# polling: it cannot tell which paths, and says so
p = start(ws, poll=True)
time.sleep(0)  # nothing to wait for: the first walk is the base
n = 0
e = None
while e is None and n < 15:
    write(os.path.join(ws, "polled%d" % n))
    e = event(p, 3)
    n += 1
if e is None or e.get("truncated") is not True:
    fail("polling: %r" % e)
p.stdin.close()
p.wait(30)

# a workspace that cannot be watched
out = subprocess.run([calops, "watch", os.path.join(top, "none")],
                     stdin=subprocess.DEVNULL, capture_output=True, text=True)
if out.returncode != 1 or "cannot watch" not in out.stderr:
    fail("a missing workspace: %d %r" % (out.returncode, out.stderr))

print("watch_test: " + ("FAILED" if failed else "PASS"))
sys.exit(1 if failed else 0)
PYEOF
