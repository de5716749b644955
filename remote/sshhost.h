/*
 * sshhost.h: where and how the ssh transport connects to an ssh host of
 * the lab file: the lab host (lab.h) and what ~/.ssh/config says of its
 * address (sshconfig.h) merged, the lab winning where both speak
 * (protocol.md §4), every value saying where it came from.
 *
 * sshhost_merge() fills what the lab host leaves unset: the name to
 * connect to (HostName with %h, else the address; lowercased, or an IP
 * address written as getnameinfo() writes it, as ssh does), the user
 * (else the local user), the port (else 22), the identities (the lab's
 * identity alone, else every IdentityFile with "~", ${VAR} and %% %C %d %h
 * %i %k %L %l %n %p %r %u expanded as ssh expands them, %r and %h with the
 * merged user and name; "none" skipped; none given at all: ssh's default
 * files, default_ids), IdentitiesOnly, IdentityAgent (expanded alike;
 * agent NULL: $SSH_AUTH_SOCK, "": none), AddressFamily, ConnectTimeout,
 * the keepalive (keepalive_s, else a ServerAliveInterval from 1 s to a
 * day, else LAB_KEEPALIVE_DEFAULT: the console needs keepalives to see a
 * dead link, protocol.md §6, so ssh's 0, "off", is noted and not taken)
 * and ServerAliveCountMax, and the ProxyJump or ProxyCommand that leads
 * there (ssh.c follows them; %k of ProxyCommand is HostKeyAlias when set).
 *
 * Compression: the lab's compression, else Compression of the config,
 * else off, as ssh's default: zlib costs CPU on both ends, which on
 * loopback or a LAN slows a stream down more than the bytes saved speed
 * it up (share/doc/lab.md gives the figures); over a slow link (a VPN
 * from home) it is what makes a catch-up fast.  ssh.c asks the server
 * for it.
 *
 * Host keys, as ssh's check_host_key() reads them (share/doc/lab.md,
 * "Host keys"): every file of kh_files, in ssh's order -- each
 * UserKnownHostsFile (default ~/.ssh/known_hosts, ~/.ssh/known_hosts2;
 * "~", ${VAR} and the tokens expanded), each GlobalKnownHostsFile (default
 * /etc/ssh/ssh_known_hosts, /etc/ssh/ssh_known_hosts2), then the lab
 * file's known_hosts -- looked up under kh_name, kh_port (HostKeyAlias
 * and port 22, else the host and its port).  A new key is written to
 * known_hosts: the lab's file, else the first UserKnownHostsFile, as ssh
 * writes it (NULL: none, "UserKnownHostsFile none").  strict is the
 * stricter of the lab's accept_new (true: accept-new, else ask) and
 * StrictHostKeyChecking (no and off are taken as accept-new: calops never
 * connects past a changed key), and strict_why says which won.
 *
 * A CertificateFile or a RevokedHostKeys that applies makes the host an
 * error: calops can neither offer a certificate nor read a KRL, and will
 * not connect as if they were not there.
 *
 * A struct sshhost owns every string in it; sshhost_release frees them.
 */
#ifndef CALOPS_SSHHOST_H
#define CALOPS_SSHHOST_H

#include "calops.h"

#include "remote/lab.h"
#include "remote/sshconfig.h"

struct sshhost {
	char			*alias;		/* the lab's address */
	char			*hostname;	/* where to connect */
	struct sshconfig_origin	 hostname_from;
	char			*user;
	struct sshconfig_origin	 user_from;
	int			 port;
	struct sshconfig_origin	 port_from;
	int			 keepalive_s;
	struct sshconfig_origin	 keepalive_from;
	int			 alive_max;	/* unanswered keepalives before
						   the link is lost (>= 1) */
	struct sshconfig_origin	 alive_max_from;
	int			 family;	/* AF_UNSPEC, AF_INET(6) */
	struct sshconfig_origin	 family_from;
	int			 connect_s;	/* 0: calops' own limit */
	struct sshconfig_origin	 connect_from;
	bool			 compress;	/* zlib asked for */
	struct sshconfig_origin	 compress_from;	/* file NULL: default */
	struct sshconfig_value	*ids;		/* expanded, in order */
	size_t			 nids;
	char			**ids_written;	/* the IdentityFile values as
						   written, "none" too */
	size_t			 nids_written;
	bool			 default_ids;	/* ssh's own files, put there
						   by the transport */
	bool			 ids_only;	/* IdentitiesOnly */
	struct sshconfig_origin	 ids_only_from;
	char			*agent;		/* NULL: $SSH_AUTH_SOCK, "":
						   no agent */
	struct sshconfig_origin	 agent_from;
	char			**kh_files;	/* read, in order */
	size_t			 nkh;
	char			*kh_name;	/* looked up as */
	int			 kh_port;
	char			*known_hosts;	/* a new key goes there */
	struct sshconfig_origin	 known_hosts_from;
	enum sshconfig_strict	 strict;	/* never NO (see above) */
	char			*strict_why;	/* which setting won, safe */
	struct sshconfig_notes	 ignored;	/* sshconfig's */
	struct sshconfig_notes	 notes;		/* the config's and the
						   merge's */
	/* How the host is reached, when not directly: ProxyJump as
	 * written, or the ProxyCommand with %h %k %n %p %r %% expanded, to
	 * be run by /bin/sh (NULL: neither, or "none"). */
	char			*proxy_jump;
	char			*proxy_command;
	struct sshconfig_origin	 proxy_from;
	/* HostKeyAlgorithms made the list ssh asks for (sshconfig.h), asked
	 * for as it is; NULL: not given, ssh's default with the types the
	 * known_hosts files hold for the host first, as ssh orders it. */
	char			*hostkey_algs;
	struct sshconfig_origin	 hostkey_algs_from;
};

/*
 * Merge the lab host h (an ssh host of the lab file labfile, NULL: "the
 * lab file") with sc, read for h->address, into *out (zeroed first).  0,
 * or -1 with "FILE:LINE: message" in err when a value that applies cannot
 * be expanded (an unknown % token, an unset ${VAR}, an unknown ~user).
 * The caller calls sshhost_release either way.
 */
int	 sshhost_merge(struct sshhost *out, const struct sshconfig *sc,
	    const struct lab_host *h, const char *labfile, char *err,
	    size_t errlen);
/*
 * The compression of a host in words, for calops hosts and the Hosts
 * screen: what the handshake agreed on (cs client to server, sc server to
 * client, "" with no session), whether it was asked for and which setting
 * said so: "zlib@openssh.com (Compression yes, ~/.ssh/config:3)", "off
 * (default)", "asked (lab.yaml), the host offers none".  Into buf, made
 * safe to show; returns buf.
 */
const char *sshhost_compress_str(const struct sshhost *sh, const char *cs,
	    const char *sc, char *buf, size_t len);
/* sshconfig_read_async of h->address in config (NULL: ~/.ssh/config),
 * its names asked of rs (NULL: getaddrinfo), then sshhost_merge: 0, -1
 * with err, or SSHCONFIG_WAIT (out is then released: read again once rs
 * has its answer). */
int	 sshhost_resolve(struct sshhost *out, const struct lab_host *h,
	    const char *labfile, const char *config,
	    const struct sshconfig_resolver *rs, char *err, size_t errlen);
void	 sshhost_release(struct sshhost *out);

#endif
