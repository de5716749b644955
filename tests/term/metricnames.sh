# metricnames.sh: a runner that prints a new metric name every sample
# cannot grow the console's memory (issue 10, item 3): a soak whose runner
# prints 300,000 metric events, each of a name never seen before, is
# followed by the real console to its end.  Its store keeps three
# quarters of its cap of 1,024 series for such names (metrics.h: the rest
# is the known names'), the Soak screen counts the samples of the others,
# not kept (299,232; the status line's single warning is
# test_labmodel's to check: here the job's end replaces it at once), and
# the console's peak RSS (VmHWM in /proc/PID/status, once the job has
# ended and every event was applied) stays under 100 MB; the figures are
# printed.
. "$(dirname "$0")/lib.sh"

EVENTS=300000
CAP=1024			# METRICS_JOB_SERIES
KEPT=768			# of new names: a quarter is the known names'
COUNTED=1024			# METRICS_DROPPED_SERIES
LIMIT_KIB=97656			# 100 MB
LIMIT="100 MB"

J=$TMP/jobs
jobs_dir "$J"
copy_ws "$COMPLETE"
# The runner: whatever the soak's arguments, the events and nothing else.
cat >"$TMP/names-runner" <<EOF
#!/bin/sh
exec awk 'BEGIN {
	for (i = 1; i <= $EVENTS; i++)
		printf "{\"v\":1,\"seq\":%d,\"ts\":%.3f,\"type\":\"metric\"," \\
		    "\"chip\":0,\"values\":{\"junk_%d\":%d}}\n", i,
		    1700000000 + i / 1000, i, i
}'
EOF
chmod +x "$TMP/names-runner"
cat >"$TMP/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0]}
workspaces:
  - {host: local, path: $(yaml_str "$WS")}
runner: $TMP/names-runner
EOF

start CALOPS_JOBS_DIR="$J"
launch "$TMP/lab.yaml"
wait_for "11 of 11 gates pass"
keys 5
wait_for "[5 Soak]"
wait_for "s: start one on local"
# Keys typed ahead of a question are not its answer: each waits for it.
keys s
wait_for "soak for how long?"
send_text "1h"
keys Enter
wait_for "Start soak 1h · chips 0 on local?"
wait_for "type the chips (0) to start it:"
send_text "0"
keys Enter
# Every event applied: the job's end is its last event, and the count is
# the whole of what was refused.
dropped=$((EVENTS - KEPT))
want="not kept: $dropped samples of $COUNTED\+ new series \(cap $CAP\)"
WAIT_SECS=100 wait_re "^ *ended [0-9:]+ +$want"
pid=$(calops_pid) || fail "no calops running"
hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status")
rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status")
[ -n "$hwm" ] && [ -n "$rss" ] || fail "no VmHWM or VmRSS in /proc/$pid/status"
n=$(grep -c '"type":"metric"' "$J"/*/events.jsonl)
[ "$n" -eq "$EVENTS" ] || fail "the job recorded $n metric events, not $EVENTS"
# Under AddressSanitizer, its shadow memory and its quarantine of freed
# blocks (256 MiB at most) come on top: judged against 512 MiB there, which
# still tells a bounded console from one that keeps every name (2 GB).
if grep -q 'libasan' "/proc/$pid/maps"; then
	LIMIT_KIB=524288
	LIMIT="512 MiB, under AddressSanitizer"
fi
echo "$TEST (${COLS}x$ROWS): $EVENTS metric events of new names:" \
    "VmHWM $hwm KiB, VmRSS $rss KiB (limit $LIMIT_KIB KiB: $LIMIT)"
[ "$hwm" -lt "$LIMIT_KIB" ] ||
    fail "the console's peak RSS is $hwm KiB, not under $LIMIT_KIB KiB"
quit_calops
finish
