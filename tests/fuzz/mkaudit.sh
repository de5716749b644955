#!/bin/sh
# mkaudit.sh: write signed audit logs (share/doc/release.md §3) as fuzz_audit seeds,
# signed with a key made for this run and thrown away: no private key is
# kept in the tree.  It prints the new public key, which then replaces
# fuzz_pub in fuzz_audit.c (the seeds and that key go together).
#
#	tests/fuzz/mkaudit.sh [corpus/fuzz_audit]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/corpus/fuzz_audit}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
key=$tmp/key.pem
openssl genpkey -algorithm ed25519 -out "$key"
mkdir -p "$out"

prev=0000000000000000000000000000000000000000000000000000000000000000
seq=1
log=$tmp/log

# record KEY_ID ACTION FROM TO REASON: append one signed line to $log.
record() {
	body="{\"seq\":$seq,\"ts\":$((1788795730 + seq)),\"actor\":\"fuzz\",\"key_id\":\"$1\",\"action\":\"$2\",\"from\":$3,\"to\":$4,\"reason\":\"$5\",\"prev_sha256\":\"$prev\""
	printf '%s}' "$body" >"$tmp/msg"
	sig=$(openssl pkeyutl -sign -rawin -inkey "$key" -in "$tmp/msg" | base64 -w0)
	line="$body,\"sig\":\"$sig\"}"
	printf '%s\n' "$line" >>"$log"
	prev=$(printf '%s' "$line" | sha256sum | cut -c1-64)
	seq=$((seq + 1))
}

: >"$log"
record fuzz promote null 1 "first"
cp "$log" "$out/one-promote.jsonl"
record fuzz promote 1 2 "second"
record fuzz refused 2 3 "refused: bad signature"
record fuzz rollback 2 1 "rollback after soak"
cp "$log" "$out/history.jsonl"
# the same with a cut last line and a broken chain
head -c -1 "$log" >"$out/cut.jsonl"
sed '2d' "$log" >"$out/removed-line.jsonl"
echo "the seeds are signed by this key; put it in fuzz_audit.c as fuzz_pub:" >&2
openssl pkey -in "$key" -pubout
