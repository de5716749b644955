/* sshconfig.c: the ~/.ssh/config subset calops honours (see sshconfig.h).
 * The rules are ssh's own (OpenSSH 9.2, readconf.c and misc.c): where this
 * file cuts a line, matches a pattern or expands a token, it does what ssh
 * does, so that an alias leads where `ssh ALIAS` would. */
#include "calops.h"

#include <sys/stat.h>

#include <ctype.h>
#include <glob.h>
#include <netdb.h>
#include <pwd.h>
#include <unistd.h>

#include "base/docfile.h"
#include "base/text.h"
#include "remote/sshconfig.h"

#define SC_BLANKS	" \t\r\n"	/* ssh's WHITESPACE */

/* How a file is opened: as ssh opens ~/.ssh/config and what it includes
 * (owner and modes checked, may be missing) or a file given (as -F). */
#define SC_CHECKPERM	0x1
#define SC_MUSTEXIST	0x2

/* A lookup under way. */
struct scparse {
	struct sshconfig	*sc;
	unsigned		 nfiles;
	unsigned		 seen;		/* bits of sc_unfollowed[] */
	char			*err;
	size_t			 errlen;
};

/* The file being read, the line in it and the block the line is in. */
struct scfile {
	const char	*path;
	unsigned	 line;
	int		 depth;		/* of Include */
	bool		 nevermatch;	/* included from a block not applied */
	bool		*active;	/* the block applies to the host */
};

/* One line cut as ssh cuts it. */
struct scline {
	const char	*word;		/* the keyword as written */
	const char	*rest;		/* the line after it, unsplit */
	char		**argv;
	size_t		 argc;
	char		*buf;		/* argv's strings */
};

/* "FILE:LINE: message" (made safe to show) into the parse's err; -1. */
static int PRINTFLIKE(3, 4)
sc_err(struct scparse *p, const struct scfile *f, const char *fmt, ...)
{
	char *msg, *line, *clean;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	line = f != NULL ? xasprintf("%s:%u: %s", f->path, f->line, msg) :
	    xstrdup(msg);
	clean = text_sanitize(line, strlen(line), 0);
	errbuf_set(p->err, p->errlen, "%s", clean);
	free(clean);
	free(line);
	free(msg);
	return -1;
}

void
sshconfig_notes_add(struct sshconfig_notes *nt, const char *text)
{
	if (nt->n >= SSHCONFIG_MAX_NOTES) {
		nt->dropped++;
		return;
	}
	nt->v = xreallocarray(nt->v, nt->n + 1, sizeof *nt->v);
	nt->v[nt->n++] = text_sanitize(text, strlen(text), 0);
}

void
sshconfig_notes_release(struct sshconfig_notes *nt)
{
	size_t i;

	for (i = 0; i < nt->n; i++)
		free(nt->v[i]);
	free(nt->v);
	memset(nt, 0, sizeof *nt);
}

static void PRINTFLIKE(3, 4)
sc_note(struct scparse *p, const struct scfile *f, const char *fmt, ...)
{
	char *msg, *line;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	line = xasprintf("%s:%u: %s", f->path, f->line, msg);
	sshconfig_notes_add(&p->sc->notes, line);
	free(line);
	free(msg);
}

void
sshconfig_origin_set(struct sshconfig_origin *o, const char *file,
    unsigned line)
{
	free(o->file);
	o->file = file != NULL ? xstrdup(file) : NULL;
	o->line = line;
}

/*
 * ssh's match_pattern(): '*' is any run of characters, '?' any one, and
 * the rest is compared as it is (case matters).  Iterative, with one
 * point to come back to, so a pattern of many stars cannot take
 * exponential time.
 */
static bool
sc_match(const char *s, const char *pat)
{
	const char *star = NULL, *resume = NULL;

	while (*s != '\0') {
		if (*pat == '*') {
			star = ++pat;
			resume = s;
		} else if (*pat != '\0' && (*pat == '?' || *pat == *s)) {
			pat++;
			s++;
		} else if (star != NULL) {
			pat = star;
			s = ++resume;
		} else
			return false;
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

/*
 * The arguments after the keyword, as ssh's argv_split() makes them:
 * blanks (space, tab) separate, '#' at the start of one ends the line,
 * "double" and 'single' quotes group, and \\, \", \' and (unquoted) "\ "
 * escape.  -1 when a quote is not closed.
 */
static int
sc_split(const char *s, struct scline *l)
{
	size_t cap = 0;
	char *out = l->buf = xmalloc(strlen(s) + 2);
	int quote;

	while (*s != '\0') {
		if (*s == ' ' || *s == '\t') {
			s++;
			continue;
		}
		if (*s == '#')
			break;
		if (l->argc == cap) {
			cap = cap == 0 ? 8 : cap * 2;
			l->argv = xreallocarray(l->argv, cap, sizeof *l->argv);
		}
		l->argv[l->argc++] = out;
		for (quote = 0; *s != '\0'; s++) {
			if (*s == '\\' && (s[1] == '\'' || s[1] == '"' ||
			    s[1] == '\\' || (quote == 0 && s[1] == ' ')))
				*out++ = *++s;
			else if (quote == 0 && (*s == ' ' || *s == '\t'))
				break;
			else if (quote == 0 && (*s == '"' || *s == '\''))
				quote = *s;
			else if (quote != 0 && *s == quote)
				quote = 0;
			else
				*out++ = *s;
		}
		*out++ = '\0';
		if (quote != 0)
			return -1;
	}
	return 0;
}

/*
 * Cut a line as ssh does: trailing blanks go, the keyword ends at a blank
 * or at one '=' (so "Port 22", "Port=22" and "Port = 22" are the same),
 * and the rest is split into arguments.  1 when there is nothing on the
 * line (blank, or a comment), -1 when it is malformed.
 */
static int
sc_cut(struct scparse *p, struct scfile *f, char *s, struct scline *l)
{
	size_t n = strlen(s);
	bool eq;

	while (n > 0 && strchr(SC_BLANKS "\f", s[n - 1]) != NULL)
		s[--n] = '\0';
	s += strspn(s, SC_BLANKS);
	if (*s == '\0' || *s == '#')
		return 1;
	l->word = s;
	n = strcspn(s, SC_BLANKS "=");
	eq = s[n] == '=';
	if (s[n] != '\0')
		s[n++] = '\0';
	s += n;
	s += strspn(s, SC_BLANKS);
	if (!eq && *s == '=')
		s += 1 + strspn(s + 1, SC_BLANKS);
	for (n = 0; l->word[n] != '\0'; n++)
		if (!isalnum((unsigned char)l->word[n]))
			return sc_err(p, f, "'%s' is not a keyword", l->word);
	if (*s == '\0')
		return sc_err(p, f, "no value after '%s'", l->word);
	l->rest = s;
	if (sc_split(s, l) != 0)
		return sc_err(p, f, "a quote is not closed");
	return 0;
}

/* The one value a keyword such as Port takes, or NULL (err set). */
static const char *
sc_one(struct scparse *p, struct scfile *f, const struct scline *l)
{
	if (l->argc == 0 || l->argv[0][0] == '\0') {
		sc_err(p, f, "'%s' needs a value", l->word);
		return NULL;
	}
	if (l->argc > 1) {
		sc_err(p, f, "'%s' takes one value, not %zu", l->word, l->argc);
		return NULL;
	}
	return l->argv[0];
}

/* Host: the block applies when a pattern matches and no negated one does
 * (a negated match alone never selects a host). */
static int
kw_host(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *pat;
	bool neg;
	size_t i;

	*f->active = false;
	for (i = 0; i < l->argc; i++) {
		if (l->argv[i][0] == '\0')
			return sc_err(p, f, "'%s' has an empty pattern",
			    l->word);
		if (f->nevermatch)
			break;
		pat = l->argv[i];
		if ((neg = pat[0] == '!'))
			pat++;
		if (!sc_match(p->sc->host, pat))
			continue;
		if (neg) {
			*f->active = false;
			break;
		}
		*f->active = true;
	}
	return 0;
}

/* Match: only "all" and "!all" are read; any other block is never
 * applied, and the note says so rather than guess. */
static int
kw_match(struct scparse *p, struct scfile *f, struct scline *l)
{
	*f->active = false;
	if (f->nevermatch)
		return 0;
	if (l->argc == 1 && strcasecmp(l->argv[0], "all") == 0)
		*f->active = true;
	else if (l->argc != 1 || strcasecmp(l->argv[0], "!all") != 0)
		sc_note(p, f, "'%s' is not read by calops: its block, up to "
		    "the next 'Host' or 'Match', is never applied", l->word);
	return 0;
}

/* HostName and User: the first value that applies wins. */
static int
kw_string(struct scparse *p, struct scfile *f, struct scline *l,
    struct sshconfig_value *v)
{
	const char *s;

	if ((s = sc_one(p, f, l)) == NULL)
		return -1;
	if (*f->active && v->value == NULL) {
		v->value = xstrdup(s);
		sshconfig_origin_set(&v->from, f->path, f->line);
	}
	return 0;
}

static int
kw_hostname(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_string(p, f, l, &p->sc->hostname);
}

static int
kw_user(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_string(p, f, l, &p->sc->user);
}

/* ssh's a2port(): a number from 0 to 65535 (0 is refused by the caller),
 * else a service name of /etc/services; -1 when neither. */
static int
sc_port(const char *s)
{
	struct servent se, *res = NULL;
	char buf[4096], *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end != s && *end == '\0' && errno == 0 && v >= 0 && v <= 65535)
		return (int)v;
	if (getservbyname_r(s, "tcp", &se, buf, sizeof buf, &res) == 0 &&
	    res != NULL)
		return ntohs((uint16_t)se.s_port);
	return -1;
}

static int
kw_port(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;
	int port;

	if ((s = sc_one(p, f, l)) == NULL)
		return -1;
	if ((port = sc_port(s)) <= 0)
		return sc_err(p, f, "'%s' must be a port from 1 to 65535 or "
		    "a service name, not '%s'", l->word, s);
	if (*f->active && p->sc->port == 0) {
		p->sc->port = port;
		sshconfig_origin_set(&p->sc->port_from, f->path, f->line);
	}
	return 0;
}

/* ssh's convtime(): seconds, or a sum of numbers each followed by s, m,
 * h, d or w ("1m30s"); -1 when it is not one or passes INT_MAX. */
static int
sc_time(const char *s)
{
	static const char units[] = "smhdw";
	static const long mults[] = { 1, 60, 3600, 86400, 604800 };
	long total = 0, secs, mult;
	const char *u;
	char *end;

	if (*s == '\0')
		return -1;
	while (*s != '\0') {
		errno = 0;
		secs = strtol(s, &end, 10);
		if (end == s || errno == ERANGE || secs < 0)
			return -1;
		if (*end == '\0')
			mult = 1;
		else if ((u = strchr(units, tolower((unsigned char)*end))) !=
		    NULL) {
			mult = mults[u - units];
			end++;
		} else
			return -1;
		if (secs > INT_MAX / mult || total > INT_MAX - secs * mult)
			return -1;
		total += secs * mult;
		s = end;
	}
	return (int)total;
}

/* ServerAliveInterval: a time, or none (as if not given). */
static int
kw_alive(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;
	int v;

	if ((s = sc_one(p, f, l)) == NULL)
		return -1;
	if (strcmp(s, "none") == 0)
		v = -1;
	else if ((v = sc_time(s)) == -1)
		return sc_err(p, f, "'%s' must be a time such as 30, 30s or "
		    "1m30s, or none, not '%s'", l->word, s);
	if (*f->active && p->sc->alive_s == -1 && v != -1) {
		p->sc->alive_s = v;
		sshconfig_origin_set(&p->sc->alive_from, f->path, f->line);
	}
	return 0;
}

/* IdentityFile: every one that applies, in order, each path once. */
static int
kw_identity(struct scparse *p, struct scfile *f, struct scline *l)
{
	struct sshconfig *sc = p->sc;
	struct sshconfig_value *v;
	const char *s;
	size_t i;

	if ((s = sc_one(p, f, l)) == NULL)
		return -1;
	if (!*f->active)
		return 0;
	if (sc->nids >= SSHCONFIG_MAX_IDS)
		return sc_err(p, f, "more than %d '%s' lines apply to '%s'",
		    SSHCONFIG_MAX_IDS, l->word, sc->host);
	for (i = 0; i < sc->nids; i++)
		if (strcmp(sc->ids[i].value, s) == 0)
			return 0;
	sc->ids = xreallocarray(sc->ids, sc->nids + 1, sizeof *sc->ids);
	v = &sc->ids[sc->nids++];
	memset(v, 0, sizeof *v);
	v->value = xstrdup(s);
	sshconfig_origin_set(&v->from, f->path, f->line);
	return 0;
}

/*
 * Keywords that would take ssh somewhere calops does not go.  The first
 * one of each kind that applies decides, as for any keyword: a note unless
 * it is the value that turns it off.
 */
static const struct {
	const char	*name;
	const char	*off;		/* NULL: none */
	const char	*instead;
} sc_unfollowed[] = {
	{ "HostKeyAlias", NULL, "host keys are looked up under the host's "
	  "own name" },
	{ "UserKnownHostsFile", NULL, "calops reads the lab file's "
	  "known_hosts" },
	{ "CanonicalizeHostname", "no", "the name is used as it is" },
};

static int
kw_unfollowed(struct scparse *p, struct scfile *f, struct scline *l)
{
	size_t i;

	for (i = 0; i < nitems(sc_unfollowed); i++)
		if (strcasecmp(l->word, sc_unfollowed[i].name) == 0)
			break;
	if (!*f->active || (p->seen & (1u << i)) != 0)
		return 0;
	p->seen |= 1u << i;
	if (sc_unfollowed[i].off != NULL && l->argc == 1 &&
	    strcasecmp(l->argv[0], sc_unfollowed[i].off) == 0)
		return 0;
	sc_note(p, f, "'%s' is not followed: %s", sc_unfollowed[i].name,
	    sc_unfollowed[i].instead);
	return 0;
}

/*
 * One jump host of a ProxyJump, "[user@]host[:port]" or
 * "ssh://[user@]host[:port]", cut as ssh's parse_ssh_uri() and
 * parse_user_host_port() cut it (the last '@' ends the user, an IPv6
 * address in brackets); user and port NULL/0 when not given.  -1 when it is
 * not one.  s is cut in place.
 */
int
sshconfig_jump_cut(char *s, char **user, char **host, int *port)
{
	char *at, *colon, *end;
	long v;

	*user = NULL;
	*port = 0;
	if (strncmp(s, "ssh://", 6) == 0)
		s += 6;
	if ((at = strrchr(s, '@')) != NULL) {
		*at = '\0';
		if (at == s)
			return -1;
		*user = s;
		s = at + 1;
	}
	if (*s == '[') {
		if ((end = strchr(s, ']')) == NULL)
			return -1;
		*end = '\0';
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && colon == NULL)
			return -1;
		s++;
	} else if ((colon = strchr(s, ':')) != NULL &&
	    strchr(colon + 1, ':') != NULL)
		colon = NULL;	/* an IPv6 address without a port */
	if (colon != NULL) {
		*colon = '\0';
		errno = 0;
		v = strtol(colon + 1, &end, 10);
		if (*end != '\0' || end == colon + 1 || errno != 0 || v < 1 ||
		    v > 65535)
			return -1;
		*port = (int)v;
	}
	*host = s;
	return *s == '\0' || strpbrk(s, SC_BLANKS "/@,") != NULL ? -1 : 0;
}

/* ProxyJump and ProxyCommand share a slot, as in ssh: the first of the
 * two that applies wins, "none" included. */
static bool
sc_proxy_taken(const struct sshconfig *sc)
{
	return sc->proxy_jump.value != NULL || sc->proxy_command.value != NULL;
}

/* ProxyJump: "none", or jump hosts separated by commas, each checked
 * wherever it is (as ssh's parse_jump() does); sshhost.c follows them. */
static int
kw_proxyjump(struct scparse *p, struct scfile *f, struct scline *l)
{
	char *list, *one, *next, *user, *host;
	const char *s;
	int port, rc = 0;

	if ((s = sc_one(p, f, l)) == NULL)
		return -1;
	if (strcasecmp(s, "none") != 0) {
		list = xstrdup(s);
		for (one = list; rc == 0 && one != NULL; one = next) {
			if ((next = strchr(one, ',')) != NULL)
				*next++ = '\0';
			if (sshconfig_jump_cut(one, &user, &host, &port) != 0)
				rc = sc_err(p, f, "'%s %s': not a jump host "
				    "such as [user@]host[:port]", l->word, s);
		}
		free(list);
		if (rc != 0)
			return -1;
	}
	if (*f->active && !sc_proxy_taken(p->sc)) {
		p->sc->proxy_jump.value = xstrdup(s);
		sshconfig_origin_set(&p->sc->proxy_jump.from, f->path, f->line);
	}
	return 0;
}

/* ProxyCommand: the rest of the line as it is written, run by sh(1). */
static int
kw_proxycommand(struct scparse *p, struct scfile *f, struct scline *l)
{
	if (*f->active && !sc_proxy_taken(p->sc)) {
		p->sc->proxy_command.value = xstrdup(l->rest);
		sshconfig_origin_set(&p->sc->proxy_command.from, f->path,
		    f->line);
	}
	return 0;
}

static int kw_include(struct scparse *, struct scfile *, struct scline *);

/* The keywords read; any other is ignored (its line still cut). */
static const struct {
	const char	*name;
	int		(*fn)(struct scparse *, struct scfile *,
			    struct scline *);
} sc_keywords[] = {
	{ "Host", kw_host },
	{ "Match", kw_match },
	{ "Include", kw_include },
	{ "HostName", kw_hostname },
	{ "User", kw_user },
	{ "Port", kw_port },
	{ "IdentityFile", kw_identity },
	{ "ServerAliveInterval", kw_alive },
	{ "ProxyJump", kw_proxyjump },
	{ "ProxyCommand", kw_proxycommand },
	{ "HostKeyAlias", kw_unfollowed },
	{ "UserKnownHostsFile", kw_unfollowed },
	{ "CanonicalizeHostname", kw_unfollowed },
};

static int
sc_line(struct scparse *p, struct scfile *f, char *text)
{
	struct scline l;
	size_t i;
	int rc;

	memset(&l, 0, sizeof l);
	if ((rc = sc_cut(p, f, text, &l)) == 0) {
		for (i = 0; i < nitems(sc_keywords); i++) {
			if (strcasecmp(l.word, sc_keywords[i].name) == 0) {
				rc = sc_keywords[i].fn(p, f, &l);
				break;
			}
		}
	}
	free(l.argv);
	free(l.buf);
	return rc < 0 ? -1 : 0;
}

static int
sc_lines(struct scparse *p, struct scfile *f, const char *data, size_t len)
{
	const char *s = data, *end = data + len, *nl;
	char *text;
	int rc = 0;

	for (f->line = 1; rc == 0 && s < end; f->line++) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		if (memchr(s, '\0', (size_t)(nl - s)) != NULL)
			return sc_err(p, f, "a NUL byte in the line");
		text = xstrndup(s, (size_t)(nl - s));
		rc = sc_line(p, f, text);
		free(text);
		if (nl == end)
			break;
		s = nl + 1;
	}
	return rc;
}

/* ssh's tilde_expand(): "~" and "~/path" under home, "~user/path" under
 * that user's home. */
char *
sshconfig_tilde(const char *home, const char *s)
{
	struct passwd pw, *res = NULL;
	char buf[16384], *user;
	const char *rest, *dir = home;
	size_t n;

	if (s[0] != '~')
		return xstrdup(s);
	n = strcspn(s + 1, "/");
	rest = s + 1 + n;
	rest += strspn(rest, "/");
	if (n > 0) {
		user = xstrndup(s + 1, n);
		if (getpwnam_r(user, &pw, buf, sizeof buf, &res) != 0 ||
		    res == NULL) {
			free(user);
			return NULL;
		}
		free(user);
		dir = pw.pw_dir;
	}
	n = strlen(dir);
	return xasprintf("%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" :
	    "/", rest);
}

/*
 * Open one config file.  Included files (parent set) and ~/.ssh/config
 * are refused, as ssh refuses them, when they are another user's or
 * writable by group or others; a folder an Include's glob names reads
 * nothing, as in ssh, with a note.
 */
static int
sc_open(struct scparse *p, const struct scfile *f, const struct scfile *parent,
    int flags, char **data, size_t *len)
{
	char msg[1024];
	struct stat st;
	int rc;

	*data = NULL;
	if (stat(f->path, &st) == -1) {
		if (errno == ENOENT && (flags & SC_MUSTEXIST) == 0)
			return 1;
		return sc_err(p, parent, "cannot open '%s': %s", f->path,
		    strerror(errno));
	}
	if (S_ISDIR(st.st_mode) && parent != NULL) {
		sc_note(p, parent, "'%s' is a folder: it includes nothing",
		    f->path);
		return 1;
	}
	if ((flags & SC_CHECKPERM) != 0 && ((st.st_uid != 0 &&
	    st.st_uid != getuid()) || (st.st_mode & 022) != 0))
		return sc_err(p, parent, "bad owner or permissions on '%s': "
		    "ssh refuses it too (it must be yours or root's, and not "
		    "writable by group or others: chmod go-w)", f->path);
	rc = docfile_read(f->path, SSHCONFIG_MAX_BYTES, data, len, msg,
	    sizeof msg);
	if (rc == 1 && (flags & SC_MUSTEXIST) != 0)
		return sc_err(p, parent, "cannot open '%s': %s", f->path,
		    strerror(ENOENT));
	if (rc == -1)
		return sc_err(p, parent, "%s", msg);
	return rc;
}

/* Read the config file f, a top-level one (parent NULL) or one an Include
 * line of parent names. */
static int
sc_file(struct scparse *p, struct scfile *f, const struct scfile *parent,
    int flags)
{
	char *data;
	size_t len;
	int rc;

	if (f->depth > SSHCONFIG_MAX_DEPTH)
		return sc_err(p, parent, "'Include' nests more than %d files "
		    "deep (does a file include itself?)", SSHCONFIG_MAX_DEPTH);
	if (++p->nfiles > SSHCONFIG_MAX_FILES)
		return sc_err(p, parent, "'Include' reads more than %d files",
		    SSHCONFIG_MAX_FILES);
	if ((rc = sc_open(p, f, parent, flags, &data, &len)) != 0)
		return rc == 1 ? 0 : -1;
	rc = sc_lines(p, f, data, len);
	free(data);
	return rc;
}

/*
 * Include: each argument a glob, a relative one in ~/.ssh, its files read
 * in lexical order.  Their Host and Match lines do not change the block
 * the Include line is in, and when that block does not apply nothing they
 * say applies (they are still checked), as in ssh.
 */
static int
kw_include(struct scparse *p, struct scfile *f, struct scline *l)
{
	bool outer = *f->active;
	struct scfile in;
	char *pat, *t;
	glob_t gl;
	size_t i, j;
	int rc = 0, g;

	for (i = 0; rc == 0 && i < l->argc; i++) {
		if (l->argv[i][0] == '\0')
			return sc_err(p, f, "'%s' has an empty path", l->word);
		if (l->argv[i][0] != '/' && l->argv[i][0] != '~')
			t = xasprintf("~/.ssh/%s", l->argv[i]);
		else
			t = xstrdup(l->argv[i]);
		/* An unknown ~user stays as written: glob finds nothing. */
		if ((pat = sshconfig_tilde(p->sc->home, t)) == NULL)
			pat = xstrdup(t);
		free(t);
		memset(&gl, 0, sizeof gl);
		if ((g = glob(pat, 0, NULL, &gl)) != 0 && g != GLOB_NOMATCH)
			rc = sc_err(p, f, "cannot list the files of '%s'",
			    pat);
		for (j = 0; g == 0 && rc == 0 && j < gl.gl_pathc; j++) {
			in.path = gl.gl_pathv[j];
			in.line = 0;
			in.depth = f->depth + 1;
			in.nevermatch = f->nevermatch || !outer;
			in.active = f->active;
			rc = sc_file(p, &in, f, SC_CHECKPERM);
			*f->active = outer;
		}
		globfree(&gl);
		free(pat);
	}
	return rc;
}

/* Who runs calops: the home folder ("~", %d) and user name (%u). */
static int
sc_whoami(struct scparse *p, const char *home)
{
	struct sshconfig *sc = p->sc;
	struct passwd pw, *res = NULL;
	const char *env;
	char buf[16384];

	sc->uid = (unsigned long)getuid();
	if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &res) != 0)
		res = NULL;
	if (home == NULL && (env = getenv("HOME")) != NULL && env[0] != '\0')
		home = env;
	if (home == NULL && res != NULL)
		home = pw.pw_dir;
	if (res != NULL)
		sc->local_user = xstrdup(pw.pw_name);
	else if ((env = getenv("USER")) != NULL && env[0] != '\0')
		sc->local_user = xstrdup(env);
	if (home == NULL || sc->local_user == NULL)
		return sc_err(p, NULL, "cannot tell %s for uid %lu (HOME, "
		    "USER and the password file say nothing)", home == NULL ?
		    "the home folder" : "the user name", sc->uid);
	sc->home = xstrdup(home);
	return 0;
}

int
sshconfig_read(struct sshconfig *sc, const char *path, const char *host,
    const char *home, char *err, size_t errlen)
{
	struct scparse p;
	struct scfile f;
	bool active = true;
	char *file;
	int rc;

	memset(sc, 0, sizeof *sc);
	memset(&p, 0, sizeof p);
	sc->alive_s = -1;
	sc->host = xstrdup(host);
	p.sc = sc;
	p.err = err;
	p.errlen = errlen;
	if (sc_whoami(&p, home) != 0)
		return -1;
	file = path != NULL ? xstrdup(path) :
	    xasprintf("%s/.ssh/config", sc->home);
	memset(&f, 0, sizeof f);
	f.path = file;
	f.active = &active;
	rc = sc_file(&p, &f, NULL, path == NULL ? SC_CHECKPERM : SC_MUSTEXIST);
	free(file);
	return rc;
}

void
sshconfig_value_release(struct sshconfig_value *v)
{
	free(v->value);
	free(v->from.file);
	memset(v, 0, sizeof *v);
}

void
sshconfig_release(struct sshconfig *sc)
{
	size_t i;

	free(sc->host);
	free(sc->home);
	free(sc->local_user);
	sshconfig_value_release(&sc->hostname);
	sshconfig_value_release(&sc->user);
	free(sc->port_from.file);
	free(sc->alive_from.file);
	sshconfig_value_release(&sc->proxy_jump);
	sshconfig_value_release(&sc->proxy_command);
	for (i = 0; i < sc->nids; i++)
		sshconfig_value_release(&sc->ids[i]);
	free(sc->ids);
	sshconfig_notes_release(&sc->notes);
	memset(sc, 0, sizeof *sc);
}

const char *
sshconfig_origin_str(const struct sshconfig_origin *o, char *buf, size_t len)
{
	char *s, *clean;

	if (o->file == NULL)
		s = xstrdup("default");
	else if (o->line == 0)
		s = xstrdup(o->file);
	else
		s = xasprintf("%s:%u", o->file, o->line);
	clean = text_sanitize(s, strlen(s), 0);
	errbuf_set(buf, len, "%s", clean);
	free(clean);
	free(s);
	return buf;
}
