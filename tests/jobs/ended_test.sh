#!/bin/bash
# ended_test.sh: the lab model's poll tells every job of a host that ended,
# whoever started it, at the next poll (src/lab/labpoll.c, `calops jobs
# --since`; protocol.md §4): a job started and ended between two polls is
# told within one poll period of its end, not at a list of every job 30 s
# later; so is one that ran while the host was first listed, and one whose
# supervisor died (lost).  A job that had ended before the first list is
# history, never told; each is told once.  None of them is a lab job: the
# model takes none in, and still tells their ends
# (tests/unit/labrun_driver.c --ended).
#
#	ended_test.sh CALOPS_BINARY LABRUN_DRIVER
set -u

CALOPS=${1:?usage: ended_test.sh CALOPS_BINARY LABRUN_DRIVER}
DRIVER=${2:?usage: ended_test.sh CALOPS_BINARY LABRUN_DRIVER}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
FAILED=0
fail() { echo "ended_test: FAIL: $*"; FAILED=1; }
# shellcheck source=tests/jobs/lib.sh
. "$(dirname "$0")/lib.sh"
# The lab model's LABPOLL_MS (src/lab/labpoll.h), and a second poll for
# the list itself on a loaded machine (one still answering is not asked
# again): the 30 s of a list of every job is far past it.
POLL_MS=2000
LIMIT_MS=$((2 * POLL_MS))

T=$(mktemp -d "/tmp/calops ended.XXXXXX")
export CALOPS_JOBS_DIR=$T/jobs
cleanup() {
	[ -n "${DRV:-}" ] && kill "$DRV" 2>/dev/null
	stop_jobs "$T/jobs"
	rm -rf "$T"
}
trap cleanup EXIT

cp -r "$SRC/share/examples/labdemo" "$T/ws"
cat > "$T/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0]}
workspaces:
  - {host: local, path: "$T/ws"}
EOF

state_is() {
	"$CALOPS" jobs --json | tr -d ' \n' | grep -q "\"id\":\"$1\",[^}]*\"state\":\"$2\""
}
"$CALOPS" run --id old -- sh -c 'exit 4' >/dev/null || fail "run old"
until_ok 30 state_is old failed
"$CALOPS" run --id gate -- sh -c 'until [ -e "$0" ]; do sleep 0.05; done
exit 3' "$T/go" >/dev/null || fail "run gate"
"$CALOPS" run --id lostjob -- sleep 1000 >/dev/null || fail "run lostjob"

mkdir -p "$T/state"
XDG_STATE_HOME=$T/state "$DRIVER" "$CALOPS" "$T/lab.yaml" local --ended 3 \
    >"$T/out" 2>"$T/err" &
DRV=$!
has() { grep -q "$1" "$T/out"; }
until_ok 60 has '^listed$' || exit 1

# Ends after the first list: one that ran then, one started and ended
# between two polls, one whose supervisor dies.
: >"$T/go"
"$CALOPS" run --id quick -- sh -c 'exit 5' >/dev/null || fail "run quick"
sup=$(sed -n 's/.*"supervisor_pid": *\([0-9]*\).*/\1/p' \
    "$T/jobs/lostjob/job.json")
[ -n "$sup" ] && kill -9 "$sup"

told3() { [ "$(grep -c '^ended' "$T/out")" -ge 3 ]; }
until_ok 60 told3
wait "$DRV" || fail "the driver: $(cat "$T/err")"
DRV=

line() { grep "^ended	$1	" "$T/out"; }
line quick | grep -q "^ended	quick	failed	5	" ||
	fail "quick was not told failed with exit 5: $(cat "$T/out")"
ms=$(line quick | cut -f5)
[ -n "$ms" ] && [ "$ms" -ge 0 ] && [ "$ms" -le "$LIMIT_MS" ] ||
	fail "quick was told ${ms:-never} ms after its end ($LIMIT_MS at most)"
line gate | grep -q "^ended	gate	failed	3	" ||
	fail "gate was not told failed with exit 3: $(cat "$T/out")"
line lostjob | grep -q "^ended	lostjob	lost	" ||
	fail "lostjob was not told lost: $(cat "$T/out")"
grep -q "	old	" "$T/out" &&
	fail "old, ended before the first list, was told: $(cat "$T/out")"
[ "$(grep -c '^ended' "$T/out")" = 3 ] ||
	fail "a job was told twice: $(cat "$T/out")"

[ "$FAILED" = 0 ] && echo "ended_test: ok (a job that started and ended" \
    "between two polls told $ms ms after its end)"
exit "$FAILED"
