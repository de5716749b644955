#!/bin/bash
# sshlab_test.sh: share/sshlab.sh, the loopback lab of throwaway sshd hosts
# (issue 11), with the real sshd and ssh:
#
#  1. A lab of three hosts in a folder whose path holds a blank: each host
#     runs the given calops, `calops jobs` works there, and a job started
#     with `calops run` lands in that host's own jobs folder and in no
#     other's; the lab file, ssh_config, known_hosts and sshd_config agree
#     on the ports, and calops reads the lab file without an error.
#  2. ssh refuses a host whose key is not the one in known_hosts, and one
#     that known_hosts does not list; the encrypted and the RSA client
#     keys are authorized (sshd's log names their fingerprints).
#  3. stop ends a live session and a running job, frees the ports and
#     leaves no process of the lab; a second stop is no error; started
#     again in the same folder the hosts keep their keys and jobs.
#  4. Two labs started at once in the same 8 ports get 6 ports, no two
#     hosts sharing one.
#  5. A start that cannot get a port for its second host stops the first,
#     names the host that failed and shows its log; a folder sshd's
#     StrictModes would refuse, or a path sshd_config cannot take, is
#     refused before anything starts.
#
# Skipped (exit 77) without sshd, when your login shell is no shell, or
# when none of the test's folder, $TMPDIR and $HOME would pass sshd's
# StrictModes (see sshlab.sh).
#
#	sshlab_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: sshlab_test.sh CALOPS_BINARY}
. "$(dirname "$0")/lib.sh"
remote_test sshlab_test
sshlab_prereqs
T=$(mktemp -d "$BASE/calops-sshlab-test.XXXXXX")
LABS=()

cleanup() {
	local l
	for l in "${LABS[@]}"; do
		sh "$LABSH" stop "$l" >/dev/null 2>&1
	done
	[ -n "${SSHPID:-}" ] && kill "$SSHPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

lab() { sh "$LABSH" "$@" --calops "$CALOPS"; }
on() { local l=$1; shift; ssh -F "$l/ssh_config" "$@"; }
port_of() { sed -n 's/^Port //p' "$1/$2/sshd_config"; }

# lab_procs LAB: the processes whose command line names a file of LAB
# (the pattern comes from a file, so that grep does not find itself).
lab_procs() {
	printf '%s/\n' "$1" >"$T/pattern"
	grep -lsF -f "$T/pattern" /proc/[0-9]*/cmdline | cut -d/ -f3
}

# alive PID: PID runs (not a zombie waiting for a slow reaper).
alive() {
	local st
	st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" \
		2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# port_free PORT: a new listener can bind 127.0.0.1:PORT, as sshd does.
port_free() {
	$PY - "$1" <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
	s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
	sys.exit(1)
EOF
}

# stopped LAB PORT...: nothing of the lab runs and its ports are free.
stopped() {
	local l=$1 p procs
	shift
	procs=$(lab_procs "$l")
	[ -z "$procs" ] || fail "processes of '$l' left:" \
		"$(for p in $procs; do
			tr '\0' ' ' <"/proc/$p/cmdline"
			echo
		done)"
	for p in "$@"; do
		port_free "$p" || fail "port $p still taken after stop"
	done
}

# ---- refusals before anything starts ----
mkdir -m 0700 "$T/open" && chmod 1777 "$T/open"
out=$(lab start "$T/open/lab" 1 2>&1)
rc=$?
[ "$rc" = 1 ] &&
	grep -qF "StrictModes refuses keys under '$T/open'" <<<"$out" &&
	grep -q 'mode 1777' <<<"$out" ||
	fail "a lab under a folder others may write: rc $rc: $out"
[ -e "$T/open/lab" ] && fail "the refused lab folder was left behind"
out=$(lab start "$T/a%b" 1 2>&1)
rc=$?
[ "$rc" = 1 ] && grep -q "may not hold" <<<"$out" ||
	fail "a lab path with a '%': rc $rc: $out"
say "refusals checked"

# ---- 1. three hosts, each with its own jobs ----
L="$T/lab one"
LABS+=("$L")
if ! out=$(lab start "$L" 2>&1); then
	say "$out"
	fail "start of three hosts failed"
	exit 1
fi
for f in lab.yaml ssh_config known_hosts client/authorized_keys \
	client/id_ed25519 client/id_ed25519_pass client/id_rsa; do
	[ -s "$L/$f" ] || fail "no $f"
done
[ "$(stat -c %a "$L")" = 700 ] || fail "the lab folder is not 0700"
[ "$(wc -l <"$L/client/authorized_keys")" = 3 ] ||
	fail "authorized_keys does not hold the three client keys"
ssh-keygen -y -P '' -f "$L/client/id_ed25519_pass" >/dev/null 2>&1 &&
	fail "id_ed25519_pass is not encrypted"
ssh-keygen -y -P "$(cat "$L/client/passphrase")" \
	-f "$L/client/id_ed25519_pass" >/dev/null ||
	fail "id_ed25519_pass does not open with DIR/client/passphrase"
ssh-keygen -l -f "$L/client/id_rsa.pub" | grep -q '(RSA)$' ||
	fail "id_rsa is not an RSA key"
out=$(sh "$LABSH" status "$L")
[ "$(grep -c ' up (sshd [0-9]*)$' <<<"$out")" = 3 ] ||
	fail "status does not show three hosts up: $out"

PORTS=()
for h in host1 host2 host3; do
	p=$(port_of "$L" $h)
	PORTS+=("$p")
	grep -qx "    port: $p" "$L/lab.yaml" ||
		fail "$h: port $p not in lab.yaml"
	grep -qx "	Port $p" "$L/ssh_config" ||
		fail "$h: port $p not in ssh_config"
	grep -q "^\[127.0.0.1\]:$p ssh-ed25519 .* $h\$" "$L/known_hosts" ||
		fail "$h: port $p not in known_hosts"
done
[ "$(printf '%s\n' "${PORTS[@]}" | sort -u | wc -l)" = 3 ] ||
	fail "two hosts share a port: ${PORTS[*]}"

# calops takes the lab file: no FILE:LINE:COL error (this version opens
# no lab without a local workspace, and says so).
out=$("$CALOPS" --plain "$L/lab.yaml" 2>&1)
rc=$?
if grep -q 'lab\.yaml:[0-9]*:[0-9]*:' <<<"$out" ||
	{ [ "$rc" != 0 ] && ! grep -q 'names no workspace on a local host' \
	<<<"$out"; }; then
	fail "calops refuses the lab file: rc $rc: $out"
fi

want=$("$CALOPS" version)
declare -A JOB
for h in host1 host2 host3; do
	out=$(on "$L" $h calops version 2>&1)
	[ "$out" = "$want" ] ||
		fail "$h: 'calops version' says '$out', not '$want'"
	on "$L" $h calops jobs >/dev/null || fail "$h: 'calops jobs' failed"
	id=$(on "$L" $h \
		"calops run -- sh -c 'echo ran on \"\$XDG_STATE_HOME\"'")
	[ -n "$id" ] || { fail "$h: calops run printed no id"; continue; }
	JOB[$h]=$id
	out=$(on "$L" $h calops tail "$id" --follow)
	grep -qF "ran on $L/$h/state" <<<"$out" ||
		fail "$h: the job did not run with its host's state: $out"
	grep -q '"type":"end".*"exit_code":0' <<<"$out" ||
		fail "$h: the job did not end well: $out"
done
for h in host1 host2 host3; do
	out=$(on "$L" $h calops jobs)
	for g in host1 host2 host3; do
		id=${JOB[$g]:-none}
		if [ $g = $h ]; then
			[ -f "$L/$h/state/calops/jobs/$id/events.jsonl" ] ||
				fail "$g's job is not in its own jobs folder"
			grep -q "^$id " <<<"$out" ||
				fail "$h does not list its job"
		else
			[ -e "$L/$h/state/calops/jobs/$id" ] &&
				fail "$g's job landed in $h's jobs folder"
			grep -q "^$id " <<<"$out" && fail "$h lists $g's job"
		fi
	done
done
say "three hosts up, each with its own jobs"

# ---- 2. host keys and client keys ----
k1=$(awk '$4 == "host1" { print $3 }' "$L/known_hosts")
k2=$(awk '$4 == "host2" { print $3 }' "$L/known_hosts")
sed "s|$k1|$k2|" "$L/known_hosts" >"$T/wrong_known_hosts"
out=$(on "$L" -o "UserKnownHostsFile=\"$T/wrong_known_hosts\"" host1 \
	touch "'$T/ran'" 2>&1)
rc=$?
[ "$rc" = 255 ] && grep -q 'REMOTE HOST IDENTIFICATION HAS CHANGED' <<<"$out" &&
	grep -q 'Host key verification failed' <<<"$out" ||
	fail "a changed host key: rc $rc: $out"
: >"$T/empty_known_hosts"
out=$(on "$L" -o "UserKnownHostsFile=\"$T/empty_known_hosts\"" host1 \
	touch "'$T/ran'" 2>&1)
rc=$?
[ "$rc" = 255 ] && grep -q 'Host key verification failed' <<<"$out" ||
	fail "an unknown host key: rc $rc: $out"
[ -e "$T/ran" ] && fail "a command ran on a host whose key did not match"

# accepted KEY: sshd logged a login with that client key.
accepted() {
	local fp
	fp=$(ssh-keygen -l -f "$L/client/$1.pub" | awk '{ print $2 }')
	grep -qF "Accepted publickey for $(id -un) from 127.0.0.1" \
		"$L/host2/sshd.log" && grep -qF "$fp" "$L/host2/sshd.log"
}
on "$L" -o "IdentityFile=\"$L/client/id_rsa\"" host2 true &&
	accepted id_rsa || fail "the RSA key is not accepted"
printf '#!/bin/sh\ncat "%s"\n' "$L/client/passphrase" >"$T/askpass"
chmod 700 "$T/askpass"
SSH_ASKPASS=$T/askpass SSH_ASKPASS_REQUIRE=force on "$L" -o BatchMode=no \
	-o "IdentityFile=\"$L/client/id_ed25519_pass\"" host2 true \
	</dev/null && accepted id_ed25519_pass ||
	fail "the encrypted key is not accepted with its passphrase"
say "host keys checked, client keys accepted"

# ---- 3. stop: sessions, jobs, ports ----
on "$L" host1 'echo $$; exec sleep 1000' >"$T/session" &
SSHPID=$!
until [ -s "$T/session" ] || ! kill -0 $SSHPID 2>/dev/null; do
	sleep 0.05
done
REMOTE=$(cat "$T/session")
[ -n "$REMOTE" ] && alive "$REMOTE" || fail "no live session on host1"
LONG=$(on "$L" host3 calops run -- sleep 1000)
OLDPIDS=$(cat "$L"/host*/sshd.pid)
sh "$LABSH" stop "$L" >/dev/null || fail "stop failed"
# stop returns once every process below each sshd is gone.
if [ -n "$REMOTE" ] && alive "$REMOTE"; then
	fail "host1's session command $REMOTE outlived stop"
	kill "$REMOTE"
fi
wait $SSHPID
SSHPID=
for p in $OLDPIDS; do
	alive "$p" && fail "sshd $p outlived stop"
done
XDG_STATE_HOME="$L/host3/state" "$CALOPS" jobs | grep -q "^$LONG  *killed " ||
	fail "the job running on host3 was not stopped"
stopped "$L" "${PORTS[@]}"
sh "$LABSH" status "$L" >/dev/null && fail "status says a stopped lab is up"
sh "$LABSH" stop "$L" >/dev/null || fail "a second stop failed"
say "stopped: sessions, jobs and sshd gone, ports free"

for round in 1 2; do
	cp "$L/known_hosts" "$T/old_known_hosts"
	lab start "$L" 2>/dev/null || fail "start again ($round) failed"
	for h in host1 host2 host3; do
		old=$(awk -v h=$h '$4 == h { print $3 }' "$T/old_known_hosts")
		new=$(awk -v h=$h '$4 == h { print $3 }' "$L/known_hosts")
		[ "$old" = "$new" ] || fail "$h got a new host key"
	done
	on "$L" host1 calops jobs | grep -q "^${JOB[host1]} " ||
		fail "host1 lost its job over a restart"
	P=($(port_of "$L" host1) $(port_of "$L" host2) $(port_of "$L" host3))
	sh "$LABSH" stop "$L" >/dev/null || fail "stop again ($round) failed"
	stopped "$L" "${P[@]}"
done
say "started and stopped twice more in the same folder"

# ---- 4. two labs at once in 8 ports ----
low=$((20000 + RANDOM % 10000))
A=$T/lab-a
B=$T/lab-b
LABS+=("$A" "$B")
lab start "$A" --ports $low-$((low + 7)) 2>"$T/a.err" &
pa=$!
lab start "$B" --ports $low-$((low + 7)) 2>"$T/b.err" &
pb=$!
wait $pa || fail "lab A failed beside lab B: $(cat "$T/a.err")"
wait $pb || fail "lab B failed beside lab A: $(cat "$T/b.err")"
P=()
for l in "$A" "$B"; do
	for h in host1 host2 host3; do
		P+=("$(port_of "$l" $h)")
		out=$(on "$l" $h 'echo "$XDG_STATE_HOME"')
		[ "$out" = "$l/$h/state" ] ||
			fail "${l##*/} $h answered as '$out'"
	done
done
[ "$(printf '%s\n' "${P[@]}" | sort -u | wc -l)" = 6 ] ||
	fail "two hosts of two labs share a port: ${P[*]}"
sh "$LABSH" stop "$A" >/dev/null && sh "$LABSH" stop "$B" >/dev/null ||
	fail "stopping the two labs failed"
stopped "$A" "${P[@]:0:3}"
stopped "$B" "${P[@]:3:3}"
taken=$(cat "$T/a.err" "$T/b.err" | awk '/ taken before it\)$/ {
	sub(/.*\(/, ""); n += $1 } END { print n + 0 }')
say "two labs at once: ports ${P[*]}, after $taken taken ports"

# ---- 5. a start that fails half-way ----
F=$T/lab-fail
LABS+=("$F")
one=$((20000 + RANDOM % 10000))
out=$(lab start "$F" 2 --ports $one-$one 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "a start with one port for two hosts: rc $rc"
if grep -q "host1: 127.0.0.1 port $one" <<<"$out"; then
	grep -q 'host2 failed to start; its log' <<<"$out" &&
		grep -q 'Address already in use' <<<"$out" ||
		fail "the failed start names not host2 or its log: $out"
	grep -q 'host1: stopped' <<<"$out" ||
		fail "the failed start did not stop host1: $out"
else
	grep -q 'host1 failed to start; its log' <<<"$out" ||
		fail "the failed start names no host: $out"
fi
stopped "$F" "$one"
say "a failed start stops what it started"

if [ $FAILED = 0 ]; then
	say "PASS"
fi
exit $FAILED
