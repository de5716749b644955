# sshbastionask.sh: a jump host's unknown key is asked about as a host's
# is (issue 26 (4)).  One SSH host of a loopback lab behind a bastion
# (share/sshlab.sh --bastion, ProxyJump), the bastion's key not in
# known_hosts, StrictHostKeyChecking not set (ssh asks): the console asks
# about the bastion's key, with its fingerprint, through host1 (a jump is
# no host of the lab file); "yes" writes it to known_hosts and host1 comes
# up through the bastion.
#
# Skipped (77) without tmux, sshd, root (the hosts' network namespace),
# systemd-socket-activate, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs
bastion_prereqs

LAB_FLAGS=--bastion lab_up 1 cleanup || fail "the lab did not start: $LAB_LOG"
cp "$L/lab.yaml" "$TMP/lab.yaml"
# The bastion's line out of known_hosts, ssh's own policy (ask) in.
grep -v ' bastion$' "$L/known_hosts" >"$TMP/kh" ||
	fail "the lab's known_hosts has no line for host1"
cp "$TMP/kh" "$L/known_hosts"
grep -q ' bastion$' "$L/known_hosts" && fail "the bastion's line stayed"
mkdir -p -m 700 "$TMP/home/.ssh"
sed '/StrictHostKeyChecking/d' "$L/ssh_config" >"$TMP/home/.ssh/config"
chmod 600 "$TMP/home/.ssh/config"

start
launch "$TMP/lab.yaml"
fp=$(ssh-keygen -lf "$L/bastion/ssh_host_ed25519_key.pub" | cut -d' ' -f2)
WAIT_SECS=60 wait_for "Trust it from now on? Type yes"
expect "$fp"
expect "bastion: new host key"
send_text "yes"
keys Enter
WAIT_SECS=60 wait_re "^ G7 +· pending"	# host1's workspace, through it
grep -q "$(cut -d' ' -f2 "$L/bastion/ssh_host_ed25519_key.pub")" \
    "$L/known_hosts" || fail "the bastion's key is not in known_hosts"
keys 7
wait_re "^ host1 +up "
wait_re "^  via bastion +up "
quit_calops
finish
