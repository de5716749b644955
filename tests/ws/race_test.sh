#!/bin/bash
# race_test.sh: nothing outside a workspace is ever read, even when a file
# inside is swapped for a symbolic link out of it while calops reads it
# (issue 27; workspace.md §1 "How files are read").  A flipper exchanges,
# as fast as it can (renameat2 RENAME_EXCHANGE, atomic), four entries of a
# workspace with links to files outside holding a marker: owners.yaml (read
# whole: G0's owner), a JSON Lines artifact (read a line at a time), a file
# G0 hashes, and a folder of the package (walked for its tree hash).
# Meanwhile `calops cat`, `calops check --json` (through the hash cache),
# `calops hash --list` of the package and `calops watch` run over and over;
# neither the marker nor the SHA-256 of the outside files may appear in
# anything they print.  Every other round runs without openat2(2)
# (CALOPS_TEST_NO_OPENAT2), the way for a kernel that has none.
#
#	race_test.sh CALOPS_BINARY [ROUNDS [SECONDS]]
#
# Bounded: ROUNDS rounds (300) or SECONDS seconds (20), whichever ends
# first.  Exit 0 when nothing leaked (nor did a sanitizer report), 1 with
# a count per command if anything did.
set -u

CALOPS=${1:?usage: race_test.sh CALOPS_BINARY [ROUNDS [SECONDS]]}
ROUNDS=${2:-300}
SECONDS_MAX=${3:-20}
SRC=${CALOPS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d /tmp/calops-race-test.XXXXXX)
flipper=
watcher=
cleanup() {
	[ -n "$flipper" ] && kill "$flipper" 2>/dev/null
	[ -n "$watcher" ] && kill "$watcher" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

MARK=calopsrace$RANDOM$RANDOM$RANDOM
WS=$T/ws
OUT=$T/out
PARK=$T/park
export XDG_CACHE_HOME=$T/cache XDG_STATE_HOME=$T/state
cp -R "$SRC/share/examples/complete" "$WS" || exit 2
mkdir -p "$OUT" "$PARK" || exit 2

# The files outside: each holds the marker, each of the package's the same
# bytes, so that one SHA-256 stands for all of them.
printf 'gates:\n  G0: {owner: "%s", due: 2026-08-07}\n' "$MARK" \
    >"$OUT/owners.yaml"
printf '%s\n{"sample_id": "%s"}\n' "$MARK" "$MARK" >"$OUT/outputs.jsonl"
printf '%s\n' "$MARK" >"$OUT/LICENSE"
HEX=$(sha256sum "$OUT/LICENSE" | cut -c1-12)
(cd "$WS/05-calbin/package" && find chip0 -type d) | while read -r d; do
	mkdir -p "$OUT/$d"
done
(cd "$WS/05-calbin/package" && find chip0 -type f) | while read -r f; do
	cp "$OUT/LICENSE" "$OUT/$f"
done
cp "$OUT/LICENSE" "$OUT/chip0/decode_b1_s8192/$MARK"

# Each pair is exchanged: the workspace's entry, and a parked link out.
pairs=(
	"$WS/owners.yaml" "$PARK/owners.yaml" "$OUT/owners.yaml"
	"$WS/01-reference/outputs.jsonl" "$PARK/outputs.jsonl"
	"$OUT/outputs.jsonl"
	"$WS/00-source/hf-config/LICENSE" "$PARK/LICENSE" "$OUT/LICENSE"
	"$WS/05-calbin/package/chip0" "$PARK/chip0" "$OUT/chip0"
)
args=()
for ((i = 0; i < ${#pairs[@]}; i += 3)); do
	ln -s "${pairs[i + 2]}" "${pairs[i + 1]}" || exit 2
	args+=("${pairs[i]}" "${pairs[i + 1]}")
done
python3 - "${args[@]}" <<'EOF' &
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
pairs = [(a.encode(), b.encode()) for a, b in zip(sys.argv[1::2], sys.argv[2::2])]
while True:
    for a, b in pairs:
        if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
EOF
flipper=$!

mkfifo "$T/watch.in" || exit 2
"$CALOPS" watch "$WS" <"$T/watch.in" >"$T/watch.out" 2>&1 &
watcher=$!
exec 7>"$T/watch.in"

declare -A leaks=()
# leaked NAME FILE: count a round whose output shows what is outside.
leaked() {
	if grep -qF -e "$MARK" -e "$HEX" "$2"; then
		leaks[$1]=$((${leaks[$1]:-0} + 1))
		[ -s "$T/first.$1" ] || cp "$2" "$T/first.$1"
	fi
	# Under -DCALOPS_SANITIZE=ON, what a sanitizer finds fails it too.
	if grep -qE 'Sanitizer|runtime error:' "$2"; then
		leaks[sanitizer]=$((${leaks[sanitizer]:-0} + 1))
		[ -s "$T/first.sanitizer" ] || cp "$2" "$T/first.sanitizer"
	fi
}

start=$(date +%s)
round=0
while [ "$round" -lt "$ROUNDS" ] &&
    [ $(($(date +%s) - start)) -lt "$SECONDS_MAX" ]; do
	round=$((round + 1))
	if [ $((round % 2)) -eq 0 ]; then
		export CALOPS_TEST_NO_OPENAT2=1
	else
		unset CALOPS_TEST_NO_OPENAT2
	fi
	"$CALOPS" cat "$WS" owners.yaml >"$T/o" 2>&1
	leaked cat-owners "$T/o"
	"$CALOPS" cat "$WS" 01-reference/outputs.jsonl >"$T/o" 2>&1
	leaked cat-jsonl "$T/o"
	"$CALOPS" check --json "$WS" >"$T/o" 2>&1
	leaked check "$T/o"
	"$CALOPS" hash --list "$WS/05-calbin/package" >"$T/o" 2>&1
	leaked hash-list "$T/o"
done
unset CALOPS_TEST_NO_OPENAT2
kill "$flipper" 2>/dev/null
wait "$flipper" 2>/dev/null
flipper=
exec 7>&-
wait "$watcher"
watcher=
leaked watch "$T/watch.out"
grep -q '"type":"watching"' "$T/watch.out" ||
	echo "race_test: FAIL: calops watch did not start: $(cat "$T/watch.out")"

if [ "${#leaks[@]}" -eq 0 ]; then
	echo "race_test: ok ($round rounds, nothing from outside)"
	exit 0
fi
for k in "${!leaks[@]}"; do
	echo "race_test: FAIL: $k showed what is outside the workspace in" \
	    "${leaks[$k]} of $round rounds; the first:"
	head -c 2000 "$T/first.$k" | grep -E -e "$MARK" -e "$HEX" \
	    -e 'Sanitizer|runtime error:' | head -3
done
exit 1
