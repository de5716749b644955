#!/bin/bash
# list_test.sh: hostile file names through `calops hash` and `hash --list`,
# and what is neither a file nor a folder inside a hashed folder.
#
# usage: tests/hash/list_test.sh CALOPS
#
# A folder of names holding LF, CR, backslash, OSC 52, ESC [2J, a raw C1
# byte, U+202E, invalid UTF-8 and others: `hash --list` writes no raw
# control byte, one line per file, each reading back (sha256sum's \\ \n \r,
# and \xHH) as its name with its content's SHA-256; the tree hash is what
# coreutils' sha256sum gives for the same files.  Two folders whose raw
# listings read the same (a name holding LF and a forged line) get
# different tree hashes.  A FIFO or a socket in a folder is an error
# naming it, for `hash` and as G6's finding, and is never opened (that
# would wait forever: every run is under `timeout`).  A package whose
# file-sha256.txt sha256sum wrote for such names passes G6.
. "$(dirname "$0")/lib.sh" list_test.sh "$@"
top=$(cd "$(dirname "$0")/../.." && pwd)

# run_hash ARGS...: run `calops hash` (never longer than a minute: a FIFO
# opened would hang); its status in $rc, output in $work/out, $work/err.
run_hash() {
	rc=0
	timeout 60 "$CALOPS" hash "$@" >"$work/out" 2>"$work/err" || rc=$?
}

# The coreutils tree hash of a folder, NUL-separated so no name is split.
coreutils_tree() {
	(cd "$1" && find . -type f -printf '%P\0' | sort -z |
	    xargs -0 sha256sum -- | sha256sum | cut -c1-64)
}

# Make the hostile folder; names are bytes, so Python writes them.
$PY - "$work/hostile" <<'EOF'
import os, sys
top = os.fsencode(sys.argv[1])
names = [b"lf\nname", b"cr\rname", b"back\\slash", b"back\\nslash",
    b"osc\x1b]52;c;aGVsbG8=\x07", b"clear\x1b[2J", b"csi\x9b31m",
    b"c1\xc2\x9b31m", b"rlo\xe2\x80\xaegnp.exe", b"alm\xd8\x9c",
    b"bad\xff\xfe", b"tab\there", b"del\x7f", b"sp ace", b"-dash",
    b"caf\xc3\xa9", b"\\", b"d\n/\x1b", b"plain"]
for n in names:
    p = os.path.join(top, n)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(b"content of " + n)
EOF

# check_listing DIR: $work/out is DIR's listing, written for a terminal.
check_listing() {
	$PY - "$1" "$work/out" <<'EOF'
import hashlib, os, re, sys
top = os.fsencode(sys.argv[1])
out = open(sys.argv[2], "rb").read()
want = {}
for d, _, files in os.walk(top):
    for f in files:
        p = os.path.join(d, f)
        want[os.path.relpath(p, top)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
if not out.endswith(b"\n"):
    sys.exit("the listing does not end in LF")
# No raw control byte (C0 but LF, DEL, C1 as bytes or as UTF-8), no bidi
# control, nothing that is not UTF-8: only escapes reach the terminal.
text = out.decode("utf-8")	# raises on bytes that are not UTF-8
for ch in text:
    c = ord(ch)
    if (c < 0x20 and ch != "\n") or 0x7f <= c < 0xa0 or \
        0x202a <= c <= 0x202e or 0x2066 <= c <= 0x2069 or \
        c in (0x200e, 0x200f, 0x61c, 0xfeff, 0x2028, 0x2029):
        sys.exit("a raw U+%04X reaches the terminal" % c)
def unescape(s):
    out, i = bytearray(), 0
    while i < len(s):
        if s[i:i + 1] != b"\\":
            out += s[i:i + 1]; i += 1; continue
        e = s[i + 1:i + 2]
        if e in (b"\\", b"n", b"r"):
            out += {b"\\": b"\\", b"n": b"\n", b"r": b"\r"}[e]; i += 2
        elif e == b"x" and re.fullmatch(rb"[0-9a-f]{2}", s[i + 2:i + 4]):
            out.append(int(s[i + 2:i + 4], 16)); i += 4
        else:
            sys.exit("unknown escape in %r" % s)
    return bytes(out)
got = {}
for line in out[:-1].split(b"\n"):
    esc = line.startswith(b"\\")
    m = re.fullmatch(rb"([0-9a-f]{64})  (.+)", line[1:] if esc else line, re.S)
    if not m:
        sys.exit("not a listing line: %r" % line)
    name = unescape(m.group(2)) if esc else m.group(2)
    if name in got:
        sys.exit("%r listed twice" % name)
    got[name] = m.group(1).decode()
if got != want:
    sys.exit("listing %r != files %r" % (sorted(got.items()), sorted(want.items())))
print(len(got), "lines")
EOF
}

run_hash --no-cache --list "$work/hostile"
if [ "$rc" -eq 0 ] && n=$(check_listing "$work/hostile"); then
	ok "hash --list: hostile names, no raw control byte, $n read back"
else
	bad "hash --list of hostile names (exit $rc)"
	od -c "$work/out" | head -40
fi
run_hash --threads 1 --list "$work/hostile"		# the cache warm now
if [ "$rc" -eq 0 ] && check_listing "$work/hostile" >/dev/null; then
	ok "hash --list from the cache, on one thread: the same"
else bad "hash --list, warm"; fi

run_hash "$work/hostile"
want=$(coreutils_tree "$work/hostile")
if [ "$rc" -eq 0 ] && [ "$(cut -c1-64 "$work/out")" = "$want" ]; then
	ok "tree hash of hostile names = coreutils' ($want)"
else bad "tree hash $(cut -c1-64 "$work/out") != coreutils' $want"; fi

# A file argument and a folder argument with hostile names are escaped
# too, the folder's line ending in '/'.
esc=$(printf 'a\033]52;c;eA==\007b')
mkdir "$work/$esc"
printf x >"$work/$esc/f"
run_hash "$work/$esc/f" "$work/$esc"
if [ "$rc" -eq 0 ] && ! grep -q "$(printf '\033')" "$work/out" &&
    [ "$(grep -c '^\\[0-9a-f]\{64\}  .*a\\x1b\]52;c;eA==\\x07b' \
    "$work/out")" -eq 2 ] && tail -n 1 "$work/out" | grep -q '/$'; then
	ok "hash FILE DIR: escaped arguments"
else bad "hash FILE DIR with an escape sequence in the name"; cat -v "$work/out"; fi

# Raw, these two listings are the same text: folder a holds one file whose
# name is "a", LF and b's listing line; folder b holds a and b.
bhex=$(printf B | sha256sum | cut -c1-64)
mkdir -p "$work/a" "$work/b"
printf A >"$work/a/a
$bhex  b"
printf A >"$work/b/a"
printf B >"$work/b/b"
raw_a=$(cd "$work/a" && for f in *; do printf '%s  %s\n' \
    "$(sha256sum <"$f" | cut -c1-64)" "$f"; done)
raw_b=$(cd "$work/b" && for f in *; do printf '%s  %s\n' \
    "$(sha256sum <"$f" | cut -c1-64)" "$f"; done)
run_hash "$work/a" "$work/b"
ha=$(sed -n 1p "$work/out" | cut -c1-64)
hb=$(sed -n 2p "$work/out" | cut -c1-64)
if [ "$raw_a" = "$raw_b" ] && [ "$rc" -eq 0 ] && [ "$ha" != "$hb" ] &&
    [ "$ha" = "$(coreutils_tree "$work/a")" ]; then
	ok "forged listing line: raw listings alike, tree hashes differ"
else bad "forged listing: raw alike '$([ "$raw_a" = "$raw_b" ] && echo y)'," \
    "tree hashes $ha $hb"; fi

# A FIFO, a socket: errors naming them, never opened.
mkdir -p "$work/special/sub"
printf x >"$work/special/a"
mkfifo "$work/special/sub/fifo"
run_hash "$work/special"
if [ "$rc" -eq 1 ] && [ ! -s "$work/out" ] &&
    grep -qF "cannot hash '$work/special/sub/fifo': not a regular file: a FIFO" \
    "$work/err"; then
	ok "hash DIR with a FIFO: $(cat "$work/err")"
else bad "hash DIR with a FIFO: exit $rc"; cat "$work/out" "$work/err"; fi
run_hash --list "$work/special/sub/fifo"
if [ "$rc" -eq 1 ] && grep -q "not a regular file: a FIFO" "$work/err"; then
	ok "hash FIFO: $(cat "$work/err")"
else bad "hash FIFO: exit $rc"; cat "$work/err"; fi
rm "$work/special/sub/fifo"
$PY -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
    "$work/special/sock"
run_hash "$work/special"
if [ "$rc" -eq 1 ] && grep -q "/sock': not a regular file: a socket" \
    "$work/err"; then
	ok "hash DIR with a socket: exit 1"
else bad "hash DIR with a socket: exit $rc"; cat "$work/err"; fi

# G6 on a copy of the complete example: a FIFO in package/ fails
# G6.hashes with a finding that names it.
ws=$work/ws
pkg=$ws/05-calbin/package
cp -a "$top/share/examples/complete" "$ws"
# g6: check G6; its exit status in $crc, and in $out G6's status and its
# G6.hashes and G6.bound messages, one a line.
g6() {
	crc=0
	timeout 120 "$CALOPS" check --json --gate G6 "$ws" >"$work/check.json" ||
	    crc=$?
	out=$($PY - "$work/check.json" <<'EOF'
import json, sys
g = [g for g in json.load(open(sys.argv[1]))["gates"] if g["id"] == "G6"][0]
print(g["status"])
for f in g["findings"]:
    if f["check"] in ("G6.hashes", "G6.bound"):
        print(f["check"], f["message"])
EOF
)
}
mkfifo "$pkg/chip0/fifo"
g6
if [ "$crc" -eq 1 ] && [ "$(sed -n 1p <<<"$out")" = fail ] &&
    grep -q "G6.hashes cannot hash '.*/05-calbin/package/chip0/fifo': not a regular file: a FIFO" <<<"$out"; then
	ok "G6 with a FIFO in package/: $(sed -n 2p <<<"$out")"
else bad "G6 with a FIFO in package/: exit $crc"; echo "$out"; fi
rm "$pkg/chip0/fifo"

# Hostile names in package/, file-sha256.txt as sha256sum writes it and
# the validator's tree hash its SHA-256: G6 passes.
cp "$work/hostile/lf
name" "$work/hostile/back\\slash" "$work/hostile/cr"$'\r'"name" \
    "$work/hostile/osc"$'\033'"]52;c;aGVsbG8="$'\a' "$pkg/"
(cd "$pkg" && find . -type f -printf '%P\0' | sort -z |
    xargs -0 sha256sum --) >"$ws/05-calbin/file-sha256.txt"
tree=$(sha256sum <"$ws/05-calbin/file-sha256.txt" | cut -c1-64)
$PY - "$ws/05-calbin/validation.json" "$tree" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
v["package_tree_sha256"] = sys.argv[2]
json.dump(v, open(sys.argv[1], "w"), indent=2)
EOF
g6
run_hash "$pkg"
if [ "$(sed -n 1p <<<"$out")" = pass ] &&
    [ "$(cut -c1-64 "$work/out")" = "$tree" ]; then
	ok "G6 passes sha256sum's listing of hostile names (tree $tree)"
else bad "G6 on sha256sum's listing of hostile names"; echo "$out"; fi

finish
