#!/bin/bash
# bench_console.sh: how fast the console starts, paints and idles, against
# the targets of the console issue, printed side by side with PASS/MISS.
#
# usage: tests/bench/bench_console.sh [CALOPS]    (default: build/calops)
#
# Runs the console on its bundled demo workspace (share/examples/midproject;
# BENCH_WORKSPACE=PATH for another) with TERM=xterm-256color, in a C.UTF-8
# locale and with fresh XDG cache/state/config folders, and measures:
#   1. startup under a 120x40 pty (tests/bench/bench_console_helper.c, which
#      runs the console with forkpty and feeds its output to a small terminal
#      emulator): ms from fork to the first frame (title and status bar; the
#      board may still say "evaluating…") and to the first complete board
#      frame (G0…G10 each with its status, "gates pass" in the status bar).
#      The < 100 ms target is for the complete board.  Median of $RUNS
#      (default 7) runs after one cold-cache run, which is shown apart.
#   2. board frames at 200x60 through a real pty: the console's benchmark
#      hook (CALOPS_BENCH_FRAMES, views/app/bench.c) paints $FRAMES (default
#      1000) frames back to back, pressing Tab before each (a key is painted
#      at once; what the console changes itself is paced at FRAME_MIN_MS,
#      100 ms), and times each paint (erase + draw + refresh, with the write
#      to the pty); the helper counts the bytes read from the pty master in
#      that window.  The wall time per frame is printed too: a run whose
#      frames came 50 ms apart or more was paced, not back to back, and
#      fails (exit 1).
#      Then the same with a forced full repaint (CALOPS_BENCH_FULL=1: clearok
#      every frame) for the bytes comparison.  The changed share of the
#      cells is measured (newscr against curscr), not assumed.
#   3. an idle console in tmux (120x40) beside htop with its defaults in the
#      same tmux setup, over the same $IDLE_S (default 30) seconds: bytes
#      written (/proc/PID/io wchar) and CPU (/proc/PID/stat utime+stime in
#      ticks, and /proc/PID/task/*/schedstat in ns for resolution).  Installs
#      htop (and tmux) with apt-get when missing.
# Not part of ctest: it takes under two minutes and wants an idle machine.
set -euo pipefail

CALOPS=${1:-build/calops}
RUNS=${RUNS:-7}
FRAMES=${FRAMES:-1000}
IDLE_S=${IDLE_S:-30}
[ -x "$CALOPS" ] || { echo "bench_console: no executable '$CALOPS'" >&2; exit 2; }
CALOPS=$(cd "$(dirname "$CALOPS")" && pwd)/$(basename "$CALOPS")
HERE=$(cd "$(dirname "$0")" && pwd)
ARGS=()
[ -n "${BENCH_WORKSPACE:-}" ] && ARGS=("$BENCH_WORKSPACE")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench_console.XXXXXX")
SOCK=bench_console_$$
cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
export LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color
export XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state \
	XDG_CONFIG_HOME=$WORK/config
unset NO_COLOR CALOPS_BENCH_FRAMES CALOPS_BENCH_OUT CALOPS_BENCH_FULL

need() {
	command -v "$1" >/dev/null && return
	echo "bench_console: installing $1" >&2
	if [ -z "${APT_UPDATED:-}" ]; then
		apt-get update -qq >&2
		APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >&2
}
need cc
need tmux
need htop
cc -std=c17 -O2 -Wall -Wextra -o "$WORK/helper" \
	"$HERE/bench_console_helper.c" -lutil

ROW_LABEL=40 ROW_VALUE=12 ROW_TARGET=8
. "$(dirname "$0")/lib.sh"
field() {	# field NAME LINE
	tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

echo "calops console benchmarks: $CALOPS, ${BENCH_WORKSPACE:-the demo workspace}"
load=$(cut -d' ' -f1 /proc/loadavg)
echo "  $(nproc) CPUs, load $load, $(uname -r), TERM=$TERM;" \
	"$(date -u '+%F %T') UTC"
awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }' &&
	echo "  warning: the machine is busy (load $load): timings will be high"

# ---- 1. startup ----
echo
echo "1. startup to the first complete frame, 120x40 pty"
cold=$("$WORK/helper" startup 120 40 -- "$CALOPS" "${ARGS[@]}")
: >"$WORK/startup"
for _ in $(seq "$RUNS"); do
	"$WORK/helper" startup 120 40 -- "$CALOPS" "${ARGS[@]}" >>"$WORK/startup"
done
first=$(sed 's/.*first=\([^ ]*\).*/\1/' "$WORK/startup" | median)
board=$(sed 's/.*complete=\([^ ]*\).*/\1/' "$WORK/startup" | median)
row "first frame (may still be evaluating…)" "$first" ms
row "first complete board frame" "$board" ms "<" 100
echo "  (median of $RUNS runs: complete board $(sed 's/.*complete=//' \
	"$WORK/startup" | sort -g | tr '\n' ' ')ms; the run before them, with" \
	"an empty hash cache: first $(field first "$cold") ms, board" \
	"$(field complete "$cold") ms)"

# ---- 2. frames ----
echo
echo "2. board frames at 200x60 through a pty, $FRAMES frames each" \
	"(Tab before each: board → tickets → findings → …)"
frames() {	# frames [full]
	env CALOPS_BENCH_FRAMES="$FRAMES" CALOPS_BENCH_OUT="$WORK/frames.out" \
	    ${1:+CALOPS_BENCH_FULL=1} "$WORK/helper" frames 200 60 \
	    "$WORK/frames.out" -- "$CALOPS" "${ARGS[@]}"
}
diff=$(frames)
full=$(frames full)
pct() { awk -v v="$1" 'BEGIN { printf "%.1f", 100 * v }'; }
row "changed cells per frame (mean)" "$(pct "$(field changed "$diff")")" %
echo "  (min $(pct "$(field changed_min "$diff")") %, max" \
	"$(pct "$(field changed_max "$diff")") % of 12000 cells)"
row "paint mean (erase+draw+refresh+write)" "$(field mean_ms "$diff")" ms "<=" 1
row "paint p99" "$(field p99_ms "$diff")" ms "<=" 2
row "paint p50 / max" "$(field p50_ms "$diff") / $(field max_ms "$diff")" ms
row "wall time per frame (back to back)" "$(field wall_ms "$diff")" ms
row "bytes per frame" "$(field bytes_per_frame "$diff")" B
row "bytes per forced full repaint (clearok)" \
	"$(field bytes_per_frame "$full")" B
ratio=$(awk -v a="$(field bytes_per_frame "$diff")" \
	-v b="$(field bytes_per_frame "$full")" 'BEGIN { printf "%.3f", a / b }')
row "bytes per frame / full repaint" "$ratio" x "<=" 0.25
row "full repaint: paint mean / p99" \
	"$(field mean_ms "$full") / $(field p99_ms "$full")" ms
for run in "$diff" "$full"; do
	awk -v w="$(field wall_ms "$run")" 'BEGIN { exit !(w >= 50) }' || continue
	echo "bench_console: FAIL: a frame every $(field wall_ms "$run") ms:" \
	    "the frames were paced, not painted back to back" >&2
	exit 1
done
per_cell=$(awk -v a="$(field bytes_per_frame "$diff")" \
	-v c="$(field changed "$diff")" 'BEGIN { printf "%.2f", a / (c * 12000) }')
row "bytes per changed cell" "$per_cell" B

# ---- 3. idle ----
echo
echo "3. idle for ${IDLE_S} s in tmux, 120x40, beside htop (its defaults)"
# One tmux server, two sessions of the same size; exec so that the pane's
# pid is the program's own.
start_pane() {	# start_pane NAME COMMAND…
	tmux -L "$SOCK" -f /dev/null new-session -d -s "$1" -x 120 -y 40 \
	    -P -F '#{pane_pid}' "exec $2"
}
cpid=$(start_pane calops "$(printf '%q ' "$CALOPS" "${ARGS[@]}")")
hpid=$(start_pane htop htop)
sleep 3		# the evaluation and both first frames are over
stat_of() {	# stat_of PID: "ticks wchar schedstat_ns"
	local t w s=0 f
	t=$(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }')
	w=$(sed -n 's/^wchar: //p' "/proc/$1/io")
	for f in /proc/"$1"/task/*/schedstat; do
		s=$((s + $(cut -d' ' -f1 "$f")))
	done
	echo "$t $w $s"
}
read -r ct0 cw0 cs0 < <(stat_of "$cpid")
read -r ht0 hw0 hs0 < <(stat_of "$hpid")
sleep "$IDLE_S"
read -r ct1 cw1 cs1 < <(stat_of "$cpid")
read -r ht1 hw1 hs1 < <(stat_of "$hpid")
tmux -L "$SOCK" capture-pane -p -t calops | grep -q 'gates pass' ||
	echo "  warning: the calops pane shows no board" >&2
ms() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e6 }'; }
row "calops bytes written" "$((cw1 - cw0))" B "==" 0
row "htop bytes written" "$((hw1 - hw0))" B
row "calops CPU" "$((ct1 - ct0))" ticks
row "htop CPU" "$((ht1 - ht0))" ticks
row "calops CPU (schedstat)" "$(ms $((cs1 - cs0)))" ms
row "htop CPU (schedstat)" "$(ms $((hs1 - hs0)))" ms
cpu_ratio=$(awk -v a=$((cs1 - cs0)) -v b=$((hs1 - hs0)) \
	'BEGIN { printf "%.4f", (b > 0 ? a / b : (a > 0 ? 1e9 : 0)) }')
row "calops CPU / htop CPU (schedstat)" "$cpu_ratio" x "<=" 0.5
tick_ratio=$(awk -v a=$((ct1 - ct0)) -v b=$((ht1 - ht0)) \
	'BEGIN { printf "%.4f", (b > 0 ? a / b : (a > 0 ? 1e9 : 0)) }')
row "calops CPU / htop CPU (ticks)" "$tick_ratio" x "<=" 0.5
