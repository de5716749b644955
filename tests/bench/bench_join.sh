#!/bin/bash
# bench_join.sh: a console joining a lab of 16 hosts where a 24 h soak has
# run (issue 29): the time from its start to the soak's whole graph on its
# Soak screen (target <= 5 s), and its memory (VmHWM, target <= 64 MiB).
#
# The lab: share/sshlab.sh start DIR 16, sixteen sshd on 127.0.0.1, each a
# host of its own (its own HOME, XDG folders, jobs folder and workspace),
# one chip each.  Local hosts would not do: they share one jobs folder, so
# every local host would list every job.  Before the console starts:
#
#   host1   G9's soak, 24 h on chip 0 at the simulator's defaults (2
#           requests/s), the simulator's full event file: started with
#           `calops run-gate LAB G9 --host host1` (over SSH, as the console
#           starts one) with the runner at --time-scale 0, and over;
#   host2…  G7's golden run and its eight faults each, over
#           (BENCH_G7=0: nothing on them, only their job lists);
#   BENCH_SOAKS=N  a 24 h soak on each of the first N hosts (default 1).
#
# The console: build/calops LAB in a detached tmux pane (120x40, exec'd,
# so the pane's pid is the console's), with empty XDG folders (it holds no
# mirror: every job is learnt from the hosts' lists, labpoll.h, and every
# event fetched from them); 5 is sent once its first frame is up.
# Measured, median of $RUNS (default 3) runs, each from an empty state:
#
#   shown   ms from the pane's start to the first capture whose Soak
#           screen says the soak is `done` (its end event applied, so
#           every event before it is in the graph), captured every 50 ms;
#   caught  the same to the last soak's `done` when BENCH_SOAKS > 1;
#   VmHWM   of the console, read once the soak is shown;
#   CPU     the console's utime + stime over the run (/proc/PID/stat).
#
# BENCH_KEEP=1 keeps the lab, its hosts up, for a profile (it says where).
#
# usage: tests/bench/bench_join.sh [BUILD]    (default: build)
# Not part of ctest: it takes a few minutes and wants an idle machine;
# it needs sshd and tmux (share/bootstrap.sh test installs them).
set -uo pipefail
export LC_ALL=C.UTF-8 LANG=C.UTF-8

SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/bench/lib.sh"
BUILD=$(cd "${1:-build}" && pwd)
CALOPS=$BUILD/calops
HOSTS=${BENCH_HOSTS:-16}
SOAKS=${BENCH_SOAKS:-1}
RUNS=${RUNS:-3}
G7=${BENCH_G7:-1}
[ -x "$CALOPS" ] || { echo "bench_join: no '$CALOPS'" >&2; exit 2; }
[ -x "$BUILD/calrt-sim" ] || { echo "bench_join: no calrt-sim" >&2; exit 2; }

# sshd's StrictModes refuse /tmp: the lab goes under $BENCH_DIR, else
# $HOME (as tests/remote/lib.sh chooses).
BASE=${BENCH_DIR:-$HOME}
T=$(mktemp -d "$BASE/calops-bench-join.XXXXXX")
L=$T/lab
SOCK=bench_join_$$
cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null
	if [ -n "${BENCH_KEEP:-}" ]; then
		say "the lab is kept: $T/lab.yaml (sh share/sshlab.sh stop" \
		    "'$L'; rm -rf '$T')"
		return
	fi
	sh "$SRC/share/sshlab.sh" stop "$L" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
say() { echo "bench_join: $*" >&2; }
die() { say "$*"; exit 1; }

echo "calops join benchmark: $CALOPS"
load=$(cut -d' ' -f1 /proc/loadavg)
echo "  $(nproc) CPUs, load $load, $(uname -r); $(date -u '+%F %T') UTC"
awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }' &&
	echo "  warning: the machine is busy (load $load): timings will be high"

sh "$SRC/share/sshlab.sh" start "$L" "$HOSTS" --calops "$CALOPS" \
    >"$T/sshlab.out" 2>&1 || die "sshlab start: $(cat "$T/sshlab.out")"
# One chip a host, and the runner as fast as it goes.
sed -e 's/chips: \[0, 1\]/chips: [0]/' \
    -e 's/^runner: .*/runner: calrt-sim --time-scale 0/' \
    "$L/lab.yaml" >"$T/lab.yaml"

# host_jobs N: host N's `calops jobs --json`, read where it keeps them.
host_jobs() {
	XDG_STATE_HOME=$L/host$1/state "$CALOPS" jobs --json
}
# wait_done N COUNT: host N has COUNT jobs and none is running.
wait_done() {
	local t=$(($(date +%s) + 600)) out
	while :; do
		out=$(host_jobs "$1") || die "host$1: cannot list its jobs"
		if [ "$(grep -c '"state": *"' <<<"$out")" -ge "$2" ] &&
		    ! grep -q '"state": *"running"' <<<"$out"; then
			grep -q '"state": *"\(failed\|killed\|lost\)"' <<<"$out" &&
				die "host$1: a job failed: $out"
			return 0
		fi
		[ "$(date +%s)" -lt "$t" ] || die "host$1: its jobs did not end"
		sleep 1
	done
}

say "making the lab's jobs (a 24 h soak takes a minute or two)"
for k in $(seq 1 "$HOSTS"); do
	n=0
	if [ "$k" -le "$SOAKS" ]; then
		"$CALOPS" run-gate --host "host$k" "$T/lab.yaml" G9 \
		    >/dev/null 2>"$T/run.err" ||
			die "host$k: G9: $(cat "$T/run.err")"
		n=1
	elif [ "$G7" = 1 ]; then
		"$CALOPS" run-gate --host "host$k" "$T/lab.yaml" G7 \
		    >/dev/null 2>"$T/run.err" ||
			die "host$k: G7: $(cat "$T/run.err")"
		n=1
	fi
	echo "$n" >"$T/count.$k"
done
for k in $(seq 1 "$HOSTS"); do
	wait_done "$k" "$(cat "$T/count.$k")"
done
ev=$(ls "$L"/host1/state/calops/jobs/*/events.jsonl)
[ "$(wc -l <<<"$ev")" = 1 ] || die "host1 has more than the soak: $ev"
lines=$(wc -l <"$ev")
bytes=$(stat -c %s "$ev")

ROW_LABEL=46 ROW_VALUE=10 ROW_TARGET=6
echo
echo "the lab: $HOSTS loopback sshd (share/sshlab.sh), $SOAKS with a 24 h" \
	"soak (chip 0, 2 requests/s), $([ "$G7" = 1 ] && echo "the others" \
	"G7's golden + 8 faults" || echo "the others no job")"
row "soak events (host1's events.jsonl)" "$lines" lines
row "its size" "$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')" MB

now_ms() { date +%s%3N; }
# One run: the console from empty XDG folders to the soak shown done.
# Prints "shown_ms hwm_kib cpu_ticks caught_ms".
one_run() {
	local x=$T/run.$1 pid t0 t1 tl="" deadline re pat
	mkdir -p "$x/state" "$x/cache" "$x/config"
	t0=$(now_ms)
	# One shell word: tmux runs it with sh -c.
	pid=$(tmux -L "$SOCK" -f /dev/null new-session -d -s "run$1" \
	    -x 120 -y 40 -P -F '#{pane_pid}' "exec env \
	    TERM=xterm-256color $(printf '%q ' "XDG_STATE_HOME=$x/state" \
	    "XDG_CACHE_HOME=$x/cache" "XDG_CONFIG_HOME=$x/config" "$CALOPS" \
	    "$T/lab.yaml")") || die "cannot start the console"
	deadline=$((t0 + 120000))
	pane() { tmux -L "$SOCK" capture-pane -p -t "run$1"; }
	until pane "$1" | grep -q '\[1 Board\]'; do
		[ "$(now_ms)" -lt "$deadline" ] || die "no first frame"
		sleep 0.05
	done
	tmux -L "$SOCK" send-keys -t "run$1" 5
	re="done +soak 24h · chips? 0 @host1 "
	pat="done +soak 24h · chips? 0 @host$SOAKS "
	t1=
	while :; do
		scr=$(pane "$1")
		if [ -z "$t1" ] && grep -Eq "$re" <<<"$scr"; then
			t1=$(now_ms)
			hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
		fi
		if [ -n "$t1" ] && { [ "$SOAKS" = 1 ] ||
		    grep -Eq "$pat" <<<"$scr"; }; then
			tl=$(now_ms)
			break
		fi
		[ "$(now_ms)" -lt "$deadline" ] ||
			die "run $1: the soak was not shown done in 120 s:
$scr"
		sleep 0.05
	done
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
	cpu=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')
	pane "$1" >"$x/screen"
	tmux -L "$SOCK" kill-session -t "run$1"
	echo "$((t1 - t0)) $hwm $cpu $((tl - t0))"
}

echo
echo "a console joins ($RUNS runs, each from an empty state folder)"
: >"$T/runs"
for r in $(seq 1 "$RUNS"); do
	one_run "$r" >>"$T/runs" || exit 1
done
HZ=$(getconf CLK_TCK)
shown=$(cut -d' ' -f1 "$T/runs" | median)
hwm=$(cut -d' ' -f2 "$T/runs" | sort -g | tail -1)
cpu=$(cut -d' ' -f3 "$T/runs" | median)
row "start to the soak's whole graph (median)" \
	"$(awk -v m="$shown" 'BEGIN { printf "%.2f", m / 1000 }')" s "<=" 5
echo "  (each run: $(cut -d' ' -f1 "$T/runs" | tr '\n' ' ')ms)"
[ "$SOAKS" -gt 1 ] && row "start to all $SOAKS soaks shown (median)" \
	"$(cut -d' ' -f4 "$T/runs" | median | awk '{ printf "%.2f", $1 / 1000 }')" s
row "console VmHWM (the highest of the runs)" \
	"$(awk -v k="$hwm" 'BEGIN { printf "%.1f", k / 1024 }')" MiB "<=" 64
row "console CPU to then (median)" \
	"$(awk -v t="$cpu" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }')" s
echo "  the last run's screen:"
sed -n '1,6p' "$T/run.$RUNS/screen" | sed 's/^/    /'
