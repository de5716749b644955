#!/bin/bash
# sshcanon_test.sh: CanonicalizeHostname's lookups are made off the
# console's loop (remote/ssh.c, lookup_resolves): in a network and mount
# namespace of its own, /etc/resolv.conf names a DNS server of the test's
# (fakedns.py) on 127.0.0.1.  When it never answers (glibc told to wait
# 30 s five times over, so that a lookup made in the loop would outlast
# the test), `calops hosts --timeout 2` still ends on time, the host
# "connecting" and waiting for its name while another host of the lab has
# made its attempts meanwhile; the old code waited in ssh_transport_new.
# A host behind a jump host whose name is made canonical waits for that
# name.  When it answers, the settings are read again with the canonical
# names: Host and "Match canonical" of the final pass apply, as in ssh,
# and the jump host is the canonical one; with
# CanonicalizeFallbackLocal no and no name found, the host is refused with
# ssh's reason.  No sshd: the ports are closed ones.
#
# Skipped (77) where no namespace can be made.
#
#	sshcanon_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: sshcanon_test.sh CALOPS_BINARY}
. "$(dirname "$0")/lib.sh"
remote_test sshcanon_test
if [ "${2:-}" != inside ]; then
	command -v unshare >/dev/null && command -v ip >/dev/null ||
		skip "no unshare or ip (util-linux, iproute2)"
	unshare --net --mount --map-root-user true 2>/dev/null ||
		skip "cannot make a network and mount namespace here"
	exec unshare --net --mount --map-root-user bash "$0" "$CALOPS" inside
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/sshcanon.XXXXXX") || exit 1
DNS_PID=
trap '[ -n "$DNS_PID" ] && kill "$DNS_PID" 2>/dev/null; rm -rf "$T"' EXIT
ip link set lo up || { fail "cannot bring lo up"; exit 1; }
printf 'nameserver 127.0.0.1\noptions timeout:30 attempts:5\n' \
    >"$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf ||
	{ fail "cannot put a resolv.conf of ours in place"; exit 1; }
. "$SRC/tests/remote/hostsjson.sh"

# dns MODE...: fakedns.py (MODE: hang, or NAME=ADDR...) listening, the
# last one gone.
dns() {
	[ -n "$DNS_PID" ] && kill "$DNS_PID" 2>/dev/null && wait "$DNS_PID"
	rm -f "$T/ready" "$T/asked"
	"$PY" "$SRC/tests/remote/fakedns.py" "$T/asked" "$T/ready" "$@" &
	DNS_PID=$!
	until [ -e "$T/ready" ]; do
		kill -0 "$DNS_PID" 2>/dev/null ||
			{ fail "fakedns.py did not start"; exit 1; }
		sleep 0.05
	done
}

# sshval HOST KEY: KEY of HOST's "ssh" settings in $T/out.json.
sshval() {
	field "$1" ssh | "$PY" -c 'import json, sys
print(json.load(sys.stdin).get(sys.argv[1], ""))' "$2"
}

cat >"$T/config" <<'EOF'
Host h1 h9 j1
  CanonicalizeHostname yes
  CanonicalDomains lab.test
Host h9
  CanonicalizeFallbackLocal no
Host hj
  ProxyJump j1
Host ha
  CanonicalizeHostname always
Host hp ha hn hc
  CanonicalDomains lab.test
  CanonicalizeHostname yes
Host hp ha
  ProxyCommand nc %h %p
Host hn
  ProxyJump none
Host hc
  ProxyCommand none
Host h1.lab.test
  Port 1
Match canonical
  User canon
EOF
cat >"$T/lab.yaml" <<'EOF'
hosts:
  - name: h
    transport: ssh
    address: h1
  - name: nine
    transport: ssh
    address: h9
  - name: behind
    transport: ssh
    address: hj
  - name: other
    transport: ssh
    address: 127.0.0.1
    port: 1
EOF
# ssh.c resolve_canonicalize(): "yes" leaves a name a proxy or a jump host
# resolves ("ProxyJump none" is one there), "always" does not; held against
# ssh -G itself, on the same resolver.
for a in hp ha hn hc; do
	printf '  - name: %s\n    transport: ssh\n    address: %s\n' "$a" "$a" \
	    >>"$T/lab.yaml"
done
hosts() {
	"$CALOPS" hosts --json --timeout 2 --ssh-config "$T/config" \
	    "$T/lab.yaml" >"$T/out.json" 2>"$T/err.txt"
	[ $? = 1 ] || fail "$CASE: calops hosts: $(cat "$T/err.txt")"
}

CASE=hang
dns hang
hosts
expect h connecting "looking up 'h1.lab.test.' (CanonicalizeHostname)"
[ -z "$(field h ssh)" ] || fail "hang: h has settings before its name"
grep -qx 'h1.lab.test' "$T/asked" ||
	fail "hang: the DNS server was never asked for h1.lab.test"
# A jump host's name is its own config's: the host behind waits for it.
expect behind connecting "looking up 'j1.lab.test.'"
case $(field other error) in
*"connect to 127.0.0.1 port 1"*) ;;
*)	fail "hang: the other host made no attempt: $(field other error)" ;;
esac
say "ok: a hung resolver leaves the loop going"

CASE=answer
dns h1.lab.test=127.0.0.1 j1.lab.test=127.0.0.1 hp.lab.test=127.0.0.1 \
    ha.lab.test=127.0.0.1 hn.lab.test=127.0.0.1 hc.lab.test=127.0.0.1
hosts
for a in h1 hp ha hn hc; do
	want=$(ssh -G -F "$T/config" "$a" 2>/dev/null </dev/null |
	    awk '$1 == "hostname" { print $2 }')
	h=$a
	[ "$a" = h1 ] && h=h
	[ "$(sshval "$h" hostname)" = "$want" ] ||
		fail "answer: $a is '$(sshval "$h" hostname)', ssh -G: '$want'"
done
case $(sshval hp hostname)/$(sshval ha hostname) in
hp/ha.lab.test) ;;
*)	fail "answer: the direct rule untested: hp and ha are" \
	    "$(sshval hp hostname), $(sshval ha hostname)" ;;
esac
[ "$(sshval h hostname)" = h1.lab.test ] ||
	fail "answer: hostname '$(sshval h hostname)', not h1.lab.test"
[ "$(sshval h port)" = 1 ] ||
	fail "answer: port '$(sshval h port)': Host h1.lab.test not read"
[ "$(sshval h user)" = canon ] ||
	fail "answer: user '$(sshval h user)': Match canonical not read"
case $(field h error) in
*"connect to 127.0.0.1 port 1"*) ;;
*)	fail "answer: h did not try h1.lab.test: $(field h error)" ;;
esac
[ "$(field behind ssh | "$PY" -c 'import json, sys
print(json.load(sys.stdin)["proxy_jump"][0]["hostname"])')" = j1.lab.test ] ||
	fail "answer: the jump host is not j1.lab.test: $(field behind ssh)"
expect nine refused "cannot make 'h9' canonical" "CanonicalizeFallbackLocal"
[ -z "$(field nine ssh)" ] || fail "answer: nine has settings"
say "ok: the answer read into the final pass"
exit $FAILED
