#!/bin/bash
# stderr_test.sh: what calops says on stderr quotes what it was given, and
# no escape sequence in it reaches the terminal (base/text.h,
# text_guard_stderr).  Arguments holding OSC 52 (a clipboard write), CSI 2J
# (clear the screen), BEL, a C1 CSI, a newline and bytes that are not UTF-8
# are given to each command and to getopt: stderr holds no raw ESC, BEL or
# C1 control, each message stays one line, and the text is still there to
# read (ESC as ^[, BEL as ^G, LF as ^J, U+009B as <U+009B>, 0xff as \xff).
# Valid UTF-8 passes, in the C locale too.  The usage texts keep their lines.
#
#	stderr_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: stderr_test.sh CALOPS_BINARY}
T=$(mktemp -d /tmp/calops-stderr-test.XXXXXX)
export XDG_STATE_HOME=$T/state CALOPS_JOBS_DIR=$T/jobs
FAILED=0
trap 'rm -rf "$T"' EXIT

say() { printf 'stderr_test: %s\n' "$*"; }
fail() { say "FAIL: $*"; FAILED=1; }

OSC=$'\e]52;c;SGVsbG8=\a'
CSI=$'\e[2J'
C1=$'\xc2\x9b31m'

# check NAME LINES WANT CMD...: CMD's stderr holds no raw ESC, BEL or C1
# control, has LINES lines (0: any), and holds WANT.
check() {
	local name=$1 lines=$2 want=$3
	shift 3
	"$@" >/dev/null 2>"$T/err"
	if python3 - "$T/err" "$lines" "$want" <<'EOF'; then
import re, sys
err = open(sys.argv[1], "rb").read()
lines, want = int(sys.argv[2]), sys.argv[3].encode()
bad = [b for b in (b"\x1b", b"\x07", b"\x9b") if b in err.replace(b"\xc2\x9b", b"\x9b")]
if bad or re.search(rb"\xc2[\x80-\x9f]", err):
	sys.exit("raw control bytes %r in %r" % (bad, err))
if lines and err.count(b"\n") != lines:
	sys.exit("%d lines, not %d: %r" % (err.count(b"\n"), lines, err))
if want not in err:
	sys.exit("%r not in %r" % (want, err))
EOF
		say "ok: $name"
	else
		fail "$name"
	fi
}

check "tail of an id with OSC 52" 1 "no job 'x^[]52;c;SGVsbG8=^G'" \
    "$CALOPS" tail "x$OSC"
check "check of a path with CSI 2J" 1 "'/no^[[2J/such'" \
    "$CALOPS" check "/no$CSI/such"
check "kill of an id with a newline" 1 "no job 'a^Jb'" \
    "$CALOPS" kill $'a\nb'
check "run --id with OSC and a newline" 1 \
    "invalid job id '^[]52;c;SGVsbG8=^G^J'" "$CALOPS" run --id "$OSC"$'\n' -- true
check "getopt's own complaint" 0 "unrecognized option '--^[[2J'" \
    "$CALOPS" jobs "--$CSI"
check "the console's path" 1 "'/x<U+009B>31m\\xff': " \
    "$CALOPS" "/x$C1"$'\xff'
mkdir -m 0777 "$T/j$CSI"
check "a --jobs folder refused" 1 \
    "refusing the jobs folder '$T/j^[[2J': it is writable by its group and others" \
    "$CALOPS" kill --jobs "$T/j$CSI" nojob
check "no such job, no jobs folder" 1 "no job 'nojob'" \
    "$CALOPS" kill --jobs "$T/none" nojob
check "UTF-8 in the C locale" 1 "'/nö/such'" \
    env LC_ALL=C "$CALOPS" check /nö/such
# The usage keeps its lines.
"$CALOPS" kill 2>"$T/err"
[ "$(head -1 "$T/err")" = "usage: calops kill ID [--grace SECONDS] [--jobs DIR]" ] &&
    [ "$(wc -l <"$T/err")" -gt 3 ] || fail "the usage lost its lines: $(cat "$T/err")"

exit $FAILED
