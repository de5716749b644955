# lib.sh: black-box tests of the console in a detached tmux pane, in the
# spirit of tmux's regress/.  A test is `bash NAME.sh CALOPS [COLS ROWS]`;
# it sources this file, which gives it:
#
#   start [VAR=value...]  a detached tmux session of COLS x ROWS on a private
#                         socket running an interactive bash with a clean
#                         environment: TERM=xterm-256color, LANG=C.UTF-8 and
#                         XDG_{STATE,CONFIG,CACHE}_HOME in a temp dir, plus
#                         the VAR=value given
#   run LINE              have the pane's shell run a command line: LINE goes
#                         to a file in the temp dir and the shell is typed
#                         only `. $T/typed.N` (see run below)
#   launch [ARG...]       run calops ARG... in the pane's shell
#   second [ARG...]       run calops ARG... in a second session, same size
#                         and environment; ON=second points the helpers at
#                         it, ON=test back at the first
#   wait_exit STATUS      wait for the last launch to end with STATUS
#   quit_calops [STATUS]  Q, y if it asks (jobs stream), then wait_exit
#   sh_cmd LINE [STATUS]  run a shell command line, wait for it to end (with
#                         STATUS, default 0)
#   keys KEY...           tmux send-keys (Enter Escape Tab C-z, or a string)
#   send_text TEXT        send TEXT literally, character by character
#   wait_for TEXT [SECS]  poll the pane every 50 ms until it shows TEXT
#   wait_re ERE [SECS]    … until a line matches ERE
#   wait_gone TEXT [SECS] … until it no longer shows TEXT
#   expect TEXT, reject TEXT, expect_re ERE, reject_re ERE: on the screen
#                         (or not), once a frame being drawn is finished
#   screen, screen_e      the pane as text, or with its escape sequences
#   screen_all            the pane and its history, wrapped lines joined
#   calops_pid            the pid of the calops this pane's shell runs (other
#                         tests may run calops at the same time)
#   jobs_dir DIR          make DIR the test's jobs folder; jobs still running
#                         there are killed on exit
#   copy_ws DIR           cp -a an example workspace into the temp dir; $WS
#                         is the copy
#   demo_lab OPTION...    $TMP/lab.yaml: host local (chips 0-3) with a copy
#                         of the labdemo workspace, the runner calrt-sim
#                         OPTION...; the jobs in $TMP/jobdir (jobs_dir)
#   same_stream EV MIRROR the mirror is EV (a job's events.jsonl) byte for
#                         byte, seqs 1..N: nothing lost, nothing twice
#   fail MESSAGE          say what failed and what the pane showed; exit 1
#   finish                fail on any sanitizer report, else print ok; exit 0
#
# The tmux server, the temp dir and everything in it go away on exit.
# Sanitizer reports of calops and its children go to files in the temp dir
# (log_path), so an ASan build fails a test that would otherwise look fine.

set -u

if [ $# -lt 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 CALOPS [COLS ROWS]" >&2
	exit 2
fi
CALOPS=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
COLS=${2:-120}
ROWS=${3:-40}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MIDPROJECT=$SRC/share/examples/midproject
COMPLETE=$SRC/share/examples/complete
TEST=$(basename "$0" .sh)
WAIT_SECS=${CALOPS_TERM_WAIT:-10}
# How long a frame may take to reach the pane whole (expect, reject).
SETTLE_SECS=2

if ! command -v tmux >/dev/null 2>&1; then
	echo "$TEST: skipped: tmux is not installed (share/bootstrap.sh test)"
	exit 77
fi

export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TMUX TMUX_PANE
TMP=$(mktemp -d "${TMPDIR:-/tmp}/calops-term.XXXXXX")
SOCKET=calops-test-$$
LAUNCHES=0

tm() {
	TMUX_TMPDIR=$TMP tmux -u -L "$SOCKET" -f /dev/null "$@"
}

# in_messages TEXT: TEXT is in :messages, the status bar's history, whole
# (the status bar cuts a long message to its width); back to the screen.
in_messages() {
	keys :
	send_text messages
	keys Enter
	wait_re "^ TIME +MESSAGE"
	wait_for "$1"
	keys q
	wait_until !E "^ TIME +MESSAGE" "$WAIT_SECS" ||
	    fail "waited $WAIT_SECS s for :messages to close"
}

# stop_server: kill the tmux server and wait until it is gone: kill-server
# returns before the server has exited, and a new-session that reaches the
# dying server's socket fails with "server exited unexpectedly".  Gone is
# when a client finds no one listening ("no server running"); the socket
# file itself stays.
stop_server() {
	local end

	tm kill-server >/dev/null 2>&1
	end=$(($(now_ms) + WAIT_SECS * 1000))
	until tm has-session 2>&1 | grep -q "no server running"; do
		[ "$(now_ms)" -ge "$end" ] &&
		    fail "the tmux server did not exit in $WAIT_SECS s"
		sleep 0.05
	done
}

cleanup() {
	tm kill-server >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

ON=test

screen() {
	tm capture-pane -p -t "$ON"
}

screen_e() {
	tm capture-pane -p -e -t "$ON"
}

screen_all() {
	tm capture-pane -p -J -S - -t test
}

# The shell's screen and history, whether or not a console is on the
# alternate screen (tmux keeps the other one aside: -a).
screen_any() {
	screen_all
	tm capture-pane -p -a -q -t test
}

fail() {
	local f

	echo "FAIL: $TEST (${COLS}x$ROWS): $*"
	echo "---- the pane ----"
	screen 2>&1
	echo "------------------"
	for f in "$TMP"/sanitizer*; do
		[ -e "$f" ] && cat "$f"
	done
	exit 1
}

now_ms() {
	local t=${EPOCHREALTIME//[!0-9]/}

	echo $((10#$t / 1000))
}

# wait_until KIND PATTERN SECS: poll until grep KIND PATTERN holds.
wait_until() {
	local kind=$1 pat=$2 secs=$3 end

	end=$(($(now_ms) + secs * 1000))
	while :; do
		case $kind in
		F) screen | grep -qF -- "$pat" && return 0 ;;
		E) screen | grep -qE -- "$pat" && return 0 ;;
		!) screen | grep -qF -- "$pat" || return 0 ;;
		!E) screen | grep -qE -- "$pat" || return 0 ;;
		H) screen_any | grep -qF -- "$pat" && return 0 ;;
		esac
		[ "$(now_ms)" -ge "$end" ] && return 1
		sleep 0.05
	done
}

wait_for() {
	wait_until F "$1" "${2:-$WAIT_SECS}" ||
	    fail "waited ${2:-$WAIT_SECS} s for '$1'"
}

wait_re() {
	wait_until E "$1" "${2:-$WAIT_SECS}" ||
	    fail "waited ${2:-$WAIT_SECS} s for a line matching /$1/"
}

# until_true CMD...: wait (WAIT_SECS) until CMD succeeds; 1 if it never
# does.  For a condition off the screen: a file's content, a lock let go.
until_true() {
	local end=$(($(now_ms) + WAIT_SECS * 1000))

	until "$@"; do
		[ "$(now_ms)" -ge "$end" ] && return 1
		sleep 0.05
	done
}

# soak_elapsed: the soak's elapsed time as the screen shows it (3h12m/24h).
soak_elapsed() {
	screen | grep -o '[0-9hms]*/24h' | head -1
}

# soak_moves WHERE [SECS]: wait (SECS, else WAIT_SECS) until the soak's
# elapsed time on the screen changes, else fail saying WHERE it stood still.
soak_moves() {
	local first now end

	first=$(soak_elapsed)
	end=$(($(now_ms) + ${2:-$WAIT_SECS} * 1000))
	while [ "$(now_ms)" -lt "$end" ]; do
		now=$(soak_elapsed)
		[ -n "$now" ] && [ "$now" != "$first" ] && return 0
		sleep 0.1
	done
	fail "the soak does not move in $1 (${first:-no elapsed time shown})"
}

wait_gone() {
	wait_until ! "$1" "${2:-$WAIT_SECS}" ||
	    fail "waited ${2:-$WAIT_SECS} s for '$1' to go away"
}

expect() {
	wait_until F "$1" "$SETTLE_SECS" || fail "the screen does not show '$1'"
}

reject() {
	wait_until ! "$1" "$SETTLE_SECS" || fail "the screen shows '$1'"
}

expect_re() {
	wait_until E "$1" "$SETTLE_SECS" || fail "no line matches /$1/"
}

reject_re() {
	wait_until !E "$1" "$SETTLE_SECS" || fail "a line matches /$1/"
}

keys() {
	tm send-keys -t "$ON" "$@"
}

# on_gate N KEY: the board's cursor on GN (from G0 down), then KEY.
on_gate() {
	local i

	keys g
	for i in $(seq "$1"); do
		keys j
	done
	keys "$2"
}

# pick NAME [KEY]: on the host or chip picker (views/pick.c), the mark (the
# row starting " ▸ ") moved from the first choice down to NAME, then Enter
# (or KEY: Space marks a chip of several); each step waits for the mark to
# be drawn on the next row.
pick_at() {
	screen | grep -nE "^ [▸>] " | head -1 | cut -d: -f1
}
pick_wait_at() {
	local end=$(($(now_ms) + WAIT_SECS * 1000))

	until [ "$(pick_at)" = "$1" ]; do
		[ "$(now_ms)" -ge "$end" ] &&
		    fail "waited $WAIT_SECS s for the picker's mark on row $1"
		sleep 0.05
	done
}
pick() {
	local i top

	wait_re "^ [▸>] "
	top=$(screen | grep -nE "^ +state$" | head -1 | cut -d: -f1)
	[ -n "$top" ] || fail "no picker on the screen"
	keys g
	pick_wait_at $((top + 1))
	for i in $(seq 32); do
		if screen | grep -qE "^ [▸>] $1( |\$)"; then
			keys "${2:-Enter}"
			return 0
		fi
		keys j
		pick_wait_at $((top + 1 + i))
	done
	fail "no choice '$1' in the picker"
}

send_text() {
	tm send-keys -t "$ON" -l -- "$1"
}

# run LINE: the pane's shell runs LINE, sourced from a file, so that what is
# typed is always the few columns of `. $T/typed.N`.  Typed in full, a line
# holding the clone's path (the calops binary, an example workspace) wraps
# or not by that path's length, and tmux joins a wrapped line with the next
# one (capture-pane -J): what calops printed next then no longer starts its
# line.  Sourced, the line runs in the shell itself, as typed would (export,
# unset, fg and job control all behave the same).
TYPED=0
run() {
	TYPED=$((TYPED + 1))
	printf '%s\n' "$1" >"$TMP/typed.$TYPED" ||
	    fail "cannot write '$TMP/typed.$TYPED'"
	send_text ". \$T/typed.$TYPED"
	keys Enter
}

# The environment of start's pane (and of second's), with its VAR=value.
PANE_ENV=()
pane_env() {
	local san=log_path=$TMP/sanitizer

	PANE_ENV=(env -i PATH="$PATH" HOME="$TMP/home" TERM=xterm-256color T="$TMP"
	    LANG=C.UTF-8 XDG_STATE_HOME="$TMP/state"
	    XDG_CONFIG_HOME="$TMP/config" XDG_CACHE_HOME="$TMP/cache"
	    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$san"
	    UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}$san" "$@")
}

start() {
	mkdir -p "$TMP/state" "$TMP/config" "$TMP/cache" "$TMP/home"
	pane_env "$@"
	tm new-session -d -s test -x "$COLS" -y "$ROWS" "${PANE_ENV[@]}" \
	    PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i ||
	    fail "cannot start tmux"
	# So that an OSC 52 from the pane would set a paste buffer.
	tm set-option -g set-clipboard on
	wait_for '$'
}

# second [ARG...]: calops with these arguments in a second session of the
# same size and environment as start's (a second console beside the first);
# the helpers act on it while ON=second, on start's pane while ON=test.
second() {
	tm new-session -d -s second -x "$COLS" -y "$ROWS" "${PANE_ENV[@]}" \
	    "$CALOPS" "$@" || fail "cannot start a second tmux session"
}

# launch [ARG...]: calops with these arguments, from the pane's shell, on a
# clean pane: the shell leaves the alternate screen (a console killed before
# had no chance to), clears the screen and its history, prints
# "[calops#N starts]" and runs calops, then prints "[calops#N exited
# STATUS]".  launch returns once the pane was cleared, so that nothing a
# console killed before left on the screen can pass for this one's.
launch() {
	local line a mark

	LAUNCHES=$((LAUNCHES + 1))
	line=$(printf '%q' "$CALOPS")
	for a in "$@"; do
		line="$line $(printf '%q' "$a")"
	done
	mark="[calops#$LAUNCHES starts]"
	run "printf '\\033[?1049l\\033[H\\033[2J\\033[3J%s\\n' '$mark'; $line;
	    echo \"[calops#$LAUNCHES exited \$?]\""
	wait_until H "$mark" "$WAIT_SECS" ||
	    fail "waited $WAIT_SECS s for the pane to be cleared for $mark"
}

wait_exit() {
	wait_for "[calops#$LAUNCHES exited $1]"
}

# quit_calops [STATUS]: quit from any screen: Q, and y when it asks first
# (jobs stream to the console); then the last launch ends with STATUS.
quit_calops() {
	local end=$(($(now_ms) + WAIT_SECS * 1000)) asked=

	keys Q
	until screen | grep -qF "[calops#$LAUNCHES exited ${1:-0}]"; do
		if [ -z "$asked" ] && screen | grep -qE "jobs? streams? here"
		then
			send_text y
			keys Enter
			asked=1
		fi
		[ "$(now_ms)" -ge "$end" ] &&
		    fail "waited $WAIT_SECS s for Q to quit"
		sleep 0.05
	done
}

sh_cmd() {
	LAUNCHES=$((LAUNCHES + 1))
	run "$1; echo \"[sh#$LAUNCHES exited \$?]\""
	wait_for "[sh#$LAUNCHES exited ${2:-0}]"
}

calops_pid() {
	pgrep -P "$(tm display -p -t test '#{pane_pid}')" -x calops
}

# jobs_dir DIR: the durable jobs' folder of the test (CALOPS_JOBS_DIR); the
# jobs still running in it are killed on exit, before the cleanup.
jobs_dir() {
	JOBS_DIR=$1
	mkdir -p "$JOBS_DIR"
	trap kill_jobs EXIT
}

kill_jobs() {
	local d

	for d in "$JOBS_DIR"/*/; do
		[ -d "$d" ] && "$CALOPS" kill "$(basename "$d")" \
		    --jobs "$JOBS_DIR" --grace 1 >/dev/null 2>&1
	done
	cleanup
}

# yaml_str TEXT: TEXT as a YAML single-quoted scalar, for a path that may
# hold blanks, quotes or a '#' (a clone's path is not ours to choose).
yaml_str() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"
}

copy_ws() {
	mkdir -p "$TMP/ws"
	cp -a "$1" "$TMP/ws/" || fail "cannot copy '$1'"
	WS=$TMP/ws/$(basename "$1")
}

demo_lab() {
	jobs_dir "$TMP/jobdir"
	cp -a "$SRC/share/examples/labdemo" "$TMP/demo" ||
	    fail "cannot copy labdemo"
	cat >"$TMP/lab.yaml" <<LAB
hosts:
  - {name: local, transport: local, chips: [0, 1, 2, 3]}
workspaces:
  - {host: local, path: $(yaml_str "$TMP/demo")}
runner: calrt-sim $*
LAB
}

# same_stream EVENTS MIRROR: every event exactly once: the console's mirror
# is the job's own events.jsonl byte for byte, and its seqs run 1..N.
same_stream() {
	local n seqs
	cmp -s "$1" "$2" || fail "the mirror $2 differs from the job's $1"
	n=$(wc -l <"$2")
	seqs=$(grep -o '"seq":[0-9]*' "$2" | cut -d: -f2 |
	    awk -v n="$n" '$1 != NR { bad = 1 }
	    END { if (bad || NR != n) print "bad"; else print "ok" }')
	[ "$seqs" = ok ] || fail "the seqs of $2 are not 1..$n"
}

# same_job_stream JOBDIR MIRROR: once the job's end has reached the
# console's MIRROR (4 min at most), it is the job's events.jsonl byte for
# byte, seqs 1..N.
same_job_stream() {
	local i

	for i in $(seq 1 4800); do
		grep -q '"type":"end"' "$2" 2>/dev/null && break
		sleep 0.05
	done
	grep -q '"type":"end"' "$2" 2>/dev/null ||
		fail "the end of $1 never reached the console"
	same_stream "$1/events.jsonl" "$2"
}

# alerts_start: `calops alerts $TMP/lab.yaml` beside the console, on the
# same state folder and jobs folder, in the background (ALERTS_PID), what
# it says appended to $TMP/alerts.out; alerts_stop [-SIGNAL] ends it.
ALERTS_PID=
alerts_start() {
	env XDG_STATE_HOME="$TMP/state" CALOPS_JOBS_DIR="$JOBS_DIR" \
	    "$CALOPS" alerts "$TMP/lab.yaml" >>"$TMP/alerts.out" 2>&1 &
	ALERTS_PID=$!
}
alerts_stop() {
	[ -n "$ALERTS_PID" ] || return 0
	kill "$@" "$ALERTS_PID" 2>/dev/null
	wait "$ALERTS_PID" 2>/dev/null
	ALERTS_PID=
}

finish() {
	local f

	for f in "$TMP"/sanitizer*; do
		[ -e "$f" ] || continue
		echo "FAIL: $TEST (${COLS}x$ROWS): a sanitizer reported:"
		cat "$TMP"/sanitizer*
		exit 1
	done
	echo "ok: $TEST (${COLS}x$ROWS)"
	exit 0
}
