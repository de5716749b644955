#!/bin/bash
# state_test.sh: the jobs folder trusts nothing it finds (base/statedir.h),
# with the real binary.  A symbolic link planted as the jobs folder, as a
# job's folder or as its job.json is refused by `run`, `jobs` and `kill`
# (a forged job's pids are never signalled); a jobs folder or state folder
# writable by others is refused until `chmod go-w`; a job folder of another
# user is no job (as root only, which can give one away).  Every refusal
# names the path and the command that fixes it; `jobs --json` keeps a
# refusal cut inside a character.
#
#	state_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: state_test.sh CALOPS_BINARY}
T=$(mktemp -d /tmp/calops-state-test.XXXXXX)
export XDG_STATE_HOME=$T/state
unset CALOPS_JOBS_DIR
J=$XDG_STATE_HOME/calops/jobs
FAILED=0
SLEEPER=

say() { printf 'state_test: %s\n' "$*"; }
fail() { say "FAIL: $*"; FAILED=1; }
cleanup() {
	[ -n "$SLEEPER" ] && kill "$SLEEPER" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# expect_refused WHAT WORDS CMD...: CMD exits 1 and its stderr holds WORDS.
expect_refused() {
	local what=$1 words=$2 rc
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 1 ]; then
		fail "$what: exit $rc, not 1 ($(cat "$T/err"))"
	elif ! grep -qF -- "$words" "$T/err"; then
		fail "$what: stderr lacks '$words': $(cat "$T/err")"
	else
		say "ok: $what"
	fi
}

# A job the binary runs to its end, as the reference.
id=$("$CALOPS" run -- true) || fail "run in a fresh state folder"
for _ in $(seq 1 200); do
	grep -q '"end"' "$J/$id/events.jsonl" 2>/dev/null && break
	sleep 0.05
done
[ "$(stat -c %a "$J")" = 700 ] || fail "jobs folder mode $(stat -c %a "$J")"

# 1. The jobs folder a planted link.
mv "$J" "$T/real-jobs"
mkdir "$T/elsewhere"
ln -s "$T/elsewhere" "$J"
expect_refused "run into a linked jobs folder" \
    "refusing the jobs folder '$J': it is a symbolic link (to '$T/elsewhere')" \
    "$CALOPS" run -- true
grep -qF "rm '$J'" "$T/err" || fail "no fix in: $(cat "$T/err")"
[ -z "$(ls -A "$T/elsewhere")" ] || fail "a job was made through the link"
expect_refused "jobs in a linked jobs folder" "symbolic link" "$CALOPS" jobs
rm "$J"
mv "$T/real-jobs" "$J"

# 2. Writable by others: the jobs folder, then the state folder.
chmod 0777 "$J"
expect_refused "run into a world-writable jobs folder" \
    "it is writable by its group and others (mode 0777); run: chmod go-w '$J'" \
    "$CALOPS" run -- true
chmod go-w "$J"
chmod 0757 "$XDG_STATE_HOME/calops"
expect_refused "jobs under a world-writable state folder" \
    "refusing the state folder '$XDG_STATE_HOME/calops': it is writable by others (mode 0757)" \
    "$CALOPS" jobs
chmod go-w "$XDG_STATE_HOME/calops"
"$CALOPS" jobs >/dev/null 2>&1 || fail "jobs after chmod go-w"

# 3. A forged job behind a link: its record names a process of ours as
# the supervisor and the tool; kill must not signal it.
sleep 600 &
SLEEPER=$!
mkdir -p "$T/forged/fake1"
cat >"$T/forged/fake1/job.json" <<EOF
{"id": "fake1", "argv": ["x"], "cwd": "/", "started": 1, "pid": $SLEEPER,
 "supervisor_pid": $SLEEPER, "state": "running", "exit_code": null,
 "signal": null, "ended": null}
EOF
: >"$T/forged/fake1/events.jsonl"
ln -s "$T/forged/fake1" "$J/fake1"
expect_refused "kill of a linked job folder" \
    "job 'fake1' is corrupt: refusing the job folder '$J/fake1': it is a symbolic link" \
    "$CALOPS" kill --grace 0 fake1
kill -0 "$SLEEPER" 2>/dev/null || fail "the forged job's pid was signalled"
echo '{"v":1,"seq":1,"ts":1,"type":"end","exit_code":0}' \
    >"$T/forged/fake1/events.jsonl"
expect_refused "tail of a linked job folder" \
    "job 'fake1' is corrupt: refusing the job folder '$J/fake1': it is a symbolic link" \
    "$CALOPS" tail fake1
[ ! -s "$T/out" ] || fail "tail printed the forged events: $(cat "$T/out")"
"$CALOPS" jobs --json >"$T/out" 2>"$T/err" || fail "jobs with a forged job"
python3 - "$T/out" <<'EOF' || fail "jobs --json: fake1 is not corrupt"
import json, sys
jobs = {j["id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
f = jobs["fake1"]
assert f["state"] == "corrupt" and "symbolic link" in f["reason"], f
EOF

# 4. A real job folder whose job.json is a link to a forged record.
mkdir -m 0700 "$J/fake2"
sed 's/fake1/fake2/' "$T/forged/fake1/job.json" >"$T/forged/fake2.json"
ln -s "$T/forged/fake2.json" "$J/fake2/job.json"
expect_refused "kill of a job whose job.json is a link" \
    "refusing '$J/fake2/job.json': it is a symbolic link" \
    "$CALOPS" kill --grace 0 fake2
kill -0 "$SLEEPER" 2>/dev/null || fail "the forged job's pid was signalled"
rm -rf "$J/fake1" "$J/fake2"

# 5. A job folder of another user (root only): a forged end is no end.
if [ "$(id -u)" = 0 ]; then
	chown -R 65534 "$J/$id"
	"$CALOPS" jobs >"$T/out" 2>"$T/err"
	grep -F "$id" "$T/out" | grep -q "corrupt.*belongs to another user" ||
	    fail "another user's job folder: $(cat "$T/out")"
	chown -R 0 "$J/$id"
	"$CALOPS" jobs | grep -F "$id" | grep -q " done " ||
	    fail "the job is not done again once it is the user's"
	say "ok: another user's job folder is corrupt"
else
	say "skipped: another user's folder (needs root)"
fi

# 6. --jobs DIR: the folders above it may be links, its own name not.
mkdir "$T/real"
ln -s "$T/real" "$T/via"
"$CALOPS" run --jobs "$T/via/jobs" -- true >/dev/null ||
    fail "run --jobs under a linked folder"
[ -d "$T/real/jobs" ] || fail "--jobs under a link made nothing"
ln -s "$T/real/jobs" "$T/jobs-link"
expect_refused "run --jobs naming a link" \
    "refusing the jobs folder '$T/jobs-link': it is a symbolic link" \
    "$CALOPS" run --jobs "$T/jobs-link" -- true

# 7. A corrupt job's reason quotes its path, cut to 255 bytes: the cut may
# fall inside a character, and --json still says the reason (the bytes
# that are not UTF-8 as \xHH), not an object without one.  Two roots one
# byte apart: in one of them the cut splits an 'é'.
e=$(printf '\303\251%.0s' $(seq 1 120))
for pad in "" a; do
	mkdir -p "$T/cut$pad$e/jobs"
	ln -s "$T" "$T/cut$pad$e/jobs/linked"
	"$CALOPS" jobs --json --jobs "$T/cut$pad$e/jobs" >>"$T/cut.json" ||
	    fail "jobs --json under a long name exited $?"
done
if /usr/bin/python3 - "$T/cut.json" <<'PY'; then
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
docs, cut, at = [], 0, 0
while at < len(text):
	doc, at = json.JSONDecoder().raw_decode(text, at)
	docs.append(doc)
	at = len(text) - len(text[at:].lstrip())
for d in docs:
	[j] = d["jobs"]
	assert j["state"] == "corrupt", j
	assert j["reason"].startswith("refusing the job folder"), j
	cut += j["reason"].endswith("\\xc3")
assert len(docs) == 2 and cut == 1, (len(docs), cut)
PY
	say "ok: a reason cut inside a character is kept in --json"
else
	fail "a reason cut inside a character, in --json"
fi

exit $FAILED
