/*
 * test_sshconfig.c: ~/.ssh/config as ssh reads it (remote/sshconfig.c) on
 * configs like real ones: Host patterns, negations and first-match-wins,
 * HostName with %h, "=" and quotes and any case, Include with globs, in a
 * block and in a loop, Match and its final pass ("Match exec" refused),
 * unknown keywords and IgnoreUnknown, the keywords calops ignores listed,
 * malformed lines said with FILE:LINE, files ssh would refuse; the lab
 * file merged over it, every value saying where it came from, with the
 * known_hosts files and host key policy.  And the same lookups
 * against the real ssh: `ssh -G -F FILE HOST` for what the config says,
 * and `ssh -v -o ProxyCommand=false` for the identity paths ssh expands
 * (it prints them before the proxy fails, with no network).
 */
#include "calops.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <netdb.h>
#include <pwd.h>
#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "remote/lab.h"
#include "remote/sshconfig.h"
#include "remote/sshconfig_kw.h"
#include "remote/sshhost.h"

static char root[PATH_MAX];	/* a private temp folder */
static char home[PATH_MAX + 8];	/* root/home, with .ssh/ in it */

/* root/rel, a new string. */
static char *
at(const char *rel)
{
	return xasprintf("%s/%s", root, rel);
}

/* Write text to root/rel with mode. */
static void
put(const char *rel, const char *text, mode_t mode)
{
	char *p = at(rel);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

/* put() of a formatted text, mode 0644. */
static void PRINTFLIKE(2, 3)
putf(const char *rel, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	put(rel, text, 0644);
	free(text);
}

static void
mk(const char *rel)
{
	char *p = at(rel);

	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
}

/* Look host up in the config at root/rel (NULL: home's ~/.ssh/config);
 * fail the test with the message when that fails. */
static void
look(struct sshconfig *sc, const char *rel, const char *host)
{
	char err[1024] = "", *p = rel != NULL ? at(rel) : NULL;

	if (sshconfig_read(sc, p, host, home, err, sizeof err) != 0)
		fail_msg("'%s' in %s: %s", host, rel != NULL ? rel :
		    "~/.ssh/config", err);
	free(p);
}

/* The User a lookup finds (NULL: none). */
static void
user_is(const char *rel, const char *host, const char *user)
{
	struct sshconfig sc;

	look(&sc, rel, host);
	if (user == NULL)
		assert_null(sc.user.value);
	else
		assert_string_equal(sc.user.value != NULL ? sc.user.value :
		    "(none)", user);
	sshconfig_release(&sc);
}

/* A lookup leaves n notes, the first ending in first. */
static void
notes_are(const char *rel, const char *host, size_t n, const char *first)
{
	struct sshconfig sc;

	look(&sc, rel, host);
	assert_int_equal(sc.notes.n, n);
	if (first != NULL)
		assert_non_null(strstr(sc.notes.v[0], first));
	sshconfig_release(&sc);
}

/* The error a lookup gives, with root/ cut from its start. */
static const char *
look_err(const char *rel, const char *host, char *err, size_t errlen)
{
	struct sshconfig sc;
	char *p = at(rel);
	size_t n = strlen(root) + 1;

	err[0] = '\0';
	assert_int_equal(sshconfig_read(&sc, p, host, home, err, errlen), -1);
	sshconfig_release(&sc);
	free(p);
	if (strncmp(err, root, strlen(root)) == 0)
		memmove(err, err + n, strlen(err + n) + 1);
	return err;
}

static void
origin_is(const struct sshconfig_origin *o, const char *rel, unsigned line)
{
	char *p;

	if (rel == NULL) {
		assert_null(o->file);
		return;
	}
	p = at(rel);
	assert_non_null(o->file);
	assert_string_equal(o->file, p);
	assert_int_equal(o->line, line);
	free(p);
}

/* A lab host with only its address: what the config alone decides. */
static struct lab_host
bare(const char *address)
{
	struct lab_host h;

	memset(&h, 0, sizeof h);
	h.name = "x";
	h.transport = LAB_SSH;
	h.address = (char *)address;
	return h;
}

static const char config_a[] =
    "# ~/.ssh/config of an engineer of the NPU lab\n"
    "Host bastion\n"
    "    HostName bastion.corp.example.com\n"
    "    User jdoe\n"
    "    Port 2202\n"
    "\n"
    "Host lab? lab?-* !lab9\n"
    "    HostName %h.npu.example.net\n"
    "    User npu\n"
    "    IdentityFile ~/.ssh/id_lab_%r\n"
    "    ServerAliveInterval 30\n"
    "\n"
    "Host lab9\n"
    "    HostName 10.20.30.9\n"
    "    Port 2222\n"
    "\n"
    "Host *.npu.example.net\n"
    "    User ops\n"
    "    IdentityFile \"~/.ssh/npu key\"\n"
    "\n"
    "Match originalhost never-matches-*\n"
    "    User nobody\n"
    "\n"
    "Host *\n"
    "    IdentityFile ~/.ssh/id_ed25519\n"
    "    ServerAliveInterval 1m\n"
    "    Port=22\n"
    "    ForwardAgent no\n"
    "    AddKeysToAgent yes\n";

/* Patterns, a negation, first match wins per keyword. */
static void
test_patterns(void **state)
{
	struct sshconfig sc;

	(void)state;
	put("a.conf", config_a, 0644);
	look(&sc, "a.conf", "lab3");
	assert_string_equal(sc.hostname.value, "%h.npu.example.net");
	origin_is(&sc.hostname.from, "a.conf", 8);
	assert_string_equal(sc.user.value, "npu");
	origin_is(&sc.user.from, "a.conf", 9);
	assert_int_equal(sc.port, 22);
	origin_is(&sc.port_from, "a.conf", 27);
	assert_int_equal(sc.alive_s, 30);
	origin_is(&sc.alive_from, "a.conf", 11);
	assert_int_equal(sc.nids, 2);
	assert_string_equal(sc.ids[0].value, "~/.ssh/id_lab_%r");
	origin_is(&sc.ids[0].from, "a.conf", 10);
	assert_string_equal(sc.ids[1].value, "~/.ssh/id_ed25519");
	/* The Match block does not apply; no note.  What calops ignores is
	 * listed, once each. */
	assert_int_equal(sc.notes.n, 0);
	assert_int_equal(sc.ignored.n, 2);
	assert_non_null(strstr(sc.ignored.v[0], "ForwardAgent ("));
	assert_non_null(strstr(sc.ignored.v[0], "a.conf:28)"));
	assert_non_null(strstr(sc.ignored.v[1], "AddKeysToAgent ("));
	sshconfig_release(&sc);

	/* lab9 matches "lab?" but "!lab9" drops the whole line. */
	look(&sc, "a.conf", "lab9");
	assert_string_equal(sc.hostname.value, "10.20.30.9");
	assert_int_equal(sc.port, 2222);
	assert_null(sc.user.value);
	assert_int_equal(sc.alive_s, 60);
	assert_int_equal(sc.nids, 1);
	sshconfig_release(&sc);

	/* Patterns match the name as given: case matters, as in ssh. */
	look(&sc, "a.conf", "LAB3");
	assert_null(sc.hostname.value);
	assert_null(sc.user.value);
	sshconfig_release(&sc);
	look(&sc, "a.conf", "lab10");
	assert_null(sc.hostname.value);
	sshconfig_release(&sc);
	user_is("a.conf", "lab3-b", "npu");

	/* A negation alone selects nothing. */
	put("neg.conf", "Host !foo\n  User never\nHost *\n  User all\n",
	    0644);
	user_is("neg.conf", "bar", "all");
}

/* Case, "=", quotes, comments, CRLF and tabs, as ssh reads them. */
static void
test_syntax(void **state)
{
	struct sshconfig sc;

	(void)state;
	put("b.conf",
	    "HOST=gpu* \"quoted*\"\r\n"
	    "\thostname = \"gpu-%h.internal\"   # the lab's name\r\n"
	    "  USER=\"build bot\"\r\n"
	    "  port = 2022\r\n"
	    "  identityfile=~/.ssh/gpu_%n\r\n"
	    "  IdentityFile 'single quoted'\r\n"
	    "  IdentityFile esc\\ aped\\\"q\r\n"
	    "host !gpu9 gpu?\r\n"
	    "  PORT 2023\r\n"
	    "  User second\r\n"
	    "Host *\r\n"
	    "  ServerAliveInterval=2h30m\r\n"
	    "  IdentityFile ~/.ssh/id_%u\r\n"
	    "  IdentityFile ~/.ssh/gpu_%n\r\n"
	    "  Ciphers aes128-ctr,aes256-ctr\r\n", 0644);
	look(&sc, "b.conf", "gpu1");
	assert_string_equal(sc.hostname.value, "gpu-%h.internal");
	origin_is(&sc.hostname.from, "b.conf", 2);
	assert_string_equal(sc.user.value, "build bot");
	assert_int_equal(sc.port, 2022);
	assert_int_equal(sc.alive_s, 9000);
	/* Each path once, in order: the repeated gpu_%n is dropped. */
	assert_int_equal(sc.nids, 4);
	assert_string_equal(sc.ids[0].value, "~/.ssh/gpu_%n");
	assert_string_equal(sc.ids[1].value, "single quoted");
	assert_string_equal(sc.ids[2].value, "esc aped\"q");
	assert_string_equal(sc.ids[3].value, "~/.ssh/id_%u");
	sshconfig_release(&sc);

	/* A pattern quoted. */
	look(&sc, "b.conf", "quoted-1");
	assert_string_equal(sc.user.value, "build bot");
	sshconfig_release(&sc);

	/* gpu9: the first block applies (gpu*), the second does not. */
	look(&sc, "b.conf", "gpu9");
	assert_int_equal(sc.port, 2022);
	sshconfig_release(&sc);
	look(&sc, "b.conf", "gpux");
	assert_int_equal(sc.port, 2022);
	sshconfig_release(&sc);
	look(&sc, "b.conf", "cpu1");
	assert_int_equal(sc.port, 0);
	assert_null(sc.user.value);
	assert_int_equal(sc.nids, 2);
	sshconfig_release(&sc);

	/* Times as ssh reads them; none is as if not given. */
	put("t.conf", "Host a\n ServerAliveInterval none\n"
	    "Host *\n ServerAliveInterval 1w1d1h1m1S\n", 0644);
	look(&sc, "t.conf", "a");
	assert_int_equal(sc.alive_s, 7 * 86400 + 86400 + 3600 + 60 + 1);
	sshconfig_release(&sc);
	put("t0.conf", "ServerAliveInterval 0\nPort +0022\n", 0644);
	look(&sc, "t0.conf", "a");
	assert_int_equal(sc.alive_s, 0);
	assert_int_equal(sc.port, 22);
	sshconfig_release(&sc);
	/* A service name, as ssh takes it, from /etc/services (netbase). */
	put("t1.conf", "Port ssh\n", 0644);
	if (getservbyname("ssh", "tcp") == NULL) {
		print_message("no /etc/services entry for ssh: 'Port ssh' "
		    "not tried\n");
		return;
	}
	look(&sc, "t1.conf", "a");
	assert_int_equal(sc.port, 22);
	sshconfig_release(&sc);
}

/* Include: globs in lexical order, relative to ~/.ssh, in a block. */
static void
test_include(void **state)
{
	struct sshconfig sc;

	(void)state;
	mk("conf.d");
	put("conf.d/20-b.conf", "Host inc-b\n  User incuser\n  Port 2002\n",
	    0644);
	put("conf.d/10-a.conf", "Host inc-a\n  HostName a.example\n"
	    "  Port 2001\nHost *\n  IdentityFile ~/.ssh/from10\n", 0644);
	put("conf.d/README", "this is not a config: Include skips it\n",
	    0644);
	mk("conf.d/sub.conf");
	put("extra", "HostName extra.example\nServerAliveInterval 7\n"
	    "Host nomatch\n  User never\n", 0644);
	put("home/.ssh/rel.conf", "Host rel\n  HostName rel.example\n",
	    0644);
	putf("c.conf",
	    "Include %s/conf.d/*.conf\n"
	    "Host inc-*\n"
	    "  Include %s/extra\n"
	    "  User after-include\n"
	    "Host nothing-here\n"
	    "  Include %s/extra\n"
	    "Host *\n"
	    "  Include rel.conf\n"
	    "  User fallback\n", root, root, root);

	/* 10-a before 20-b, and extra's Host line ends its block within
	 * extra: "User after-include" is still in the Host inc-* block. */
	look(&sc, "c.conf", "inc-a");
	assert_string_equal(sc.hostname.value, "a.example");
	origin_is(&sc.hostname.from, "conf.d/10-a.conf", 2);
	assert_int_equal(sc.port, 2001);
	assert_string_equal(sc.user.value, "after-include");
	origin_is(&sc.user.from, "c.conf", 4);
	assert_int_equal(sc.alive_s, 7);
	assert_int_equal(sc.nids, 1);
	origin_is(&sc.ids[0].from, "conf.d/10-a.conf", 5);
	/* The folder the glob names is noted, not read. */
	assert_int_equal(sc.notes.n, 1);
	assert_non_null(strstr(sc.notes.v[0], "c.conf:1: '"));
	assert_non_null(strstr(sc.notes.v[0], "sub.conf' is a folder"));
	sshconfig_release(&sc);

	/* inc-b: 20-b's user and port, then extra's name. */
	look(&sc, "c.conf", "inc-b");
	assert_string_equal(sc.hostname.value, "extra.example");
	origin_is(&sc.hostname.from, "extra", 1);
	assert_int_equal(sc.alive_s, 7);
	assert_int_equal(sc.port, 2002);
	assert_string_equal(sc.user.value, "incuser");
	sshconfig_release(&sc);
	look(&sc, "c.conf", "inc-z");
	assert_string_equal(sc.hostname.value, "extra.example");
	assert_string_equal(sc.user.value, "after-include");
	assert_int_equal(sc.port, 0);
	sshconfig_release(&sc);

	/* An Include in a block that does not apply applies nothing; a
	 * relative one is in ~/.ssh. */
	look(&sc, "c.conf", "rel");
	assert_string_equal(sc.hostname.value, "rel.example");
	origin_is(&sc.hostname.from, "home/.ssh/rel.conf", 2);
	assert_string_equal(sc.user.value, "fallback");
	assert_int_equal(sc.nids, 1);
	sshconfig_release(&sc);

	/* A glob that matches nothing is not an error (ssh says nothing). */
	put("none.conf", "Include /nonexistent/calops/*.conf\nUser u\n",
	    0644);
	user_is("none.conf", "x", "u");
}

/* Include loops end at SSHCONFIG_MAX_DEPTH, as in ssh, with the line. */
static void
test_include_loop(void **state)
{
	const char *deep = ": 'Include' nests more than 16 files deep (does "
	    "a file include itself?)";
	char err[1024], want[128], *text;
	size_t i;

	(void)state;
	putf("loop.conf", "User me\nInclude %s/loop.conf\n", root);
	snprintf(want, sizeof want, "loop.conf:2%s", deep);
	assert_string_equal(look_err("loop.conf", "x", err, sizeof err),
	    want);
	/* ping* matches ping.conf alone: it includes itself. */
	putf("ping.conf", "Host *\n  Include %s/ping*\n", root);
	snprintf(want, sizeof want, "ping.conf:2%s", deep);
	assert_string_equal(look_err("ping.conf", "x", err, sizeof err),
	    want);
	/* Two files that include each other. */
	putf("pong", "# pong\n\nInclude %s/ping.conf\n", root);
	putf("ping.conf", "Include %s/pong\n", root);
	snprintf(want, sizeof want, "pong:3%s", deep);
	assert_string_equal(look_err("pong", "x", err, sizeof err), want);
	/* Shallow but wide: a glob of 300 files. */
	mk("many");
	for (i = 0; i < 300; i++) {
		text = xasprintf("many/%03zu.conf", i);
		put(text, "User many\n", 0644);
		free(text);
	}
	putf("wide.conf", "\nInclude %s/many/*.conf\n", root);
	assert_string_equal(look_err("wide.conf", "x", err, sizeof err),
	    "wide.conf:2: 'Include' reads more than 256 files");
}

/* Match: every criterion but exec, as ssh's match_cfg_line(); exec is
 * refused where ssh would run it. */
static void
test_match(void **state)
{
	struct sshconfig sc;
	char err[1024], *m;

	(void)state;
	m = xasprintf(
	    "Host lab3\n"
	    "  Port 2203\n"
	    "Match host lab3 user npu\n"
	    "  HostName never.example\n"
	    "Match originalhost LAB3,lab3 localuser %s\n"
	    "  User everyone\n"
	    "Match host nomatch exec \"test -e /etc/lab\"\n"
	    "  IdentityFile ~/.ssh/never\n"
	    "Match user everyone !host other*\n"
	    "  IdentityFile ~/.ssh/by_user\n"
	    "Match !all\n"
	    "  HostName not-this-either\n"
	    "Match canonical\n"
	    "  ConnectTimeout 9\n"
	    "Match all\n"
	    "  HostName %%h.lab\n", getpwuid(getuid())->pw_name);
	put("m.conf", m, 0644);
	free(m);
	look(&sc, "m.conf", "lab3");
	assert_int_equal(sc.port, 2203);
	assert_string_equal(sc.hostname.value, "%h.lab");
	assert_string_equal(sc.user.value, "everyone");
	origin_is(&sc.user.from, "m.conf", 6);
	assert_int_equal(sc.nids, 1);
	assert_string_equal(sc.ids[0].value, "~/.ssh/by_user");
	assert_int_equal(sc.connect_s, -1);
	sshconfig_release(&sc);

	/* "Match final" asks for the final pass: canonical then holds, and
	 * Host lines match the HostName. */
	put("mf.conf", "Host a\n  HostName b.lab\nMatch final\n"
	    "  ConnectTimeout 9\nHost b.lab\n  User byname\n"
	    "Match canonical host b.lab\n  Port 2299\n", 0644);
	look(&sc, "mf.conf", "a");
	assert_string_equal(sc.hostname.value, "b.lab");
	assert_int_equal(sc.connect_s, 9);
	assert_string_equal(sc.user.value, "byname");
	assert_int_equal(sc.port, 2299);
	sshconfig_release(&sc);

	/* exec: refused where ssh would run its command. */
	put("mx.conf", "Match host a exec \"true\"\n  User x\n", 0644);
	look_err("mx.conf", "a", err, sizeof err);
	assert_non_null(strstr(err, "mx.conf:1: 'Match exec' is refused"));
	user_is("mx.conf", "b", NULL);
	put("my.conf", "Match host\n", 0644);
	look_err("my.conf", "a", err, sizeof err);
	assert_non_null(strstr(err, "my.conf:1: 'Match host' needs a value"));
	put("mz.conf", "Match all host a\n", 0644);
	look_err("mz.conf", "a", err, sizeof err);
	assert_non_null(strstr(err, "cannot be combined"));
	put("mw.conf", "Match hostx a\n", 0644);
	look_err("mw.conf", "a", err, sizeof err);
	assert_non_null(strstr(err, "unsupported 'Match' criterion 'hostx'"));
}

/* ProxyJump is followed, so it leaves no note (test_proxy reads it); a
 * keyword calops ignores is listed once, with its first line;
 * IgnoreUnknown lets an unknown keyword pass, as in ssh. */
/*
 * A resolver of the test's, as the console's is (remote/ssh.c): names it
 * has no answer for yet are asked (kept in order) and wait; the test
 * answers and reads again, as the console does when its thread answers.
 */
struct fakedns {
	const char	*yes[4];	/* resolve; anything else does not */
	char		*asked[8];
	size_t		 nasked;
	size_t		 answered;	/* asked[0..answered) have answers */
};

static int
fakedns_resolves(void *arg, const char *name, int family)
{
	struct fakedns *d = arg;
	size_t i;

	assert_int_equal(family, AF_UNSPEC);
	for (i = 0; i < d->answered; i++) {
		if (strcmp(d->asked[i], name) != 0)
			continue;
		for (i = 0; i < nitems(d->yes) && d->yes[i] != NULL; i++)
			if (strcmp(d->yes[i], name) == 0)
				return 1;
		return 0;
	}
	assert_true(d->nasked < nitems(d->asked));
	d->asked[d->nasked++] = xstrdup(name);
	return SSHCONFIG_WAIT;
}

/* Read host in root/rel with d until it stops waiting: the rounds it
 * took (one per name asked), the read's last answer in *rc. */
static size_t
read_rounds(struct sshconfig *sc, struct fakedns *d, const char *rel,
    const char *host, bool jumped, int *rc)
{
	struct sshconfig_resolver rs = { fakedns_resolves, d, jumped };
	char err[1024], *p = at(rel);
	size_t rounds = 0;

	while ((*rc = sshconfig_read_async(sc, p, host, home, &rs, err,
	    sizeof err)) == SSHCONFIG_WAIT) {
		sshconfig_release(sc);
		assert_int_equal(d->nasked, d->answered + 1);
		d->answered++;
		rounds++;
	}
	free(p);
	return rounds;
}

static void
fakedns_release(struct fakedns *d)
{
	size_t i;

	for (i = 0; i < d->nasked; i++)
		free(d->asked[i]);
	memset(d, 0, sizeof *d);
}

/* CanonicalizeHostname with a resolver that answers later: the read
 * waits for each name in ssh's order, then makes the final pass with the
 * canonical name (Host and Match canonical see it), as ssh does. */
static void
test_canon_async(void **state)
{
	struct fakedns d = { .yes = { "h1.b.test." } };
	struct sshconfig sc;
	int rc;

	(void)state;
	put("c.conf", "CanonicalizeHostname yes\n"
	    "CanonicalDomains a.test b.test c.test\n"
	    "Host h1.b.test\n  Port 2201\n"
	    "Match canonical host h1.b.test,h2\n  User canon\n", 0644);
	assert_int_equal(read_rounds(&sc, &d, "c.conf", "H1", false, &rc), 2);
	assert_int_equal(rc, 0);
	assert_string_equal(d.asked[0], "h1.a.test.");
	assert_string_equal(d.asked[1], "h1.b.test.");
	assert_string_equal(sc.hostname.value, "h1.b.test");
	assert_int_equal(sc.port, 2201);
	assert_string_equal(sc.user.value, "canon");
	sshconfig_release(&sc);
	fakedns_release(&d);

	/* None resolves: the name stays, and the final pass is made. */
	assert_int_equal(read_rounds(&sc, &d, "c.conf", "h2", false, &rc), 3);
	assert_int_equal(rc, 0);
	assert_string_equal(sc.hostname.value, "h2");
	assert_string_equal(sc.user.value, "canon");
	sshconfig_release(&sc);
	fakedns_release(&d);

	/* None resolves, FallbackLocal no: ssh's error, once all answered. */
	put("n.conf", "CanonicalizeHostname yes\nCanonicalDomains a.test\n"
	    "CanonicalizeFallbackLocal no\n", 0644);
	assert_int_equal(read_rounds(&sc, &d, "n.conf", "h1", false, &rc), 1);
	assert_int_equal(rc, -1);
	sshconfig_release(&sc);
	fakedns_release(&d);

	/* "yes" leaves a name a jump host or a proxy resolves alone (ssh's
	 * direct test, after the first pass; "ProxyJump none" counts, as
	 * there), also a hop reached through earlier ones; "always" not. */
	put("j.conf", "CanonicalizeHostname yes\nCanonicalDomains a.test\n"
	    "Host h1\n  ProxyJump bastion\n"
	    "Host h2\n  ProxyCommand nc %h %p\n"
	    "Host h3\n  ProxyJump none\n", 0644);
	assert_int_equal(read_rounds(&sc, &d, "j.conf", "h1", false, &rc), 0);
	sshconfig_release(&sc);
	assert_int_equal(read_rounds(&sc, &d, "j.conf", "h2", false, &rc), 0);
	sshconfig_release(&sc);
	assert_int_equal(read_rounds(&sc, &d, "j.conf", "h3", false, &rc), 0);
	sshconfig_release(&sc);
	assert_int_equal(read_rounds(&sc, &d, "j.conf", "h4", true, &rc), 0);
	assert_string_equal(sc.hostname.value, "h4");
	sshconfig_release(&sc);
	assert_int_equal(read_rounds(&sc, &d, "j.conf", "h4", false, &rc), 1);
	assert_string_equal(d.asked[0], "h4.a.test.");
	sshconfig_release(&sc);
	fakedns_release(&d);
	put("ja.conf", "CanonicalizeHostname always\nCanonicalDomains a.test\n"
	    "ProxyJump bastion\n", 0644);
	d.yes[0] = "h1.a.test.";
	assert_int_equal(read_rounds(&sc, &d, "ja.conf", "h1", true, &rc), 1);
	assert_string_equal(sc.hostname.value, "h1.a.test");
	sshconfig_release(&sc);
	fakedns_release(&d);
}

static void
test_ignored(void **state)
{
	struct sshconfig sc;
	char err[1024];

	(void)state;
	put("j.conf",
	    "Host direct\n"
	    "  ProxyJump none\n"
	    "Host behind direct\n"
	    "  ProxyJump bastion\n"
	    "  ControlMaster auto\n"
	    "Host *\n"
	    "  ControlMaster no\n"
	    "  Cipher blowfish\n", 0644);
	notes_are("j.conf", "direct", 0, NULL);
	notes_are("j.conf", "behind", 0, NULL);
	notes_are("j.conf", "plain", 0, NULL);
	look(&sc, "j.conf", "behind");
	assert_string_equal(sc.proxy_jump.value, "bastion");
	assert_int_equal(sc.ignored.n, 1);
	assert_non_null(strstr(sc.ignored.v[0], "ControlMaster ("));
	assert_non_null(strstr(sc.ignored.v[0], "j.conf:5)"));
	sshconfig_release(&sc);

	put("u.conf", "Host nomatch\n  IgnoreUnknown Foo*\nHost *\n"
	    "  IgnoreUnknown bar,foo*\n  FooBar 1\n  Bar x\n  Baz 2\n",
	    0644);
	look_err("u.conf", "a", err, sizeof err);
	assert_string_equal(err, "u.conf:7: bad configuration option 'Baz': "
	    "ssh refuses it too (IgnoreUnknown lets it pass)");
}

/* Compression: read (no longer listed as ignored), the first that
 * applies winning; the lab's compression: wins over it; off when neither
 * speaks; and each said as calops hosts says it. */
static void
test_compression(void **state)
{
	struct sshconfig sc;
	struct sshhost out;
	struct lab_host h;
	char err[1024], buf[PATH_MAX + 128], *want;

	(void)state;
	put("z.conf", "Host vpn*\n  Compression YES\nHost *\n"
	    "  Compression no\n", 0644);
	look(&sc, "z.conf", "vpn3");
	assert_int_equal(sc.compression, 1);
	assert_int_equal(sc.ignored.n, 0);
	h = bare("vpn3");
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_true(out.compress);
	want = xasprintf("zlib@openssh.com (Compression yes, %s/z.conf:2)",
	    root);
	assert_string_equal(sshhost_compress_str(&out, "zlib@openssh.com",
	    "zlib@openssh.com", buf, sizeof buf), want);
	free(want);
	assert_non_null(strstr(sshhost_compress_str(&out, "none", "none", buf,
	    sizeof buf), "), the host offers none"));
	assert_non_null(strstr(sshhost_compress_str(&out, "", "", buf,
	    sizeof buf), "), not connected"));
	sshhost_release(&out);
	/* The lab's false wins over the config's yes. */
	h.compression_set = true;
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_false(out.compress);
	assert_string_equal(sshhost_compress_str(&out, "none", "none", buf,
	    sizeof buf), "off (/l/lab.yaml compression: false)");
	sshhost_release(&out);
	sshconfig_release(&sc);
	look(&sc, "z.conf", "lab1");
	assert_int_equal(sc.compression, 0);
	sshconfig_release(&sc);
	/* Neither: off, ssh's default; the lab's true alone turns it on. */
	put("e.conf", "", 0644);
	look(&sc, "e.conf", "lab1");
	assert_int_equal(sc.compression, -1);
	h = bare("lab1");
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_false(out.compress);
	assert_string_equal(sshhost_compress_str(&out, "none", "none", buf,
	    sizeof buf), "off (default)");
	sshhost_release(&out);
	h.compression = h.compression_set = true;
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_true(out.compress);
	assert_string_equal(sshhost_compress_str(&out, "zlib@openssh.com",
	    "zlib", buf, sizeof buf), "zlib from the host, zlib@openssh.com "
	    "to it (/l/lab.yaml compression: true)");
	sshhost_release(&out);
	sshconfig_release(&sc);
}

/* ProxyJump and ProxyCommand share one slot, as in ssh: the first that
 * applies wins, none included; ProxyCommand keeps its line as written,
 * and sshhost.c expands its tokens. */
static void
test_proxy(void **state)
{
	struct sshconfig sc;
	struct sshhost out;
	struct lab_host h;
	char err[1024];

	(void)state;
	put("p.conf",
	    "Host jumpfirst\n"
	    "  ProxyJump ops@bastion:2222,ssh://[::1]:22\n"
	    "Host cmdfirst\n"
	    "  HostName 10.0.0.%h\n"
	    "  User lab\n"
	    "  Port 2200\n"
	    "  ProxyCommand ssh -W '%h:%p' -l %r \"gate\" # %n, 100%%\n"
	    "Host off\n"
	    "  ProxyJump none\n"
	    "Host *\n"
	    "  ProxyCommand nc %h %p\n"
	    "  ProxyJump later\n", 0644);
	look(&sc, "p.conf", "jumpfirst");
	assert_string_equal(sc.proxy_jump.value,
	    "ops@bastion:2222,ssh://[::1]:22");
	assert_null(sc.proxy_command.value);
	sshconfig_release(&sc);

	look(&sc, "p.conf", "cmdfirst");
	assert_null(sc.proxy_jump.value);
	assert_string_equal(sc.proxy_command.value,
	    "ssh -W '%h:%p' -l %r \"gate\" # %n, 100%%");
	h = bare("cmdfirst");
	assert_int_equal(sshhost_merge(&out, &sc, &h, NULL, err, sizeof err),
	    0);
	assert_null(out.proxy_jump);
	assert_string_equal(out.proxy_command, "ssh -W '10.0.0.cmdfirst:2200' "
	    "-l lab \"gate\" # cmdfirst, 100%");
	sshhost_release(&out);
	sshconfig_release(&sc);

	/* "ProxyJump none" keeps a later ProxyJump out, not a later
	 * ProxyCommand: ssh 9.2 runs that one. */
	look(&sc, "p.conf", "off");
	assert_string_equal(sc.proxy_jump.value, "none");
	h = bare("off");
	assert_int_equal(sshhost_merge(&out, &sc, &h, NULL, err, sizeof err),
	    0);
	assert_null(out.proxy_jump);
	assert_string_equal(out.proxy_command, "nc off 22");
	sshhost_release(&out);
	sshconfig_release(&sc);

	/* "ProxyCommand none" keeps both out. */
	put("n.conf", "ProxyCommand none\nProxyJump later\n"
	    "ProxyCommand nc %h\n", 0644);
	look(&sc, "n.conf", "x");
	assert_null(sc.proxy_jump.value);
	h = bare("x");
	assert_int_equal(sshhost_merge(&out, &sc, &h, NULL, err, sizeof err),
	    0);
	assert_null(out.proxy_jump);
	assert_null(out.proxy_command);
	sshhost_release(&out);
	sshconfig_release(&sc);

	/* %k is the HostKeyAlias, lowercased, when there is one. */
	put("k.conf", "HostKeyAlias Gate\nProxyCommand nc %k %n\n", 0644);
	look(&sc, "k.conf", "x");
	h = bare("x");
	assert_int_equal(sshhost_merge(&out, &sc, &h, NULL, err, sizeof err),
	    0);
	assert_string_equal(out.proxy_command, "nc gate x");
	sshhost_release(&out);
	sshconfig_release(&sc);

	/* An unknown token is an error, as it is for ssh. */
	put("q.conf", "ProxyCommand nc %h %q\n", 0644);
	look(&sc, "q.conf", "x");
	h = bare("x");
	assert_int_equal(sshhost_merge(&out, &sc, &h, NULL, err, sizeof err),
	    -1);
	assert_non_null(strstr(err, "q.conf:1: 'ProxyCommand nc %h %q': '%q' "
	    "is not a token of ProxyCommand"));
	sshhost_release(&out);
	sshconfig_release(&sc);
}

/* One jump host of a ProxyJump list, cut as ssh cuts it. */
static void
test_jump_cut(void **state)
{
	static const struct {
		const char	*in, *user, *host;
		int		 port;
	} ok[] = {
		{ "bastion", NULL, "bastion", 0 },
		{ "ops@bastion:2222", "ops", "bastion", 2222 },
		{ "ssh://a@b@gate:22", "a@b", "gate", 22 },
		{ "[::1]:2022", NULL, "::1", 2022 },
		{ "fe80::1", NULL, "fe80::1", 0 },
	};
	static const char *const no[] = { "", "@gate", "gate:0", "gate:x",
	    "gate:70000", "[::1", "a b", "[::1]x" };
	char *s, *user, *host;
	size_t i;
	int port;

	(void)state;
	for (i = 0; i < nitems(ok); i++) {
		s = xstrdup(ok[i].in);
		assert_int_equal(sshconfig_kw_jump_cut(s, &user, &host,
		    &port), 0);
		if (ok[i].user == NULL)
			assert_null(user);
		else
			assert_string_equal(user, ok[i].user);
		assert_string_equal(host, ok[i].host);
		assert_int_equal(port, ok[i].port);
		free(s);
	}
	for (i = 0; i < nitems(no); i++) {
		s = xstrdup(no[i]);
		if (sshconfig_kw_jump_cut(s, &user, &host, &port) != -1)
			fail_msg("'%s' was taken for a jump host", no[i]);
		free(s);
	}
}

static const struct {
	const char	*text;
	const char	*err;
} bad[] = {
	{ "ProxyJump a,b:99999\n", "bad.conf:1: 'ProxyJump a,b:99999': not a "
	  "jump host such as [user@]host[:port]" },
	/* Checked where it does not apply, after one that does. */
	{ "ProxyJump a\nHost x\n  ProxyJump @b\n", "bad.conf:3: 'ProxyJump "
	  "@b': not a jump host" },
	{ "Host a\n  Port\n", "bad.conf:2: no value after 'Port'" },
	{ "Host a\n  Port 0\n", "bad.conf:2: 'Port' must be a port from 1 "
	  "to 65535 or a service name, not '0'" },
	{ "Port 65536\n", "bad.conf:1: 'Port' must be a port from 1 to 65535 "
	  "or a service name, not '65536'" },
	{ "Port 22 23\n", "bad.conf:1: 'Port' takes one value, not 2" },
	{ "Port \"\"\n", "bad.conf:1: 'Port' needs a value" },
	{ "User \"npu\n", "bad.conf:1: a quote is not closed" },
	{ "User a b\n", "bad.conf:1: 'User' takes one value, not 2" },
	{ "HostName\t\n", "bad.conf:1: no value after 'HostName'" },
	{ "Host a\n\n  ServerAliveInterval 10x\n",
	  "bad.conf:3: 'ServerAliveInterval' must be a time such as 30, 30s "
	  "or 1m30s, or none, not '10x'" },
	{ "ServerAliveInterval -1\n", "bad.conf:1: 'ServerAliveInterval' "
	  "must be a time" },
	{ "ServerAliveInterval 99999999999\n",
	  "bad.conf:1: 'ServerAliveInterval' must be a time" },
	{ "Host a \"\"\n", "bad.conf:1: 'Host' has an empty pattern" },
	{ "Include \"\"\n", "bad.conf:1: 'Include' has an empty path" },
	{ "IdentityFile\n", "bad.conf:1: no value after 'IdentityFile'" },
	{ "Po\"rt\" 22\n", "bad.conf:1: bad configuration option 'Po\"rt\"'" },
	{ "Port#x 22\n", "bad.conf:1: bad configuration option 'Port#x'" },
	{ "Host x\n  Frobnicate yes\n", "bad.conf:2: bad configuration "
	  "option 'Frobnicate': ssh refuses it too" },
	{ "IdentitiesOnly maybe\n", "bad.conf:1: 'IdentitiesOnly': "
	  "unsupported option 'maybe'" },
	{ "AddressFamily inet7\n", "bad.conf:1: 'AddressFamily': "
	  "unsupported option 'inet7'" },
	{ "StrictHostKeyChecking maybe\n", "bad.conf:1: "
	  "'StrictHostKeyChecking': unsupported option 'maybe'" },
	{ "ServerAliveCountMax -1\n", "bad.conf:1: 'ServerAliveCountMax' "
	  "must be a number" },
	{ "UserKnownHostsFile none x\n", "bad.conf:1: 'UserKnownHostsFile': "
	  "\"none\" must stand alone" },
	{ "HostKeyAlias a b\n", "bad.conf:1: 'HostKeyAlias' takes one value" },
	/* Keywords calops ignores, but not a line ssh cannot cut. */
	{ "ForwardAgent\n", "bad.conf:1: no value after 'ForwardAgent'" },
	{ "SendEnv \"LANG\n", "bad.conf:1: a quote is not closed" },
	/* Checked in a block that does not apply, as ssh checks it. */
	{ "Host other\n  Port x\n", "bad.conf:2: 'Port' must be a port" },
	{ "Host a\nUser a\0b\n", "bad.conf:2: a NUL byte in the line" },
	/* Control characters in a message are shown, never sent. */
	{ "Port \"\x1b[2J\"\n", "bad.conf:1: 'Port' must be a port from 1 to "
	  "65535 or a service name, not '^[[2J'" },
};

/* Every malformed line: FILE:LINE: message, wherever it is. */
static void
test_errors(void **state)
{
	char err[1024], *p;
	size_t i, n;
	int failed = 0;
	FILE *f;

	(void)state;
	for (i = 0; i < nitems(bad); i++) {
		p = at("bad.conf");
		f = fopen(p, "w");
		assert_non_null(f);
		/* Written whole: one case holds a NUL byte. */
		n = strlen(bad[i].text);
		if (strstr(bad[i].err, "NUL") != NULL)
			n += 1 + strlen(bad[i].text + n + 1);
		assert_int_equal(fwrite(bad[i].text, 1, n, f), n);
		assert_int_equal(fclose(f), 0);
		free(p);
		look_err("bad.conf", "a", err, sizeof err);
		if (strncmp(err, bad[i].err, strlen(bad[i].err)) != 0) {
			print_error("case %zu: '%s', not '%s'\n", i, err,
			    bad[i].err);
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

/* Every bad line is reported with its FILE:LINE and counted, as ssh
 * reads on past one; it stops at the end of the file they are in (an
 * included one too), and at once at a file it refuses. */
static void
test_errors_all(void **state)
{
	char err[2048];

	(void)state;
	put("inc-bad.conf", "ForwardX11 perhaps\nPort 0\n", 0600);
	putf("many.conf", "Host a\n  Bogus 1\n  ControlMaster maybe\n"
	    "Host other\n  Compression true\n  Include %s/inc-bad.conf\n"
	    "  Tunnel maybe\n", root);
	look_err("many.conf", "a", err, sizeof err);
	assert_non_null(strstr(err, "inc-bad.conf: 2 bad configuration "
	    "options, ssh refuses the config too: "));
	assert_non_null(strstr(err, "/many.conf:2: bad configuration option "
	    "'Bogus'"));
	assert_non_null(strstr(err, "/many.conf:3: 'ControlMaster': "
	    "unsupported option 'maybe'; "));
	assert_non_null(strstr(err, "/many.conf:5: 'Compression': "
	    "unsupported option 'true'; "));
	assert_non_null(strstr(err, "/inc-bad.conf:1: 'ForwardX11': "
	    "unsupported option 'perhaps'; "));
	assert_non_null(strstr(err, "/inc-bad.conf:2: 'Port' must be"));
	/* ssh died at the end of inc-bad.conf: line 7 is never read. */
	assert_null(strstr(err, "many.conf:7"));
	/* One bad line is its message alone. */
	put("one.conf", "Host a\n  RequestTTY sometimes\n", 0600);
	assert_string_equal(look_err("one.conf", "a", err, sizeof err),
	    "one.conf:2: 'RequestTTY': unsupported option 'sometimes'");
	/* A file ssh refuses stops it at once, after what it printed. */
	put("shared-bad.conf", "User x\n", 0664);
	putf("stop.conf", "Bogus 1\nInclude %s/shared-bad.conf\nBogus 2\n",
	    root);
	look_err("stop.conf", "a", err, sizeof err);
	assert_non_null(strstr(err, "stop.conf:2: bad owner or permissions"));
	assert_non_null(strstr(err, "/stop.conf:1: bad configuration option "
	    "'Bogus'"));
	assert_non_null(strstr(err, "(after 1 bad configuration option: "));
	assert_null(strstr(err, "stop.conf:3"));
}

/* Files ssh refuses are refused; a missing ~/.ssh/config is no config,
 * a missing file named is an error. */
static void
test_files(void **state)
{
	struct sshconfig sc;
	char err[1024], *p;

	(void)state;
	put("shared.conf", "User shared\n", 0664);
	putf("incl-shared.conf", "Include %s/shared.conf\n", root);
	look_err("incl-shared.conf", "x", err, sizeof err);
	assert_non_null(strstr(err, "incl-shared.conf:1: bad owner or "
	    "permissions on '"));
	assert_non_null(strstr(err, "/shared.conf': ssh refuses it too"));
	/* A file named, as with ssh -F, is not checked (ssh does not). */
	user_is("shared.conf", "x", "shared");
	/* ~/.ssh/config is, and may be missing. */
	user_is(NULL, "x", NULL);
	put("home/.ssh/config", "Host x\n  User fromhome\n", 0622);
	assert_int_equal(sshconfig_read(&sc, NULL, "x", home, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "bad owner or permissions"));
	sshconfig_release(&sc);
	p = at("home/.ssh/config");
	assert_int_equal(chmod(p, 0600), 0);
	free(p);
	user_is(NULL, "x", "fromhome");
	assert_non_null(strstr(look_err("missing.conf", "x", err, sizeof err),
	    "cannot open '"));
	assert_non_null(strstr(err, "missing.conf': No such file"));
}

/* The lab wins where both speak; the config fills the rest, each value
 * saying where it came from. */
static void
test_merge(void **state)
{
	struct sshconfig sc;
	struct sshhost out;
	struct lab_host h;
	char err[1024], buf[PATH_MAX + 32], *want;

	(void)state;
	look(&sc, "a.conf", "lab3");
	h = bare("lab3");
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_string_equal(out.alias, "lab3");
	assert_string_equal(out.hostname, "lab3.npu.example.net");
	assert_string_equal(out.user, "npu");
	assert_int_equal(out.port, 22);
	assert_int_equal(out.keepalive_s, 30);
	assert_int_equal(out.nids, 2);
	want = xasprintf("%s/.ssh/id_lab_npu", home);
	assert_string_equal(out.ids[0].value, want);
	free(want);
	want = xasprintf("%s/a.conf:10", root);
	assert_string_equal(sshconfig_origin_str(&out.ids[0].from, buf,
	    sizeof buf), want);
	free(want);
	want = xasprintf("%s/.ssh/known_hosts", home);
	assert_string_equal(out.known_hosts, want);
	free(want);
	assert_string_equal(sshconfig_origin_str(&out.known_hosts_from, buf,
	    sizeof buf), "default");
	/* ssh's four files, in its order; the host's own name and port. */
	assert_int_equal(out.nkh, 4);
	want = xasprintf("%s/.ssh/known_hosts2", home);
	assert_string_equal(out.kh_files[1], want);
	free(want);
	assert_string_equal(out.kh_files[3], "/etc/ssh/ssh_known_hosts2");
	assert_string_equal(out.kh_name, "lab3.npu.example.net");
	assert_int_equal(out.kh_port, 22);
	assert_int_equal(out.strict, SSHCONFIG_STRICT_ASK);
	assert_int_equal(out.notes.n, 0);
	assert_int_equal(out.ignored.n, 2);
	sshhost_release(&out);

	/* The lab's user, port, keepalive and identity win; %r follows the
	 * lab's user; the lab's identity is the only one. */
	h.user = "operator";
	h.port = 2200;
	h.keepalive_s = 5;
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_string_equal(out.user, "operator");
	assert_string_equal(sshconfig_origin_str(&out.user_from, buf,
	    sizeof buf), "/l/lab.yaml");
	assert_int_equal(out.port, 2200);
	assert_int_equal(out.keepalive_s, 5);
	want = xasprintf("%s/.ssh/id_lab_operator", home);
	assert_string_equal(out.ids[0].value, want);
	free(want);
	sshhost_release(&out);
	h.identity = "/keys/lab";
	h.known_hosts = "/keys/known";
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_int_equal(out.nids, 1);
	assert_string_equal(out.ids[0].value, "/keys/lab");
	/* The lab's known_hosts adds to ssh's files, and takes new keys. */
	assert_string_equal(out.known_hosts, "/keys/known");
	assert_int_equal(out.nkh, 5);
	assert_string_equal(out.kh_files[4], "/keys/known");
	sshhost_release(&out);
	sshconfig_release(&sc);

	/* Nothing anywhere: the local user, 22, 15 s, ssh-agent alone. */
	look(&sc, "j.conf", "Some.Host");
	h = bare("Some.Host");
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_string_equal(out.hostname, "some.host");
	assert_string_equal(out.user, sc.local_user);
	assert_string_equal(sshconfig_origin_str(&out.user_from, buf,
	    sizeof buf), "default");
	assert_int_equal(out.port, 22);
	assert_int_equal(out.keepalive_s, LAB_KEEPALIVE_DEFAULT);
	assert_int_equal(out.nids, 0);
	assert_true(out.default_ids);
	sshhost_release(&out);
	sshconfig_release(&sc);

	/* The known_hosts files and policy a config sets; the stricter of
	 * the config's and the lab's wins, and says so. */
	setenv("CALOPS_TEST_KH", "/kh", 1);
	put("k.conf", "Host k\n  UserKnownHostsFile ~/a ${CALOPS_TEST_KH}/%k_%h"
	    "\n  GlobalKnownHostsFile none\n  HostKeyAlias Alias.Lab\n"
	    "  StrictHostKeyChecking yes\n  IdentityFile none\n"
	    "Host n\n  UserKnownHostsFile none\n  StrictHostKeyChecking no\n"
	    "  IdentityAgent none\n  ServerAliveCountMax 0\n", 0644);
	look(&sc, "k.conf", "k");
	h = bare("k");
	h.accept_new = true;
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_int_equal(out.nkh, 2);
	assert_string_equal(out.kh_files[1], "/kh/alias.lab_k");
	assert_string_equal(out.kh_name, "alias.lab");
	assert_int_equal(out.strict, SSHCONFIG_STRICT_YES);
	assert_non_null(strstr(out.strict_why, "stricter than /l/lab.yaml's "
	    "accept_new: true"));
	assert_int_equal(out.nids, 0);
	assert_false(out.default_ids);
	sshhost_release(&out);
	sshconfig_release(&sc);
	look(&sc, "k.conf", "n");
	h = bare("n");
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_int_equal(out.nkh, 2);
	assert_null(out.known_hosts);
	assert_int_equal(out.strict, SSHCONFIG_STRICT_ASK);
	assert_non_null(strstr(out.strict_why, "stricter than "
	    "StrictHostKeyChecking no"));
	assert_string_equal(out.agent, "");
	assert_int_equal(out.alive_max, 1);
	sshhost_release(&out);
	sshconfig_release(&sc);
}

/* Expansion: tokens, ${VAR}, addresses kept as they are, keepalives ssh
 * turns off kept on; what cannot be expanded is said with FILE:LINE. */
static void
test_expand(void **state)
{
	struct sshconfig sc;
	struct sshhost out;
	struct lab_host h;
	char err[1024], host[256], *want;

	(void)state;
	setenv("CALOPS_TEST_KEYS", "/k", 1);
	put("x.conf",
	    "Host v6\n  HostName 2001:0DB8:0::1\n"
	    "Host v6b\n  HostName 2001:DB8::1\n"
	    "Host v4\n  HostName 127.1\n"
	    "Host Mixed\n  HostName %h.Example.NET\n"
	    "  ServerAliveInterval 0\n"
	    "Host *\n"
	    "  IdentityFile ${CALOPS_TEST_KEYS}/%%_%d_%h_%i_%n_%p_%r_%u\n"
	    "  IdentityFile ~root/.ssh/id\n"
	    "  IdentityFile NONE\n"
	    "  IdentityFile /k/%L/%l\n", 0644);
	look(&sc, "x.conf", "Mixed");
	h = bare("Mixed");
	assert_int_equal(sshhost_merge(&out, &sc, &h, "/l/lab.yaml", err,
	    sizeof err), 0);
	assert_string_equal(out.hostname, "mixed.example.net");
	assert_int_equal(out.keepalive_s, LAB_KEEPALIVE_DEFAULT);
	assert_int_equal(out.notes.n, 1);
	assert_non_null(strstr(out.notes.v[0], "x.conf:9: 'ServerAliveInterval "
	    "0' is not used"));
	assert_int_equal(out.nids, 3);
	want = xasprintf("/k/%%_%s_mixed.example.net_%lu_Mixed_22_%s_%s",
	    home, (unsigned long)getuid(), sc.local_user, sc.local_user);
	assert_string_equal(out.ids[0].value, want);
	free(want);
	want = xasprintf("%s/.ssh/id", getpwnam("root")->pw_dir);
	assert_string_equal(out.ids[1].value, want);
	free(want);
	assert_int_equal(gethostname(host, sizeof host), 0);
	want = xasprintf("/k/%.*s/%s", (int)strcspn(host, "."), host, host);
	assert_string_equal(out.ids[2].value, want);
	free(want);
	sshhost_release(&out);
	sshconfig_release(&sc);

	/* An address is not lowercased, but written as getnameinfo()
	 * writes it when that differs by more than case, as ssh does. */
	{
		static const char *const addrs[][2] = {
			{ "v6", "2001:db8::1" },
			{ "v6b", "2001:DB8::1" },
			{ "v4", "127.0.0.1" },
		};
		size_t i;

		for (i = 0; i < nitems(addrs); i++) {
			look(&sc, "x.conf", addrs[i][0]);
			h = bare(addrs[i][0]);
			assert_int_equal(sshhost_merge(&out, &sc, &h, NULL,
			    err, sizeof err), 0);
			assert_string_equal(out.hostname, addrs[i][1]);
			sshhost_release(&out);
			sshconfig_release(&sc);
		}
	}

	put("y.conf", "Host a\n  HostName %h.%d\nHost b\n"
	    "  IdentityFile ~/.ssh/%q\nHost c\n  IdentityFile ${CALOPS_NO}/k\n"
	    "Host d\n  IdentityFile ~nosuchuser-calops/k\n"
	    "Host e\n  IdentityFile /k/%\n", 0644);
	/* ssh.c main() expands HostName before anything: ssh fails too. */
	assert_string_equal(look_err("y.conf", "a", err, sizeof err),
	    "y.conf:2: 'HostName %h.%d': %h and %% only, not '%d'");
	{
		static const struct {
			const char	*host;
			const char	*err;
		} cases[] = {
			{ "b", "y.conf:4: 'IdentityFile ~/.ssh/%q': '%q' is "
			  "not a token ssh knows there" },
			{ "c", "y.conf:6: 'IdentityFile ${CALOPS_NO}/k': "
			  "${CALOPS_NO} is not set" },
			{ "d", "y.conf:8: 'IdentityFile ~nosuchuser-calops/k':"
			  " no such user for '~nosuchuser-calops'" },
			{ "e", "y.conf:10: 'IdentityFile /k/%': a '%' ends "
			  "it" },
		};
		size_t i;

		unsetenv("CALOPS_NO");
		for (i = 0; i < nitems(cases); i++) {
			look(&sc, "y.conf", cases[i].host);
			h = bare(cases[i].host);
			assert_int_equal(sshhost_merge(&out, &sc, &h, NULL,
			    err, sizeof err), -1);
			assert_non_null(strstr(err, cases[i].err));
			sshhost_release(&out);
			sshconfig_release(&sc);
		}
	}
}

/* argv's output (stdout, or stderr when err), with HOME=env_home when
 * set; NULL when it could not run. */
static char *
run(char *const argv[], const char *env_home, bool err)
{
	struct buf b;
	char chunk[4096];
	ssize_t n;
	pid_t pid;
	int fd[2], st, nul;

	assert_int_equal(pipe(fd), 0);
	if ((pid = fork()) == 0) {
		if (env_home != NULL)
			setenv("HOME", env_home, 1);
		nul = open("/dev/null", O_RDWR);
		dup2(nul, 0);
		dup2(fd[1], err ? 2 : 1);
		dup2(nul, err ? 1 : 2);
		close(fd[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	assert_true(pid > 0);
	close(fd[1]);
	buf_init(&b, 1 << 20);
	while ((n = read(fd[0], chunk, sizeof chunk)) > 0 ||
	    (n == -1 && errno == EINTR))
		if (n > 0)
			assert_int_equal(buf_add(&b, chunk, (size_t)n), 0);
	close(fd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* The value of "key value" lines of ssh -G, each in turn (*from moves). */
static char *
g_next(const char *out, const char *key, const char **from)
{
	const char *s = *from, *nl;
	size_t n = strlen(key);

	while (*s != '\0') {
		nl = s + strcspn(s, "\n");
		if (strncasecmp(s, key, n) == 0 && s[n] == ' ') {
			*from = *nl != '\0' ? nl + 1 : nl;
			return xstrndup(s + n + 1, (size_t)(nl - s - n - 1));
		}
		s = *nl != '\0' ? nl + 1 : nl;
	}
	(void)out;
	*from = s;
	return NULL;
}

static void
g_is(const char *out, const char *key, const char *want, const char *what)
{
	const char *from = out;
	char *v = g_next(out, key, &from);

	if (v == NULL || strcmp(v, want) != 0)
		fail_msg("%s: ssh -G says %s '%s', calops '%s'", what, key,
		    v != NULL ? v : "(none)", want);
	free(v);
}

/* host looked up in file with "~" at dir, and merged with a lab host
 * that gives only its address. */
static void
resolved(const char *file, const char *host, const char *dir,
    struct sshconfig *sc, struct sshhost *out)
{
	struct lab_host h = bare(host);
	char err[1024];

	if (sshconfig_read(sc, file, host, dir, err, sizeof err) != 0 ||
	    sshhost_merge(out, sc, &h, NULL, err, sizeof err) != 0)
		fail_msg("%s in %s: %s", host, file, err);
}

/* One host against ssh -G: the resolved name, user, port and keepalive
 * and the IdentityFile lines as written. */
static void
against_g(const char *rel, const char *host, int *compared)
{
	struct sshconfig sc;
	struct sshhost out;
	char num[32], *file = at(rel), *what, *v, *g;
	char *argv[] = { "ssh", "-G", "-F", file, (char *)host, NULL };
	const char *from;
	size_t i;

	if ((g = run(argv, home, false)) == NULL)
		fail_msg("ssh is not installed: openssh-client is needed "
		    "(share/bootstrap.sh installs it)");
	what = xasprintf("%s in %s", host, rel);
	resolved(file, host, home, &sc, &out);
	g_is(g, "hostname", out.hostname, what);
	g_is(g, "user", out.user, what);
	snprintf(num, sizeof num, "%d", out.port);
	g_is(g, "port", num, what);
	snprintf(num, sizeof num, "%d", sc.alive_s < 0 ? 0 : sc.alive_s);
	g_is(g, "serveraliveinterval", num, what);
	/* With no IdentityFile ssh lists its defaults; calops uses none. */
	for (i = 0, from = g; sc.nids > 0; i++) {
		v = g_next(g, "identityfile", &from);
		if (v == NULL && i == sc.nids)
			break;
		if (v == NULL || i >= sc.nids || strcmp(v, sc.ids[i].value))
			fail_msg("%s: identity %zu: ssh -G '%s', calops '%s'",
			    what, i, v != NULL ? v : "(none)",
			    i < sc.nids ? sc.ids[i].value : "(none)");
		free(v);
	}
	(*compared)++;
	sshhost_release(&out);
	sshconfig_release(&sc);
	free(what);
	free(file);
	free(g);
}

/* One host against the paths ssh -v says it tries, expanded by ssh:
 * ProxyCommand=false fails before any network, after they are listed.
 * "~" is the password file's home there, so it is here too. */
static void
against_v(const char *rel, const char *host, int *compared)
{
	struct sshconfig sc;
	struct sshhost out;
	char *file = at(rel), *v, *prev = NULL, *path, *end;
	char *argv[] = { "ssh", "-v", "-T", "-F", file, "-o",
	    "ProxyCommand=false", "-o", "BatchMode=yes", (char *)host, "true",
	    NULL };
	const char *s, *mark = "debug1: identity file ";
	size_t i = 0;

	assert_non_null((v = run(argv, NULL, true)));
	resolved(file, host, getpwuid(getuid())->pw_dir, &sc, &out);
	for (s = v; (s = strstr(s, mark)) != NULL; s = end) {
		s += strlen(mark);
		end = strstr(s, " type ");
		assert_non_null(end);
		path = xstrndup(s, (size_t)(end - s));
		/* ssh lists X-cert after each X: not an identity. */
		if (prev != NULL && strncmp(path, prev, strlen(prev)) == 0 &&
		    strcmp(path + strlen(prev), "-cert") == 0) {
			free(path);
			continue;
		}
		if (i >= out.nids || strcmp(path, out.ids[i].value) != 0)
			fail_msg("%s in %s: identity %zu: ssh -v '%s', calops "
			    "'%s'", host, rel, i, path, i < out.nids ?
			    out.ids[i].value : "(none)");
		free(prev);
		prev = path;
		i++;
	}
	assert_int_equal(i, out.nids);
	(*compared)++;
	free(prev);
	free(v);
	free(file);
	sshhost_release(&out);
	sshconfig_release(&sc);
}

/* A dozen host names over the configs above, against the real ssh. */
static void
test_against_ssh(void **state)
{
	static const char *const hosts_a[] = { "bastion", "lab3", "lab3-b",
	    "lab9", "LAB3", "lab10", "x.npu.example.net", "other" };
	static const char *const hosts_b[] = { "gpu1", "gpu9", "gpux",
	    "quoted-1", "Quoted-1", "cpu1" };
	static const char *const hosts_c[] = { "inc-a", "inc-b", "inc-z",
	    "rel", "plain" };
	static const char *const hosts_x[] = { "Mixed", "v6", "v6b", "v4",
	    "plain" };
	int g = 0, v = 0;
	size_t i;

	(void)state;
	setenv("CALOPS_TEST_KEYS", "/k", 1);
	for (i = 0; i < nitems(hosts_a); i++) {
		against_g("a.conf", hosts_a[i], &g);
		against_v("a.conf", hosts_a[i], &v);
	}
	for (i = 0; i < nitems(hosts_b); i++) {
		against_g("b.conf", hosts_b[i], &g);
		against_v("b.conf", hosts_b[i], &v);
	}
	/* Includes (a relative one in HOME's .ssh, as ssh's glob finds
	 * it): -G only, ssh -v would look in the real home. */
	for (i = 0; i < nitems(hosts_c); i++)
		against_g("c.conf", hosts_c[i], &g);
	for (i = 0; i < nitems(hosts_x); i++) {
		against_g("x.conf", hosts_x[i], &g);
		against_v("x.conf", hosts_x[i], &v);
	}
	print_message("compared with ssh: %d lookups with -G, %d with -v\n",
	    g, v);
	assert_int_equal(g, 24);
	assert_int_equal(v, 19);
}

static int
group_setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char *p;

	(void)state;
	snprintf(root, sizeof root, "%s/calops-sshconfig-XXXXXX",
	    tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(root) == NULL)
		return -1;
	snprintf(home, sizeof home, "%s/home", root);
	p = xasprintf("%s/.ssh", home);
	if (mkdir(home, 0700) != 0 || mkdir(p, 0700) != 0)
		return -1;
	free(p);
	return 0;
}

static int
group_teardown(void **state)
{
	char *rm[] = { "rm", "-rf", root, NULL };

	(void)state;
	free(run(rm, NULL, false));
	return 0;
}

int
main(void)
{
	/* In order: later tests use the files earlier ones write. */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_include),
		cmocka_unit_test(test_include_loop),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_ignored),
		cmocka_unit_test(test_compression),
		cmocka_unit_test(test_proxy),
		cmocka_unit_test(test_jump_cut),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_errors_all),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_canon_async),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_against_ssh),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
