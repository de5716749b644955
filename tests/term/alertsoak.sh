# alertsoak.sh: a leaky, slow soak started from the console and judged by
# `calops alerts` on the same state folder (issue 32, share/doc/alerts.md):
# the lab's runner leaks 50 MB an hour and answers with a median TTFT of
# 3 s, over the workspace's 1500 ms SLA; r on G9 starts a 24 h soak (about
# 30 s at --time-scale 3000) while `calops alerts LAB` follows the lab
# headless, and is SIGKILLed in the middle of the soak and started again.
# The console, open first, holds the journal and sends; calops alerts
# waits to take over (alerts.md §6): either way the hook gets each once.
# Its hook (appending to a file) gets sla.ttft_p99 fired once (merged over
# the chips) and leak once a chip (rss_bytes leaks, device memory does
# not), none of them resolved nor sent twice.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"

copy_ws "$COMPLETE"
rm -rf "$WS/07-serving/soak"
cat >"$TMP/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0, 1]}
workspaces:
  - {host: local, path: $(yaml_str "$WS")}
runner: [$(yaml_str "$(dirname "$CALOPS")/calrt-sim"), --time-scale, "3000",
         --leak-rate, "50000000", --ttft-ms, "3000"]
alerts:
  hook: [sh, -c, 'cat >> "\$0"; echo >> "\$0"', $(yaml_str "$TMP/hooked")]
  rules:
    - {kind: sla.ttft_p99}
    - {kind: leak}
EOF

# firings RULE: how many alerts of RULE the hook got as firing, told apart
# by fingerprint: a restart sends again what the journal does not show
# sent, with the same id for the receiver to de-duplicate on
# (share/doc/alerts.md, "at least once across a restart").
firings() {
	python3 - "$1" "$TMP/hooked" <<'PY'
import json, sys
rule, path = sys.argv[1], sys.argv[2]
ids = set()
try:
    lines = open(path, encoding="utf-8").read().split("\n")
except FileNotFoundError:
    lines = []
for line in lines:
    if not line.strip():
        continue
    doc = json.loads(line)
    if doc["status"] != "firing" or doc["groupLabels"]["alertname"] != rule:
        continue
    ids.update(a["fingerprint"] for a in doc["alerts"])
print(len(ids))
PY
}
fired() { [ "$(firings "$1")" -ge 1 ]; }
# wait_fired SECS RULE
wait_fired() {
	local end=$(($(now_ms) + $1 * 1000))
	until fired "$2"; do
		[ "$(now_ms)" -ge "$end" ] && return 1
		sleep 0.1
	done
}
trap 'alerts_stop; cleanup' EXIT

start CALOPS_JOBS_DIR="$J"
launch "$TMP/lab.yaml"
wait_re "^ G9 +✘ fail"
alerts_start

on_gate 9 r
wait_for "Start soak 24h · chips 0,1 on local?"
send_text "0,1"
keys Enter
wait_re "^ G9 +▶ run"

# Mid-soak: SIGKILL calops alerts, start it again.
STREAMS=$TMP/state/calops/streams/local
for i in $(seq 1 200); do
	[ "$(cat "$STREAMS"/*.jsonl 2>/dev/null | wc -l)" -gt 2000 ] && break
	sleep 0.1
done
alerts_stop -KILL
alerts_start

wait_fired 120 leak || fail "leak did not fire: $(cat "$TMP/alerts.out")"
wait_fired 120 sla.ttft_p99 ||
	fail "sla.ttft_p99 did not fire: $(cat "$TMP/alerts.out")"
WAIT_SECS=120 wait_re "^ G9 +(✘ fail|✔ pass)"
# Nothing more comes once the soak has ended: the counts hold.
[ "$(firings sla.ttft_p99)" = 1 ] ||
	fail "sla.ttft_p99 fired $(firings sla.ttft_p99) times"
[ "$(firings leak)" = 2 ] || fail "leak fired $(firings leak) times, not 2"
n=$(grep -c '"status":"resolved"' "$TMP/hooked")
[ "$n" = 0 ] || fail "$n alerts resolved: $(cat "$TMP/alerts.out")"
alerts_stop
quit_calops 0
finish
