# vanish.sh: the workspace is deleted while the console shows it: the
# console says so and keeps running (keys work, R re-evaluates, q quits);
# when the folder comes back it is watched and evaluated again, and the
# failed evaluation's message goes.
. "$(dirname "$0")/lib.sh"

copy_ws "$MIDPROJECT"
start
launch "$WS"
wait_for "3 of 11 gates pass"
wait_for "inotify ("

rm -rf "$WS"
wait_for "the workspace is gone or unreadable"
wait_for "polling every 2 s (the workspace folder is gone)"
keys 3
wait_for "[3 Findings]"
expect "the workspace is gone or unreadable"
keys 1
wait_for "[1 Board]"
keys R
wait_for "calops: cannot open"
expect "the workspace is gone or unreadable"
calops_pid >/dev/null || fail "calops is not running any more"

# Back again: the watch notices (it polls for the root) and re-evaluates;
# what the failed evaluation said is not left standing.
cp -a "$MIDPROJECT" "$WS"
wait_gone "the workspace is gone or unreadable"
wait_for "inotify ("
wait_for "3 of 11 gates pass"
reject "calops: cannot open"

rm -rf "$WS"
wait_for "the workspace is gone or unreadable"
keys q
wait_exit 0
finish
