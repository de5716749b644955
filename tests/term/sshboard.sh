# sshboard.sh: the board of a workspace on an SSH host (issue 11 §6), with a
# loopback lab of real sshd (share/sshlab.sh) and the console in tmux.  The
# lab file names no local host: the console evaluates the workspace on
# host1 with `calops check --stream` there, and again when `calops watch`
# there says it changed.  The workspace's path holds a blank, quotes, a
# `$(…)`, a `;` and a newline: every command line that carries it (check,
# watch, the G7 job's run) is quoted for the remote shell, and nothing
# runs that the path spells.
#
#  1. The board comes from host1: G7 pending (its results are missing).
#  2. A file removed on host1 (G2's report) turns G2 red through the watch;
#     put back, green again.
#  2b. o on a finding there shows the file's lines, read on host1 through
#     the same quoting (calops cat), from the line its JSON pointer names.
#  2c. o on G9's finding, which names the soak folder, lists it from host1
#     (calops ls, issue 30 §7): Enter goes into a run, a hostile name shows
#     as text, o on a file pages it, h goes up to the root and no further.
#  3. host1 drops off the network: the status bar says the board is not
#     live (host1 disconnected: board of HH:MM:SS); back up, it is watched
#     and evaluated again.
#  4. r on G7 runs the golden suite and the faults on host1, in that
#     workspace, and G7 turns green.
#
# Skipped (77) without tmux, sshd, or a folder sshd's StrictModes takes.
. "$(dirname "$0")/lib.sh"
skip() { echo "$TEST: skipped: $*"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
. "$SRC/tests/remote/lib.sh"
sshlab_prereqs

lab_up 1 cleanup || fail "the lab did not start: $LAB_LOG"

# The workspace, renamed to a path a shell would misread in every way.
odd=$'ws \'q\' "dq" $(touch pwned); x\nline2'
WS=$L/host1/$odd
mv "$L/host1/ws" "$WS" || fail "cannot rename the workspace"
rm -rf "$WS/06-runtime/faults" "$WS/06-runtime/correctness/golden.json"
# A soak run folder with a note and a hostile name in it: G9's finding
# names the soak folder, which o lists (2c).
mkdir -p "$WS/07-serving/soak/run-a" &&
    echo "the first try" >"$WS/07-serving/soak/run-a/notes.txt" &&
    : >"$WS/07-serving/soak/run-a/"$'\e]2;pwned\a' ||
    fail "cannot make a soak run folder"
lab_on_host1 "$TMP/lab.yaml" "$WS"

# The remote shell starts in the user's home: that is where a `touch
# pwned` that got through would land.
[ -e "$HOME/pwned" ] && fail "$HOME/pwned exists before the test"

start
launch "$TMP/lab.yaml"

# ---- 1. the board, from host1 ----
WAIT_SECS=60 wait_re "^ G7 +· pending"
wait_re "^ G2 +✔ pass"
wait_for "watched on host1"

# ---- 2. a change on host1, seen by its watch ----
report=$(cd "$WS" && ls 02-onnx/*.json 2>/dev/null | head -1)
[ -n "$report" ] || fail "no G2 report in the example workspace"
mv "$WS/$report" "$TMP/report.json"
WAIT_SECS=30 wait_re "^ G2 +(✘ fail|· pending)"
mv "$TMP/report.json" "$WS/$report"
WAIT_SECS=30 wait_re "^ G2 +✔ pass"

# ---- 2b. o on a finding: the file's lines, fetched from host1 ----
keys 3 /
send_text "W-MASK"
keys Enter
wait_re "G6 +warn +G6.errors"
keys o
WAIT_SECS=30 wait_for "read-only: 05-calbin/validation.json on host1"
wait_for "the end of the file"
# The finding's #/findings/1, found there: the cursor on its first line
# (the second object of the list, counted here by its indentation).
second=$(awk '/"findings": \[/ { f = 1 } f && /^    \{/ { if (++c == 2) {
    print NR; exit } }' "$WS/05-calbin/validation.json")
[ -n "$second" ] || fail "no second finding in validation.json"
wait_for "line $second · lines 1-"
WAIT_SECS=30 wait_re '^ +[0-9]+ +"code": "W-MASK-002"'
keys Left 1
wait_re "^ G7 +· pending"

# ---- 2c. o on a finding that names a folder: listed from host1 ----
keys 3 /
send_text "passing soak"
keys Enter
wait_re "G9.duration +07-serving/soak "
keys o
WAIT_SECS=30 wait_for "folder: 07-serving/soak/ on host1"
wait_re "run-a/ +folder "
keys Enter
WAIT_SECS=30 wait_for "folder: 07-serving/soak/run-a/ on host1"
wait_re "\^\[\]2;pwned\^G +file +0 B"
expect_re "notes\.txt +file +14 B"
# A file of it: the pager, its lines fetched from host1.
keys j o
WAIT_SECS=30 wait_for "read-only: 07-serving/soak/run-a/notes.txt on host1"
wait_for "the first try"
keys Left
wait_for "folder: 07-serving/soak/run-a/ on host1"
keys h
WAIT_SECS=30 wait_for "folder: 07-serving/soak/ on host1"
keys h
WAIT_SECS=30 wait_for "folder: 07-serving/ on host1"
keys h
WAIT_SECS=30 wait_for "folder: ./ on host1"
wait_re "05-calbin/ +folder"
keys h
wait_for "the workspace's root"
keys q 1
wait_re "^ G7 +· pending"

# ---- 3. host1 away and back ----
sh "$SRC/share/sshlab.sh" down "$L" host1 >/dev/null 2>&1 ||
	fail "sshlab.sh down host1 failed"
WAIT_SECS=30 wait_re "host1 (disconnected|reconnecting): board of [0-9]{2}:"
sh "$SRC/share/sshlab.sh" up "$L" host1 >/dev/null 2>&1 ||
	fail "sshlab.sh up host1 failed"
WAIT_SECS=90 wait_for "watched on host1"
wait_gone "board of"

# ---- 4. G7's job on host1, in that workspace ----
keys g j j j j j j j r
# Its chip picked (issue 30): the first idle one, or chip 0.
wait_for "Run G7's job on which chip of host1?"
keys Enter
wait_for "Start G7 golden + 8 faults · chip 0 on host1?"
send_text "0"
keys Enter
WAIT_SECS=120 wait_re "^ G7 +✔ pass"
[ -s "$WS/06-runtime/correctness/golden.json" ] ||
	fail "the golden results are not in the odd workspace"
find "$L" "$TMP" "$HOME" -maxdepth 3 -name pwned 2>/dev/null | grep -q . &&
	fail "a command in the workspace's path ran: $(find "$L" "$TMP" \
	"$HOME" -maxdepth 3 -name pwned 2>/dev/null)"
quit_calops
finish
