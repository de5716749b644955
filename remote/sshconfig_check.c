/*
 * sshconfig_check.c: the value of a keyword ssh acts on and calops does
 * not (ControlMaster, LocalForward, Ciphers, ...), checked as OpenSSH 9.2's
 * readconf.c checks it, in a block that applies or not: a config ssh
 * refuses is refused here too, at the same line, though calops reads
 * nothing from the value.  The names each takes are ssh's own tables
 * (readconf.c's multistate tables, log.c, misc.c's ipqos, and `ssh -Q`
 * cipher, mac, kex, kex-gss and key-sig of Debian 12's ssh).
 */
#include "calops.h"

#include <ctype.h>
#include <netdb.h>

#include "base/buf.h"
#include "remote/sshconfig_check.h"
#include "remote/sshconfig_int.h"
#include "remote/sshconfig_kw.h"
#include "remote/sshconfig_match.h"

static const char *const ck_flag[] = { "true", "false", "yes", "no",
    NULL };
static const char *const ck_yesnoask[] = { "true", "false", "yes", "no",
    "ask", NULL };
static const char *const ck_control[] = { "true", "yes", "false", "no",
    "auto", "ask", "autoask", NULL };
static const char *const ck_tunnel[] = { "ethernet", "point-to-point",
    "true", "yes", "false", "no", NULL };
static const char *const ck_tty[] = { "true", "yes", "false", "no",
    "force", "auto", NULL };
static const char *const ck_session[] = { "none", "subsystem", "default",
    NULL };
static const char *const ck_pubkey[] = { "true", "false", "yes", "no",
    "unbound", "host-bound", NULL };
static const char *const ck_addkeys_names[] = { "true", "false", "yes", "no",
    "ask", "confirm", NULL };
static const char *const ck_loglevel[] = { "quiet", "fatal", "error",
    "info", "verbose", "debug", "debug1", "debug2", "debug3", NULL };
static const char *const ck_facility[] = { "daemon", "user", "auth",
    "authpriv", "local0", "local1", "local2", "local3", "local4", "local5",
    "local6", "local7", NULL };
static const char *const ck_digest[] = { "md5", "sha1", "sha256",
    "sha384", "sha512", NULL };
static const char *const ck_ipqos[] = { "none", "af11", "af12", "af13",
    "af21", "af22", "af23", "af31", "af32", "af33", "af41", "af42", "af43",
    "cs0", "cs1", "cs2", "cs3", "cs4", "cs5", "cs6", "cs7", "ef", "le",
    "lowdelay", "throughput", "reliability", NULL };
static const char *const ck_cipher_names[] = { "3des-cbc", "aes128-cbc",
    "aes192-cbc", "aes256-cbc", "aes128-ctr", "aes192-ctr", "aes256-ctr",
    "aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
    "chacha20-poly1305@openssh.com", NULL };
static const char *const ck_mac_names[] = { "hmac-sha1", "hmac-sha1-96",
    "hmac-sha2-256", "hmac-sha2-512", "hmac-md5", "hmac-md5-96",
    "umac-64@openssh.com", "umac-128@openssh.com",
    "hmac-sha1-etm@openssh.com", "hmac-sha1-96-etm@openssh.com",
    "hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
    "hmac-md5-etm@openssh.com", "hmac-md5-96-etm@openssh.com",
    "umac-64-etm@openssh.com", "umac-128-etm@openssh.com", NULL };
static const char *const ck_kex[] = { "diffie-hellman-group1-sha1",
    "diffie-hellman-group14-sha1", "diffie-hellman-group14-sha256",
    "diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512",
    "diffie-hellman-group-exchange-sha1",
    "diffie-hellman-group-exchange-sha256", "ecdh-sha2-nistp256",
    "ecdh-sha2-nistp384", "ecdh-sha2-nistp521", "curve25519-sha256",
    "curve25519-sha256@libssh.org", "sntrup761x25519-sha512",
    "sntrup761x25519-sha512@openssh.com", NULL };
/* Debian's GSSAPI key exchanges: a name is one of these and a suffix. */
static const char *const ck_gsskex[] = { "gss-gex-sha1-",
    "gss-group1-sha1-", "gss-group14-sha1-", "gss-group14-sha256-",
    "gss-group16-sha512-", "gss-nistp256-sha256-", "gss-curve25519-sha256-",
    NULL };
static const char *const ck_keytypes[] = { "ssh-ed25519",
    "ssh-ed25519-cert-v01@openssh.com", "sk-ssh-ed25519@openssh.com",
    "sk-ssh-ed25519-cert-v01@openssh.com", "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp256-cert-v01@openssh.com", "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp384-cert-v01@openssh.com", "ecdsa-sha2-nistp521",
    "ecdsa-sha2-nistp521-cert-v01@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
    "webauthn-sk-ecdsa-sha2-nistp256@openssh.com", "ssh-dss",
    "ssh-dss-cert-v01@openssh.com", "ssh-rsa",
    "ssh-rsa-cert-v01@openssh.com", "rsa-sha2-256",
    "rsa-sha2-256-cert-v01@openssh.com", "rsa-sha2-512",
    "rsa-sha2-512-cert-v01@openssh.com", NULL };

/* ssh 9.2's KEX_DEFAULT_PK_ALG (myproposal.h), as `ssh -G` prints it. */
static const char ck_hostkey_default[] =
    "ssh-ed25519-cert-v01@openssh.com,"
    "ecdsa-sha2-nistp256-cert-v01@openssh.com,"
    "ecdsa-sha2-nistp384-cert-v01@openssh.com,"
    "ecdsa-sha2-nistp521-cert-v01@openssh.com,"
    "sk-ssh-ed25519-cert-v01@openssh.com,"
    "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com,"
    "rsa-sha2-512-cert-v01@openssh.com,rsa-sha2-256-cert-v01@openssh.com,"
    "ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,"
    "ecdsa-sha2-nistp521,sk-ssh-ed25519@openssh.com,"
    "sk-ecdsa-sha2-nistp256@openssh.com,rsa-sha2-512,rsa-sha2-256";

static bool
ck_in(const char *s, const char *const *names)
{
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		if (strcasecmp(s, names[i]) == 0)
			return true;
	return false;
}

/* The one argument readconf.c takes with argv_next(), or NULL with ssh's
 * "missing argument". */
static const char *
ck_arg(struct scparse *p, struct scfile *f, struct scline *l, size_t i)
{
	if (i >= l->argc || l->argv[i][0] == '\0') {
		sshconfig_err(p, f, "'%s' needs a value", l->word);
		return NULL;
	}
	return l->argv[i];
}

/* readconf.c's last check: nothing after the arguments a keyword takes. */
static int
ck_end(struct scparse *p, struct scfile *f, struct scline *l, size_t n)
{
	if (l->argc > n)
		return sshconfig_err(p, f, "'%s': extra arguments at the end "
		    "of the line (ssh refuses them too)", l->word);
	return 0;
}

static int
ck_choice(struct scparse *p, struct scfile *f, struct scline *l,
    const char *const *names)
{
	const char *s;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	if (!ck_in(s, names))
		return sshconfig_err(p, f, "'%s': unsupported option '%s'",
		    l->word, s);
	return ck_end(p, f, l, 1);
}

static int
ck_string(struct scparse *p, struct scfile *f, struct scline *l)
{
	return ck_arg(p, f, l, 0) == NULL ? -1 : ck_end(p, f, l, 1);
}

/* ssh's atoi_err(): 0 to INT_MAX in decimal. */
static int
ck_int(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;
	char *end;
	long long v;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < 0 || v > INT_MAX)
		return sshconfig_err(p, f, "'%s' must be a number from 0, not "
		    "'%s'", l->word, s);
	return ck_end(p, f, l, 1);
}

static int
ck_time_at(struct scparse *p, struct scfile *f, struct scline *l, size_t i)
{
	const char *s;

	if ((s = ck_arg(p, f, l, i)) == NULL)
		return -1;
	if (strcmp(s, "none") != 0 && sshconfig_kw_convtime(s) == -1)
		return sshconfig_err(p, f, "'%s' must be a time such as 30, "
		    "30s or 1m30s, or none, not '%s'", l->word, s);
	return ck_end(p, f, l, i + 1);
}

static int
ck_time(struct scparse *p, struct scfile *f, struct scline *l)
{
	return ck_time_at(p, f, l, 0);
}

/*
 * A list of algorithm names, comma-separated, as ssh's ciphers_valid(),
 * mac_valid() and kex_names_valid() read it: after an optional '+', '^'
 * (or '-', which ssh does not check), each name up to the first empty one
 * is known.  A key type not known may be a pattern that matches one,
 * or a negated one (sshkey_names_valid2() with wildcards).
 */
static int
ck_algos(struct scparse *p, struct scfile *f, struct scline *l,
    const char *const *names, bool gss, bool patterns)
{
	char *list, *name, *next;
	const char *s;
	size_t i;
	bool ok = true;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	if (*s == '-')
		return ck_end(p, f, l, 1);
	list = xstrdup(*s == '+' || *s == '^' ? s + 1 : s);
	for (name = list; ok && name != NULL && *name != '\0' && *name != ',';
	    name = next) {
		if ((next = strchr(name, ',')) != NULL)
			*next++ = '\0';
		for (i = 0, ok = false; !ok && names[i] != NULL; i++) {
			if (gss)
				ok = strncmp(name, names[i],
				    strlen(names[i])) == 0;
			else
				ok = strcmp(name, names[i]) == 0;
		}
		for (i = 0; patterns && !ok && names[i] != NULL; i++)
			ok = sshconfig_match_list(names[i], name, false) != 0;
	}
	free(list);
	if (!ok || *s == '\0' || ((*s == '+' || *s == '^') && s[1] == '\0'))
		return sshconfig_err(p, f, "'%s': '%s' names an algorithm ssh "
		    "does not know (ssh -Q lists them)", l->word, s);
	return ck_end(p, f, l, 1);
}

static int
ck_ciphers(struct scparse *p, struct scfile *f, struct scline *l)
{
	return ck_algos(p, f, l, ck_cipher_names, false, false);
}

static int
ck_macs(struct scparse *p, struct scfile *f, struct scline *l)
{
	return ck_algos(p, f, l, ck_mac_names, false, false);
}

static int
ck_kexes(struct scparse *p, struct scfile *f, struct scline *l)
{
	return ck_algos(p, f, l, ck_kex, false, false);
}

static int
ck_gss(struct scparse *p, struct scfile *f, struct scline *l)
{
	return ck_algos(p, f, l, ck_gsskex, true, false);
}

static int
ck_keys(struct scparse *p, struct scfile *f, struct scline *l)
{
	return ck_algos(p, f, l, ck_keytypes, false, true);
}

/* ssh's dollar_expand() succeeds: every ${VAR} is closed, named and set. */
static bool
ck_dollar(const char *s)
{
	const char *end;
	char *var;
	bool set;

	while ((s = strstr(s, "${")) != NULL) {
		s += 2;
		if ((end = strchr(s, '}')) == NULL || end == s)
			return false;
		var = xstrndup(s, (size_t)(end - s));
		set = getenv(var) != NULL;
		free(var);
		if (!set)
			return false;
		s = end + 1;
	}
	return true;
}

/* misc.c's valid_env_name(): letters, digits and '_'. */
static bool
ck_env_name(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* ForwardAgent: a flag, or an agent's socket as IdentityAgent takes it. */
static int
ck_forward_agent(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	if (ck_in(s, ck_flag))
		return ck_end(p, f, l, 1);
	if (!ck_dollar(s))
		return sshconfig_err(p, f, "'%s %s': a ${VAR} that is not set "
		    "or not closed", l->word, s);
	if (s[0] == '$' && s[1] != '{' && !ck_env_name(s + 1))
		return sshconfig_err(p, f, "'%s %s': not a variable name",
		    l->word, s);
	return ck_end(p, f, l, 1);
}

static int
ck_escape(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	if (strcmp(s, "none") != 0 && s[1] != '\0' && !(s[0] == '^' &&
	    s[2] == '\0' && (unsigned char)s[1] >= 64 &&
	    (unsigned char)s[1] < 128))
		return sshconfig_err(p, f, "'%s': '%s' is not one character, "
		    "^X or none", l->word, s);
	return ck_end(p, f, l, 1);
}

/* misc.c's scan_scaled(): a number, a fraction only before a unit, then
 * B, K, M, G, T, P or E; -1 when not one. */
static long long
ck_scaled(const char *s)
{
	static const char units[] = "BKMGTPE";
	const char *u;
	char *end;
	long long v;
	int shift;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || errno != 0 || v < 0)
		return -1;
	if (*end == '.') {
		end++;
		if (!isdigit((unsigned char)*end))
			return -1;
		end += strspn(end, "0123456789");
		if (*end == '\0')
			return -1;
	}
	if (*end == '\0')
		return v;
	if ((u = strchr(units, toupper((unsigned char)*end))) == NULL ||
	    end[1] != '\0')
		return -1;
	shift = (int)(u - units) * 10;
	if (shift > 0 && v > (LLONG_MAX >> shift))
		return -1;
	return v << shift;
}

/* RekeyLimit: "default" or a size of 16 bytes or more, then a time or
 * none. */
static int
ck_rekey(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;
	long long v;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	if (strcmp(s, "default") != 0) {
		if ((v = ck_scaled(s)) == -1)
			return sshconfig_err(p, f, "'%s': '%s' is not a size "
			    "such as 1G", l->word, s);
		if (v != 0 && v < 16)
			return sshconfig_err(p, f, "'%s': %s is too small "
			    "(16 bytes at least)", l->word, s);
	}
	if (l->argc == 1 || strcmp(l->argv[1], "none") == 0)
		return ck_end(p, f, l, 2);
	return ck_time_at(p, f, l, 1);
}

/* misc.c's parse_ipqos(): a name or a number from 0 to 255. */
static bool
ck_ipqos1(const char *s)
{
	char *end;
	long v;

	if (ck_in(s, ck_ipqos))
		return true;
	errno = 0;
	v = strtol(s, &end, 0);
	return *s != '\0' && *end == '\0' && errno == 0 && v >= 0 && v <= 255;
}

static int
ck_ipqos_line(struct scparse *p, struct scfile *f, struct scline *l)
{
	size_t i;

	if (ck_arg(p, f, l, 0) == NULL)
		return -1;
	for (i = 0; i < l->argc && i < 2; i++)
		if (!ck_ipqos1(l->argv[i]))
			return sshconfig_err(p, f, "'%s': bad value '%s'",
			    l->word, l->argv[i]);
	return ck_end(p, f, l, 2);
}

static int
ck_mask(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;
	char *end;
	long v;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	v = strtol(s, &end, 8);
	if (end == s || v < 0 || v > 0777)
		return sshconfig_err(p, f, "'%s': '%s' is not a mode from 0 to "
		    "0777", l->word, s);
	return ck_end(p, f, l, 1);
}

/* misc.c's a2tun() without the ':' part: "any" or 0 to SSH_TUNID_MAX. */
static bool
ck_tun1(const char *s)
{
	char *end;
	long long v;

	if (strcasecmp(s, "any") == 0)
		return true;
	errno = 0;
	v = strtoll(s, &end, 10);
	return end != s && *end == '\0' && errno == 0 && v >= 0 &&
	    v <= 0x7fffffff - 2;
}

static int
ck_tundev(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s, *colon;
	char *local;
	bool ok;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	if ((colon = strchr(s, ':')) == NULL)
		ok = ck_tun1(s);
	else {
		local = xstrndup(s, (size_t)(colon - s));
		ok = ck_tun1(local) && ck_tun1(colon + 1);
		free(local);
	}
	if (!ok)
		return sshconfig_err(p, f, "'%s': '%s' is not a tun device "
		    "such as 0, any or 0:1", l->word, s);
	return ck_end(p, f, l, 1);
}

/* ControlPersist: yes, true, no, false (as written) or a time. */
static int
ck_persist(struct scparse *p, struct scfile *f, struct scline *l)
{
	static const char *const exact[] = { "yes", "true", "no", "false",
	    NULL };
	const char *s;
	size_t i;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	for (i = 0; exact[i] != NULL; i++)
		if (strcmp(s, exact[i]) == 0)
			return ck_end(p, f, l, 1);
	if (sshconfig_kw_convtime(s) == -1)
		return sshconfig_err(p, f, "'%s': '%s' is not yes, no or a "
		    "time", l->word, s);
	return ck_end(p, f, l, 1);
}

/* AddKeysToAgent: yes, no, ask, confirm [TIME], or a time alone. */
static int
ck_addkeys(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *s;
	bool named;

	if ((s = ck_arg(p, f, l, 0)) == NULL)
		return -1;
	named = ck_in(s, ck_addkeys_names);
	if (named && strcasecmp(s, "confirm") == 0 && l->argc > 1) {
		if (sshconfig_kw_convtime(l->argv[1]) == -1)
			return sshconfig_err(p, f, "'%s': '%s' is not a time",
			    l->word, l->argv[1]);
		return ck_end(p, f, l, 2);
	}
	if ((!named && (l->argc > 1 || sshconfig_kw_convtime(s) == -1)) ||
	    (named && l->argc > 1))
		return sshconfig_err(p, f, "'%s': unsupported option '%s'",
		    l->word, s);
	return 0;
}

/* SendEnv: names, none empty or with '='. */
static int
ck_sendenv(struct scparse *p, struct scfile *f, struct scline *l)
{
	size_t i;

	for (i = 0; i < l->argc; i++)
		if (l->argv[i][0] == '\0' || strchr(l->argv[i], '=') != NULL)
			return sshconfig_err(p, f, "'%s': '%s' is not a "
			    "variable name", l->word, l->argv[i]);
	return 0;
}

static int
ck_setenv(struct scparse *p, struct scfile *f, struct scline *l)
{
	size_t i;

	for (i = 0; i < l->argc; i++)
		if (strchr(l->argv[i], '=') == NULL)
			return sshconfig_err(p, f, "'%s': '%s' is not "
			    "NAME=VALUE", l->word, l->argv[i]);
	return 0;
}

/* LogVerbose and CanonicalizePermittedCNAMEs: none alone, no empty one;
 * a CNAME rule is "*" or "SOURCES:TARGETS". */
static int
ck_words(struct scparse *p, struct scfile *f, struct scline *l, bool cname)
{
	const char *s, *colon;
	size_t i;

	for (i = 0; i < l->argc; i++) {
		s = l->argv[i];
		if (strcasecmp(s, "none") == 0 && l->argc > 1)
			return sshconfig_err(p, f, "'%s': \"none\" must stand "
			    "alone", l->word);
		if (strcasecmp(s, "none") == 0 || (cname && strcmp(s, "*") ==
		    0))
			continue;
		if (!cname && *s == '\0')
			return sshconfig_err(p, f, "'%s' has an empty value",
			    l->word);
		if (cname && ((colon = strchr(s, ':')) == NULL ||
		    colon[1] == '\0'))
			return sshconfig_err(p, f, "'%s': '%s' is not "
			    "SOURCES:TARGETS", l->word, s);
	}
	return 0;
}

static int
ck_logverbose(struct scparse *p, struct scfile *f, struct scline *l)
{
	return ck_words(p, f, l, false);
}

static int
ck_cnames(struct scparse *p, struct scfile *f, struct scline *l)
{
	return ck_words(p, f, l, true);
}

/* misc.c's hpdelim2(): "[HOST]:PORT", or up to the first ':' or '/';
 * port NULL when there is none; -1 when s is not one. */
static int
ck_hpdelim(char *s, char **host, char **port)
{
	char *c = s;

	*host = s;
	*port = NULL;
	if (*s == '\0')
		return -1;
	if (*c == '[') {
		if ((c = strchr(c, ']')) == NULL)
			return -1;
		c++;
	} else if ((c = strpbrk(c, ":/")) == NULL)
		c = s + strlen(s);
	if (*c == ':' || *c == '/') {
		*c = '\0';
		*port = c + 1;
	} else if (*c != '\0')
		return -1;
	return 0;
}

/* PermitRemoteOpen: any or none alone, else HOST:PORT (PORT a port or
 * "*"); a missing host or bad port stops ssh at once (fatal). */
static int
ck_permitopen(struct scparse *p, struct scfile *f, struct scline *l)
{
	char *one, *host, *port;
	size_t i;
	int rc = 0;

	if (l->argc == 0)
		return sshconfig_stop(p, f, "'%s' needs a value", l->word);
	for (i = 0; rc == 0 && i < l->argc; i++) {
		if (strcasecmp(l->argv[i], "any") == 0 ||
		    strcasecmp(l->argv[i], "none") == 0) {
			if (l->argc > 1)
				rc = sshconfig_err(p, f, "'%s': \"%s\" must "
				    "stand alone", l->word, l->argv[i]);
			continue;
		}
		one = xstrdup(l->argv[i]);
		if (ck_hpdelim(one, &host, &port) != 0)
			rc = sshconfig_stop(p, f, "'%s': no host in '%s'",
			    l->word, l->argv[i]);
		else if (port == NULL || (strcmp(port, "*") != 0 &&
		    sshconfig_kw_a2port(port) <= 0))
			rc = sshconfig_stop(p, f, "'%s': bad port in '%s'",
			    l->word, l->argv[i]);
		free(one);
	}
	return rc;
}

/* readconf.c's parse_fwd_field(): a field up to ':', or "[...]" taken as
 * it is; whether it holds a '/' (a socket path).  -1 at the end. */
static int
ck_fwd_field(char **pp, char **arg, bool *ispath)
{
	char *cp = *pp, *ep;

	*ispath = false;
	if (cp == NULL || *cp == '\0') {
		*pp = NULL;
		return -1;
	}
	if (*cp == '[') {
		for (ep = cp + 1; *ep != ']' && *ep != '\0'; ep++)
			if (*ep == '/')
				*ispath = true;
		if (ep[0] != ']' || (ep[1] != ':' && ep[1] != '\0'))
			return -1;
		*ep++ = '\0';
		if (*ep != '\0')
			*ep++ = '\0';
		*arg = cp + 1;
		*pp = ep;
		return 0;
	}
	for (; *cp != '\0' && *cp != ':'; cp++) {
		if (*cp == '\\') {
			memmove(cp, cp + 1, strlen(cp + 1) + 1);
			if (*cp == '\0')
				return -1;
		} else if (*cp == '/')
			*ispath = true;
	}
	if (*cp == ':')
		*cp++ = '\0';
	*arg = *pp;
	*pp = cp;
	return 0;
}

/*
 * readconf.c's parse_forward(): [listenhost:]listenport|listenpath, then
 * (not dynamic) connecthost:connectport|connectpath; true when ssh takes
 * it.  ${VAR} must expand.
 */
static bool
ck_forward_spec(const char *spec, bool dynamic, bool remote)
{
	char *buf, *cp, *arg[4];
	bool path[4];
	int i, lport = -1, cport = -1;
	bool lpath = false, cpath = false, ok;

	if (!ck_dollar(spec))
		return false;
	cp = buf = xstrdup(spec);
	while (isspace((unsigned char)*cp))
		cp++;
	for (i = 0; i < 4; i++)
		if (ck_fwd_field(&cp, &arg[i], &path[i]) != 0)
			break;
	if (cp != NULL && *cp != '\0')
		i = 0;
	if (i == 1) {
		lpath = path[0];
		lport = lpath ? 0 : sshconfig_kw_a2port(arg[0]);
	} else if (i == 2 && path[0] && path[1])
		lpath = cpath = true;
	else if (i == 2 && path[1]) {
		lport = sshconfig_kw_a2port(arg[0]);
		cpath = true;
	} else if (i == 2)
		lport = sshconfig_kw_a2port(arg[1]);
	else if (i == 3 && path[0]) {
		lpath = true;
		cport = sshconfig_kw_a2port(arg[2]);
	} else if (i == 3 && path[2]) {
		lport = sshconfig_kw_a2port(arg[1]);
		cpath = true;
	} else if (i == 3) {
		lport = sshconfig_kw_a2port(arg[0]);
		cport = sshconfig_kw_a2port(arg[2]);
	} else if (i == 4) {
		lport = sshconfig_kw_a2port(arg[1]);
		cport = sshconfig_kw_a2port(arg[3]);
	}
	ok = i >= 1 && i <= 4;
	if (dynamic)
		ok = ok && i <= 2;
	else
		ok = ok && (i >= 3 || cpath || lpath) && (cport > 0 || cpath);
	if ((lport < 0 && !lpath) || (!remote && !lpath && lport == 0))
		ok = false;
	if (ok && i >= 3 && !cpath && strlen(arg[i - 2]) >= NI_MAXHOST)
		ok = false;
	free(buf);
	return ok;
}

/* LocalForward, RemoteForward (whose target may be missing: dynamic) and
 * DynamicForward. */
static int
ck_forward(struct scparse *p, struct scfile *f, struct scline *l)
{
	bool dynamic = strcasecmp(l->word, "DynamicForward") == 0;
	bool remote = strcasecmp(l->word, "RemoteForward") == 0;
	char *spec;
	bool ok;

	if (ck_arg(p, f, l, 0) == NULL)
		return -1;
	if (!dynamic && (l->argc < 2 || l->argv[1][0] == '\0')) {
		if (!remote)
			return sshconfig_err(p, f, "'%s' needs a target",
			    l->word);
		dynamic = true;
	}
	spec = dynamic ? xstrdup(l->argv[0]) : xasprintf("%s:%s", l->argv[0],
	    l->argv[1]);
	ok = ck_forward_spec(spec, dynamic, remote);
	free(spec);
	if (!ok)
		return sshconfig_err(p, f, "'%s': bad forwarding "
		    "specification", l->word);
	return ck_end(p, f, l, dynamic && !remote ? 1 : 2);
}

/* Which check each keyword's value has: the names of readconf.c's
 * opcodes as ssh's table maps the keyword to them. */
static const struct {
	const char	*name;
	int		(*fn)(struct scparse *, struct scfile *,
			    struct scline *);
	const char *const *names;	/* for a choice */
} ck_table[] = {
	{ "AddKeysToAgent", ck_addkeys, NULL },
	{ "BatchMode", NULL, ck_flag },
	{ "BindAddress", ck_string, NULL },
	{ "BindInterface", ck_string, NULL },
	{ "CanonicalizePermittedCNAMEs", ck_cnames, NULL },
	{ "CASignatureAlgorithms", ck_keys, NULL },
	{ "ChallengeResponseAuthentication", NULL, ck_flag },
	{ "CheckHostIP", NULL, ck_flag },
	{ "Ciphers", ck_ciphers, NULL },
	{ "ClearAllForwardings", NULL, ck_flag },
	{ "ConnectionAttempts", ck_int, NULL },
	{ "ControlMaster", NULL, ck_control },
	{ "ControlPath", ck_string, NULL },
	{ "ControlPersist", ck_persist, NULL },
	{ "DSAAuthentication", NULL, ck_flag },
	{ "DynamicForward", ck_forward, NULL },
	{ "EnableEscapeCommandline", NULL, ck_flag },
	{ "EnableSSHKeysign", NULL, ck_flag },
	{ "EscapeChar", ck_escape, NULL },
	{ "ExitOnForwardFailure", NULL, ck_flag },
	{ "FingerprintHash", NULL, ck_digest },
	{ "ForkAfterAuthentication", NULL, ck_flag },
	{ "ForwardAgent", ck_forward_agent, NULL },
	{ "ForwardX11", NULL, ck_flag },
	{ "ForwardX11Timeout", ck_time, NULL },
	{ "ForwardX11Trusted", NULL, ck_flag },
	{ "GatewayPorts", NULL, ck_flag },
	{ "GSSAPIAuthentication", NULL, ck_flag },
	{ "GSSAPIClientIdentity", ck_string, NULL },
	{ "GSSAPIDelegateCredentials", NULL, ck_flag },
	{ "GSSAPIKexAlgorithms", ck_gss, NULL },
	{ "GSSAPIKeyExchange", NULL, ck_flag },
	{ "GSSAPIRenewalForcesRekey", NULL, ck_flag },
	{ "GSSAPIServerIdentity", ck_string, NULL },
	{ "GSSAPITrustDNS", NULL, ck_flag },
	{ "HashKnownHosts", NULL, ck_flag },
	{ "HostbasedAcceptedAlgorithms", ck_keys, NULL },
	{ "HostbasedAuthentication", NULL, ck_flag },
	{ "HostbasedKeyTypes", ck_keys, NULL },
	{ "HostKeyAlgorithms", ck_keys, NULL },
	{ "IPQoS", ck_ipqos_line, NULL },
	{ "KbdInteractiveAuthentication", NULL, ck_flag },
	{ "KbdInteractiveDevices", ck_string, NULL },
	{ "KeepAlive", NULL, ck_flag },
	{ "KexAlgorithms", ck_kexes, NULL },
	{ "LocalForward", ck_forward, NULL },
	{ "LogLevel", NULL, ck_loglevel },
	{ "LogVerbose", ck_logverbose, NULL },
	{ "MACs", ck_macs, NULL },
	{ "NoHostAuthenticationForLocalhost", NULL, ck_flag },
	{ "NumberOfPasswordPrompts", ck_int, NULL },
	{ "PasswordAuthentication", NULL, ck_flag },
	{ "PermitLocalCommand", NULL, ck_flag },
	{ "PermitRemoteOpen", ck_permitopen, NULL },
	{ "PKCS11Provider", ck_string, NULL },
	{ "PreferredAuthentications", ck_string, NULL },
	{ "ProtocolKeepAlives", ck_time, NULL },
	{ "ProxyUseFdpass", NULL, ck_flag },
	{ "PubkeyAcceptedAlgorithms", ck_keys, NULL },
	{ "PubkeyAcceptedKeyTypes", ck_keys, NULL },
	{ "PubkeyAuthentication", NULL, ck_pubkey },
	{ "RekeyLimit", ck_rekey, NULL },
	{ "RemoteForward", ck_forward, NULL },
	{ "RequestTTY", NULL, ck_tty },
	{ "RequiredRSASize", ck_int, NULL },
	{ "SecurityKeyProvider", ck_string, NULL },
	{ "SendEnv", ck_sendenv, NULL },
	{ "SessionType", NULL, ck_session },
	{ "SetEnv", ck_setenv, NULL },
	{ "SetupTimeOut", ck_time, NULL },
	{ "SkeyAuthentication", NULL, ck_flag },
	{ "SmartcardDevice", ck_string, NULL },
	{ "StdinNull", NULL, ck_flag },
	{ "StreamLocalBindMask", ck_mask, NULL },
	{ "StreamLocalBindUnlink", NULL, ck_flag },
	{ "SyslogFacility", NULL, ck_facility },
	{ "TCPKeepAlive", NULL, ck_flag },
	{ "TISAuthentication", NULL, ck_flag },
	{ "Tunnel", NULL, ck_tunnel },
	{ "TunnelDevice", ck_tundev, NULL },
	{ "UpdateHostKeys", NULL, ck_yesnoask },
	{ "VerifyHostKeyDNS", NULL, ck_yesnoask },
	{ "VisualHostKey", NULL, ck_flag },
	{ "XAuthLocation", ck_string, NULL },
};

int
sshconfig_check_value(struct scparse *p, struct scfile *f, struct scline *l,
    const char *name)
{
	size_t i;

	for (i = 0; i < nitems(ck_table); i++) {
		if (strcmp(name, ck_table[i].name) != 0)
			continue;
		if (ck_table[i].fn != NULL)
			return ck_table[i].fn(p, f, l);
		return ck_choice(p, f, l, ck_table[i].names);
	}
	/* The rest of the line, whatever it says (LocalCommand,
	 * RemoteCommand, KnownHostsCommand): sc_cut saw there is one. */
	return 0;
}

/* Whether name is one of the comma list list (kex.c's match_list()). */
static bool
ck_listed(const char *list, const char *name, size_t len)
{
	const char *c = list, *e;

	while (*c != '\0') {
		e = c + strcspn(c, ",");
		if ((size_t)(e - c) == len && strncmp(c, name, len) == 0)
			return true;
		c = *e == ',' ? e + 1 : e;
	}
	return false;
}

/* kex.c's kex_names_cat(): a, then each name of b not in it, up to b's
 * first empty name. */
static void
ck_cat(struct buf *a, const char *b)
{
	size_t n;

	while (*b != '\0' && *b != ',') {
		n = strcspn(b, ",");
		if (!ck_listed(a->data != NULL ? a->data : "", b, n)) {
			if (a->len > 0)
				buf_addc(a, ',');
			buf_add(a, b, n);
		}
		b += n;
		if (*b == ',')
			b++;
	}
}

/* The names of names[] that the pattern list pat matches, in order
 * (match.c's match_filter_allowlist()). */
static void
ck_filter(struct buf *out, const char *const *names, const char *pat)
{
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		if (sshconfig_match_list(names[i], pat, false) == 1) {
			if (out->len > 0)
				buf_addc(out, ',');
			buf_adds(out, names[i]);
		}
}

char *
sshconfig_check_hostkey_algs(const char *spec)
{
	struct buf list = BUF_INIT, ret = BUF_INIT, m = BUF_INIT;
	char *pats, *cp, *next;
	bool bad = false;

	if (spec == NULL || *spec == '\0')
		return xstrdup(ck_hostkey_default);
	buf_init(&list, 8192);
	buf_init(&ret, 8192);
	if (*spec == '-') {
		/* The default without what the patterns name. */
		pats = xstrdup(ck_hostkey_default);
		for (cp = pats; cp != NULL; cp = next) {
			if ((next = strchr(cp, ',')) != NULL)
				*next++ = '\0';
			if (sshconfig_match_list(cp, spec + 1, false) != 1) {
				if (ret.len > 0)
					buf_addc(&ret, ',');
				buf_adds(&ret, cp);
			}
		}
		free(pats);
		buf_release(&list);
		return buf_detach(&ret, NULL);
	}
	if (*spec == '+') {
		buf_adds(&list, ck_hostkey_default);
		ck_cat(&list, spec + 1);
	} else if (*spec == '^') {
		ck_cat(&list, spec + 1);
		ck_cat(&list, ck_hostkey_default);
	} else
		buf_adds(&list, spec);
	/* Each pattern, in turn, for the names it matches. */
	pats = xstrdup(list.data != NULL ? list.data : "");
	for (cp = pats; !bad && cp != NULL; cp = next) {
		if ((next = strchr(cp, ',')) != NULL)
			*next++ = '\0';
		if (*cp == '!') {
			bad = true;	/* kex_assemble_names refuses it */
			break;
		}
		buf_init(&m, 8192);
		ck_filter(&m, ck_keytypes, cp);
		ck_cat(&ret, m.data != NULL ? m.data : "");
		buf_release(&m);
	}
	free(pats);
	buf_release(&list);
	if (bad || ret.len == 0) {
		buf_release(&ret);
		return NULL;
	}
	return buf_detach(&ret, NULL);
}
