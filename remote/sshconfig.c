/*
 * sshconfig.c: ~/.ssh/config read as ssh reads it (see sshconfig.h): its
 * files and lines, Include, the two passes and the name between them;
 * Host and Match are sshconfig_match.c's, the keywords sshconfig_kw.c's.
 * The rules are ssh's own (OpenSSH 9.2, readconf.c, ssh.c and misc.c):
 * where this file cuts a line, matches a pattern or expands a token, it
 * does what ssh does, so that an alias leads where `ssh ALIAS` would.
 */
#include "calops.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <ctype.h>
#include <glob.h>
#include <netdb.h>
#include <pwd.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/docfile.h"
#include "base/text.h"
#include "remote/sshconfig_int.h"
#include "remote/sshconfig_kw.h"
#include "remote/sshconfig_match.h"

#define SC_SYSTEM_FILE	"/etc/ssh/ssh_config"
#define SC_SYSTEM_DIR	"/etc/ssh"

/* How a file is opened: as ssh opens ~/.ssh/config and what it includes
 * (owner and modes checked, may be missing) or a file given (as -F). */
#define SC_CHECKPERM	0x1
#define SC_MUSTEXIST	0x2

static void
sc_verr(struct scparse *p, const struct scfile *f, const char *fmt,
    va_list ap)
{
	char *msg, *line, *clean;

	msg = xvasprintf(fmt, ap);
	line = f != NULL ? xasprintf("%s:%u: %s", f->path, f->line, msg) :
	    xstrdup(msg);
	clean = text_sanitize(line, strlen(line), 0);
	errbuf_set(p->err, p->errlen, "%s", clean);
	free(clean);
	free(line);
	free(msg);
}

/* "FILE:LINE: message" (made safe to show) into the parse's err; -1. */
int
sshconfig_err(struct scparse *p, const struct scfile *f, const char *fmt,
    ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_verr(p, f, fmt, ap);
	va_end(ap);
	return -1;
}

int
sshconfig_stop(struct scparse *p, const struct scfile *f, const char *fmt,
    ...)
{
	va_list ap;
	char *more;

	va_start(ap, fmt);
	sc_verr(p, f, fmt, ap);
	va_end(ap);
	p->stop = true;
	/* ssh printed the bad lines before it, then died of this. */
	if (p->nbad > 0) {
		more = xasprintf("%s (after %u bad configuration option%s: "
		    "%s)", p->err, p->nbad, p->nbad == 1 ? "" : "s", p->bad);
		errbuf_set(p->err, p->errlen, "%s", more);
		free(more);
	}
	return -1;
}

/* A bad line: its message (in err) joins the others, as ssh prints each
 * one and reads on; the list is capped at err's size. */
static void
sc_bad(struct scparse *p)
{
	char *more;

	p->nbad++;
	if (p->bad == NULL)
		p->bad = xstrdup(p->err);
	else if (strlen(p->bad) < p->errlen) {
		more = xasprintf("%s; %s", p->bad, p->err);
		free(p->bad);
		p->bad = more;
	}
}

/*
 * The end of file f, n of whose lines were bad: ssh stops here ("FILE:
 * terminating, N bad configuration options") having printed every bad
 * line so far, in this file and the ones that included it.  One bad line
 * is its message alone.
 */
static int
sc_terminate(struct scparse *p, const struct scfile *f, unsigned n)
{
	char *path;

	p->stop = true;
	if (p->nbad == 1)
		return -1;
	path = text_sanitize(f->path, strlen(f->path), 0);
	errbuf_set(p->err, p->errlen, "%s: %u bad configuration option%s, "
	    "ssh refuses the config too: %s", path, n, n == 1 ? "" : "s",
	    p->bad);
	free(path);
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

void
sshconfig_note(struct scparse *p, const struct scfile *f, const char *fmt,
    ...)
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

/* A keyword ssh does not know: an error, as in ssh, unless IgnoreUnknown
 * (set before it) names it. */
static int
sc_unknown(struct scparse *p, struct scfile *f, const char *word)
{
	const struct sshconfig_value *ig = &p->sc->ignore_unknown;
	char *lower = xstrdup(word), *c;
	int r;

	for (c = lower; *c != '\0'; c++)
		*c = (char)tolower((unsigned char)*c);
	r = ig->value != NULL ? sshconfig_match_list(lower, ig->value,
	    true) : 0;
	free(lower);
	if (r == 1)
		return 0;
	return sshconfig_err(p, f, "bad configuration option '%s': ssh "
	    "refuses it too (IgnoreUnknown lets it pass)", word);
}

/*
 * Cut a line as ssh does: trailing blanks go, the keyword ends at a blank
 * or at one '=' (so "Port 22", "Port=22" and "Port = 22" are the same),
 * and the rest is split into arguments.  1 when there is nothing to read
 * on the line (blank, a comment, a keyword IgnoreUnknown names), -1 when
 * it is malformed or its keyword unknown.
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
	if ((l->kw = sshconfig_kw_find(l->word)) == SIZE_MAX)
		return sc_unknown(p, f, l->word) == 0 ? 1 : -1;
	if (*s == '\0')
		return sshconfig_err(p, f, "no value after '%s'", l->word);
	l->rest = s;
	if (sc_split(s, l) != 0)
		return sshconfig_err(p, f, "a quote is not closed");
	return 0;
}

static int
sc_line(struct scparse *p, struct scfile *f, char *text)
{
	struct scline l;
	int rc;

	memset(&l, 0, sizeof l);
	if ((rc = sc_cut(p, f, text, &l)) == 0)
		rc = sshconfig_kw_line(p, f, &l);
	free(l.argv);
	free(l.buf);
	return rc < 0 ? -1 : 0;
}

/* Every line of f, on past a bad one as ssh reads on (readconf.c,
 * read_config_file_depth), to the end of the file or to what stops ssh. */
static int
sc_lines(struct scparse *p, struct scfile *f, const char *data, size_t len)
{
	const char *s = data, *end = data + len, *nl;
	unsigned nbad = 0;
	char *text;
	int rc;

	for (f->line = 1; s < end; f->line++) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		if (memchr(s, '\0', (size_t)(nl - s)) != NULL)
			rc = sshconfig_err(p, f, "a NUL byte in the line");
		else {
			text = xstrndup(s, (size_t)(nl - s));
			rc = sc_line(p, f, text);
			free(text);
		}
		if (rc != 0 && p->stop)
			return -1;
		if (rc != 0) {
			sc_bad(p);
			nbad++;
		}
		if (nl == end)
			break;
		s = nl + 1;
	}
	return nbad > 0 ? sc_terminate(p, f, nbad) : 0;
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
		return sshconfig_err(p, parent, "cannot open '%s': %s", f->path,
		    strerror(errno));
	}
	if (S_ISDIR(st.st_mode) && parent != NULL) {
		sshconfig_note(p, parent, "'%s' is a folder: it includes nothing",
		    f->path);
		return 1;
	}
	if ((flags & SC_CHECKPERM) != 0 && ((st.st_uid != 0 &&
	    st.st_uid != getuid()) || (st.st_mode & 022) != 0))
		return sshconfig_stop(p, parent, "bad owner or permissions on '%s': "
		    "ssh refuses it too (it must be yours or root's, and not "
		    "writable by group or others: chmod go-w)", f->path);
	if (docfile_is_null(&st)) {
		*data = xstrdup("");	/* as ssh reads ssh -F /dev/null */
		*len = 0;
		return 0;
	}
	rc = docfile_read(f->path, SSHCONFIG_MAX_BYTES, data, len, msg,
	    sizeof msg);
	if (rc == 1 && (flags & SC_MUSTEXIST) != 0)
		return sshconfig_err(p, parent, "cannot open '%s': %s", f->path,
		    strerror(ENOENT));
	if (rc == -1)
		return sshconfig_err(p, parent, "%s", msg);
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
		return sshconfig_stop(p, parent, "'Include' nests more than %d files "
		    "deep (does a file include itself?)", SSHCONFIG_MAX_DEPTH);
	if (++p->nfiles > SSHCONFIG_MAX_FILES)
		return sshconfig_stop(p, parent, "'Include' reads more than %d files",
		    SSHCONFIG_MAX_FILES);
	if ((rc = sc_open(p, f, parent, flags, &data, &len)) != 0)
		return rc == 1 ? 0 : -1;
	rc = sc_lines(p, f, data, len);
	free(data);
	return rc;
}

/*
 * Include: each argument a glob, a relative one in ~/.ssh (/etc/ssh for
 * the system file and what it includes), its files read
 * in lexical order.  Their Host and Match lines do not change the block
 * the Include line is in, and when that block does not apply nothing they
 * say applies (they are still checked), as in ssh.
 */
int
sshconfig_include_line(struct scparse *p, struct scfile *f,
    struct scline *l)
{
	bool outer = *f->active;
	struct scfile in;
	char *pat, *t;
	glob_t gl;
	size_t i, j;
	int rc = 0, g;

	for (i = 0; rc == 0 && i < l->argc; i++) {
		if (l->argv[i][0] == '\0')
			return sshconfig_err(p, f, "'%s' has an empty path", l->word);
		if (l->argv[i][0] != '/' && l->argv[i][0] != '~')
			t = xasprintf("%s/%s", f->system ? SC_SYSTEM_DIR :
			    "~/.ssh", l->argv[i]);
		else
			t = xstrdup(l->argv[i]);
		/* An unknown ~user stays as written: glob finds nothing. */
		if ((pat = sshconfig_tilde(p->sc->home, t)) == NULL)
			pat = xstrdup(t);
		free(t);
		memset(&gl, 0, sizeof gl);
		if ((g = glob(pat, 0, NULL, &gl)) != 0 && g != GLOB_NOMATCH)
			rc = sshconfig_err(p, f, "cannot list the files of '%s'",
			    pat);
		for (j = 0; g == 0 && rc == 0 && j < gl.gl_pathc; j++) {
			in.path = gl.gl_pathv[j];
			in.line = 0;
			in.depth = f->depth + 1;
			in.nevermatch = f->nevermatch || !outer;
			in.system = f->system;
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
		return sshconfig_err(p, NULL, "cannot tell %s for uid %lu (HOME, "
		    "USER and the password file say nothing)", home == NULL ?
		    "the home folder" : "the user name", sc->uid);
	sc->home = xstrdup(home);
	return 0;
}

/* name as one numeric address (no lookup), or NULL. */
static struct addrinfo *
sc_numeric(const char *name)
{
	struct addrinfo hints, *ai;

	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(name, "22", &hints, &ai) != 0)
		return NULL;
	if (ai != NULL && ai->ai_next == NULL)
		return ai;
	if (ai != NULL)
		freeaddrinfo(ai);
	return NULL;
}

/*
 * What ssh makes of the name it connects to: a name is lowercased; an IP
 * address is not, but is written the way getnameinfo() writes it when
 * that differs by more than case ("127.1", "2001:0db8::1"), as ssh's
 * is_addr() and resolve_canonicalize() do.  Whether it is an address (or
 * looks like one), which ssh never canonicalizes by name.
 */
bool
sshconfig_canon_host(char **name)
{
	char addr[NI_MAXHOST], *c;
	const char *n = *name;
	struct addrinfo *ai;
	bool fast;

	fast = strchr(n, '%') != NULL || strchr(n, ':') != NULL ||
	    strspn(n, "0123456789.") == strlen(n);
	if ((ai = sc_numeric(n)) == NULL) {
		if (!fast)
			for (c = *name; *c != '\0'; c++)
				*c = (char)tolower((unsigned char)*c);
		return fast;
	}
	if (getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof addr,
	    NULL, 0, NI_NUMERICHOST) == 0 && strcasecmp(addr, n) != 0) {
		free(*name);
		*name = xstrdup(addr);
	}
	freeaddrinfo(ai);
	return true;
}

/* HostName with %h (the lab's address) and %% replaced, as ssh does
 * before it connects; NULL with why in msg. */
char *
sshconfig_expand_hostname(const char *raw, const char *alias, char *msg,
    size_t msglen)
{
	struct buf b;
	const char *s;
	int rc = 0;

	buf_init(&b, NI_MAXHOST);
	for (s = raw; rc == 0 && *s != '\0'; s++) {
		if (*s != '%')
			rc = buf_addc(&b, *s);
		else if (s[1] == '%' || s[1] == 'h')
			rc = buf_adds(&b, *++s == 'h' ? alias : "%");
		else {
			errbuf_set(msg, msglen, "%%h and %%%% only, not "
			    "'%%%.1s'", s + 1);
			buf_release(&b);
			return NULL;
		}
	}
	if (rc != 0) {
		errbuf_set(msg, msglen, "longer than %d bytes", NI_MAXHOST);
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* One pass over the files: the one given (as ssh -F; "none": none), or
 * ~/.ssh/config and then the system's. */
static int
sc_pass(struct scparse *p, const char *path)
{
	struct scfile f;
	bool active = true;
	char *file;
	int rc;

	p->nfiles = 0;
	if (path != NULL && strcasecmp(path, "none") == 0)
		return 0;
	file = path != NULL ? xstrdup(path) :
	    xasprintf("%s/.ssh/config", p->sc->home);
	memset(&f, 0, sizeof f);
	f.path = file;
	f.active = &active;
	rc = sc_file(p, &f, NULL, path == NULL ? SC_CHECKPERM : SC_MUSTEXIST);
	free(file);
	if (rc != 0 || path != NULL)
		return rc;
	memset(&f, 0, sizeof f);
	active = true;
	f.path = SC_SYSTEM_FILE;
	f.system = true;
	f.active = &active;
	return sc_file(p, &f, NULL, 0);
}

/* sc_between's answers besides 0 and -1. */
#define SC_FINAL	1	/* read the files again: the final pass */
#define SC_WAIT		2	/* a name's lookup is not answered yet */

/* Whether name resolves, as ssh's resolve_host() asks: 1, 0, or
 * SSHCONFIG_WAIT from the caller's resolver. */
static int
sc_resolves(struct scparse *p, const char *name, int family)
{
	struct addrinfo hints, *ai;

	if (p->rs != NULL)
		return p->rs->resolves(p->rs->arg, name, family);
	memset(&hints, 0, sizeof hints);
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(name, NULL, &hints, &ai) != 0)
		return 0;
	freeaddrinfo(ai);
	return 1;
}

/*
 * Whether ssh would reach the host directly, after the first pass (ssh.c
 * resolve_canonicalize(): ProxyCommand unset or none and no jump host --
 * "ProxyJump none" is one there, as ssh clears it only later); a name a
 * proxy or a jump host will resolve is made canonical only when
 * CanonicalizeHostname is always.
 */
static bool
sc_direct(const struct scparse *p)
{
	const struct sshconfig *sc = p->sc;

	return (p->rs == NULL || !p->rs->jumped) &&
	    sc->proxy_jump.value == NULL &&
	    (sc->proxy_command.value == NULL ||
	    strcasecmp(sc->proxy_command.value, "none") == 0);
}

/* The name with a final dot, as it resolves: 0 (name made canonical) or
 * 1 (it does not resolve), SC_WAIT. */
static int
sc_try(struct scparse *p, char **name, char *full)
{
	int r = sc_resolves(p, full, p->sc->family);

	if (r == SSHCONFIG_WAIT) {
		free(full);
		return SC_WAIT;
	}
	if (r != 1) {
		free(full);
		return 1;
	}
	full[strlen(full) - 1] = '\0';
	free(*name);
	*name = full;
	return 0;
}

/*
 * ssh.c resolve_canonicalize() for a name (not an address): one with a
 * final dot, or with at most CanonicalizeMaxDots dots and a CanonicalDomains
 * suffix that resolves, becomes that name (without the final dot); else
 * it stays, or is an error when CanonicalizeFallbackLocal is no.  0, -1,
 * or SC_WAIT.
 */
static int
sc_canonicalize(struct scparse *p, char **name)
{
	struct sshconfig *sc = p->sc;
	size_t i, dots = 0, n = strlen(*name);
	const char *c;
	int r = 1;

	if (sc->canon == 1 && !sc_direct(p))
		return 0;
	if (n > 0 && (*name)[n - 1] == '.')
		r = sc_try(p, name, xstrdup(*name));
	else {
		for (c = *name; *c != '\0'; c++)
			dots += *c == '.';
		if (dots > (size_t)(sc->max_dots < 0 ? 1 : sc->max_dots))
			return 0;
		for (i = 0; r == 1 && i < sc->domains.n; i++) {
			if (strcasecmp(sc->domains.v[i], "none") == 0)
				break;
			r = sc_try(p, name, xasprintf("%s.%s.", *name,
			    sc->domains.v[i]));
		}
	}
	if (r != 1)
		return r;
	if (sc->fallback_local != 0)
		return 0;
	return sshconfig_err(p, NULL, "%s: cannot make '%s' canonical "
	    "(CanonicalizeHostname, CanonicalizeFallbackLocal no): ssh "
	    "gives up too", sc->canon_from.file, *name);
}

/*
 * Between the passes, as ssh.c main(): the HostName (%h expanded), a name
 * lowercased or an address rewritten, made canonical when asked; when
 * CanonicalizeHostname is on or a "Match final" was seen, it is the
 * HostName of the final pass and what its Host lines match.
 */
static int
sc_between(struct scparse *p)
{
	struct sshconfig *sc = p->sc;
	char msg[128], *h;
	int rc;

	if (sc->hostname.value == NULL)
		h = xstrdup(sc->original);
	else if ((h = sshconfig_expand_hostname(sc->hostname.value,
	    sc->original, msg, sizeof msg)) == NULL)
		return sshconfig_err(p, NULL, "%s:%u: 'HostName %s': %s",
		    sc->hostname.from.file, sc->hostname.from.line,
		    sc->hostname.value, msg);
	if (!sshconfig_canon_host(&h) && sc->canon > 0 &&
	    (rc = sc_canonicalize(p, &h)) != 0) {
		free(h);
		return rc;
	}
	if (sc->canon <= 0 && !p->want_final) {
		free(h);
		return 0;
	}
	if (sc->hostname.value == NULL || strcmp(h, sc->hostname.value) != 0)
		sshconfig_origin_set(&sc->hostname.from, sc->canon > 0 ?
		    sc->canon_from.file : sc->hostname.from.file, sc->canon >
		    0 ? sc->canon_from.line : sc->hostname.from.line);
	free(sc->hostname.value);
	sc->hostname.value = h;
	sc->hostname_final = true;
	free(sc->host);
	sc->host = xstrdup(h);
	p->final = true;
	return SC_FINAL;
}

int
sshconfig_read(struct sshconfig *sc, const char *path, const char *host,
    const char *home, char *err, size_t errlen)
{
	return sshconfig_read_async(sc, path, host, home, NULL, err, errlen);
}

int
sshconfig_read_async(struct sshconfig *sc, const char *path,
    const char *host, const char *home, const struct sshconfig_resolver *rs,
    char *err, size_t errlen)
{
	struct scparse p;
	int rc;

	memset(sc, 0, sizeof *sc);
	memset(&p, 0, sizeof p);
	sc->alive_s = sc->alive_max = sc->ids_only = sc->connect_s = -1;
	sc->canon = sc->max_dots = sc->fallback_local = -1;
	sc->compression = -1;
	sc->family = AF_UNSPEC;
	sc->strict = SSHCONFIG_STRICT_UNSET;
	sc->host = xstrdup(host);
	sc->original = xstrdup(host);
	p.sc = sc;
	p.rs = rs;
	p.err = err;
	p.errlen = errlen;
	if (sc_whoami(&p, home) != 0)
		return -1;
	p.seen = xcalloc(sshconfig_kw_count(), sizeof *p.seen);
	if ((rc = sc_pass(&p, path)) == 0 &&
	    (rc = sc_between(&p)) == SC_FINAL)
		rc = sc_pass(&p, path);
	free(p.seen);
	free(p.bad);
	return rc == SC_WAIT ? SSHCONFIG_WAIT : rc < 0 ? -1 : 0;
}

static void
sc_list_release(struct sshconfig_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->from.file);
	memset(l, 0, sizeof *l);
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
	free(sc->original);
	free(sc->home);
	free(sc->local_user);
	sshconfig_value_release(&sc->hostname);
	sshconfig_value_release(&sc->user);
	free(sc->port_from.file);
	free(sc->alive_from.file);
	free(sc->alive_max_from.file);
	sshconfig_value_release(&sc->proxy_jump);
	sshconfig_value_release(&sc->proxy_command);
	for (i = 0; i < sc->nids; i++)
		sshconfig_value_release(&sc->ids[i]);
	free(sc->ids);
	free(sc->ids_only_from.file);
	sshconfig_value_release(&sc->agent);
	sshconfig_value_release(&sc->cert);
	free(sc->family_from.file);
	free(sc->connect_from.file);
	free(sc->canon_from.file);
	sc_list_release(&sc->domains);
	free(sc->max_dots_from.file);
	free(sc->fallback_from.file);
	free(sc->strict_from.file);
	free(sc->compression_from.file);
	sc_list_release(&sc->user_kh);
	sc_list_release(&sc->global_kh);
	sshconfig_value_release(&sc->alias);
	sshconfig_value_release(&sc->hostkey_algs);
	sshconfig_value_release(&sc->revoked);
	sshconfig_value_release(&sc->ignore_unknown);
	sshconfig_notes_release(&sc->ignored);
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
