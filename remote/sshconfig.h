/*
 * sshconfig.h: the user's ~/.ssh/config read for one ssh host of the lab
 * file (protocol.md §4): the lab's address may be an alias there.
 *
 * sshconfig_read() looks one name up the way ssh(1) (OpenSSH 9.2, Debian
 * 12) does: ~/.ssh/config and then /etc/ssh/ssh_config, or the one file
 * given (as ssh -F; /dev/null reads as empty).  Keywords are
 * case-insensitive, "Key value" and "Key=value" both, values may be
 * quoted, '#' starts a comment.  Every keyword of ssh's own table is known
 * (readconf.c, with Debian's GSSAPI ones); any other is an error
 * "FILE:LINE: bad configuration option" as in ssh, unless IgnoreUnknown
 * names it.  A line ssh would refuse -- no value, a quote not closed, a bad
 * port, time, number or choice, extra values -- is an error "FILE:LINE:
 * message" wherever it is, in a block that applies or not.  For each
 * keyword the first value that applies wins (IdentityFile and
 * CertificateFile gather every one, each once).
 *
 * Blocks: Host (patterns with '*' and '?', '!' negations, several to a
 * line, case matters) and Match with all of ssh's criteria but exec (all,
 * canonical, final, host, originalhost, user, localuser, each negatable):
 * "Match exec" is refused with an error when ssh would run its command
 * (share/doc/lab.md says why).  Include: globs read in lexical order, a
 * relative path in ~/.ssh, at most SSHCONFIG_MAX_DEPTH files deep.  As in
 * ssh, a second, final pass reads the files again when CanonicalizeHostname
 * is on or a "Match final" was seen: Host patterns are then matched against
 * the canonical HostName, "canonical" and "final" match, and values already
 * set stay.  Canonicalization (CanonicalDomains, CanonicalizeMaxDots,
 * CanonicalizeFallbackLocal) asks whether names resolve, as ssh's
 * resolve_canonicalize() does, and only for a host ssh would reach
 * directly (no ProxyJump or ProxyCommand after the first pass, no jump
 * host given before it) unless CanonicalizeHostname is always.
 * sshconfig_read asks getaddrinfo and waits for it; the console cannot
 * wait (one poll loop), so sshconfig_read_async asks a resolver of the
 * caller's, which may answer later: the read is then made again, from
 * the start, once the answer is in.
 *
 * What calops follows is kept below; a keyword ssh knows and calops does
 * not act on (ControlMaster, ForwardAgent, LocalForward, …) is listed once
 * per host in ignored, "ControlMaster (~/.ssh/config:12)"; those ssh
 * itself ignores (its deprecated and unsupported ones) are not.  ProxyJump
 * and ProxyCommand are read (below) and followed by ssh.c.  A note is
 * "FILE:LINE: text", made safe to show, for the console.  ~/.ssh/config
 * and the files it includes are refused, as ssh refuses them, when they are
 * another user's or writable by group or others; a file named (as ssh -F)
 * and the system file are not checked.
 *
 * "~" is $HOME (else the password file's home), as everywhere in calops;
 * ssh takes the password file's for IdentityFile, which differs only when
 * HOME was changed.
 *
 * sshhost.h merges what is found with the lab host (the lab wins).
 *
 * A struct sshconfig owns every string in it; sshconfig_release frees
 * them.
 */
#ifndef CALOPS_SSHCONFIG_H
#define CALOPS_SSHCONFIG_H

#include "calops.h"

#define SSHCONFIG_MAX_BYTES	(1u << 20)	/* the largest file read */
#define SSHCONFIG_MAX_DEPTH	16	/* Include nesting, as ssh's */
#define SSHCONFIG_MAX_FILES	256	/* files read for one lookup */
#define SSHCONFIG_MAX_IDS	100	/* IdentityFile lines, as ssh's */
#define SSHCONFIG_MAX_NOTES	128	/* notes kept; the rest counted */
#define SSHCONFIG_MAX_HOSTFILES	16	/* known_hosts files, as ssh's */
#define SSHCONFIG_DEFAULT_PORT	22

/*
 * Where a value came from: file and line of an ssh config; file with line
 * 0, the lab file; no file, calops' default.
 */
struct sshconfig_origin {
	char		*file;
	unsigned	 line;
};

/* One value as written in a config, and where. */
struct sshconfig_value {
	char			*value;
	struct sshconfig_origin	 from;
};

/* Notes for the console, "FILE:LINE: text", made safe to show. */
struct sshconfig_notes {
	char		**v;
	size_t		  n;
	size_t		  dropped;	/* past SSHCONFIG_MAX_NOTES */
};

/* The values of one line that takes several (UserKnownHostsFile,
 * CanonicalDomains): the first line that applies wins. */
struct sshconfig_list {
	char			**v;
	size_t			  n;
	struct sshconfig_origin	  from;		/* file NULL: not given */
};

/* StrictHostKeyChecking, from the least strict. */
enum sshconfig_strict {
	SSHCONFIG_STRICT_UNSET = -1,
	SSHCONFIG_STRICT_NO,		/* no, off */
	SSHCONFIG_STRICT_ACCEPT_NEW,
	SSHCONFIG_STRICT_ASK,		/* ssh's default */
	SSHCONFIG_STRICT_YES,
};

struct sshconfig {
	char			*host;		/* Host lines match it: the
						   name looked up, then (the
						   final pass) the HostName */
	char			*original;	/* the name looked up: %n */
	char			*home;		/* "~" and %d */
	char			*local_user;	/* %u, the default user */
	unsigned long		 uid;		/* %i */
	struct sshconfig_value	 hostname;	/* value NULL: not given */
	bool			 hostname_final; /* expanded and made
						   canonical already (a
						   final pass ran) */
	struct sshconfig_value	 user;
	int			 port;		/* 0: not given */
	struct sshconfig_origin	 port_from;
	int			 alive_s;	/* -1: not given, 0: off */
	struct sshconfig_origin	 alive_from;
	int			 alive_max;	/* ServerAliveCountMax, -1 */
	struct sshconfig_origin	 alive_max_from;
	struct sshconfig_value	*ids;		/* IdentityFile, unexpanded,
						   "none" kept */
	size_t			 nids;
	int			 ids_only;	/* IdentitiesOnly, -1 */
	struct sshconfig_origin	 ids_only_from;
	struct sshconfig_value	 agent;		/* IdentityAgent */
	struct sshconfig_value	 cert;		/* the first CertificateFile
						   but "none" */
	int			 family;	/* AF_UNSPEC, AF_INET(6) */
	struct sshconfig_origin	 family_from;
	int			 connect_s;	/* ConnectTimeout, -1 none */
	struct sshconfig_origin	 connect_from;
	int			 canon;		/* CanonicalizeHostname: -1,
						   0 no, 1 yes, 2 always */
	struct sshconfig_origin	 canon_from;
	struct sshconfig_list	 domains;	/* CanonicalDomains */
	int			 max_dots;	/* -1: ssh's 1 */
	struct sshconfig_origin	 max_dots_from;
	int			 fallback_local; /* -1: ssh's yes */
	struct sshconfig_origin	 fallback_from;
	enum sshconfig_strict	 strict;
	struct sshconfig_origin	 strict_from;
	int			 compression;	/* Compression: -1, 0, 1 yes */
	struct sshconfig_origin	 compression_from;
	struct sshconfig_list	 user_kh;	/* UserKnownHostsFile */
	struct sshconfig_list	 global_kh;	/* GlobalKnownHostsFile */
	struct sshconfig_value	 alias;		/* HostKeyAlias */
	struct sshconfig_value	 hostkey_algs;	/* HostKeyAlgorithms, as
						   written (checked) */
	struct sshconfig_value	 revoked;	/* RevokedHostKeys but none */
	struct sshconfig_value	 ignore_unknown; /* IgnoreUnknown */
	struct sshconfig_notes	 ignored;	/* "ControlMaster (FILE:LINE)"
						   each keyword once */
	/* ProxyJump (checked) or ProxyCommand (the rest of its line), as
	 * written: the first that applies, as in ssh; "none" is kept, it
	 * too stops the other, but for "ProxyJump none", after which ssh
	 * 9.2 still takes a ProxyCommand (then both are set). */
	struct sshconfig_value	 proxy_jump;
	struct sshconfig_value	 proxy_command;
	struct sshconfig_notes	 notes;
};

/*
 * Look host up in the config file at path: NULL is ~/.ssh/config, which
 * may be missing (nothing is then found), then /etc/ssh/ssh_config, while
 * a path given must exist, as with ssh -F ("none": no file at all).  home
 * NULL: $HOME, else the password file's.  0, or -1 with "FILE:LINE:
 * message" (or a file error) in err.  The caller calls sshconfig_release
 * either way.
 */
int	 sshconfig_read(struct sshconfig *sc, const char *path,
	    const char *host, const char *home, char *err, size_t errlen);

/*
 * Whether name resolves (as ssh's resolve_host() asks getaddrinfo, family
 * AddressFamily's): 1 yes, 0 no, or SSHCONFIG_WAIT when the answer is not
 * in yet (the resolver has asked for it and will say when it comes).
 * jumped: the host is reached through a jump host given before it (ssh's
 * -J, a ProxyJump list's earlier hops), which ssh never calls direct.
 */
#define SSHCONFIG_WAIT	2
struct sshconfig_resolver {
	int	(*resolves)(void *arg, const char *name, int family);
	void	 *arg;
	bool	  jumped;
};

/*
 * sshconfig_read with the names canonicalization tries asked of rs (NULL:
 * getaddrinfo, as sshconfig_read): 0, -1 with err, or SSHCONFIG_WAIT when
 * a name's answer is not in yet; the caller then calls sshconfig_release
 * and reads again once rs has the answer.  The names are asked in ssh's
 * order, each once per read, and the read stops at the first that waits.
 */
int	 sshconfig_read_async(struct sshconfig *sc, const char *path,
	    const char *host, const char *home,
	    const struct sshconfig_resolver *rs, char *err, size_t errlen);
void	 sshconfig_release(struct sshconfig *sc);

/*
 * What sshhost.c shares.  sshconfig_tilde: "~", "~/path" and "~user/path"
 * as ssh's tilde_expand() makes them ("~" is home), any other path as it
 * is; a new string, NULL when there is no such user.  The notes keep at
 * most SSHCONFIG_MAX_NOTES, counting the rest.  An origin owns its file
 * name.
 */
char	*sshconfig_tilde(const char *home, const char *s);
void	 sshconfig_notes_add(struct sshconfig_notes *nt, const char *text);
void	 sshconfig_notes_release(struct sshconfig_notes *nt);
void	 sshconfig_origin_set(struct sshconfig_origin *o, const char *file,
	    unsigned line);
void	 sshconfig_value_release(struct sshconfig_value *v);

/*
 * What ssh does to a HostName before it connects, shared with sshhost.c:
 * sshconfig_expand_hostname replaces %h (alias) and %%, a new string, or
 * NULL with why in msg; sshconfig_canon_host lowercases a name or writes
 * an IP address as getnameinfo() does, and says whether it is an address.
 */
char	*sshconfig_expand_hostname(const char *raw, const char *alias,
	    char *msg, size_t msglen);
bool	 sshconfig_canon_host(char **name);

/* "FILE:LINE", "FILE" (the lab file) or "default", made safe to show,
 * into buf; returns buf. */
const char *sshconfig_origin_str(const struct sshconfig_origin *o, char *buf,
	    size_t len);

#endif
