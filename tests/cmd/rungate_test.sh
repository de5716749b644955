#!/bin/bash
# rungate_test.sh: `calops run-gate LAB GATE [--host H]`, the board's r
# for a script: the command the lab file's gates: map gives a gate runs as
# a durable job in the workspace's root (a path with blanks, quotes and a
# `$(…)` in it), its id printed; the job's events say what it printed and
# that it ended; a gate with no command, a gate that is not one, a lab
# with several workspaces and no --host or --workspace, a workspace not in
# the lab, an unknown host and a protected one without --write are
# refused, each with its message and status, and start nothing.  On a
# host with two workspaces, --workspace (however the folder is spelt)
# runs it in the one named, not the first.  A gate whose job still runs in
# the workspace is refused, with that job's id.  G5's command runs as its
# reproducibility run: two builds recorded, G5 passing, then a third that
# differs and G5.builds failing; a new set keeps the last one in history/.
#
#	rungate_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: rungate_test.sh CALOPS_BINARY}
T=$(mktemp -d /tmp/calops-rungate-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0
fail() { echo "rungate_test: FAIL: $*"; failed=1; }
export CALOPS_JOBS_DIR=$T/jobs

# refused STATUS STDERR_RE ARGS...: run-gate ARGS fails so, printing no id.
refused() {
	local status=$1 re=$2 out rc
	shift 2
	out=$("$CALOPS" run-gate "$@" 2>"$T/err")
	rc=$?
	[ "$rc" -eq "$status" ] ||
		fail "run-gate $*: exit $rc, not $status ($(cat "$T/err"))"
	[ -z "$out" ] || fail "run-gate $*: printed '$out'"
	grep -Eq -- "$re" "$T/err" ||
		fail "run-gate $*: stderr '$(cat "$T/err")' lacks /$re/"
}

# ended ID: wait (at most 20 s) for the job's end event.
ended() {
	local i
	for i in $(seq 1 200); do
		"$CALOPS" tail "$1" 2>/dev/null | grep -q '"type":"end"' &&
			return 0
		sleep 0.1
	done
	return 1
}

odd='ws a '\''q'\'' $(touch pwned)'
mkdir -p "$T/$odd" "$T/other"
cat >"$T/lab.yaml" <<LAB
hosts:
  - {name: local, transport: local, chips: [0]}
workspaces:
  - {host: local, path: "$odd"}
gates:
  G6: [sh, -c, "pwd; echo validated > validation.out"]
  G1: [sh, -c, "exit 3"]
LAB
id=$("$CALOPS" run-gate "$T/lab.yaml" G6 2>"$T/err")
[ $? -eq 0 ] || fail "run-gate G6: $(cat "$T/err")"
[[ $id =~ ^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$ ]] || fail "run-gate printed '$id'"
grep -q "started G6 sh on local" "$T/err" || fail "run-gate said: $(cat "$T/err")"
ended "$id" || fail "the G6 job did not end: $("$CALOPS" tail "$id")"
"$CALOPS" tail "$id" >"$T/events"
grep -qF "\"msg\":\"$T/$odd\"" "$T/events" ||
	fail "the job did not run in the workspace's root: $(cat "$T/events")"
grep -q '"type":"end","state":"done","exit_code":0' "$T/events" ||
	fail "the G6 job did not end well: $(tail -1 "$T/events")"
[ "$(cat "$T/$odd/validation.out")" = validated ] ||
	fail "the G6 job wrote nothing in the workspace"
find "$T" -name pwned | grep -q . && fail "a command in the path ran"

n0=$(ls "$T/jobs" 2>/dev/null | wc -l)
refused 1 "G3 has no command: the lab file's gates: map gives none" \
    "$T/lab.yaml" G3
refused 2 "'G11' is not a gate" "$T/lab.yaml" G11
refused 2 "usage" "$T/lab.yaml"
refused 1 "no host 'lab9' in the lab file" "$T/lab.yaml" G6 --host lab9
# A host whose name does not resolve is said at once, not after the whole
# --timeout as "did not answer" (issue 27); timeout(1) is only the guard.
cat >"$T/nx.yaml" <<LAB
hosts:
  - {name: nx, transport: ssh, address: nowhere.invalid}
workspaces:
  - {host: nx, path: /srv/ws}
gates:
  G6: [sh, -c, "true"]
LAB
timeout 60 "$CALOPS" run-gate "$T/nx.yaml" G6 --timeout 50 >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot resolve 'nowhere.invalid'" "$T/err" ||
	fail "run-gate on a name that does not resolve: exit $rc: $(cat "$T/err")"
refused 1 "'$T/other' is not a workspace in the lab file" "$T/lab.yaml" G6 \
    --workspace "$T/other"
cat >"$T/two.yaml" <<LAB
hosts:
  - {name: local, transport: local}
  - {name: pro, transport: local, protected: true}
workspaces:
  - {host: local, path: "$odd"}
  - {host: pro, path: other}
gates:
  G6: [sh, -c, "echo ran > ran.out"]
LAB
refused 1 "the lab file has 2 workspaces: say which with --workspace \(and --host\)" \
    "$T/two.yaml" G6
refused 1 "host 'pro' is protected: jobs run there only with --write pro" \
    "$T/two.yaml" G6 --host pro
printf 'gates:\n  G7: x\n' >"$T/g7.yaml"
refused 2 "g7.yaml:2:7: G7's job is the runner's" "$T/g7.yaml" G7
[ "$(ls "$T/jobs" 2>/dev/null | wc -l)" = "$n0" ] || fail "a refused run-gate made a job"
[ -e "$T/other/ran.out" ] && fail "the protected host ran the job"
id=$("$CALOPS" run-gate "$T/two.yaml" G6 --host pro --write pro 2>"$T/err")
[ $? -eq 0 ] || fail "run-gate --write pro: $(cat "$T/err")"
ended "$id" && [ -e "$T/other/ran.out" ] || fail "--write pro ran nothing"
# Two workspaces on one host: the one --workspace names, not the first.
mkdir -p "$T/second"
cat >"$T/ws2.yaml" <<LAB
hosts:
  - {name: local, transport: local}
workspaces:
  - {host: local, path: "$odd"}
  - {host: local, path: second}
gates:
  G6: [sh, -c, "echo ran > ws2.out"]
LAB
refused 1 "host 'local' has 2 workspaces: say which with --workspace$" \
    "$T/ws2.yaml" G6 --host local
refused 1 "'$T/third' is not a workspace of host 'local' in the lab file" \
    "$T/ws2.yaml" G6 --host local --workspace "$T/third"
id=$(cd "$T/$odd" && "$CALOPS" run-gate "$T/ws2.yaml" G6 --workspace \
    ../second/ 2>"$T/err") || fail "run-gate --workspace: $(cat "$T/err")"
grep -q "started G6 sh on local in $T/second$" "$T/err" ||
	fail "run-gate --workspace said: $(cat "$T/err")"
ended "$id" && [ -e "$T/second/ws2.out" ] ||
	fail "--workspace ../second/ did not run in it"
[ -e "$T/$odd/ws2.out" ] && fail "--workspace ran in the first workspace"
# A command that fails: the job says so; run-gate only started it.
id=$("$CALOPS" run-gate "$T/lab.yaml" G1 2>"$T/err") ||
	fail "run-gate G1: $(cat "$T/err")"
ended "$id" && "$CALOPS" tail "$id" | grep -q '"state":"failed","exit_code":3' ||
	fail "G1's failing command: $("$CALOPS" tail "$id" | tail -1)"

# One job per gate and workspace, whoever started the first: a second
# run-gate of a gate whose job still runs there is refused with that job's
# id and starts nothing; another gate starts meanwhile, and the same gate
# once the first job ended.  (The first waits for a file, two minutes at
# most: a test that fails before making it leaves no job behind for long.)
cat >"$T/busy.yaml" <<LAB
hosts:
  - {name: local, transport: local}
workspaces:
  - {host: local, path: "$odd"}
gates:
  G2: [sh, -c, "i=0; while [ ! -e go ] && [ \$i -lt 2400 ]; do sleep 0.05; i=\$((i + 1)); done"]
  G6: [sh, -c, "echo validated > validation.out"]
LAB
rm -f "$T/$odd/go"
# A finished job whose argument is longer than a line the transport
# passes (64 KiB) is not in the running jobs' list, and blocks nothing.
long=$("$CALOPS" run -- sh -c ": $(head -c 70000 /dev/zero | tr '\0' x)")
ended "$long" || fail "the long job did not end"
# The first G2 through the lab file named from its folder, the second
# through its absolute path and through a link: the same workspace.
first=$(cd "$T" && "$CALOPS" run-gate busy.yaml G2 2>"$T/err") ||
	fail "run-gate G2: $(cat "$T/err")"
"$CALOPS" jobs --json --running >"$T/running" ||
	fail "jobs --json --running failed"
grep -q "\"id\": \"$first\"" "$T/running" ||
	fail "jobs --running lacks the running G2: $(cat "$T/running")"
grep -q "\"id\": \"$long\"" "$T/running" &&
	fail "jobs --running lists a finished job"
n1=$(ls "$T/jobs" | wc -l)
refused 1 "G2 sh not started: G2's job $first is already running in .* on local \(calops kill $first there to stop it\)" \
    "$T/busy.yaml" G2
ln -s "$T" "$T/link"
refused 1 "G2's job $first is already running" "$T/link/busy.yaml" G2
[ "$(ls "$T/jobs" | wc -l)" = "$n1" ] || fail "a refused second G2 made a job"
id=$("$CALOPS" run-gate "$T/busy.yaml" G6 2>"$T/err") ||
	fail "G6 beside a running G2: $(cat "$T/err")"
ended "$id" || fail "G6 beside a running G2 did not end"
: >"$T/$odd/go"
ended "$first" || fail "the first G2 job did not end"
id=$("$CALOPS" run-gate "$T/busy.yaml" G2 2>"$T/err") ||
	fail "G2 after the first ended: $(cat "$T/err")"
ended "$id" || fail "the second G2 job did not end"

# G5: the compile command as the reproducibility run (calops repro-build):
# two builds recorded where G5.builds reads them, G5 passing; one more from
# a build that is not deterministic, and G5.builds says so.
SRC=$(cd "$(dirname "$0")/../.." && pwd)
cp -a "$SRC/share/examples/complete" "$T/c"
cat >"$T/compile" <<'SH'
#!/bin/sh
echo "compiling $BUILD_ID in $(pwd)"
mkdir -p 05-calbin/package
printf 'kernel\n' >05-calbin/package/k.bin
[ -e nondet ] && date +%s%N >05-calbin/package/stamp
exit 0
SH
chmod +x "$T/compile"
cat >"$T/c.yaml" <<LAB
hosts:
  - {name: local, transport: local}
workspaces:
  - {host: local, path: c}
gates:
  G5: $T/compile
LAB
id=$("$CALOPS" run-gate "$T/c.yaml" G5 2>"$T/err") ||
	fail "run-gate G5: $(cat "$T/err")"
grep -q "started G5 two builds: compile on local" "$T/err" ||
	fail "run-gate G5 said: $(cat "$T/err")"
ended "$id" || fail "the G5 job did not end"
"$CALOPS" tail "$id" | grep -q 'build-2: exit 0, package [0-9a-f]*… (the same as the first build'"'"'s)' ||
	fail "G5's job log: $("$CALOPS" tail "$id")"
grep -q "compiling build-2 in $T/c" "$T/c/04-compiler/logs/build-2.log" ||
	fail "build-2's log: $(cat "$T/c/04-compiler/logs/build-2.log")"
python3 - "$T/c/04-compiler/builds.json" <<'PY' || fail "builds.json"
import json, sys
b = json.load(open(sys.argv[1]))
assert [x["id"] for x in b] == ["build-1", "build-2"], b
assert all(x["exit_code"] == 0 and x["log"] == "logs/%s.log" % x["id"]
           for x in b), b
assert b[0]["output_tree_sha256"] == b[1]["output_tree_sha256"], b
PY
"$CALOPS" check "$T/c" --gate G5 >"$T/check" 2>&1 ||
	fail "G5 after two builds: $(cat "$T/check")"
: >"$T/c/nondet"
id=$("$CALOPS" run-gate "$T/c.yaml" G5 --again 2>"$T/err") ||
	fail "run-gate G5 --again: $(cat "$T/err")"
ended "$id" || fail "the third build did not end"
"$CALOPS" check "$T/c" --gate G5 >"$T/check" 2>&1 &&
	fail "G5 passes after a build that differs"
grep -q "G5.builds .*builds.json#/2 .*output differs from the first build" \
    "$T/check" || fail "G5.builds after a differing build: $(cat "$T/check")"

# A new build set never destroys the last one: builds.json and the logs it
# lists move, byte for byte, to 04-compiler/history/<its time>/ first.
(cd "$T/c/04-compiler" && sha256sum builds.json logs/build-*.log) >"$T/set"
rm "$T/c/nondet"
id=$("$CALOPS" run-gate "$T/c.yaml" G5 2>"$T/err") ||
	fail "run-gate G5 anew: $(cat "$T/err")"
ended "$id" || fail "the new build set did not end"
kept=$(ls -d "$T/c/04-compiler/history/"*/ 2>/dev/null | sort | tail -1)
[ -n "$kept" ] && (cd "$kept" && sha256sum -c --quiet "$T/set") ||
	fail "the last build set is not kept whole: $(ls -R "$T/c/04-compiler")"
[ "$(grep -c '"id"' "$T/c/04-compiler/builds.json")" = 2 ] ||
	fail "the new set's builds.json: $(cat "$T/c/04-compiler/builds.json")"
"$CALOPS" tail "$id" | grep -q "the last build set is kept in 04-compiler/history/" ||
	fail "G5's job log does not say where the last set went"
"$CALOPS" check "$T/c" --gate G5 >"$T/check" 2>&1 ||
	fail "G5 on the new set: $(cat "$T/check")"

[ $failed = 0 ] && echo "ok: rungate_test"
exit $failed
