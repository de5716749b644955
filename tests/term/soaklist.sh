# soaklist.sh: the Soak screen lists every soak of the lab (issue 29 (2)):
# two soaks started outside this console by two people (`calops run
# --actor`, as their consoles or scripts would) are listed with their host,
# id and who started them; Enter watches the one selected, its header
# saying who started it, and q comes back to the list.  The Jobs screen
# says who started each job: its BY column (the first column left out on
# a narrow terminal) and d's "Started by".  Who started a job is the host's
# word: an escape in it is shown as text, never obeyed.
. "$(dirname "$0")/lib.sh"

demo_lab --time-scale 100
SIM=$(dirname "$CALOPS")/calrt-sim
soak() {
	"$CALOPS" run --jobs "$TMP/jobdir" --id "$1" --actor "$2" -- "$SIM" \
	    --time-scale 100 stress --calbin "$TMP/demo/05-calbin/package" \
	    --duration 24h --chips "$3" >/dev/null ||
	    fail "cannot start soak $1 by hand"
}
soak soak-alice alice 0,1
soak soak-bob bob@lab 2,3
# As a host could say it: an escape sequence (clear the screen) in it.
sed -i 's/"actor": "bob@lab"/"actor": "bob\\u001b[2J@lab"/' \
    "$TMP/jobdir/soak-bob/job.json" || fail "cannot edit bob's job.json"
grep -qF 'bob\u001b[2J@lab' "$TMP/jobdir/soak-bob/job.json" ||
	fail "bob's job.json has no escape in its actor"
BOB='bob\^\[\[2J@lab'

start CALOPS_JOBS_DIR="$TMP/jobdir"
launch "$TMP/lab.yaml"
wait_re "^ G9 "
keys 5
wait_for "[5 Soak]"
WAIT_SECS=30 wait_for "2 soaks on the lab"
wait_re "^ HOST +JOB +BY +STATE +CHIPS +ELAPSED"
WAIT_SECS=30 wait_re "^ +local +soak-bob +$BOB +(▶ running|⟳ catching up) +2,3 "
WAIT_SECS=30 wait_re "^ +local +soak-alice +alice +(▶ running|⟳ catching up) +0,1 "
reject "TTFT p99"

# Enter on alice's soak (the older one, the second row): its graphs, and who
# started it in the header.
keys g j
keys Enter
WAIT_SECS=30 wait_re "(running|catching up) +soak 24h · chips 0,1 @local by alice"
wait_re "TTFT p99 [0-9]"
soak_moves "alice's soak, chosen on the list"
expect "soak 2/2 n next  q list"
# n: the other one, bob's, whose header says so.
keys n
WAIT_SECS=30 wait_re "(running|catching up) +soak 24h · chips 2,3 @local by $BOB"
# q: back to the list, not to the board.
keys q
wait_for "2 soaks on the lab"
expect_re "^ +local +soak-alice +alice "
# Esc on the list backs out of nothing: the list stays.
keys Escape
wait_for "q, :q or ^C quits"
expect "2 soaks on the lab"

# Jobs: who started each job.  At 80 columns BY is the first column left
# out, the command keeping its room; d says it whole.
keys 4
wait_for "[4 Jobs]"
WAIT_SECS=20 wait_for "soak-alice"
if [ "$COLS" -ge 100 ]; then
	wait_re "^ ID +STATE +AGE +EXIT +HOST +BY +WHAT"
	wait_re "^ soak-bob +▶ running .* local +$BOB +soak 24h"
	wait_re "^ soak-alice +▶ running .* local +alice +soak 24h"
else
	wait_re "^ ID +STATE +AGE +EXIT +HOST +WHAT"
	reject_re " BY "
fi
keys g d
wait_re "^ +Started by +$BOB"
keys q
wait_for "[4 Jobs]"
quit_calops
finish
