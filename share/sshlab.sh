#!/bin/sh
# sshlab.sh: a lab of throwaway SSH hosts on this machine's loopback, for
# trying calops' SSH hosts and testing them with no lab at hand (issue 11).
#
#   share/sshlab.sh start DIR [N] [--calops PATH] [--ports LOW-HIGH]
#                       [--bastion]
#                       N sshd "lab hosts" host1..hostN (default 3) on
#                       127.0.0.1, each on a free port of LOW-HIGH
#                       (default 20000-32767), running calops PATH (default
#                       build/calops, else calops on PATH); --bastion: behind
#                       a bastion (below)
#   share/sshlab.sh stop DIR      stop them, and the jobs still running on
#                                 them; stopping a stopped lab is no error
#   share/sshlab.sh status DIR    each host, its port and its sshd; exit 0
#                                 when every host is up
#   share/sshlab.sh down DIR hostN  hostN drops off the network: its sshd
#                                 and every session on it end, its jobs go
#                                 on running (as a host whose link broke)
#   share/sshlab.sh up DIR hostN  hostN's sshd again, on the same port
#                                 (down and up take bastion, too)
#
# --bastion: the hosts listen on the 127.0.0.1 of a network namespace of
# their own (unshare -n: root only), where nothing else is, so that a
# direct connection to them fails; one more sshd, the bastion, is the only
# way in: it listens on this machine's 127.0.0.1 (systemd-socket-activate
# hands each connection to an `sshd -i` that runs in the hosts' namespace)
# and forwards (AllowTcpForwarding local, PermitOpen) to the hosts' ports
# alone, with no shell (MaxSessions 0).  The lab file names each host by
# its alias, hostN, which DIR/ssh_config leads through `ProxyJump bastion`:
# calops reads ~/.ssh/config (calops hosts: --ssh-config DIR/ssh_config),
# so include DIR/ssh_config there to use the lab.  DIR/bastion/ holds its
# sshd_config, key and logs.
#
# Everything is under DIR, which must be empty, new or a lab of this
# script (started again, a lab keeps its keys, jobs and workspaces; only the
# ports change):
#
#   DIR/lab.yaml        the lab file: every host as transport: ssh
#   DIR/ssh_config      for `ssh -F DIR/ssh_config hostN COMMAND`
#   DIR/known_hosts     the hosts' keys as [127.0.0.1]:PORT
#   DIR/client/         the client keys (no passphrase: id_ed25519; with the
#                       test passphrase of DIR/client/passphrase:
#                       id_ed25519_pass; RSA: id_rsa) and authorized_keys
#                       holding all three
#   DIR/bin/            calops, and calrt-sim when it is beside calops: the
#                       hosts' PATH starts here
#   DIR/hostN/          sshd_config, ssh_host_ed25519_key, sshd.pid,
#                       sshd.log; state/, cache/ and config/, the host's
#                       XDG_STATE_HOME, XDG_CACHE_HOME and XDG_CONFIG_HOME
#                       (its jobs: state/calops/jobs); home/, its HOME, so
#                       that the shell sshd runs each command through reads
#                       the host's own (absent) ~/.bashrc, not yours: a
#                       lab host is a machine of its own; ws/, a copy of
#                       share/examples/labdemo
#
# Each sshd logs in only you, by key, on 127.0.0.1.  As root (CI) that is
# root (PermitRootLogin prohibit-password), and sshd needs /run/sshd, which
# is made when missing.  As any other user sshd runs as you, on a port
# above 1023, and logs in only you: no privilege separation user, no
# chroot before authentication, no PAM.  Either way sshd runs each command
# through your login shell, so it must be a shell (not nologin), and its
# StrictModes must hold for DIR/client/authorized_keys: DIR and every
# folder above it (up to your home) must belong to you or root and be
# writable by nobody else, so /tmp (mode 1777) will not do: use a folder
# under your home, e.g. ~/sshlab.
#
# Exit status: 0 done, 1 failed (the reason on stderr), 2 usage.
set -u
umask 077

top=$(cd "$(dirname "$0")/.." && pwd)
passphrase=calops-test-passphrase
tries=64
nl='
'

say() { printf 'sshlab: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
usage() {
	say "usage: sshlab.sh start DIR [N] [--calops PATH] [--ports LOW-HIGH]" \
	    "[--bastion]"
	say "       sshlab.sh stop DIR | sshlab.sh status DIR"
	say "       sshlab.sh down DIR hostN | sshlab.sh up DIR hostN"
	exit 2
}

# How many hosts the lab's last start was asked for.
lab_size() {
	sed -n 's/^hosts \([0-9]*\)$/\1/p' "$lab/.sshlab" 2>/dev/null
}

# Whether the lab's last start was behind a bastion.
lab_bastion() {
	grep -qx bastion "$lab/.sshlab" 2>/dev/null
}

# is_lab_sshd PID CONFIG: PID is the sshd started with CONFIG, not some
# other process that got its pid after that sshd was gone.
is_lab_sshd() {
	[ -r "/proc/$1/cmdline" ] || return 1
	exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
	[ "${exe##*/}" = sshd ] || return 1
	tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "-f $2 "
}

# The pid of a host's running sshd, or nothing.
host_pid() {
	pid=$(cat "$1/sshd.pid" 2>/dev/null) || return 1
	case $pid in '' | *[!0-9]*) return 1 ;; esac
	is_lab_sshd "$pid" "$1/sshd_config" && printf '%s\n' "$pid"
}

host_port() {
	sed -n 's/^Port \([0-9]*\)$/\1/p' "$1/sshd_config" 2>/dev/null
}

# descendants PID: every process below PID, children first.
descendants() {
	ps -e -o pid= -o ppid= | awk -v top="$1" '
	    { parent[$1] = $2 }
	    END {
		for (p in parent) {
			for (q = parent[p]; q != "" && q > 1; q = parent[q])
				if (q == top) { print p; break }
		}
	    }'
}

# alive PID: PID runs (a zombie has ended: its reaper, init or a
# container's pid 1, may take its time).
alive() {
	st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" \
	    2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# gone PID...: wait until none of them is alive (a minute at most, then
# SIGKILL).
gone() {
	n=0
	for p in "$@"; do
		while alive "$p"; do
			n=$((n + 1))
			if [ "$n" -gt 1200 ]; then
				kill -KILL "$p" 2>/dev/null
			fi
			sleep 0.05
		done
	done
}

# stop_jobs HOSTDIR: calops kill every job still running on the host (they
# outlive the sshd that started them, as on a real host).
stop_jobs() {
	[ -x "$lab/bin/calops" ] && [ -d "$1/state/calops/jobs" ] || return 0
	XDG_STATE_HOME=$1/state "$lab/bin/calops" jobs 2>/dev/null |
	    awk 'NR > 1 && ($2 == "running" || $2 == "degraded") { print $1 }' |
	    while read -r id; do
		XDG_STATE_HOME=$1/state "$lab/bin/calops" kill --grace 2 \
		    "$id" >/dev/null ||
		    say "${1##*/}: cannot stop job $id"
	done
}

# stop_host HOSTDIR: its sshd, every session below it (their commands
# included), and its running jobs.
stop_host() {
	name=${1##*/}
	if pid=$(host_pid "$1"); then
		kids=$(descendants "$pid")
		kill -TERM "$pid" $kids 2>/dev/null
		gone "$pid" $kids
		say "$name: stopped (sshd $pid)"
	fi
	rm -f "$1/sshd.pid"
	stop_jobs "$1"
}

# Every host of the lab, including those of an earlier, larger start, the
# bastion and the hosts' network namespace.
stop_lab() {
	stop_bastion
	k=1
	while [ -d "$lab/host$k" ]; do
		stop_host "$lab/host$k"
		k=$((k + 1))
	done
	if pid=$(netns_pid); then
		kill -TERM "$pid" 2>/dev/null
		gone "$pid"
	fi
	rm -f "$lab/netns.pid"
}

# ---- the bastion (--bastion) ----

# The pid of the process holding the hosts' network namespace, or nothing.
netns_pid() {
	pid=$(cat "$lab/netns.pid" 2>/dev/null) || return 1
	case $pid in '' | *[!0-9]*) return 1 ;; esac
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	[ "${exe##*/}" = sleep ] &&
	    [ "$(readlink "/proc/$pid/ns/net")" != "$(readlink /proc/self/ns/net)" ] &&
	    printf '%s\n' "$pid"
}

# A network namespace of the hosts' own, its loopback up, held by a
# sleeping process; $inns runs a command in it.
netns_start() {
	if ! pid=$(netns_pid); then
		unshare --net sh -c 'ip link set lo up && exec sleep 2147483647' \
		    </dev/null >/dev/null 2>&1 &
		pid=$!
		echo "$pid" >"$lab/netns.pid"
		n=0
		until netns_pid >/dev/null; do
			kill -0 "$pid" 2>/dev/null && [ "$n" -lt 1200 ] ||
			    die "cannot make a network namespace (unshare -n)"
			n=$((n + 1))
			sleep 0.05
		done
	fi
	inns="nsenter --net=/proc/$pid/ns/net --"
}

# The pid of the bastion's listener, or nothing.
bastion_pid() {
	pid=$(cat "$lab/bastion/listen.pid" 2>/dev/null) || return 1
	case $pid in '' | *[!0-9]*) return 1 ;; esac
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	[ "${exe##*/}" = systemd-socket-activate ] && printf '%s\n' "$pid"
}

bastion_port() {
	sed -n 's/^# port \([0-9]*\)$/\1/p' "$lab/bastion/sshd_config" \
	    2>/dev/null
}

# The bastion and every session it carries.
stop_bastion() {
	if pid=$(bastion_pid); then
		kids=$(descendants "$pid")
		kill -TERM "$pid" $kids 2>/dev/null
		gone "$pid" $kids
		say "bastion: stopped (listener $pid)"
	fi
	rm -f "$lab/bastion/listen.pid"
}

# write_bastion_config PORT: forwarding to the hosts' ports alone, no
# shell.  sshd -i reads it at each connection.
write_bastion_config() {
	open=
	k=1
	while [ "$k" -le "$hosts" ]; do
		open="$open 127.0.0.1:$(host_port "$lab/host$k")"
		k=$((k + 1))
	done
	cat >"$lab/bastion/sshd_config" <<EOF
# the bastion of a loopback lab, written by share/sshlab.sh
# port $1
HostKey "$lab/bastion/ssh_host_ed25519_key"
PidFile none
$(sshd_login)
AllowTcpForwarding local
PermitOpen${open:- none}
X11Forwarding no
PermitTTY no
MaxSessions 0
PrintMotd no
PrintLastLog no
EOF
}

# launch_bastion PORT: the listener on this machine's 127.0.0.1:PORT, an
# `sshd -i` in the hosts' namespace for each connection; 0 when it
# listens, 1 when the port was taken, 2 when it failed otherwise.
launch_bastion() {
	b=$lab/bastion
	: >"$b/listen.log"
	rm -f "$b/listen.pid"
	setsid systemd-socket-activate -l "127.0.0.1:$1" --inetd -a \
	    $inns "$sshd" -i -f "$b/sshd_config" -E "$b/sshd.log" \
	    </dev/null >/dev/null 2>"$b/listen.log" &
	await_listen $! "$b/listen.log" "^Listening on 127\.0\.0\.1:$1 " ||
	    return
	echo "$spid" >"$b/listen.pid"
}

# await_listen PID LOG PATTERN [HOSTDIR]: wait until PID, a listener just
# started, has logged a line matching PATTERN to LOG (and HOSTDIR's sshd
# wrote its pid file): 0; 1 when it died of a port already taken; 2 when it
# died otherwise, or was stopped after a minute (said in LOG).  spid is PID.
await_listen() {
	spid=$1
	n=0
	while :; do
		if grep -q "$3" "$2" &&
		    { [ $# -lt 4 ] || host_pid "$4" >/dev/null; }; then
			return 0
		fi
		if ! kill -0 "$spid" 2>/dev/null; then
			wait "$spid"
			grep -q 'Address already in use' "$2" && return 1
			return 2
		fi
		n=$((n + 1))
		if [ "$n" -gt 1200 ]; then
			echo "sshlab: nothing listening after a minute" >>"$2"
			kill -TERM "$spid" 2>/dev/null
			return 2
		fi
		sleep 0.05
	done
}

# bastion_checks: what --bastion needs, before anything is started.
bastion_checks() {
	command -v unshare >/dev/null && command -v nsenter >/dev/null &&
	    command -v ip >/dev/null ||
	    die "--bastion needs unshare, nsenter (util-linux) and ip (iproute2)"
	command -v systemd-socket-activate >/dev/null ||
	    die "--bastion needs systemd-socket-activate (systemd)"
	[ "$(id -u)" = 0 ] ||
	    die "--bastion needs root: the hosts get a network namespace" \
	    "of their own (unshare -n)"
}

# start_bastion: its key and a free port, bport, before the hosts start
# (their ports then avoid it); its config is written again once their
# ports are known.
start_bastion() {
	mkdir -p "$lab/bastion" || die "cannot make '$lab/bastion'"
	keygen "$lab/bastion/ssh_host_ed25519_key" ed25519 ""
	t=0
	while [ "$t" -lt "$tries" ]; do
		bport=$(random_port)
		write_bastion_config "$bport"
		launch_bastion "$bport"
		case $? in
		0)	say "bastion: 127.0.0.1 port $bport"
			return 0 ;;
		2)	break ;;
		esac
		t=$((t + 1))
	done
	say "the bastion failed to start; its log:"
	sed 's/^/    /' "$lab/bastion/listen.log" >&2
	stop_lab
	exit 1
}

# refuse_path PATH: the characters sshd_config, ssh_config, PATH and the
# lab file could not all take as they are.
refuse_path() {
	case $1 in
	*[\"\\\$%#\':]* | *"$nl"* | *[[:cntrl:]]*)
		die "'$1': a lab folder's path may not hold \" \\ \$ % # ' :" \
		    "or control characters (sshd_config, ssh_config and PATH" \
		    "would read them)"
		;;
	esac
}

# strict_modes DIR: sshd's StrictModes holds for files in DIR: every folder
# from DIR up to / (or up to your home) is yours or root's and writable by
# nobody else.  Else 1, saying why.
strict_modes() {
	me=$(id -u)
	home=$(getent passwd "$me" | cut -d: -f6)
	home=$(cd "$home" 2>/dev/null && pwd -P) || home=
	p=$1
	while :; do
		set -- $(stat -c '%u %a' "$p") || return 1
		if [ "$1" != 0 ] && [ "$1" != "$me" ]; then
			say "sshd's StrictModes refuses keys under '$p': it" \
			    "belongs to uid $1; choose a DIR under your home," \
			    "e.g. ~/sshlab"
			return 1
		fi
		if [ $((0$2 & 022)) != 0 ]; then
			say "sshd's StrictModes refuses keys under '$p':" \
			    "others may write it (mode $2); choose a DIR" \
			    "under your home, e.g. ~/sshlab"
			return 1
		fi
		[ "$p" = / ] || [ "$p" = "$home" ] && return 0
		p=$(dirname "$p")
	done
}

# A port of LOW-HIGH at random.
random_port() {
	r=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	echo $((port_low + r % (port_high - port_low + 1)))
}

keygen() {
	[ -f "$1" ] && return 0
	ssh-keygen -q -t "$2" -N "$3" -C "calops-sshlab" -f "$1" </dev/null ||
	    die "cannot make the key '$1'"
}

# Who may log in to a lab's sshd, and how: you, by key, the lab's keys.
sshd_login() {
	cat <<EOF
AllowUsers $user
AuthenticationMethods publickey
AuthorizedKeysFile "$lab/client/authorized_keys"
StrictModes yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
AllowAgentForwarding no
EOF
}

# write_sshd_config HOSTDIR PORT.  SetEnv is one line: sshd reads only the
# first.
write_sshd_config() {
	env="\"PATH=$lab/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"
	env="$env:/sbin:/bin\" \"XDG_STATE_HOME=$1/state\""
	env="$env \"XDG_CACHE_HOME=$1/cache\" \"XDG_CONFIG_HOME=$1/config\""
	env="$env \"HOME=$1/home\""
	cat >"$1/sshd_config" <<EOF
# ${1##*/} of a loopback lab, written by share/sshlab.sh
ListenAddress 127.0.0.1
Port $2
HostKey "$1/ssh_host_ed25519_key"
PidFile "$1/sshd.pid"
$(sshd_login)
AllowTcpForwarding no
X11Forwarding no
PermitUserEnvironment no
PrintMotd no
PrintLastLog no
Subsystem sftp internal-sftp
SetEnv $env
EOF
}

# try_port HOSTDIR PORT: start the host's sshd on PORT; 0 when it
# listens, 1 when the port was taken, 2 when it failed otherwise.
try_port() {
	write_sshd_config "$1" "$2"
	launch_sshd "$1" "$2"
}

# launch_sshd HOSTDIR PORT: the host's sshd with the config it has; as
# try_port says.
launch_sshd() {
	: >"$1/sshd.log"
	rm -f "$1/sshd.pid"
	# -D with setsid rather than sshd's own daemon(): sshd forks before
	# it binds, so its exit status cannot tell a taken port.
	setsid -w $inns "$sshd" -D -f "$1/sshd_config" -E "$1/sshd.log" \
	    </dev/null >/dev/null 2>&1 &
	await_listen $! "$1/sshd.log" \
	    "^Server listening on 127\.0\.0\.1 port $2\." "$1"
}

# start_host HOSTDIR: its keys and folders, then its sshd on a free port,
# another one each time the port turns out to be taken (a parallel lab, or
# anything else, may bind it between our choice and sshd's bind).
start_host() {
	mkdir -p "$1/state" "$1/cache" "$1/config" "$1/home" || die "cannot make '$1'"
	keygen "$1/ssh_host_ed25519_key" ed25519 ""
	if [ ! -d "$1/ws" ]; then
		rm -rf "$1/ws.new"
		cp -R "$top/share/examples/labdemo" "$1/ws.new" &&
		    mv "$1/ws.new" "$1/ws" ||
		    die "cannot copy the example workspace to '$1/ws'"
	fi
	t=0
	while [ "$t" -lt "$tries" ]; do
		port=$(random_port)
		# Its key is known as [127.0.0.1]:PORT, the bastion's too.
		[ "$port" != "${bport:-}" ] || continue
		try_port "$1" "$port"
		case $? in
		0)	taken=$t
			return 0 ;;
		2)	break ;;
		esac
		t=$((t + 1))
	done
	if [ "$t" -eq "$tries" ]; then
		say "${1##*/}: no free port in $port_low-$port_high after" \
		    "$tries tries"
	fi
	return 1
}

# A failed start stops what it started, names the host and shows its log.
start_failed() {
	say "${1##*/} failed to start; its log, $1/sshd.log:"
	tr -d '\r' <"$1/sshd.log" | sed 's/^/    /' >&2
	stop_lab
	exit 1
}

write_files() {
	kh=$lab/known_hosts.new
	sc=$lab/ssh_config.new
	ly=$lab/lab.yaml.new
	: >"$kh"
	echo "# a loopback lab, written by share/sshlab.sh" >"$sc"
	cat >"$ly" <<EOF
# A loopback lab written by share/sshlab.sh start (share/doc/lab.md): its
# hosts are throwaway sshd on 127.0.0.1, written again by each start (the
# ports change).  A keepalive every 5 s: a stopped host is seen soon.
hosts:
EOF
	ws=
	k=1
	while [ "$k" -le "$hosts" ]; do
		h=$lab/host$k
		name=host$k
		port=$(host_port "$h")
		k=$((k + 1))
		set -- $(cat "$h/ssh_host_ed25519_key.pub")
		echo "[127.0.0.1]:$port $1 $2 $name" >>"$kh"
		printf 'Host %s\n\tHostName 127.0.0.1\n\tPort %s\n' \
		    "$name" "$port" >>"$sc"
		# Behind the bastion: the host by its alias, which the ssh
		# config leads there.
		where="address: 127.0.0.1$nl    port: $port"
		if [ -n "$bastion" ]; then
			printf '\tProxyJump bastion\n' >>"$sc"
			where="address: $name"
		fi
		cat >>"$ly" <<EOF
  - name: $name
    transport: ssh
    $where
    user: "$user"
    identity: "$lab/client/id_ed25519"
    known_hosts: "$lab/known_hosts"
    calops: "$lab/bin/calops"
    keepalive_s: 5
    chips: [0, 1]
EOF
		ws="$ws  - {host: $name, path: \"$h/ws\"}$nl"
	done
	printf 'workspaces:\n%srunner: calrt-sim --time-scale 3000\n' \
	    "$ws" >>"$ly"
	if [ -n "$bastion" ]; then
		port=$(bastion_port)
		set -- $(cat "$lab/bastion/ssh_host_ed25519_key.pub")
		echo "[127.0.0.1]:$port $1 $2 bastion" >>"$kh"
		printf 'Host bastion\n\tHostName 127.0.0.1\n\tPort %s\n' \
		    "$port" >>"$sc"
	fi
	# BatchMode: ssh never prompts, so a refusal fails at once.
	cat >>"$sc" <<EOF
Host *
	User $user
	IdentityFile "$lab/client/id_ed25519"
	IdentitiesOnly yes
	UserKnownHostsFile "$lab/known_hosts"
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	UpdateHostKeys no
	CheckHostIP no
	BatchMode yes
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	ForwardAgent no
	ForwardX11 no
	ControlMaster no
	ControlPath none
EOF
	mv "$kh" "$lab/known_hosts" && mv "$sc" "$lab/ssh_config" &&
	    mv "$ly" "$lab/lab.yaml" || die "cannot write the lab's files"
}

# The lab's client keys, authorized on every host.
client_keys() {
	mkdir -p "$lab/client" || die "cannot make '$lab/client'"
	printf '%s\n' "$passphrase" >"$lab/client/passphrase"
	keygen "$lab/client/id_ed25519" ed25519 ""
	keygen "$lab/client/id_ed25519_pass" ed25519 "$passphrase"
	keygen "$lab/client/id_rsa" rsa ""
	cat "$lab/client/id_ed25519.pub" "$lab/client/id_ed25519_pass.pub" \
	    "$lab/client/id_rsa.pub" >"$lab/client/authorized_keys" ||
	    die "cannot write '$lab/client/authorized_keys'"
}

# bin/: calops and, beside it, the simulator the lab file's runner names.
lab_bin() {
	mkdir -p "$lab/bin" || die "cannot make '$lab/bin'"
	ln -sfn "$calops" "$lab/bin/calops" || die "cannot link calops"
	sim=$(dirname "$calops")/calrt-sim
	if [ -x "$sim" ]; then
		ln -sfn "$sim" "$lab/bin/calrt-sim" ||
		    die "cannot link calrt-sim"
	else
		rm -f "$lab/bin/calrt-sim"
		say "no calrt-sim beside '$calops': the lab's runner is missing"
	fi
}

find_calops() {
	if [ -z "$calops" ]; then
		if [ -x "$top/build/calops" ]; then
			calops=$top/build/calops
		else
			calops=$(command -v calops) ||
			    die "no calops in '$top/build' or on PATH:" \
			    "give --calops PATH"
		fi
	fi
	[ -f "$calops" ] && [ -x "$calops" ] ||
	    die "'$calops' is not a program"
	calops=$(cd "$(dirname "$calops")" && pwd -P)/${calops##*/}
}

# The checks before anything is started, with the reason when one fails.
start_checks() {
	sshd=/usr/sbin/sshd
	[ -x "$sshd" ] || sshd=$(command -v sshd) ||
	    die "no sshd: install openssh-server (share/bootstrap.sh test does)"
	command -v ssh-keygen >/dev/null ||
	    die "no ssh-keygen: install openssh-client"
	shell=$(getent passwd "$(id -u)" | cut -d: -f7)
	case ${shell:-/bin/sh} in
	*/nologin | */false)
		die "sshd runs each command through your login shell, and" \
		    "yours is '$shell'"
		;;
	esac
	case $port_low-$port_high in
	*[!0-9-]* | -* | *-) usage ;;
	esac
	if [ "$port_low" -gt "$port_high" ] || [ "$port_high" -gt 65535 ] ||
	    [ "$port_low" -lt 1 ]; then
		die "bad port range $port_low-$port_high"
	fi
	if [ "$(id -u)" != 0 ] && [ "$port_low" -lt 1024 ]; then
		die "only root may listen on ports below 1024"
	fi
	[ -z "$bastion" ] || bastion_checks
	find_calops
}

start() {
	start_checks
	refuse_path "$lab"
	made=
	[ -d "$lab" ] || made=1
	mkdir -p "$lab" || die "cannot make '$lab'"
	lab=$(cd "$lab" && pwd -P)
	refuse_path "$lab"
	if [ ! -f "$lab/.sshlab" ] && [ -n "$(ls -A "$lab")" ]; then
		die "'$lab' is neither empty nor a lab of sshlab.sh"
	fi
	if ! chmod 700 "$lab" || ! strict_modes "$lab"; then
		[ -z "$made" ] || rmdir "$lab"
		exit 1
	fi
	k=1
	while [ -d "$lab/host$k" ]; do
		pid=$(host_pid "$lab/host$k") &&
		    die "'$lab' is running (host$k: sshd $pid): stop it first"
		k=$((k + 1))
	done
	printf 'a loopback lab of share/sshlab.sh\nhosts %s\n%s' "$hosts" \
	    "${bastion:+bastion$nl}" >"$lab/.sshlab"
	if [ "$(id -u)" = 0 ] && [ ! -d /run/sshd ]; then
		say "making /run/sshd (sshd's privilege separation folder)"
		mkdir -m 0755 /run/sshd || die "cannot make /run/sshd"
	fi
	user=$(id -un)
	client_keys
	lab_bin
	trap 'stop_lab; exit 1' INT TERM HUP
	inns=
	if [ -n "$bastion" ]; then
		netns_start
		start_bastion
	fi
	i=1
	while [ "$i" -le "$hosts" ]; do
		start_host "$lab/host$i" || start_failed "$lab/host$i"
		msg="host$i: 127.0.0.1 port $(host_port "$lab/host$i")"
		[ "$taken" = 0 ] || msg="$msg ($taken taken before it)"
		say "$msg"
		i=$((i + 1))
	done
	# The bastion forwards to the hosts' ports, now known.
	[ -z "$bastion" ] || write_bastion_config "$bport"
	write_files
	trap - INT TERM HUP
	say "lab file: $lab/lab.yaml"
	[ -z "$bastion" ] || say "its hosts are reached through" \
	    "'$lab/ssh_config': include it in ~/.ssh/config"
	say "try: ssh -F '$lab/ssh_config' host1 calops jobs"
}

# down HOST / up HOST: one host of a running lab off the network and back,
# its jobs untouched (they are not below its sshd: calops run detaches
# them).
host_dir() {
	case $1 in
	host[0-9]*) [ -f "$lab/$1/sshd_config" ] && return 0 ;;
	bastion) lab_bastion && return 0 ;;
	esac
	die "'$1' is not a host of the lab '$lab'"
}

# The hosts of a lab behind a bastion run in its network namespace.
lab_inns() {
	inns=
	lab_bastion || return 0
	pid=$(netns_pid) || die "the hosts' network namespace is gone:" \
	    "start the lab again"
	inns="nsenter --net=/proc/$pid/ns/net --"
}

down() {
	host_dir "$1"
	if [ "$1" = bastion ]; then
		bastion_pid >/dev/null || die "bastion is down already"
		stop_bastion 2>/dev/null
		say "bastion: down (the hosts behind it go on)"
		return 0
	fi
	pid=$(host_pid "$lab/$1") || die "$1 is down already"
	kids=$(descendants "$pid")
	kill -TERM "$pid" $kids 2>/dev/null
	gone "$pid" $kids
	rm -f "$lab/$1/sshd.pid"
	say "$1: down (its jobs go on)"
}

up() {
	host_dir "$1"
	sshd=/usr/sbin/sshd
	[ -x "$sshd" ] || sshd=$(command -v sshd) || die "no sshd"
	lab_inns
	if [ "$1" = bastion ]; then
		pid=$(bastion_pid) && die "bastion is up already ($pid)"
		port=$(bastion_port)
		launch_bastion "$port" ||
		    die "bastion failed to start on port $port:" \
		    "$(cat "$lab/bastion/listen.log")"
		say "bastion: up, 127.0.0.1 port $port"
		return 0
	fi
	pid=$(host_pid "$lab/$1") && die "$1 is up already (sshd $pid)"
	port=$(host_port "$lab/$1")
	if ! launch_sshd "$lab/$1" "$port"; then
		say "$1 failed to start on port $port; its log:"
		tr -d '\r' <"$lab/$1/sshd.log" | sed 's/^/    /' >&2
		exit 1
	fi
	say "$1: up, 127.0.0.1 port $port"
}

status() {
	all=0
	size=$(lab_size)
	k=1
	while [ "$k" -le "${size:-0}" ]; do
		if pid=$(host_pid "$lab/host$k"); then
			echo "host$k 127.0.0.1:$(host_port "$lab/host$k") up" \
			    "(sshd $pid)"
		else
			echo "host$k down"
			all=1
		fi
		k=$((k + 1))
	done
	if lab_bastion; then
		if pid=$(bastion_pid); then
			echo "bastion 127.0.0.1:$(bastion_port) up (listener $pid)"
		else
			echo "bastion down"
			all=1
		fi
	fi
	return $all
}

[ $# -ge 2 ] || usage
cmd=$1
lab=$2
shift 2
hosts=3
bastion=
calops=
port_low=20000
port_high=32767
case $cmd in
down | up)
	[ $# -eq 1 ] || usage
	target=$1
	shift
	;;
esac
while [ $# -gt 0 ]; do
	case $1 in
	--calops)
		[ $# -ge 2 ] || usage
		calops=$2
		shift 2
		;;
	--bastion)
		bastion=1
		shift
		;;
	--ports)
		[ $# -ge 2 ] || usage
		port_low=${2%-*}
		port_high=${2#*-}
		shift 2
		;;
	*[!0-9]* | '')
		usage
		;;
	*)
		hosts=$1
		[ "$hosts" -ge 1 ] && [ "$hosts" -le 64 ] ||
		    die "N is a number of hosts from 1 to 64, not $hosts"
		shift
		;;
	esac
done
case $lab in
/*) ;;
*) lab=$(pwd)/$lab ;;
esac

case $cmd in
start)
	start
	;;
stop)
	[ -f "$lab/.sshlab" ] || die "'$lab' holds no lab of sshlab.sh"
	lab=$(cd "$lab" && pwd -P)
	stop_lab
	;;
status)
	[ -f "$lab/.sshlab" ] || die "'$lab' holds no lab of sshlab.sh"
	lab=$(cd "$lab" && pwd -P)
	status
	;;
down | up)
	[ -f "$lab/.sshlab" ] || die "'$lab' holds no lab of sshlab.sh"
	lab=$(cd "$lab" && pwd -P)
	"$cmd" "$target"
	;;
*)
	usage
	;;
esac
