#!/bin/bash
# parse_memory_test.sh: reading an artifact never takes more than 16 times
# its size nor more than 256 MiB, whatever its shape (workspace.md, "How
# files are read"): a YAML, a JSON and a CSV file of tiny nodes (the shapes
# that cost most per byte), at about 10 MB and 60 MB, are refused with a
# finding while they are read, and `calops check`'s peak memory, as
# /usr/bin/time -v measures it, stays within the bound.  Before the bound,
# a 62 MB owners.yaml of `gates: [1,1,…]` took 5.2 GB and 4.5 minutes.
#
#	parse_memory_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: parse_memory_test.sh CALOPS_BINARY}
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/calops-parse-memory.XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0
fail() { echo "parse_memory_test: FAIL: $*"; failed=1; }
[ -x /usr/bin/time ] || { echo "parse_memory_test: no /usr/bin/time"; exit 77; }
export HOME=$T/home XDG_CACHE_HOME=$T/cache XDG_STATE_HOME=$T/state

# case NAME REL GATE MB: a copy of the mid-project example whose REL is
# replaced by a hostile file of about MB megabytes (made by python3 from
# NAME's shape), checked at GATE.
case_() {
	local name=$1 rel=$2 gate=$3 mb=$4 ws=$T/$1-$4 bytes kb limit
	rm -rf "$ws"
	cp -a "$top/share/examples/midproject" "$ws"
	python3 - "$name" "$ws/$rel" "$mb" <<'PY'
import sys
shape, path, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = mb * 1000 * 1000 // 2
with open(path, "w") as f:
    if shape == "yaml":
        f.write("gates: [" + ",".join(["1"] * n) + "]\n")
    elif shape == "json":
        f.write("[" + ",".join(["1"] * n) + "]\n")
    else:
        f.write("node_name,op_type,domain\n")
        f.write("a,b,\n" * (n // 3))
PY
	bytes=$(stat -c %s "$ws/$rel")
	/usr/bin/time -v "$CALOPS" check "$ws" --gate "$gate" --json \
	    >"$T/out.json" 2>"$T/time.txt"
	kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time.txt")
	[ -n "$kb" ] || { fail "$name $mb MB: no measure"; return; }
	limit=$((bytes * 16 / 1024))
	[ "$limit" -gt $((256 * 1024)) ] && limit=$((256 * 1024))
	printf 'parse_memory_test: %-4s %3d MB: peak %6d KiB, bound %6d KiB ' \
	    "$name" "$mb" "$kb" "$limit"
	echo "($(awk "BEGIN { printf \"%.1f\", $kb * 1024 / $bytes }")x the file)"
	[ "$kb" -le "$limit" ] ||
		fail "$name $mb MB: peak $kb KiB over the bound $limit KiB"
	grep -q "in memory, .*refused" "$T/out.json" ||
		fail "$name $mb MB: no finding says it was refused: $(head -c 600 "$T/out.json")"
}

for mb in 10 60; do
	case_ yaml owners.yaml G0 "$mb"
	case_ json 00-source/source-manifest.json G0 "$mb"
	case_ csv 02-onnx/op-support.csv G3 "$mb"
done

[ $failed -eq 0 ] && echo "parse_memory_test: all passed"
exit $failed
