#!/bin/sh
# paths.sh: the terminal tests from clones at paths of several lengths,
# each path holding a blank and a quote.
#
#   sh tests/paths.sh [LENGTH...]      default: 21 120; at least 21
#
# A test that matches a line the shell printed before calops' own output,
# or a line of calops' that a long path made wrap, or that writes a path
# unquoted (or quoted in '...' without escaping a quote in it), passes from
# one clone and fails from another (CI clones where it likes).  For each
# LENGTH this clones the repository's HEAD to a folder whose path is
# exactly LENGTH characters and holds a blank and a quote, as a newcomer's
# may ("/tmp/new comer'sppp...XXXXX"), builds calops there (-Werror), and
# runs every terminal test from that clone at each size ctest runs it at
# (tests/CMakeLists.txt: most at 120x40 and 80x24, those on a loopback SSH
# lab at 120x40), one per core.  Two clones cover the three cases (a blank,
# a quote, a long path) so that CI builds twice, not three times.  The
# golden screens are not run here: golden.sh copies the binaries into a
# temp folder of a fixed length first, so no clone path can reach them.
# It exits 1 if any test failed from any clone, and prints each failure's
# output.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
# Each test runs at one width: at either, a path that does not wrap and
# one that does (a 97-character one would wrap at 80 like 120, and not at
# 120 like 21: the same cases again).
[ $# -gt 0 ] || set -- 21 120

say() { printf 'paths: %s\n' "$*" >&2; }

# clone_at LENGTH: a new folder of a path of exactly LENGTH characters,
# "/tmp/new comer'sppp...XXXXX", printed on stdout: every path a test
# writes into a file or a command line must be quoted for a blank and a
# quote.
clone_at() {
	pad=$(($1 - 21))
	if [ "$pad" -lt 0 ]; then
		say "a path needs at least 21 characters, not $1"
		exit 2
	fi
	mktemp -d "/tmp/new comer's$(printf "%${pad}s" '' | tr ' ' p)XXXXX"
}

failed=0
made=$(mktemp)
trap 'while IFS= read -r d; do rm -rf "$d"; done <"$made"; rm -f "$made"' EXIT
for len in "$@"; do
	dir=$(clone_at "$len")
	printf '%s\n' "$dir" >>"$made"
	[ ${#dir} -eq "$len" ] || { say "'$dir' is not $len long"; exit 2; }
	git clone -q "$top" "$dir"
	say "$len: $dir"
	cmake -S "$dir" -B "$dir/build" -DCALOPS_WERROR=ON >/dev/null
	# Only what the term tests run: calops and the simulator it finds
	# beside itself.
	cmake --build "$dir/build" -j "$jobs" --target calops calrt-sim \
	    >/dev/null
	out=$dir/build/paths-out
	mkdir -p "$out"
	# The terminal tests as ctest defines them, each at the sizes it
	# claims (term_NAME_COLSxROWS): most at both, the SSH ones at one.
	(cd "$dir/build" && ctest -N -R '^term_') |
	    sed -n 's/^ *Test *#[0-9]*: term_\(.*\)_\([0-9]*\)x\([0-9]*\)$/term\/\1 \2 \3/p' |
	    xargs -P "$jobs" -L 1 sh -c '
		o=$(echo "$1" | tr / _)_$2x$3
		bash "$0/tests/$1.sh" "$0/build/calops" "$2" "$3" \
		    >"$0/build/paths-out/$o" 2>&1 ||
		    [ $? = 77 ] || echo "$o" >>"$0/build/paths-out/FAILED"
	' "$dir" || true
	touch "$out/FAILED"
	for f in $(cat "$out/FAILED"); do
		say "$len: FAILED $f"
		cat "$out/$f"
		failed=1
	done
	ran=$(ls "$out" | grep -c x || true)
	say "$len: $ran term tests run, $(wc -l <"$out/FAILED") failed"
	# None at all is a broken set-up, not a pass.
	[ "$ran" -gt 0 ] || { say "$len: no terminal test found"; failed=1; }
done
exit $failed
