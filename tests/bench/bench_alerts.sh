#!/bin/bash
# bench_alerts.sh: `calops alerts LAB` following 16 soaks at 200 events/s
# each (issue 32, share/doc/alerts.md §4), none started by it: each is a
# generator started by `calops run` on a lab host, whose argv reads as the
# lab runner's soak (stress --calbin WS --chips), so the lab model of
# calops alerts takes it in (labpoll.h) and follows it.  The hosts are 16
# real SSH hosts, the loopback lab of share/sshlab.sh (under $HOME, as its
# StrictModes want), one soak each, its events read through each host's
# sshd; without sshd, or with BENCH_HOSTS=local, one local host runs the
# 16 (below).  Measured over $BENCH_SECONDS (default 30) of wall time:
#
#   CPU   utime + stime of the calops alerts process (/proc/PID/stat)
#         over the run, as a share of one core (target <= 2 %); the same
#         with its live descendants (the hook; on the local host, the
#         `calops tail --follow` each job is read through: on an SSH host
#         that runs under the host's sshd), shown without a target;
#   RSS   its VmHWM at the end (target <= 32 MiB);
#   hook  each generator, once warm, jumps its samples' clock by 2 min
#         and writes TTFT 2000 ms: the first such event crosses the rule
#         sla.ttft_p99 > 250 ms, for: 0; the time it was written (before
#         it reached the host's events file, so the figure errs long) to
#         the time the hook started, which the hook records (target <=
#         2 s; median and max of the 16).
#
# BENCH_HOSTS=local: one host, not 16: local hosts share one jobs folder
# (every local host would list every job), so the 16 streams are one
# host's; the event load on calops alerts is the same, the listings are
# one a period instead of 16, and no SSH.
#
# usage: tests/bench/bench_alerts.sh [BUILD]    (default: build)
# Not part of ctest: it wants an otherwise idle machine.
set -uo pipefail
export LC_ALL=C

SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/bench/lib.sh"
BUILD=$(cd "${1:-build}" && pwd)
CALOPS=$BUILD/calops
JOBS=${BENCH_JOBS:-16}
RATE=${BENCH_RATE:-200}
SECONDS_RUN=${BENCH_SECONDS:-30}
[ -x "$CALOPS" ] || { echo "bench_alerts: no '$CALOPS'" >&2; exit 2; }
HOSTS=${BENCH_HOSTS:-ssh}
[ "$HOSTS" = ssh ] && ! command -v sshd >/dev/null &&
    [ ! -x /usr/sbin/sshd ] && HOSTS=local
SSHLAB=

T=$(mktemp -d "${BENCH_DIR:-/tmp}/calops bench alerts.XXXXXX")
ALERTS=
# jobs_of N: the jobs folder of the job g<N> (host<N>'s, or the local
# host's).
jobs_of() {
	if [ -n "$SSHLAB" ]; then
		echo "$SSHLAB/host$1/state/calops/jobs"
	else
		echo "$T/jobs"
	fi
}
cleanup() {
	local i
	[ -n "$ALERTS" ] && kill "$ALERTS" 2>/dev/null
	for i in $(seq 1 "$JOBS"); do
		CALOPS_JOBS_DIR=$(jobs_of "$i") "$CALOPS" kill "g$i" \
		    >/dev/null 2>&1
	done
	if [ -n "$SSHLAB" ]; then
		sh "$SRC/share/sshlab.sh" stop "$SSHLAB" >/dev/null 2>&1
		rm -rf "$SSHLAB"
	fi
	rm -rf "$T"
}
trap cleanup EXIT

# The generator: runner events at RATE a second, TTFT 100 ms; after
# WARM seconds its clock jumps 2 min and TTFT is 2000 ms, the wall time
# of that first event written to MARK.
cat >"$T/gen.py" <<'EOF'
import json, sys, time
a = sys.argv
rate, warm, mark = (float(a[a.index("--rate") + 1]),
    float(a[a.index("--warm") + 1]), a[a.index("--mark") + 1])
out, seq, t0 = sys.stdout, 0, time.time()
def ev(o):
    global seq
    seq += 1
    o["v"], o["seq"] = 1, seq
    out.write(json.dumps(o) + "\n")
ev({"ts": t0, "type": "hello", "tool": "bench-gen", "version": "1",
    "host": "bench", "job": "", "argv": sys.argv})
out.flush()
n, shift, marked = 0, 0.0, False
while True:
    now = time.time()
    due = int((now - t0) * rate)
    while n < due:
        hot = now - t0 >= warm
        if hot and not marked:
            shift = 120.0
        ev({"ts": now + shift, "type": "metric", "chip": 0, "values":
            {"ttft_ms": 2000.0 if hot else 100.0, "tpot_ms": 30.0,
             "request_ok": 1}})
        n += 1
        if hot and not marked:
            out.flush()
            with open(mark, "w") as f:
                f.write("%.6f\n" % time.time())
            marked = True
    out.flush()
    time.sleep(0.02)
EOF
alerts_yaml() {
	cat <<EOF
alerts:
  hook: [sh, -c, 'date +%s.%N >> "\$0"; cat > /dev/null', "$T/hooked"]
  rules:
    - {kind: sla.ttft_p99, threshold: 250, for: 0}
EOF
}
if [ "$HOSTS" = ssh ]; then
	SSHLAB=$(mktemp -d "$HOME/sshlab-bench-alerts.XXXXXX")
	chmod 0700 "$SSHLAB"
	sh "$SRC/share/sshlab.sh" start "$SSHLAB" "$JOBS" --calops \
	    "$CALOPS" >"$T/sshlab.out" 2>&1 ||
		{ echo "bench_alerts: sshlab: $(tail -3 "$T/sshlab.out")" >&2;
		  exit 1; }
	# Its hosts and workspaces; the generator as the runner.
	sed "s|^runner: .*|runner: [python3, \"$T/gen.py\"]|" \
	    "$SSHLAB/lab.yaml" >"$T/lab.yaml"
	alerts_yaml >>"$T/lab.yaml"
	ws_of() { echo "$SSHLAB/host$1/ws"; }
	streams() { ls "$T/state/calops/streams/host$1" 2>/dev/null | wc -l; }
else
	cat >"$T/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0]}
workspaces:
  - {host: local, path: "$T/ws"}
runner: [python3, "$T/gen.py"]
EOF
	alerts_yaml >>"$T/lab.yaml"
	cp -a "$SRC/share/examples/labdemo" "$T/ws"
	ws_of() { echo "$T/ws"; }
	streams() { ls "$T/state/calops/streams/local" 2>/dev/null | wc -l; }
fi
mkdir -p "$T/state"
export XDG_STATE_HOME=$T/state CALOPS_JOBS_DIR=$T/jobs

"$CALOPS" alerts "$T/lab.yaml" >"$T/alerts.out" 2>&1 &
ALERTS=$!
warm=$((SECONDS_RUN / 2))
# Each job started on its host as `calops run` there would: the hosts are
# this machine's, each with its own jobs folder.
for i in $(seq 1 "$JOBS"); do
	CALOPS_JOBS_DIR=$(jobs_of "$i") "$CALOPS" run --id "g$i" -- python3 \
	    "$T/gen.py" stress --calbin "$(ws_of "$i")/05-calbin/package" \
	    --duration 1h --chips 0 --rate "$RATE" \
	    --warm "$warm" --mark "$T/mark.$i" >/dev/null ||
		{ echo "bench_alerts: cannot start job g$i" >&2; exit 1; }
done

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
tree_ticks() {
	local p sum=0 t
	for p in $(ps -o pid= --ppid "$1") "$1"; do
		[ "$p" = "$1" ] || { t=$(tree_ticks "$p"); sum=$((sum + t)); continue; }
		t=$(ticks "$p")
		sum=$((sum + ${t:-0}))
	done
	echo "$sum"
}
HZ=$(getconf CLK_TCK)
# The run is measured once every job is adopted (its mirror made).
adopted() {
	local i n=0
	if [ -n "$SSHLAB" ]; then
		for i in $(seq 1 "$JOBS"); do
			[ "$(streams "$i")" -ge 1 ] && n=$((n + 1))
		done
	else
		n=$(streams)
	fi
	[ "$n" -ge "$JOBS" ]
}
t=$(($(date +%s) + 120))
while ! adopted; do
	[ "$(date +%s)" -lt "$t" ] ||
		{ echo "bench_alerts: the jobs were not adopted" >&2; exit 1; }
	sleep 0.1
done
t_start=$(date +%s.%N)
c0=$(ticks "$ALERTS")
d0=$(tree_ticks "$ALERTS")
sleep "$SECONDS_RUN"
c1=$(ticks "$ALERTS")
d1=$(tree_ticks "$ALERTS")
t_end=$(date +%s.%N)
hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$ALERTS/status")

cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" -v s="$t_start" -v e="$t_end" \
    'BEGIN { printf "%.2f", 100 * (b - a) / hz / (e - s) }')
cpud=$(awk -v a="$d0" -v b="$d1" -v hz="$HZ" -v s="$t_start" -v e="$t_end" \
    'BEGIN { printf "%.2f", 100 * (b - a) / hz / (e - s) }')
rss=$(awk -v k="$hwm" 'BEGIN { printf "%.1f", k / 1024 }')
# Each job's hook start: the hook's lines, in order, paired with the marks
# in the order they were written.
lat=()
if [ -s "$T/hooked" ]; then
	mapfile -t hooks < <(sort -g "$T/hooked")
	mapfile -t marks < <(cat "$T"/mark.* 2>/dev/null | sort -g)
	for i in "${!marks[@]}"; do
		[ -n "${hooks[$i]:-}" ] || continue
		lat+=("$(awk -v h="${hooks[$i]}" -v m="${marks[$i]}" \
		    'BEGIN { printf "%.3f", h - m }')")
	done
fi
events=0
for i in $(seq 1 "$JOBS"); do
	n=$(wc -l <"$(jobs_of "$i")/g$i/events.jsonl" 2>/dev/null)
	events=$((events + ${n:-0}))
done

if [ -n "$SSHLAB" ]; then
	where="$JOBS SSH hosts (share/sshlab.sh), a soak each"
else
	where="one local host"
fi
echo "calops alerts: $JOBS soaks x $RATE events/s on $where," \
    "${SECONDS_RUN} s ($events events written)"
row "CPU of calops alerts (utime+stime / wall)" "$cpu" "%" "<=" 2
row "CPU with its descendants (hook, local tails)" \
    "$cpud" "%"
row "VmHWM of calops alerts" "$rss" "MiB" "<=" 32
if [ ${#lat[@]} -gt 0 ]; then
	row "hook start after the crossing event, median" \
	    "$(median "${lat[@]}")" "s" "<=" 2
	row "hook start after the crossing event, max" \
	    "$(printf '%s\n' "${lat[@]}" | sort -g | tail -1)" "s" "<=" 2
	row "crossings that reached the hook" "${#lat[@]}" "of" "==" "$JOBS"
else
	row "crossings that reached the hook" 0 "of" "==" "$JOBS"
	sed 's/^/  calops alerts: /' "$T/alerts.out" | tail -5
fi
