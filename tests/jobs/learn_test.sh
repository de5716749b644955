#!/bin/bash
# learn_test.sh: mirrors are caches (issue 29 item 1): a console with an
# empty state folder learns of the jobs another console started on the
# lab, within a few seconds, and follows their events into its mirror as
# if it had started them (src/lab/labpoll.c).  Console A (one state
# folder, tests/unit/labrun_driver.c) starts a fault run and G9's soak on
# a local host; console B (another state folder, nothing in it) is started
# while the soak runs and must know both jobs, with their kinds and
# labels, and end with a mirror of each byte for byte the host's
# events.jsonl.  A job started by hand (not a lab job) is not taken in.
#
#	learn_test.sh CALOPS_BINARY LABRUN_DRIVER
set -u

CALOPS=${1:?usage: learn_test.sh CALOPS_BINARY LABRUN_DRIVER}
DRIVER=${2:?usage: learn_test.sh CALOPS_BINARY LABRUN_DRIVER}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
FAILED=0
fail() { echo "learn_test: FAIL: $*"; FAILED=1; }
# shellcheck source=tests/jobs/lib.sh
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d "/tmp/calops learn.XXXXXX")
export CALOPS_JOBS_DIR=$T/jobs
cleanup() {
	stop_jobs "$T/jobs"
	rm -rf "$T"
}
trap cleanup EXIT

cp -r "$SRC/share/examples/labdemo" "$T/ws"
# 24 h of soak in about 3 s.
cat > "$T/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0, 1]}
workspaces:
  - {host: local, path: "$T/ws"}
runner: calrt-sim --time-scale 30000
EOF

# Not a lab job: listed by the Jobs screen, never taken into the model.
"$CALOPS" run -- true >/dev/null || fail "calops run -- true"
XDG_STATE_HOME=$T/a "$DRIVER" "$CALOPS" "$T/lab.yaml" local fault >/dev/null \
    2>"$T/a.err" || fail "A: $(cat "$T/a.err")"
soak=$(XDG_STATE_HOME=$T/a "$CALOPS" run-gate "$T/lab.yaml" G9 2>"$T/a.err") ||
    fail "A's soak: $(cat "$T/a.err")"
XDG_STATE_HOME=$T/b "$DRIVER" "$CALOPS" "$T/lab.yaml" local --learn 2 \
    >"$T/b.out" 2>"$T/b.err" || fail "B: $(cat "$T/b.err" "$T/b.out")"

grep -q "^$soak	soak 24h · chips 0,1	done	" "$T/b.out" ||
    fail "B does not hold A's soak: $(cat "$T/b.out")"
grep -q "	fault kv-full · chip 0	done	" "$T/b.out" ||
    fail "B does not hold A's fault run: $(cat "$T/b.out")"
[ "$(grep -c "	done	" "$T/b.out")" = 2 ] ||
    fail "B holds other jobs than the two lab jobs: $(cat "$T/b.out")"
known=$(sed -n 's/^known	//p' "$T/b.out")
[ "${known%.*}" -ge 0 ] && [ "${known%.*}" -le 5000 ] ||
    fail "B knew of the first job after $known ms (5000 at most)"
for f in "$T"/jobs/*/events.jsonl; do
	id=$(basename "$(dirname "$f")")
	grep -q "^$id	" "$T/b.out" || continue
	cmp -s "$f" "$T/b/calops/streams/local/$id.jsonl" ||
		fail "B's mirror of $id is not the host's events.jsonl"
done

[ "$FAILED" = 0 ] && echo "learn_test: ok (first job known in $known ms)"
exit "$FAILED"
