# sshbastion.sh: two SSH hosts of a loopback lab behind a bastion
# (share/sshlab.sh --bastion: ProxyJump, the hosts unreachable but through
# it) in one console in tmux, keepalives every second.  A soak streams on
# host1; the Hosts screen shows the bastion under each host, up.  The
# bastion is stopped mid-stream: host1 and the bastion's row go
# disconnected; it is started again (sshlab.sh up): host1 comes back up by
# itself, and the console's mirror of the soak is host1's events.jsonl byte
# for byte, seqs 1..N: nothing lost, nothing twice.
#
# Skipped (77) without tmux, sshd, root (the hosts' network namespace),
# systemd-socket-activate, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs
bastion_prereqs

LAB_FLAGS=--bastion lab_up 2 cleanup || fail "the lab did not start: $LAB_LOG"
sed -e 's/keepalive_s: 5/keepalive_s: 1/' "$L/lab.yaml" >"$TMP/lab.yaml"
grep -q "keepalive_s: 1$" "$TMP/lab.yaml" ||
	fail "the lab file has no keepalive to shorten"
# The console reads ~/.ssh/config: the lab's, with its ProxyJump.
mkdir -p -m 700 "$TMP/home/.ssh"
printf 'Include "%s"\n' "$L/ssh_config" >"$TMP/home/.ssh/config"
chmod 600 "$TMP/home/.ssh/config"

start
launch "$TMP/lab.yaml"
WAIT_SECS=60 wait_re "^ G7 +· pending"	# host1's workspace

# ---- a soak on host1, through the bastion ----
keys 1 G k r
wait_for "on which host"
pick host1
WAIT_SECS=30 wait_for "Start soak 24h · chips 0,1 on host1?"
send_text "0,1"
keys Enter
wait_gone "Start soak 24h · chips 0,1 on host1?"

streams() { echo "$TMP/state/calops/streams/$1"; }
lines() { cat "$(streams "$1")"/*.jsonl 2>/dev/null | wc -l; }
for i in $(seq 1 600); do
	[ "$(lines host1)" -gt 50 ] && break
	sleep 0.05
done
[ "$(lines host1)" -gt 50 ] || fail "host1 does not stream"
keys 7
wait_re "^ host1 +up "
wait_re "^  via bastion +up "

# ---- the bastion stopped mid-stream, then started again ----
sh "$SRC/share/sshlab.sh" down "$L" bastion >/dev/null 2>&1 ||
	fail "sshlab.sh down bastion failed"
wait_re "^ host1 +(disconnected|retry #|reconnecting)"
wait_re "^  via bastion +(disconnected|reconnecting)"
sh "$SRC/share/sshlab.sh" up "$L" bastion >/dev/null 2>&1 ||
	fail "sshlab.sh up bastion failed"
WAIT_SECS=90 wait_re "^ host1 +up "
wait_re "^  via bastion +up "

# ---- every event once: the mirror is the job's own file ----
for d in "$L"/host1/state/calops/jobs/*/; do
	same_job_stream "$d" "$(streams host1)/$(basename "$d").jsonl"
done
quit_calops
finish
