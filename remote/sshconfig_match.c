/* sshconfig_match.c: the blocks of ~/.ssh/config, Host and Match, and
 * the patterns they match, as OpenSSH 9.2's readconf.c (match_cfg_line) and
 * match.c decide them (see sshconfig.h). */
#include "calops.h"

#include <ctype.h>

#include "remote/sshconfig_int.h"
#include "remote/sshconfig_match.h"

/*
 * ssh's match_pattern(): '*' is any run of characters, '?' any one, and
 * the rest is compared as it is (case matters).  Iterative, with one
 * point to come back to, so a pattern of many stars cannot take
 * exponential time.
 */
bool
sshconfig_match(const char *s, const char *pat)
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

/* ssh's match_pattern_list(): a comma list of patterns, "!" negating
 * one; a pattern of 1,023 bytes or more matches nothing. */
int
sshconfig_match_list(const char *s, const char *list, bool dolower)
{
	char sub[1024];
	size_t n;
	bool neg, positive = false;

	while (*list != '\0') {
		if ((neg = *list == '!'))
			list++;
		for (n = 0; *list != '\0' && *list != ','; list++) {
			if (n >= sizeof sub - 1)
				return 0;
			sub[n++] = dolower ?
			    (char)tolower((unsigned char)*list) : *list;
		}
		if (*list == ',')
			list++;
		sub[n] = '\0';
		if (sshconfig_match(s, sub)) {
			if (neg)
				return -1;
			positive = true;
		}
	}
	return positive ? 1 : 0;
}

/* Host: the block applies when a pattern matches and no negated one does
 * (a negated match alone never selects a host). */
int
sshconfig_match_host(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *pat;
	bool neg;
	size_t i;

	*f->active = false;
	for (i = 0; i < l->argc; i++) {
		if (l->argv[i][0] == '\0')
			return sshconfig_err(p, f, "'%s' has an empty pattern",
			    l->word);
		if (f->nevermatch)
			break;
		pat = l->argv[i];
		if ((neg = pat[0] == '!'))
			pat++;
		if (!sshconfig_match(p->sc->host, pat))
			continue;
		if (neg) {
			*f->active = false;
			break;
		}
		*f->active = true;
	}
	return 0;
}

/* What a Match criterion is tested against: the host as ssh has it at
 * that point (the HostName given so far, %h expanded; the final pass: the
 * canonical name), the user given so far, else the local one. */
static char *
sc_match_host(struct scparse *p, const struct scfile *f, bool *bad)
{
	struct sshconfig *sc = p->sc;
	char msg[128], *h;

	*bad = false;
	if (p->final || sc->hostname.value == NULL)
		return xstrdup(p->final ? sc->host : sc->original);
	if ((h = sshconfig_expand_hostname(sc->hostname.value, sc->original,
	    msg, sizeof msg)) == NULL) {
		*bad = true;
		sshconfig_err(p, f, "'HostName %s' (line %u of '%s'): %s",
		    sc->hostname.value, sc->hostname.from.line,
		    sc->hostname.from.file, msg);
	}
	return h;
}

/* ssh's match_hostname(): the name lowercased against the list. */
static int
sc_match_hostname(const char *name, const char *list)
{
	char *lower = xstrdup(name), *c;
	int r;

	for (c = lower; *c != '\0'; c++)
		*c = (char)tolower((unsigned char)*c);
	r = sshconfig_match_list(lower, list, true) == 1;
	free(lower);
	return r;
}

/* One criterion with its argument: 1 it holds, 0 not, -1 refused. */
static int
sc_criterion(struct scparse *p, const struct scfile *f, const char *attr,
    const char *arg, const char *host)
{
	struct sshconfig *sc = p->sc;
	const char *ruser = sc->user.value != NULL ? sc->user.value :
	    sc->local_user;

	if (strcasecmp(attr, "host") == 0)
		return sc_match_hostname(host, arg);
	if (strcasecmp(attr, "originalhost") == 0)
		return sc_match_hostname(sc->original, arg);
	if (strcasecmp(attr, "user") == 0)
		return sshconfig_match_list(ruser, arg, false) == 1;
	if (strcasecmp(attr, "localuser") == 0)
		return sshconfig_match_list(sc->local_user, arg, false) == 1;
	if (strcasecmp(attr, "exec") == 0)
		return sshconfig_err(p, f, "'Match exec' is refused: calops "
		    "does not run commands an ssh config names (see 'Match' "
		    "in share/doc/lab.md); it would run '%s'", arg);
	return sshconfig_err(p, f, "unsupported 'Match' criterion '%s'",
	    attr);
}

/*
 * Match, as ssh's match_cfg_line(): every criterion must hold ("!"
 * negates one); "all" stands alone; "canonical" and "final" hold in the
 * final pass, and "final" asks for it.  Criteria after one that failed
 * are still checked, but an exec is not reached, as in ssh.
 */
int
sshconfig_match_line(struct scparse *p, struct scfile *f, struct scline *l)
{
	const char *attr;
	char *host;
	bool neg, bad;
	size_t i, nattr = 0;
	int result = 1, r;

	*f->active = false;
	if ((host = sc_match_host(p, f, &bad)) == NULL)
		return -1;
	for (i = 0; i < l->argc; i++) {
		attr = l->argv[i];
		if ((neg = attr[0] == '!'))
			attr++;
		if (strcasecmp(attr, "all") == 0) {
			if (nattr > 0 || i + 1 < l->argc) {
				free(host);
				return sshconfig_err(p, f, "'%s' cannot be "
				    "combined with other Match criteria",
				    l->argv[i]);
			}
			result = result && !neg;
			nattr++;
			break;
		}
		nattr++;
		if (strcasecmp(attr, "canonical") == 0 ||
		    strcasecmp(attr, "final") == 0) {
			if (strcasecmp(attr, "final") == 0)
				p->want_final = true;
			if (p->final == neg)
				result = 0;
			continue;
		}
		if (i + 1 >= l->argc || l->argv[i + 1][0] == '\0') {
			free(host);
			return sshconfig_err(p, f, "'Match %s' needs a value",
			    attr);
		}
		i++;
		if (strcasecmp(attr, "exec") == 0 && (result != 1 ||
		    f->nevermatch))
			continue;	/* ssh would not run it either */
		if ((r = sc_criterion(p, f, attr, l->argv[i], host)) < 0) {
			free(host);
			return -1;
		}
		if (r == neg)
			result = 0;
	}
	free(host);
	if (nattr == 0)
		return sshconfig_err(p, f, "'Match' needs one criterion or "
		    "more");
	*f->active = !f->nevermatch && result == 1;
	return 0;
}
