#!/bin/bash
# ssh_test.sh: the SSH transport (remote/ssh.c) against real sshd hosts of a
# loopback lab (share/sshlab.sh), through `calops hosts --json`, which
# connects to every host of a lab file at once and says each one's state:
#
#  1. Three hosts come up at once: each runs this calops (the version and
#     protocol agree), and its running jobs are counted (one started on
#     host2 over ssh counts there only).
#  2. Host keys: an unknown key is refused with its SHA256 fingerprint (as
#     ssh-keygen -l gives it) and the file is not touched; accept_new adds
#     it, every earlier line and comment kept, and the host comes up; a
#     changed key is refused naming known_hosts:LINE and both
#     fingerprints; a @revoked key is refused.
#  3. Authentication: a wrong user, an encrypted key with nobody to type
#     its passphrase (a word on ssh-agent), an RSA key (why libssh2 1.10
#     cannot), an agent with no keys; the encrypted key loaded into a real
#     ssh-agent brings the host up.
#  4. The host: calops missing there, or speaking another protocol, is
#     refused; a closed port, a listener that never speaks SSH and one
#     that sends megabytes of garbage are disconnected with the reason, and
#     the command ends (the silent one after the 15 s attempt limit).
#
#	ssh_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: ssh_test.sh CALOPS_BINARY}
. "$(dirname "$0")/lib.sh"
remote_test ssh_test
. "$SRC/tests/remote/hostsjson.sh"
sshlab_prereqs
T=$(mktemp -d "$BASE/calops-ssh-test.XXXXXX")
L=$T/lab
AGENT_PID=
LISTENERS=()

cleanup() {
	local p
	sh "$LABSH" stop "$L" >/dev/null 2>&1
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null
	for p in "${LISTENERS[@]}"; do
		kill "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT

sh "$LABSH" start "$L" 3 --calops "$CALOPS" >"$T/start.log" 2>&1 ||
	{ cat "$T/start.log"; fail "the lab did not start"; exit 1; }

# host1's part of the lab file alone, with VARIANT applied to its lines
# (sed expressions), as the lab file V.yaml.
one() {
	local out=$T/$1.yaml
	shift
	awk '/^  - name: host2$/ { skip = 1 } /^workspaces:/ { skip = 0 }
	    /^  - \{host: host[23]/ { next } !skip' "$L/lab.yaml" >"$out"
	for e in "$@"; do
		sed -i "$e" "$out"
	done
	printf '%s\n' "$out"
}

# hosts FILE: `calops hosts --json FILE` into $T/out.json, its exit status
# in $RC.
hosts() {
	"$CALOPS" hosts --json "$@" >"$T/out.json" 2>"$T/err.txt"
	RC=$?
}

# ---- 1. three hosts at once ----
CASE=up
on() { ssh -F "$L/ssh_config" "$@"; }
# ssh hands its words to the remote shell joined: quote the path for it.
rcalops=$(printf %q "$L/bin/calops")
on host2 "$rcalops" run --id sleeper -- sleep 600 >/dev/null ||
	fail "cannot start a job on host2 over ssh"
hosts "$L/lab.yaml"
[ "$RC" = 0 ] || fail "$CASE: exit $RC, not 0: $(cat "$T/out.json" \
	"$T/err.txt")"
ours=$("$CALOPS" version --json | $PY -c 'import json,sys
print(json.load(sys.stdin)["version"])')
for h in host1 host2 host3; do
	expect "$h" up
	[ "$(field "$h" version)" = "$ours" ] ||
		fail "$CASE: $h runs '$(field "$h" version)', not '$ours'"
	[ -n "$(field "$h" rtt_ms)" ] || fail "$CASE: $h has no round trip"
done
[ "$(field host2 jobs_running)" = 1 ] &&
    [ "$(field host1 jobs_running)" = 0 ] ||
	fail "$CASE: running jobs host1 $(field host1 jobs_running), host2" \
	    "$(field host2 jobs_running), not 0 and 1"
on host2 "$rcalops" kill sleeper >/dev/null 2>&1
say "three hosts up"

# Every host failing before it connects (an ssh config that cannot be
# read: no transport is made at all), or as it connects (a name that does
# not resolve, a port nobody listens on): each in its state at once, not
# a hang past --timeout (timeout(1) is only the guard).
CASE=all_fail_early
printf 'hosts:\n  - {name: nx, transport: ssh, address: nowhere.invalid}\n%s\n' \
    '  - {name: closed, transport: ssh, address: 127.0.0.1, port: 1}' \
    >"$T/allfail.yaml"
mkdir -p "$T/config.d"
timeout 60 "$CALOPS" hosts --json "$T/allfail.yaml" --timeout 30 \
    --ssh-config "$T/config.d" >"$T/out.json" 2>"$T/err.txt"
RC=$?
[ "$RC" != 124 ] || fail "$CASE: calops hosts hung on a config error"
expect nx refused "is not a regular file"
expect closed refused "is not a regular file"
timeout 60 "$CALOPS" hosts --json "$T/allfail.yaml" --timeout 30 \
    >"$T/out.json" 2>"$T/err.txt"
RC=$?
[ "$RC" != 124 ] || fail "$CASE: calops hosts hung"
expect nx disconnected "cannot resolve"
expect closed disconnected "Connection refused"
# --ssh-config /dev/null is no config at all, as ssh -F /dev/null.
timeout 60 "$CALOPS" hosts --json "$T/allfail.yaml" --timeout 30 \
    --ssh-config /dev/null >"$T/out.json" 2>"$T/err.txt"
RC=$?
[ "$RC" != 124 ] || fail "$CASE: calops hosts hung"
expect nx disconnected "cannot resolve"
expect closed disconnected "Connection refused"
say "every host failing at once: no hang"

# ---- 2. host keys ----
port=$(sed -n 's/^Port //p' "$L/host1/sshd_config")
fp=$(ssh-keygen -lf "$L/host1/ssh_host_ed25519_key.pub" | cut -d' ' -f2)
printf '# calops test: a comment to keep\n\n' >"$T/kh_unknown"
cp "$T/kh_unknown" "$T/kh_before"
CASE=unknown
hosts "$(one unknown "s|known_hosts: .*|known_hosts: \"$T/kh_unknown\"|")"
expect host1 refused "is not known" "$fp"
[ "$(field host1 unknown_host_key)" = true ] ||
	fail "$CASE: not flagged as an unknown key to accept"
cmp -s "$T/kh_unknown" "$T/kh_before" ||
	fail "$CASE: known_hosts was changed without a yes"
[ "$RC" = 1 ] || fail "$CASE: exit $RC, not 1"

CASE=accept_new
hosts "$(one accept "s|known_hosts: .*|known_hosts: \"$T/kh_unknown\"|" \
	"s|^    chips:|    accept_new: true\n    chips:|")"
expect host1 up
head -c "$(wc -c <"$T/kh_before")" "$T/kh_unknown" | cmp -s - "$T/kh_before" ||
	fail "$CASE: the file's earlier lines were not kept"
ssh-keygen -F "[127.0.0.1]:$port" -f "$T/kh_unknown" | grep -q ED25519 ||
	ssh-keygen -F "[127.0.0.1]:$port" -f "$T/kh_unknown" |
	grep -q ssh-ed25519 || fail "$CASE: ssh-keygen -F does not find" \
		"the key added: $(cat "$T/kh_unknown")"
hosts "$(one unknown "s|known_hosts: .*|known_hosts: \"$T/kh_unknown\"|")"
expect host1 up

CASE=changed
ssh-keygen -q -t ed25519 -N '' -f "$T/other" >/dev/null
ofp=$(ssh-keygen -lf "$T/other.pub" | cut -d' ' -f2)
{ echo "# first line"; printf '[127.0.0.1]:%s %s\n' "$port" \
	"$(cut -d' ' -f1,2 "$T/other.pub")"; } >"$T/kh_changed"
hosts "$(one changed "s|known_hosts: .*|known_hosts: \"$T/kh_changed\"|")"
expect host1 refused "has changed" "$fp" "$ofp" "$T/kh_changed:2"

CASE=revoked
{ printf '@revoked * %s\n' "$(cut -d' ' -f1,2 \
	"$L/host1/ssh_host_ed25519_key.pub")"; cat "$L/known_hosts"; } \
	>"$T/kh_revoked"
hosts "$(one revoked "s|known_hosts: .*|known_hosts: \"$T/kh_revoked\"|")"
expect host1 refused "revoked" "$T/kh_revoked:1"
say "host keys: unknown, accepted, changed, revoked"

# ---- 3. authentication ----
CASE="wrong user"
hosts "$(one user 's|^    user: .*|    user: "calops-no-such-user"|')"
expect host1 refused "authentication as 'calops-no-such-user' failed"

CASE=encrypted
pass=$L/client/id_ed25519_pass
hosts "$(one pass "s|identity: .*|identity: \"$pass\"|")"
expect host1 refused "$pass is encrypted" "ssh-agent"

CASE=rsa
hosts "$(one rsa "s|identity: .*|identity: \"$L/client/id_rsa\"|")"
expect host1 refused "is an RSA key" "use an Ed25519 or ECDSA key"

CASE="agent, no keys"
eval "$(ssh-agent -s)" >/dev/null
AGENT_PID=$SSH_AGENT_PID
hosts "$(one pass "s|identity: .*|identity: \"$pass\"|")"
expect host1 refused "ssh-agent holds no keys" "$pass is encrypted"

CASE="agent"
printf '#!/bin/sh\ncat "%s"\n' "$L/client/passphrase" >"$T/askpass"
chmod 700 "$T/askpass"
SSH_ASKPASS=$T/askpass SSH_ASKPASS_REQUIRE=force DISPLAY=none \
	ssh-add "$pass" </dev/null >/dev/null 2>&1 ||
	fail "$CASE: ssh-add could not load the encrypted key"
hosts "$(one pass "s|identity: .*|identity: \"$pass\"|")"
expect host1 up
kill "$AGENT_PID"
AGENT_PID=
unset SSH_AUTH_SOCK SSH_AGENT_PID
say "authentication: user, encrypted, RSA, agent"

# ---- 4. the host itself ----
CASE="calops missing"
hosts "$(one missing 's|calops: .*|calops: "/nonexistent/calops"|')"
expect host1 refused "calops is not there" "/nonexistent/calops"

CASE="another protocol"
printf '#!/bin/sh\necho '"'"'{"version":"9.0","protocol":2}'"'"'\n' \
	>"$T/calops2"
chmod 755 "$T/calops2"
hosts "$(one proto "s|calops: .*|calops: \"$T/calops2\"|")"
expect host1 refused "speaks protocol 2"

# listen MODE: a listener on a free port that accepts and then is silent,
# or sends megabytes of garbage; its port in $LPORT.
listen() {
	$PY - "$1" >"$T/port" <<'EOF' &
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(4)
print(s.getsockname()[1], flush=True)
sys.stdout.close()
c, _ = s.accept()
if sys.argv[1] == "garbage":
    try:
        c.sendall(os.urandom(4 << 20))
    except OSError:
        pass
time.sleep(120)
EOF
	LISTENERS+=($!)
	until [ -s "$T/port" ]; do sleep 0.05; done
	LPORT=$(cat "$T/port")
	: >"$T/port"
}

CASE="closed port"
listen silent
closed=$LPORT
kill "${LISTENERS[-1]}"
wait "${LISTENERS[-1]}" 2>/dev/null
hosts "$(one closed "s|^    port: .*|    port: $closed|")"
expect host1 disconnected "Connection refused"

CASE=garbage
listen garbage
hosts "$(one garbage "s|^    port: .*|    port: $LPORT|")"
expect host1 disconnected "SSH handshake with 127.0.0.1 port $LPORT failed"

CASE=silent
listen silent
hosts "$(one silent "s|^    port: .*|    port: $LPORT|")"
expect host1 disconnected "no answer in 15 s"
say "the host: missing calops, another protocol, closed, garbage, silent"

[ "$FAILED" = 0 ] && say "PASS"
exit "$FAILED"
