# sshfleet.sh: three SSH hosts of a loopback lab (share/sshlab.sh) streaming
# at once into one console in tmux (issue 11), keepalives every second: a
# soak on each host and a fault on host3 while its soak runs; then, all
# streaming, host1's session sshd is SIGKILLed (disconnected, reconnected),
# host2's sshd is stopped for 20 s and started again, and the console
# itself is SIGKILLed and started again.  Every job ends as it would have
# (the soak on host1 done), and the console's mirror of each is the host's
# events.jsonl byte for byte, seqs 1..N: nothing lost, nothing twice, on
# every host, across all of it.
#
# Skipped (77) without tmux, sshd, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs

lab_up 3 cleanup || fail "the lab did not start: $LAB_LOG"
# A 24 h soak in about 2 min: long enough for all that follows.
sed -e 's/--time-scale 3000/--time-scale 700/' \
    -e 's/keepalive_s: 5/keepalive_s: 1/' "$L/lab.yaml" >"$TMP/lab.yaml"
grep -q -- "--time-scale 700" "$TMP/lab.yaml" ||
	fail "the lab file has no runner to slow down"
grep -q "keepalive_s: 1$" "$TMP/lab.yaml" ||
	fail "the lab file has no keepalive to shorten"

start
launch "$TMP/lab.yaml"
WAIT_SECS=60 wait_re "^ G7 +· pending"	# host1's workspace

# ---- a soak on each host ----
for k in 1 2 3; do
	keys 1 G k r
	wait_for "on which host"
	# The board is host1's: its host is selected first.
	wait_re "^ [▸] host1 "
	pick "host$k"
	WAIT_SECS=30 wait_for "Start soak 24h · chips 0,1 on host$k?"
	send_text "0,1"
	keys Enter
	wait_gone "Start soak 24h · chips 0,1 on host$k?"
done

# ---- a fault on host3, on a chip its soak runs on ----
keys 6
wait_re "^ SCENARIO +chip 0 +chip 1"
# H picks the host shown (issue 30), from every host with its state.
keys H
wait_for "Show the faults of which host?"
wait_re "^   host3 +up"
pick host3
wait_until E "on host3:" 10 || fail "H did not show host3"
keys g j j j j j
wait_re "wait-timeout on host3:0"
keys t
pick "chip 0"
# Its soak runs on chip 0: the word disturb, not the chip id (issue 30 (2)).
wait_for "wait-timeout on host3:0 would disturb a running job"
send_text disturb
keys Enter
wait_gone "would disturb a running job"

# ---- every host streaming: SIGKILL the console ----
streams() { echo "$TMP/state/calops/streams/$1"; }
hostjobs() { echo "$L/$1/state/calops/jobs"; }
lines() { cat "$(streams "$1")"/*.jsonl 2>/dev/null | wc -l; }
for k in 1 2 3; do
	for i in $(seq 1 600); do
		[ "$(lines "host$k")" -gt 100 ] && break
		sleep 0.05
	done
	[ "$(lines "host$k")" -gt 100 ] || fail "host$k does not stream"
done

# host1's session: its sshd SIGKILLed, the socket closed under the console.
sshd1=$(cat "$L/host1/sshd.pid")
session=$(pgrep -P "$sshd1")
[ -n "$session" ] || fail "no session under host1's sshd"
kill -9 $session
keys 7
wait_re "^ host1 +(disconnected|retry #|reconnecting)"
WAIT_SECS=60 wait_re "^ host1 +up "

# host2's sshd stopped for 20 s (the scenario's length, not a wait for
# calops), then started again.
sh "$SRC/share/sshlab.sh" down "$L" host2 >/dev/null 2>&1 ||
	fail "sshlab.sh down host2 failed"
wait_re "^ host2 +(disconnected|retry #|reconnecting)"
sleep 20
reject_re "^ host2 +up "
sh "$SRC/share/sshlab.sh" up "$L" host2 >/dev/null 2>&1 ||
	fail "sshlab.sh up host2 failed"
WAIT_SECS=90 wait_re "^ host2 +up "
for k in 1 2; do
	before=$(lines "host$k")
	for i in $(seq 1 600); do
		[ "$(lines "host$k")" -gt "$before" ] && break
		sleep 0.05
	done
	[ "$(lines "host$k")" -gt "$before" ] ||
		fail "host$k's stream did not resume"
done

pid=$(calops_pid) || fail "no calops running"
kill -9 "$pid"
wait_for "[calops#1 exited 137]"
[ "$(ls "$(hostjobs host3)" | wc -l)" -eq 2 ] ||
	fail "expected the soak and the fault on host3: $(ls "$(hostjobs host3)")"
for k in 1 2 3; do
	for d in "$(hostjobs "host$k")"/*/; do
		grep -q '"type":"end"' "$d/events.jsonl" &&
		    grep -q '"stress"' "$d/job.json" &&
		    fail "host$k's soak ended before the kill: too fast"
	done
done

# ---- started again: every stream resumes where its mirror ends ----
launch "$TMP/lab.yaml"
for k in 1 2 3; do
	for d in "$(hostjobs "host$k")"/*/; do
		same_job_stream "$d" "$(streams "host$k")/$(basename "$d").jsonl"
	done
done
# host1's soak went on through the kill of its session: it ran to the end.
for d in "$(hostjobs host1)"/*/; do
	grep -Eq '"state": *"done"' "$d/job.json" ||
		fail "host1's job did not end done: $(cat "$d/job.json")"
done
quit_calops
finish
