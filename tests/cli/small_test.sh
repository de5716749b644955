#!/bin/bash
# small_test.sh: small things said right (issue 30 (11)): -V prints the
# version, one line, as --version does; `calops hosts --json` gives a
# state's age as measured, to the millisecond (0.303, never
# 0.30299999999999999): ten runs, each for_s with at most three decimals.
#
#	small_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: small_test.sh CALOPS_BINARY}
T=$(mktemp -d /tmp/calops-small-test.XXXXXX)
export XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config
FAILED=0
trap 'rm -rf "$T"' EXIT

say() { printf 'small_test: %s\n' "$*"; }
fail() { say "FAIL: $*"; FAILED=1; }

for opt in -V --version; do
	out=$("$CALOPS" "$opt" 2>&1)
	rc=$?
	if [ $rc = 0 ] && [[ $out =~ ^calops\ [0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		say "ok: $opt"
	else
		fail "$opt: status $rc, said: $out"
	fi
done

mkdir -p "$T/ws"
cat >"$T/lab.yaml" <<LAB
hosts:
  - {name: local, transport: local}
workspaces:
  - {host: local, path: '$T/ws'}
LAB
for i in $(seq 10); do
	"$CALOPS" hosts --json "$T/lab.yaml" >"$T/out" 2>"$T/err" ||
	    { fail "hosts --json: $(cat "$T/err")"; break; }
	for_s=$(sed -n 's/^ *"for_s": \(.*\),$/\1/p' "$T/out")
	[[ $for_s =~ ^[0-9]+(\.[0-9]{1,3})?$ ]] ||
	    { fail "run $i: for_s is '$for_s'"; break; }
done
[ "$FAILED" = 0 ] && say "ok: for_s as measured"
exit $FAILED
