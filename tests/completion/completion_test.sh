#!/bin/bash
# completion_test.sh CALOPS: share/completion/calops.bash as bash calls it
# (COMP_WORDS, COMP_CWORD, then _calops), on command lines typed up to the
# word being completed: commands, each one's options, gate ids, the
# values of --color, and job ids that the calops being completed lists.
set -u

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 CALOPS" >&2
	exit 2
fi
CALOPS=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/calops-completion.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export CALOPS_JOBS_DIR=$TMP/jobs
failed=0

# shellcheck source=/dev/null
. "$SRC/share/completion/calops.bash"

# completes LINE WANT...: the words offered for the last word of LINE (a
# line ending in a blank completes an empty word) are exactly WANT.
completes() {
	local line=$1 got want
	shift
	read -r -a COMP_WORDS <<<"$line"
	COMP_WORDS[0]=$CALOPS
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_calops
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	if [ "$got" != "$want" ]; then
		echo "FAIL: '$line' completes to '$got', not '$want'"
		failed=1
	fi
}

"$CALOPS" run --id comp-one -- true >/dev/null || { echo "FAIL: run"; exit 1; }
"$CALOPS" run --id comp-two -- true >/dev/null || { echo "FAIL: run"; exit 1; }
# Every command of calops' own table (its --help lists it), and nothing
# else, in a folder with no file to offer beside them.
mkdir "$TMP/empty" && cd "$TMP/empty" || exit 1
# shellcheck disable=SC2046
completes "calops " $("$CALOPS" --help |
    sed -n '/^commands:$/,/^$/s/^  \([a-z-]*\) .*/\1/p')
cd "$TMP" || exit 1
completes "calops ch" check
completes "calops ki" kill
completes "calops --col" --color
completes "calops --color n" never
completes "calops check --gate G1" G1 G10
completes "calops check --st" --stream
completes "calops kill --" --grace --jobs --help
completes "calops tail --f" --from --follow
completes "calops tail comp-" comp-one comp-two
completes "calops kill comp-o" comp-one
completes "calops run -- ta"
completes "calops --theme high" high-contrast
completes "calops run-g" run-gate
completes "calops repro" repro-build
completes "calops run-gate lab.yaml G1" G1 G10
completes "calops run-gate --ho" --host
completes "calops run-gate --wo" --workspace
completes "calops rep" repro-build report
completes "calops report --f" --force --format
completes "calops report --format h" html
completes "calops report --w" --write
[ $failed = 0 ] && echo "ok: completion"
exit $failed
