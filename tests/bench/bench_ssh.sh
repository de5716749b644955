#!/bin/bash
# bench_ssh.sh: calops' SSH transport beside OpenSSH, and the console with a
# fleet of SSH hosts, against issue 11's targets, printed side by side with
# PASS/MISS.
#
# usage: tests/bench/bench_ssh.sh [BUILD]          (default: build)
#
# BUILD holds calops (built: a release build, RelWithDebInfo as the
# README's, for numbers that mean anything); bench_ssh_helper is built
# there.  A loopback
# lab of $HOSTS (default 16) throwaway sshd on 127.0.0.1 is started with
# share/sshlab.sh under $HOME (sshd's StrictModes refuse /tmp) and stopped
# at the end.  Three measures, medians of $RUNS (default 5) runs:
#   1. a job's event file of $MB MiB (default 1024) read over SSH on
#      loopback: `calops tail ID --from 1` through calops' transport
#      (bench_ssh_helper: remote/ssh.c on the one poll loop, every line
#      handed over as the console gets them) against OpenSSH's
#      `ssh host cat FILE` (the target: >= 0.75x its throughput) and
#      OpenSSH running the same `calops tail`, and libssh2 alone
#      (bench_libssh2_cat: a blocking `cat FILE`, nothing done with the
#      bytes), the ceiling of any transport on this libssh2, and OpenSSH's
#      cat again with the cipher and MAC libssh2 negotiated (libssh2 1.10
#      decrypts 16 bytes per call, OpenSSH a packet).  Each is timed
#      from the command's start to its end, less the same with a command
#      that prints nothing (`calops version`, `true`): the remote login
#      shell's start is not throughput.
#   2. the console, in tmux at 120x40, following one job on each of the
#      $HOSTS hosts, each writing $RATE (default 200) events a second: its
#      CPU over $WINDOW_S (default 30) seconds (target <= 3 % of a core),
#      and the lag from a host writing an event (its ts) to the console
#      applying it (CALOPS_BENCH_LAG, views/app/bench.c; target P99 <=
#      250 ms).  The jobs are the console's own, from job records as a
#      console restarted would find them.  Every host starts and stops
#      streaming at the same times, around the window, and the run fails
#      (exit 1) when one did not stream over the whole window or the
#      console applied fewer than 99 % of the events written in it: its
#      figures would be a smaller fleet's.  PERF=1 also prints where the
#      console's time went (perf record over the window), and PERF_OUT=FILE
#      keeps that profile.
#   3. `calops hosts LAB` (connect, version probe, job list) of all $HOSTS
#      hosts at once against one host alone (target <= 2x), beside the same
#      ratio for OpenSSH running `calops version` on them in parallel, and
#      the CPU the hosts' side spends meanwhile: on loopback it shares this
#      machine's CPUs with the client, a floor for that ratio.
#   4. a host behind one ProxyJump (a second lab, share/sshlab.sh
#      --bastion: root only) against a direct host of the first lab, both
#      through bench_ssh_helper (calops' transport, the config through
#      ~/.ssh/config as the console reads it): the time to connect (up,
#      version probe included; target <= 2x the direct one) and a job's
#      event file of $PJ_MB MiB (default 512) read with `calops tail`
#      (target >= 0.8x the direct rate), printed side by side, and the
#      same through `ProxyCommand ssh -W %h:%p bastion` (the outer hop in
#      OpenSSH, a process of its own) for comparison; and the peer,
#      OpenSSH's own `ssh host cat` of the same files direct and through
#      the bastion (connect included: on a machine whose two sshd share
#      the client's cores, each byte through a jump costs twice the
#      crypto, whoever the client is).  PARTS=4 runs it alone.
# Not part of ctest: it takes minutes and wants an idle machine.
set -euo pipefail

BUILD=${1:-build}
RUNS=${RUNS:-5}
MB=${MB:-1024}
HOSTS=${HOSTS:-16}
RATE=${RATE:-200}
WINDOW_S=${WINDOW_S:-30}
WARM_S=${WARM_S:-15}
PARTS=${PARTS:-1 3 2 4}	# which of the four to run
PJ_MB=${PJ_MB:-512}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
CALOPS=$BUILD/calops
[ -x "$CALOPS" ] || { echo "bench_ssh: no '$CALOPS'" >&2; exit 2; }
export LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color

need() {	# need COMMAND PACKAGE
	command -v "$1" >/dev/null && return
	echo "bench_ssh: installing $2" >&2
	if [ -z "${APT_UPDATED:-}" ]; then
		apt-get update -qq >&2
		APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >&2
}
need tmux tmux
need python3 python3
[ -x /usr/sbin/sshd ] || need sshd openssh-server
need ssh openssh-client
need /usr/bin/time time
cmake --build "$BUILD" --target bench_ssh_helper bench_libssh2_cat >/dev/null ||
	{ echo "bench_ssh: cannot build the bench targets in $BUILD" \
	    "(configured with -DBUILD_TESTING=ON? share/bootstrap.sh test" \
	    "does)" >&2; exit 2; }
HELPER=$BUILD/tests/bench_ssh_helper
BARE=$BUILD/tests/bench_libssh2_cat

WORK=$(mktemp -d "$HOME/.calops-bench-ssh.XXXXXX")
L=$WORK/lab
SOCK=bench_ssh_$$
cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	sh "$TOP/share/sshlab.sh" stop "$L" >/dev/null 2>&1 || true
	sh "$TOP/share/sshlab.sh" stop "$WORK/blab" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT
sh "$TOP/share/sshlab.sh" start "$L" "$HOSTS" --calops "$CALOPS" \
    >"$WORK/sshlab.log" 2>&1 ||
	{ cat "$WORK/sshlab.log" >&2; exit 1; }
CFG=$L/ssh_config
rssh() { ssh -F "$CFG" "$@"; }

ROW_LABEL=46 ROW_VALUE=12
BENCH=bench_ssh
. "$(dirname "$0")/lib.sh"
job_events() { echo "$L/$1/state/calops/jobs/$2/events.jsonl"; }
# wait_end HOST ID: until the job's end event is written.
wait_end() {
	local ev
	ev=$(job_events "$1" "$2")
	until [ -s "$ev" ] && tail -c 4096 "$ev" | grep -q '"type":"end"'; do
		sleep 0.5
	done
}

echo "calops SSH benchmarks: $CALOPS, $HOSTS loopback hosts"
echo "  $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(uname -r)," \
	"$(ssh -V 2>&1), libssh2 $(dpkg-query -W -f '${Version}' \
	libssh2-1 2>/dev/null || echo '?'); $(date -u '+%F %T') UTC"

part() { [[ " $PARTS " == *" $1 "* ]]; }

# Lines of 1000 characters: with the event's own fields, about 1.09 KB
# each in the file.
cat >"$WORK/gen.py" <<'PYEOF'
import sys
n = int(sys.argv[1]) * 1048576 // 1090
line = "x" * 990
w = sys.stdout.write
for i in range(n):
    w("%9d %s\n" % (i, line))
PYEOF

# ---- 1. throughput ----
if part 1; then
echo
echo "1. a job's events, $MB MiB, read over SSH on loopback (median of $RUNS)"
id=$(rssh host1 calops run -- python3 "$WORK/gen.py" "$MB")
wait_end host1 "$id"
EV=$(job_events host1 "$id")
size=$(stat -c %s "$EV")
PORT1=$(ssh -F "$CFG" -G host1 2>/dev/null | awk '$1 == "port" { print $2 }')
USER1=$(ssh -F "$CFG" -G host1 2>/dev/null | awk '$1 == "user" { print $2 }')
KEY=$L/client/id_ed25519
echo "  job $id on host1: $(wc -l <"$EV") events, $size bytes"
: >"$WORK/t1"
for _ in $(seq "$RUNS"); do
	b=$("$HELPER" "$L/lab.yaml" host1 version --json)
	t=$("$HELPER" "$L/lab.yaml" host1 tail "$id" --from 1)
	[ "$(field bytes "$t")" = "$size" ] ||
		echo "  warning: calops tail handed over $(field bytes "$t")" \
		    "bytes, not $size" >&2
	ob=$(wall rssh host1 true)
	oc=$(wall rssh host1 cat "$EV")
	ot=$(wall rssh host1 calops tail "$id" --from 1)
	lb=$("$BARE" "$PORT1" "$USER1" "$KEY" true)
	lc=$("$BARE" "$PORT1" "$USER1" "$KEY" "cat '$EV'")
	[ "$(field bytes "$lc")" = "$size" ] ||
		echo "  warning: libssh2 alone read $(field bytes "$lc")" \
		    "bytes, not $size" >&2
	# OpenSSH with the cipher and MAC libssh2 got: what the suite costs
	# when a packet is decrypted whole.
	os=$(wall rssh -c "$(field cipher "$lc")" -m "$(field mac "$lc")" \
	    host1 cat "$EV")
	echo "$(field run_ms "$b") $(field run_ms "$t") $ob $oc $ot" \
	    "$(field run_ms "$lb") $(field run_ms "$lc") $os" >>"$WORK/t1"
done
suite=$(field cipher "$lc")/$(field mac "$lc")
col() { awk -v c="$1" '{ print $c }' "$WORK/t1" | median; }
mbs() {	# mbs SECONDS: MiB/s of the file
	awk -v s="$1" -v n="$size" 'BEGIN { printf "%.1f", n / 1048576 / s }'
}
ours=$(awk -v t="$(col 2)" -v b="$(col 1)" 'BEGIN { print (t - b) / 1000 }')
ocat=$(awk -v t="$(col 4)" -v b="$(col 3)" 'BEGIN { print t - b }')
otail=$(awk -v t="$(col 5)" -v b="$(col 3)" 'BEGIN { print t - b }')
bare=$(awk -v t="$(col 7)" -v b="$(col 6)" 'BEGIN { print (t - b) / 1000 }')
osuite=$(awk -v t="$(col 8)" -v b="$(col 3)" 'BEGIN { print t - b }')
row "calops transport: calops tail" "$(mbs "$ours")" MiB/s
row "OpenSSH: ssh host cat FILE" "$(mbs "$ocat")" MiB/s
row "OpenSSH: ssh host calops tail" "$(mbs "$otail")" MiB/s
row "OpenSSH, libssh2's cipher and MAC: cat FILE" "$(mbs "$osuite")" MiB/s
row "libssh2 alone: cat FILE" "$(mbs "$bare")" MiB/s
row "calops tail / ssh cat" "$(awk -v a="$ocat" -v b="$ours" \
	'BEGIN { printf "%.2f", a / b }')" x ">=" 0.75
row "libssh2 alone / ssh cat: its ceiling" \
    "$(awk -v a="$ocat" -v b="$bare" 'BEGIN { printf "%.2f", a / b }')" x
row "calops tail / libssh2 alone" "$(awk -v a="$bare" -v b="$ours" \
	'BEGIN { printf "%.2f", a / b }')" x
echo "  (raw medians: calops transport tail $(col 2) ms, version" \
	"$(col 1) ms; OpenSSH cat $(col 4) s, tail $(col 5) s, true $(col 3) s;" \
	"libssh2 alone cat $(col 7) ms, true $(col 6) ms; the suite" \
	"$suite, OpenSSH's cat with it $(col 8) s)"
fi

# ---- 3. connecting (before 2: it needs the hosts idle) ----
if part 3; then
echo
echo "3. calops hosts: connect, probe and list jobs (median of $RUNS)"
python3 - "$L/lab.yaml" "$WORK/one.yaml" <<'PYEOF'
import sys
src, out = sys.argv[1:]
text = open(src).read()
head, rest = text.split("hosts:\n", 1)
hosts, tail = rest.split("workspaces:\n", 1)
first = hosts.split("  - name: host2\n", 1)[0]
ws = [l for l in tail.split("\n") if "host: host1," in l]
open(out, "w").write(head + "hosts:\n" + first + "workspaces:\n" +
    "\n".join(ws) + "\n")
PYEOF
# The peer: OpenSSH connecting and running `calops version` (the first of
# the two commands calops hosts runs), one host, then all at once; on
# loopback the hosts' side shares this machine's CPUs with the client.
ssh_all() {
	local k pids=() rc=0
	for k in $(seq "$HOSTS"); do
		rssh "host$k" calops version >/dev/null &
		pids+=($!)
	done
	for k in "${pids[@]}"; do
		wait "$k" || rc=1
	done
	return $rc
}
: >"$WORK/t3"
for _ in $(seq "$RUNS"); do
	# Each on its own: a failure then stops the benchmark (set -e).
	one=$(wall "$CALOPS" hosts "$WORK/one.yaml")
	all=$(wall "$CALOPS" hosts "$L/lab.yaml")
	oone=$(wall rssh host1 calops version)
	oall=$(wall ssh_all)
	echo "$one $all $oone $oall" >>"$WORK/t3"
done
one=$(awk '{ print $1 }' "$WORK/t3" | median)
all=$(awk '{ print $2 }' "$WORK/t3" | median)
oone=$(awk '{ print $3 }' "$WORK/t3" | median)
oall=$(awk '{ print $4 }' "$WORK/t3" | median)
row "calops hosts, one host" "$one" s
row "calops hosts, $HOSTS hosts at once" "$all" s
row "calops: $HOSTS hosts / one" "$(awk -v a="$all" -v b="$one" \
	'BEGIN { printf "%.2f", a / b }')" x "<=" 2
# The client's own share of that: its CPU (user + system) for all of them.
cpu=$( { /usr/bin/time -f "%U %S" "$CALOPS" hosts "$L/lab.yaml" \
    >/dev/null; } 2>&1 | tail -1 | awk '{ printf "%.3f", $1 + $2 }')
row "calops hosts' own CPU, $HOSTS hosts" "$cpu" s
# And the hosts' share: the machine's busy CPU over the same command less
# calops' own.  On loopback the hosts' sshd, the shells they start and the
# calops they run are on this machine's CPUs: spread over them, that time
# is a floor no client goes under, however it connects.
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
b0=$(busy)
"$CALOPS" hosts "$L/lab.yaml" >/dev/null
b1=$(busy)
hz=$(getconf CLK_TCK)
hostcpu=$(awk -v b="$((b1 - b0))" -v hz="$hz" -v c="$cpu" \
	'BEGIN { v = b / hz - c; printf "%.3f", v < 0 ? 0 : v }')
row "the hosts' CPU for them (machine less calops)" "$hostcpu" s
row "  spread over $(nproc) CPUs / one host's time" "$(awk -v h="$hostcpu" \
	-v n="$(nproc)" -v o="$one" 'BEGIN { printf "%.2f", h / n / o }')" x
row "OpenSSH ssh host calops version, one" "$oone" s
row "OpenSSH, $HOSTS at once (in parallel)" "$oall" s
row "OpenSSH: $HOSTS hosts / one" "$(awk -v a="$oall" -v b="$oone" \
	'BEGIN { printf "%.2f", a / b }')" x
fi

# ---- 4. a host behind one ProxyJump ----
if part 4; then
echo
echo "4. a host behind one ProxyJump against a direct one (median of $RUNS)"
BL=$WORK/blab
sh "$TOP/share/sshlab.sh" start "$BL" 1 --bastion --calops "$CALOPS" \
    >"$WORK/blab.log" 2>&1 ||
	{ cat "$WORK/blab.log" >&2; exit 1; }
# The console reads ~/.ssh/config: the bastion lab's, with its ProxyJump,
# or with a ProxyCommand instead.
for way in jump cmd; do
	mkdir -p -m 700 "$WORK/$way/.ssh"
	cp "$BL/ssh_config" "$WORK/$way/.ssh/config"
	chmod 600 "$WORK/$way/.ssh/config"
done
sed -i "s|^\tProxyJump bastion$|\tProxyCommand ssh -F '$BL/ssh_config' -W %h:%p bastion|" \
    "$WORK/cmd/.ssh/config"
helper() { HOME=$WORK/${WAY:-jump} "$HELPER" "$@"; }
bevents() { echo "$BL/host1/state/calops/jobs/$1/events.jsonl"; }
# An event file of $PJ_MB MiB on each host1.
did=$(rssh host1 calops run -- python3 "$WORK/gen.py" "$PJ_MB")
jid=$(ssh -F "$BL/ssh_config" host1 calops run -- python3 "$WORK/gen.py" \
    "$PJ_MB")
wait_end host1 "$did"
until [ -s "$(bevents "$jid")" ] &&
    tail -c 4096 "$(bevents "$jid")" | grep -q '"type":"end"'; do
	sleep 0.5
done
dsize=$(stat -c %s "$(job_events host1 "$did")")
jsize=$(stat -c %s "$(bevents "$jid")")
: >"$WORK/t4"
for _ in $(seq "$RUNS"); do
	dv=$(helper "$L/lab.yaml" host1 version --json)
	jv=$(helper "$BL/lab.yaml" host1 version --json)
	cv=$(WAY=cmd helper "$BL/lab.yaml" host1 version --json)
	dt=$(helper "$L/lab.yaml" host1 tail "$did" --from 1)
	jt=$(helper "$BL/lab.yaml" host1 tail "$jid" --from 1)
	ct=$(WAY=cmd helper "$BL/lab.yaml" host1 tail "$jid" --from 1)
	[ "$(field bytes "$dt")" = "$dsize" ] &&
	    [ "$(field bytes "$jt")" = "$jsize" ] &&
	    [ "$(field bytes "$ct")" = "$jsize" ] ||
		echo "  warning: calops tail handed over $(field bytes "$dt")," \
		    "$(field bytes "$jt") and $(field bytes "$ct") bytes, not" \
		    "$dsize, $jsize and $jsize" >&2
	# The peer: OpenSSH's own cat of the same files, direct and through
	# the same bastion (ssh -J), connect included.
	od=$(wall rssh host1 cat "$(job_events host1 "$did")")
	oj=$(wall ssh -F "$BL/ssh_config" host1 cat "$(bevents "$jid")")
	echo "$(field connect_ms "$dv") $(field connect_ms "$jv")" \
	    "$(field connect_ms "$cv") $(field run_ms "$dv")" \
	    "$(field run_ms "$jv") $(field run_ms "$cv")" \
	    "$(field run_ms "$dt") $(field run_ms "$jt")" \
	    "$(field run_ms "$ct") $od $oj" >>"$WORK/t4"
done
c4() { awk -v c="$1" '{ print $c }' "$WORK/t4" | median; }
rate() {	# rate TAIL_MS VERSION_MS SIZE: MiB/s of the file
	awk -v t="$1" -v b="$2" -v n="$3" \
	    'BEGIN { printf "%.1f", n / 1048576 / ((t - b) / 1000) }'
}
drate=$(rate "$(c4 7)" "$(c4 4)" "$dsize")
jrate=$(rate "$(c4 8)" "$(c4 5)" "$jsize")
crate=$(rate "$(c4 9)" "$(c4 6)" "$jsize")
printf '  %-40s %10s %12s %12s\n' "" direct "ProxyJump" "ProxyCommand"
printf '  %-40s %10s %12s %12s\n' "connect (up, version probe), ms" \
    "$(c4 1)" "$(c4 2)" "$(c4 3)"
printf '  %-40s %10s %12s %12s\n' "calops tail of $PJ_MB MiB, MiB/s" \
    "$drate" "$jrate" "$crate"
row "connect: ProxyJump / direct" "$(awk -v a="$(c4 2)" -v b="$(c4 1)" \
	'BEGIN { printf "%.2f", a / b }')" x "<=" 2
row "stream: ProxyJump / direct" "$(awk -v a="$jrate" -v b="$drate" \
	'BEGIN { printf "%.2f", a / b }')" x ">=" 0.8
row "OpenSSH: ssh -J cat / ssh cat (connect in)" "$(awk \
	-v a="$(awk -v n="$jsize" -v t="$(c4 11)" 'BEGIN { print n / t }')" \
	-v b="$(awk -v n="$dsize" -v t="$(c4 10)" 'BEGIN { print n / t }')" \
	'BEGIN { printf "%.2f", a / b }')" x
row "calops ProxyJump stream / ssh -J cat" "$(awk \
	-v a="$jrate" -v n="$jsize" -v t="$(c4 11)" \
	'BEGIN { printf "%.2f", a / (n / 1048576 / t) }')" x
row "connect: ProxyCommand ssh -W / direct" "$(awk -v a="$(c4 3)" \
	-v b="$(c4 1)" 'BEGIN { printf "%.2f", a / b }')" x
row "stream: ProxyCommand ssh -W / direct" "$(awk -v a="$crate" \
	-v b="$drate" 'BEGIN { printf "%.2f", a / b }')" x
fi

# ---- 2. the console following the fleet ----
part 2 || exit 0
echo
echo "2. the console following $HOSTS hosts x $RATE events/s, $WINDOW_S s" \
	"after $WARM_S s"
STATE=$WORK/state
started=$(date +%s)
# Every pacer waits for the go file, then streams from the time it names
# to the end it names, the same two times for every host, so that all of
# them stream through the whole window however long starting them took
# (at 64 hosts, a minute); each writes when it began and ended and how
# many events it wrote.  The hosts are on this machine: they read the file
# where the script writes it.
GO=$WORK/go
cat >"$WORK/pace.py" <<'PYEOF'
import os, sys, time
rate, go, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
while not os.path.exists(go):
    time.sleep(0.01)
start, end = (float(x) for x in open(go).read().split())
time.sleep(max(0.0, start - time.time()))
first = time.time()
t0 = time.monotonic()
i = 0
while first + i / rate < end:
    d = t0 + i / rate - time.monotonic()
    if d > 0:
        time.sleep(d)
    print("event %d" % i, flush=True)
    i += 1
with open(out + ".tmp", "w") as f:
    f.write("%.6f %.6f %d\n" % (first, time.time(), i))
os.rename(out + ".tmp", out)
PYEOF
for k in $(seq "$HOSTS"); do
	id=$(rssh "host$k" calops run -- python3 -u "$WORK/pace.py" "$RATE" \
	    "$GO" "$WORK/paced.host$k")
	mkdir -p -m 700 "$STATE" "$STATE/calops" "$STATE/calops/streams" \
	    "$STATE/calops/streams/host$k"
	python3 - "$STATE/calops/streams/host$k/$id.json" "$id" "host$k" \
	    "$started" <<'PYEOF'
import json, os, sys
path, jid, host, started = sys.argv[1:]
rec = {"v": 1, "id": jid, "host": host, "kind": "soak", "gate": 9,
       "chip": 0, "chips": [0], "target_s": 0.0,
       "command": "python3 (the benchmark's pacer)",
       "label": "bench on " + host, "started": float(started)}
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(fd, json.dumps(rec).encode())
os.close(fd)
PYEOF
done
cpid=$(tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 \
    -P -F '#{pane_pid}' "exec env XDG_STATE_HOME=$STATE \
    XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache \
    CALOPS_BENCH_LAG=$WORK/lag $(printf '%q' "$CALOPS") \
    $(printf '%q' "$L/lab.yaml")")
# Go: from now, to 5 s past the window (the events written in it reach the
# console before it is stopped).
awk -v t="$(now_s)" -v s=$((WARM_S + WINDOW_S + 5)) \
    'BEGIN { printf "%.6f %.6f\n", t, t + s }' >"$GO.tmp"
mv "$GO.tmp" "$GO"
sleep "$WARM_S"
stat_of() {	# stat_of PID: "ticks schedstat_ns"
	local t s=0 f
	t=$(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }')
	for f in /proc/"$1"/task/*/schedstat; do
		s=$((s + $(cut -d' ' -f1 "$f")))
	done
	echo "$t $s"
}
w0=$(now_s)
read -r t0 s0 < <(stat_of "$cpid")
if [ -n "${PERF:-}" ]; then
	# Where the console's time goes, for the one who would lower it.
	perf record -q -g -o "$WORK/perf.data" -p "$cpid" -- \
	    sleep "$WINDOW_S" >/dev/null 2>&1
else
	sleep "$WINDOW_S"
fi
read -r t1 s1 < <(stat_of "$cpid")
w1=$(now_s)
for k in $(seq "$HOSTS"); do
	until [ -s "$WORK/paced.host$k" ]; do sleep 0.2; done
done
kill -TERM "$cpid"
while kill -0 "$cpid" 2>/dev/null; do sleep 0.1; done
[ -s "$WORK/lag" ] || { echo "bench_ssh: the console wrote no lags" >&2;
	exit 1; }
pct=$(awk -v s=$((s1 - s0)) -v a="$w0" -v b="$w1" \
	'BEGIN { printf "%.2f", 100 * s / 1e9 / (b - a) }')
ticks=$(awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v a="$w0" \
	-v b="$w1" 'BEGIN { printf "%.2f", 100 * t / hz / (b - a) }')
awk -v a="$w0" -v b="$w1" '$1 >= a && $1 <= b {
	printf "%.3f\n", ($2 - $1) * 1000 }' "$WORK/lag" | sort -g \
	>"$WORK/lags"
n=$(wc -l <"$WORK/lags")
pq() { awk -v q="$1" '{ v[NR] = $1 } END {
	i = int(q * NR + 0.999999); if (i < 1) i = 1; print v[i] }' \
	"$WORK/lags"; }
row "console CPU (schedstat), % of a core" "$pct" % "<=" 3
row "console CPU (ticks), % of a core" "$ticks" %
want=$(awk -v h="$HOSTS" -v r="$RATE" -v a="$w0" -v b="$w1" \
	'BEGIN { printf "%d", h * r * (b - a) }')
row "events written in the window, applied" "$n" ""
row "expected ($HOSTS x $RATE/s x window)" "$want" ""
# Each host streamed from before the window opened to after it closed.
late=0
for k in $(seq "$HOSTS"); do
	read -r first last count <"$WORK/paced.host$k"
	awk -v f="$first" -v l="$last" -v a="$w0" -v b="$w1" \
	    'BEGIN { exit !(f <= a && l >= b) }' || {
		echo "  host$k streamed from $first to $last ($count events)," \
		    "not over the whole window $w0 to $w1" >&2
		late=$((late + 1))
	}
done
row "lag P50" "$(pq 0.5)" ms
row "lag P99" "$(pq 0.99)" ms "<=" 250
row "lag max" "$(pq 1)" ms
# Figures over fewer events than the fleet wrote are not the fleet's: a
# run where a host did not stream the whole window, or where the console
# applied less than 99% of what was written in it, fails, whatever its
# figures say.
if [ "$late" -gt 0 ] || awk -v n="$n" -v w="$want" \
    'BEGIN { exit !(n < 0.99 * w) }'; then
	echo "bench_ssh: FAIL: part 2 measured $n events of the $want" \
	    "expected; $late of $HOSTS hosts did not stream over the whole" \
	    "window" >&2
	exit 1
fi
if [ -n "${PERF:-}" ]; then
	echo "  the console's time (perf, PERF=1):"
	perf report -i "$WORK/perf.data" --no-children --percent-limit 1 \
	    --stdio -g none 2>/dev/null | grep '%' | head -40 | sed 's/^/    /'
	# PERF_OUT=FILE keeps the profile for a closer look (perf report -i).
	[ -z "${PERF_OUT:-}" ] || cp "$WORK/perf.data" "$PERF_OUT"
fi
