#!/bin/bash
# cat_test.sh: `calops cat WS PATH [--from LINE] [--lines N]`, what the
# console's pager reads a remote workspace's file with: lines from LINE,
# at most N, the last one ended with a newline even when the file's is
# not; a path out of the workspace ("..", absolute, a symbolic link out,
# a link inside that turns out) refused with exit 1, as the gates refuse
# it; a folder, a missing file and a bad number said as such; --line-of
# POINTER gives the line a JSON pointer names.
#
#	cat_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: cat_test.sh CALOPS_BINARY}
T=$(mktemp -d /tmp/calops-cat-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0
fail() { echo "cat_test: FAIL: $*"; failed=1; }

# expect STATUS WANT_OUT STDERR_RE -- ARGS: run calops cat ARGS (an
# empty STDERR_RE: nothing on stderr).
expect() {
	local status=$1 want=$2 err_re=$3 out rc
	shift 4
	out=$("$CALOPS" cat "$@" 2>"$T/err")
	rc=$?
	[ "$rc" -eq "$status" ] ||
		fail "cat $*: exit $rc, not $status ($(cat "$T/err"))"
	[ "$out" = "$want" ] || fail "cat $*: printed '$out', not '$want'"
	if [ -z "$err_re" ]; then
		[ -s "$T/err" ] && fail "cat $*: stderr '$(cat "$T/err")'"
	elif ! grep -Eq -- "$err_re" "$T/err"; then
		fail "cat $*: stderr '$(cat "$T/err")' does not match /$err_re/"
	fi
}

WS=$T/ws
mkdir -p "$WS/sub" "$T/outside"
seq 1 5000 >"$WS/sub/lines.txt"
printf 'one\ntwo' >"$WS/nolf.txt"
printf 'secret\n' >"$T/outside/secret.txt"
ln -s ../outside/secret.txt "$WS/out-link"
ln -s sub/lines.txt "$WS/in-link"

expect 0 "$(seq 1 1000)" '' -- "$WS" sub/lines.txt
expect 0 "$(seq 4990 4995)" '' -- "$WS" sub/lines.txt --from 4990 \
    --lines 6
expect 0 "$(seq 4999 5000)" '' -- "$WS" sub/lines.txt --from 4999
expect 0 "" '' -- "$WS" sub/lines.txt --from 6000
expect 0 "$(seq 10 12)" '' -- --from 10 --lines 3 -- "$WS" in-link
# A line of 1 MiB: its first 64 KiB and one byte, then the next line.
python3 -c 'import sys; sys.stdout.write("y" * 1048576 + "\nz\n")' \
    >"$WS/long.txt"
[ "$("$CALOPS" cat "$WS" long.txt | awk '{ print length($0) }' |
    tr '\n' ' ')" = "65537 1 " ] || fail "a long line is not cut at 64 KiB + 1"
# The last line, with no newline in the file, gets one.
[ "$("$CALOPS" cat "$WS" nolf.txt | od -c | tr -s ' ' | head -1)" = \
    "0000000 o n e \n t w o \n" ] || fail "no newline after the last line"
# A link is blamed only when there is one on the way (issue 27).
expect 1 "" "'../outside/secret.txt' leads outside the workspace$" -- "$WS" \
    ../outside/secret.txt
expect 1 "" "'out-link' leads outside the workspace \(through a symbolic link\)" \
    -- "$WS" out-link
expect 1 "" "is absolute" -- "$WS" /etc/passwd
expect 1 "" "not a regular file" -- "$WS" sub
expect 1 "" "does not exist|no such" -- "$WS" sub/none.txt
expect 1 "" "." -- "$T/no-such-ws" sub/lines.txt
expect 2 "" "--from wants a line number" -- "$WS" sub/lines.txt --from 0
expect 2 "" "--lines wants 1 to 100000" -- "$WS" sub/lines.txt \
    --lines 100001
expect 2 "" "usage" -- "$WS"
# --line-of: the line a JSON pointer's value is on.
printf '{\n  "a": [\n    1,\n    {"b/c": true}\n  ]\n}\n' >"$WS/doc.json"
expect 0 "4" '' -- "$WS" doc.json --line-of /a/1/b~1c
expect 0 "1" '' -- "$WS" doc.json --line-of ""
expect 1 "" "names nothing in 'doc.json'" -- "$WS" doc.json --line-of /a/2
expect 1 "" "leads outside the workspace" -- "$WS" out-link --line-of /x
expect 2 "" "wants a JSON pointer" -- "$WS" doc.json --line-of a

[ "$failed" -eq 0 ] && echo "cat_test: ok"
exit "$failed"
