#!/bin/sh
# man_commands_test.sh CALOPS: calops(1)'s COMMANDS section has an entry
# for every command of calops' own table (src/main.c, which --help lists),
# and none for a command the table does not have.  The man page's lists of
# screens, keys and ':' commands are checked by test_docs and
# docs_generated; the completions' commands by completion_test.
set -u

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 CALOPS" >&2
	exit 2
fi
MAN=$(cd "$(dirname "$0")/../.." && pwd)/share/man/calops.1
TMP=$(mktemp -d /tmp/calops-mancmd.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# The table, as --help prints it.
"$1" --help | sed -n '/^commands:$/,/^$/s/^  \([a-z-]*\) .*/\1/p' |
    sort -u >"$TMP/table"
if [ ! -s "$TMP/table" ]; then
	echo "FAIL: '$1 --help' lists no commands"
	exit 1
fi
# The first word of each entry of the COMMANDS section: the tag after a
# .TP outside any .RS (an option's entry is inside one), "\fBrun\fR …" or
# ".B check", roff's "\-" a minus.
awk '
	/^\.SH / { in_cmds = ($0 == ".SH COMMANDS"); next }
	!in_cmds { next }
	/^\.RS/ { depth++; next }
	/^\.RE/ { depth--; next }
	tag { tag = 0; print; next }
	/^\.TP/ && depth == 0 { tag = 1 }
' "$MAN" | sed -e 's/^\.BR\{0,1\} //' -e 's/^\\fB//' -e 's/\\-/-/g' \
    -e 's/^"//' -e 's/[^a-z-].*//' | sort -u >"$TMP/man"
if ! grep -q . "$TMP/man"; then
	echo "FAIL: no entry found in calops.1's COMMANDS section"
	exit 1
fi
failed=0
for c in $(comm -23 "$TMP/table" "$TMP/man"); do
	echo "FAIL: command '$c' (calops --help) has no entry in calops.1's" \
	    "COMMANDS section"
	failed=1
done
for c in $(comm -13 "$TMP/table" "$TMP/man"); do
	echo "FAIL: calops.1's COMMANDS section has an entry for '$c'," \
	    "which calops --help does not list"
	failed=1
done
[ $failed = 0 ] && echo "man_commands_test: $(wc -l <"$TMP/table")" \
    "commands, each in calops.1"
exit $failed
