# lib.sh: what the tests of tests/hash/ share (sourced with the test's
# name and its arguments): the binary in $CALOPS, a folder of its own in
# $work (removed at exit) holding the hash cache, $PY, ok and bad, and
# finish for the exit status.
set -euo pipefail
export LC_ALL=C

[ $# -eq 2 ] || { echo "usage: $1 CALOPS" >&2; exit 2; }
CALOPS=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/${1%.sh}.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache	# never the user's own hash cache
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

failures=0
ok() { printf 'ok   %s\n' "$*"; }
bad() { printf 'FAIL %s\n' "$*"; failures=$((failures + 1)); }

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures failure(s)"
		exit 1
	fi
	echo "all passed"
}
