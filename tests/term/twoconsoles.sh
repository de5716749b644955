# twoconsoles.sh: two consoles on one state folder, as an engineer with the
# soak in one terminal and the faults in another has them.  The first one
# follows the demo lab's jobs; the second says it only watches them, shows
# the soak the first started moving live, refuses to start a job, and shows
# a fault the first triggers after it opened.  The first quits mid-soak:
# the second takes over, the soak ends in it with G9 passing, its mirror is
# the job's own events byte for byte, and each outcome is logged once.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"

start CALOPS_JOBS_DIR="$J"
launch
wait_re "^ G9 +✘ fail"
reject "jobs watched"
keys j j j j j j j j j r
wait_for "Start soak 24h · chips 0-3 on local?"
send_text "0-3"
keys Enter
wait_re "^ G9 +▶ run"

# The second console: it watches, and the soak moves in it.
ON=second
second
wait_re "^ demo lab"
wait_for "another calops console follows th"  # clipped at 80 columns
keys 5
wait_for "[5 Soak]"
expect "jobs watched"
wait_re "▶ running +soak 24h · chips 0-3 @local"
soak_moves "the watching console"
keys 6
wait_for "[6 Faults]"
keys g j j j j j t
wait_for "another calops console follows th"  # the rest is clipped at 80

# A fault the first console triggers shows in the second.
ON=test
keys 6
wait_for "[6 Faults]"
keys g j j j j j t
pick "chip 0"
# The soak runs on chip 0: its job id or the word disturb (issue 30 (2)).
wait_for "wait-timeout on local:0 would disturb a running job"
send_text disturb
keys Enter
WAIT_SECS=60 wait_re "^ wait-timeout +✔ (recovered )?[0-9.]+s"
ON=second
WAIT_SECS=20 wait_re "^ wait-timeout +✔ (recovered )?[0-9.]+s"

# The first quits while the soak runs (q back to the board, Q asks while
# jobs stream, y): the second takes over.
ON=test
keys q
wait_for "[1 Board]"
keys Q
wait_re "jobs? streams? here"
send_text y
keys Enter
wait_exit 0
ON=second
# The status bar's mark goes for good; the message saying so may be
# replaced by a later one (the soak ending), so it is not waited for.
wait_gone "jobs watched"
keys 1
wait_for "[1 Board]"
WAIT_SECS=120 wait_re "^ G9 +✔ pass"

soak=$(ls "$J" | while read -r id; do
	grep -q '"soak"' "$TMP/state/calops/streams/local/$id.json" &&
	    echo "$id"
done)
[ -n "$soak" ] || fail "no soak job in $J"
cmp -s "$J/$soak/events.jsonl" "$TMP/state/calops/streams/local/$soak.jsonl" ||
    fail "the soak's mirror is not its events.jsonl"
A=$TMP/state/calops/actions.jsonl
[ "$(grep -c '"outcome"' "$A")" -eq 2 ] ||
    fail "expected 2 outcomes in $A: $(grep -c '"outcome"' "$A")"
[ "$(grep '"outcome"' "$A" | grep -c "\"job\":\"$soak\"")" -eq 1 ] ||
    fail "the soak's outcome is not logged once"
keys q
for i in $(seq 1 100); do
	tm has-session -t second 2>/dev/null || break
	sleep 0.1
done
tm has-session -t second 2>/dev/null && fail "the second console did not quit"
finish
