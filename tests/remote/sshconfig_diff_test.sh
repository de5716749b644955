#!/bin/bash
# sshconfig_diff_test.sh: ssh_config and the known_hosts files it names,
# read by calops (remote/sshconfig.c, sshhost.c, knownhosts.c) and by
# OpenSSH itself, on the same files.  For each case a config of our own
# (Match, Include, tokens, IdentityFile lists, unknown keywords and
# IgnoreUnknown, HostKeyAlias, UserKnownHostsFile and GlobalKnownHostsFile
# lists, StrictHostKeyChecking, …) is given to
#
#	ssh -G -F CONFIG ALIAS
#	calops hosts --json --ssh-config CONFIG LAB	(LAB: ALIAS alone,
#							 accept_new: true)
#
# and both must pick the same address, port, user, identity files,
# known_hosts files, host key name and policy, the same way there (each
# ProxyJump hop where ssh's own `ssh -l -p HOP` for it would go, the
# ProxyCommand as ssh expands it), or refuse the config at the same line.  A host-key case (kcase) also connects, to two loopback sshds
# (share/sshlab.sh's host1, ED25519, and one with an ECDSA key), with the
# real `ssh -v -o BatchMode=yes` on one copy of its known_hosts files and
# calops on another: the same verdict (connects, unknown, changed,
# revoked, auth), the same identities (ssh -v's "identity file" lines) and
# a new key added to the same file.  Where calops is stricter on purpose
# (share/doc/lab.md, "Where calops is stricter than ssh") the case says
# what calops does instead.  The cases are judged by sshconfig_diff.py.
#
#	sshconfig_diff_test.sh CALOPS_BINARY
set -u

CALOPS=${1:?usage: sshconfig_diff_test.sh CALOPS_BINARY}
. "$(dirname "$0")/lib.sh"
remote_test sshconfig_diff exit
JUDGE=$SRC/tests/remote/sshconfig_diff.py
PATH_NO_BLANK=1
sshlab_prereqs
two_sshds scdiff
LOCAL_USER=$(id -un)
mkdir "$T/keys" "$T/inc"
cp "$ID" "$T/keys/id_127.0.0.1"
k() { cut -d' ' -f1,2 "$1"; }
ssh-keygen -q -t ed25519 -N '' -f "$T/o_ed" </dev/null
ssh-keygen -q -t ecdsa -N '' -f "$T/o_ec" </dev/null
SRV_ED=$(k "$L/host1/ssh_host_ed25519_key.pub")
SRV_EC=$(k "$T/ec/hostkey.pub")
O_ED=$(k "$T/o_ed.pub")
O_EC=$(k "$T/o_ec.pub")
N_ED="[127.0.0.1]:$PORT_ED"
N_EC="[127.0.0.1]:$PORT_EC"
export CALOPS_DIFF_VAR=$T/var
# Where sshconfig_diff.py looks up the jump hosts with ssh -G itself.
export DIFF_CONFIG=$T/config

# A third sshd offering two keys, host1's ED25519 one and an ECDSA one of
# its own (the HostKeyAlgorithms cases): its port in PORT_BOTH.
EC_PID_=$EC_PID
PORT_EC_=$PORT_EC
sshd_ecdsa "$T/both" "$L/host1/sshd_config" "$L/host1/ssh_host_ed25519_key"
BOTH_PID=$EC_PID
PORT_BOTH=$PORT_EC
EC_PID=$EC_PID_
PORT_EC=$PORT_EC_
both_down() {
	[ -n "$BOTH_PID" ] && kill "$BOTH_PID" 2>/dev/null
	two_sshds_down
}
trap both_down EXIT
SRV_BOTH_EC=$(k "$T/both/hostkey.pub")
N_BOTH="[127.0.0.1]:$PORT_BOTH"

# The placeholders a case's config may hold.
subst() {
	sed -e "s|@T@|$T|g" -e "s|@KH@|$1|g" -e "s|@PORT_ED@|$PORT_ED|g" \
	    -e "s|@PORT_BOTH@|$PORT_BOTH|g" \
	    -e "s|@PORT_EC@|$PORT_EC|g" -e "s|@USER@|$USER_|g" \
	    -e "s|@ID@|$ID|g" -e "s|@LOCAL@|$LOCAL_USER|g"
}

# The lab file of a case: its one host is ALIAS, as the config has it,
# with accept_new: ACCEPT_NEW (true unless given).
lab() {
	cat >"$T/lab.yaml" <<EOF
hosts:
  - name: h
    transport: ssh
    address: "$1"
    calops: "$L/bin/calops"
    accept_new: ${2:-true}
EOF
}

PASSED=0
FAILED=0
STRICTER=0
verdict() {
	local name=$1
	shift
	if "$PY" "$JUDGE" "$@" >"$T/judge.txt"; then
		PASSED=$((PASSED + 1))
		local why=
		case $6 in
		?*)	STRICTER=$((STRICTER + 1))
			why=" -- calops stricter on purpose: $6" ;;
		esac
		say "ok   $name$(sed -n 's/^ok:/:/p' "$T/judge.txt")$why"
	else
		FAILED=$((FAILED + 1))
		say "FAIL $name"
		sed 's/^/    /' "$T/judge.txt"
	fi
}

# "+strict" when the config FILE says StrictHostKeyChecking (the judge's
# MODE).
strict_set() {
	grep -qi stricthostkeychecking "$1" && echo +strict
}

# gcase NAME ALIAS [STRICTER [IGNORED]] <CONFIG: ssh -G against calops.
gcase() {
	local name=$1 alias=$2 stricter=${3:-} ignored=${4:--} rc
	subst "$T/kh" >"$T/config"
	lab "$alias"
	ssh -G -F "$T/config" "$alias" >"$T/g.out" 2>"$T/g.err" </dev/null
	rc=$?
	timeout 60 "$CALOPS" hosts --json --timeout 10 --ssh-config \
	    "$T/config" "$T/lab.yaml" >"$T/out.json" 2>"$T/err.txt"
	DIFF_ALIAS=$alias verdict "$name" "$T/g.out" "$T/g.err" "$rc" \
	    "$T/out.json" "config$(strict_set "$T/config")" "$stricter" \
	    "$ignored"
}

# kh FILE <LINES: a known_hosts file of the next kcase, under @KH@; a
# FILE.in is a config file to include, its placeholders replaced in each
# copy.
kh() {
	mkdir -p "$T/base/$(dirname "$1")"
	cat >"$T/base/$1"
}

# The files under DIR that differ from the case's base, one word.
added() {
	local f out=
	for f in $(cd "$1" && find . -type f ! -name '*.conf*' | sort); do
		cmp -s "$1/$f" "$T/base/$f" 2>/dev/null || out="$out${f#./},"
	done
	echo "${out:-none}"
}

# kcase NAME ALIAS [STRICTER] <CONFIG: ssh -G, a real ssh and calops,
# each with its own copy of the known_hosts files kh wrote (@KH@).  The
# lab file says accept_new: $LAB_ACCEPT (true) when the config says
# StrictHostKeyChecking, else false.
kcase() {
	local name=$1 alias=$2 stricter=${3:-} grc vrc cfg f labask
	cfg=$(cat)
	mkdir -p "$T/base"
	rm -rf "$T/s" "$T/c"
	cp -R "$T/base" "$T/s"
	cp -R "$T/base" "$T/c"
	for f in "$T/base"/*.in; do
		[ -e "$f" ] || continue
		f=${f##*/}
		subst "$T/s" <"$T/base/$f" >"$T/s/${f%.in}"
		subst "$T/c" <"$T/base/$f" >"$T/c/${f%.in}"
	done
	printf '%s\n' "$cfg" | subst "$T/s" >"$T/config_s"
	printf '%s\n' "$cfg" | subst "$T/c" >"$T/config"
	# Where the config does not say StrictHostKeyChecking, ssh asks (in
	# BatchMode: refuses an unknown key), and so does the lab file.
	labask=
	if [ -n "$(strict_set "$T/config")" ]; then
		lab "$alias" "${LAB_ACCEPT:-true}"
		[ "${LAB_ACCEPT:-true}" = true ] || labask=+labask
	else
		lab "$alias" false
		labask=+labask
	fi
	ssh -G -F "$T/config" "$alias" >"$T/g.out" 2>"$T/g.err" </dev/null
	grc=$?
	timeout 60 ssh -v -F "$T/config_s" -o BatchMode=yes "$alias" true \
	    >"$T/v.out" 2>&1 </dev/null
	vrc=$?
	timeout 60 "$CALOPS" hosts --json --timeout 30 --ssh-config \
	    "$T/config" "$T/lab.yaml" >"$T/out.json" 2>"$T/err.txt"
	DIFF_ALIAS=$alias verdict "$name" "$T/g.out" "$T/g.err" "$grc" \
	    "$T/out.json" \
	    "key$(strict_set "$T/config")$labask" \
	    "$stricter" - "$T/v.out" "$vrc" "$(added "$T/s")" \
	    "$(added "$T/c")"
	rm -rf "$T/base"
}

# ---- the address, port and user: Host, Match, tokens ----
gcase host_plain h1 <<'EOF'
Host h1
  HostName h1.invalid
  User u1
  Port 2201
EOF
gcase host_first_wins h1 <<'EOF'
Host h1
  User first
Host *
  User second
  Port 2202
EOF
gcase host_negated h1 <<'EOF'
Host h* !h1
  User never
Host *
  User all
EOF
gcase host_case_matters H1 <<'EOF'
Host h1
  User lower
EOF
gcase hostname_token web <<'EOF'
Host web
  HostName %h.lab.invalid
EOF
gcase hostname_percent web <<'EOF'
Host web
  HostName web%%1.invalid
EOF
gcase hostname_bad_token web <<'EOF'
Host web
  HostName %h.%p.invalid
EOF
gcase hostname_uppercase web <<'EOF'
Host web
  HostName WEB.Lab.INVALID
EOF
gcase hostname_address_v4 web <<'EOF'
Host web
  HostName 127.1
EOF
gcase hostname_address_v6 web <<'EOF'
Host web
  HostName 2001:0DB8:0::1
EOF
gcase port_service web <<'EOF'
Port ssh
EOF
gcase port_bad web <<'EOF'
Host other
  Port 0
EOF
gcase equals_and_quotes web <<'EOF'
HOST="web"
  user = "quoted user"
  PORT=2203
EOF
gcase match_host h1 <<'EOF'
Match host h1
  User mu
EOF
gcase match_host_negated h1 <<'EOF'
Match !host h1
  User never
Match all
  User all
EOF
gcase match_host_list_negation xy <<'EOF'
Match host x*,!xy
  User never
Match host x*
  User listed
EOF
gcase match_host_is_hostname a <<'EOF'
Host a
  HostName real.invalid
Match host real.invalid
  Port 2204
EOF
gcase match_host_pattern_lowercased a <<'EOF'
Host a
  HostName Real.Invalid
Match host REAL.invalid
  Port 2205
EOF
gcase match_originalhost a <<'EOF'
Host a
  HostName b.invalid
Match originalhost a
  User orig
EOF
gcase match_originalhost_case A <<'EOF'
Match originalhost A
  User never
EOF
gcase match_user_set_before h1 <<'EOF'
Host *
  User bob
Match user bob
  Port 2206
EOF
gcase match_user_set_after h1 <<'EOF'
Match user bob
  Port 2207
Host *
  User bob
EOF
gcase match_user_default h1 <<'EOF'
Match user @LOCAL@
  Port 2208
EOF
gcase match_localuser h1 <<'EOF'
Match localuser @LOCAL@
  User lu
EOF
gcase match_localuser_negated h1 <<'EOF'
Match !localuser @LOCAL@
  User never
EOF
gcase match_all h1 <<'EOF'
Match all
  User all
EOF
gcase match_not_all h1 <<'EOF'
Match !all
  User never
EOF
gcase match_all_combined h1 <<'EOF'
Match all host h1
  User never
EOF
gcase match_several h1 <<'EOF'
Match host h* user @LOCAL@ localuser @LOCAL@
  Port 2209
EOF
gcase match_one_fails h1 <<'EOF'
Match host h* user nobody-else
  Port 2210
EOF
gcase match_canonical_first_pass h1 <<'EOF'
Match canonical
  User never
EOF
gcase match_final h1 <<'EOF'
Match final
  User fin
EOF
gcase match_final_host_hostname a <<'EOF'
Host a
  HostName b.invalid
Match final host b.invalid
  Port 2211
Host b.invalid
  User byhostname
EOF
gcase match_final_first_pass_wins a <<'EOF'
Host a
  User first
Match final
  User final
EOF
gcase match_missing_value h1 <<'EOF'
Host h1
  User x
Match host
EOF
gcase match_bad_criterion h1 <<'EOF'
Match nosuch x
EOF
gcase match_exec_not_reached h1 <<'EOF'
Match host other exec "false"
  User never
EOF
gcase match_exec h1 "refused:'Match exec' is refused" <<'EOF'
Match exec "true"
  User ran
EOF
gcase match_then_host h1 <<'EOF'
Match host h1
  Port 2212
Host h1
  User afterwards
EOF

# ---- Include ----
printf 'Host inc\n  User fromfile\n' >"$T/inc/a.conf"
printf 'Host inc\n  User second\n  Port 2213\n' >"$T/inc/b.conf"
printf 'Include @T@/inc/a.conf\n' | subst "$T/kh" >"$T/inc/nested.conf"
chmod 644 "$T/inc/"*.conf
gcase include_file inc <<'EOF'
Include @T@/inc/a.conf
EOF
gcase include_glob_order inc <<'EOF'
Include @T@/inc/[ab].conf
EOF
gcase include_in_other_block inc <<'EOF'
Host other
  Include @T@/inc/a.conf
Host *
  User outside
EOF
gcase include_in_block inc <<'EOF'
Host inc
  Include @T@/inc/b.conf
EOF
gcase include_missing inc <<'EOF'
Include @T@/inc/nothing-*.conf
User none-found
EOF
gcase include_nested inc <<'EOF'
Include @T@/inc/nested.conf
EOF

# ---- IdentityFile lists, IdentitiesOnly, IdentityAgent ----
gcase ids_several h1 <<'EOF'
Host h1
  IdentityFile ~/.ssh/a
  IdentityFile /k/b
Host *
  IdentityFile ~/.ssh/c
EOF
gcase ids_twice h1 <<'EOF'
IdentityFile /k/a
IdentityFile /k/b
IdentityFile /k/a
EOF
gcase ids_none_only h1 <<'EOF'
IdentityFile none
EOF
gcase ids_none_among h1 <<'EOF'
IdentityFile /k/a
IdentityFile none
IdentityFile /k/b
EOF
gcase ids_default h1 <<'EOF'
User u
EOF
gcase ids_tokens h1 <<'EOF'
IdentityFile ~/.ssh/id_%h_%r_%p_%u_%n
IdentityFile ${CALOPS_DIFF_VAR}/%C
EOF
gcase ids_quoted h1 <<'EOF'
IdentityFile "/k/with blank"
IdentityFile2 /k/two
EOF
gcase ids_extra_value h1 <<'EOF'
IdentityFile /k/a /k/b
EOF
gcase ids_only_yes h1 <<'EOF'
IdentitiesOnly yes
IdentityFile /k/a
EOF
gcase ids_only_true_first_wins h1 <<'EOF'
Host h1
  IdentitiesOnly true
Host *
  IdentitiesOnly no
EOF
gcase ids_only_bad h1 <<'EOF'
IdentitiesOnly maybe
EOF
gcase agent_none h1 <<'EOF'
IdentityAgent none
EOF
gcase agent_env h1 <<'EOF'
IdentityAgent SSH_AUTH_SOCK
EOF
gcase agent_path h1 <<'EOF'
IdentityAgent /run/agent.sock
EOF
gcase certificate_file h1 "refused:'CertificateFile" <<'EOF'
CertificateFile /k/cert.pub
EOF
gcase certificate_none h1 <<'EOF'
CertificateFile none
EOF
gcase revoked_host_keys h1 "refused:'RevokedHostKeys" <<'EOF'
RevokedHostKeys /k/revoked.krl
EOF
gcase revoked_host_keys_none h1 <<'EOF'
Host h1
  RevokedHostKeys none
Host *
  RevokedHostKeys /k/never-applies.krl
EOF

# ---- unknown keywords, IgnoreUnknown, keywords calops ignores ----
gcase unknown_keyword h1 <<'EOF'
Host h1
  User u
  Frobnicate yes
EOF
gcase unknown_in_other_block h1 <<'EOF'
Host other
  Frobnicate yes
EOF
gcase keyword_any_case h1 <<'EOF'
hOsTnAmE mixed.invalid
uSeR mixed
EOF
gcase ignore_unknown h1 <<'EOF'
IgnoreUnknown Frob*,Other
Frobnicate yes
Other x
EOF
gcase ignore_unknown_after h1 <<'EOF'
Frobnicate yes
IgnoreUnknown Frob*
EOF
gcase ignore_unknown_other_block h1 <<'EOF'
Host other
  IgnoreUnknown Frob*
Host *
  Frobnicate yes
EOF
gcase ignore_unknown_negated h1 <<'EOF'
IgnoreUnknown *,!frobnicate
Frobnicate yes
EOF
gcase ignore_unknown_first_wins h1 <<'EOF'
IgnoreUnknown Alpha
IgnoreUnknown Beta
Beta 1
EOF
gcase ssh_deprecated h1 <<'EOF'
Cipher blowfish
Protocol 2
RSAAuthentication yes
EOF
gcase ignored_listed h1 "" "ControlMaster:2,ForwardAgent:3,LocalForward:6" \
    <<'EOF'
Host h1
  ControlMaster auto
  ForwardAgent yes
Host *
  ControlMaster no
  LocalForward 8080 localhost:80
Host other
  SendEnv LANG
EOF
gcase ignored_gssapi_debian h1 "" "GSSAPIKeyExchange:1,GSSAPITrustDNS:2" \
    <<'EOF'
GSSAPIKeyExchange yes
GSSAPITrustDNS no
EOF
gcase value_missing h1 <<'EOF'
Host h1
  ForwardAgent
EOF

# ---- known_hosts files, HostKeyAlias, StrictHostKeyChecking ----
gcase ukhf_default h1 <<'EOF'
User u
EOF
gcase ukhf_several h1 <<'EOF'
UserKnownHostsFile /k/one /k/two ~/k/three
EOF
gcase ukhf_tokens h1 <<'EOF'
Host h1
  HostName Real.Invalid
  User ru
  Port 2222
  HostKeyAlias Alias.Key
  UserKnownHostsFile /k/%h_%p_%r_%u_%n_%k_%d_%i_%L_%l %C ${CALOPS_DIFF_VAR}/x
EOF
gcase ukhf_tilde h1 <<'EOF'
UserKnownHostsFile ~/.ssh/lab_hosts ~root/kh
EOF
gcase ukhf_first_line_wins h1 <<'EOF'
Host h1
  UserKnownHostsFile /k/first
Host *
  UserKnownHostsFile /k/second
EOF
gcase ukhf_none h1 <<'EOF'
UserKnownHostsFile none
EOF
gcase ukhf_none_not_alone h1 <<'EOF'
UserKnownHostsFile /k/a none
EOF
gcase ukhf_unset_var h1 <<'EOF'
UserKnownHostsFile ${CALOPS_DIFF_UNSET}/kh
EOF
gcase gkhf_several h1 <<'EOF'
GlobalKnownHostsFile /k/g1 /k/g2
EOF
gcase gkhf_none h1 <<'EOF'
GlobalKnownHostsFile none
EOF
gcase hostkeyalias h1 <<'EOF'
HostKeyAlias Lab-Alias
EOF
gcase hostkeyalias_extra h1 <<'EOF'
HostKeyAlias a b
EOF
for v in yes no ask accept-new off true false; do
	printf 'StrictHostKeyChecking %s\n' "$v" | gcase "strict_$v" h1
done
gcase strict_bad h1 <<'EOF'
StrictHostKeyChecking sometimes
EOF
gcase strict_first_wins h1 <<'EOF'
Host h1
  StrictHostKeyChecking yes
Host *
  StrictHostKeyChecking no
EOF

# ---- address family, timeouts, canonical names ----
for v in inet inet6 any; do
	printf 'AddressFamily %s\n' "$v" | gcase "family_$v" h1
done
gcase family_bad h1 <<'EOF'
AddressFamily inet7
EOF
gcase connect_timeout h1 <<'EOF'
ConnectTimeout 1m5s
EOF
gcase connect_timeout_none_then h1 <<'EOF'
Host h1
  ConnectTimeout none
Host *
  ConnectTimeout 7
EOF
gcase alive_count_max h1 <<'EOF'
ServerAliveCountMax 5
ServerAliveInterval 10
EOF
gcase alive_count_max_zero h1 <<'EOF'
ServerAliveCountMax 0
EOF
gcase alive_count_max_bad h1 <<'EOF'
ServerAliveCountMax -1
EOF
gcase canon_lowercase LocalHost <<'EOF'
CanonicalizeHostname yes
CanonicalDomains invalid
Host localhost
  User canon
EOF
gcase canon_final_dot localhost. <<'EOF'
CanonicalizeHostname yes
Host localhost
  User never
EOF
gcase canon_no_fallback nosuchhost <<'EOF'
CanonicalizeHostname yes
CanonicalizeFallbackLocal no
CanonicalDomains invalid
EOF
gcase canon_max_dots a.b.c <<'EOF'
CanonicalizeHostname always
CanonicalizeFallbackLocal no
CanonicalizeMaxDots 1
Host a.b.c
  User dotted
EOF
gcase canon_match_canonical h1 <<'EOF'
CanonicalizeHostname yes
Match canonical
  User canonical
EOF
gcase canon_off h1 <<'EOF'
CanonicalizeHostname no
Match canonical
  User never
EOF

# ---- host keys: every file, in ssh's order, against the real ssh ----
ED="HostName 127.0.0.1
  Port @PORT_ED@
  User @USER@
  IdentityFile @ID@"
EC="HostName 127.0.0.1
  Port @PORT_EC@
  User @USER@
  IdentityFile @ID@"
# The known_hosts files most cases read: u1, or u1 then u2, alone.
U1="UserKnownHostsFile @KH@/u1
  GlobalKnownHostsFile none"
U12="UserKnownHostsFile @KH@/u1 @KH@/u2
  GlobalKnownHostsFile none"

kh u1 <<<"$N_ED $SRV_ED"
kcase kh_single_match ed <<EOF
Host ed
  $ED
  $U1
EOF
kh u2 <<<"$N_ED $SRV_ED"
kcase kh_second_file_match ed <<EOF
Host ed
  $ED
  $U12
EOF
kh u1 <<<"$N_ED $O_EC"
kh u2 <<<"$N_ED $SRV_ED"
kcase kh_other_type_then_match_in_next ed <<EOF
Host ed
  $ED
  $U12
EOF
kh u1 <<<"# nothing"
kh u2 <<<"$N_ED $O_ED"
kcase kh_changed_in_second ed <<EOF
Host ed
  $ED
  $U12
  StrictHostKeyChecking accept-new
EOF
kh u1 <<<"$N_ED $SRV_ED"
kh u2 <<<"@revoked * $SRV_ED"
kcase kh_revoked_in_second ed <<EOF
Host ed
  $ED
  $U12
EOF
kh g1 <<<"$N_ED $SRV_ED"
kcase kh_global_match ed <<EOF
Host ed
  $ED
  UserKnownHostsFile @KH@/u1
  GlobalKnownHostsFile @KH@/g1
EOF
kh u1 <<<"$N_ED $SRV_ED"
kh g1 <<<"@revoked $N_ED $SRV_ED"
kcase kh_global_revokes ed <<EOF
Host ed
  $ED
  UserKnownHostsFile @KH@/u1
  GlobalKnownHostsFile @KH@/g1
EOF
kh g1 <<<"$N_ED $O_ED"
kcase kh_global_changed_accept_new ed <<EOF
Host ed
  $ED
  UserKnownHostsFile @KH@/u1
  GlobalKnownHostsFile @KH@/g1
  StrictHostKeyChecking accept-new
EOF
kh g2 <<<"$N_ED $SRV_ED"
kcase kh_global_second ed <<EOF
Host ed
  $ED
  UserKnownHostsFile @KH@/u1
  GlobalKnownHostsFile @KH@/g1 @KH@/g2
EOF
kh g1 <<<"$N_ED $SRV_ED"
kcase kh_user_none_global_match ed <<EOF
Host ed
  $ED
  UserKnownHostsFile none
  GlobalKnownHostsFile @KH@/g1
EOF
kh u2 <<<"# kept"
kcase kh_accept_new_writes_first ed <<EOF
Host ed
  $ED
  $U12
  StrictHostKeyChecking accept-new
EOF
kh u1 <<<"# first"
kcase kh_accept_new_existing_first ed <<EOF
Host ed
  $ED
  $U12
  StrictHostKeyChecking accept-new
EOF
kh g1 <<<"$N_ED $O_EC"
kcase kh_accept_new_other_type_global ed <<EOF
Host ed
  $ED
  UserKnownHostsFile @KH@/u1
  GlobalKnownHostsFile @KH@/g1
  StrictHostKeyChecking accept-new
EOF
kh g1 <<<"@revoked * $SRV_ED"
kcase kh_accept_new_revoked_global ed <<EOF
Host ed
  $ED
  UserKnownHostsFile @KH@/u1
  GlobalKnownHostsFile @KH@/g1
  StrictHostKeyChecking accept-new
EOF
kcase kh_unknown_yes ed <<EOF
Host ed
  $ED
  $U1
  StrictHostKeyChecking yes
EOF
kcase kh_unknown_ask ed <<EOF
Host ed
  $ED
  $U1
  StrictHostKeyChecking ask
EOF
kcase kh_unknown_no_adds ed <<EOF
Host ed
  $ED
  $U1
  StrictHostKeyChecking no
EOF
kh u1 <<<"$N_ED $O_ED"
kcase kh_changed_no ed "class:changed" <<EOF
Host ed
  $ED
  $U1
  StrictHostKeyChecking no
EOF
kh u1 <<<"$N_ED $SRV_ED"
kcase kh_match_yes ed <<EOF
Host ed
  $ED
  $U1
  StrictHostKeyChecking yes
EOF
kcase kh_dev_null_accept_new ed <<EOF
Host ed
  $ED
  UserKnownHostsFile /dev/null
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking accept-new
EOF
kh u1 <<<"lab-alias $SRV_ED"
kcase kh_alias_match ed <<EOF
Host ed
  $ED
  HostKeyAlias Lab-Alias
  $U1
EOF
kh u1 <<<"$N_ED $SRV_ED"
kcase kh_alias_real_name_only ed <<EOF
Host ed
  $ED
  HostKeyAlias lab-alias
  $U1
EOF
kh u1 <<<"[lab-alias]:$PORT_ED $SRV_ED"
kcase kh_alias_has_no_port ed <<EOF
Host ed
  $ED
  HostKeyAlias lab-alias
  $U1
EOF
kcase kh_alias_accept_new ed <<EOF
Host ed
  $ED
  HostKeyAlias lab-alias
  $U1
  StrictHostKeyChecking accept-new
EOF
kh u1 <<<"lab-alias $O_EC"
kcase kh_alias_other_type ed <<EOF
Host ed
  $ED
  HostKeyAlias lab-alias
  $U1
EOF
kh u1 <<<"lab-alias $SRV_ED"
kh u2 <<<"@revoked lab-alias $SRV_ED"
kcase kh_alias_revoked ed <<EOF
Host ed
  $ED
  HostKeyAlias lab-alias
  $U12
EOF
kh ed.kh <<<"$N_ED $SRV_ED"
kcase kh_tokens_per_host ed <<EOF
Host ed
  $ED
  UserKnownHostsFile @KH@/%n.kh
  GlobalKnownHostsFile none
EOF
kh 127.0.0.1_$PORT_ED <<<"$N_ED $SRV_ED"
kcase kh_tokens_hostname_port ed <<EOF
Host ed
  $ED
  UserKnownHostsFile @KH@/%h_%p
  GlobalKnownHostsFile none
EOF
kh m1 <<<"$N_ED $SRV_ED"
kcase kh_from_match ed <<EOF
Host ed
  $ED
Match host 127.0.0.1 originalhost ed
  UserKnownHostsFile @KH@/m1
  GlobalKnownHostsFile none
EOF
kh i1 <<<"$N_ED $O_ED"
printf 'UserKnownHostsFile @KH@/i1\nGlobalKnownHostsFile none\n' |
	kh kh.conf.in
kcase kh_from_include ed <<EOF
Host ed
  $ED
  Include @KH@/kh.conf
EOF
kh u1 <<<"$N_EC $SRV_EC"
kcase kh_ecdsa_match ec <<EOF
Host ec
  $EC
  $U1
EOF
kh u1 <<<"$N_EC $SRV_ED"
kh u2 <<<"$N_EC $SRV_EC"
kcase kh_ecdsa_other_type_then_match ec <<EOF
Host ec
  $EC
  $U12
EOF
kh u1 <<<"$N_EC $O_EC"
kcase kh_ecdsa_changed ec <<EOF
Host ec
  $EC
  $U1
EOF
kh u1 <<<"[127.0.0.1]:*,!$N_EC $O_EC"
kcase kh_ecdsa_negated_accept_new ec <<EOF
Host ec
  $EC
  $U1
  StrictHostKeyChecking accept-new
EOF

# HostKeyAlgorithms against an sshd with two keys (ED25519 and ECDSA):
# not given, the type known_hosts holds is asked first (ssh's
# order_hostkeyalgs); given, it is asked as it is, and a key of another
# type than the one known is CHANGED.
BOTH="HostName 127.0.0.1
  Port @PORT_BOTH@
  User @USER@
  IdentityFile @ID@
  $U1"
kh u1 <<<"$N_BOTH $SRV_BOTH_EC"
kcase hka_known_type_first both <<EOF
Host both
  $BOTH
EOF
kh u1 <<<"$N_BOTH $SRV_BOTH_EC"
kcase hka_forces_other_type both <<EOF
Host both
  $BOTH
  HostKeyAlgorithms ssh-ed25519
EOF
kh u1 <<<"$N_BOTH $SRV_ED"
kcase hka_caret_match both <<EOF
Host both
  $BOTH
  HostKeyAlgorithms ^ssh-ed25519
EOF
kh u1 <<<"$N_BOTH $SRV_ED"
kcase hka_minus_known_type both <<EOF
Host both
  $BOTH
  HostKeyAlgorithms -ssh-ed25519
EOF
kh u1 <<<"# nothing"
kcase hka_accept_new_ecdsa both <<EOF
Host both
  $BOTH
  HostKeyAlgorithms ecdsa-sha2-nistp256
  StrictHostKeyChecking accept-new
EOF

# ---- calops stricter on purpose (share/doc/lab.md) ----
kh u1 <<<"$N_ED $SRV_ED"
mkdir -p "$T/base/folder"
kcase kh_file_is_a_folder ed "class:other" <<EOF
Host ed
  $ED
  UserKnownHostsFile @KH@/folder @KH@/u1
  GlobalKnownHostsFile none
EOF
LAB_ACCEPT=false kcase kh_lab_asks_config_accepts ed "class:unknown" <<EOF
Host ed
  $ED
  $U1
  StrictHostKeyChecking accept-new
EOF

# ---- identities and addresses, connected ----
kh u1 <<<"$N_ED $SRV_ED"
kcase id_list_missing_then_real ed <<EOF
Host ed
  HostName 127.0.0.1
  Port @PORT_ED@
  User @USER@
  IdentityFile @T@/keys/missing
  IdentityFile @T@/keys/id_%h
  $U1
EOF
kh u1 <<<"$N_ED $SRV_ED"
kcase id_none_no_agent ed <<EOF
Host ed
  HostName 127.0.0.1
  Port @PORT_ED@
  User @USER@
  IdentityFile none
  IdentityAgent none
  $U1
EOF
kh u1 <<<"$N_ED $SRV_ED"
kcase id_from_match_user ed <<EOF
Host ed
  HostName 127.0.0.1
  Port @PORT_ED@
  User @USER@
Match user @USER@
  IdentityFile @ID@
  IdentitiesOnly yes
  $U1
EOF
kh u1 <<<"$N_ED $SRV_ED"
kcase family_inet6_of_v4 ed <<EOF
Host ed
  $ED
  AddressFamily inet6
  $U1
EOF
kh u1 <<<"$N_ED $SRV_ED"
kcase connect_timeout_connects ed <<EOF
Host ed
  $ED
  ConnectTimeout 20
  ServerAliveCountMax 2
  $U1
EOF

# ---- the way there: ProxyJump and ProxyCommand (ssh -G's proxyjump, each
# hop looked up as ssh's own `ssh -l -p -J` for it would; proxycommand
# expanded as ssh's expand_proxy_command() does) ----
gcase pj_single h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump j1.invalid
EOF
gcase pj_user_port h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump ju@j1.invalid:2222
EOF
gcase pj_hop_own_config h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump j1
Host j1
  HostName j1.invalid
  User ju
  Port 2022
EOF
gcase pj_hop_user_port_win h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump over@j1:3000
Host j1
  HostName j1.invalid
  User ju
  Port 2022
EOF
gcase pj_chain_two h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump a@j1.invalid:2201,j2
Host j2
  HostName j2.invalid
  User ju2
EOF
gcase pj_chain_three h1 <<'EOF'
Host h1
  HostName t.invalid
  User hu
  ProxyJump j1,u2@j2:2002,j3
Host j*
  HostName %h.invalid
  Port 2100
  ProxyJump never.invalid
EOF
gcase pj_ssh_uri h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump ssh://su@j1.invalid:2200
EOF
gcase pj_ssh_uri_chain h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump ssh://j1.invalid,ssh://v@j2.invalid:22,w@j3.invalid
EOF
gcase pj_ipv6_port h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump ju@[::1]:1
EOF
gcase pj_hop_has_own_jump h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump j2
Host j2
  HostName j2.invalid
  ProxyJump ju@j1.invalid:2001
EOF
gcase pj_none_first h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump none
Host *
  ProxyJump j1.invalid
EOF
gcase pj_none_then_command h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump none
  ProxyCommand false %h
EOF
gcase pj_then_command h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump j1.invalid
  ProxyCommand false %h
EOF
gcase command_then_pj h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyCommand false %h %p
  ProxyJump j1.invalid
EOF
gcase command_none_then_pj h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyCommand none
Host *
  ProxyJump j1.invalid
EOF
gcase pj_host_first_wins h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump j1.invalid
Host * !j*
  ProxyJump j2.invalid
EOF
gcase pj_match_host h1 <<'EOF'
Host h1
  HostName t.invalid
Match host t.invalid
  ProxyJump mu@j1.invalid:2300
EOF
gcase pj_match_originalhost_user h1 <<'EOF'
Host h1
  HostName t.invalid
  User mu
Match originalhost h1 user mu
  ProxyJump j1.invalid,j2.invalid
Match originalhost h*
  ProxyJump never.invalid
EOF
gcase pj_match_not_taken h1 <<'EOF'
Host h1
  HostName t.invalid
Match originalhost other
  ProxyJump never.invalid
EOF
cat >"$T/inc/jump.conf" <<'EOF'
Host h1
  ProxyJump iu@j1.invalid:2400
Host j1.invalid
  User never
EOF
gcase pj_via_include h1 <<'EOF'
Host h1
  HostName t.invalid
Include @T@/inc/jump.conf
EOF
gcase pj_bad_entry h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyJump j1.invalid,,j2.invalid
EOF
gcase pc_tokens h1 <<'EOF'
Host h1
  HostName T1.Invalid
  User pu
  Port 2500
  ProxyCommand false %h %p %r %n %% %%h
EOF
gcase pc_hostkeyalias_k h1 <<'EOF'
Host h1
  HostName t.invalid
  HostKeyAlias kal
  ProxyCommand false %k %h
EOF
gcase pc_k_without_alias h1 <<'EOF'
Host h1
  HostName t.invalid
  ProxyCommand false %k:%n
EOF
gcase pc_match_user h1 <<'EOF'
Host h1
  HostName t.invalid
Match user @LOCAL@
  ProxyCommand false %r@%h:%p
EOF
cat >"$T/inc/command.conf" <<'EOF'
ProxyCommand false from-include %n
EOF
gcase pc_via_include h1 <<'EOF'
Host h1
  HostName t.invalid
  Include @T@/inc/command.conf
EOF
gcase pc_user_from_later_block h1 <<'EOF'
Host h1
  ProxyCommand false %r %h
Host *
  HostName %h.invalid
  User late
EOF

# Every bad line is reported, as ssh prints each and stops at the end of
# the file it is in (readconf.c, read_config_file_depth): the lines and
# the count must be ssh's.
gcase errors_every_line h1 <<'EOF'
Host h1
  Bogus 1
  ControlMaster maybe
  Port 0
Host other
  Compression true
  User fine
EOF
cat >"$T/inc/bad.conf" <<'EOF'
ForwardX11 perhaps
BatchMode yes no
EOF
gcase errors_in_include h1 <<'EOF'
Host h1
  RequestTTY sometimes
  Include @T@/inc/bad.conf
  Tunnel maybe
EOF
gcase errors_include_clean_then_bad h1 <<'EOF'
Include @T@/inc/command.conf
Host h1
  EscapeChar ab
  RekeyLimit 10
EOF

# Keywords calops does not act on: each value checked as ssh checks it
# (remote/sshconfig_check.c), in a block that applies or not.
while IFS='|' read -r name line; do
	gcase "value_${name#*:}" h1 <<<"$(printf 'Host %s\n  %s\n' \
	    "${name%%:*}" "$line")"
done <<'EOF'
h1:controlmaster|ControlMaster maybe
other:controlmaster_not_applied|ControlMaster maybe
h1:controlmaster_extra|ControlMaster auto no
h1:flag|ForwardX11 on
h1:flag_gssapi|GSSAPIRenewalForcesRekey maybe
h1:compression_true|Compression true
h1:tunnel|Tunnel bridge
h1:requesttty|RequestTTY sometimes
h1:sessiontype|SessionType shell
h1:pubkeyauth|PubkeyAuthentication maybe
h1:updatehostkeys|UpdateHostKeys always
h1:loglevel|LogLevel loud
h1:facility|SyslogFacility LOCAL8
h1:fingerprint|FingerprintHash md4
h1:int_negative|NumberOfPasswordPrompts -1
h1:int_hex|ConnectionAttempts 0x5
h1:time|ForwardX11Timeout 1x
h1:time_keepalive|ProtocolKeepAlives soon
h1:ciphers|Ciphers aes*
h1:ciphers_none|Ciphers none
h1:ciphers_plus_alone|Ciphers +
h1:macs_second|MACs hmac-sha1,hmac-bogus
h1:kex|KexAlgorithms +curve25519-bogus
h1:hostkeyalgorithms|HostKeyAlgorithms +ssh-foo*
h1:pubkeyalgorithms|PubkeyAcceptedAlgorithms ssh-rsa,ssh-bogus
h1:gsskex|GSSAPIKexAlgorithms gss-bogus-
h1:escapechar|EscapeChar ab
h1:rekey_small|RekeyLimit 10
h1:rekey_unit|RekeyLimit 1X
h1:rekey_time|RekeyLimit 1G soon
h1:ipqos|IPQoS fast
h1:ipqos_three|IPQoS af11 cs1 cs2
h1:mask|StreamLocalBindMask 1777
h1:tundev|TunnelDevice 1:x
h1:persist|ControlPersist none
h1:persist_case|ControlPersist YES
h1:addkeys|AddKeysToAgent ask 10
h1:forwardagent_var|ForwardAgent $A-B
h1:forwardagent_unset|ForwardAgent ${CALOPS_DIFF_UNSET}
h1:sendenv|SendEnv A=B
h1:setenv|SetEnv A
h1:localforward_target|LocalForward 8080
h1:localforward_port|LocalForward x localhost:80
h1:localforward_zero|LocalForward 0 localhost:80
h1:localforward_four|LocalForward 8080 h:80:9
h1:dynamicforward_extra|DynamicForward 1080 x
h1:dynamicforward_three|DynamicForward a:b:1080
h1:remoteforward_port|RemoteForward 8080 localhost:0
h1:permitremoteopen_none|PermitRemoteOpen host:80 none
h1:permitremoteopen_port|PermitRemoteOpen host:http0
h1:cnames|CanonicalizePermittedCNAMEs x
h1:logverbose_none|LogVerbose none kex.c:*
h1:string_extra|XAuthLocation /usr/bin/xauth more
EOF
gcase value_all_accepted h1 "" "-" <<'EOF'
Host h1
  ControlMaster AutoAsk
  ControlPersist 10m
  Compression no
  Tunnel point-to-point
  RequestTTY force
  PubkeyAuthentication host-bound
  LogLevel DEBUG3
  SyslogFacility AUTHPRIV
  FingerprintHash sha1
  ConnectionAttempts 3
  Ciphers ^aes128-ctr,aes256-ctr,
  MACs -bogus
  PubkeyAcceptedAlgorithms +ssh-ed*
  HostbasedAcceptedAlgorithms -ssh-dss*
  KexAlgorithms +sntrup761x25519-sha512@openssh.com
  GSSAPIKexAlgorithms gss-gex-sha1-,gss-curve25519-sha256-
  EscapeChar ^A
  RekeyLimit 1.5G 1h
  IPQoS 0x12 throughput
  StreamLocalBindMask 0778
  TunnelDevice any:5
  AddKeysToAgent confirm 10m
  ForwardAgent yes
  SendEnv LANG LC_*
  SetEnv A=B C=D
  LocalForward [::1]:8080 /tmp/sock
  DynamicForward 127.0.0.1:1080
  RemoteForward 8080
  PermitRemoteOpen host:80 [::1]:*
  LogVerbose kex.c:*
  LocalCommand echo a b c
EOF

# HostKeyAlgorithms: the list asked for is ssh's (kex_assemble_names:
# "+" added, "-" taken out, "^" first, patterns), compared with ssh -G's.
while IFS='|' read -r name line; do
	gcase "hka_$name" h1 <<<"$(printf 'Host h1\n  %s\n' "$line")"
done <<'EOF'
plain|HostKeyAlgorithms ssh-ed25519,ecdsa-sha2-nistp256
plus|HostKeyAlgorithms +ssh-rsa,ssh-dss
plus_present|HostKeyAlgorithms +ssh-ed25519
minus_pattern|HostKeyAlgorithms -*-cert-v01@openssh.com,sk-*
minus_negated|HostKeyAlgorithms -!ssh-ed25519
caret|HostKeyAlgorithms ^ecdsa-sha2-nistp256,ssh-rsa
pattern|HostKeyAlgorithms ecdsa-*,ssh-ed*
pattern_none_match|HostKeyAlgorithms ssh-ed25519,zzz*
negated_in_list|HostKeyAlgorithms ssh-ed25519,!ssh-rsa
only_unmatched|HostKeyAlgorithms zzz*
EOF
gcase hka_not_given h1 <<'EOF'
Host h1
  User @USER@
EOF

say "$PASSED passed ($STRICTER of them with calops stricter on purpose)," \
    "$FAILED failed"
[ "$FAILED" = 0 ] && [ $((PASSED + FAILED)) -ge 100 ]
