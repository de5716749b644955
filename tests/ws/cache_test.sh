#!/bin/bash
# cache_test.sh: the hash cache trusts nothing it finds (issue 27;
# workspace.md §1 "How files are read").  A tampered source file must fail
# G0 whatever the cache holds: an entry forged for it (the tampered file's
# identity, the true file's SHA-256) is not used, but said, when the cache
# file was edited by someone without the user's key, and when the file or
# its folder is someone else's, writable by others or a link, even with a
# valid HMAC; so is a key that others may read.  With the key (root reads
# it here) and everything the user's own, the same forgery is used: the
# control that shows the forger works.
#
#	cache_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: cache_test.sh CALOPS_BINARY}
SRC=${CALOPS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d /tmp/calops-cache-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0
fail() { echo "cache_test: FAIL: $*"; failed=1; }

export XDG_CACHE_HOME=$T/cache XDG_STATE_HOME=$T/state
CACHE=$XDG_CACHE_HOME/calops/hashes
KEY=$XDG_STATE_HOME/calops/hashcache.key
WS=$T/ws
LIC=$WS/00-source/hf-config/LICENSE
cp -R "$SRC/share/examples/complete" "$WS" || exit 2
GOOD=$(sha256sum "$LIC" | cut -c1-64)

# g0 WANT STDERR_RE WHAT: calops check --gate G0 exits WANT (0 pass, 1
# fail) and says STDERR_RE on stderr ('' for nothing).
g0() {
	"$CALOPS" check --gate G0 "$WS" >"$T/out" 2>"$T/err"
	local rc=$?
	[ "$rc" -eq "$1" ] || fail "$3: G0 exits $rc, not $1 ($(cat "$T/err"))"
	if [ -z "$2" ]; then
		[ -s "$T/err" ] && fail "$3: stderr '$(cat "$T/err")'"
	elif ! grep -Eq -- "$2" "$T/err"; then
		fail "$3: stderr '$(cat "$T/err")' does not match /$2/"
	fi
}

# forge [KEYFILE]: give the cache's entry for the tampered LICENSE the
# true file's SHA-256, in place (owner and mode kept).  The old format's
# checks are not secret and are recomputed, as an attacker would; the HMAC
# only with the key.
forge() {
	python3 - "$CACHE" "$LIC" "$GOOD" "${1:-}" <<'EOF'
import hashlib, hmac, os, struct, sys
cache, lic, good, keyfile = sys.argv[1:5]
M = (1 << 64) - 1
def mix64(h):
    h ^= h >> 30; h = (h * 0xbf58476d1ce4e5b9) & M
    h ^= h >> 27; h = (h * 0x94d049bb133111eb) & M
    return h ^ (h >> 31)
def check(b):
    h = 0x243f6a8885a308d3
    for i in range(0, len(b) - len(b) % 8, 8):
        h = mix64(h ^ int.from_bytes(b[i:i + 8], "little"))
    r = b[len(b) - len(b) % 8:]
    if r:
        h = mix64(h ^ int.from_bytes(r.ljust(8, b"\0"), "little") ^
            (len(r) << 56))
    return (h ^ (h >> 32)) & 0xffffffff
st = os.stat(lic)
key = struct.pack("<QQQqq", st.st_dev, st.st_ino, st.st_size,
    st.st_mtime_ns, st.st_ctime_ns)
data = bytearray(open(cache, "rb").read())
version, = struct.unpack_from("<I", data, 8)
tag = 32 if version >= 3 else 0
for off in range(32, len(data) - tag, 80):
    if bytes(data[off:off + 40]) == key:
        data[off + 40:off + 72] = bytes.fromhex(good)
        if version < 3:
            struct.pack_into("<I", data, off + 76, check(data[off:off + 76]))
        break
else:
    sys.exit("forge: no entry for the tampered file")
if tag and keyfile:
    k = open(keyfile, "rb").read()
    data[-32:] = hmac.new(k, bytes(data[:-32]), hashlib.sha256).digest()
with open(cache, "r+b") as f:
    f.write(data)
EOF
}

sleep 1.1			# older than a second: cached for good
g0 0 '' "a first check"
[ -f "$CACHE" ] || fail "no cache file after a check"
if [ -f "$KEY" ]; then
	[ "$(stat -c %a "$KEY")" = 600 ] || fail "the key is not 0600"
	[ "$(stat -c %s "$KEY")" = 32 ] || fail "the key is not 32 bytes"
fi

# The tampered file, same size, hashed once so that the cache knows it.
python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read())
b[0] ^= 0x20; open(p, "wb").write(b)' "$LIC"
sleep 1.1
g0 1 '' "the tampered file"
cp -p "$CACHE" "$T/hashes.real"

# 1. The cache file's bytes edited, without the key.
forge || fail "cannot forge"
g0 1 'ignoring the hash cache .*authentication code' "an edited cache"
g0 1 '' "an edited cache, replaced by the check before"
cp -p "$T/hashes.real" "$CACHE"

# 2. With the key, everything the user's: the forgery holds (control).
if [ -f "$KEY" ]; then
	forge "$KEY" || fail "cannot forge"
	g0 0 '' "the control, a cache forged with the key"
	cp -p "$CACHE" "$T/hashes.forged"
fi
restore() {
	chmod 700 "$XDG_CACHE_HOME/calops"
	rm -f "$CACHE"
	cp -p "$T/hashes.${1:-forged}" "$CACHE"
	chmod 600 "$CACHE"
}

# 3. A forged cache that is writable by others, in a folder writable by
# others, a link, or another user's: refused and said.
if [ -f "$T/hashes.forged" ]; then
	restore
	chmod 666 "$CACHE"
	g0 1 "refusing .*hashes.* writable by .*chmod go-w" "a cache mode 0666"
	restore
	chmod 777 "$XDG_CACHE_HOME/calops"
	g0 1 "refusing the hash cache folder .*writable" "a folder mode 0777"
	restore
	mv "$CACHE" "$T/elsewhere"
	ln -s "$T/elsewhere" "$CACHE"
	g0 1 "refusing .*hashes.* symbolic link" "a cache that is a link"
	restore
	if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
		chown nobody "$CACHE"
		g0 1 "refusing .*hashes.* belongs to another user" \
		    "a cache of another user"
		restore
		chown nobody "$XDG_CACHE_HOME/calops"
		g0 1 "refusing the hash cache folder .*another user" \
		    "a folder of another user"
		chown root "$XDG_CACHE_HOME/calops"
	else
		echo "cache_test: skipped the cache of another user: not" \
		    "root (chown needs it)"
	fi
	# 4. A key others may read is no key.
	restore
	chmod 644 "$KEY"
	g0 1 "refusing the hash cache key .*chmod 600" "a key mode 0644"
	chmod 600 "$KEY"
	g0 0 '' "the control again, the key fixed"
	# 5. --no-cache reads nothing of it.
	"$CALOPS" check --no-cache --gate G0 "$WS" >/dev/null 2>&1
	[ $? -eq 1 ] || fail "--no-cache did not fail the tampered file"
else
	fail "no key in '$KEY': the cache is not authenticated"
fi

[ "$failed" -eq 0 ] && echo "cache_test: ok"
exit "$failed"
