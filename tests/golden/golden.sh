#!/bin/bash
# golden.sh CALOPS COLS ROWS: every screen of the console, drawn headless
# (calops --headless, views/app/headless.h) on a copy of the midproject
# example, compared whole with its golden copy in tests/golden/COLSxROWS/.
# Clicks under the banner, on every screen with rows, and paging are
# checked the same way: the screen they lead to is a golden copy too, and
# a dump marks the rows that show the selection ('>').
#
# Run with CALOPS_GOLDEN_UPDATE=1 to write the golden copies instead (then
# read the diff before committing it).
#
# What varies from run to run is made fixed before comparing, never skipped:
# the temp folder's random part (whole, cut by a column, or cut from the
# front in the title's workspace), a job's id,
# clock times, age and date, process ids, and the version and machine a
# job says it started on.  The temp
# folder is made under /tmp with a fixed-length name, so that the paths on
# screen (the runner beside calops, in the fault command) keep their width
# from any clone path.
set -u

if [ $# -ne 3 ] || [ ! -x "$1" ]; then
	echo "usage: $0 CALOPS COLS ROWS" >&2
	exit 2
fi
BIN=$(cd "$(dirname "$1")" && pwd)
SIZE=${2}x$3
SRC=$(cd "$(dirname "$0")/../.." && pwd)
GOLD=$SRC/tests/golden/$SIZE
TMP=$(mktemp -d /tmp/calops-golden.XXXXXXXX)
MASK=/tmp/calops-golden.XXXXXXXX
trap 'rm -rf "$TMP"' EXIT
failed=0

fail() {
	echo "FAIL: golden ($SIZE): $*"
	failed=1
}

# The binaries beside each other, as installed: calops finds the runner
# simulator next to itself.
mkdir -p "$TMP/bin" "$TMP/out" "$TMP/home" "$TMP/state" "$TMP/config"
cp "$BIN/calops" "$BIN/calrt-sim" "$TMP/bin/" || exit 1
cp -a "$SRC/share/examples/midproject" "$TMP/ws" || exit 1
cat >"$TMP/lab.yaml" <<'LAB'
hosts:
  - name: local
    transport: local
    chips: [0, 1, 2, 3]
workspaces:
  - {host: local, path: ws}
runner: calrt-sim
LAB

calops() {
	(cd "$TMP" && env -i PATH="$PATH" HOME="$TMP/home" LANG=C.UTF-8 \
	    CALOPS_ACTOR=golden@lab \
	    XDG_STATE_HOME="$TMP/state" XDG_CONFIG_HOME="$TMP/config" \
	    CALOPS_WATCH_POLL=1 ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
	    ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
	    bin/calops "$@")
}

# headless SCRIPT: run the console on the lab with SCRIPT, dumps to out/.
headless() {
	printf '%s\n' "$1" >"$TMP/script"
	calops --headless "$SIZE" --script script lab.yaml ||
	    fail "calops --headless ended with status $?"
}

# The screens as a fresh lab shows them; then clicks and paging.
headless "timeout 60
wait board
dump out/board.txt
key 2
dump out/tickets.txt
key 3
dump out/findings.txt
key 1 Down Down Down Enter
dump out/gate.txt
key q 4
wait text no jobs on any host
dump out/jobs.txt
key 5
dump out/soak.txt
key 6
wait text chip 3
wait text .json: none
dump out/faults.txt
key ?
dump out/help.txt
key PgDn PgDn
dump out/help-pgdn.txt
key q 1
dclick on G8
dump out/click-board.txt
key q 6
wait text .json: none
click on bad-csr under chip 3
wait text bad-csr.json: none
dump out/click-faults.txt
key 2
click on M05
dump out/click-tickets.txt
key 3
click on G5.script
dump out/click-findings.txt
key 1 Down Down Down Enter
click on G3.unsupported
dump out/click-gate.txt
key q Home Enter
dump out/gate-green.txt
key q >
dump out/board-by-status.txt
key > >
dump out/board-by-due.txt
key < < <
key 2 < <
dump out/tickets-by-estimate.txt
key > > > 1 Enter
key q ?
click on quit calops
dump out/click-help.txt
key q 2 Home Down Down Down Down Down Down Enter
dump out/ticket.txt
key q End Down Up Up Enter
dump out/ticket-not-judged.txt
key Enter
dump out/ticket-to-gate.txt
key q q
dclick on M06
dump out/click-ticket.txt
key Q"

# Two jobs for the Jobs screen, each started by someone else (BY), a click
# on the second row, and its log.
calops run --id golden-job -- sh -c 'echo hello from the golden job;
    echo a warning >&2; exit 3' >/dev/null || fail "calops run failed"
calops run --id golden-two --actor ops@lab2 -- true >/dev/null ||
    fail "calops run failed"
headless "timeout 60
wait board
key 4
wait text ✘ failed
wait text ✔ done
dump out/jobs-two.txt
click on golden-job
dump out/click-jobs.txt
key Enter
wait text exit 3
wait text lines · ended
dump out/joblog.txt
key q d
dump out/describe.txt
key Q"

# The one rule for a job that can disturb a chip: the confirmation screen
# of G9's soak (with the soak run the workspace has), then G7's while the
# soak runs (it names the soak it would disturb, and asks for its job id or
# the word disturb), the chip alone typed, which starts nothing; on the
# demo workspace, where G7 and G9 can run, the runner at real speed so the
# soak is still running; it is killed after.
cp -a "$SRC/share/examples/labdemo" "$TMP/demo" || exit 1
# A soak run already there: the confirmation says it stays untouched.
mkdir -p "$TMP/demo/07-serving/soak" &&
    cp -a "$SRC/share/examples/complete/07-serving/soak/2026-09-15-1h" \
    "$TMP/demo/07-serving/soak/" || exit 1
sed -e 's|path: ws|path: demo|' -e 's|^runner: .*|runner: calrt-sim --time-scale 1|' \
    "$TMP/lab.yaml" >"$TMP/demo.yaml"
printf '%s\n' "timeout 60
wait board
key End Up r
wait text type the chips
dump out/confirm-soak.txt
type 0-3
key Enter
wait text ▶ run
key Up Up r
wait text Run G7's job on which chip of local?
dump out/pick-g7-chip.txt
key Enter
wait text this would disturb
type 0
dump out/confirm-g7.txt
key Tab
dump out/confirm-g7-command.txt
key Enter
wait text not started
dump out/confirm-cancelled.txt
key Q" >"$TMP/script"
calops --headless "$SIZE" --script script demo.yaml ||
    fail "calops --headless ended with status $?"
# While that soak runs, a console on another workspace of the same host and
# state folder: the soak is not its G9's, nor its soak (it is listed among
# the host's jobs).
headless "timeout 60
wait board
dump out/other-ws-board.txt
key 5
dump out/other-ws-soak.txt
key 4
wait text ▶ running
wait gone catching up
dump out/other-ws-jobs.txt
key Q"
for d in "$TMP"/state/calops/jobs/*/; do
	calops kill "$(basename "$d")" --grace 1 >/dev/null 2>&1
done
grep -q '"what":"soak 24h · chips 0-3"' "$TMP/state/calops/actions.jsonl" ||
    fail "the action log does not say 'soak 24h · chips 0-3'"
[ "$(grep -c '"what":"G7' "$TMP/state/calops/actions.jsonl")" = 0 ] ||
    fail "the cancelled G7 job is in the action log"

# Soaks that have ended, from the simulator at full speed with a fixed
# seed and start, each the newest when its screens are dumped.
# ended_soak NAME LAB [OPTION] [STEPS] [PICKSTEPS]: a 1 h soak started from
# the Soak screen on the lab LAB (from demo.yaml, runner options added) on
# every chip (the chip picker's first row; PICKSTEPS before it is taken),
# dumped once it ended and the board took it in, then STEPS.
ended_soak() {
	sed -e "s|^runner: .*|runner: calrt-sim --time-scale 0 --seed 7 --start 2026-09-01T00:00:00Z $2|" \
	    "$TMP/demo.yaml" >"$TMP/$1.yaml"
	printf '%s\n' "timeout 60
wait board
key 5 s
wait text Run a soak on which chips of local?
${5:-}
key Enter
wait text soak for how long?
type 1h
key Enter
wait text type the chips
type 0-3
key Enter
wait text ended
wait text headlines: whole run
wait board
dump out/soak-$1.txt
${4:-}
key Q" >"$TMP/script"
	calops ${3:-} --headless "$SIZE" --script script "$1.yaml" ||
	    fail "calops --headless ended with status $?"
}
# Whole-run headlines, the marks as evidence, no "live"; the time cursor's
# rule and its values; the Soak screen's help.
ended_soak ended "" "" "key Left Left
dump out/soak-cursor.txt
key ?
dump out/help-soak.txt" "dump out/pick-chips.txt"
# TTFT around its SLA, drawn in ASCII, where crossings an alert covered
# are '#' and brief dips '!', and its alert journal (each worst value and
# its line in words, apart to the digit); then TTFT far over it: the 1 h
# mark is no evidence; q from it, the list of the lab's soaks (with the
# three before it).
ended_soak dips "--ttft-ms 650" --ascii "key A
dump out/soak-alerts.txt"
ended_soak failed "--ttft-ms 2500" --ascii "key q
wait text soaks on the lab
dump out/soak-list.txt"

# The Alerts screen (`:alerts`) on a journal of alerts that have ended (an
# ongoing one's duration runs with the clock), newest first: a hook that
# gave up, a host name with an escape in it shown as text; the selected one
# whole (Enter).  The lab has no alerts: this console only reads.
mkdir -p -m 0700 "$TMP/state/calops/alerts"
cat >"$TMP/state/calops/alerts/journal.jsonl" <<'JOURNAL'
{"id":"5f0c2a9e4b7d1c33","state":"firing","rule":"sla.ttft_p99","kind":"sla.ttft_p99","severity":"critical","host":"lab3","job":"17","start":1765029665.0,"value":412.0,"threshold":250.0,"min":300.0,"avg":350.0,"max":412.0,"summary":"sla.ttft_p99 firing: TTFT P99 412.0 ms over 1 min (threshold 250) on lab3, job 17","t":1765029725.0}
{"id":"5f0c2a9e4b7d1c33","state":"firing","hook":"sent","attempt":1,"t":1765029726.0}
{"id":"0a1b2c3d4e5f6071","state":"firing","rule":"lab-gone","kind":"host.down","severity":"warning","host":"lab\u001b]0;x","start":1765030000.0,"value":130.0,"min":120.0,"avg":125.0,"max":130.0,"summary":"lab-gone firing: disconnected","t":1765030120.0}
{"id":"0a1b2c3d4e5f6071","state":"firing","hook":"gave-up","attempt":10,"error":"exit 7","t":1765030400.0}
{"id":"5f0c2a9e4b7d1c33","state":"resolved","rule":"sla.ttft_p99","kind":"sla.ttft_p99","severity":"critical","host":"lab3","job":"17","start":1765029665.0,"end":1765033265.0,"value":200.0,"threshold":250.0,"min":200.0,"avg":340.0,"max":498.0,"summary":"sla.ttft_p99 resolved: TTFT P99 200.0 ms","t":1765033265.0}
{"id":"0a1b2c3d4e5f6071","state":"resolved","rule":"lab-gone","kind":"host.down","severity":"warning","host":"lab\u001b]0;x","start":1765030000.0,"end":1765030500.0,"value":0.0,"min":120.0,"avg":300.0,"max":500.0,"summary":"lab-gone resolved","t":1765030500.0}
JOURNAL
chmod 0600 "$TMP/state/calops/alerts/journal.jsonl"
headless "timeout 60
wait board
key :
type alerts
key Enter
wait text alert 1 of 2
dump out/alerts.txt
key Down Enter
dump out/alerts-whole.txt
key Q"
rm -rf "$TMP/state/calops/alerts"

# A script it cannot read is refused before the screen is made, by file
# and line; a wait that never comes true ends at its guard, status 3, with
# the step and the screen.
printf 'wait board\nkey NoSuchKey\n' >"$TMP/bad"
out=$(calops --headless "$SIZE" --script bad lab.yaml 2>&1)
rc=$?
[ $rc = 2 ] && [[ $out == *"bad:2: no key is called 'NoSuchKey'"* ]] ||
    fail "a bad script: status $rc, said: $out"
printf 'timeout 1\nwait board\nwait text no such text\n' >"$TMP/stuck"
out=$(calops --headless "$SIZE" --script stuck lab.yaml 2>&1)
rc=$?
[ $rc = 3 ] && [[ $out == *"stuck:3: 'wait text no such text' still waits"* ]] &&
    [[ $out == *"GATE STATUS"* ]] || fail "a stuck wait: status $rc, said: $out"

# The Release screen on the complete example: its generations, what
# differs from current to the one selected, the audit log; then the
# approval of a rollback, held at the typed number, which a wrong one
# cancels.
cp -a "$SRC/share/examples/complete" "$TMP/rel" || exit 1
headless_ws() {
	printf '%s\n' "$2" >"$TMP/script"
	calops --headless "$SIZE" --script script "$1" ||
	    fail "calops --headless ended with status $?"
}
headless_ws rel "timeout 60
wait board
key 9
wait text chain intact
dump out/release.txt
key Down
dump out/release-previous.txt
key b
wait text type 1 to roll back
dump out/release-approve.txt
type 9
key Enter
wait text cancelled
dump out/release-cancelled.txt
key Q"
# A release folder with nothing in it yet: no generation is current or a
# candidate, and the screen says so in words (never -1).
cp -a "$SRC/share/examples/complete" "$TMP/norel" || exit 1
rm -rf "$TMP/norel/08-release/current" "$TMP/norel/08-release/generations" \
    "$TMP/norel/08-release/audit.jsonl"
mkdir "$TMP/norel/08-release/generations" || exit 1
headless_ws norel "timeout 60
wait board
key 9
wait text chain intact
dump out/release-none.txt
key Q"

for f in "$TMP"/out/*.txt; do
	sed -i -E -e "s|$TMP|$MASK|g" \
	    -e 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/hh:mm:ss/g' \
	    -e 's/[0-9]{8}-[0-9]{6}-[0-9a-f]{6}/YYYYmmdd-HHMMSS-jobid0/g' \
	    -e 's/calops-golden\.[A-Za-z0-9]+/calops-golden.XXXXXXXX/g' \
	    -e '/^ +date +/s/[0-9]{4}-[0-9]{2}-[0-9]{2}/YYYY-mm-dd/' \
	    -e 's/(job started by calops) .* on .*$/\1 VERSION on HOST/' \
	    -e '/(golden-(job|two)|jobid0) /s/ [ 0-9]{3}[0-9][smhd] / ageage /' \
	    -e '/^. (Started|Ended) /s/[0-9]{4}-[0-9]{2}-[0-9]{2}/YYYY-mm-dd/' \
	    -e 's/ended [0-9]{2}:[0-9]{2}/ended hh:mm/' \
	    -e '/^. (Tool pid|Supervisor) /s/[0-9]+/PID/' \
	    -e '/^. *"(pid|supervisor_pid)": /s/[0-9]+/PID/' \
	    -e 's/("(pid|supervisor)_start": )"[^"]*"/\1"BOOT:TICKS"/' \
	    -e 's/("actor": )"[^"]*"/\1"USER@HOST"/' \
	    -e '/^. *"(started|ended|age)": /s/: [0-9][0-9.e+-]*/: TIME/' \
	    -e '/^. (Ran for|as the host listed it) /s/[0-9]+[smhd]/AGE/' \
	    -e '1s/^(. calops  )([^ :]+:)?(…|~)[^ /]*\//\1\2\3TMP\//' \
	    "$f"
done
# The list of soaks: how far the soak killed early had gone.
sed -i -E 's/ +[0-9][0-9hms]*\/24h( |$)/ ELAPSED\/24h\1/' \
    "$TMP/out/soak-list.txt"
if [ "${CALOPS_GOLDEN_UPDATE:-0}" = 1 ]; then
	mkdir -p "$GOLD"
	cp "$TMP"/out/*.txt "$GOLD/"
	echo "golden ($SIZE): wrote $(ls "$TMP"/out | wc -l) screens to $GOLD"
	exit $failed
fi
for f in "$TMP"/out/*.txt; do
	g=$GOLD/$(basename "$f")
	if [ ! -f "$g" ]; then
		fail "no golden copy $g"
	elif ! diff -u "$g" "$f"; then
		fail "$(basename "$f" .txt) differs from its golden copy"
	fi
done
[ "$(ls "$GOLD" | wc -l)" = "$(ls "$TMP"/out | wc -l)" ] ||
    fail "$GOLD holds a screen this test no longer draws"
[ $failed = 0 ] && echo "ok: golden ($SIZE)"
exit $failed
