# lib.sh: what the tests of SSH hosts share (sourced): the checks that a
# loopback lab (share/sshlab.sh) can run here, and a folder for it.  They
# need say, skip and fail: the term and release tests define their own
# before, the tests of this folder call remote_test below.
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

# remote_test NAME [exit]: what a test of this folder sets up first (after
# it sourced this file): SRC, LABSH, PY, START and FAILED, and say, skip and
# fail, which marks the test failed and goes on, or with "exit" ends it.
remote_test() {
	SRC=$(cd "$(dirname "$0")/../.." && pwd)
	LABSH=$SRC/share/sshlab.sh
	PY=/usr/bin/python3
	[ -x "$PY" ] || PY=python3
	FAILED=0
	START=$(date +%s%3N)
	REMOTE_TEST=$1
	REMOTE_FAIL=${2:-}
	say() {
		printf '%s: %5d ms: %s\n' "$REMOTE_TEST" \
		    $(($(date +%s%3N) - START)) "$*"
	}
	fail() {
		say "FAIL: $*"
		FAILED=1
		[ "$REMOTE_FAIL" != exit ] || exit 1
	}
	skip() { say "SKIP: $*"; exit 77; }
}

# sshlab_prereqs: skip (exit 77) without sshd, ssh or ssh-keygen, when your
# login shell is no shell, or when none of the test's folder, $TMPDIR and
# $HOME would pass sshd's StrictModes (see sshlab.sh); else BASE is the
# folder to make labs in.  PATH_NO_BLANK=1: one whose path has no blank.
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
		# A differential test writes its paths into ssh_config words
		# and reads `ssh -G`'s blank-separated lists back: it asks for
		# a folder without a blank (PATH_NO_BLANK=1).
		case $d in *' '*) [ -n "${PATH_NO_BLANK:-}" ] && continue ;; esac
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

# two_sshds NAME: for the differential tests against OpenSSH (sshlab_prereqs
# first; CALOPS and LABSH set): a new folder T under BASE, removed on exit
# with what runs in it; a loopback lab of one host in L (its sshd has an
# ED25519 host key, on PORT_ED; USER_ and the identity ID reach it) and a
# second sshd with an ECDSA key (sshd_ecdsa) in T/ec, on PORT_EC.
two_sshds() {
	T=$(mktemp -d "$BASE/calops-$1.XXXXXX")
	L=$T/lab
	EC_PID=
	trap two_sshds_down EXIT
	sh "$LABSH" start "$L" 1 --calops "$CALOPS" >"$T/start.log" 2>&1 ||
		{ cat "$T/start.log"; fail "the lab did not start"; }
	USER_=$(sed -n 's/^    user: "\(.*\)"$/\1/p' "$L/lab.yaml")
	ID=$L/client/id_ed25519
	PORT_ED=$(sed -n 's/^Port //p' "$L/host1/sshd_config")
	sshd_ecdsa "$T/ec" "$L/host1/sshd_config"
}

two_sshds_down() {
	sh "$LABSH" stop "$L" >/dev/null 2>&1
	[ -n "$EC_PID" ] && kill "$EC_PID" 2>/dev/null
	rm -rf "$T"
}

# sshd_ecdsa DIR SSHD_CONFIG [MORE_KEY]: a second sshd, SSHD_CONFIG's (a
# loopback lab's host) with an ECDSA host key of its own in DIR/hostkey
# (and the host key MORE_KEY too, when given), on a free
# port: its pid in EC_PID (the caller kills it), its port in PORT_EC.
# Fails (via fail) when it does not start.
sshd_ecdsa() {
	local dir=$1 conf=$2 try n
	mkdir -p "$dir"
	ssh-keygen -q -t ecdsa -b 256 -N '' -f "$dir/hostkey" </dev/null
	for try in 1 2 3 4 5 6 7 8; do
		PORT_EC=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000))
		sed -e "s|^Port .*|Port $PORT_EC|" \
		    -e "s|^HostKey .*|HostKey \"$dir/hostkey\"${3:+\\nHostKey \"$3\"}|" \
		    -e "s|^PidFile .*|PidFile \"$dir/sshd.pid\"|" \
		    "$conf" >"$dir/sshd_config"
		: >"$dir/sshd.log"
		/usr/sbin/sshd -D -f "$dir/sshd_config" -E "$dir/sshd.log" \
		    </dev/null >/dev/null 2>&1 &
		EC_PID=$!
		for n in $(seq 50); do
			grep -q "Server listening" "$dir/sshd.log" && return 0
			kill -0 "$EC_PID" 2>/dev/null || break
			sleep 0.05
		done
		kill "$EC_PID" 2>/dev/null
		EC_PID=
	done
	fail "the ECDSA sshd did not start: $(cat "$dir/sshd.log")"
}
