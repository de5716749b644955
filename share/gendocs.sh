#!/bin/sh
# gendocs.sh: the lists in calops(1) and in the completions that are written
# from calops' own tables, written again from them.
#
#   sh share/gendocs.sh CALOPS           write them in place
#   sh share/gendocs.sh --check CALOPS   exit 1, showing the difference, when
#                                        a file no longer says what CALOPS
#                                        prints (ctest's docs_generated)
#
# A file holds its part between a line holding "gendocs: WHAT begin" and one
# holding "gendocs: end"; the part is what `CALOPS --gen-docs WHAT` prints:
# man (share/man/calops.1: the screens, the keys of each, the ':' commands,
# from the view registry and the key tables), bash and zsh (the commands
# the completions offer, from the command table of src/main.c).  Run it
# after changing one of those tables, and commit what it wrote.
set -eu

check=false
if [ "${1:-}" = --check ]; then
	check=true
	shift
fi
if [ $# -ne 1 ]; then
	echo "usage: sh share/gendocs.sh [--check] CALOPS" >&2
	exit 2
fi
calops=$1
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gendocs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad=0
for part in man:share/man/calops.1 bash:share/completion/calops.bash \
    zsh:share/completion/_calops; do
	what=${part%%:*}
	rel=${part#*:}
	"$calops" --gen-docs "$what" >"$tmp/part"
	# The lines outside the markers as they are, the part between them.
	if ! PART=$tmp/part awk -v what="$what" '
	    index($0, "gendocs: " what " begin") {
		print
		while ((getline l < ENVIRON["PART"]) > 0)
			print l
		skip = found = 1
		next
	    }
	    skip && index($0, "gendocs: end") { skip = 0 }
	    !skip { print }
	    END { exit !found || skip }' "$top/$rel" >"$tmp/new"; then
		echo "gendocs: '$rel' has no 'gendocs: $what begin' line" \
		    "followed by a 'gendocs: end' line" >&2
		exit 1
	fi
	cmp -s "$top/$rel" "$tmp/new" && continue
	if $check; then
		echo "gendocs: '$rel' does not say what" \
		    "'calops --gen-docs $what' prints" \
		    "(sh share/gendocs.sh CALOPS writes it):"
		diff -u "$top/$rel" "$tmp/new" || true
		bad=1
	else
		cat "$tmp/new" >"$top/$rel"
		echo "gendocs: wrote $rel"
	fi
done
exit $bad
