# folder.sh: o on a finding that names a folder lists it (issue 30 §7), on
# a copy of the complete example, whose G9 finding "longest passing soak"
# names 07-serving/soak: the runs listed with type, size and mtime; Enter
# goes into one, where hostile names (an OSC sequence, a newline, bytes that
# are not UTF-8) show as text, never as what they would do; o opens a file
# in $VISUAL; h and Backspace go up, to the workspace's root and no further.
. "$(dirname "$0")/lib.sh"

copy_ws "$COMPLETE"
RUN=$WS/07-serving/soak/2026-09-03-8h
: >"$RUN/"$'\e]2;pwned\a'
: >"$RUN/"$'two\nlines'
: >"$RUN/"$'bad\xff'
# The editor notes what it was asked to open.
OPENED=$TMP/opened
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >>"%s"\n' "$OPENED" >"$TMP/ed.sh"
chmod +x "$TMP/ed.sh"

start VISUAL="$TMP/ed.sh"
launch "$WS"
wait_for "11 of 11 gates pass"
keys 3
wait_for "[3 Findings]"
keys /
send_text "longest passing"
keys Enter
wait_re "G9.duration +07-serving/soak "
keys o
wait_for "folder: 07-serving/soak/ on local"
wait_for "3 entries"
wait_re "^ NAME +TYPE +SIZE +MODIFIED"
expect_re "2026-09-03-8h/ +folder +[0-9.]+ (B|KiB) +[0-9]{4}-[0-9]{2}-[0-9]{2} "
expect_re "2026-09-21-24h/ +folder "

# ---- into a run: its files, hostile names made visible ----
keys Enter
wait_for "folder: 07-serving/soak/2026-09-03-8h/ on local"
wait_for "5 entries"
wait_re "\^\[\]2;pwned\^G +file +0 B "
expect_re "two\^Jlines +file "
expect_re 'bad\\xff +file '
# No row of its own for the half after the newline.
reject_re "^ *lines +file"
# The pane's title was not set by the name.
[ "$(tm display-message -p -t test '#{pane_title}')" != pwned ] ||
	fail "a file's name set the pane's title"

# ---- o on a file: $VISUAL, with its path in the workspace ----
# By name, bytes: the escape, bad, metrics.jsonl, summary.json, two.
keys g j j j o
end=$(($(now_ms) + WAIT_SECS * 1000))
until [ -s "$OPENED" ]; do
	[ "$(now_ms)" -ge "$end" ] && fail "the editor was not run"
	sleep 0.05
done
[ "$(cat "$OPENED")" = "$WS/07-serving/soak/2026-09-03-8h/summary.json" ] ||
	fail "the editor was asked to open: $(cat "$OPENED")"
wait_for "folder: 07-serving/soak/2026-09-03-8h/ on local"
# A name that is not UTF-8 opens nothing.
keys g j o
wait_for "its name is not UTF-8"

# ---- up: the run selected in its folder, then the root, no further ----
keys h
wait_for "folder: 07-serving/soak/ on local"
# The run it came from is selected: Enter goes back into it.
keys Enter
wait_for "folder: 07-serving/soak/2026-09-03-8h/ on local"
keys h
wait_for "folder: 07-serving/soak/ on local"
keys BSpace
wait_for "folder: 07-serving/ on local"
keys Left
wait_for "folder: ./ on local"
wait_re "07-serving/ +folder"
keys h
wait_for "the workspace's root"
expect "folder: ./ on local"
keys q
wait_for "[3 Findings]"
quit_calops
finish
