# jobs.sh: the jobs screen (4): two durable jobs listed with their states,
# newest first, on host local; Enter shows a job's log to its end; K asks
# for the job's id, a wrong one cancels, the right one kills it; with
# --readonly K only says read-only; q goes back to the board.  On a lab of two hosts, local and an ssh
# host, the local jobs show with their host and the ssh host as one row
# saying it is not reachable.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"

ECHO_ID=$("$CALOPS" run --jobs "$J" -- sh -c 'for i in 1 2 3; do echo line $i; done') ||
    fail "cannot start the echo job"
timeout 10 "$CALOPS" tail "$ECHO_ID" --jobs "$J" --follow >/dev/null ||
    fail "the echo job did not end"
SLEEP_ID=$("$CALOPS" run --jobs "$J" -- sleep 100) ||
    fail "cannot start the sleep job"

# row_re ID STATE: the row of job ID in that state.
row_re() {
	echo "^ $1 +[^ ]+ $2 "
}
# Who started a job (BY): shown where there is room for it.
BY="([^ ]+ +)?"

start CALOPS_JOBS_DIR="$J"
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
keys 4
wait_for "[4 Jobs]"
expect_re "^ ID +STATE +AGE +EXIT +HOST +${BY}WHAT"
wait_re "$(row_re "$ECHO_ID" done) +[0-9]+s +0 +local +${BY}sh -c for i in 1 2 3"
wait_re "$(row_re "$SLEEP_ID" running) +[0-9]+s +- +local +${BY}sleep 100"
expect_re "^ $ECHO_ID +✔ done"
expect_re "^ $SLEEP_ID +▶ running"
expect "2 of 2 jobs, 1 running"
# newer_above A B: job A's row is above job B's.
newer_above() {
	local a b

	a=$(screen | grep -n "^ $1 " | cut -d: -f1)
	b=$(screen | grep -n "^ $2 " | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] ||
	    fail "job $1 is not listed above job $2"
}
newer_above "$SLEEP_ID" "$ECHO_ID"
keys R
wait_for "listing the jobs again"

# The older job's log (the second row), to its end.
keys j Enter
wait_for "job $ECHO_ID on local"
wait_re "^ [0-9:]{8} log +info +line 3"
expect_re "^ [0-9:]{8} log +info +line 1"
expect_re "^ [0-9:]{8} log +info +line 2"
expect_re "^ [0-9:]{8} end +exit 0"
expect_re "^ [0-9:]{8} hello +job started by calops "
# The date above the first line with a time.
expect_re "^ +date +[0-9]{4}-[0-9]{2}-[0-9]{2}$"
expect "6 of 6 lines · ended"
# v: warn and up leaves the end event only; w and F toggle.
keys v
wait_for "showing info and up"
keys v
wait_for "showing warn and up"
expect_re "^ [0-9:]{8} end +exit 0"
reject "line 1"
keys v v
wait_for "showing every level"
expect "line 1"
keys w
wait_for "wrap on"
keys F
wait_for "follow off"
# / searches: the lines stay, the matches are marked and the selection
# jumps to the first; n and N go round the matches; no match says so.
keys g
keys /
send_text "line"
keys Enter
wait_re "^▸[0-9:]{8} log +info +line 1"
expect_re "^▸[0-9:]{8} log +info +line 2"
expect_re "^ [0-9:]{8} hello"
expect "6 of 6 lines"
keys n n
wait_for "line 3"
keys n
keys N
keys Escape
wait_gone "filter: line"
keys /
send_text "nope"
keys Enter
wait_for "filter: nope"
keys n
wait_for "no line matches 'nope'"
keys Escape
wait_for "6 of 6 lines"
keys q
wait_for "2 of 2 jobs"

# K on the sleep job: a wrong id cancels, the right one kills.
keys g K
wait_for "kill job $SLEEP_ID on local? type its id:"
send_text "nope"
keys Enter
wait_for "kill cancelled"
expect_re "$(row_re "$SLEEP_ID" running)"
[ "$("$CALOPS" jobs --jobs "$J" | grep -c running)" = 1 ] ||
    fail "the sleep job is not running after a cancelled kill"
keys K
wait_for "kill job $SLEEP_ID on local? type its id:"
send_text "$SLEEP_ID"
keys Enter
wait_re "$(row_re "$SLEEP_ID" killed)" 10
expect_re "^ $SLEEP_ID +■ killed"
keys Q
wait_exit 0

# Read-only: K says so and kills nothing.
RO_ID=$("$CALOPS" run --jobs "$J" -- sleep 100) ||
    fail "cannot start the third job"
launch --readonly "$MIDPROJECT"
wait_for "3 of 11 gates pass"
keys 4
wait_re "$(row_re "$RO_ID" running)"
keys g K
wait_for "read-only: jobs cannot be killed"
reject "type its id"
sleep 1
expect_re "$(row_re "$RO_ID" running)"
"$CALOPS" jobs --jobs "$J" | grep -q "^$RO_ID  *running" ||
    fail "a read-only console killed a job"
# q closes the Jobs tab, as help says, and quits only from the first
# (issue 30 (3)); a job listed, not streaming to this console, asks nothing.
keys q
wait_for "[1 Board]"
expect "q again quits"
keys q
wait_exit 0

# A lab of two hosts: the local jobs with HOST local, and above them the
# ssh host, whose name does not resolve here, as one dim row saying its
# state and why it is not up.
cat >"$TMP/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local}
  - {name: far, transport: ssh, address: far.example}
workspaces:
  - {host: local, path: $(yaml_str "$MIDPROJECT")}
EOF
launch "$TMP/lab.yaml"
wait_for "3 of 11 gates pass"
keys 4
wait_re "$(row_re "$RO_ID" running) +[0-9]+s +- +local +${BY}sleep 100"
expect_re "$(row_re "$ECHO_ID" done) +[0-9]+s +0 +local +${BY}sh -c"
expect_re "$(row_re "$SLEEP_ID" killed) .* local "
expect_re "^ host far: (connecting|disconnected|reconnecting)"
expect "3 of 3 jobs, 1 running · 1 host not reachable"
newer_above "$RO_ID" "$SLEEP_ID"
[ "$(screen | grep -n "^ host far: " | cut -d: -f1)" -lt \
    "$(screen | grep -n "^ $RO_ID " | cut -d: -f1)" ] ||
    fail "the row of host far is not above the jobs"
# The jobs are still chosen from the first row under it.
keys g Enter
wait_for "job $RO_ID on local"
keys q
wait_for "3 of 3 jobs"
keys C-c
wait_exit 0
finish
