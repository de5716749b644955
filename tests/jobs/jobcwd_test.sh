#!/bin/bash
# jobcwd_test.sh: jobs run where they say (issue 29 item 5).  Every kind of
# lab job the console starts (G7's golden and faults, G9's soak, a gate's
# command from the lab file, a fault, a golden run, a release's chip step)
# started as the console's confirmation starts it (tests/unit/
# labrun_driver.c, the lab model), on a local host whose workspace's path
# has a blank and on an SSH host of a loopback lab (share/sshlab.sh): each
# job's job.json on the host says cwd is the workspace the confirmation
# shows, and so does `calops jobs --json` (what `d` on the job shows).
#
# The SSH half is skipped (exit 77 once the local half passed) where a
# loopback lab cannot run (tests/remote/lib.sh).
#
#	jobcwd_test.sh CALOPS_BINARY LABRUN_DRIVER
set -u

CALOPS=${1:?usage: jobcwd_test.sh CALOPS_BINARY LABRUN_DRIVER}
DRIVER=${2:?usage: jobcwd_test.sh CALOPS_BINARY LABRUN_DRIVER}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
KINDS="g7 g9 g1 fault golden chip-step"
FAILED=0
SSH_SKIP=
fail() { echo "jobcwd_test: FAIL: $*"; FAILED=1; }
skip() { SSH_SKIP="$*"; }
# shellcheck source=tests/jobs/lib.sh
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d "/tmp/calops jobcwd.XXXXXX")
cleanup() {
	stop_jobs "$T/state/calops/jobs"
	rm -rf "$T"
}
trap cleanup EXIT

# check JOBS OUT WHAT: every job the driver printed in OUT (id, then the
# workspace the model showed) has that workspace's real path as its cwd in
# JOBS/ID/job.json, one job per kind.
check() {
	local jobs=$1 out=$2 what=$3 id ws real got n=0
	while IFS=$'\t' read -r id ws; do
		n=$((n + 1))
		real=$(cd "$ws" && pwd -P) || { fail "$what: no '$ws'"; continue; }
		got=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["cwd"])' \
		    "$jobs/$id/job.json" 2>&1)
		[ "$got" = "$real" ] ||
			fail "$what: job $id ran in '$got', not in '$real'"
	done < "$out"
	[ "$n" = 6 ] || fail "$what: $n jobs started of 6 ($KINDS)"
}

# The local host: the demo workspace at a path with a blank.
WS="$T/work space"
cp -r "$SRC/share/examples/labdemo" "$WS"
cat > "$T/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0, 1]}
workspaces:
  - {host: local, path: "$WS"}
gates:
  G1: calrt-sim reference
runner: calrt-sim --time-scale 3000
EOF
export XDG_STATE_HOME=$T/state
unset CALOPS_JOBS_DIR
# shellcheck disable=SC2086
"$DRIVER" "$CALOPS" "$T/lab.yaml" local $KINDS >"$T/local.out" \
    2>"$T/local.err" || fail "local: $(cat "$T/local.err")"
check "$T/state/calops/jobs" "$T/local.out" local
# What the Jobs screen's d shows: the host's job list.
id=$(head -1 "$T/local.out" | cut -f1)
"$CALOPS" jobs --json | "$PY" -c 'import json, sys
j = [j for j in json.load(sys.stdin)["jobs"] if j["id"] == sys.argv[1]]
sys.exit(0 if j and j[0]["cwd"] == sys.argv[2] else 1)' "$id" \
    "$(cd "$WS" && pwd -P)" || fail "local: jobs --json gives $id another cwd"

# An SSH host of a loopback lab.
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs
if [ -z "$SSH_SKIP" ]; then
	if ! lab_up 1 cleanup; then
		fail "the lab did not start: $LAB_LOG"
	else
		sed 's/^runner:/gates:\n  G1: calrt-sim reference\nrunner:/' \
		    "$L/lab.yaml" > "$T/ssh.yaml"
		export XDG_STATE_HOME=$T/console
		# shellcheck disable=SC2086
		"$DRIVER" "$CALOPS" "$T/ssh.yaml" host1 $KINDS >"$T/ssh.out" \
		    2>"$T/ssh.err" || fail "ssh: $(cat "$T/ssh.err")"
		check "$L/host1/state/calops/jobs" "$T/ssh.out" ssh
	fi
fi

[ "$FAILED" = 0 ] || exit 1
[ -z "$SSH_SKIP" ] || { echo "jobcwd_test: ssh half skipped: $SSH_SKIP"; exit 77; }
echo "jobcwd_test: ok"
