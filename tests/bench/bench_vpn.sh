#!/bin/bash
# bench_vpn.sh: the engineer at home on a VPN (issue 29): a 24 h soak's
# events caught up over a link of $MBIT Mbit/s (default 20), by calops with
# and without zlib compression, beside OpenSSH's `ssh -o Compression=no
# host cat FILE` of the same file (the target: calops takes at most 1/4 of
# its time), printed side by side with the ratio.
#
# usage: tests/bench/bench_vpn.sh [BUILD]          (default: build; as root)
#
# The link.  Two network namespaces of the benchmark's own (unshare -n,
# each held by a sleeping process), the client's and the host's, joined by
# a veth pair with addresses of 198.18.0.0/30 (RFC 2544's benchmarking
# range), nothing else in them: the machine's own interfaces and routes
# are never touched, and everything goes when the two holders end (trap).
# Each end is shaped by `tc qdisc … tbf rate ${MBIT}mbit burst 32kb latency
# 50ms`.  (No delay is added: sch_netem is not in this kernel; a real VPN
# has a round trip too, which a 2 MiB channel window covers up to 800 ms
# at this rate.)
#
# The host.  A loopback lab of one host (share/sshlab.sh: its keys,
# sshd_config, calops and calrt-sim, its state folder) whose sshd is run
# again inside the host's namespace, listening on 198.18.0.2 port 22 only:
# the same sshd_config (Debian's sshd defaults: it offers zlib@openssh.com)
# but for the address.  Its job: `calrt-sim stress --duration 24h
# --time-scale 0 --seed 7 --chips 0` run by `calops run` in the lab's
# workspace, as a soak is run there -- the simulator's own events (one
# chip, 2 requests a second: about 26 MB, 9-10x with gzip), which the
# benchmark prints with their gzip ratio.
#
# The measures, each the median of $RUNS (default 3), each from the
# command's start (connect, handshake and authentication included) to its
# end, run in the client's namespace:
#   - OpenSSH: `ssh -o Compression=no 198.18.0.2 cat FILE > /dev/null`, the
#     peer; and `ssh -o Compression=yes … cat FILE` beside it.  (Also the
#     stream alone: calops' catch-up from the host up, against ssh's cat
#     less `ssh … true`, as bench_ssh.sh measures throughput.)
#   - calops catching the job up as the console does: sshfollow_driver,
#     follow.c over remote/ssh.c (`calops tail ID --from 1 --follow` on the
#     host, the stream the lab model follows for the Soak screen), with
#     `Compression yes` in the ssh config it reads and without; with the
#     bytes that crossed the link (TCP_INFO), the agreed compression, and
#     the CPU each side spent (calops': user + system; the host's: what its
#     sshd reaped, sshd and calops tail).
#   - The same two catch-ups over the loopback lab with no shaping: what
#     compression costs on a fast link (why it is off unless asked for,
#     share/doc/lab.md).
# Not part of ctest: it takes a minute or two and wants an idle machine.
set -euo pipefail

BUILD=${1:-build}
RUNS=${RUNS:-3}
MBIT=${MBIT:-20}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
CALOPS=$BUILD/calops
DRIVER=$BUILD/tests/sshfollow_driver
[ -x "$CALOPS" ] || { echo "bench_vpn: no '$CALOPS'" >&2; exit 2; }
export LANG=C.UTF-8 LC_ALL=C.UTF-8

# refused WHAT: the machine said no; say exactly what, and stop.
refused() {
	echo "bench_vpn: $1: $(tr '\n' ' ' <"$WORK/why")" >&2
	exit 2
}
[ "$(id -u)" = 0 ] ||
	{ echo "bench_vpn: network namespaces and tc need root" >&2; exit 2; }
for c in unshare nsenter ip tc ssh /usr/sbin/sshd gzip; do
	command -v "$c" >/dev/null ||
		{ echo "bench_vpn: no '$c' here" >&2; exit 2; }
done
cmake --build "$BUILD" --target calops calrt-sim sshfollow_driver \
    >/dev/null ||
	{ echo "bench_vpn: cannot build calops and sshfollow_driver in" \
	    "$BUILD (configured with -DBUILD_TESTING=ON?)" >&2; exit 2; }

WORK=$(mktemp -d "$HOME/.calops-bench-vpn.XXXXXX")
L=$WORK/lab
HOLDERS=()
SSHD=
cleanup() {
	local p
	[ -s "$WORK/sshd.pid" ] && kill "$(cat "$WORK/sshd.pid")" 2>/dev/null
	[ -z "$SSHD" ] || kill "$SSHD" 2>/dev/null || true
	for p in "${HOLDERS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	sh "$TOP/share/sshlab.sh" stop "$L" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

# netns: a namespace of its own, loopback up, held by a sleeping process
# whose pid is printed.
netns() {
	local pid n
	unshare --net sh -c 'ip link set lo up && exec sleep 2147483647' \
	    </dev/null >/dev/null 2>"$WORK/why" &
	pid=$!
	for n in $(seq 400); do
		if [ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" != \
		    "$(readlink /proc/self/ns/net)" ] &&
		    [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = \
		    "$(command -v sleep)" ]; then
			echo "$pid"
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
netns >"$WORK/pid" || refused "cannot make a network namespace (unshare -n)"
CNS=$(cat "$WORK/pid")
HOLDERS+=("$CNS")
netns >"$WORK/pid" || refused "cannot make a network namespace (unshare -n)"
HNS=$(cat "$WORK/pid")
HOLDERS+=("$HNS")
inc() { nsenter --net="/proc/$CNS/ns/net" -- "$@"; }
inh() { nsenter --net="/proc/$HNS/ns/net" -- "$@"; }
inc ip link add vpn0 type veth peer name vpn1 netns "$HNS" 2>"$WORK/why" ||
	refused "cannot make a veth pair (ip link add … type veth)"
inc ip addr add 198.18.0.1/30 dev vpn0
inh ip addr add 198.18.0.2/30 dev vpn1
inc ip link set vpn0 up
inh ip link set vpn1 up
SHAPE="tbf rate ${MBIT}mbit burst 32kb latency 50ms"
inc tc qdisc add dev vpn0 root $SHAPE 2>"$WORK/why" ||
	refused "cannot shape the link (tc qdisc add dev vpn0 root $SHAPE)"
inh tc qdisc add dev vpn1 root $SHAPE 2>"$WORK/why" ||
	refused "cannot shape the link (tc qdisc add dev vpn1 root $SHAPE)"

sh "$TOP/share/sshlab.sh" start "$L" 1 --calops "$CALOPS" \
    >"$WORK/sshlab.log" 2>&1 || { cat "$WORK/sshlab.log" >&2; exit 1; }
H=$L/host1
# The host's sshd again, in its namespace, on 198.18.0.2 alone.
sed -e 's/^ListenAddress .*/ListenAddress 198.18.0.2/' -e 's/^Port .*/Port 22/' \
    -e "s|^PidFile .*|PidFile \"$WORK/sshd.pid\"|" "$H/sshd_config" \
    >"$WORK/sshd_config"
: >"$WORK/sshd.log"
# nsenter itself, not a function's subshell: it becomes sshd (a network
# namespace needs no fork), so that $! is sshd's pid for the trap.
nsenter --net="/proc/$HNS/ns/net" -- /usr/sbin/sshd -D -f "$WORK/sshd_config" \
    -E "$WORK/sshd.log" </dev/null >/dev/null 2>&1 &
SSHD=$!
for _ in $(seq 400); do
	grep -q "Server listening on 198.18.0.2 port 22" "$WORK/sshd.log" &&
	    [ -s "$WORK/sshd.pid" ] && break
	kill -0 "$SSHD" 2>/dev/null ||
		{ echo "bench_vpn: sshd failed: $(cat "$WORK/sshd.log")" >&2
		  exit 1; }
	sleep 0.05
done
USER_=$(sed -n 's/^    user: "\(.*\)"$/\1/p' "$L/lab.yaml")
set -- $(cat "$H/ssh_host_ed25519_key.pub")
echo "198.18.0.2 $1 $2" >"$WORK/known_hosts"
cat >"$WORK/ssh_config" <<EOF
Host 198.18.0.2
	User $USER_
	IdentityFile "$L/client/id_ed25519"
	IdentitiesOnly yes
	UserKnownHostsFile "$WORK/known_hosts"
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
EOF
sed -e 's/^    address: 127\.0\.0\.1$/    address: 198.18.0.2/' \
    -e 's/^    port: [0-9]*$/    port: 22/' \
    -e "s|^    known_hosts: .*|    known_hosts: \"$WORK/known_hosts\"|" \
    "$L/lab.yaml" >"$WORK/vpn.yaml"
printf 'Host *\n\tCompression yes\n' >"$WORK/zlib.conf"
: >"$WORK/plain.conf"

# The soak's events, as a job of the host.
id=$(env PATH="$L/bin:$PATH" XDG_STATE_HOME="$H/state" \
    XDG_CACHE_HOME="$H/cache" XDG_CONFIG_HOME="$H/config" HOME="$H/home" \
    "$L/bin/calops" run --cwd "$H/ws" -- calrt-sim stress --calbin \
    05-calbin/package --duration 24h --time-scale 0 --seed 7 --chips 0)
EV=$H/state/calops/jobs/$id/events.jsonl
until [ -s "$EV" ] && tail -c 4096 "$EV" | grep -q '"type":"end"'; do
	sleep 0.5
done
size=$(stat -c %s "$EV")
gz=$(gzip -c "$EV" | wc -c)

ROW_LABEL=52 ROW_VALUE=9 BENCH=bench_vpn
. "$(dirname "$0")/lib.sh"
# The CPU seconds the host's sshd and everything it ran took, so far:
# the listener reaps its sessions, which reap calops tail.
hostcpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($16 + $17) / hz }' \
	    "/proc/$(cat "$WORK/sshd.pid")/stat"
}
# catchup LAB CONFIG [NS…]: one catch-up (in the client's namespace when
# NS is given), its driver line checked, with cpu= (its user + system
# seconds) and hostcpu= (the host's, over the link) added.
catchup() {
	local out lab=$1 conf=$2 h0 ns=()
	[ $# -lt 3 ] || ns=(nsenter --net="/proc/$CNS/ns/net" --)
	h0=$(hostcpu)
	out=$("${ns[@]}" /usr/bin/time -f "cpu=%U+%S" -o "$WORK/cpu" \
	    "$DRIVER" "$lab" host1 "$id" /dev/null "$conf") ||
		{ echo "bench_vpn: the catch-up failed: $out" >&2; exit 1; }
	[ "$(field bytes "$out")" = "$size" ] ||
		{ echo "bench_vpn: caught up $(field bytes "$out") bytes," \
		    "not $size" >&2; exit 1; }
	echo "$out $(tail -1 "$WORK/cpu") hostcpu=$(awk -v a="$h0" \
	    -v b="$(hostcpu)" 'BEGIN { printf "%.2f", b - a }')"
}
# seconds A+B: their sum.
sum() { awk -v s="$1" 'BEGIN { split(s, p, "+"); print p[1] + p[2] }'; }
# The driver's total: connect and catch-up, in seconds.
total() {
	awk -v c="$(field connect_ms "$1")" -v r="$(field run_ms "$1")" \
	    'BEGIN { printf "%.3f\n", (c + r) / 1000 }'
}
ocat() { inc ssh -F "$WORK/ssh_config" -o Compression="$1" 198.18.0.2 \
    "${2:-cat}" "$EV"; }

echo "calops catching up a 24 h soak over a ${MBIT} Mbit/s link: $CALOPS"
echo "  $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(uname -r)," \
	"$(ssh -V 2>&1), libssh2 $(dpkg-query -W -f '${Version}' \
	libssh2-1 2>/dev/null || echo '?'); $(date -u '+%F %T') UTC"
echo "  job $id: $(wc -l <"$EV") events, $size bytes, gzip $gz bytes" \
	"($(awk -v a="$size" -v b="$gz" 'BEGIN { printf "%.1f", a / b }')x)"
echo "  link: veth 198.18.0.1 - 198.18.0.2, each end: tc qdisc $SHAPE"
: >"$WORK/t"
for _ in $(seq "$RUNS"); do
	on=$(catchup "$WORK/vpn.yaml" "$WORK/zlib.conf" inc)
	off=$(catchup "$WORK/vpn.yaml" "$WORK/plain.conf" inc)
	lon=$(catchup "$L/lab.yaml" "$WORK/zlib.conf")
	loff=$(catchup "$L/lab.yaml" "$WORK/plain.conf")
	echo "$(wall ocat no) $(wall ocat yes) $(total "$on") $(total "$off")" \
	    "$(field wire "$on") $(field wire "$off") $(total "$lon")" \
	    "$(total "$loff") $(sum "$(field cpu "$on")")" \
	    "$(sum "$(field cpu "$off")") $(field hostcpu "$on")" \
	    "$(field hostcpu "$off")" "$(wall ocat no true)" \
	    "$(field run_ms "$on")" >>"$WORK/t"
done
col() { awk -v c="$1" '{ print $c }' "$WORK/t" | median; }
comp=$(field comp_sc "$on")
mbs() { awk -v s="$1" -v n="$size" 'BEGIN { printf "%.2f", n / 1e6 / s }'; }
echo
echo "over the ${MBIT} Mbit/s link (median of $RUNS; connect included)"
printf '  %-52s %9s %10s\n' "" seconds "MB/s"
printf '  %-52s %9s %10s\n' "OpenSSH: ssh -o Compression=no cat FILE" \
    "$(col 1)" "$(mbs "$(col 1)")"
printf '  %-52s %9s %10s\n' "OpenSSH: ssh -o Compression=yes cat FILE" \
    "$(col 2)" "$(mbs "$(col 2)")"
printf '  %-52s %9s %10s\n' "calops catch-up, Compression yes ($comp)" \
    "$(col 3)" "$(mbs "$(col 3)")"
printf '  %-52s %9s %10s\n' "calops catch-up, no compression" \
    "$(col 4)" "$(mbs "$(col 4)")"
printf '  %-52s %9s %10s\n' "" "with zlib" "without"
printf '  %-52s %9s %10s\n' "CPU seconds: calops (the console's side)" \
    "$(col 9)" "$(col 10)"
printf '  %-52s %9s %10s\n' "CPU seconds: the host (sshd, calops tail)" \
    "$(col 11)" "$(col 12)"
row "bytes on the link, compressed / not" "$(awk -v a="$(col 5)" \
	-v b="$(col 6)" 'BEGIN { printf "%.3f", a / b }')" x
row "calops with zlib / ssh cat (Compression=no)" "$(awk -v a="$(col 3)" \
	-v b="$(col 1)" 'BEGIN { printf "%.3f", a / b }')" x "<=" 0.25
row "calops without / ssh cat (Compression=no)" "$(awk -v a="$(col 4)" \
	-v b="$(col 1)" 'BEGIN { printf "%.3f", a / b }')" x
row "calops with zlib / ssh cat (Compression=yes)" "$(awk -v a="$(col 3)" \
	-v b="$(col 2)" 'BEGIN { printf "%.3f", a / b }')" x
# The console is connected already when it catches a job up: the stream
# alone, against ssh's cat less ssh's own login (`ssh host true`).
row "the stream alone: calops with zlib / ssh cat - true" "$(awk \
	-v a="$(col 14)" -v c="$(col 1)" -v t="$(col 13)" \
	'BEGIN { printf "%.3f", a / 1000 / (c - t) }')" x
echo
echo "over loopback, no shaping (median of $RUNS; connect included)"
printf '  %-52s %9s %10s\n' "calops catch-up, Compression yes" "$(col 7)" \
    "$(mbs "$(col 7)")"
printf '  %-52s %9s %10s\n' "calops catch-up, no compression" "$(col 8)" \
    "$(mbs "$(col 8)")"
row "loopback: with zlib / without" "$(awk -v a="$(col 7)" -v b="$(col 8)" \
	'BEGIN { printf "%.2f", a / b }')" x
