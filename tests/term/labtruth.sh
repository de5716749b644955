# labtruth.sh: two consoles on different state folders against one lab
# (issue 29 items 1 and 7).  The first starts G9's soak; the second, on an
# empty state folder of its own, learns of it from the host's job list and
# shows G9 running on its board, and its r on G9 is refused with the
# soak's id and who started it, before anything is asked of the host.
. "$(dirname "$0")/lib.sh"

J=$TMP/jobs
jobs_dir "$J"

start CALOPS_JOBS_DIR="$J"
launch
wait_re "^ G9 +✘ fail"
keys j j j j j j j j j r
wait_for "Start soak 24h · chips 0-3 on local?"
send_text "0-3"
keys Enter
wait_re "^ G9 +▶ run"
soak=
for d in "$J"/*/; do
	grep -q '"stress"' "$d/job.json" 2>/dev/null && soak=$(basename "$d")
done
[ -n "$soak" ] || fail "no soak job in $J"

# The second console, its own state folder, empty, on the same lab file
# (the first one's demo lab): it knows the soak.
mkdir -p "$TMP/b"
tm new-session -d -s second -x "$COLS" -y "$ROWS" "${PANE_ENV[@]}" \
    XDG_STATE_HOME="$TMP/b" "$CALOPS" "$TMP/state/calops/demo/lab.yaml" ||
	fail "cannot start the second"
ON=second
wait_re "^ G9 +(▶ run|⟳ catch)"
reject "jobs watched"
keys j j j j j j j j j r
# The status bar cuts the refusal at 80 columns: :messages has it whole.
wait_for "G9's job $soak"
reject "Start soak 24h"
in_messages "G9's job $soak, started by"
[ -s "$TMP/b/calops/streams/local/$soak.jsonl" ] ||
	fail "the second console does not mirror the soak"
finish
