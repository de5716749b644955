# labfaults.sh: the fault matrix is the lab's (issue 29 (3)).  The console
# runs kv-full on chip 0 and shows it recovered; then a job it did not
# start (another console's, here `calops run` by hand) runs kv-full on the
# same chip with a runner that aborts yet exits 0: the host's result file
# says aborted.  The console's cell shows the file, not the ✔ it had, and
# marks that the file and its job disagree (≠), naming the job.
. "$(dirname "$0")/lib.sh"

demo_lab
start CALOPS_JOBS_DIR="$TMP/jobdir"
launch "$TMP/lab.yaml"
wait_re "^ G9 "
keys 6
wait_for "[6 Faults]"
keys j j j
wait_for "kv-full on local:0"
keys t
pick "chip 0"
wait_for "type the chip id (0)"
send_text 0
keys Enter
WAIT_SECS=60 wait_re "^ kv-full +✔ (recovered )?[0-9.]+m?s"

# The other job: the runner aborts, writes so, and exits 0.
R=$TMP/faults/kv-full.json
cat >"$TMP/abort.sh" <<SH
#!/bin/sh
printf '{"scenario": "kv-full", "chip": 0, "structured_error": true, '\\
'"error_code": "CALRT_E_KV_FULL", "aborted": true, "recovered": false, '\\
'"recover_ms": null}\n' >$(printf '%q' "$TMP/demo/06-runtime/faults/kv-full.json")
exit 0
SH
chmod +x "$TMP/abort.sh"
"$CALOPS" run --jobs "$TMP/jobdir" --id other-abort -- "$TMP/abort.sh" \
    fault --calbin "$TMP/demo/05-calbin/package" --chips 0 \
    --scenario kv-full >/dev/null || fail "cannot run the aborting job"
for i in $(seq 1 200); do
	grep -q '"aborted": true' "$TMP/demo/06-runtime/faults/kv-full.json" &&
	    break
	sleep 0.05
done
WAIT_SECS=30 wait_re "^ kv-full +≠ aborted"
reject_re "^ kv-full +✔"
expect "job other-abort"
# R reads them again at once; the cell stays what the host says.
keys R
wait_for "read the action log"
expect_re "^ kv-full +≠ aborted"
quit_calops
finish
