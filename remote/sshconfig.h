/*
 * sshconfig.h: the user's ~/.ssh/config read for one ssh host of the lab
 * file (protocol.md §4): the lab's address may be an alias there.
 *
 * sshconfig_read() looks one name up the way ssh(1) (OpenSSH 9.2) does,
 * for the subset calops honours: Host (patterns with '*' and '?', '!'
 * negations, several to a line, matched against the name as given: case
 * matters), HostName (%h and %%), User, Port, IdentityFile (several,
 * tried in order, each path once) and ServerAliveInterval, the first
 * value that applies winning for each, and Include (globs read in lexical
 * order, a relative path in ~/.ssh, at most SSHCONFIG_MAX_DEPTH files
 * deep as in ssh, so a loop is an error).  Keywords are case-insensitive,
 * "Key value" and "Key=value" both, values may be quoted, '#' starts a
 * comment.  Any other keyword is ignored (ssh_config has a hundred), but a
 * line ssh would refuse -- no value, a quote not closed, a bad port or
 * time, extra values -- is an error "FILE:LINE: message" wherever it is,
 * in a block that applies or not.
 *
 * Match is not in the subset: "Match all" and "Match !all" are exact and
 * read; any other Match block is never applied and leaves a note, rather
 * than be guessed at.  So do the keywords that would take ssh somewhere
 * else and that calops does not follow, when they apply to the host:
 * HostKeyAlias, UserKnownHostsFile (the lab's known_hosts is read) and
 * CanonicalizeHostname.  ProxyJump and ProxyCommand are read (below) and
 * followed by ssh.c.  A note is "FILE:LINE:
 * text", made safe to show, for the console.  ~/.ssh/config and the files
 * it includes are refused, as ssh refuses them, when they are another
 * user's or writable by group or others; a file named (as ssh -F) is not
 * checked.  /etc/ssh/ssh_config is not read.
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
#define SSHCONFIG_MAX_NOTES	16	/* notes kept; the rest counted */
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

struct sshconfig {
	char			*host;		/* the name looked up */
	char			*home;		/* "~" and %d */
	char			*local_user;	/* %u, the default user */
	unsigned long		 uid;		/* %i */
	struct sshconfig_value	 hostname;	/* value NULL: not given */
	struct sshconfig_value	 user;
	int			 port;		/* 0: not given */
	struct sshconfig_origin	 port_from;
	int			 alive_s;	/* -1: not given, 0: off */
	struct sshconfig_origin	 alive_from;
	struct sshconfig_value	*ids;		/* IdentityFile, unexpanded */
	size_t			 nids;
	/* ProxyJump (checked) or ProxyCommand (the rest of its line), as
	 * written: at most one is set, the first that applies, as in ssh;
	 * "none" is kept, it too stops the other. */
	struct sshconfig_value	 proxy_jump;
	struct sshconfig_value	 proxy_command;
	struct sshconfig_notes	 notes;
};

/*
 * Look host up in the config file at path: NULL is ~/.ssh/config, which
 * may be missing (nothing is then found), while a path given must exist,
 * as with ssh -F.  home NULL: $HOME, else the password file's.  0, or -1
 * with "FILE:LINE: message" (or a file error) in err.  The caller calls
 * sshconfig_release either way.
 */
int	 sshconfig_read(struct sshconfig *sc, const char *path,
	    const char *host, const char *home, char *err, size_t errlen);
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
 * One jump host of a ProxyJump list, "[user@]host[:port]" or
 * "ssh://[user@]host[:port]", cut in place into s: user NULL and port 0
 * when not given.  0, or -1 when it is not one.
 */
int	 sshconfig_jump_cut(char *s, char **user, char **host, int *port);

/* "FILE:LINE", "FILE" (the lab file) or "default", made safe to show,
 * into buf; returns buf. */
const char *sshconfig_origin_str(const struct sshconfig_origin *o, char *buf,
	    size_t len);

#endif
