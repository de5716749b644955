#!/bin/bash
# sshinput_test.sh: commands' stdin over one SSH session (remote/ssh.c,
# chan_write and the session's one half-sent packet) against the loopback
# lab's real sshd.  sshinput_driver starts 6 commands at once on host1,
# each given its own 256 KiB: a script that prints the SHA-256 of its
# stdin stands for calops there.  Every command must get exactly its bytes:
#
#  1. Directly.
#  2. Through a ProxyCommand relay (tests/remote/relay.py): the socketpair
#     between it and libssh2 fills, so libssh2 is left with packets half
#     sent while other channels want to write and read.  libssh2 1.10
#     refuses any other packet then (LIBSSH2_ERROR_BAD_USE, or
#     LIBSSH2_ERROR_SOCKET_SEND from a window adjustment): the old
#     chan_write took that for a closed input and dropped the rest.
#
#	sshinput_test.sh CALOPS_BINARY DRIVER
set -u

CALOPS=${1:?usage: sshinput_test.sh CALOPS_BINARY DRIVER}
DRIVER=${2:?usage: sshinput_test.sh CALOPS_BINARY DRIVER}
. "$(dirname "$0")/lib.sh"
remote_test sshinput_test
sshlab_prereqs
lab_up 1 || { echo "$LAB_LOG"; fail "the lab did not start"; exit 1; }
port=$(sed -n 's/^Port //p' "$L/host1/sshd_config")

# The lab file with host1's calops a script: `sum` prints the digest of
# its stdin, anything else (the transport's version probe) is calops'.
printf '#!/bin/sh\n[ "$1" = sum ] && exec sha256sum\nexec "%s" "$@"\n' \
    "$L/bin/calops" >"$L/sum.sh"
chmod +x "$L/sum.sh"
sed "s|calops: \".*\"|calops: \"$L/sum.sh\"|" "$L/lab.yaml" >"$L/sum.yaml"

# 1. Directly.
if out=$(timeout 60 "$DRIVER" "$L/sum.yaml" host1 6 /dev/null 2>&1); then
	say "direct: $out"
else
	fail "direct: $out"
fi

# 2. Through the relay: host1's address an alias the config leads there.
cat >"$L/relay.conf" <<EOF
Host relayed
  HostName 127.0.0.1
  Port $port
  ProxyCommand $PY "$SRC/tests/remote/relay.py" %h %p
EOF
sed -e "s|address: 127.0.0.1|address: relayed|" -e "/^    port: /d" \
    "$L/sum.yaml" >"$L/relay.yaml"
if out=$(timeout 60 "$DRIVER" "$L/relay.yaml" host1 6 "$L/relay.conf" \
    2>&1); then
	say "through a ProxyCommand: $out"
else
	fail "through a ProxyCommand: $out"
fi
[ "$FAILED" = 0 ] && say "passed"
exit $FAILED
