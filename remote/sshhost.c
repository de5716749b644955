/* sshhost.c: the lab host and ~/.ssh/config merged, as ssh would connect
 * (see sshhost.h).  Tokens, addresses and names are made what OpenSSH 9.2
 * makes them (ssh.c, misc.c). */
#include "calops.h"

#include <sys/socket.h>

#include <ctype.h>
#include <netdb.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/buf.h"
#include "base/text.h"
#include "remote/sshconfig_check.h"
#include "remote/sshhost.h"

/* What the tokens of an IdentityFile, a UserKnownHostsFile and an
 * IdentityAgent stand for once the host is known (ssh's
 * DEFAULT_CLIENT_PERCENT_EXPAND_ARGS). */
struct sh_tokens {
	const struct sshhost	*out;
	const struct sshconfig	*sc;
	char			 port[8];
	char			 uid[24];
	char			 thishost[256];
	char			 shorthost[256];
	char			 conn_hash[41];	/* %C */
	const char		*keyalias;	/* %k */
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
		return t->conn_hash;
	case 'k':
		return t->keyalias;
	default:
		*why = "is not a token ssh knows there";
		return NULL;
	}
}

/*
 * A path as ssh makes it one (an IdentityFile, a UserKnownHostsFile, an
 * IdentityAgent): "~" first, then ${VAR} and the % tokens in one pass.  NULL with a message in msg when it cannot be.
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

/* Where to connect: HostName, else the address, as ssh writes it (the
 * final pass of sshconfig.c did it already). */
static int
sh_merge_hostname(struct sshhost *out, const struct sshconfig *sc,
    const char *labfile, char *err, size_t errlen)
{
	char msg[128];

	if (sc->hostname.value == NULL) {
		out->hostname = xstrdup(out->alias);
		sshconfig_origin_set(&out->hostname_from, labfile, 0);
	} else if (sc->hostname_final)
		out->hostname = xstrdup(sc->hostname.value);
	else if ((out->hostname = sshconfig_expand_hostname(
	    sc->hostname.value, out->alias, msg, sizeof msg)) == NULL)
		return sh_err(err, errlen, &sc->hostname.from,
		    "'HostName %s': %s", sc->hostname.value, msg);
	if (sc->hostname.value != NULL)
		sshconfig_origin_set(&out->hostname_from,
		    sc->hostname.from.file, sc->hostname.from.line);
	(void)sshconfig_canon_host(&out->hostname);
	return 0;
}

/* The first of a value the lab gives (lab set) and the config's
 * (from.file set), into *to and its origin. */
static void
sh_pick(struct sshconfig_origin *to, bool lab, const char *labfile,
    const struct sshconfig_origin *from)
{
	if (lab)
		sshconfig_origin_set(to, labfile, 0);
	else if (from->file != NULL)
		sshconfig_origin_set(to, from->file, from->line);
}

/* User, Port and the keepalive: the lab's, else the config's, else the
 * default.  A ServerAliveInterval of 0 (ssh's "off") or past calops'
 * range is noted, not taken. */
static void
sh_merge_numbers(struct sshhost *out, const struct sshconfig *sc,
    const struct lab_host *h, const char *labfile)
{
	char *note;

	out->user = xstrdup(h->user != NULL ? h->user : sc->user.value !=
	    NULL ? sc->user.value : sc->local_user);
	sh_pick(&out->user_from, h->user != NULL, labfile, &sc->user.from);
	out->port = h->port != 0 ? h->port : sc->port != 0 ? sc->port :
	    SSHCONFIG_DEFAULT_PORT;
	sh_pick(&out->port_from, h->port != 0, labfile, &sc->port_from);
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
	/* ssh gives up after CountMax keepalives unanswered; 0 is at the
	 * first, as 1 is. */
	out->alive_max = sc->alive_max > 0 ? sc->alive_max : sc->alive_max ==
	    0 ? 1 : 3;
	sh_pick(&out->alive_max_from, false, labfile, &sc->alive_max_from);
	out->family = sc->family;
	sh_pick(&out->family_from, false, labfile, &sc->family_from);
	out->connect_s = sc->connect_s > 0 ? sc->connect_s : 0;
	sh_pick(&out->connect_from, false, labfile, &sc->connect_from);
}

/* Compression: the lab's, else the config's, else off (sshhost.h). */
static void
sh_merge_compress(struct sshhost *out, const struct sshconfig *sc,
    const struct lab_host *h, const char *labfile)
{
	out->compress = h->compression_set ? h->compression :
	    sc->compression == 1;
	sh_pick(&out->compress_from, h->compression_set, labfile,
	    &sc->compression_from);
}

/* %C: the SHA-1 of %l%h%p%r in hex, as ssh's ssh_connection_hash(). */
static void
sh_conn_hash(struct sh_tokens *t)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	const char *const parts[] = { t->thishost, t->out->hostname, t->port,
	    t->out->user };

	t->conn_hash[0] = '\0';
	if (ctx == NULL)
		return;
	if (EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) == 1) {
		for (i = 0; i < nitems(parts); i++)
			EVP_DigestUpdate(ctx, parts[i], strlen(parts[i]));
		if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1)
			mdlen = 0;
	}
	EVP_MD_CTX_free(ctx);
	for (i = 0; i < mdlen && i < 20; i++)
		snprintf(t->conn_hash + 2 * i, 3, "%02x", md[i]);
}

static void
sh_tokens_init(struct sh_tokens *t, const struct sshhost *out,
    const struct sshconfig *sc)
{
	memset(t, 0, sizeof *t);
	t->out = out;
	t->sc = sc;
	snprintf(t->port, sizeof t->port, "%d", out->port);
	snprintf(t->uid, sizeof t->uid, "%lu", sc->uid);
	if (gethostname(t->thishost, sizeof t->thishost - 1) == -1)
		t->thishost[0] = '\0';
	memcpy(t->shorthost, t->thishost, sizeof t->shorthost);
	t->shorthost[strcspn(t->shorthost, ".")] = '\0';
	t->keyalias = sc->alias.value != NULL ? out->kh_name : out->alias;
	sh_conn_hash(t);
}

/* The identities: the lab's alone, else each IdentityFile expanded
 * ("none" read but never used); none given, ssh's defaults. */
static int
sh_merge_ids(struct sshhost *out, const struct sshconfig *sc,
    const struct lab_host *h, const struct sh_tokens *t, const char *labfile,
    char *err, size_t errlen)
{
	struct sshconfig_value *v;
	char msg[256], *path;
	size_t i;

	out->ids = xcalloc(sc->nids + 1, sizeof *out->ids);
	out->ids_written = xcalloc(sc->nids + 1, sizeof *out->ids_written);
	for (i = 0; i < sc->nids; i++)
		out->ids_written[i] = xstrdup(sc->ids[i].value);
	out->nids_written = sc->nids;
	out->ids_only = sc->ids_only == 1;
	sh_pick(&out->ids_only_from, false, labfile, &sc->ids_only_from);
	if (h->identity != NULL) {
		out->ids[0].value = xstrdup(h->identity);
		sshconfig_origin_set(&out->ids[0].from, labfile, 0);
		out->nids = 1;
		return 0;
	}
	out->default_ids = sc->nids == 0;
	for (i = 0; i < sc->nids; i++) {
		if (strcasecmp(sc->ids[i].value, "none") == 0)
			continue;
		if ((path = sh_expand_id(t, sc->ids[i].value, msg,
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

/* IdentityAgent: SSH_AUTH_SOCK (as not given), none, $VAR or a path. */
static int
sh_merge_agent(struct sshhost *out, const struct sshconfig *sc,
    const struct sh_tokens *t, char *err, size_t errlen)
{
	const char *v = sc->agent.value, *env;
	char msg[256];

	if (v == NULL || strcmp(v, "SSH_AUTH_SOCK") == 0)
		return 0;
	sshconfig_origin_set(&out->agent_from, sc->agent.from.file,
	    sc->agent.from.line);
	if (strcasecmp(v, "none") == 0)
		out->agent = xstrdup("");
	else if (v[0] == '$') {
		env = getenv(v + 1);
		out->agent = xstrdup(env != NULL ? env : "");
	} else if ((out->agent = sh_expand_id(t, v, msg, sizeof msg)) ==
	    NULL)
		return sh_err(err, errlen, &sc->agent.from,
		    "'IdentityAgent %s': %s", v, msg);
	return 0;
}

static void
sh_add_kh(struct sshhost *out, char *path)
{
	out->kh_files = xreallocarray(out->kh_files, out->nkh + 1,
	    sizeof *out->kh_files);
	out->kh_files[out->nkh++] = path;
}

/*
 * The known_hosts files, in ssh's order (sshconnect.c check_host_key:
 * the user's, then the system's), the lab's last; the one a new key is
 * written to; the name keys are looked up under.
 */
static int
sh_merge_kh(struct sshhost *out, const struct sshconfig *sc,
    const struct lab_host *h, const struct sh_tokens *t, const char *labfile,
    char *err, size_t errlen)
{
	static const char *const global[] = { "/etc/ssh/ssh_known_hosts",
	    "/etc/ssh/ssh_known_hosts2" };
	char msg[256], *path;
	size_t i;

	if (sc->user_kh.n == 0) {
		sh_add_kh(out, xasprintf("%s/.ssh/known_hosts", sc->home));
		sh_add_kh(out, xasprintf("%s/.ssh/known_hosts2", sc->home));
	}
	for (i = 0; i < sc->user_kh.n; i++) {
		if (strcasecmp(sc->user_kh.v[i], "none") == 0)
			continue;
		if ((path = sh_expand_id(t, sc->user_kh.v[i], msg,
		    sizeof msg)) == NULL)
			return sh_err(err, errlen, &sc->user_kh.from,
			    "'UserKnownHostsFile %s': %s", sc->user_kh.v[i],
			    msg);
		sh_add_kh(out, path);
	}
	if (h->known_hosts == NULL && out->nkh > 0) {
		out->known_hosts = xstrdup(out->kh_files[0]);
		sh_pick(&out->known_hosts_from, false, labfile,
		    &sc->user_kh.from);
	}
	for (i = 0; sc->global_kh.n == 0 && i < nitems(global); i++)
		sh_add_kh(out, xstrdup(global[i]));
	/* ssh expands "~" in these, and no token. */
	for (i = 0; i < sc->global_kh.n; i++) {
		if (strcasecmp(sc->global_kh.v[i], "none") == 0)
			continue;
		if ((path = sshconfig_tilde(sc->home,
		    sc->global_kh.v[i])) == NULL)
			path = xstrdup(sc->global_kh.v[i]);
		sh_add_kh(out, path);
	}
	if (h->known_hosts != NULL) {
		sh_add_kh(out, xstrdup(h->known_hosts));
		out->known_hosts = xstrdup(h->known_hosts);
		sshconfig_origin_set(&out->known_hosts_from, labfile, 0);
	}
	return 0;
}

static const char *
sh_strict_word(enum sshconfig_strict s)
{
	switch (s) {
	case SSHCONFIG_STRICT_YES:
		return "yes";
	case SSHCONFIG_STRICT_ASK:
		return "ask";
	case SSHCONFIG_STRICT_ACCEPT_NEW:
		return "accept-new";
	default:
		return "no";
	}
}

/*
 * StrictHostKeyChecking against the lab's accept_new: the stricter wins,
 * and strict_why says which.  ssh's no and off are taken as accept-new.
 */
static void
sh_merge_strict(struct sshhost *out, const struct sshconfig *sc,
    const struct lab_host *h, const char *labfile)
{
	enum sshconfig_strict lab = h->accept_new ?
	    SSHCONFIG_STRICT_ACCEPT_NEW : SSHCONFIG_STRICT_ASK;
	enum sshconfig_strict cfg = sc->strict;
	char where[PATH_MAX + 32], *why;

	if (cfg == SSHCONFIG_STRICT_UNSET) {
		out->strict = lab;
		why = xasprintf("%s (%s accept_new: %s)", sh_strict_word(lab),
		    labfile, h->accept_new ? "true" : "false");
	} else if (cfg > lab) {
		out->strict = cfg;
		why = xasprintf("%s (StrictHostKeyChecking %s, %s: stricter "
		    "than %s's accept_new: %s)", sh_strict_word(cfg),
		    sh_strict_word(cfg), sshconfig_origin_str(&sc->strict_from,
		    where, sizeof where), labfile, h->accept_new ? "true" :
		    "false");
	} else {
		out->strict = lab;
		why = xasprintf("%s (%s accept_new: %s%s StrictHostKeyChecking "
		    "%s, %s)", sh_strict_word(lab), labfile, h->accept_new ?
		    "true" : "false", cfg == lab ? ", as" : ": stricter than",
		    sh_strict_word(cfg), sshconfig_origin_str(&sc->strict_from,
		    where, sizeof where));
	}
	out->strict_why = text_sanitize_str(why);
	free(why);
}

/* What calops refuses rather than connect as if it were not there. */
static int
sh_refusals(const struct sshconfig *sc, char *err, size_t errlen)
{
	if (sc->cert.value != NULL)
		return sh_err(err, errlen, &sc->cert.from, "'CertificateFile "
		    "%s' is refused: libssh2 1.10 cannot offer a certificate "
		    "(share/doc/lab.md)", sc->cert.value);
	if (sc->revoked.value != NULL)
		return sh_err(err, errlen, &sc->revoked.from, "'RevokedHostKeys "
		    "%s' is refused: calops cannot read it, and will not "
		    "connect past keys it may revoke (share/doc/lab.md)",
		    sc->revoked.value);
	return 0;
}

/*
 * The ProxyCommand as ssh's expand_proxy_command() makes it: %h the name
 * connected to, %k the host key alias (the address: calops has none), %n
 * the address, %p the port, %r the user, %%; any other token is an error,
 * as it is for ssh.  NULL with why in msg.
 */
static char *
sh_proxy_command(const struct sshhost *out, const char *key_alias,
    const char *raw, char *msg, size_t msglen)
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
			v = key_alias;
			break;
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

/* ProxyJump as written, or ProxyCommand expanded; "none" is neither (a
 * ProxyCommand after "ProxyJump none" is taken, sshconfig_kw.c). */
static int
sh_merge_proxy(struct sshhost *out, const struct sshconfig *sc, char *err,
    size_t errlen)
{
	const struct sshconfig_value *v;
	const char *key_alias;
	char msg[160];

	v = sc->proxy_jump.value != NULL && strcasecmp(sc->proxy_jump.value,
	    "none") != 0 ? &sc->proxy_jump : &sc->proxy_command;
	if (v->value == NULL || strcasecmp(v->value, "none") == 0)
		return 0;
	sshconfig_origin_set(&out->proxy_from, v->from.file, v->from.line);
	if (v == &sc->proxy_jump) {
		out->proxy_jump = xstrdup(v->value);
		return 0;
	}
	key_alias = sc->alias.value != NULL ? out->kh_name : out->alias;
	if ((out->proxy_command = sh_proxy_command(out, key_alias, v->value,
	    msg, sizeof msg)) == NULL)
		return sh_err(err, errlen, &v->from, "'ProxyCommand %s': %s",
		    v->value, msg);
	return 0;
}

/* HostKeyAlgorithms, made the list ssh asks for: an error where ssh
 * refuses it ("expand HostKeyAlgorithms"). */
static int
sh_merge_hostkey_algs(struct sshhost *out, const struct sshconfig *sc,
    char *err, size_t errlen)
{
	const struct sshconfig_value *v = &sc->hostkey_algs;

	if (v->value == NULL)
		return 0;
	if ((out->hostkey_algs = sshconfig_check_hostkey_algs(v->value)) ==
	    NULL)
		return sh_err(err, errlen, &v->from, "'HostKeyAlgorithms %s' "
		    "leaves no algorithm (a '!' stands only in a '-' list): "
		    "ssh refuses it too", v->value);
	sshconfig_origin_set(&out->hostkey_algs_from, v->from.file,
	    v->from.line);
	return 0;
}

int
sshhost_merge(struct sshhost *out, const struct sshconfig *sc,
    const struct lab_host *h, const char *labfile, char *err, size_t errlen)
{
	struct sh_tokens t;
	size_t i;
	char *c;

	memset(out, 0, sizeof *out);
	if (labfile == NULL)
		labfile = "the lab file";
	out->alias = xstrdup(h->address != NULL ? h->address : h->name);
	for (i = 0; i < sc->notes.n; i++)
		sshconfig_notes_add(&out->notes, sc->notes.v[i]);
	out->notes.dropped += sc->notes.dropped;
	for (i = 0; i < sc->ignored.n; i++)
		sshconfig_notes_add(&out->ignored, sc->ignored.v[i]);
	out->ignored.dropped += sc->ignored.dropped;
	if (sh_refusals(sc, err, errlen) != 0 ||
	    sh_merge_hostname(out, sc, labfile, err, errlen) != 0)
		return -1;
	sh_merge_numbers(out, sc, h, labfile);
	sh_merge_compress(out, sc, h, labfile);
	sh_merge_strict(out, sc, h, labfile);
	/* ssh.c lowercases HostKeyAlias before anything uses it (%k). */
	out->kh_name = xstrdup(sc->alias.value != NULL ? sc->alias.value :
	    out->hostname);
	for (c = out->kh_name; *c != '\0'; c++)
		*c = (char)tolower((unsigned char)*c);
	out->kh_port = sc->alias.value != NULL ? SSHCONFIG_DEFAULT_PORT :
	    out->port;
	sh_tokens_init(&t, out, sc);
	if (sh_merge_kh(out, sc, h, &t, labfile, err, errlen) != 0 ||
	    sh_merge_agent(out, sc, &t, err, errlen) != 0 ||
	    sh_merge_proxy(out, sc, err, errlen) != 0 ||
	    sh_merge_hostkey_algs(out, sc, err, errlen) != 0)
		return -1;
	return sh_merge_ids(out, sc, h, &t, labfile, err, errlen);
}

const char *
sshhost_compress_str(const struct sshhost *sh, const char *cs,
    const char *sc, char *buf, size_t len)
{
	char from[PATH_MAX + 32], why[PATH_MAX + 64], *s;
	bool on = strcmp(cs, "none") != 0 || strcmp(sc, "none") != 0;

	sshconfig_origin_str(&sh->compress_from, from, sizeof from);
	if (sh->compress_from.file == NULL)
		snprintf(why, sizeof why, "default");
	else if (sh->compress_from.line == 0)
		snprintf(why, sizeof why, "%s compression: %s", from,
		    sh->compress ? "true" : "false");
	else
		snprintf(why, sizeof why, "Compression %s, %s", sh->compress ?
		    "yes" : "no", from);
	if (!sh->compress)
		s = xasprintf("off (%s)", why);
	else if (cs[0] == '\0')
		s = xasprintf("asked (%s), not connected", why);
	else if (!on)
		s = xasprintf("asked (%s), the host offers none", why);
	else if (strcmp(cs, sc) == 0)
		s = xasprintf("%s (%s)", sc, why);
	else
		s = xasprintf("%s from the host, %s to it (%s)", sc, cs, why);
	errbuf_set(buf, len, "%s", s);
	free(s);
	return buf;
}

int
sshhost_resolve(struct sshhost *out, const struct lab_host *h,
    const char *labfile, const char *config,
    const struct sshconfig_resolver *rs, char *err, size_t errlen)
{
	struct sshconfig sc;
	int rc;

	memset(out, 0, sizeof *out);
	rc = sshconfig_read_async(&sc, config, h->address != NULL ?
	    h->address : h->name, NULL, rs, err, errlen);
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
	free(out->alive_max_from.file);
	free(out->family_from.file);
	free(out->connect_from.file);
	free(out->compress_from.file);
	for (i = 0; i < out->nids; i++)
		sshconfig_value_release(&out->ids[i]);
	free(out->ids);
	for (i = 0; i < out->nids_written; i++)
		free(out->ids_written[i]);
	free(out->ids_written);
	free(out->ids_only_from.file);
	free(out->agent);
	free(out->agent_from.file);
	for (i = 0; i < out->nkh; i++)
		free(out->kh_files[i]);
	free(out->kh_files);
	free(out->kh_name);
	free(out->known_hosts);
	free(out->known_hosts_from.file);
	free(out->strict_why);
	sshconfig_notes_release(&out->ignored);
	free(out->proxy_jump);
	free(out->proxy_command);
	free(out->proxy_from.file);
	free(out->hostkey_algs);
	free(out->hostkey_algs_from.file);
	sshconfig_notes_release(&out->notes);
	memset(out, 0, sizeof *out);
}
