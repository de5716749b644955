# lib.sh: what the tests of SSH hosts share (sourced, after they define
# say, skip and fail): the checks that a loopback lab (share/sshlab.sh) can
# run here, and a folder for it.
#
# safe DIR: sshd's StrictModes would take files under DIR (as sshlab.sh
# checks it: every folder up to / or your home yours or root's, and
# writable by nobody else).
safe() {
	local p=$1 home uid mode
	home=$(cd ~ 2>/dev/null && pwd -P)
	p=$(cd "$p" 2>/dev/null && pwd -P) || return 1
	while :; do
		read -r uid mode < <(stat -c '%u %a' "$p") || return 1
		[ "$uid" = 0 ] || [ "$uid" = "$(id -u)" ] || return 1
		[ $((0$mode & 022)) = 0 ] || return 1
		[ "$p" = / ] || [ "$p" = "$home" ] && return 0
		p=$(dirname "$p")
	done
}

# sshlab_prereqs: skip (exit 77) without sshd, ssh or ssh-keygen, when your
# login shell is no shell, or when none of the test's folder, $TMPDIR and
# $HOME would pass sshd's StrictModes (see sshlab.sh); else BASE is the
# folder to make labs in.
sshlab_prereqs() {
	if [ ! -x /usr/sbin/sshd ] && ! command -v sshd >/dev/null; then
		skip "no sshd (openssh-server; share/bootstrap.sh test" \
		    "installs it)"
	fi
	command -v ssh >/dev/null && command -v ssh-keygen >/dev/null ||
		skip "no ssh or ssh-keygen (openssh-client)"
	case $(getent passwd "$(id -u)" | cut -d: -f7) in
	*/nologin | */false) skip "your login shell is no shell: sshd" \
		"cannot run commands as you" ;;
	esac

	BASE=
	for d in "$PWD" "${TMPDIR:-}" "$HOME"; do
		# Characters sshlab.sh refuses in a lab's path.
		case $d in *[\"\\\$%#\':[:cntrl:]]*) continue ;; esac
		if [ -n "$d" ] && [ -w "$d" ] && safe "$d"; then
			BASE=$d
			break
		fi
	done
	[ -n "$BASE" ] || skip "no folder here passes sshd's StrictModes with a" \
		"path sshlab.sh takes (tried $PWD, ${TMPDIR:-no TMPDIR} and" \
		"${HOME:-no HOME})"
}

# bastion_prereqs: skip (77) where a lab cannot be behind a bastion
# (sshlab.sh --bastion): not root, no systemd-socket-activate, no network
# namespaces.
bastion_prereqs() {
	[ "$(id -u)" = 0 ] ||
		skip "a lab behind a bastion needs root (unshare -n)"
	command -v systemd-socket-activate >/dev/null ||
		skip "no systemd-socket-activate (systemd)"
	unshare --net true 2>/dev/null || skip "no network namespaces here"
}

# lab_up N [CLEANUP]: a loopback lab of N hosts running $CALOPS, in $L, a
# new folder under BASE (sshlab_prereqs first); LAB_FLAGS, more words for
# sshlab.sh start (--bastion).  On exit the lab is
# stopped (a session left frozen in $STOPPED let go first), its folder
# removed, then CLEANUP runs (the caller's own exit trap).  Fails with what
# sshlab.sh said in $LAB_LOG.
lab_up() {
	LABDIR=$(mktemp -d "$BASE/calops-lab.XXXXXX")
	L=$LABDIR/lab
	LAB_CLEANUP=${2:-}
	trap lab_down EXIT
	LAB_LOG=$(sh "$SRC/share/sshlab.sh" start "$L" "$1" \
	    --calops "$CALOPS" ${LAB_FLAGS:-} 2>&1)
}

# lab_on_host1 OUT WS [YAML]: the lab's file, $L/lab.yaml, written to OUT
# with one workspace, WS on host1, and YAML (more top-level keys: a gates:
# map) after it.  WS goes as a JSON string, which YAML reads as a
# double-quoted one: a path with quotes or a newline comes through whole.
lab_on_host1() {
	"${PY:-python3}" - "$L/lab.yaml" "$1" "$2" "${3:-}" <<'EOF'
import json, sys
src, out, ws, extra = sys.argv[1:]
text = open(src).read()
head, rest = text.split("workspaces:\n", 1)
runner = rest.split("runner:", 1)[1]
open(out, "w").write(head + "workspaces:\n  - {host: host1, path: %s}\n"
    "%srunner:%s" % (json.dumps(ws), extra, runner))
EOF
}

lab_down() {
	[ -n "${STOPPED:-}" ] && kill -CONT $STOPPED 2>/dev/null
	sh "$SRC/share/sshlab.sh" stop "$L" >/dev/null 2>&1
	rm -rf "$LABDIR"
	[ -z "$LAB_CLEANUP" ] || "$LAB_CLEANUP"
}
