#!/bin/bash
# bench_report.sh: issue 31's report number, printed with PASS/MISS.
#
# usage: tests/bench/bench_report.sh [BUILD]        (default: build)
#
#   `calops report --format html` of the complete example (a copy under
#   $TMPDIR), the whole command to standard output (a file, so that no
#   terminal is timed): the evaluation of every gate, the release state,
#   the record and the page with its three graphs.  Median of $RUNS
#   (default 21) with the hash cache warm, as the release owner runs it
#   again and again (target <= 0.5 s); beside it the CPU time of those
#   runs (user + sys: what the wall time is on an idle machine), the first
#   run, with no hash cache (every byte of the workspace hashed), and the
#   Markdown.  Needs /usr/bin/time (Debian's time).
# Not part of ctest.
set -euo pipefail

BUILD=${1:-build}
RUNS=${RUNS:-21}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CALOPS=$(cd "$BUILD" && pwd)/calops
[ -x "$CALOPS" ] || { echo "bench_report: no '$CALOPS'" >&2; exit 2; }
export LC_ALL=C.UTF-8

W=$(mktemp -d "${TMPDIR:-/tmp}/calops-bench-report.XXXXXX")
trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME=$W/cache

. "$(dirname "$0")/lib.sh"
now_ns() { date +%s%N; }
[ -x /usr/bin/time ] || { echo "bench_report: no /usr/bin/time" >&2; exit 2; }

# One run of `calops report ARGS` into a file: its wall time in seconds,
# and its CPU time (user + sys) appended to $W/cpu.
timed() {
	local t0 t1
	t0=$(now_ns)
	/usr/bin/time -a -o "$W/cpu" -f '%U %S' \
	    "$CALOPS" report "$@" "$W/ws" >"$W/out"
	t1=$(now_ns)
	awk -v d=$((t1 - t0)) 'BEGIN { printf "%.4f\n", d / 1e9 }'
}

# The report's part: a function of its own, so that the other parts of
# the release benches stay apart from it.
bench_report() {
	local first html cpu md i

	cp -a "$TOP/share/examples/complete" "$W/ws"
	first=$(timed --format html)
	: >"$W/cpu"
	html=$(for i in $(seq "$RUNS"); do timed --format html; done | median)
	cpu=$(awk '{ print $1 + $2 }' "$W/cpu" | median)
	md=$(for i in $(seq "$RUNS"); do timed --format md; done | median)
	echo "calops report, the complete example ($(wc -c <"$W/out") bytes" \
	    "of Markdown), median of $RUNS:"
	row "report --format html, hash cache warm" "$html" s "<=" 0.5
	row "  its CPU time (user + sys)" "$cpu" s
	row "report --format html, first run (no hash cache)" "$first" s
	row "report --format md, hash cache warm" "$md" s
}

bench_report
