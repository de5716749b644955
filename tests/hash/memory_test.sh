#!/bin/bash
# memory_test.sh: hashing a file never maps or reads it whole (issue 10,
# item 5): `calops hash` of a 2 GiB sparse file, on one thread and with
# threads to spare (--threads 4, and the default), keeps its peak resident
# set (VmHWM: ru_maxrss of the child, from wait4) under
# LIMIT_MB, and prints what sha256sum prints.  The figures are printed.
#
# usage: tests/hash/memory_test.sh CALOPS
. "$(dirname "$0")/lib.sh" memory_test.sh "$@"
LIMIT_MB=64

# A sparse file costs no disk; a few bytes written make it not all zeros.
big=$work/package.bin
truncate -s 2G "$big"
printf 'head' | dd of="$big" conv=notrunc status=none
printf 'tail' | dd of="$big" bs=1 seek=$((2 * 1024 * 1024 * 1024 - 4)) \
    conv=notrunc status=none
want=$(sha256sum "$big")

# peak ARGS...: run calops ARGS..., its output in $work/out, its peak RSS
# in KiB in $work/rss; the status is calops's.
peak() {
	$PY - "$work/rss" "$CALOPS" "$@" >"$work/out" <<'EOF'
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, ru = os.wait4(pid, 0)
open(sys.argv[1], "w").write("%d\n" % ru.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
EOF
}

# Whatever the threads, one file is read by one of them, a buffer at a
# time: the others must not add to the peak.
for threads in 1 4 default; do
	args=(hash --no-cache)
	[ "$threads" = default ] || args+=(--threads "$threads")
	rc=0
	peak "${args[@]}" "$big" || rc=$?
	got=$(cat "$work/out")
	mb=$(($(cat "$work/rss") / 1024))
	if [ "$rc" -eq 0 ] && [ "$got" = "$want" ] &&
	    [ "$mb" -lt "$LIMIT_MB" ]; then
		ok "threads $threads: 2 GiB hashed with a peak RSS of $mb MB" \
		    "(limit $LIMIT_MB MB), as sha256sum: ${got%% *}"
	else
		bad "threads $threads: exit $rc, peak RSS $mb MB (limit" \
		    "$LIMIT_MB MB); '$got' vs sha256sum '$want'"
	fi
done

finish
