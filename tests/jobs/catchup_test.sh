#!/bin/bash
# catchup_test.sh: catch-up progress for a job this console did not start
# (issue 29 (2), protocol.md §4).  A 24 h soak has run on a local host
# (the simulator at --time-scale 0: some 175,000 events); the host says
# how far its events go (`calops jobs --json`'s last_seq, checked against
# its events.jsonl), and a console with an empty state folder
# (tests/unit/labrun_driver.c --catchup, the lab model without a screen)
# takes the soak in from that list already knowing it: the words the Soak
# and Jobs screens show start at `catching up: 0 of M events (0%)` while
# the job is `catching up`, M the file's last seq, their per cent never
# goes back, and the job is done with every event once caught up.  What
# is checked is the model's state before each sleep of its loop, not a
# screen at some moment: the take-in and the first events the tail
# brings are two turns of the loop whatever the machine's speed.
#
#	catchup_test.sh CALOPS_BINARY LABRUN_DRIVER
set -u

CALOPS=${1:?usage: catchup_test.sh CALOPS_BINARY LABRUN_DRIVER}
DRIVER=${2:?usage: catchup_test.sh CALOPS_BINARY LABRUN_DRIVER}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
FAILED=0
fail() { echo "catchup_test: FAIL: $*"; FAILED=1; }
# shellcheck source=tests/jobs/lib.sh
. "$(dirname "$0")/lib.sh"

local_lab catchup "[0]" "calrt-sim --time-scale 0"

soak=$(XDG_STATE_HOME=$T/a "$CALOPS" run-gate "$T/lab.yaml" G9 2>"$T/a.err") ||
    { fail "the soak: $(cat "$T/a.err")"; exit 1; }
ended() { ! "$CALOPS" jobs --running --json | grep -q "\"$soak\""; }
until_ok 120 ended || exit 1
ev=$T/jobs/$soak/events.jsonl
last=$(tail -n 1 "$ev" | grep -o '"seq":[0-9]*' | cut -d: -f2)
[ "$last" -gt 100000 ] || fail "a 24 h soak of $last events only"

# The host says how far: its list's last_seq is the file's last seq.
"$CALOPS" jobs --json >"$T/jobs.json" || fail "calops jobs --json"
python3 - "$T/jobs.json" "$soak" "$last" <<'EOF' || fail "jobs --json: $(cat "$T/jobs.json")"
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
job = [j for j in jobs if j["id"] == sys.argv[2]][0]
sys.exit(0 if job.get("last_seq") == int(sys.argv[3]) else 1)
EOF

XDG_STATE_HOME=$T/b "$DRIVER" "$CALOPS" "$T/lab.yaml" local --catchup 1 \
    >"$T/b.out" 2>"$T/b.err" || fail "B: $(cat "$T/b.err" "$T/b.out")"
grep "^catchup	$soak	" "$T/b.out" >"$T/said"
head -n 1 "$T/said" | grep -q "	catching up	catching up: 0 of $last events (0%)$" ||
    fail "the soak's catch-up did not start at 0 of $last: $(head -n 3 "$T/said")"
[ "$(wc -l <"$T/said")" -ge 2 ] ||
    fail "the soak's catch-up was said once only: $(cat "$T/said")"
# Every word said is how far of the host's last seq, going up.
awk -F'\t' -v m="$last" '
	!match($4, /^catching up: [0-9]+ of [0-9]+ events \([0-9]+%\)$/) {
		print "not progress: " $0; bad = 1 }
	{ split($4, w, /[ (%]+/); n = w[3]; of = w[5]; p = w[7] }
	of != m { print "not of " m ": " $0; bad = 1 }
	n + 0 < prev { print "went back: " $0; bad = 1 }
	p + 0 > 99 || p + 0 != int(100 * n / of) && p + 0 != 99 {
		print "wrong per cent: " $0; bad = 1 }
	{ prev = n + 0 }
	END { exit bad }' "$T/said" >"$T/bad" || fail "$(cat "$T/bad")"
grep -q "^$soak	soak 24h · chips 0	done	$last$" "$T/b.out" ||
    fail "B did not end with the soak done at seq $last: $(grep -v '^catchup' "$T/b.out")"
cmp -s "$ev" "$T/b/calops/streams/local/$soak.jsonl" ||
    fail "B's mirror of the soak is not the host's events.jsonl"

[ "$FAILED" = 0 ] && echo "catchup_test: ok ($(wc -l <"$T/said") steps" \
    "said, to $last events)"
exit "$FAILED"
