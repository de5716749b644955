# sshhosts.sh: SSH lab hosts in the console (issue 11), with a loopback
# lab of real sshd (share/sshlab.sh) and the console in tmux:
#
#  1. host2's key is not in its known_hosts: the console asks, shows its
#     fingerprint, and "yes" adds it (the file's comment kept); then it
#     asks host2's passphrase: nothing typed is shown, a wrong one is asked
#     again, the right one brings host2 up.
#     The Hosts screen shows host1's address, host key policy, the
#     compression ~/.ssh/config asks for and the host agreed to, and the
#     ~/.ssh/config keyword calops ignores for it.
#  2. host2 is protected: a soak there is refused, and the status bar says
#     so.
#  3. A soak on host1 over ssh: host1 drops off the network mid-soak
#     (sshlab.sh down: the socket closes), the Hosts screen says it is
#     reconnecting and the Soak screen that its figures are not live (no
#     ETA, headlines held at the last event's values, never LOST); it
#     comes back (up) and the stream resumes; then its session freezes
#     (SIGSTOP: no byte, no close), and the keepalives make it stale, then
#     disconnected, then up again through a new connection.
#  4. The soak ends, and the console's mirror of its stream is the
#     host's events.jsonl byte for byte, seqs 1..N: nothing lost, nothing
#     twice, across both breaks (through zlib-compressed sessions).
#
# Skipped (77) without tmux, sshd, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs

lab_up 2 cleanup || fail "the lab did not start: $LAB_LOG"

copy_ws "$COMPLETE"
# host2: protected, its key unknown (a known_hosts of its own holding a
# comment only), its identity the encrypted one.
printf '# calops test: host2 is not known yet\n' >"$TMP/kh2"
cp "$TMP/kh2" "$TMP/kh2.before"
"$PY" - "$L/lab.yaml" "$TMP/lab.yaml" "$WS" "$TMP/kh2" <<'EOF'
import sys
src, out, ws, kh2 = sys.argv[1:]
text = open(src).read()
head, rest = text.split("hosts:\n", 1)
hosts, tail = rest.split("workspaces:\n", 1)
h1, h2 = hosts.split("  - name: host2\n")
h2 = "  - name: host2\n" + h2
h2 = h2.replace("id_ed25519\"", "id_ed25519_pass\"")
h2 = "\n".join('    known_hosts: "%s"' % kh2 if l.startswith("    known_hosts:")
    else l for l in h2.split("\n"))
h2 = h2.replace("    chips:", "    protected: true\n    chips:", 1)
runner = tail.split("runner:", 1)[1].strip().replace("3000", "1500")
open(out, "w").write(head + "hosts:\n  - {name: local, transport: local, "
    "chips: [0]}\n" + h1 + h2 + "workspaces:\n  - {host: local, path: %s}\n"
    "  - {host: host1, path: \"%s/host1/ws\"}\n"
    "  - {host: host2, path: \"%s/host2/ws\"}\nrunner: %s\n"
    % (ws, src.rsplit("/", 1)[0], src.rsplit("/", 1)[0], runner))
EOF
[ -s "$TMP/lab.yaml" ] || fail "cannot write the test's lab file"
# A ~/.ssh/config with a keyword calops does not act on: the Hosts screen
# lists it under the host it applies to; and Compression, which it acts on.
mkdir -p "$TMP/home/.ssh"
chmod 700 "$TMP/home/.ssh"
printf 'Host 127.0.0.1\n  ControlMaster auto\n  Compression yes\n' \
    >"$TMP/home/.ssh/config"
chmod 600 "$TMP/home/.ssh/config"

start
launch "$TMP/lab.yaml"

# ---- 1. host2's key, then its passphrase ----
fp=$(ssh-keygen -lf "$L/host2/ssh_host_ed25519_key.pub" | cut -d' ' -f2)
WAIT_SECS=30 wait_for "Trust it from now on? Type yes"
expect "$fp"
send_text "yes"
keys Enter
WAIT_SECS=30 wait_for "passphrase for"
send_text "not-the-passphrase"
expect "passphrase for"
reject "not-the-passphrase"
keys Enter
WAIT_SECS=30 wait_for "wrong passphrase"
pass=$(cat "$L/client/passphrase")
send_text "$pass"
reject "$pass"
keys Enter
keys 7
WAIT_SECS=30 wait_re "^ host2 +up "
wait_re "^ host1 +up "
# host1 in full, under the list: where it goes, its compression, which
# host key policy won, and what of ~/.ssh/config calops ignores.
keys Down
wait_for "host1: ssh "
expect ", compression zlib@openssh.com ("
expect "host keys: ask ("
expect "ignored: ControlMaster (~/.ssh/config:2)"
keys Up
head -1 "$TMP/kh2" | cmp -s - "$TMP/kh2.before" ||
	fail "known_hosts lost its comment: $(cat "$TMP/kh2")"
port2=$(sed -n 's/^Port //p' "$L/host2/sshd_config")
ssh-keygen -F "[127.0.0.1]:$port2" -f "$TMP/kh2" >/dev/null ||
	fail "host2's key is not in its known_hosts: $(cat "$TMP/kh2")"
grep -rqF -- "$pass" "$TMP/state" "$TMP/home" 2>/dev/null &&
	fail "the passphrase was written to a file"

# ---- 2. protected ----
expect "host2 protected"
keys 1
keys G k r
wait_for "on which host"
expect_re "^ +host2 +.* protected"
pick host2
wait_for "host 'host2' is protected"
keys Escape
wait_gone "on which host"

# ---- 3. a soak on host1, across a dropped link and a frozen one ----
keys r
wait_for "on which host"
pick host1
wait_for "Start soak 24h · chips 0,1 on host1?"
send_text "0,1"
keys Enter
STREAMS=$TMP/state/calops/streams/host1
HJ=$L/host1/state/calops/jobs
lines() { cat "$STREAMS"/*.jsonl 2>/dev/null | wc -l; }
for i in $(seq 1 400); do
	[ "$(lines)" -gt 100 ] && break
	sleep 0.05
done
[ "$(lines)" -gt 100 ] || fail "the soak on host1 does not stream"
id=$(ls "$HJ")
grep -q '"type":"end"' "$HJ/$id/events.jsonl" &&
	fail "the soak ended before the link dropped: too fast"

sh "$SRC/share/sshlab.sh" down "$L" host1 >/dev/null 2>&1 ||
	fail "sshlab.sh down host1 failed"
keys 5
wait_re "host1 (disconnected|reconnecting)"
# Honest while away (issue 29 (6)): no ETA, and the headlines hold what
# the last event left, marked with how long, however long the host stays
# away: the same values while the figures' age grows.
wait_for "ETA unknown (host not up)"
wait_re "TTFT p99 .*held [0-9]"
head1=$(screen | grep -o "TTFT p99 [^ ]* p50 [^ ]*" | head -1)
age1=$(screen | grep -o "figures as of [0-9:]* ([0-9hms]* old)" | head -1)
[ -n "$head1" ] && [ -n "$age1" ] || fail "no TTFT headline or figures' age"
for i in $(seq 1 100); do
	age2=$(screen | grep -o "figures as of [0-9:]* ([0-9hms]* old)" |
	    head -1)
	[ -n "$age2" ] && [ "$age2" != "$age1" ] && break
	sleep 0.05
done
[ "$age2" != "$age1" ] || fail "the figures' age does not grow ($age1)"
head2=$(screen | grep -o "TTFT p99 [^ ]* p50 [^ ]*" | head -1)
[ "$head2" = "$head1" ] ||
	fail "the TTFT headline changed with no event: $head1 -> $head2"
reject "LOST"
keys 7
wait_re "^ host1 +(disconnected|retry #)"
sh "$SRC/share/sshlab.sh" up "$L" host1 >/dev/null 2>&1 ||
	fail "sshlab.sh up host1 failed"
WAIT_SECS=90 wait_re "^ host1 +up "
before=$(lines)
for i in $(seq 1 400); do
	[ "$(lines)" -gt "$before" ] && break
	sleep 0.05
done
[ "$(lines)" -gt "$before" ] || fail "the stream did not resume after up"

# Frozen: the session's sshd stops answering without closing anything;
# only the keepalives (5 s in the lab file) can tell.
sshd1=$(cat "$L/host1/sshd.pid")
STOPPED=$(pgrep -P "$sshd1")
[ -n "$STOPPED" ] || fail "no session under host1's sshd"
kill -STOP $STOPPED
WAIT_SECS=30 wait_re "^ host1 +stale "
WAIT_SECS=30 wait_re "^ host1 +(disconnected|retry #|reconnecting)"
WAIT_SECS=60 wait_re "^ host1 +up "
kill -CONT $STOPPED
STOPPED=

# ---- 4. the end, every event once ----
keys 4
for i in $(seq 1 3600); do
	grep -q '"type":"end"' "$STREAMS/$id.jsonl" && break
	sleep 0.05
done
grep -q '"type":"end"' "$STREAMS/$id.jsonl" ||
	fail "the soak's end never reached the console"
same_stream "$HJ/$id/events.jsonl" "$STREAMS/$id.jsonl"
quit_calops
finish
