#!/bin/bash
# compress_test.sh: zlib compression of the SSH transport (remote/ssh.c,
# sshhost.c; share/doc/lab.md, "Compression") against the loopback lab's
# real sshd, which offers zlib@openssh.com as Debian's sshd does by default:
#
#  1. `Compression yes` in the ssh config: calops hosts says the host
#     asked for it there (FILE:LINE) and that the handshake agreed on
#     zlib@openssh.com both ways, in --json and in text.
#  2. Not asked (no Compression, or `Compression no`): none.  The lab
#     file's `compression:` wins over the config either way.
#  3. A job's events (4 MB of lines that compress as events do, some
#     random bytes in each) caught up through the compressed session as
#     the console catches up (sshfollow_driver: follow.c, `calops tail
#     --follow`): byte for byte the host's events.jsonl, and fewer bytes
#     on the wire (TCP_INFO) than half the stream; uncompressed, the same
#     bytes and more on the wire than in the stream.
#  4. An sshd that will not compress (Compression no in its sshd_config):
#     asked for, the host is still reached, and calops hosts says the host
#     offers none.
#
#	compress_test.sh CALOPS_BINARY DRIVER
set -u

CALOPS=${1:?usage: compress_test.sh CALOPS_BINARY DRIVER}
DRIVER=${2:?usage: compress_test.sh CALOPS_BINARY DRIVER}
. "$(dirname "$0")/lib.sh"
remote_test compress_test
sshlab_prereqs
lab_up 1 || { echo "$LAB_LOG"; fail "the lab did not start"; exit 1; }
T=$LABDIR
. "$SRC/tests/remote/hostsjson.sh"

# The configs: the lab file names 127.0.0.1 with its port, user, key and
# known_hosts itself, so a config need only say Compression.
printf '# compression asked for\nHost 127.0.0.1\n  Compression yes\n' \
    >"$T/yes.conf"
printf 'Host 127.0.0.1\n  Compression no\n' >"$T/no.conf"
: >"$T/none.conf"
# lab_with KEY VALUE: the lab file with "KEY: VALUE" for host1.
lab_with() {
	sed "s|^    keepalive_s: 5$|&\n    $1: $2|" "$L/lab.yaml" \
	    >"$T/lab-$2.yaml"
	echo "$T/lab-$2.yaml"
}
LAB_TRUE=$(lab_with compression true)
LAB_FALSE=$(lab_with compression false)

# comp LAB CONFIG: calops hosts --json into $T/out.json, and host1's
# compression as "ASKED FROM CS SC".
comp() {
	"$CALOPS" hosts --json --timeout 60 --ssh-config "$2" "$1" \
	    >"$T/out.json" 2>"$T/err.txt" ||
		fail "calops hosts $1 $2: $(cat "$T/out.json" "$T/err.txt")"
	$PY - "$T/out.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["hosts"][0]["ssh"]["compression"]
print(c["asked"], c["from"], c["client_to_server"], c["server_to_client"])
EOF
}

# want WHAT GOT EXPECTED
want() {
	[ "$2" = "$3" ] || fail "$1: '$2', not '$3'"
}

# ---- 1. asked for in the config ----
want "Compression yes" "$(comp "$L/lab.yaml" "$T/yes.conf")" \
    "True $T/yes.conf:3 zlib@openssh.com zlib@openssh.com"
text=$("$CALOPS" hosts --timeout 60 --ssh-config "$T/yes.conf" \
    "$L/lab.yaml" 2>&1)
case $text in
*"  compression: zlib@openssh.com (Compression yes, $T/yes.conf:3)"*) ;;
*) fail "calops hosts (text) does not say the compression: $text" ;;
esac

# ---- 2. not asked; the lab file wins ----
want "no Compression" "$(comp "$L/lab.yaml" "$T/none.conf")" \
    "False default none none"
want "Compression no" "$(comp "$L/lab.yaml" "$T/no.conf")" \
    "False $T/no.conf:2 none none"
want "compression: false over Compression yes" \
    "$(comp "$LAB_FALSE" "$T/yes.conf")" "False $LAB_FALSE none none"
want "compression: true over Compression no" \
    "$(comp "$LAB_TRUE" "$T/no.conf")" \
    "True $LAB_TRUE zlib@openssh.com zlib@openssh.com"

# ---- 3. a job's events caught up through it ----
cat >"$T/gen.py" <<'EOF'
import os
w = os.sys.stdout.write
for i in range(40000):
    w('{"seq_hint":%d,"ttft_ms":%d,"tok":"%s","msg":"request done"}\n'
      % (i, 250 + i * 7 % 400, os.urandom(6).hex()))
EOF
# ssh joins its words into one line for the host's shell: each is quoted
# (the lab's folder may hold a blank).
id=$(ssh -F "$L/ssh_config" host1 "$(printf '%q ' "$L/bin/calops" run -- \
    python3 "$T/gen.py")") || { fail "cannot start the job on host1"; exit 1; }
EV=$L/host1/state/calops/jobs/$id/events.jsonl
for _ in $(seq 1200); do
	[ -s "$EV" ] && tail -c 4096 "$EV" | grep -q '"type":"end"' && break
	sleep 0.1
done
tail -c 4096 "$EV" | grep -q '"type":"end"' ||
	{ fail "the job $id did not end"; exit 1; }
size=$(stat -c %s "$EV")
# follow CONFIG NAME: the events through the driver into $T/NAME.jsonl,
# its line in $OUT; WIRE the bytes that crossed the socket.
follow() {
	OUT=$(timeout 120 "$DRIVER" "$L/lab.yaml" host1 "$id" \
	    "$T/$2.jsonl" "$1" 2>&1) || fail "$2: $OUT"
	WIRE=$(tr ' ' '\n' <<<"$OUT" | sed -n 's/^wire=//p')
	say "$2: $OUT"
	cmp -s "$EV" "$T/$2.jsonl" ||
		fail "$2: the events caught up differ from the host's" \
		    "events.jsonl ($(stat -c %s "$T/$2.jsonl") of $size bytes)"
}
follow "$T/yes.conf" zlib
case $OUT in *"comp_cs=zlib@openssh.com comp_sc=zlib@openssh.com"*) ;;
*) fail "zlib: the session did not agree on zlib: $OUT" ;; esac
[ "${WIRE:-0}" -gt 0 ] && [ "$WIRE" -lt $((size / 2)) ] ||
	fail "zlib: $WIRE bytes on the wire for $size bytes of events"
follow "$T/none.conf" plain
[ "${WIRE:-0}" -gt "$size" ] ||
	fail "plain: $WIRE bytes on the wire for $size bytes of events"

# ---- 4. a host that will not compress ----
echo "Compression no" >>"$L/host1/sshd_config"
sh "$LABSH" down "$L" host1 >/dev/null 2>&1
sh "$LABSH" up "$L" host1 >"$T/up.log" 2>&1 ||
	{ fail "host1 did not come back: $(cat "$T/up.log")"; exit 1; }
want "Compression yes, sshd Compression no" \
    "$(comp "$L/lab.yaml" "$T/yes.conf")" "True $T/yes.conf:3 none none"
text=$("$CALOPS" hosts --timeout 60 --ssh-config "$T/yes.conf" \
    "$L/lab.yaml" 2>&1)
case $text in
*"  compression: asked (Compression yes, $T/yes.conf:3), the host offers none"*) ;;
*) fail "calops hosts (text) does not say the host offers none: $text" ;;
esac
[ "$FAILED" = 0 ] && say "passed"
exit $FAILED
