# joblogpage.sh: the job log of a run longer than it holds (issue 29): it
# opens on the newest lines and says which events it holds; g pages the
# run's first event in from the host, G the newest back; up past the first
# line held pages the ones before it in; a search finds a line that only
# the oldest part of the run has, asking the host.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"

LONG_ID=$("$CALOPS" run --jobs "$J" -- sh -c \
    'echo first-of-run; echo needle-early; seq 1 30000 | sed "s/^/row /";
     echo last-of-run') || fail "cannot start the long job"
timeout 60 "$CALOPS" tail "$LONG_ID" --jobs "$J" --follow >/dev/null ||
    fail "the long job did not end"

start CALOPS_JOBS_DIR="$J"
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"
keys 4
wait_re "^ $LONG_ID +✔ done"
keys Enter
wait_for "job $LONG_ID on local"
wait_for "last-of-run"
# The newest lines held, and which events they are of the run.
wait_re "events [0-9]+-3000[0-9] of 3000[0-9]\)"
reject "first-of-run"
# g: the run's first event, paged in from the host.
keys g
wait_for "first-of-run"
expect_re "^.[0-9:]{8} hello +job started by calops"
expect_re "events 1-2000 of 3000[0-9]\)"
keys j j
expect_re "^ [0-9:]{8} log +info +needle-early"
# G: the newest back.
keys G
wait_for "last-of-run"
reject "first-of-run"
# Up past the first line held: the events before it.  G held the newest
# 2000; a page up more than that goes past the first.
wait_re "events 2800[0-9]-3000[0-9] of"
tm send-keys -t test -N 130 PPage
wait_re "events 2[0-7][0-9]{3}-3000[0-9] of"
# A search finds what only the oldest part has: the host is asked.
keys /
send_text "needle-early"
keys Enter
wait_re "^▸[0-9:]{8} log +info +needle-early"
expect "first-of-run"
# (at 80 columns the search shown cuts the status line)
expect_re "\(events 1(-2000 of|…)"
# n goes round: the host has no other, the one held is it again.
keys n
wait_re "^▸[0-9:]{8} log +info +needle-early"
# From the start of the run, a line only its end has.
keys Escape
wait_gone "filter: needle-early"
keys /
send_text "last-of-run"
keys Enter
wait_re "^▸[0-9:]{8} log +info +last-of-run"
reject "first-of-run"
finish
