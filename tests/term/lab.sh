# lab.sh: the console opens a lab file (share/doc/protocol.md §4) given as PATH, or
# the one the config folder names (lab.yaml there) when no PATH is given,
# and shows its first workspace on a local host; a lab whose workspaces are
# all on SSH hosts shows the first one's, evaluated there (its host not
# reachable here: the status bar says the board is not live); a lab with no
# workspace is refused with a message, not opened empty.
. "$(dirname "$0")/lib.sh"

start

# The bundled demo lab names the runtime-stage workspace on `local`.  Given
# as PATH it is opened as it is, not as the demo (no private copy).
launch "$SRC/share/examples/demo-lab.yaml"
wait_for "8 of 11 gates pass"
expect "at G7 Runtime runner · 8/11 pass"
reject "BLOCKED_COMPILER"
reject_re "^ demo"
keys q
wait_exit 0
[ ! -e "$TMP/state/calops/demo" ] || fail "a lab given as PATH made the demo copy"

# No PATH: lab.yaml in the config folder wins over the bundled demo.
mkdir -p "$TMP/config/calops"
cat >"$TMP/config/calops/lab.yaml" <<YAML
hosts:
  - {name: local, transport: local}
workspaces:
  - {host: local, path: $(yaml_str "$COMPLETE")}
YAML
launch
wait_for "11 of 11 gates pass"
expect "RELEASED · 11/11 pass"
reject_re "^ demo"
keys q
wait_exit 0
rm "$TMP/config/calops/lab.yaml"

# The faults screen's H picks the host shown from every host with its
# state, and refuses, saying why, those that cannot run faults: `spare` is
# reachable but has no workspace, `far` is not reachable.
cat >"$TMP/three-hosts.yaml" <<YAML
hosts:
  - {name: local, transport: local, chips: [0, 1]}
  - {name: spare, transport: local}
  - {name: far, transport: ssh, address: far.example.net}
workspaces:
  - {host: local, path: $(yaml_str "$COMPLETE")}
YAML
launch "$TMP/three-hosts.yaml"
wait_for "11 of 11 gates pass"
keys 6
wait_for "[6 Faults]"
expect "host local · chips 0-1"
keys H
wait_for "Show the faults of which host?"
wait_re "^ [▸] local +up"
expect_re "^   spare +up .* no workspace"
expect_re "^   far +(connecting|reconnecting|disconnected|refused) .* no workspace"
pick spare
wait_for "the lab file names no workspace on host 'spare'"
pick far
wait_for "the lab file names no workspace on host 'far'"
keys Escape
wait_gone "Show the faults of which host?"
expect "host local · chips 0-1"
keys Q
wait_exit 0

# A workspace whose path has blanks and a quote: the fault's command is
# shell-quoted, and its rows, wrapped where a blank or the width falls,
# read back through the shell as the very words the runner gets.
QDIR="$TMP/lab data/it's a long folder name for the command to wrap inside quotes"
mkdir -p "$QDIR"
cp -a "$COMPLETE" "$QDIR/" || fail "cannot copy the workspace"
cat >"$TMP/quoted.yaml" <<YAML
hosts:
  - {name: local, transport: local, chips: [0]}
workspaces:
  - {host: local, path: "$QDIR/complete"}
runner: calrt-sim --time-scale 3000
YAML
launch "$TMP/quoted.yaml"
wait_for "11 of 11 gates pass"
keys 6
wait_for "[6 Faults]"
wait_re "^ command  "
rows=$(screen | awk '/^ command  /{on=1; sub(/^ command/, "")}
	on && /^ chips /{exit} on {sub(/^ +/, ""); sub(/ +$/, ""); print}')
[ "$(printf '%s\n' "$rows" | wc -l)" -gt 1 ] ||
    fail "the command did not wrap: $rows"
eval "set -- $rows" || fail "the rows are not shell words: $rows"
while [ $# -gt 0 ] && [ "$1" != --calbin ]; do shift; done
[ "${2:-}" = "$QDIR/complete/05-calbin/package" ] ||
    fail "--calbin reads back as '${2:-}', not '$QDIR/complete/05-calbin/package'"
keys Q
wait_exit 0

# A lab with only SSH hosts: the board of its workspace there, not live
# while lab3 (which does not resolve here) is not up.
cat >"$TMP/ssh-lab.yaml" <<YAML
hosts:
  - {name: lab3, transport: ssh, address: lab3.example.net}
workspaces:
  - {host: lab3, path: /data/model-port/qwen3-1.7b}
YAML
launch "$TMP/ssh-lab.yaml"
WAIT_SECS=30 wait_re "lab3 (connecting|disconnected|reconnecting): board of"
keys q
wait_exit 0

# A lab with no workspace: a clear refusal, status 2.
printf 'hosts:\n  - {name: lab3, transport: ssh, address: x.example}\n' \
    >"$TMP/nows-lab.yaml"
launch "$TMP/nows-lab.yaml"
wait_exit 2
tm capture-pane -p -J -t test | grep -q "names no workspace" ||
    fail "no refusal message for a lab without workspaces"

# A broken lab file: file:line:col, status 2.
printf 'hosts:\n  - {name: x, transport: telnet}\n' >"$TMP/bad-lab.yaml"
launch "$TMP/bad-lab.yaml"
wait_exit 2
expect_re "bad-lab.yaml:2:[0-9]+: "

finish
