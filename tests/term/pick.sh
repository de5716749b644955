# pick.sh: hosts and chips are picked, not typed blind (issue 30 §5), on a
# lab of two hosts of this machine, host1 and host2, each with a copy of
# the complete example, the board on host2's (the lab's first host is
# host1: the one a question used to suggest).
#
#  1. r on G9 lists both hosts with their states, host2 (the board's)
#     selected; Up and Down move, Esc cancels with nothing started; picking host1
#     (a click selects it, Enter takes it) confirms the soak on host1.
#  2. s on the Soak screen picks the host, then any of its chips, every
#     one marked first: Space unmarks chip 0, Enter takes chip 1 alone;
#     none marked is refused.  A golden run started by hand runs on chip 1:
#     the confirmation lists chip 1 and weighs that job (its id typed), and
#     the soak starts on host2's chip 1.
#  3. t on the Faults screen picks a chip: chip 1's row says the soak
#     runs there; picked, the trigger asks for its job id or the word
#     disturb (confirm.h's rule stands), and the fault runs on chip 1.
#  4. H on the Faults screen picks the host shown from a list with states
#     (host2 first); host1 picked, the grid is host1's.
#  5. r on G7 asks its chip too: the first idle one (chip 0: the soak is on
#     chip 1) selected first; chip 1 picked, the confirmation says so and
#     weighs the soak it would disturb.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"

copy_ws "$COMPLETE"
WS1=$TMP/host1-ws
cp -a "$WS" "$WS1" || fail "cannot copy the workspace"
cat >"$TMP/lab.yaml" <<EOF2
hosts:
  - {name: host1, transport: local, chips: [0, 1]}
  - {name: host2, transport: local, chips: [0, 1]}
workspaces:
  - {host: host2, path: $(yaml_str "$WS")}
  - {host: host1, path: $(yaml_str "$WS1")}
runner: [$(yaml_str "$(dirname "$CALOPS")/calrt-sim"), --time-scale, "20"]
EOF2

# chips_of JOBDIR: the --chips its command was given.
chips_of() {
	python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["argv"]
print(a[a.index("--chips") + 1])' "$1/job.json"
}

# job_with WORD: the folder of the one job whose job.json holds WORD, once
# `calops run` has written it (the console says "started" first).
job_with() {
	local i f

	for i in $(seq 1 400); do
		f=$(grep -l -- "$1" "$J"/*/job.json 2>/dev/null)
		[ -n "$f" ] && break
		sleep 0.05
	done
	[ "$(printf '%s\n' "$f" | grep -c .)" -eq 1 ] ||
		fail "not one job with $1 in $J: $f"
	dirname "$f"
}

start CALOPS_JOBS_DIR="$J"
launch "$TMP/lab.yaml"
wait_for "11 of 11 gates pass"

# ---- 1. r on G9: host2 first, host1 picked ----
on_gate 9 r
wait_for "Run G9's job on which host?"
wait_re "^ [▸] host2 +up"
expect_re "^   host1 +up"
# Up and Down move the mark; Esc cancels.
keys Up
wait_re "^ [▸] host1 "
keys Down
wait_re "^ [▸] host2 "
keys Escape
wait_for "G9's job not started"
[ -z "$(ls "$J")" ] || fail "a cancelled pick started a job: $(ls "$J")"
on_gate 9 r
wait_for "Run G9's job on which host?"
wait_re "^ [▸] host2 "
# A click on host1's row selects it (SGR, as a terminal sends it).
row=$(screen | grep -nE "^   host1 " | head -1 | cut -d: -f1)
[ -n "$row" ] || fail "no host1 row"
send_text $'\e[<0;6;'"$row"'M'
send_text $'\e[<0;6;'"$row"'m'
wait_re "^ [▸] host1 "
keys Enter
wait_for "Start soak 24h · chips 0,1 on host1?"
keys Escape
wait_gone "Start soak 24h · chips 0,1 on host1?"
[ -z "$(ls "$J")" ] || fail "a cancelled confirmation started a job"

# ---- 2. s on Soak: host2, chip 1, where a slow golden run runs ----
CALOPS_JOBS_DIR=$J "$CALOPS" run --id slow --cwd "$WS" -- \
    "$(dirname "$CALOPS")/calrt-sim" --time-scale 0.01 golden \
    --calbin "$WS/05-calbin/package" --chips 1 >/dev/null ||
	fail "cannot start the slow golden run"
keys 5
wait_for "[5 Soak]"
keys s
wait_for "Run a soak on which host?"
wait_re "^ [▸] host2 "
pick host2
wait_for "Run a soak on which chips of host2?"
wait_re "^ [▸] all chips +\[x\] 0,1"
expect_re "^   chip 0 +\[x\] idle"
WAIT_SECS=30 wait_re "^   chip 1 +\[x\] busy: golden · chip 1 \(job slow\)"
# None marked is refused; every one marked again; chip 0 unmarked.
keys Space
wait_re "^ [▸] all chips +\[ \] 0,1"
expect_re "^   chip 1 +\[ \] busy"
keys Enter
wait_for "no chip marked"
keys Space
wait_re "^ [▸] all chips +\[x\] 0,1"
pick "chip 0" Space
wait_re "^ [▸] chip 0 +\[ \] idle"
expect_re "^   all chips +\[-\] 0,1"
keys Enter
wait_for "soak for how long?"
send_text 1h
keys Enter
wait_for "Start soak 1h · chips 1 on host2?"
expect_re "chips +1$"
expect "this would disturb golden · chip 1 (job slow)"
expect "type its job id (slow) or the word disturb"
send_text slow
keys Enter
wait_for "started soak 1h · chips 1"
soak=$(job_with '"stress"')
[ "$(chips_of "$soak")" = 1 ] ||
	fail "the soak's command is not on chip 1: $(cat "$soak/job.json")"

# ---- 3. t on Faults: chip 1, where the soak runs ----
keys 6
wait_for "[6 Faults]"
wait_for "host host2"
keys t
wait_re "Run fault [a-z-]+ on which chip of host2\?"
wait_re "^ [▸] chip 0 +idle"
WAIT_SECS=30 wait_re "^   chip 1 +busy: .*soak 1h · chips 1 \(job [^ )]+\)"
pick "chip 1"
wait_for "would disturb a running job"
send_text disturb
keys Enter
# Said, or already over (a fault at 20x can end before a frame shows it).
wait_re "(triggered [a-z-]+ on host2:1|fault [a-z-]+ · chip 1 on host2: )"
fault=$(job_with '"fault"')
[ "$(chips_of "$fault")" = 1 ] ||
	fail "the fault did not run on chip 1: $(cat "$fault/job.json")"

# ---- 4. H on Faults: the host picked, with states ----
keys H
wait_for "Show the faults of which host?"
wait_re "^ [▸] host2 +up"
expect_re "^   host1 +up"
pick host1
wait_for "host host1"
keys H
wait_re "^ [▸] host1 +up"
keys Escape
wait_for "host host1"

# ---- 5. r on G7: its chip picked, the first idle one first ----
# The slow golden run counts as G7's job in the workspace: it goes first.
CALOPS_JOBS_DIR=$J "$CALOPS" kill -- slow >/dev/null ||
	fail "cannot kill the slow golden run"
keys 1
wait_for "[1 Board]"
wait_until '!E' "^ G7 +▶" 30 || fail "G7 still shows the slow run"
on_gate 7 r
wait_for "Run G7's job on which host?"
pick host2
wait_for "Run G7's job on which chip of host2?"
wait_re "^ [▸] chip 0 +idle"
expect_re "^   chip 1 +busy: .*soak 1h · chips 1"
pick "chip 1"
wait_for "Start G7 golden + 8 faults · chip 1 on host2?"
expect_re "chips +1$"
expect "this would disturb soak 1h · chips 1"
expect_re "type (its job id|the word disturb)"
keys Escape
wait_gone "Start G7 golden + 8 faults · chip 1 on host2?"
[ -z "$(grep -l calops-g7 "$J"/*/job.json 2>/dev/null)" ] ||
	fail "a cancelled confirmation started G7's job"

quit_calops
finish
