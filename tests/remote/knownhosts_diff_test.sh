#!/bin/bash
# knownhosts_diff_test.sh: calops' host-key verdicts (remote/knownhosts.c)
# held against OpenSSH's own, on the same known_hosts files and the same
# real sshd.  Two sshd on 127.0.0.1 (a loopback lab's host1, whose host key
# is ED25519, and a second one with an ECDSA host key); for each case a
# known_hosts file of our own is given to
#
#	ssh -F /dev/null -o BatchMode=yes -o UserKnownHostsFile=FILE
#	    -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes|
#	    accept-new -p PORT -i KEY USER@127.0.0.1 true
#
# and, on a copy, to `calops hosts --json --ssh-config CONFIG LAB` (the
# host's known_hosts: the copy, accept_new: false|true; CONFIG sets ssh's
# own known_hosts files to /dev/null, as for ssh).  Both must reach the same verdict
# class -- connects, unknown, changed, revoked -- and accept-new must leave
# both files the same way (a key added or not).  Where calops is stricter
# on purpose (share/doc/lab.md, "Host keys") the case says what calops
# does instead, and why:
#
#   - a @revoked line applies whatever names it gives (ssh: only for them);
#   - a @revoked line calops cannot read refuses every host (ssh skips it);
#   - a host trusted only by a @cert-authority line is refused, even with
#     accept_new (ssh accept-new adds the plain key: calops cannot check
#     a host certificate, so it does not pin a key around the CA).
#
#	knownhosts_diff_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: knownhosts_diff_test.sh CALOPS_BINARY}
. "$(dirname "$0")/lib.sh"
remote_test knownhosts_diff exit
PATH_NO_BLANK=1
sshlab_prereqs
# host1 (ED25519) and a second sshd with an ECDSA host key.
two_sshds khdiff

# Keys: the servers', others of each type, certificates (signed by a CA
# of our own), names hashed by the real ssh-keygen -H.
k() { cut -d' ' -f1,2 "$1"; }
newkey() { ssh-keygen -q -t "$1" -N '' -f "$T/$2" </dev/null; }
newkey ed25519 ca
newkey ed25519 o_ed
newkey ecdsa o_ec
newkey rsa o_rsa
cp "$L/host1/ssh_host_ed25519_key.pub" "$T/srv_ed.pub"
cp "$T/ec/hostkey.pub" "$T/srv_ec.pub"
for f in srv_ed srv_ec o_rsa; do
	ssh-keygen -q -s "$T/ca" -I test -h -n 127.0.0.1 "$T/$f.pub" ||
		fail "cannot certify $f"
done
SRV_ED=$(k "$T/srv_ed.pub")
SRV_EC=$(k "$T/srv_ec.pub")
O_ED=$(k "$T/o_ed.pub")
O_EC=$(k "$T/o_ec.pub")
O_RSA=$(k "$T/o_rsa.pub")
CA=$(k "$T/ca.pub")
CERT_ED=$(k "$T/srv_ed-cert.pub")
CERT_EC=$(k "$T/srv_ec-cert.pub")
CERT_RSA=$(k "$T/o_rsa-cert.pub")
N_ED="[127.0.0.1]:$PORT_ED"
N_EC="[127.0.0.1]:$PORT_EC"
hashed() {
	printf '%s %s\n' "$1" "$2" >"$T/tohash"
	ssh-keygen -q -H -f "$T/tohash" >/dev/null 2>&1
	cat "$T/tohash"
	rm -f "$T/tohash" "$T/tohash.old"
}
H_ED=$(hashed "$N_ED" "$SRV_ED")
H_OEC=$(hashed "$N_ED" "$O_EC")
CTRL=$(printf '\001')
LONG=$(head -c 70000 /dev/zero | tr '\0' c)

# ssh_class FILE MODE PORT: what OpenSSH does, in CLASS (what it said in
# SSH_OUT).
ssh_class() {
	local out rc
	# ssh splits UserKnownHostsFile on blanks (it takes several files):
	# the path is double-quoted for ssh's own tokenizer, as the folder
	# the suite runs in may hold a blank.
	out=$(ssh -F /dev/null -o BatchMode=yes -o UserKnownHostsFile="\"$1\"" \
	    -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking="$2" \
	    -o ConnectTimeout=10 -p "$3" -i "$ID" "$USER_@127.0.0.1" true \
	    2>&1 </dev/null)
	rc=$?
	SSH_OUT=$out
	if [ "$rc" = 0 ]; then CLASS=connects
	elif [[ $out == *"REVOKED HOST KEY"* ]]; then CLASS=revoked
	elif [[ $out == *"HOST IDENTIFICATION HAS CHANGED"* ]]; then
		CLASS=changed
	elif [[ $out == *"host key is known"* ]]; then CLASS=unknown
	else CLASS=other
	fi
}

# calops_class FILE ACCEPT_NEW PORT: what calops does, in CLASS (its
# state and error in CALOPS_STATE, CALOPS_ERR).
calops_class() {
	local err
	cat >"$T/lab_case.yaml" <<EOF
hosts:
  - name: h
    transport: ssh
    address: 127.0.0.1
    port: $3
    user: "$USER_"
    identity: "$ID"
    known_hosts: "$1"
    calops: "$L/bin/calops"
    accept_new: $2
EOF
	# As ssh is run: no other known_hosts file than the case's (the lab
	# file's, which calops reads after ssh's own).
	printf 'UserKnownHostsFile /dev/null\nGlobalKnownHostsFile /dev/null\n' \
	    >"$T/ssh_config"
	timeout 60 "$CALOPS" hosts --json --ssh-config "$T/ssh_config" \
	    "$T/lab_case.yaml" >"$T/out.json" 2>"$T/err.txt"
	read -r CALOPS_STATE err < <($PY -c 'import json, sys
h = json.load(open(sys.argv[1]))["hosts"][0]
print(h["state"], h.get("error", "").replace("\n", " "))' "$T/out.json")
	CALOPS_ERR=$err
	if [ "$CALOPS_STATE" = up ]; then CLASS=connects
	elif [[ $err == *"is revoked"* ]]; then CLASS=revoked
	elif [[ $err == *"@revoked line calops cannot read"* ]]; then
		CLASS=unreadable
	elif [[ $err == *"has changed"* ]]; then CLASS=changed
	elif [[ $err == *"is not known"* ]]; then CLASS=unknown
	else CLASS=other
	fi
}

PASSED=0
FAILED=0
# check NAME SERVER MODE [STRICTER] <FILE: SERVER ed|ec, MODE yes|new;
# STRICTER "CLASS ADDED why" when calops is stricter on purpose: calops
# must then reach CLASS and add a key or not (ADDED yes|no).  The file
# comes on stdin; "@NUL@" in it is a NUL byte.
check() {
	local name=$1 srv=$2 mode=$3 stricter=${4:-} port sm an sc cc sa ca
	local want_c want_a
	port=$PORT_ED
	[ "$srv" = ec ] && port=$PORT_EC
	sm=yes; an=false
	[ "$mode" = new ] && { sm=accept-new; an=true; }
	sed 's/@NUL@/\x00/g' >"$T/kh_ssh"
	cp "$T/kh_ssh" "$T/kh_calops"
	cp "$T/kh_ssh" "$T/kh_before"
	ssh_class "$T/kh_ssh" "$sm" "$port"
	sc=$CLASS
	calops_class "$T/kh_calops" "$an" "$port"
	cc=$CLASS
	cmp -s "$T/kh_ssh" "$T/kh_before" && sa=no || sa=yes
	cmp -s "$T/kh_calops" "$T/kh_before" && ca=no || ca=yes
	if [ -n "$stricter" ]; then
		read -r want_c want_a _ <<<"$stricter"
		want_a=${want_a%:}
	else
		want_c=$sc
		want_a=$sa
	fi
	if [ "$sc" != other ] && [ "$cc" = "$want_c" ] &&
	    [ "$ca" = "$want_a" ]; then
		PASSED=$((PASSED + 1))
		say "ok   $name: ssh $sc (added $sa), calops $cc (added" \
		    "$ca)${stricter:+ -- calops stricter on purpose}"
	else
		FAILED=$((FAILED + 1))
		say "FAIL $name: ssh $sc (added $sa), calops $cc (added $ca)," \
		    "want calops $want_c (added $want_a)"
		[ "$sc" = other ] && say "  ssh said: $(printf '%s' \
		    "$SSH_OUT" | tail -2 | tr '\n' ' ')"
		say "  calops said: $CALOPS_STATE $CALOPS_ERR"
	fi
}

# ---- plain lines: same key, another key, another type ----
check match ed yes <<<"$N_ED $SRV_ED"
check empty ed yes <<<"# nothing here"
check other_host_only ed yes <<<"otherhost $SRV_ED"
check same_type_changed ed yes <<<"$N_ED $O_ED"
check other_type_ecdsa ed yes <<<"$N_ED $O_EC"
check other_type_rsa ed yes <<<"$N_ED $O_RSA"
check other_type_ecdsa_accept_new ed new <<<"$N_ED $O_EC"
check other_type_rsa_accept_new ed new <<<"$N_ED $O_RSA"
check unknown_accept_new ed new <<<"# a comment to keep"
check other_type_then_match ed yes <<EOF
$N_ED $O_EC
$N_ED $SRV_ED
EOF
check other_type_then_match_accept_new ed new <<EOF
$N_ED $O_RSA
$N_ED $SRV_ED
EOF
check ec_server_match ec yes <<<"$N_EC $SRV_EC"
check ec_server_other_type ec yes <<<"$N_EC $O_ED"
check ec_server_other_type_accept_new ec new <<<"$N_EC $SRV_ED"
check ec_server_same_type_changed ec yes <<<"$N_EC $O_EC"

# ---- names: hashed, wildcards, negations, ports, odd bytes ----
check hashed_match ed yes <<<"$H_ED"
check hashed_other_type ed yes <<<"$H_OEC"
check hashed_other_type_accept_new ed new <<<"$H_OEC"
check wildcard_match ed yes <<<"127.0.0.*,[127.0.0.?]:* $SRV_ED"
check wildcard_other_type ed yes <<<"[127.0.0.*]:* $O_EC"
check negated_other_type ed yes <<<"[127.0.0.1]:*,!$N_ED $O_EC"
check negated_accept_new ed new <<<"[127.0.0.1]:*,!$N_ED $O_EC"
check port_22_form_only ed yes <<<"127.0.0.1 $O_EC"
check other_port_only_accept_new ed new <<<"[127.0.0.1]:1 $O_EC"
check nonascii_name_other_type ed yes <<<"é,$N_ED $O_EC"
check ctrl_name_other_type ed yes <<<"x${CTRL}y,$N_ED $O_EC"
check comments_and_blanks ed yes <<EOF
# comment

$(printf '   \t')
$N_ED $SRV_ED the comment, words and all
EOF
check bad_lines_then_match ed yes <<EOF
$N_ED ssh-ed25519 AAAA!!!!
@revokd * $SRV_ED
$N_ED ssh-foo AAAA
$N_ED $SRV_ED
EOF
check long_line_match ed yes <<<"$N_ED $SRV_ED $LONG"

# ---- @revoked ----
check revoked ed yes <<EOF
@revoked $N_ED $SRV_ED
$N_ED $SRV_ED
EOF
check revoked_star_no_plain ed yes <<<"@revoked * $SRV_ED"
check revoked_accept_new ed new <<<"@revoked * $SRV_ED"
check revoked_hashed ed yes <<EOF
@revoked $H_ED
$N_ED $SRV_ED
EOF
check revoked_nonascii_names ed yes <<EOF
@revoked é,$N_ED $SRV_ED
$N_ED $SRV_ED
EOF
check revoked_ctrl_names ed yes <<EOF
@revoked x${CTRL}y,$N_ED $SRV_ED
$N_ED $SRV_ED
EOF
check revoked_nul_in_comment ed yes <<EOF
@revoked $N_ED $SRV_ED co@NUL@mment
$N_ED $SRV_ED
EOF
check revoked_long_line ed yes <<EOF
@revoked $N_ED $SRV_ED $LONG
$N_ED $SRV_ED
EOF
check revoked_long_line_accept_new ed new <<<"@revoked * $SRV_ED $LONG"
check revoked_ed25519_cert ed yes <<EOF
@revoked $N_ED $CERT_ED
$N_ED $SRV_ED
EOF
check revoked_ecdsa_cert ec yes <<EOF
@revoked * $CERT_EC
$N_EC $SRV_EC
EOF
check revoked_ecdsa_cert_accept_new ec new <<<"@revoked $N_EC $CERT_EC"
check revoked_cert_of_another_key ed yes <<EOF
@revoked * $CERT_RSA
$N_ED $SRV_ED
EOF
check revoked_other_key ed yes <<EOF
@revoked * $O_ED
$N_ED $SRV_ED
EOF
check plain_cert_of_the_key ed yes <<<"$N_ED $CERT_ED"

# ---- @cert-authority ----
check ca_and_plain_match ed yes <<EOF
@cert-authority * $CA
$N_ED $SRV_ED
EOF
check ca_only ed yes <<<"@cert-authority $N_ED $CA"

# ---- calops stricter on purpose (share/doc/lab.md) ----
check revoked_for_other_names ed yes "revoked no: a @revoked line applies" \
    "to every name" <<EOF
@revoked otherhost $SRV_ED
$N_ED $SRV_ED
EOF
check revoked_unreadable ed yes "unreadable no: it might revoke any key" <<EOF
@revoked * ssh-ed25519 AAAA
$N_ED $SRV_ED
EOF
check revoked_unreadable_type ed yes "unreadable no: a key type calops" \
    "does not read" <<EOF
$N_ED $SRV_ED
@revoked * ssh-xmss@openssh.com AAAA
EOF
check ca_only_accept_new ed new "unknown no: calops cannot check the" \
    "host certificate the CA would sign" <<<"@cert-authority $N_ED $CA"

say "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
