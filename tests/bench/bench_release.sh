#!/bin/bash
# bench_release.sh: issue 12's two release numbers, printed beside their
# peers with PASS/MISS.
#
# usage: tests/bench/bench_release.sh [BUILD]       (default: build)
#
#   1. `calops release verify WS N` of a candidate whose calbin package is
#      $MB MiB (default 2048) in $FILES files (default 2500), cold (the page
#      cache dropped before each run when this is root; "warm" is printed
#      otherwise), against `openssl speed -evp sha256 -multi $(nproc)`
#      as the ceiling (target >= 0.85x), beside sha256sum of the same files
#      on every CPU (xargs -P), cold too, cat of them on every CPU and
#      32 at a time (the disk's own speed, and its best with many reads in
#      flight), and verify again warm (hashing alone).  Medians of $RUNS
#      (default 3).
#   2. the switch once verified: `calops release rollback` to an earlier
#      generation (no bindings to hash), the whole command (start, lock,
#      state, signature, the record appended and fsynced, the link renamed
#      and the folder fsynced), median of $SWITCHES (default 21) (target
#      <= 20 ms); beside it the promote back to the candidate, whose
#      bindings (2 MiB in that small copy) are hashed again.
# The workspace is made under $TMPDIR (a copy of share/examples/complete,
# its package replaced, a generation 3 bound to it and signed with the
# example key) and removed at the end.  Not part of ctest.
set -euo pipefail

BUILD=${1:-build}
MB=${MB:-2048}
FILES=${FILES:-2500}
RUNS=${RUNS:-3}
SWITCHES=${SWITCHES:-21}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CALOPS=$(cd "$BUILD" && pwd)/calops
KEY=$TOP/share/examples/keys/mei.chen.pem
[ -x "$CALOPS" ] || { echo "bench_release: no '$CALOPS'" >&2; exit 2; }
export LC_ALL=C.UTF-8

W=$(mktemp -d "${TMPDIR:-/tmp}/calops-bench-release.XXXXXX")
trap 'rm -rf "$W"' EXIT
R=$W/ws/08-release

median() {
	sort -g | awk '{ v[NR] = $1 } END {
	    print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
row() {		# row LABEL VALUE UNIT [OP TARGET]
	local verdict=
	if [ $# -ge 5 ]; then
		verdict=$(awk -v v="$2" -v op="$4" -v t="$5" 'BEGIN {
		    ok = op == "<=" ? v <= t : v >= t
		    print ok ? "PASS" : "MISS" }')
		printf '  %-50s %10s %-6s target %-2s %-6s %s\n' "$1" "$2" \
		    "$3" "$4" "$5" "$verdict"
	else
		printf '  %-50s %10s %-6s\n' "$1" "$2" "$3"
	fi
}
now_ns() { date +%s%N; }
cold=warm
[ -w /proc/sys/vm/drop_caches ] && cold=cold
drop() {
	sync
	if [ "$cold" = cold ]; then
		echo 3 >/proc/sys/vm/drop_caches
	fi
}

echo "calops release benchmarks: $CALOPS"
echo "  $(nproc) CPUs, $(uname -r), $(openssl version); $(date -u \
    '+%Y-%m-%d %H:%M:%S UTC')"

# ---- the workspace ----
cp -a "$TOP/share/examples/complete" "$W/ws"
rm -rf "$W/ws/05-calbin/package"
mkdir -p "$W/ws/05-calbin/package"
# FILES files of about MB/FILES MiB each, in 50 folders, random bytes.
per=$((MB * 1048576 / FILES))
python3 - "$W/ws/05-calbin/package" "$FILES" "$per" <<'PYEOF'
import os, sys
root, n, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    d = os.path.join(root, "part%02d" % (i % 50))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel%04d.bin" % i), "wb") as f:
        left = per + (i % 7) * 4096
        while left > 0:
            k = min(left, 1 << 20)
            f.write(os.urandom(k))
            left -= k
PYEOF
total=$(du -sb "$W/ws/05-calbin/package" | cut -f1)
tree=$("$CALOPS" hash "$W/ws/05-calbin/package" | awk '{ print $1 }')
mkdir "$R/generations/3"
python3 - "$R/generations/2/release-manifest.json" "$tree" \
    >"$R/generations/3/release-manifest.json" <<'PYEOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["generation"], m["previous_generation"] = 3, 2
m["calbin_tree_sha256"] = sys.argv[2]
print(json.dumps(m, indent=2))
PYEOF
openssl pkeyutl -sign -inkey "$KEY" -rawin \
    -in "$R/generations/3/release-manifest.json" | base64 -w0 \
    >"$R/generations/3/release-manifest.json.sig"
"$CALOPS" release verify "$W/ws" 3 >/dev/null ||
	{ echo "bench_release: generation 3 does not verify" >&2; exit 1; }
echo
echo "1. verify a candidate: $((total / 1048576)) MiB in $FILES files" \
    "(median of $RUNS)"

# The ceiling: SHA-256 in memory on every CPU.
ceil=$(openssl speed -evp sha256 -multi "$(nproc)" -bytes 1048576 \
    -seconds 3 2>/dev/null | awk '/^(evp|sha256|SHA256)/ && NF >= 2 {
	v = $NF; sub(/k$/, "", v); x = v } END { printf "%.1f", x * 1000 / 1048576 }')
: >"$W/t"
# cold CMD...: CMD's time in microseconds, the page cache dropped first.
cold_us() {
	local t0 t1

	drop
	t0=$(now_ns)
	"$@" >/dev/null
	t1=$(now_ns)
	echo $(( (t1 - t0) / 1000 ))
}
# each P CMD...: CMD on the package's files, P at a time.
each() {
	local p=$1

	shift
	( cd "$W/ws/05-calbin/package" && find . -type f -print0 |
	    xargs -0 -P "$p" -n 16 "$@" )
}
for _ in $(seq "$RUNS"); do
	a=$(cold_us "$CALOPS" release verify "$W/ws" 3)
	b=$(cold_us each "$(nproc)" sha256sum)
	c=$(cold_us each "$(nproc)" cat)
	# The disk with many reads in flight: what it can give at best.
	d=$(cold_us each 32 cat)
	# Warm: the page cache holds it all (what hashing alone costs).
	t0=$(now_ns)
	"$CALOPS" release verify "$W/ws" 3 >/dev/null
	t1=$(now_ns)
	echo "$a $b $c $(( (t1 - t0) / 1000 )) $d" >>"$W/t"
done
ours=$(awk '{ print $1 }' "$W/t" | median)
peer=$(awk '{ print $2 }' "$W/t" | median)
disk=$(awk '{ print $3 }' "$W/t" | median)
warm=$(awk '{ print $4 }' "$W/t" | median)
deep=$(awk '{ print $5 }' "$W/t" | median)
mibs() { awk -v n="$total" -v us="$1" 'BEGIN {
	printf "%.1f", n / 1048576 / (us / 1e6) }'; }
row "calops release verify ($cold)" "$(mibs "$ours")" MiB/s
row "sha256sum on $(nproc) CPUs, the package ($cold)" "$(mibs "$peer")" MiB/s
row "cat of the package on $(nproc) CPUs ($cold: the disk)" "$(mibs "$disk")" \
    MiB/s
row "cat, 32 at a time ($cold: the disk at its best)" "$(mibs "$deep")" \
    MiB/s
row "openssl speed -evp sha256 -multi $(nproc) (memory)" "$ceil" MiB/s
row "verify / openssl ceiling" "$(awk -v a="$(mibs "$ours")" -v b="$ceil" \
    'BEGIN { printf "%.2f", a / b }')" x ">=" 0.85
row "verify / reading the files alone" "$(awk -v a="$disk" -v b="$ours" \
    'BEGIN { printf "%.2f", a / b }')" x
row "verify / the disk at its best" "$(awk -v a="$deep" -v b="$ours" \
    'BEGIN { printf "%.2f", a / b }')" x
row "calops release verify (warm: all in the page cache)" "$(mibs "$warm")" \
    MiB/s
row "warm verify / openssl ceiling" "$(awk -v a="$(mibs "$warm")" \
    -v b="$ceil" 'BEGIN { printf "%.2f", a / b }')" x
row "verify / sha256sum" "$(awk -v a="$peer" -v b="$ours" \
    'BEGIN { printf "%.2f", a / b }')" x

# ---- 2. the switch ----
# On a small copy: complete/ with a generation 3 that binds its artifacts
# (a promote goes to the candidate and hashes its bindings: 2 MiB here).
S=$W/small
cp -a "$TOP/share/examples/complete" "$S"
mkdir "$S/08-release/generations/3"
sed -e 's/"generation": 2/"generation": 3/' \
    -e 's/"previous_generation": 1/"previous_generation": 2/' \
    "$S/08-release/generations/2/release-manifest.json" \
    >"$S/08-release/generations/3/release-manifest.json"
openssl pkeyutl -sign -inkey "$KEY" -rawin \
    -in "$S/08-release/generations/3/release-manifest.json" | base64 -w0 \
    >"$S/08-release/generations/3/release-manifest.json.sig"
echo
echo "2. the switch: rollback 3 -> 2 (no bindings to hash), promote 2 -> 3" \
    "(median of $SWITCHES each)"
"$CALOPS" release promote "$S" 3 --key "$KEY" --confirm 3 >/dev/null
: >"$W/s"
for _ in $(seq "$SWITCHES"); do
	t0=$(now_ns)
	"$CALOPS" release rollback "$S" --key "$KEY" --confirm 2 >/dev/null
	t1=$(now_ns)
	"$CALOPS" release promote "$S" 3 --key "$KEY" --confirm 3 >/dev/null
	t2=$(now_ns)
	echo "$(( (t1 - t0) / 1000 )) $(( (t2 - t1) / 1000 ))" >>"$W/s"
done
rb=$(awk '{ print $1 / 1000 }' "$W/s" | median)
pr=$(awk '{ print $2 / 1000 }' "$W/s" | median)
row "calops release rollback, the whole command" "$rb" ms "<=" 20
row "calops release promote, bindings hashed (2 MiB)" "$pr" ms
"$CALOPS" release audit "$S" >/dev/null ||
	{ echo "bench_release: the chain does not verify" >&2; exit 1; }
echo "  (the audit chain verifies: $(wc -l <"$S/08-release/audit.jsonl")" \
    "records)"
