#!/bin/bash
# sshtunnel_test.sh: the tunnels of a jump host's session and its one
# half-sent packet (remote/sshtunnel.c) against a loopback lab behind a
# bastion (share/sshlab.sh --bastion).  The bastion is reached through a
# ProxyCommand relay (tests/remote/relay.py), so the socketpair between it
# and libssh2 fills and the bastion's session is left with packets half
# sent; sshinput_driver starts 9 commands at once on host1 behind it, each
# given its own 256 KiB and printing 4 MiB to stderr before the SHA-256 of
# its stdin: the tunnel writes and reads together.  libssh2 1.10 refuses
# any other packet while one is half sent, and a read that sends a window
# adjustment then says LIBSSH2_ERROR_SOCKET_SEND: the old tunnel read
# while its own write (or the bastion's channel's) waited, and the
# bastion's session was lost ("Unable to send transfer-window adjustment
# packet"): in 4 runs of 6 here.  Four runs, in each of which every
# command must get exactly its bytes.
#
# Skipped (77) as proxy_test.sh is.
#
#	sshtunnel_test.sh CALOPS_BINARY DRIVER
set -u

CALOPS=${1:?usage: sshtunnel_test.sh CALOPS_BINARY DRIVER}
DRIVER=${2:?usage: sshtunnel_test.sh CALOPS_BINARY DRIVER}
. "$(dirname "$0")/lib.sh"
remote_test sshtunnel_test
sshlab_prereqs
bastion_prereqs
LAB_FLAGS=--bastion lab_up 1 ||
	{ echo "$LAB_LOG"; fail "the lab did not start"; exit 1; }

# host1's calops a script: `sum` says 4 MiB on stderr, then the digest of
# its stdin; anything else (the transport's version probe) is calops'.
printf '#!/bin/sh\nif [ "$1" = sum ]; then\n\thead -c 4194304 /dev/zero |\n' \
    >"$L/sum.sh"
printf '\t    tr "\\000" x | fold -w 1023 >&2\n\texec sha256sum\nfi\n' \
    >>"$L/sum.sh"
printf 'exec "%s" "$@"\n' "$L/bin/calops" >>"$L/sum.sh"
chmod +x "$L/sum.sh"
sed "s|calops: \".*\"|calops: \"$L/sum.sh\"|" "$L/lab.yaml" >"$L/sum.yaml"

# The bastion through the relay; the rest as the lab's ssh_config says
# (the first value of a keyword wins; an Include in a Host block would
# count for that block alone).
cat >"$L/relay.conf" <<EOF
Host bastion
  ProxyCommand $PY "$SRC/tests/remote/relay.py" %h %p
Host *
Include "$L/ssh_config"
EOF
for run in 1 2 3 4; do
	if out=$(timeout 60 "$DRIVER" "$L/sum.yaml" host1 9 \
	    "$L/relay.conf" 2>&1); then
		say "behind a relayed bastion, run $run: $out"
	else
		fail "behind a relayed bastion, run $run: $out"
	fi
done
[ "$FAILED" = 0 ] && say "passed"
exit $FAILED
