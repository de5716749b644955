#!/bin/bash
# bench_jobpoll.sh: what the lab model's job polls cost (protocol.md §4,
# "Jobs this console did not start", "What it costs"): one loopback SSH
# host (share/sshlab.sh) whose jobs folder holds JOBS ended jobs, and a
# console that learns of jobs (tests/unit/labrun_driver.c --learn, which
# starts nothing and waits out its 60 s).  From its 6th to its 56th second
# the bytes on the console's connection (ss -tin: bytes_sent to the host,
# bytes_received from it) and the CPU of the host's sshd session with its
# children (the shells and `calops jobs` it ran: their time is in its
# cutime/cstime once reaped) and of the console (/proc/PID/stat) are
# sampled, and printed per minute.
#
#	bench_jobpoll.sh CALOPS LABRUN_DRIVER [JOBS]
set -u

CALOPS=${1:?usage: bench_jobpoll.sh CALOPS LABRUN_DRIVER [JOBS]}
DRIVER=${2:?usage: bench_jobpoll.sh CALOPS LABRUN_DRIVER [JOBS]}
JOBS=${3:-64}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/remote/lib.sh
. "$SRC/tests/remote/lib.sh"
remote_test bench_jobpoll exit
sshlab_prereqs
T=$(mktemp -d "$BASE/calops-jobpoll.XXXXXX")
LAB=$T/lab
cleanup() {
	[ -n "${CONSOLE:-}" ] && kill "$CONSOLE" 2>/dev/null
	sh "$SRC/share/sshlab.sh" stop "$LAB" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

sh "$SRC/share/sshlab.sh" start "$LAB" 1 --calops "$CALOPS" \
    >"$T/sshlab.out" 2>&1 || { cat "$T/sshlab.out"; exit 1; }
PORT=$(sed -n 's/^Port \([0-9]*\)$/\1/p' "$LAB/host1/sshd_config")
LISTENER=$(cat "$LAB/host1/sshd.pid")
for i in $(seq "$JOBS"); do
	CALOPS_JOBS_DIR=$LAB/host1/state/calops/jobs "$CALOPS" run \
	    -- true >/dev/null || exit 1
done

# CPU ticks of a process with its reaped children (utime stime cutime
# cstime), 0 when it is gone.
ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' \
	    "/proc/$1/stat" 2>/dev/null || echo 0
}
# The host's side: every process below the listening sshd.
host_ticks() {
	local sum=0 p
	for p in $(ps -e -o pid= -o ppid= | awk -v l="$LISTENER" \
	    '$2 == l { print $1 }'); do
		sum=$((sum + $(ticks "$p")))
	done
	echo "$sum"
}
# bytes_sent bytes_received of the console's connection.
bytes() {
	ss -tinH "dport = :$PORT" 2>/dev/null | tr ' ' '\n' | awk -F: '
	    $1 == "bytes_sent" { s += $2 } $1 == "bytes_received" { r += $2 }
	    END { print s + 0, r + 0 }'
}

mkdir -p "$T/state"
XDG_STATE_HOME=$T/state "$DRIVER" "$CALOPS" "$LAB/lab.yaml" host1 \
    --learn 999 >"$T/driver.out" 2>&1 &
CONSOLE=$!
sleep 6
read -r s0 r0 < <(bytes)
h0=$(host_ticks)
c0=$(ticks "$CONSOLE")
sleep 50
read -r s1 r1 < <(bytes)
h1=$(host_ticks)
c1=$(ticks "$CONSOLE")
hz=$(getconf CLK_TCK)
awk -v s=$((s1 - s0)) -v r=$((r1 - r0)) -v h=$((h1 - h0)) \
    -v c=$((c1 - c0)) -v hz="$hz" -v n="$JOBS" 'BEGIN {
	printf "jobpoll: %d jobs on one loopback SSH host, per minute:\n", n
	printf "  to the host       %8.1f KB\n", s / 1000 * 60 / 50
	printf "  from the host     %8.1f KB\n", r / 1000 * 60 / 50
	printf "  host CPU          %8.2f s (sshd session and children)\n", \
	    h / hz * 60 / 50
	printf "  console CPU       %8.2f s\n", c / hz * 60 / 50
}'
