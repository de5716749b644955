#!/bin/bash
# console_test.sh: what an attack run found in the console's lab side
# (issue 27), end to end with the real binary, the console headless
# (--headless, a script of keys, screens dumped as text):
#
#  5. A soak whose tool prints valid events past what the console shows
#     (67 metric values, a 65-byte value name, a 129-byte label, 17
#     labels): the console's mirror is the host's events.jsonl byte for
#     byte, no bad line, and the Soak screen says what it shows in part.
#  6. A job whose tool prints a metric for chip 99999, which the mirror
#     refuses: its log shows a "refused" line saying why, never the event.
#  7. A job called "--follow": its log opens on its events, and K kills it.
#  9. A symbolic link planted as a job's mirror: the job is not followed,
#     and the console says the path and the fix.
#
#	console_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: console_test.sh CALOPS_BINARY}
CALOPS=$(cd "$(dirname "$CALOPS")" && pwd)/$(basename "$CALOPS")
T=$(mktemp -d /tmp/calops-console-test.XXXXXX)
FAILED=0
say() { printf 'console_test: %s\n' "$*"; }
fail() { say "FAIL: $*"; FAILED=1; }
cleanup() {
	local d
	for d in "$T"/state/calops/jobs/*/; do
		[ -d "$d" ] && "$CALOPS" kill --grace 0 -- "$(basename "$d")" \
		    >/dev/null 2>&1
	done
	[ -n "${CALOPS_TEST_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

mkdir -p "$T/home" "$T/config" "$T/state" "$T/out"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
cp -a "$SRC/share/examples/labdemo" "$T/ws" || exit 1

# The soak's tool: each metric line past a cap of what the console keeps.
cat >"$T/tool.sh" <<'SH'
v='"m0":0'; i=1
while [ $i -lt 67 ]; do v="$v,\"m$i\":$i"; i=$((i+1)); done
printf '{"type":"metric","chip":0,"values":{%s}}\n' "$v"
printf '{"type":"metric","chip":0,"values":{"%065d":1,"ttft_ms":2}}\n' 0
printf '{"type":"metric","chip":0,"values":{"ttft_ms":3},"labels":{"k":"%0129d"}}\n' 0
v='"l0":"x"'; i=1
while [ $i -lt 17 ]; do v="$v,\"l$i\":\"x\""; i=$((i+1)); done
printf '{"type":"metric","chip":0,"values":{"ttft_ms":4},"labels":{%s}}\n' "$v"
echo "soak done"
SH
cat >"$T/lab.yaml" <<LAB
hosts:
  - name: local
    transport: local
    chips: [0]
workspaces:
  - {host: local, path: ws}
runner: [sh, $T/tool.sh]
LAB

calops() {
	(cd "$T" && env -i PATH="$PATH" HOME="$T/home" LANG=C.UTF-8 \
	    XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config" \
	    CALOPS_WATCH_POLL=1 ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
	    ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
	    "$CALOPS" "$@")
}

# headless NAME SCRIPT [SIZE]: the console on the lab with SCRIPT; its
# screens are dumped into out/ by the script's own dump steps.
headless() {
	printf '%s\n' "$2" >"$T/$1.script"
	calops --headless "${3:-120x40}" --script "$1.script" lab.yaml \
	    >"$T/$1.log" 2>&1 || fail "$1: the console ended with status $?:
$(tail -n 45 "$T/$1.log")"
}

# 5: the soak, from the Soak screen.
headless soak "timeout 60
wait board
key 5 s
type 1h
key Enter
wait text type the chips
type 0
key Enter
wait text ended
dump out/soak.txt
key Q"
id=$(sed -n 's/.*"id":"\([^"]*\)".*"kind":"soak".*/\1/p' \
    "$T"/state/calops/streams/local/*.json 2>/dev/null | head -n 1)
if [ -z "$id" ]; then
	fail "5: no soak was started"
else
	cmp "$T/state/calops/streams/local/$id.jsonl" \
	    "$T/state/calops/jobs/$id/events.jsonl" ||
	    fail "5: the console's mirror of $id is not its events.jsonl"
	n=$(grep -c '"type":"metric"' "$T/state/calops/jobs/$id/events.jsonl")
	[ "$n" = 4 ] || fail "5: the host has $n metric events, not 4"
	grep -q "4 events shown in part" "$T/out/soak.txt" ||
	    fail "5: the Soak screen does not say 4 events are shown in part"
	grep -q "bad line" "$T/out/soak.txt" &&
	    fail "5: the Soak screen counts bad lines"
fi

# 6 and 7: a job for chip 99999, one called --follow.
calops run --id liar -- sh -c 'echo before;
    printf "{\"type\":\"metric\",\"chip\":99999,\"values\":{\"x\":1}}\n";
    echo after' >/dev/null || fail "cannot start the job liar"
calops run --id --follow -- sh -c 'echo started; exec sleep 120' \
    >/dev/null || fail "cannot start the job --follow"
headless jobs "timeout 60
wait board
key 4
wait text liar
click on liar
key Enter
wait text job liar on local
wait text after
dump out/liar.txt
key q
click on --follow
key Enter
wait text job --follow on local
wait text started
dump out/follow.txt
key q K
wait text type its id
type --follow
key Enter
wait text killed job --follow on local
dump out/killed.txt
key Q"
grep -q "chip 99999" "$T/out/liar.txt" &&
    fail "6: the log shows the event for chip 99999 the mirror refuses"
grep -Eq "refused +warn +not an event, not kept: 'chip' is not an integer" \
    "$T/out/liar.txt" || fail "6: the log does not say it refused a line"
grep -q "1 refused" "$T/out/liar.txt" ||
    fail "6: the log's status does not count the line refused"
grep -Eq "log +info +started" "$T/out/follow.txt" ||
    fail "7: the log of --follow does not show its events"
grep -q "usage" "$T/out/follow.txt" &&
    fail "7: tail said its usage for the job --follow"
grep -q '"state":"killed"' "$T/state/calops/jobs/--follow/events.jsonl" ||
    fail "7: the job --follow was not killed"

# 9: a link planted as the mirror of a job the console started.
calops run --id planted -- sh -c 'echo one' >/dev/null ||
    fail "cannot start the job planted"
S=$T/state/calops/streams/local
mkdir -p "$S"
printf '{"v":1,"id":"planted","host":"local","kind":"soak","gate":9,"chip":-1,"chips":[0],"target_s":3600,"command":"sh","label":"planted","started":%s}' \
    "$(($(date +%s) + 60))" >"$S/planted.json"
chmod 600 "$S/planted.json"
printf 'precious\n' >"$T/victim"
ln -s "$T/victim" "$S/planted.jsonl"
headless planted "timeout 60
wait board
wait text not followed without a mirror
dump out/planted.txt
key 5
wait text soaks on the lab
key Enter
wait text not followed without a mirror
dump out/planted-soak.txt
key Q" 400x40
# The status line says it (as far as its 255 bytes go), the Soak screen
# whole: the path and the fix (the planted job chosen from the lab's list
# of soaks, beside the soak of 5).
grep -Fq "planted on local not followed without a mirror: refusing '$S/planted.jsonl': it is a symbolic link (to '$T/victim')" \
    "$T/out/planted.txt" || fail "9: the status line does not say why"
grep -Fq "not followed without a mirror: refusing '$S/planted.jsonl': it is a symbolic link (to '$T/victim'), and calops follows none in its state; remove it: rm '$S/planted.jsonl'" \
    "$T/out/planted-soak.txt" ||
    fail "9: the Soak screen does not say the mirror and the fix"
grep -q "broken  planted" "$T/out/planted-soak.txt" ||
    fail "9: the Soak screen does not show the job broken"
[ "$(cat "$T/victim")" = precious ] || fail "9: the link's target was written"
grep -q '"job":"planted"' "$T/state/calops/actions.jsonl" 2>/dev/null &&
    fail "9: the job was followed to its end without a mirror"

[ $FAILED = 0 ] && say "ok"
exit $FAILED
