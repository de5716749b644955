# sshfleet.sh: three SSH hosts of a loopback lab (share/sshlab.sh) streaming
# at once into one console in tmux (issue 11): a soak on each host and a
# fault on host3 while its soak runs; the console is SIGKILLed mid-stream
# and started again; every job ends, and the console's mirror of each is
# the host's events.jsonl byte for byte, seqs 1..N: nothing lost, nothing
# twice, across the restart, on every host.
#
# Skipped (77) without tmux, sshd, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs

lab_up 3 cleanup || fail "the lab did not start: $LAB_LOG"
# A 24 h soak in about 90 s: long enough to be killed in the middle of.
sed 's/--time-scale 3000/--time-scale 1000/' "$L/lab.yaml" >"$TMP/lab.yaml"
grep -q -- "--time-scale 1000" "$TMP/lab.yaml" ||
	fail "the lab file has no runner to slow down"

start
launch "$TMP/lab.yaml"
WAIT_SECS=60 wait_re "^ G7 +· pending"	# host1's workspace

# ---- a soak on each host ----
for k in 1 2 3; do
	keys 1 G k r
	wait_for "on which host"
	send_text "host$k"
	keys Enter
	WAIT_SECS=30 wait_for "Start soak 24h · chips 0,1 on host$k?"
	send_text "0,1"
	keys Enter
	wait_gone "Start soak 24h · chips 0,1 on host$k?"
done

# ---- a fault on host3, on a chip its soak runs on ----
keys 6
wait_re "^ SCENARIO +chip 0 +chip 1"
for i in 1 2 3; do
	screen | grep -q "on host3:" && break
	keys H
	wait_until E "on host$((i + 1)):" 10 ||
		fail "H did not go on to host$((i + 1))"
done
keys g j j j j j
wait_re "wait-timeout on host3:0"
keys t
wait_for "type the chip id (0) to trigger wait-timeout on host3:0"
send_text 0
keys Enter
wait_gone "type the chip id (0)"

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
		m=$(streams "host$k")/$(basename "$d").jsonl
		for i in $(seq 1 4800); do
			grep -q '"type":"end"' "$m" 2>/dev/null && break
			sleep 0.05
		done
		grep -q '"type":"end"' "$m" 2>/dev/null ||
			fail "the end of $d never reached the console"
		same_stream "$d/events.jsonl" "$m"
	done
done
keys q
wait_exit 0
finish
