# hostsjson.sh: what `calops hosts --json` said, for the tests of SSH
# hosts (sourced, after they define fail, PY and T, the file in
# $T/out.json).

# field HOST KEY [JUMP]: KEY of HOST (of its JUMPth jump host) in
# $T/out.json, what `calops hosts --json` printed; "" when none.
field() {
	$PY - "$T/out.json" "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for h in d["hosts"]:
    if h["name"] == sys.argv[2]:
        if len(sys.argv) > 4:
            j = h.get("jumps", [])
            h = j[int(sys.argv[4])] if int(sys.argv[4]) < len(j) else {}
        v = h.get(sys.argv[3], "")
        print(json.dumps(v) if not isinstance(v, str) else v)
EOF
}

# expect HOST STATE [TEXT...]: HOST is in STATE, its error holding each
# TEXT (fail and CASE: the test's).
expect() {
	local h=$1 st=$2 t got err
	shift 2
	got=$(field "$h" state)
	err=$(field "$h" error)
	[ "$got" = "$st" ] || fail "$CASE: $h is '$got', not '$st' ($err)"
	for t in "$@"; do
		case $err in *"$t"*) ;; *) fail "$CASE: $h's error lacks" \
			"'$t': $err" ;; esac
	done
}
