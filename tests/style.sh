#!/bin/sh
# style.sh: the style rules a reviewer would otherwise have to remember.
#
#   sh tests/style.sh SOURCE_DIR BUILD_DIR     (ctest runs it as `style`)
#
# 1. No banned call: strcpy strcat sprintf vsprintf gets atoi atol system
#    popen (bounded or checked forms exist for each).
# 2. No raw allocation outside src/base/xmalloc.c: the x* family never
#    returns NULL (tests/bench/bench_console_helper.c is a standalone pty
#    driver built without calops' libraries, and is exempt).
# 3. Every exported symbol of a library object starts with its file's name
#    (artifact_doc in artifact.c), so a name says where it lives; the
#    prelude's allocators in xmalloc.c are the one exception.
# 4. No line of C wider than 80 columns (tabs of 8) but a line holding a
#    string literal, which stays whole so that a message can be grepped.
# 5. git diff --check: no trailing blanks, no blank line at the end of a
#    file (the fuzz corpus is test data, and exempt).
# Each rule prints the places that break it; the exit status is 1 if any.
set -u
src=$1
build=$2
cd "$src" || exit 2
bad=0
broke() { printf 'style: %s\n' "$*"; bad=1; }

cfiles=$(find src views remote share/sim tests -name '*.[ch]' \
    ! -path 'tests/fuzz/corpus/*' | sort)

# 1 and 2: calls at the start of a token, outside comment lines.
hits=$(grep -nE '(^|[^_[:alnum:]])(strcpy|strcat|sprintf|vsprintf|gets|atoi|atol|system|popen)[[:space:]]*\(' \
    $cfiles | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
[ -z "$hits" ] || broke "banned calls:
$hits"
hits=$(grep -nE '(^|[^_[:alnum:]])(malloc|calloc|realloc|reallocarray|strdup|strndup|asprintf|vasprintf)[[:space:]]*\(' \
    $cfiles | grep -vE '^(src/base/xmalloc.c|tests/bench/bench_console_helper.c):' |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
[ -z "$hits" ] || broke "raw allocation outside xmalloc.c:
$hits"

# 3: nm over the layers' objects (the *_layer shared objects reuse them),
# a line each: the build folder's path may hold a blank.  An object nm
# cannot read is itself a failure, not an object with nothing to say.
objs=$(find "$build/CMakeFiles" -path '*/calops_*.dir/*' -name '*.c.o' |
    grep -v '_layer.dir/' | sort)
[ -n "$objs" ] || broke "no object files under '$build' (build first)"
syms=$(mktemp) || exit 2
while IFS= read -r o; do
	base=$(basename "$o" .c.o)
	[ "$base" = xmalloc ] && continue
	if ! nm -g --defined-only "$o" >"$syms"; then
		broke "nm cannot read '$o'"
		continue
	fi
	awk -v b="$base" '
	    $2 ~ /^[TDBRC]$/ && $3 !~ /^__/ && $3 != b && index($3, b "_") != 1 {
		printf "style: %s.c exports %s, not %s_*\n", b, $3, b; bad = 1
	    }
	    END { exit bad }' "$syms" || bad=1
done <<EOF
$objs
EOF
rm -f "$syms"

# 4: 80 columns, counted in characters (python3: awk here counts bytes).
out=$(python3 -c '
import sys
for f in sys.argv[1:]:
    with open(f, encoding="utf-8", errors="replace") as fp:
        wide = [str(i) for i, l in enumerate(fp, 1)
            if len(l.rstrip("\n").expandtabs(8)) > 80 and "\"" not in l]
    if wide:
        print("%s: wider than 80 columns at line %s" % (f, " ".join(wide[:3])))
' $cfiles)
[ -z "$out" ] || broke "$out"

# 5: whitespace, on the work tree against an empty tree.
if git rev-parse --git-dir >/dev/null 2>&1; then
	empty=$(git hash-object -t tree /dev/null)
	out=$(git diff --check "$empty" -- . ':!tests/fuzz/corpus' 2>&1)
	[ -z "$out" ] || broke "git diff --check:
$out"
fi

[ $bad = 0 ] && echo "style: ok"
exit $bad
