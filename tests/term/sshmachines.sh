# sshmachines.sh: three consoles against one loopback SSH lab (issue 29
# (8), share/doc/lab.md §6): A and B on this machine, each with a state
# folder of its own, and C as on a third machine (its own HOME and XDG
# folders: nothing on disk in common with A or B but the lab file).  The
# hosts are the truth, whoever started the work:
# - a soak A starts on host2 is watched live in B and in C, and in B again
#   after B restarts;
# - G9 on host2, asked for in B, is refused with the soak's id and who
#   started it;
# - a fault B runs on host1 shows in A's matrix with B's result;
# - host2 dropped: B's Soak view holds its figures, says the host is not
#   up, and moves again once the host is back.
#
# Skipped (77) without tmux, sshd, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs

lab_up 2 cleanup || fail "the lab did not start: $LAB_LOG"
# A 24 h soak in about 2 min, and a keepalive every second: a host that
# drops is seen at once.
sed -e 's/--time-scale 3000/--time-scale 700/' \
    -e 's/keepalive_s: 5/keepalive_s: 1/' "$L/lab.yaml" >"$TMP/lab.yaml"
grep -q -- "--time-scale 700" "$TMP/lab.yaml" ||
	fail "the lab file has no runner to slow down"

SOAK_ROW="(running|catching up) +soak 24h · chips 0,1 @host2"

# ---- A starts a soak on host2 ----
start
launch "$TMP/lab.yaml"
WAIT_SECS=60 wait_re "^ G7 +· pending"	# host1's workspace
keys G k r
wait_for "on which host"
pick host2
WAIT_SECS=30 wait_for "Start soak 24h · chips 0,1 on host2?"
send_text "0,1"
keys Enter
wait_gone "Start soak 24h · chips 0,1 on host2?"
H2JOBS=$L/host2/state/calops/jobs
soak=
for i in $(seq 1 300); do
	for d in "$H2JOBS"/*/; do
		grep -q '"stress"' "$d/job.json" 2>/dev/null &&
		    soak=$(basename "$d")
	done
	[ -n "$soak" ] && break
	sleep 0.05
done
[ -n "$soak" ] || fail "no soak job on host2"

# ---- B, its own state folder: the soak live, G9 refused ----
mkdir -p "$TMP/b"
pane_env XDG_STATE_HOME="$TMP/b"
second "$TMP/lab.yaml"
ON=second
WAIT_SECS=60 wait_re "^ G7 "
keys 5
WAIT_SECS=60 wait_re "$SOAK_ROW"
soak_moves "B's Soak view"
keys 1
wait_re "^ G7 "
keys G k r
wait_for "on which host"
pick host2
WAIT_SECS=30 wait_for "G9's job $soak"
reject "Start soak 24h"
in_messages "G9's job $soak, started by"

# ---- C, as on another machine ----
mkdir -p "$TMP/c/home" "$TMP/c/state" "$TMP/c/config" "$TMP/c/cache"
tm new-session -d -s third -x "$COLS" -y "$ROWS" "${PANE_ENV[@]}" \
    HOME="$TMP/c/home" XDG_STATE_HOME="$TMP/c/state" \
    XDG_CONFIG_HOME="$TMP/c/config" XDG_CACHE_HOME="$TMP/c/cache" \
    "$CALOPS" "$TMP/lab.yaml" || fail "cannot start C"
ON=third
WAIT_SECS=60 wait_re "^ G7 "
keys 5
WAIT_SECS=60 wait_re "$SOAK_ROW"
soak_moves "C's Soak view"
[ -s "$TMP/c/state/calops/streams/host2/$soak.jsonl" ] ||
	fail "C keeps no mirror of the soak under its own state folder"
[ -e "$TMP/state/calops/streams/host2/$soak.jsonl" ] ||
	fail "A keeps no mirror of the soak it started"

# ---- B runs a fault on host1; A's matrix shows B's result ----
ON=second
keys 6
wait_for "[6 Faults]"
keys g j j j
wait_for "kv-full on host1:0"
keys t
pick "chip 1"
wait_for "type the chip id (1)"
send_text 1
keys Enter
WAIT_SECS=60 wait_re "^ kv-full +· never run +✔ recovered"
ON=test
keys 6
wait_for "[6 Faults]"
WAIT_SECS=30 wait_re "^ kv-full +· never run +✔ recovered"

# ---- B restarts: the soak is still live there ----
ON=second
tm kill-session -t second
second "$TMP/lab.yaml"
WAIT_SECS=60 wait_re "^ G7 "
keys 5
WAIT_SECS=60 wait_re "$SOAK_ROW"
soak_moves "B's Soak view after its restart"

# ---- host2 dropped and back ----
sh "$SRC/share/sshlab.sh" down "$L" host2 >/dev/null 2>&1 ||
	fail "sshlab.sh down host2 failed"
WAIT_SECS=30 wait_for "ETA unknown (host not up)"
reject "LOST"
sh "$SRC/share/sshlab.sh" up "$L" host2 >/dev/null 2>&1 ||
	fail "sshlab.sh up host2 failed"
WAIT_SECS=90 wait_gone "ETA unknown (host not up)"
soak_moves "B's Soak view once host2 is back"

tm kill-session -t third
tm kill-session -t second
ON=test
quit_calops
finish
