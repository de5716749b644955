#!/bin/bash
# report_test.sh CALOPS: `calops report` (share/doc/release.md §8).
#
# The Markdown of each example workspace is compared whole with its golden
# copy in tests/report/golden/, from a copy of the workspace at another
# path and under another numeric locale: the same workspace gives the same
# bytes.  Then --write, --force, --output and their refusals; the hostile
# workspace (hostile.py) in Markdown, HTML and JSON: no escape sequence
# and no markup of its own gets through; and the console's :report.
#
# Run with CALOPS_GOLDEN_UPDATE=1 to write the golden copies instead (then
# read the diff before committing it).
set -u

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 CALOPS" >&2
	exit 2
fi
CALOPS=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
GOLD=$SRC/tests/report/golden
TMP=$(mktemp -d "${TMPDIR:-/tmp}/calops report.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export XDG_CACHE_HOME="$TMP/cache"
failed=0 passed=0

fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# The golden copies, each from a copy of the example at a path with a
# blank, in a locale whose decimal point is a comma where there is one.
for ex in complete midproject labdemo; do
	cp -a "$SRC/share/examples/$ex" "$TMP/ws $ex"
	out=$TMP/$ex.md
	LC_NUMERIC=de_DE.UTF-8 "$CALOPS" report "$TMP/ws $ex" >"$out" ||
	    fail "$ex: report exited $?"
	if [ "${CALOPS_GOLDEN_UPDATE:-}" = 1 ]; then
		cp "$out" "$GOLD/$ex.md"
		continue
	fi
	if cmp -s "$out" "$GOLD/$ex.md"; then
		pass
	else
		fail "$ex: the Markdown differs from tests/report/golden/$ex.md"
		diff -u "$GOLD/$ex.md" "$out" | head -40
	fi
	# Twice, and from the source tree itself: the same bytes.
	"$CALOPS" report "$SRC/share/examples/$ex" | cmp -s - "$out" &&
	    pass || fail "$ex: the source tree's copy gives other bytes"
done

# complete: GO, and every gate on the board; midproject: NO-GO naming the
# gates in the way.
grep -qx '\*\*✔ GO: generation 2 may go live: every gate G0-G10 passes\*\*' \
    "$TMP/complete.md" && pass || fail "complete: no GO line"
grep -q '^\*\*✘ NO-GO: project BLOCKED\\_COMPILER, G2 stale, G3 fail, G5 blocked' \
    "$TMP/midproject.md" && pass || fail "midproject: no NO-GO line"
[ "$(grep -cE '^\| G[0-9]+ \| ✔ pass \| ' "$TMP/complete.md")" = 11 ] && pass ||
    fail "complete: the board has not 11 gate rows"
grep -q '`05-calbin/validation.json:18`' "$TMP/complete.md" && pass ||
    fail "complete: a finding at a JSON pointer is not FILE:LINE"

# --write: in place, atomically; never over a file without --force.
ws="$TMP/ws complete"
"$CALOPS" report --write "$ws" >"$TMP/said" 2>&1
[ $? = 1 ] && grep -q "is there already: --force writes over it" \
    "$TMP/said" && pass || fail "--write over decision.md was not refused"
cmp -s "$ws/08-release/decision.md" \
    "$SRC/share/examples/complete/08-release/decision.md" && pass ||
    fail "a refused --write changed decision.md"
"$CALOPS" report --write --force "$ws" >"$TMP/said" 2>&1 && pass ||
    fail "--write --force failed: $(cat "$TMP/said")"
cmp -s "$ws/08-release/decision.md" "$TMP/complete.md" && pass ||
    fail "--write --force did not write the report"
grep -q "^wrote .*08-release/decision.md: GO: generation 2" "$TMP/said" &&
    pass || fail "--write does not say where and what: $(cat "$TMP/said")"
ls -a "$ws/08-release" | grep -q '^\.decision' &&
    fail "a temporary file was left in 08-release/" || pass
rm "$ws/08-release/decision.md"
"$CALOPS" check --gate G10 "$ws" >/dev/null && fail "G10 passes with no decision.md"
"$CALOPS" report -q --write "$ws" >"$TMP/said" 2>&1 && pass ||
    fail "--write of a missing decision.md failed"
[ -s "$TMP/said" ] && fail "--quiet said something"
"$CALOPS" check --gate G10 "$ws" >/dev/null && pass ||
    fail "G10 does not pass once the report wrote decision.md"
"$CALOPS" report --format html -o "$TMP/page.html" "$ws" >/dev/null && pass ||
    fail "--output failed"
head -1 "$TMP/page.html" | grep -qx '<!DOCTYPE html>' && pass ||
    fail "--format html is not a page"
"$CALOPS" report --write -o x "$ws" >/dev/null 2>&1
[ $? = 2 ] && pass || fail "--write with --output was not a usage error"
"$CALOPS" report --format pdf "$ws" >/dev/null 2>&1
[ $? = 2 ] && pass || fail "--format pdf was not a usage error"
"$CALOPS" report "$TMP/nothing" >/dev/null 2>&1
[ $? = 2 ] && pass || fail "a missing workspace did not exit 2"
mv "$ws/08-release" "$ws/rel" && ln -s rel "$ws/08-release"
"$CALOPS" report --write --force "$ws" >"$TMP/said" 2>&1
[ $? = 1 ] && grep -q "not a folder" "$TMP/said" && pass ||
    fail "--write through a symbolic link 08-release was not refused"

# The hostile workspace: its strings are text in every format.
python3 "$SRC/tests/report/hostile.py" "$SRC/share/examples/complete" \
    "$TMP/hostile" || fail "hostile.py failed"
for fmt in md html json; do
	"$CALOPS" report --format $fmt "$TMP/hostile" >"$TMP/h.$fmt" ||
	    fail "hostile: --format $fmt exited $?"
	LC_ALL=C grep -q $'\x1b' "$TMP/h.$fmt" &&
	    fail "hostile: an ESC byte reached the $fmt output" || pass
	LC_ALL=C grep -q $'\x07' "$TMP/h.$fmt" &&
	    fail "hostile: a BEL byte reached the $fmt output" || pass
done
for fmt in md html; do
	grep -qi '<script' "$TMP/h.$fmt" &&
	    fail "hostile: '<script' is raw in the $fmt output" || pass
	grep -q '&lt;script&gt;alert' "$TMP/h.$fmt" && pass ||
	    fail "hostile: the owner's '<script>' is not escaped in $fmt"
	grep -q '&lt;/svg&gt;' "$TMP/h.$fmt" && pass ||
	    fail "hostile: '</svg>' is not escaped in $fmt"
	grep -qE '\^(\\)?\[(\\)?\]52;c;' "$TMP/h.$fmt" && pass ||
	    fail "hostile: the OSC 52 sequence is not shown as text in $fmt"
done
[ "$(grep -c '</svg>' "$TMP/h.html")" = 3 ] && pass ||
    fail "hostile: the page has not its 3 graphs whole"

# The console's :report (views/app/reportrun.c), headless: with a
# decision.md there it asks, and "no" leaves it, "yes" writes over it; with
# none it writes at once; --readonly writes nothing.  Each says so on the
# status bar.
export XDG_STATE_HOME="$TMP/state" XDG_CONFIG_HOME="$TMP/config"
cws="$TMP/console ws"
cp -a "$SRC/share/examples/complete" "$cws"
console() {	# console SCRIPT [OPTION]: the console on $cws, headless
	printf '%s\n' "$1" >"$TMP/script"
	"$CALOPS" ${2:-} --headless 140x30 --script "$TMP/script" "$cws" \
	    >/dev/null 2>"$TMP/console.err" ||
	    fail "the console exited $?: $(cat "$TMP/console.err")"
}
console "wait board
type :report
key Enter
wait text is there already: write the record over it? (yes/no)
type no
key Enter
wait text decision.md left as it was"
cmp -s "$cws/08-release/decision.md" \
    "$SRC/share/examples/complete/08-release/decision.md" && pass ||
    fail ":report, answered no, changed decision.md"
console "wait board
type :report
key Enter
wait text is there already
type yes
key Enter
wait text 08-release/decision.md: GO: generation 2 may go live"
cmp -s "$cws/08-release/decision.md" "$TMP/complete.md" && pass ||
    fail ":report, answered yes, did not write the record"
# Without one, G10 fails on G10.decision alone: the record says so, and
# says GO all the same (it is that evidence).
rm "$cws/08-release/decision.md"
"$CALOPS" report "$cws" >"$TMP/nodecision.md"
grep -q 'G10.decision' "$TMP/nodecision.md" && pass ||
    fail "with no decision.md, the record does not name G10.decision"
console "wait board
type :report
key Enter
wait text 08-release/decision.md: GO: generation 2 may go live"
cmp -s "$cws/08-release/decision.md" "$TMP/nodecision.md" && pass ||
    fail ":report did not write a missing decision.md"
rm "$cws/08-release/decision.md"
console "wait board
type :report
key Enter
wait text --readonly: the decision record is not written" --readonly
[ -e "$cws/08-release/decision.md" ] &&
    fail ":report wrote with --readonly" || pass

echo "$passed passed, $failed failed"
[ $failed = 0 ]
