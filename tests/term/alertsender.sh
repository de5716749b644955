# alertsender.sh: one sender a state folder (issue 32, share/doc/alerts.md
# §6): a console with a lab that has alerts: and `calops alerts LAB` on the
# same state folder, a hook appending each alert to a file.  The console,
# first, sends (gate.red on the demo's G9) and says so on the Alerts screen
# (`:alerts`, and `!` from the board while an alert is ongoing); calops
# alerts says the console sends and waits, as --journal does.  The console
# quits: calops alerts takes over, and G9 made green resolves the alert,
# once.  A console opened again shows calops alerts sending, and takes over
# when it ends.  Every alert reaches the hook's file once firing and at
# most once resolved.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"
SIM=$(dirname "$CALOPS")/calrt-sim
cp -a "$SRC/share/examples/labdemo" "$TMP/demo" || fail "cannot copy labdemo"
cat >"$TMP/lab.yaml" <<EOF
hosts:
  - {name: local, transport: local, chips: [0, 1]}
workspaces:
  - {host: local, path: $(yaml_str "$TMP/demo")}
runner: [$(yaml_str "$SIM"), --time-scale, "3000"]
alerts:
  hook: [sh, -c, 'cat >> "\$0"; echo >> "\$0"', $(yaml_str "$TMP/hooked")]
  rules:
    - {kind: gate.red}
EOF

journal() {
	env XDG_STATE_HOME="$TMP/state" "$CALOPS" alerts --journal "$@"
}
# hooked STATUS: how many lines of the hook's file are of STATUS.
hooked() {
	local n
	n=$(grep -c "\"status\":\"$1\"" "$TMP/hooked" 2>/dev/null)
	echo "${n:-0}"
}
# wait_file SECS CMD...: until CMD succeeds.
wait_file() {
	local end=$(($(now_ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(now_ms)" -ge "$end" ] && return 1
		sleep 0.1
	done
}
# once: no alert reached the hook twice in one state.
once() {
	python3 - "$TMP/hooked" <<'PY'
import collections, json, sys
seen = collections.Counter()
for line in open(sys.argv[1], encoding="utf-8"):
    if line.strip():
        d = json.loads(line)
        seen[(d["alerts"][0]["fingerprint"], d["status"])] += 1
bad = [k for k, n in seen.items() if n != 1]
print(" ".join("%s %s x%d" % (k[0], k[1], seen[k]) for k in bad))
sys.exit(1 if bad else 0)
PY
}
trap 'alerts_stop; kill_jobs' EXIT

# The console first: it holds the journal and sends.
start CALOPS_JOBS_DIR="$J"
launch "$TMP/lab.yaml"
wait_re "^ G9 "
wait_file 60 grep -q '"alertname":"gate.red"' "$TMP/hooked" ||
	fail "the console sent no gate.red"
CONSOLE=$(calops_pid)
alerts_start
wait_file 30 grep -q "alerts sent by console, pid $CONSOLE" \
    "$TMP/alerts.out" ||
	fail "calops alerts does not say the console sends: $(cat "$TMP/alerts.out")"
journal | grep -q "^(alerts sent by console, pid $CONSOLE)$" ||
	fail "--journal does not say the console sends"

# The Alerts screen: who sends, the journal newest first, the detail.
keys '!'
wait_for "this console sends alerts"
expect_re "gate\.red +local"
expect "ongoing"
keys Enter
wait_re "^ +on +local, .*G9"
expect "id "
keys q
wait_for "alert 1 of"
keys q
wait_re "^ G9 "
FIRED=$(hooked firing)

# The console quits: calops alerts takes over, and resolves G9 once.
quit_calops 0
wait_file 30 grep -q "this calops alerts sends alerts" "$TMP/alerts.out" ||
	fail "calops alerts did not take over: $(cat "$TMP/alerts.out")"
journal | grep -q "^(alerts sent by calops alerts, pid $ALERTS_PID)$" ||
	fail "--journal does not say calops alerts sends"
"$SIM" stress --workspace "$TMP/demo" --duration 24h --time-scale 0 \
    --chips 0-1 >"$TMP/sim.out" 2>&1 || fail "the simulated soak failed"
wait_file 60 grep -q '"status":"resolved"' "$TMP/hooked" ||
	fail "no resolution after the take-over: $(cat "$TMP/alerts.out")"
[ "$(hooked firing)" = "$FIRED" ] ||
	fail "$(hooked firing) firings after the take-over, $FIRED before"

# A console again: calops alerts sends; it ends, the console takes over.
launch "$TMP/lab.yaml"
wait_re "^ G9 "
keys :
send_text alerts
keys Enter
wait_for "alerts sent by calops alerts, pid $ALERTS_PID"
expect "this one takes over when it ends"
alerts_stop
wait_for "this console sends alerts"
quit_calops 0
out=$(once) || fail "an alert reached the hook twice: $out"
[ "$(hooked resolved)" -ge 1 ] || fail "no resolution reached the hook"
finish
