#!/bin/bash
# evidence_test.sh: a second soak never destroys the first one's evidence,
# and a soak cut short is no evidence (workspace.md, G9; share/doc/lab.md).
# G9's lab job (the runner simulator's 24 h soak, through `calops
# run-gate`) runs to its end on a workspace with no other soak, and G9
# passes on it; a second one is started the same day on the same host and
# workspace and killed with `calops kill` once it has written samples:
# every file of the first run is byte-identical afterwards (sha256), the
# second run has a folder of its own named by its job's id whose summary
# says `killed`, and G9 still passes with the first run as its evidence,
# the second named as no evidence.
#
#	evidence_test.sh CALOPS_BINARY CALRT_SIM_BINARY
set -u

CALOPS=${1:?usage: evidence_test.sh CALOPS_BINARY CALRT_SIM_BINARY}
SIM=${2:?usage: evidence_test.sh CALOPS_BINARY CALRT_SIM_BINARY}
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/calops-evidence-test.XXXXXX)
id=
trap '[ -n "$id" ] && "$CALOPS" kill "$id" --grace 0 >/dev/null 2>&1
    rm -rf "$T"' EXIT
failed=0
fail() { echo "evidence_test: FAIL: $*"; failed=1; }
export CALOPS_JOBS_DIR=$T/jobs

ws=$T/ws
cp -r "$top/share/examples/complete" "$ws"
soak=$ws/07-serving/soak
rm -rf "${soak:?}"/*

# lab SCALE: the lab file, its runner at --time-scale SCALE (0: as fast as
# it goes), as a list: its path may hold blanks.
lab() {
	cat >"$T/lab.yaml" <<LAB
hosts:
  - {name: local, transport: local, chips: [0]}
workspaces:
  - {host: local, path: "$ws"}
runner: ["$SIM", --time-scale, "$1"]
LAB
}

# until N CMD...: run CMD every 0.1 s until it succeeds, at most N tries.
until_ok() {
	local n=$1 i
	shift
	for i in $(seq 1 "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
samples() {
	[ "$("$CALOPS" tail "$id" 2>/dev/null | grep -c '"type":"metric"')" \
	    -ge 20 ]
}
ended() { "$CALOPS" tail "$id" 2>/dev/null | grep -q '"type":"end"'; }

# The first soak, to its end.
lab 0
id=$("$CALOPS" run-gate "$T/lab.yaml" G9 2>"$T/err")
[ $? -eq 0 ] || fail "run-gate G9: $(cat "$T/err")"
until_ok 1200 ended || fail "the first soak did not end in 120 s"
"$CALOPS" tail "$id" | grep -q '"type":"end","state":"done"' ||
	fail "the first soak failed: $("$CALOPS" tail "$id" | tail -3)"
first=$(cd "$soak" && ls)
[ "$(echo "$first" | wc -l)" -eq 1 ] || fail "first soak's folders: $first"
(cd "$soak/$first" && sha256sum ./*) >"$T/first.sha256"
"$CALOPS" check "$ws" --gate G9 >/dev/null ||
	fail "G9 does not pass on the first soak"

# The second, on the same host and workspace, the same day, killed.
lab 600
id=$("$CALOPS" run-gate "$T/lab.yaml" G9 2>"$T/err")
[ $? -eq 0 ] || fail "run-gate G9 again: $(cat "$T/err")"
until_ok 600 samples || fail "the second soak wrote no samples"
"$CALOPS" kill "$id" >/dev/null 2>&1 || fail "calops kill $id failed"
until_ok 600 ended || fail "the killed soak did not end"
"$CALOPS" tail "$id" | grep -q '"type":"end","state":"killed"' ||
	fail "the soak's end is not killed: $("$CALOPS" tail "$id" | tail -1)"

# The first run, byte for byte.
(cd "$soak/$first" && sha256sum -c --quiet "$T/first.sha256") ||
	fail "the first run's files changed"
# The second, in a folder of its own named by its job, says how it ended.
second=$(cd "$soak" && ls -d -- *-24h-"$id" 2>/dev/null)
[ -n "$second" ] || fail "no run folder named by job $id: $(ls "$soak")"
grep -q '"outcome": "killed"' "$soak/$second/summary.json" ||
	fail "the second run's summary does not say killed"
# G9 still passes, on the first run; the second is named as no evidence.
"$CALOPS" check "$ws" --gate G9 --json >"$T/g9.json"
rc=$?
[ $rc -eq 0 ] || fail "G9 no longer passes (exit $rc)"
grep -q "longest passing soak: '$first'" "$T/g9.json" ||
	fail "the first run is not G9's evidence any more"
grep -q "run '$second' was killed after [0-9.]* h: no evidence" \
    "$T/g9.json" || fail "the killed run is not said to be no evidence"
grep -q '"G9.soak": "held"' "$T/g9.json" ||
	fail "G9.soak is not held on the first run"
id=

[ $failed -eq 0 ] && echo "evidence_test: all passed"
exit $failed
