#!/bin/bash
# proxy_test.sh: ProxyJump and ProxyCommand (remote/ssh.c,
# remote/sshtunnel.c) against a loopback lab behind a bastion
# (share/sshlab.sh --bastion: the hosts in a network namespace of their
# own, the bastion the only way in), through `calops hosts --json` and
# `calops run-gate`:
#
#  1. A direct connection fails, for ssh and for calops alike.
#  2. Both hosts come up behind the bastion, through one session to it
#     (the bastion logs one login), which is a host of its own in jumps[]:
#     up, with a round trip; a job started on host1 through it runs there.
#  3. The bastion cannot reach a port: the host says so, via the bastion.
#  4. A chain of two jumps (the bastion, then host2): host1 comes up, both
#     jumps in its jumps[], first hop first.
#  5. ProxyCommand through the real `ssh -W %h:%p bastion`: both hosts up,
#     the command's stdin blocking; a ProxyCommand that fails: what it said
#     on stderr is the reason.
#  6. The bastion stopped: both hosts disconnected, saying so via it.
#
# Skipped (77) without sshd, as not root, or without systemd-socket-activate
# or network namespaces (what --bastion needs).
#
#	proxy_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: proxy_test.sh CALOPS_BINARY}
. "$(dirname "$0")/lib.sh"
remote_test proxy_test
. "$SRC/tests/remote/hostsjson.sh"
sshlab_prereqs
bastion_prereqs
T=$(mktemp -d "$BASE/calops-proxy-test.XXXXXX")
L=$T/lab

cleanup() {
	sh "$LABSH" stop "$L" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

sh "$LABSH" start "$L" 2 --bastion --calops "$CALOPS" >"$T/start.log" 2>&1 ||
	{ cat "$T/start.log"; fail "the lab did not start"; exit 1; }
port() { sed -n "s/^Port \([0-9]*\)$/\1/p" "$L/$1/sshd_config"; }

# hosts CONFIG FILE: `calops hosts --json` into $T/out.json, its exit
# status in $RC.
hosts() {
	"$CALOPS" hosts --json --timeout 30 --ssh-config "$1" "$2" \
	    >"$T/out.json" 2>"$T/err.txt"
	RC=$?
}

logins() { grep -c "Accepted publickey" "$L/bastion/sshd.log" 2>/dev/null; }

# ---- 1. no way in but the bastion ----
CASE=direct
ssh -F "$L/ssh_config" -o ProxyJump=none -o ConnectTimeout=5 host1 true \
    2>"$T/ssh.err" && fail "$CASE: ssh reached host1 without the bastion"
sed -e "s/^    address: host1$/    address: 127.0.0.1\n    port: $(port host1)/" \
    "$L/lab.yaml" >"$T/direct.yaml"
grep -q "port: $(port host1)" "$T/direct.yaml" || fail "$CASE: no direct lab"
: >"$T/empty_config"
hosts "$T/empty_config" "$T/direct.yaml"
expect host1 disconnected "connect to 127.0.0.1 port $(port host1)"
[ "$(field host1 jumps)" = "" ] || fail "$CASE: a jump on a direct way"

# ---- 2. behind the bastion ----
CASE=bastion
before=$(logins)
hosts "$L/ssh_config" "$L/lab.yaml"
[ "$RC" = 0 ] || fail "$CASE: calops hosts exited $RC: $(cat "$T/err.txt")"
for h in host1 host2; do
	expect $h up
	[ "$(field $h version)" = "$("$CALOPS" version --json |
	    $PY -c 'import json,sys; print(json.load(sys.stdin)["version"])')" ] ||
		fail "$CASE: $h runs calops '$(field $h version)'"
	[ "$(field $h name 0)" = bastion ] ||
		fail "$CASE: $h's first jump is '$(field $h name 0)'"
	[ "$(field $h state 0)" = up ] ||
		fail "$CASE: $h's bastion is '$(field $h state 0)'"
	[ -n "$(field $h rtt_ms 0)" ] || fail "$CASE: $h's bastion has no rtt"
	[ "$(field $h name 1)" = "" ] || fail "$CASE: $h has a second jump"
done
[ $(($(logins) - before)) = 1 ] ||
	fail "$CASE: $(($(logins) - before)) logins on the bastion, not 1"
# A job through it: started on host1, running there.
"$CALOPS" run-gate --ssh-config "$L/ssh_config" --host host1 \
    --workspace "$L/host1/ws" "$L/lab.yaml" G9 >"$T/id" 2>"$T/err.txt" ||
	fail "$CASE: run-gate through the bastion: $(cat "$T/err.txt")"
id=$(cat "$T/id")
[ -f "$L/host1/state/calops/jobs/$id/events.jsonl" ] ||
	fail "$CASE: job '$id' is not on host1"
hosts "$L/ssh_config" "$L/lab.yaml"
[ "$(field host1 jobs_running)" = 1 ] ||
	fail "$CASE: host1 runs $(field host1 jobs_running) jobs, not 1"
XDG_STATE_HOME=$L/host1/state "$CALOPS" kill --grace 1 "$id" >/dev/null

# ---- 3. where the bastion cannot go ----
CASE=unreachable
sed -e "/^Host host2$/,/^Host /s/^\tPort .*/\tPort 1/" "$L/ssh_config" \
    >"$T/port1_config"
hosts "$T/port1_config" "$L/lab.yaml"
expect host1 up
expect host2 disconnected "via bastion: it cannot reach 127.0.0.1 port 1"
[ "$(field host2 state 0)" = up ] ||
	fail "$CASE: the bastion is '$(field host2 state 0)'"

# ---- 4. a chain of two jumps: the bastion, then host2 ----
CASE=chain
sed -i -e 's/^AllowTcpForwarding no$/AllowTcpForwarding local/' \
    "$L/host2/sshd_config"
sh "$LABSH" down "$L" host2 >/dev/null 2>&1 &&
    sh "$LABSH" up "$L" host2 >/dev/null 2>&1 ||
	fail "$CASE: host2 did not start again"
sed -e "/^Host host1$/,/^Host /s/^\tProxyJump .*/\tProxyJump bastion,host2/" \
    "$L/ssh_config" >"$T/chain_config"
hosts "$T/chain_config" "$L/lab.yaml"
expect host1 up
[ "$(field host1 name 0)" = bastion ] && [ "$(field host1 name 1)" = host2 ] ||
	fail "$CASE: host1 goes via '$(field host1 name 0)'," \
	    "'$(field host1 name 1)'"
[ "$(field host1 state 1)" = up ] ||
	fail "$CASE: host1's second jump is '$(field host1 state 1)'"
expect host2 up

# ---- 5. ProxyCommand ----
CASE=proxycommand
# It notes the flags of its stdin first: blocking, as a program expects.
sed -e "s|^\tProxyJump bastion$|\tProxyCommand sh -c \"grep flags /proc/self/fdinfo/0 >'$T/flags.%n'; exec ssh -F '$L/ssh_config' -W %h:%p bastion\"|" \
    "$L/ssh_config" >"$T/pc_config"
grep -q "ProxyCommand" "$T/pc_config" || fail "$CASE: no ProxyCommand"
hosts "$T/pc_config" "$L/lab.yaml"
expect host1 up
expect host2 up
[ "$(field host1 jumps)" = "" ] || fail "$CASE: a jump on a command's way"
flags=$(awk '{ print $2 }' "$T/flags.host1" 2>/dev/null)
[ -n "$flags" ] && [ $((0$flags & 04000)) = 0 ] ||
	fail "$CASE: the command's stdin is not blocking (flags '$flags')"
sed -e "s|^\tProxyJump bastion$|\tProxyCommand echo no way to %h >\&2; exit 3|" \
    "$L/ssh_config" >"$T/pc_bad_config"
hosts "$T/pc_bad_config" "$L/lab.yaml"
expect host1 disconnected "its ProxyCommand said: no way to 127.0.0.1"
# ssh runs the command by $SHELL -c (sshconnect.c): so does calops.
printf '#!/bin/sh\necho "$*" >>"%s/shell.log"\nexec /bin/sh "$@"\n' "$T" \
    >"$T/notesh"
chmod +x "$T/notesh"
SHELL=$T/notesh hosts "$T/pc_bad_config" "$L/lab.yaml"
expect host1 disconnected "its ProxyCommand said: no way to 127.0.0.1"
grep -q -- "-c exec echo no way to 127.0.0.1" "$T/shell.log" ||
	fail "$CASE: the command was not run by \$SHELL"

# ---- 6. the bastion gone ----
CASE=bastion-down
sh "$LABSH" down "$L" bastion >/dev/null 2>&1 ||
	fail "$CASE: sshlab.sh down bastion failed"
hosts "$L/ssh_config" "$L/lab.yaml"
expect host1 disconnected "via bastion: connect to 127.0.0.1 port" \
    "Connection refused"
[ "$(field host1 state 0)" = disconnected ] ||
	fail "$CASE: the bastion is '$(field host1 state 0)'"
sh "$LABSH" up "$L" bastion >/dev/null 2>&1 ||
	fail "$CASE: sshlab.sh up bastion failed"
hosts "$L/ssh_config" "$L/lab.yaml"
expect host1 up
expect host2 up

[ "$FAILED" = 0 ] && say "all passed"
exit "$FAILED"
