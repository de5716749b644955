/* sshconfig_kw.c: ssh's keyword table (OpenSSH 9.2's readconf.c, with
 * Debian 12's GSSAPI keywords) and the values calops reads (see
 * sshconfig.h).  A value is checked as ssh checks it, in a block that
 * applies or not; it is kept only when it applies and is the first. */
#include "calops.h"

#include <sys/socket.h>

#include <ctype.h>
#include <netdb.h>

#include "remote/sshconfig_check.h"
#include "remote/sshconfig_int.h"
#include "remote/sshconfig_kw.h"
#include "remote/sshconfig_match.h"

typedef int kwfn(struct scparse *, struct scfile *, struct scline *);

/* The one value a keyword such as Port takes, or NULL (err set). */
static const char *
kw_one(struct scparse *p, struct scfile *f, const struct scline *l)
{
	if (l->argc == 0 || l->argv[0][0] == '\0') {
		sshconfig_err(p, f, "'%s' needs a value", l->word);
		return NULL;
	}
	if (l->argc > 1) {
		sshconfig_err(p, f, "'%s' takes one value, not %zu", l->word,
		    l->argc);
		return NULL;
	}
	return l->argv[0];
}

/* Whether a value found now is the one kept: the block applies and
 * nothing set it before (from: where it was set, file NULL when not). */
static bool
kw_first(const struct scfile *f, const struct sshconfig_origin *from)
{
	return *f->active && from->file == NULL;
}

static int
kw_string(struct scparse *p, struct scfile *f, struct scline *l,
    struct sshconfig_value *v)
{
	const char *s;

	if ((s = kw_one(p, f, l)) == NULL)
		return -1;
	if (kw_first(f, &v->from)) {
		v->value = xstrdup(s);
		sshconfig_origin_set(&v->from, f->path, f->line);
	}
	return 0;
}

/*
 * One of names[] (case does not matter, as in ssh's multistate tables),
 * its value in vals[] set into *out when it is the first; -1 with ssh's
 * "unsupported option" otherwise.
 */
static int
kw_choice(struct scparse *p, struct scfile *f, struct scline *l,
    const char *const *names, const int *vals, int *out,
    struct sshconfig_origin *from)
{
	const char *s;
	size_t i;

	if ((s = kw_one(p, f, l)) == NULL)
		return -1;
	for (i = 0; names[i] != NULL; i++)
		if (strcasecmp(s, names[i]) == 0)
			break;
	if (names[i] == NULL)
		return sshconfig_err(p, f, "'%s': unsupported option '%s'",
		    l->word, s);
	if (kw_first(f, from)) {
		*out = vals[i];
		sshconfig_origin_set(from, f->path, f->line);
	}
	return 0;
}

static const char *const flag_names[] = { "yes", "true", "no", "false",
    NULL };
static const int flag_vals[] = { 1, 1, 0, 0 };

/* A number from 0 to INT_MAX, as ssh's parse_int; -1 when not. */
static int
kw_number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < 0 || v > INT_MAX)
		return -1;
	return (int)v;
}

static int
kw_int(struct scparse *p, struct scfile *f, struct scline *l, int *out,
    struct sshconfig_origin *from)
{
	const char *s;
	int v;

	if ((s = kw_one(p, f, l)) == NULL)
		return -1;
	if ((v = kw_number(s)) < 0)
		return sshconfig_err(p, f, "'%s' must be a number from 0, not "
		    "'%s'", l->word, s);
	if (kw_first(f, from)) {
		*out = v;
		sshconfig_origin_set(from, f->path, f->line);
	}
	return 0;
}

/* ssh's convtime(): seconds, or a sum of numbers each followed by s, m,
 * h, d or w ("1m30s"); -1 when it is not one or passes INT_MAX. */
int
sshconfig_kw_convtime(const char *s)
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

/* A time or none, as ServerAliveInterval and ConnectTimeout take; *out
 * is -1 until set. */
static int
kw_time(struct scparse *p, struct scfile *f, struct scline *l, int *out,
    struct sshconfig_origin *from)
{
	const char *s;
	int v;

	if ((s = kw_one(p, f, l)) == NULL)
		return -1;
	if (strcmp(s, "none") == 0)
		v = -1;
	else if ((v = sshconfig_kw_convtime(s)) == -1)
		return sshconfig_err(p, f, "'%s' must be a time such as 30, "
		    "30s or 1m30s, or none, not '%s'", l->word, s);
	/* none is -1, as not given: a later line may still set it. */
	if (*f->active && *out == -1 && v != -1) {
		*out = v;
		sshconfig_origin_set(from, f->path, f->line);
	}
	return 0;
}

/* Several values on one line, the first line that applies winning;
 * "none" stands alone (UserKnownHostsFile). */
static int
kw_list(struct scparse *p, struct scfile *f, struct scline *l,
    struct sshconfig_list *out, bool none_alone)
{
	size_t i;

	if (l->argc == 0)
		return sshconfig_err(p, f, "'%s' needs a value", l->word);
	if (l->argc > SSHCONFIG_MAX_HOSTFILES)
		return sshconfig_err(p, f, "'%s' takes at most %d values",
		    l->word, SSHCONFIG_MAX_HOSTFILES);
	for (i = 0; i < l->argc; i++) {
		if (l->argv[i][0] == '\0')
			return sshconfig_err(p, f, "'%s' has an empty value",
			    l->word);
		if (none_alone && l->argc > 1 &&
		    strcasecmp(l->argv[i], "none") == 0)
			return sshconfig_err(p, f, "'%s': \"none\" must "
			    "stand alone", l->word);
	}
	if (!kw_first(f, &out->from))
		return 0;
	out->v = xcalloc(l->argc, sizeof *out->v);
	for (i = 0; i < l->argc; i++)
		out->v[i] = xstrdup(l->argv[i]);
	out->n = l->argc;
	sshconfig_origin_set(&out->from, f->path, f->line);
	return 0;
}

/* HostName: in the final pass ssh has set it already (sshconfig.c). */
static int
kw_hostname(struct scparse *p, struct scfile *f, struct scline *l)
{
	if (p->final)
		return kw_one(p, f, l) != NULL ? 0 : -1;
	return kw_string(p, f, l, &p->sc->hostname);
}

static int
kw_user(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_string(p, f, l, &p->sc->user);
}

/* ssh's a2port(): a number from 0 to 65535 (0 is refused by the caller),
 * else a service name of /etc/services; -1 when neither. */
int
sshconfig_kw_a2port(const char *s)
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

	if ((s = kw_one(p, f, l)) == NULL)
		return -1;
	if ((port = sshconfig_kw_a2port(s)) <= 0)
		return sshconfig_err(p, f, "'%s' must be a port from 1 to "
		    "65535 or a service name, not '%s'", l->word, s);
	if (kw_first(f, &p->sc->port_from)) {
		p->sc->port = port;
		sshconfig_origin_set(&p->sc->port_from, f->path, f->line);
	}
	return 0;
}

static int
kw_alive(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_time(p, f, l, &p->sc->alive_s, &p->sc->alive_from);
}

static int
kw_alive_max(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_int(p, f, l, &p->sc->alive_max, &p->sc->alive_max_from);
}

static int
kw_connect(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_time(p, f, l, &p->sc->connect_s, &p->sc->connect_from);
}

/* IdentityFile: every one that applies, in order, each path once. */
static int
kw_identity(struct scparse *p, struct scfile *f, struct scline *l)
{
	struct sshconfig *sc = p->sc;
	struct sshconfig_value *v;
	const char *s;
	size_t i;

	if ((s = kw_one(p, f, l)) == NULL)
		return -1;
	if (!*f->active)
		return 0;
	if (sc->nids >= SSHCONFIG_MAX_IDS)
		return sshconfig_err(p, f, "more than %d '%s' lines apply to "
		    "'%s'", SSHCONFIG_MAX_IDS, l->word, sc->original);
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

static int
kw_ids_only(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_choice(p, f, l, flag_names, flag_vals, &p->sc->ids_only,
	    &p->sc->ids_only_from);
}

static int
kw_agent(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_string(p, f, l, &p->sc->agent);
}

/* CertificateFile: ssh gathers them all; calops keeps the first but
 * "none", which sshhost.c refuses (it cannot offer a certificate). */
static int
kw_cert(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;

	if ((s = kw_one(p, f, l)) == NULL)
		return -1;
	if (strcasecmp(s, "none") == 0)
		return 0;
	return kw_string(p, f, l, &p->sc->cert);
}

static int
kw_family(struct scparse *p, struct scfile *f, struct scline *l)
{
	static const char *const names[] = { "inet", "inet6", "any", NULL };
	static const int vals[] = { AF_INET, AF_INET6, AF_UNSPEC };

	return kw_choice(p, f, l, names, vals, &p->sc->family,
	    &p->sc->family_from);
}

static int
kw_canon(struct scparse *p, struct scfile *f, struct scline *l)
{
	static const char *const names[] = { "yes", "true", "no", "false",
	    "always", NULL };
	static const int vals[] = { 1, 1, 0, 0, 2 };

	return kw_choice(p, f, l, names, vals, &p->sc->canon,
	    &p->sc->canon_from);
}

static int
kw_domains(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_list(p, f, l, &p->sc->domains, false);
}

static int
kw_max_dots(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_int(p, f, l, &p->sc->max_dots, &p->sc->max_dots_from);
}

static int
kw_fallback(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_choice(p, f, l, flag_names, flag_vals,
	    &p->sc->fallback_local, &p->sc->fallback_from);
}

static int
kw_strict(struct scparse *p, struct scfile *f, struct scline *l)
{
	static const char *const names[] = { "yes", "true", "ask",
	    "accept-new", "no", "false", "off", NULL };
	static const int vals[] = { SSHCONFIG_STRICT_YES, SSHCONFIG_STRICT_YES,
	    SSHCONFIG_STRICT_ASK, SSHCONFIG_STRICT_ACCEPT_NEW,
	    SSHCONFIG_STRICT_NO, SSHCONFIG_STRICT_NO, SSHCONFIG_STRICT_NO };
	int v = (int)p->sc->strict, rc;

	rc = kw_choice(p, f, l, names, vals, &v, &p->sc->strict_from);
	p->sc->strict = (enum sshconfig_strict)v;
	return rc;
}

/* Compression: ssh 9.2 takes yes and no alone (readconf.c's
 * multistate_compression); sshhost.c merges it with the lab's. */
static int
kw_compression(struct scparse *p, struct scfile *f, struct scline *l)
{
	static const char *const names[] = { "yes", "no", NULL };
	static const int vals[] = { 1, 0 };

	return kw_choice(p, f, l, names, vals, &p->sc->compression,
	    &p->sc->compression_from);
}

static int
kw_user_kh(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_list(p, f, l, &p->sc->user_kh, true);
}

static int
kw_global_kh(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_list(p, f, l, &p->sc->global_kh, true);
}

static int
kw_alias(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_string(p, f, l, &p->sc->alias);
}

/* RevokedHostKeys: a file (or a KRL) calops cannot read, so a host it
 * applies to is refused (sshhost.c); "none" is as if not given. */
static int
kw_revoked(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;

	if ((s = kw_one(p, f, l)) == NULL)
		return -1;
	if (strcasecmp(s, "none") == 0) {
		if (kw_first(f, &p->sc->revoked.from))
			sshconfig_origin_set(&p->sc->revoked.from, f->path,
			    f->line);
		return 0;
	}
	return kw_string(p, f, l, &p->sc->revoked);
}

/* HostKeyAlgorithms: checked as ssh checks it, kept as written;
 * sshhost.c makes it the list asked for. */
static int
kw_hostkey_algs(struct scparse *p, struct scfile *f, struct scline *l)
{
	if (sshconfig_check_value(p, f, l, "HostKeyAlgorithms") != 0)
		return -1;
	return kw_string(p, f, l, &p->sc->hostkey_algs);
}

static int
kw_ignore_unknown(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_string(p, f, l, &p->sc->ignore_unknown);
}

/* Keywords ssh itself passes over (its deprecated and unsupported ones,
 * and Protocol): nothing to do, nothing to list. */
static int
kw_ssh_ignores(struct scparse *p, struct scfile *f, struct scline *l)
{
	(void)p;
	(void)f;
	(void)l;
	return 0;
}

static const char *kw_name(size_t kw);

/* A keyword ssh acts on and calops does not: its value checked as ssh
 * checks it (sshconfig_check.c), then listed once per host, with the
 * first line of it that applies. */
static int
kw_ignored(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *file = f->path;
	size_t n = strlen(p->sc->home);
	char *line;

	if (sshconfig_check_value(p, f, l, kw_name(l->kw)) != 0)
		return -1;
	if (!*f->active || p->seen[l->kw])
		return 0;
	p->seen[l->kw] = true;
	if (strncmp(file, p->sc->home, n) == 0 && file[n] == '/' && n > 1)
		line = xasprintf("%s (~%s:%u)", kw_name(l->kw), file + n,
		    f->line);
	else
		line = xasprintf("%s (%s:%u)", kw_name(l->kw), file, f->line);
	sshconfig_notes_add(&p->sc->ignored, line);
	free(line);
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
sshconfig_kw_jump_cut(char *s, char **user, char **host, int *port)
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
 * two that applies wins, "none" included (and stays in the final pass),
 * but for what ssh 9.2 does: after "ProxyJump none" a ProxyCommand is
 * still taken, and ssh runs it (sshconfig_diff_test.sh,
 * pj_none_then_command). */
static bool
kw_proxy_taken(const struct sshconfig *sc, bool command)
{
	if (sc->proxy_command.value != NULL)
		return true;
	return sc->proxy_jump.value != NULL && !(command &&
	    strcasecmp(sc->proxy_jump.value, "none") == 0);
}

/* ProxyJump: "none", or jump hosts separated by commas, each checked
 * wherever it is (as ssh's parse_jump() does); ssh.c follows them. */
static int
kw_proxyjump(struct scparse *p, struct scfile *f, struct scline *l)
{
	char *list, *one, *next, *user, *host;
	const char *s;
	int port, rc = 0;

	if ((s = kw_one(p, f, l)) == NULL)
		return -1;
	if (strcasecmp(s, "none") != 0) {
		list = xstrdup(s);
		for (one = list; rc == 0 && one != NULL; one = next) {
			if ((next = strchr(one, ',')) != NULL)
				*next++ = '\0';
			if (sshconfig_kw_jump_cut(one, &user, &host, &port) !=
			    0)
				rc = sshconfig_err(p, f, "'%s %s': not a jump "
				    "host such as [user@]host[:port]", l->word,
				    s);
		}
		free(list);
		if (rc != 0)
			return -1;
	}
	if (*f->active && !kw_proxy_taken(p->sc, false)) {
		p->sc->proxy_jump.value = xstrdup(s);
		sshconfig_origin_set(&p->sc->proxy_jump.from, f->path, f->line);
	}
	return 0;
}

/* ProxyCommand: the rest of the line as it is written, run by sh(1). */
static int
kw_proxycommand(struct scparse *p, struct scfile *f, struct scline *l)
{
	if (*f->active && !kw_proxy_taken(p->sc, true)) {
		p->sc->proxy_command.value = xstrdup(l->rest);
		sshconfig_origin_set(&p->sc->proxy_command.from, f->path,
		    f->line);
	}
	return 0;
}

/* ssh's table, as its man page spells the names; each keyword once. */
static const struct {
	const char	*name;
	kwfn		*fn;
} kw_table[] = {
	/* Blocks. */
	{ "Host", sshconfig_match_host },
	{ "Match", sshconfig_match_line },
	{ "Include", sshconfig_include_line },
	/* Read by calops. */
	{ "HostName", kw_hostname },
	{ "User", kw_user },
	{ "Port", kw_port },
	{ "IdentityFile", kw_identity },
	{ "IdentityFile2", kw_identity },
	{ "IdentitiesOnly", kw_ids_only },
	{ "IdentityAgent", kw_agent },
	{ "CertificateFile", kw_cert },
	{ "AddressFamily", kw_family },
	{ "ConnectTimeout", kw_connect },
	{ "ServerAliveInterval", kw_alive },
	{ "ServerAliveCountMax", kw_alive_max },
	{ "CanonicalizeHostname", kw_canon },
	{ "CanonicalDomains", kw_domains },
	{ "CanonicalizeMaxDots", kw_max_dots },
	{ "CanonicalizeFallbackLocal", kw_fallback },
	{ "StrictHostKeyChecking", kw_strict },
	{ "Compression", kw_compression },
	{ "UserKnownHostsFile", kw_user_kh },
	{ "GlobalKnownHostsFile", kw_global_kh },
	{ "HostKeyAlias", kw_alias },
	{ "HostKeyAlgorithms", kw_hostkey_algs },
	{ "RevokedHostKeys", kw_revoked },
	{ "IgnoreUnknown", kw_ignore_unknown },
	{ "ProxyJump", kw_proxyjump },
	{ "ProxyCommand", kw_proxycommand },
	/* ssh passes over them too. */
	{ "Protocol", kw_ssh_ignores },
	{ "Cipher", kw_ssh_ignores },
	{ "FallBackToRsh", kw_ssh_ignores },
	{ "GlobalKnownHostsFile2", kw_ssh_ignores },
	{ "RhostsAuthentication", kw_ssh_ignores },
	{ "UserKnownHostsFile2", kw_ssh_ignores },
	{ "UseRoaming", kw_ssh_ignores },
	{ "UseRsh", kw_ssh_ignores },
	{ "UsePrivilegedPort", kw_ssh_ignores },
	{ "AFSTokenPassing", kw_ssh_ignores },
	{ "KerberosAuthentication", kw_ssh_ignores },
	{ "KerberosTGTPassing", kw_ssh_ignores },
	{ "RSAAuthentication", kw_ssh_ignores },
	{ "RhostsRSAAuthentication", kw_ssh_ignores },
	{ "CompressionLevel", kw_ssh_ignores },
	{ "UseBlacklistedKeys", kw_ssh_ignores },
	/* ssh acts on them, calops does not: listed. */
	{ "AddKeysToAgent", kw_ignored },
	{ "BatchMode", kw_ignored },
	{ "BindAddress", kw_ignored },
	{ "BindInterface", kw_ignored },
	{ "CanonicalizePermittedCNAMEs", kw_ignored },
	{ "CASignatureAlgorithms", kw_ignored },
	{ "ChallengeResponseAuthentication", kw_ignored },
	{ "CheckHostIP", kw_ignored },
	{ "Ciphers", kw_ignored },
	{ "ClearAllForwardings", kw_ignored },
	{ "ConnectionAttempts", kw_ignored },
	{ "ControlMaster", kw_ignored },
	{ "ControlPath", kw_ignored },
	{ "ControlPersist", kw_ignored },
	{ "DSAAuthentication", kw_ignored },
	{ "DynamicForward", kw_ignored },
	{ "EnableEscapeCommandline", kw_ignored },
	{ "EnableSSHKeysign", kw_ignored },
	{ "EscapeChar", kw_ignored },
	{ "ExitOnForwardFailure", kw_ignored },
	{ "FingerprintHash", kw_ignored },
	{ "ForkAfterAuthentication", kw_ignored },
	{ "ForwardAgent", kw_ignored },
	{ "ForwardX11", kw_ignored },
	{ "ForwardX11Timeout", kw_ignored },
	{ "ForwardX11Trusted", kw_ignored },
	{ "GatewayPorts", kw_ignored },
	{ "GSSAPIAuthentication", kw_ignored },
	{ "GSSAPIClientIdentity", kw_ignored },
	{ "GSSAPIDelegateCredentials", kw_ignored },
	{ "GSSAPIKexAlgorithms", kw_ignored },
	{ "GSSAPIKeyExchange", kw_ignored },
	{ "GSSAPIRenewalForcesRekey", kw_ignored },
	{ "GSSAPIServerIdentity", kw_ignored },
	{ "GSSAPITrustDNS", kw_ignored },
	{ "HashKnownHosts", kw_ignored },
	{ "HostbasedAcceptedAlgorithms", kw_ignored },
	{ "HostbasedAuthentication", kw_ignored },
	{ "HostbasedKeyTypes", kw_ignored },
	{ "IPQoS", kw_ignored },
	{ "KbdInteractiveAuthentication", kw_ignored },
	{ "KbdInteractiveDevices", kw_ignored },
	{ "KeepAlive", kw_ignored },
	{ "KexAlgorithms", kw_ignored },
	{ "KnownHostsCommand", kw_ignored },
	{ "LocalCommand", kw_ignored },
	{ "LocalForward", kw_ignored },
	{ "LogLevel", kw_ignored },
	{ "LogVerbose", kw_ignored },
	{ "MACs", kw_ignored },
	{ "NoHostAuthenticationForLocalhost", kw_ignored },
	{ "NumberOfPasswordPrompts", kw_ignored },
	{ "PasswordAuthentication", kw_ignored },
	{ "PermitLocalCommand", kw_ignored },
	{ "PermitRemoteOpen", kw_ignored },
	{ "PKCS11Provider", kw_ignored },
	{ "PreferredAuthentications", kw_ignored },
	{ "ProtocolKeepAlives", kw_ignored },
	{ "ProxyUseFdpass", kw_ignored },
	{ "PubkeyAcceptedAlgorithms", kw_ignored },
	{ "PubkeyAcceptedKeyTypes", kw_ignored },
	{ "PubkeyAuthentication", kw_ignored },
	{ "RekeyLimit", kw_ignored },
	{ "RemoteCommand", kw_ignored },
	{ "RemoteForward", kw_ignored },
	{ "RequestTTY", kw_ignored },
	{ "RequiredRSASize", kw_ignored },
	{ "SecurityKeyProvider", kw_ignored },
	{ "SendEnv", kw_ignored },
	{ "SessionType", kw_ignored },
	{ "SetEnv", kw_ignored },
	{ "SetupTimeOut", kw_ignored },
	{ "SkeyAuthentication", kw_ignored },
	{ "SmartcardDevice", kw_ignored },
	{ "StdinNull", kw_ignored },
	{ "StreamLocalBindMask", kw_ignored },
	{ "StreamLocalBindUnlink", kw_ignored },
	{ "SyslogFacility", kw_ignored },
	{ "TCPKeepAlive", kw_ignored },
	{ "TISAuthentication", kw_ignored },
	{ "Tunnel", kw_ignored },
	{ "TunnelDevice", kw_ignored },
	{ "UpdateHostKeys", kw_ignored },
	{ "VerifyHostKeyDNS", kw_ignored },
	{ "VisualHostKey", kw_ignored },
	{ "XAuthLocation", kw_ignored },
};

static const char *
kw_name(size_t kw)
{
	return kw_table[kw].name;
}

size_t
sshconfig_kw_count(void)
{
	return nitems(kw_table);
}

size_t
sshconfig_kw_find(const char *word)
{
	size_t i;

	for (i = 0; i < nitems(kw_table); i++)
		if (strcasecmp(word, kw_table[i].name) == 0)
			return i;
	return SIZE_MAX;
}

int
sshconfig_kw_line(struct scparse *p, struct scfile *f, struct scline *l)
{
	return kw_table[l->kw].fn(p, f, l);
}
