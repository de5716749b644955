/* sshhost.c: the lab host and ~/.ssh/config merged, as ssh would connect
 * (see sshhost.h).  Tokens, addresses and names are made what OpenSSH 9.2
 * makes them (ssh.c, misc.c). */
#include "calops.h"

#include <sys/socket.h>

#include <ctype.h>
#include <netdb.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/text.h"
#include "remote/sshhost.h"

/* What the tokens of an IdentityFile stand for once the host is known
 * (ssh's DEFAULT_CLIENT_PERCENT_EXPAND_ARGS). */
struct sh_tokens {
	const struct sshhost	*out;
	const struct sshconfig	*sc;
	char			 port[8];
	char			 uid[24];
	char			 thishost[256];
	char			 shorthost[256];
};

/* The value of token c, or NULL with why set. */
static const char *
sh_token(const struct sh_tokens *t, char c, const char **why)
{
	switch (c) {
	case 'd':
		return t->sc->home;
	case 'h':
		return t->out->hostname;
	case 'i':
		return t->uid;
	case 'L':
		return t->shorthost;
	case 'l':
		return t->thishost;
	case 'n':
		return t->out->alias;
	case 'p':
		return t->port;
	case 'r':
		return t->out->user;
	case 'u':
		return t->sc->local_user;
	case 'C':
	case 'k':
		*why = "is not supported by calops";
		return NULL;
	default:
		*why = "is not a token of IdentityFile";
		return NULL;
	}
}

/*
 * An IdentityFile as ssh makes it a path: "~" first, then ${VAR} and the
 * % tokens in one pass.  NULL with a message in msg when it cannot be.
 */
static char *
sh_expand_id(const struct sh_tokens *t, const char *raw, char *msg,
    size_t msglen)
{
	const char *s, *v, *why = NULL, *close;
	struct buf b;
	char *path, *var;
	bool done;
	int rc = 0;

	if ((path = sshconfig_tilde(t->sc->home, raw)) == NULL) {
		errbuf_set(msg, msglen, "no such user for '%.*s'",
		    (int)strcspn(raw, "/"), raw);
		return NULL;
	}
	buf_init(&b, PATH_MAX);
	for (s = path; rc == 0 && *s != '\0'; s++) {
		if (s[0] == '$' && s[1] == '{') {
			if ((close = strchr(s + 2, '}')) == NULL ||
			    close == s + 2) {
				errbuf_set(msg, msglen, "a '${' with no name "
				    "and '}'");
				break;
			}
			var = xstrndup(s + 2, (size_t)(close - s - 2));
			if ((v = getenv(var)) == NULL)
				errbuf_set(msg, msglen, "${%s} is not set", var);
			free(var);
			if (v == NULL)
				break;
			rc = buf_adds(&b, v);
			s = close;
		} else if (s[0] != '%' || s[1] == '%')
			rc = buf_addc(&b, *(s[0] == '%' ? ++s : s));
		else if (s[1] == '\0') {
			errbuf_set(msg, msglen, "a '%%' ends it");
			break;
		} else if ((v = sh_token(t, s[1], &why)) == NULL) {
			errbuf_set(msg, msglen, "'%%%c' %s", s[1], why);
			break;
		} else {
			rc = buf_adds(&b, v);
			s++;
		}
	}
	if (rc != 0)
		errbuf_set(msg, msglen, "longer than %d bytes", PATH_MAX);
	done = rc == 0 && *s == '\0';
	free(path);
	if (!done) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* name as one numeric address (no lookup), or NULL. */
static struct addrinfo *
sh_numeric(const char *name)
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
 * is_addr() and resolve_canonicalize() do.
 */
static void
sh_canon_host(char **name)
{
	char addr[NI_MAXHOST], *c;
	const char *n = *name;
	struct addrinfo *ai;
	bool fast;

	fast = strchr(n, '%') != NULL || strchr(n, ':') != NULL ||
	    strspn(n, "0123456789.") == strlen(n);
	if ((ai = sh_numeric(n)) == NULL) {
		if (!fast)
			for (c = *name; *c != '\0'; c++)
				*c = (char)tolower((unsigned char)*c);
		return;
	}
	if (getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof addr,
	    NULL, 0, NI_NUMERICHOST) == 0 && strcasecmp(addr, n) != 0) {
		free(*name);
		*name = xstrdup(addr);
	}
	freeaddrinfo(ai);
}

/* HostName with %h (the lab's address) and %% replaced, as ssh does
 * before it connects; NULL with why in msg. */
static char *
sh_hostname(const char *raw, const char *alias, char *msg, size_t msglen)
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

/* "FILE:LINE: message" for a value from o, made safe to show; -1. */
static int PRINTFLIKE(4, 5)
sh_err(char *err, size_t errlen, const struct sshconfig_origin *o,
    const char *fmt, ...)
{
	char where[PATH_MAX + 32], *msg, *line, *clean;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	line = xasprintf("%s: %s", sshconfig_origin_str(o, where,
	    sizeof where), msg);
	clean = text_sanitize(line, strlen(line), 0);
	errbuf_set(err, errlen, "%s", clean);
	free(clean);
	free(line);
	free(msg);
	return -1;
}

/* Where to connect: HostName, else the address, as ssh writes it. */
static int
sh_merge_hostname(struct sshhost *out, const struct sshconfig *sc,
    const char *labfile, char *err, size_t errlen)
{
	char msg[128];

	if (sc->hostname.value == NULL) {
		out->hostname = xstrdup(out->alias);
		sshconfig_origin_set(&out->hostname_from, labfile, 0);
	} else if ((out->hostname = sh_hostname(sc->hostname.value,
	    out->alias, msg, sizeof msg)) == NULL)
		return sh_err(err, errlen, &sc->hostname.from,
		    "'HostName %s': %s", sc->hostname.value, msg);
	else
		sshconfig_origin_set(&out->hostname_from,
		    sc->hostname.from.file, sc->hostname.from.line);
	sh_canon_host(&out->hostname);
	return 0;
}

/* User, Port and the keepalive: the lab's, else the config's, else the
 * default.  A ServerAliveInterval of 0 (ssh's "off") or past calops'
 * range is noted, not taken. */
static void
sh_merge_numbers(struct sshhost *out, const struct sshconfig *sc,
    const struct lab_host *h, const char *labfile)
{
	char *note;

	if (h->user != NULL) {
		out->user = xstrdup(h->user);
		sshconfig_origin_set(&out->user_from, labfile, 0);
	} else if (sc->user.value != NULL) {
		out->user = xstrdup(sc->user.value);
		sshconfig_origin_set(&out->user_from, sc->user.from.file,
		    sc->user.from.line);
	} else
		out->user = xstrdup(sc->local_user);
	if (h->port != 0) {
		out->port = h->port;
		sshconfig_origin_set(&out->port_from, labfile, 0);
	} else if (sc->port != 0) {
		out->port = sc->port;
		sshconfig_origin_set(&out->port_from, sc->port_from.file,
		    sc->port_from.line);
	} else
		out->port = SSHCONFIG_DEFAULT_PORT;
	out->keepalive_s = LAB_KEEPALIVE_DEFAULT;
	if (h->keepalive_s > 0) {
		out->keepalive_s = h->keepalive_s;
		sshconfig_origin_set(&out->keepalive_from, labfile, 0);
	} else if (sc->alive_s > 0 && sc->alive_s <= LAB_KEEPALIVE_MAX) {
		out->keepalive_s = sc->alive_s;
		sshconfig_origin_set(&out->keepalive_from, sc->alive_from.file,
		    sc->alive_from.line);
	} else if (sc->alive_s >= 0) {
		note = xasprintf("%s:%u: 'ServerAliveInterval %d' is not "
		    "used: calops needs a keepalive of 1 to %d s to see a "
		    "dead link, and uses %d s", sc->alive_from.file,
		    sc->alive_from.line, sc->alive_s, LAB_KEEPALIVE_MAX,
		    LAB_KEEPALIVE_DEFAULT);
		sshconfig_notes_add(&out->notes, note);
		free(note);
	}
}

/* The identities: the lab's alone, else each IdentityFile expanded. */
static int
sh_merge_ids(struct sshhost *out, const struct sshconfig *sc,
    const struct lab_host *h, const char *labfile, char *err, size_t errlen)
{
	struct sshconfig_value *v;
	struct sh_tokens t;
	char msg[256], *path;
	size_t i;

	if (h->identity != NULL) {
		out->ids = xcalloc(1, sizeof *out->ids);
		out->ids[0].value = xstrdup(h->identity);
		sshconfig_origin_set(&out->ids[0].from, labfile, 0);
		out->nids = 1;
		return 0;
	}
	memset(&t, 0, sizeof t);
	t.out = out;
	t.sc = sc;
	snprintf(t.port, sizeof t.port, "%d", out->port);
	snprintf(t.uid, sizeof t.uid, "%lu", sc->uid);
	if (gethostname(t.thishost, sizeof t.thishost - 1) == -1)
		t.thishost[0] = '\0';
	memcpy(t.shorthost, t.thishost, sizeof t.shorthost);
	t.shorthost[strcspn(t.shorthost, ".")] = '\0';
	out->ids = xcalloc(sc->nids + 1, sizeof *out->ids);
	for (i = 0; i < sc->nids; i++) {
		if (strcasecmp(sc->ids[i].value, "none") == 0)
			continue;
		if ((path = sh_expand_id(&t, sc->ids[i].value, msg,
		    sizeof msg)) == NULL)
			return sh_err(err, errlen, &sc->ids[i].from,
			    "'IdentityFile %s': %s", sc->ids[i].value, msg);
		v = &out->ids[out->nids++];
		v->value = path;
		sshconfig_origin_set(&v->from, sc->ids[i].from.file,
		    sc->ids[i].from.line);
	}
	return 0;
}

/*
 * The ProxyCommand as ssh's expand_proxy_command() makes it: %h the name
 * connected to, %k the host key alias (the address: calops has none), %n
 * the address, %p the port, %r the user, %%; any other token is an error,
 * as it is for ssh.  NULL with why in msg.
 */
static char *
sh_proxy_command(const struct sshhost *out, const char *raw, char *msg,
    size_t msglen)
{
	struct buf b;
	char port[8];
	const char *s, *v;
	int rc = 0;

	snprintf(port, sizeof port, "%d", out->port);
	buf_init(&b, 64u << 10);
	for (s = raw; rc == 0 && *s != '\0'; s++) {
		if (*s != '%') {
			rc = buf_addc(&b, *s);
			continue;
		}
		switch (*++s) {
		case '%':
			v = "%";
			break;
		case 'h':
			v = out->hostname;
			break;
		case 'k':
		case 'n':
			v = out->alias;
			break;
		case 'p':
			v = port;
			break;
		case 'r':
			v = out->user;
			break;
		default:
			errbuf_set(msg, msglen, "'%%%.1s' is not a token of "
			    "ProxyCommand (%%h %%k %%n %%p %%r %%%%)", s);
			buf_release(&b);
			return NULL;
		}
		rc = buf_adds(&b, v);
	}
	if (rc != 0) {
		errbuf_set(msg, msglen, "longer than 64 KiB");
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* ProxyJump as written, or ProxyCommand expanded; "none" is neither. */
static int
sh_merge_proxy(struct sshhost *out, const struct sshconfig *sc, char *err,
    size_t errlen)
{
	const struct sshconfig_value *v;
	char msg[160];

	v = sc->proxy_jump.value != NULL ? &sc->proxy_jump :
	    &sc->proxy_command;
	if (v->value == NULL || strcasecmp(v->value, "none") == 0)
		return 0;
	sshconfig_origin_set(&out->proxy_from, v->from.file, v->from.line);
	if (v == &sc->proxy_jump) {
		out->proxy_jump = xstrdup(v->value);
		return 0;
	}
	if ((out->proxy_command = sh_proxy_command(out, v->value, msg,
	    sizeof msg)) == NULL)
		return sh_err(err, errlen, &v->from, "'ProxyCommand %s': %s",
		    v->value, msg);
	return 0;
}

int
sshhost_merge(struct sshhost *out, const struct sshconfig *sc,
    const struct lab_host *h, const char *labfile, char *err, size_t errlen)
{
	size_t i;

	memset(out, 0, sizeof *out);
	if (labfile == NULL)
		labfile = "the lab file";
	out->alias = xstrdup(h->address != NULL ? h->address : h->name);
	for (i = 0; i < sc->notes.n; i++)
		sshconfig_notes_add(&out->notes, sc->notes.v[i]);
	out->notes.dropped += sc->notes.dropped;
	if (sh_merge_hostname(out, sc, labfile, err, errlen) != 0)
		return -1;
	sh_merge_numbers(out, sc, h, labfile);
	if (h->known_hosts != NULL) {
		out->known_hosts = xstrdup(h->known_hosts);
		sshconfig_origin_set(&out->known_hosts_from, labfile, 0);
	} else
		out->known_hosts = xasprintf("%s/.ssh/known_hosts", sc->home);
	if (sh_merge_proxy(out, sc, err, errlen) != 0)
		return -1;
	return sh_merge_ids(out, sc, h, labfile, err, errlen);
}

int
sshhost_resolve(struct sshhost *out, const struct lab_host *h,
    const char *labfile, const char *config, char *err, size_t errlen)
{
	struct sshconfig sc;
	int rc;

	memset(out, 0, sizeof *out);
	rc = sshconfig_read(&sc, config, h->address != NULL ? h->address :
	    h->name, NULL, err, errlen);
	if (rc == 0)
		rc = sshhost_merge(out, &sc, h, labfile, err, errlen);
	sshconfig_release(&sc);
	return rc;
}

void
sshhost_release(struct sshhost *out)
{
	size_t i;

	free(out->alias);
	free(out->hostname);
	free(out->hostname_from.file);
	free(out->user);
	free(out->user_from.file);
	free(out->port_from.file);
	free(out->keepalive_from.file);
	for (i = 0; i < out->nids; i++)
		sshconfig_value_release(&out->ids[i]);
	free(out->ids);
	free(out->known_hosts);
	free(out->known_hosts_from.file);
	free(out->proxy_jump);
	free(out->proxy_command);
	free(out->proxy_from.file);
	sshconfig_notes_release(&out->notes);
	memset(out, 0, sizeof *out);
}
