# lib.sh: what the benchmarks share (sourced): the median of their runs and
# the row that prints a figure against its target with PASS or MISS, the
# wall time of a command and a helper's KEY=VALUE fields.
#
# A bench may set ROW_LABEL, ROW_VALUE and ROW_TARGET (the widths of the
# label, value and target columns) before it calls row, and BENCH (its
# name, for wall's message).

# median [VALUE…]: the median of the values, or of stdin's first fields.
median() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@" | median
		return
	fi
	sort -g | awk '{ v[NR] = $1 } END {
	    print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# verdict VALUE OP TARGET: PASS or MISS (OP one of < <= == >= >).
verdict() {
	awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
	    ok = op == "<" ? v < t : op == "<=" ? v <= t : op == "==" ? \
	        v == t : op == ">" ? v > t : v >= t
	    print ok ? "PASS" : "MISS" }'
}

# row LABEL VALUE UNIT [OP TARGET]: one figure, and its verdict when it
# has a target.
row() {
	local lw=${ROW_LABEL:-50} vw=${ROW_VALUE:-10} tw=${ROW_TARGET:-6}

	if [ $# -ge 5 ]; then
		printf "  %-${lw}s %${vw}s %-6s target %-2s %-${tw}s %s\n" "$1" \
		    "$2" "$3" "$4" "$5" "$(verdict "$2" "$4" "$5")"
	else
		printf "  %-${lw}s %${vw}s %-6s\n" "$1" "$2" "$3"
	fi
}

now_s() { date +%s.%N; }

# wall COMMAND…: the seconds it took, its output thrown away; a command
# that fails ends the bench.
wall() {
	local t0 t1
	t0=$(now_s)
	"$@" >/dev/null || { echo "${BENCH:-bench}: '$*' failed" >&2; exit 1; }
	t1=$(now_s)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

# field KEY LINE: the value of KEY=VALUE among LINE's words (a helper's).
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
