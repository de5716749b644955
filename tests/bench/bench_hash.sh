#!/bin/bash
# bench_hash.sh: how fast `calops hash` is against sha256sum, openssl dgst
# and the ceiling `openssl speed` gives for this machine.
#
# usage: tests/bench/bench_hash.sh [CALOPS]    (default: build/calops)
#
# Generates, in $BENCH_DIR (default: a new folder under /tmp, removed at the
# end), a package tree of ~2 GiB in ~2,500 files of mixed sizes and one
# 2 GiB file, then prints the medians of $ROUNDS (default 5) interleaved
# rounds, with every contender's input in the page cache:
#   (a) cold tree:  calops hash --no-cache TREE  vs  find | xargs -P2 sha256sum
#                   vs  openssl speed -evp sha256 -multi 2 (the ceiling)
#   (b) one file:   calops hash --no-cache FILE  vs  openssl dgst -sha256
#                   vs  openssl speed -evp sha256 (one core)
#   (c) warm tree:  calops hash TREE (cache filled)  vs  the cold pass
# With BENCH_KEEP=1 the inputs stay in ${BENCH_DIR:-/tmp}/bench_hash for the
# next run (delete it to regenerate); BENCH_WRITE_BLOCK sets the size of the
# writes that create the files (default 4 MiB, see generate()).  Not part of
# ctest: it takes a minute or two and wants an otherwise idle machine.
set -euo pipefail
export LC_ALL=C

CALOPS=${1:-build/calops}
ROUNDS=${ROUNDS:-5}
[ -x "$CALOPS" ] || { echo "bench_hash: no executable '$CALOPS'" >&2; exit 2; }
CALOPS=$(cd "$(dirname "$CALOPS")" && pwd)/$(basename "$CALOPS")

if [ -n "${BENCH_KEEP:-}" ]; then
	# Keep the inputs in $BENCH_DIR/bench_hash and reuse them next time.
	WORK=${BENCH_DIR:-/tmp}/bench_hash
	mkdir -p "$WORK"
else
	mkdir -p "${BENCH_DIR:-/tmp}"
	WORK=$(mktemp -d "${BENCH_DIR:-/tmp}/bench_hash.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
fi
TREE=$WORK/package
BIG=$WORK/big.bin
export XDG_CACHE_HOME=$WORK/cache	# never the user's own cache

# Generate both inputs from 64 MiB of random bytes: every file starts with
# its own header, then a slice of the seed (repeated as needed), so no two
# files are equal and nothing but the header costs /dev/urandom time.
generate() {
	head -c $((64 << 20)) /dev/urandom >"$WORK/seed"
	perl - "$WORK/seed" "$TREE" "$BIG" <<'PERL'
use strict;
use warnings;
my ($seedpath, $tree, $big) = @ARGV;
open(my $sf, '<:raw', $seedpath) or die "seed: $!";
local $/;
my $seed = <$sf>;
close $sf;
my $slen = length $seed;
srand(42);
# Write in $blk-byte blocks (BENCH_WRITE_BLOCK, default 4 MiB), as model
# tools do: the page cache then holds large folios, as it does for files
# read back from disk; 8 KiB writes leave 4 KiB pages, which cost every
# reader more to map or copy (calops loses ~8% of its tree throughput).
my $blk = $ENV{BENCH_WRITE_BLOCK} || (4 << 20);
sub emit {
	my ($path, $size, $tag) = @_;
	open(my $f, '>:raw', $path) or die "$path: $!";
	my $buf = "calops bench $tag\n";
	$buf = substr($buf, 0, $size) if length $buf > $size;
	my $left = $size - length $buf;
	my $off = int(rand($slen));
	while ($left > 0 || length $buf) {
		while ($left > 0 && length $buf < $blk) {
			my $n = $slen - $off;
			$n = $left if $n > $left;
			$n = $blk - length $buf if $n > $blk - length $buf;
			$buf .= substr($seed, $off, $n);
			$left -= $n;
			$off = ($off + $n) % $slen;
		}
		my $w = syswrite($f, $buf, $blk);
		die "$path: $!" unless defined $w;
		substr($buf, 0, $w, '');
	}
	close $f or die "$path: $!";
}
# [count, folder, min size, max size]: shards, blobs, tiles, kernels, configs
my @plan = (
	[4, 'weights', 160 << 20, 160 << 20],
	[60, 'blobs', 8 << 20, 16 << 20],
	[250, 'tiles', 1 << 20, 3 << 20],
	[400, 'kernels', 128 << 10, 384 << 10],
	[1786, 'meta', 1 << 10, 64 << 10],
);
my $i = 0;
for my $p (@plan) {
	my ($count, $dir, $min, $max) = @$p;
	for my $k (1 .. $count) {
		my $sub = sprintf('%s/%s/g%02d', $tree, $dir, $k % 16);
		unless (-d $sub) {
			system('mkdir', '-p', $sub) == 0 or die "mkdir $sub";
		}
		my $size = $min + int(rand($max - $min + 1));
		emit(sprintf('%s/f%04d.bin', $sub, $k), $size, "tree $i");
		$i++;
	}
}
emit($big, 2 << 30, 'big');
PERL
	rm -f "$WORK/seed"
}

# Wall seconds of one run of a command, output discarded.
elapsed() {
	local s e
	s=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || { echo "bench_hash: '$*' failed" >&2; exit 1; }
	e=$EPOCHREALTIME
	echo "$e - $s" | bc -l
}

. "$(dirname "$0")/lib.sh"

# Bytes per second that `openssl speed` reports for SHA-256 on 1 MiB blocks.
speed() {
	openssl speed -evp sha256 -bytes 1048576 -seconds 1 "$@" 2>/dev/null |
	    awk '$1 == "sha256" { v = $2 } END { sub(/k$/, "", v); printf "%.0f\n", v * 1000 }'
}

xargs_sha256sum() {
	find "$TREE" -type f -print0 | xargs -0 -P2 -n64 sha256sum
}

# ratio NAME VALUE TARGET: one verdict line
verdict() {
	local pass
	pass=$(echo "$2 >= $3" | bc -l)
	printf '    %-34s %8.2f   target >= %-5s %s\n' "$1" "$2" "$3" \
	    "$([ "$pass" = 1 ] && echo PASS || echo MISS)"
}

t0=$EPOCHREALTIME
if [ ! -f "$WORK/done" ]; then
	echo "generating in $WORK ..."
	rm -rf "$TREE" "$BIG" "$XDG_CACHE_HOME"
	generate
	touch "$WORK/done"
fi
TREE_BYTES=$(find "$TREE" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
TREE_FILES=$(find "$TREE" -type f | wc -l)
BIG_BYTES=$(stat -c %s "$BIG")
printf 'inputs: %d files, %.2f GiB tree + %.2f GiB file (%.0f s)\n' \
    "$TREE_FILES" "$(echo "$TREE_BYTES / 2^30" | bc -l)" \
    "$(echo "$BIG_BYTES / 2^30" | bc -l)" "$(echo "$EPOCHREALTIME - $t0" | bc -l)"

# Untimed: page cache warm for everyone, the answers checked against the
# spec's pipeline, and the hash cache filled (twice, since a file written
# less than a second before is not cached).
want=$(cd "$TREE" && find . -type f | sed 's|^\./||' | sort |
    xargs -P2 -n64 sha256sum | sort -k2 | sha256sum | cut -c1-64)
[ "$("$CALOPS" hash --no-cache "$TREE")" = "$want  $TREE/" ] ||
    { echo "bench_hash: the tree hash is not the pipeline's" >&2; exit 1; }
[ "$("$CALOPS" hash --no-cache "$BIG" | cut -c1-64)" = \
    "$(openssl dgst -sha256 -r "$BIG" | cut -c1-64)" ] ||
    { echo "bench_hash: the file hash is not openssl's" >&2; exit 1; }
"$CALOPS" hash "$TREE" >/dev/null
sleep 1
[ "$("$CALOPS" hash "$TREE")" = "$want  $TREE/" ] ||
    { echo "bench_hash: the cached tree hash is wrong" >&2; exit 1; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -a cold xa ceil2 big dgst ceil1 warm
for ((r = 0; r < ROUNDS; r++)); do
	cold+=("$(elapsed "$CALOPS" hash --no-cache "$TREE")")
	xa+=("$(elapsed xargs_sha256sum)")
	ceil2+=("$(echo "$TREE_BYTES / $(speed -multi 2)" | bc -l)")
	big+=("$(elapsed "$CALOPS" hash --no-cache "$BIG")")
	dgst+=("$(elapsed openssl dgst -sha256 "$BIG")")
	ceil1+=("$(echo "$BIG_BYTES / $(speed)" | bc -l)")
	warm+=("$(elapsed "$CALOPS" hash "$TREE")")
	printf 'round %d/%d: tree %.3f xargs %.3f ceil2 %.3f |' $((r + 1)) \
	    "$ROUNDS" "${cold[r]}" "${xa[r]}" "${ceil2[r]}"
	printf ' file %.3f dgst %.3f ceil1 %.3f | warm %.4f\n' "${big[r]}" \
	    "${dgst[r]}" "${ceil1[r]}" "${warm[r]}"
done

m_cold=$(median "${cold[@]}"); m_xa=$(median "${xa[@]}")
m_ceil2=$(median "${ceil2[@]}"); m_big=$(median "${big[@]}")
m_dgst=$(median "${dgst[@]}"); m_ceil1=$(median "${ceil1[@]}")
m_warm=$(median "${warm[@]}")

row() {
	printf '    %-34s %8.4f s  %6.2f GB/s\n' "$1" "$2" \
	    "$(echo "$3 / $2 / 10^9" | bc -l)"
}
echo
echo "calops hash benchmark: $(nproc) cores, medians of $ROUNDS interleaved rounds"
echo "load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(a) cold tree: $TREE_FILES files, $TREE_BYTES bytes"
row "calops hash --no-cache TREE" "$m_cold" "$TREE_BYTES"
row "find | xargs -0 -P2 -n64 sha256sum" "$m_xa" "$TREE_BYTES"
row "openssl speed -multi 2 (ceiling)" "$m_ceil2" "$TREE_BYTES"
verdict "throughput / ceiling" "$(echo "$m_ceil2 / $m_cold" | bc -l)" 0.85
verdict "speed-up over xargs sha256sum" "$(echo "$m_xa / $m_cold" | bc -l)" 6
printf '    %-34s %8.2f   (the most any hasher could reach)\n' \
    "speed-up of the ceiling over xargs" "$(echo "$m_xa / $m_ceil2" | bc -l)"
echo "(b) one file: $BIG_BYTES bytes"
row "calops hash --no-cache FILE" "$m_big" "$BIG_BYTES"
row "openssl dgst -sha256 FILE" "$m_dgst" "$BIG_BYTES"
row "openssl speed, one core (ceiling)" "$m_ceil1" "$BIG_BYTES"
verdict "speed-up over openssl dgst" "$(echo "$m_dgst / $m_big" | bc -l)" 1.1
verdict "throughput / one-core ceiling" "$(echo "$m_ceil1 / $m_big" | bc -l)" 0.9
echo "(c) warm tree (cache filled) against the cold pass"
printf '    %-34s %8.4f s\n' "calops hash TREE (warm)" "$m_warm"
printf '    %-34s %8.4f s\n' "calops hash --no-cache TREE (cold)" "$m_cold"
verdict "cold / warm" "$(echo "$m_cold / $m_warm" | bc -l)" 50
