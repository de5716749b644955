/*
 * test_knownhosts.c: known_hosts files read, judged and added to
 * (remote/knownhosts.c), held against the real OpenSSH tools: keys made by
 * ssh-keygen -t, names hashed by ssh-keygen -H, the lines `ssh-keygen -l
 * -F NAME` finds on a tricky file, fingerprints as ssh-keygen -lf prints
 * them, and every file this module wrote read back by ssh-keygen.
 */
#include "calops.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "base/fileio.h"
#include "remote/knownhosts.h"
#include "remote/knownhosts_add.h"

/* The keys of the tests, made once by ssh-keygen. */
struct key {
	const char	*args;		/* ssh-keygen -t …, blank-separated */
	char		*type;		/* "ssh-ed25519" */
	char		*b64;
	unsigned char	*blob;
	size_t		 len;
	char		*fp;		/* as ssh-keygen -lf prints it */
};

enum { KA, KB, KC, KD, KE, KF, KG, NKEYS };

static struct key keys[NKEYS] = {
	[KA] = { .args = "ed25519" },
	[KB] = { .args = "ed25519" },
	[KC] = { .args = "ecdsa -b 256" },
	[KD] = { .args = "ecdsa -b 384" },
	[KE] = { .args = "ecdsa -b 521" },
	[KF] = { .args = "rsa -b 2048" },
	[KG] = { .args = "dsa" },
};

static char *dir;		/* the tests' folder */

static char *
at(const char *rel)
{
	return xasprintf("%s/%s", dir, rel);
}

/* Run argv with no input and stderr dropped; its output in *out (unless
 * NULL); its exit status. */
static int
run(char *const argv[], char **out)
{
	char chunk[4096], *data = NULL;
	size_t len = 0;
	ssize_t n;
	int fds[2], st, devnull;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 0);
		dup2(devnull, 2);
		dup2(fds[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	assert_true(pid > 0);
	close(fds[1]);
	while ((n = read(fds[0], chunk, sizeof chunk)) > 0) {
		data = xrealloc(data, len + (size_t)n + 1);
		memcpy(data + len, chunk, (size_t)n);
		len += (size_t)n;
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (data == NULL)
		data = xstrdup("");
	data[len] = '\0';
	if (out != NULL)
		*out = data;
	else
		free(data);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
put(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_int_not_equal(fd, -1);
	assert_int_equal(fileio_write_full(fd, data, len), 0);
	assert_int_equal(close(fd), 0);
}

static void
put_str(const char *path, const char *s)
{
	put(path, s, strlen(s));
}

/* The whole file, NUL-terminated, its length in *len. */
static char *
slurp(const char *path, size_t *len)
{
	struct stat st;
	char *data;
	int fd = open(path, O_RDONLY);

	assert_int_not_equal(fd, -1);
	assert_int_equal(fstat(fd, &st), 0);
	data = xmalloc((size_t)st.st_size + 1);
	assert_int_equal(fileio_read_full(fd, data, (size_t)st.st_size), 0);
	close(fd);
	data[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	return data;
}

/* "TYPE BASE64" of key k, a new string. */
static char *
pub(int k)
{
	return xasprintf("%s %s", keys[k].type, keys[k].b64);
}

/* Make key k with ssh-keygen and read back its public half and the
 * fingerprint ssh-keygen -lf prints. */
static void
make_key(int k)
{
	char *file = xasprintf("%s/key%d", dir, k), *pubfile, *text, *sp;
	char *argv[16], *args = xstrdup(keys[k].args), *tok, *save = NULL;
	size_t n = 0, len;
	int got;

	argv[n++] = "ssh-keygen";
	argv[n++] = "-q";
	argv[n++] = "-t";
	for (tok = strtok_r(args, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n++] = "-N";
	argv[n++] = "";
	argv[n++] = "-C";
	argv[n++] = "test";
	argv[n++] = "-f";
	argv[n++] = file;
	argv[n] = NULL;
	assert_int_equal(run(argv, NULL), 0);
	pubfile = xasprintf("%s.pub", file);
	text = slurp(pubfile, &len);
	assert_non_null(sp = strchr(text, ' '));
	keys[k].type = xstrndup(text, (size_t)(sp - text));
	keys[k].b64 = xstrndup(sp + 1, strcspn(sp + 1, " \n"));
	len = strlen(keys[k].b64);
	keys[k].blob = xmalloc(len);
	got = EVP_DecodeBlock(keys[k].blob, (unsigned char *)keys[k].b64,
	    (int)len);
	assert_true(got > 0);
	keys[k].len = (size_t)got - (keys[k].b64[len - 1] == '=') -
	    (keys[k].b64[len - 2] == '=');
	free(text);
	/* "256 SHA256:… test (ED25519)" */
	assert_int_equal(run((char *[]){ "ssh-keygen", "-l", "-f", pubfile,
	    NULL }, &text), 0);
	assert_non_null(sp = strchr(text, ' '));
	keys[k].fp = xstrndup(sp + 1, strcspn(sp + 1, " "));
	free(text);
	free(pubfile);
	free(args);
	free(file);
}

static int
group_setup(void **state)
{
	int k;

	(void)state;
	dir = xstrdup("/tmp/calops-test-knownhosts.XXXXXX");
	assert_non_null(mkdtemp(dir));
	for (k = 0; k < NKEYS; k++)
		make_key(k);
	return 0;
}

static int
group_teardown(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < NKEYS; k++) {
		free(keys[k].type);
		free(keys[k].b64);
		free(keys[k].blob);
		free(keys[k].fp);
	}
	fileio_remove_tree(dir);
	free(dir);
	return 0;
}

/* Load path, which must read whole. */
static void
load(struct knownhosts *kh, const char *path)
{
	char err[512] = "";

	if (knownhosts_load(kh, path, err, sizeof err) != 0)
		fail_msg("%s", err);
}

/* knownhosts_check of key k for host at port says verdict, at line. */
static void
expect(const struct knownhosts *kh, const char *host, int port, int k,
    int verdict, size_t line)
{
	struct knownhosts_result r;
	char err[256] = "";

	if (knownhosts_check(kh, host, port, keys[k].blob, keys[k].len, &r,
	    err, sizeof err) != 0)
		fail_msg("%s port %d: %s", host, port, err);
	assert_int_equal(r.verdict, verdict);
	assert_int_equal(r.line, line);
}

/* The entries that apply to host at port, as "3,5,10". */
static char *
mine(const struct knownhosts *kh, const char *host, int port)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < kh->nentries; i++) {
		if (!knownhosts_matches(kh, &kh->entries[i], host, port))
			continue;
		t = xasprintf("%s%s%zu", s, *s ? "," : "", kh->entries[i].line);
		free(s);
		s = t;
	}
	return s;
}

/* The lines `ssh-keygen -l -F NAME -f path` finds, as "3,5,10". */
static char *
theirs(const char *path, const char *name)
{
	char *out, *s = xstrdup(""), *t, *p;
	const char *mark = "found: line ";

	run((char *[]){ "ssh-keygen", "-l", "-F", (char *)name, "-f",
	    (char *)path, NULL }, &out);
	for (p = out; (p = strstr(p, mark)) != NULL; p += strlen(mark)) {
		t = xasprintf("%s%s%ld", s, *s ? "," : "",
		    strtol(p + strlen(mark), NULL, 10));
		free(s);
		s = t;
	}
	free(out);
	return s;
}

/* The name ssh(1) looks host at port up by, built here apart from the
 * module's own code: lowercased, "[host]:port" off port 22. */
static char *
keygen_name(const char *host, int port)
{
	char *low = xstrdup(host), *name, *p;

	for (p = low; *p != '\0'; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	if (port == 0 || port == 22)
		return low;
	name = xasprintf("[%s]:%d", low, port);
	free(low);
	return name;
}

/* fmt with "%A".."%G" standing for "TYPE BASE64" of a key, to a file. */
static void
put_keys(const char *path, const char *fmt)
{
	char *s = xstrdup(""), *t, *p;
	const char *q;

	for (q = fmt; *q != '\0'; q++) {
		if (q[0] == '%' && q[1] >= 'A' && q[1] < 'A' + NKEYS) {
			p = pub(q[1] - 'A');
			t = xasprintf("%s%s", s, p);
			free(p);
			q++;
		} else
			t = xasprintf("%s%c", s, *q);
		free(s);
		s = t;
	}
	put_str(path, s);
	free(s);
}

/* Hash names (a line each) for key k with the real ssh-keygen -H: the
 * hashed lines, a new string. */
static char *
hash_names(const char *const *names, size_t n, int k)
{
	char *path = at("tohash"), *old, *text, *p, *t, *s = xstrdup("");
	size_t i, len;

	for (i = 0; i < n; i++) {
		p = pub(k);
		t = xasprintf("%s%s %s\n", s, names[i], p);
		free(p);
		free(s);
		s = t;
	}
	put_str(path, s);
	free(s);
	assert_int_equal(run((char *[]){ "ssh-keygen", "-H", "-f", path,
	    NULL }, NULL), 0);
	text = slurp(path, &len);
	assert_memory_equal(text, "|1|", 3);
	old = xasprintf("%s.old", path);
	unlink(old);
	free(old);
	free(path);
	return text;
}

static void
test_fingerprints(void **state)
{
	char fp[KNOWNHOSTS_FP_SIZE], *path = at("fps"), *out, *line, *save;
	struct knownhosts kh;
	size_t i;
	int k;

	(void)state;
	for (k = 0; k < NKEYS; k++) {
		knownhosts_fingerprint(keys[k].blob, keys[k].len, fp);
		assert_string_equal(fp, keys[k].fp);
		assert_int_equal(strlen(fp), KNOWNHOSTS_FP_SIZE - 1);
	}
	/* Each line of a file with every type, as ssh-keygen -lf lists it. */
	put_keys(path, "a %A\nb %B\nc %C\nd %D\ne %E\nf %F\ng %G\n");
	load(&kh, path);
	assert_int_equal(kh.nentries, NKEYS);
	assert_int_equal(run((char *[]){ "ssh-keygen", "-l", "-f", path,
	    NULL }, &out), 0);
	save = NULL;
	line = strtok_r(out, "\n", &save);
	for (i = 0; i < kh.nentries; i++, line = strtok_r(NULL, "\n",
	    &save)) {
		assert_non_null(line);
		knownhosts_fingerprint(kh.entries[i].blob,
		    kh.entries[i].bloblen, fp);
		assert_non_null(strstr(line, fp));
		assert_string_equal(kh.entries[i].type, keys[i].type);
	}
	free(out);
	knownhosts_release(&kh);
	free(path);
}

/* A file of every form: the lines each host finds, written out by hand and
 * held against what ssh-keygen -F finds. */
static const struct query {
	const char	*host;
	int		 port;
	const char	*name;		/* as ssh-keygen is asked */
	const char	*lines;
} queries[] = {
	{ "alpha", 22, "alpha", "3" },
	{ "Alpha.EXAMPLE", 0, "alpha.example", "3" },
	{ "x.lab.example", 22, "x.lab.example", "4,10" },
	{ "gw.lab.example", 22, "gw.lab.example", "14" },
	{ "x.lab.example", 2200, "[x.lab.example]:2200", "8" },
	{ "gw.lab.example", 2200, "[gw.lab.example]:2200", "8" },
	{ "beta", 22, "beta", "7,10" },
	{ "beta", 2222, "[beta]:2222", "5" },
	{ "beta", 2200, "[beta]:2200", "" },
	{ "host", 22, "host", "9" },
	{ "hoost", 22, "hoost", "" },
	{ "gamma", 22, "gamma", "" },
	{ "gx", 22, "gx", "14" },
	{ "10.0.0.1", 22, "10.0.0.1", "15" },
	{ "10.0.0.7", 22, "10.0.0.7", "" },
	{ "10.0.0.9", 22, "10.0.0.9", "15" },
	{ "10.0.0.9", 2222, "[10.0.0.9]:2222", "16" },
	{ "delta", 22, "delta", "17" },
	{ "DELTA", 2022, "[delta]:2022", "18" },
	{ "delta", 2023, "[delta]:2023", "" },
	{ "indented", 22, "indented", "19" },
	{ "eps", 22, "eps", "20" },
	{ "zeta", 22, "zeta", "21" },
	{ "upper.case", 22, "upper.case", "22" },
	{ "crlf", 22, "crlf", "23" },
	{ "y.ca.example", 22, "y.ca.example", "11" },
	{ "::1", 2222, "[::1]:2222", "24" },
	{ "omega", 22, "omega", "" },
	{ "psi", 22, "psi", "26" },
	{ "nowhere", 22, "nowhere", "" },
};

/* Each query finds its lines, here and with ssh-keygen -F on path. */
static void
agree(const struct knownhosts *kh, const char *path, const struct query *q,
    size_t n)
{
	char *a, *b;
	size_t i;

	for (i = 0; i < n; i++) {
		a = mine(kh, q[i].host, q[i].port);
		b = theirs(path, q[i].name);
		print_message("%s port %d: ours %s, ssh-keygen's %s\n",
		    q[i].host, q[i].port, a, b);
		assert_string_equal(a, q[i].lines);
		assert_string_equal(b, q[i].lines);
		free(a);
		free(b);
	}
}

static void
test_forms_agree(void **state)
{
	static const char *const hashed[] = { "delta", "[delta]:2022" };
	char *path = at("tricky"), *hl, *nl, *fmt, *ka, x1023[1024];
	struct knownhosts kh;

	(void)state;
	/* OpenSSH gives up on a list with a pattern of 1,023 bytes. */
	memset(x1023, 'x', sizeof x1023 - 1);
	x1023[sizeof x1023 - 1] = '\0';
	hl = hash_names(hashed, nitems(hashed), KA);
	nl = strchr(hl, '\n');
	ka = pub(KA);
	fmt = xasprintf(
	    "# tricky: patterns, negations, ports, markers\n"	/* 1 */
	    "\n"
	    "Alpha.Example,alpha %%A\n"
	    "*.lab.example,!gw.lab.example %%B\n"
	    "[beta]:2222 %%C\n"					/* 5 */
	    "[beta]:22 %%A\n"
	    "beta %%A\n"
	    "[*.lab.example]:2200 %%A\n"
	    "h?st %%A\n"
	    "@revoked x.lab.example,beta %%D\n"			/* 10 */
	    "@cert-authority *.ca.example %%B\n"
	    "@bogus gamma %%A\n"
	    "gamma ssh-foo AAAA\n"
	    "!gamma,g* %%B\n"
	    "10.0.0.*,!10.0.0.7 %%C\n"				/* 15 */
	    "[10.0.0.9]:* %%A\n"
	    "%.*s\n"
	    "%s"
	    "  \tindented %%A\n"
	    "eps\t%s\tcomment\twith tabs\n"			/* 20 */
	    ",,zeta, %%A\n"
	    "UPPER.Case %%A a comment\n"
	    "crlf %%A\r\n"
	    "[::1]:2222 %%A\n"
	    "omega,%s %%A\n"					/* 25 */
	    "psi,%s %%A\n",
	    (int)(nl - hl), hl, nl + 1, ka, x1023, x1023 + 1);
	*strchr(strstr(fmt, "eps\t"), ' ') = '\t';
	put_keys(path, fmt);
	load(&kh, path);
	assert_int_equal(kh.nbad_total, 2);
	assert_int_equal(kh.bad[0].line, 12);
	assert_int_equal(kh.bad[1].line, 13);
	assert_true(kh.any_hashed);
	agree(&kh, path, queries, nitems(queries));
	knownhosts_release(&kh);
	free(fmt);
	free(ka);
	free(hl);
	free(path);
}

/* Names hashed by the real ssh-keygen -H are found, by name and port, on
 * the lines ssh-keygen -F finds. */
static void
test_hashed_real(void **state)
{
	static const char *const names[] = { "lab1.example", "10.1.2.3",
	    "[lab2.example]:2222", "[fe80::1]:22022" };
	static const struct query hq[] = {
		{ "lab1.example", 22, "lab1.example", "1" },
		{ "10.1.2.3", 22, "10.1.2.3", "2" },
		{ "lab2.example", 2222, "[lab2.example]:2222", "3" },
		{ "FE80::1", 22022, "[fe80::1]:22022", "4" },
		{ "lab2.example", 22, "lab2.example", "" },
		{ "lab1.example", 2222, "[lab1.example]:2222", "" },
		{ "lab1.example.", 22, "lab1.example.", "" },
	};
	char *path = at("hashed"), *text;
	struct knownhosts kh;

	(void)state;
	text = hash_names(names, nitems(names), KB);
	put_str(path, text);
	load(&kh, path);
	assert_int_equal(kh.nentries, 4);
	assert_int_equal(kh.nbad_total, 0);
	assert_true(kh.entries[0].hashed && kh.entries[3].hashed);
	agree(&kh, path, hq, nitems(hq));
	expect(&kh, "lab1.example", 22, KB, KNOWNHOSTS_MATCH, 1);
	expect(&kh, "LAB1.example", 0, KB, KNOWNHOSTS_MATCH, 1);
	expect(&kh, "10.1.2.3", 22, KA, KNOWNHOSTS_MISMATCH, 2);
	expect(&kh, "fe80::1", 22022, KB, KNOWNHOSTS_MATCH, 4);
	expect(&kh, "lab2.example", 22, KB, KNOWNHOSTS_UNKNOWN, 0);
	knownhosts_release(&kh);
	free(text);
	free(path);
}

/* The type of key k as ssh(1) says it ("Offending ECDSA key"). */
static const char *
label_of(int k)
{
	static const char *const labels[NKEYS] = { [KA] = "ED25519",
	    [KB] = "ED25519", [KC] = "ECDSA", [KD] = "ECDSA", [KE] = "ECDSA",
	    [KF] = "RSA", [KG] = "DSA" };

	return labels[k];
}

/* host port key → verdict, line, ca_line, and for a mismatch the key the
 * line holds.  As OpenSSH 9.2's check_hostkeys_by_key_or_type: a key of
 * any type known for the host, and not this one, is a mismatch, the last
 * such line named. */
static const struct vcase {
	const char	*host;
	int		 port;
	int		 key;
	int		 verdict;
	size_t		 line, ca;
	int		 known;
} vcases[] = {
	{ "lab1", 22, KA, KNOWNHOSTS_MATCH, 2, 0, -1 },
	{ "lab1", 22, KB, KNOWNHOSTS_MISMATCH, 3, 0, KC },
	{ "lab1", 22, KC, KNOWNHOSTS_MATCH, 3, 0, -1 },
	/* Another type (ECDSA P-384 against P-256 and ED25519). */
	{ "lab1", 22, KD, KNOWNHOSTS_MISMATCH, 3, 0, KC },
	{ "lab1", 2222, KA, KNOWNHOSTS_UNKNOWN, 0, 0, -1 },
	{ "lab1.example", 0, KB, KNOWNHOSTS_MISMATCH, 10, 0, KG },
	/* Two lines for one type, the key on the second: a match. */
	{ "lab2", 22, KB, KNOWNHOSTS_MATCH, 5, 0, -1 },
	{ "lab2", 22, KF, KNOWNHOSTS_MISMATCH, 6, 0, KC },
	/* Revoked by a line for other names, over a matching line. */
	{ "lab3", 22, KE, KNOWNHOSTS_REVOKED, 7, 0, -1 },
	{ "nowhere", 22, KE, KNOWNHOSTS_REVOKED, 7, 0, -1 },
	{ "lab3", 22, KF, KNOWNHOSTS_MISMATCH, 8, 0, KE },
	/* A CA line is named, never used. */
	{ "x.ca.example", 22, KA, KNOWNHOSTS_MISMATCH, 10, 9, KG },
	{ "x.ca.example", 22, KB, KNOWNHOSTS_MISMATCH, 10, 9, KG },
	{ "x.ca.example", 22, KG, KNOWNHOSTS_MATCH, 10, 9, -1 },
	/* A bad line before a good one stops nothing. */
	{ "lab4", 22, KF, KNOWNHOSTS_MATCH, 12, 0, -1 },
};

static void
test_verdicts(void **state)
{
	char *path = at("verdicts"), err[256], msg[1024], *name, *a, *b;
	struct knownhosts kh;
	struct knownhosts_result r;
	const struct vcase *v;
	size_t i;

	(void)state;
	put_keys(path,
	    "# lab hosts\n"
	    "lab1,lab1.example %A\n"
	    "lab1 %C\n"
	    "lab2 %A\n"
	    "lab2 %B\n"						/* 5 */
	    "lab2 %C\n"
	    "@revoked lab9 %E\n"
	    "lab3 %E\n"
	    "@cert-authority *.ca.example %B\n"
	    "*.example %G\n"					/* 10 */
	    "lab4 ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAAQ==\n"
	    "lab4 %F\n");
	load(&kh, path);
	assert_int_equal(kh.nbad_total, 1);
	assert_int_equal(kh.bad[0].line, 11);
	assert_string_equal(kh.bad[0].reason, "the key is cut short");
	for (i = 0; i < nitems(vcases); i++) {
		v = &vcases[i];
		print_message("%s port %d key %d\n", v->host, v->port,
		    v->key);
		assert_int_equal(knownhosts_check(&kh, v->host, v->port,
		    keys[v->key].blob, keys[v->key].len, &r, err,
		    sizeof err), 0);
		assert_int_equal(r.verdict, v->verdict);
		assert_int_equal(r.line, v->line);
		assert_int_equal(r.ca_line, v->ca);
		assert_string_equal(r.fp, keys[v->key].fp);
		assert_string_equal(r.type, keys[v->key].type);
		assert_string_equal(r.known_fp, v->known == -1 ? "" :
		    keys[v->known].fp);
		if (v->known != -1)
			assert_string_equal(r.known_label,
			    label_of(v->known));
		knownhosts_explain(&kh, &r, v->host, v->port, msg, sizeof msg);
		print_message("  %s\n", msg);
		assert_non_null(strstr(msg, keys[v->key].fp));
		/* The lines for the host are those ssh-keygen finds. */
		name = keygen_name(v->host, v->port);
		a = mine(&kh, v->host, v->port);
		b = theirs(path, name);
		assert_string_equal(a, b);
		free(b);
		free(a);
		free(name);
	}
	knownhosts_release(&kh);
	free(path);
}

/* Several files judged as one list, as ssh's check_host_key loads them:
 * revoked anywhere, then known anywhere, then changed; /dev/null and no
 * file at all know nothing. */
static void
test_check_all(void **state)
{
	static const char *const texts[] = { "lab1 %B\n", "lab1 %A\n",
	    "@revoked lab1 %A\n", "@cert-authority lab1 %C\n" };
	struct knownhosts kh[4], null;
	struct knownhosts_result r;
	char err[256], *path;
	size_t i, which;

	(void)state;
	for (i = 0; i < nitems(texts); i++) {
		path = xasprintf("%s/all%zu", dir, i);
		put_keys(path, texts[i]);
		load(&kh[i], path);
		free(path);
	}
	assert_int_equal(knownhosts_check_all(kh, 2, "lab1", 22,
	    keys[KA].blob, keys[KA].len, &r, &which, err, sizeof err), 0);
	assert_int_equal(r.verdict, KNOWNHOSTS_MATCH);
	assert_int_equal(which, 1);
	assert_int_equal(knownhosts_check_all(kh, 1, "lab1", 22,
	    keys[KA].blob, keys[KA].len, &r, &which, err, sizeof err), 0);
	assert_int_equal(r.verdict, KNOWNHOSTS_MISMATCH);
	assert_int_equal(which, 0);
	assert_int_equal(knownhosts_check_all(kh, 3, "lab1", 22,
	    keys[KA].blob, keys[KA].len, &r, &which, err, sizeof err), 0);
	assert_int_equal(r.verdict, KNOWNHOSTS_REVOKED);
	assert_int_equal(which, 2);
	assert_int_equal(knownhosts_check_all(&kh[3], 1, "lab1", 22,
	    keys[KA].blob, keys[KA].len, &r, &which, err, sizeof err), 0);
	assert_int_equal(r.verdict, KNOWNHOSTS_UNKNOWN);
	assert_int_equal(r.ca_line, 1);
	assert_int_equal(knownhosts_check_all(NULL, 0, "lab1", 22,
	    keys[KA].blob, keys[KA].len, &r, &which, err, sizeof err), 0);
	assert_int_equal(r.verdict, KNOWNHOSTS_UNKNOWN);
	assert_int_equal(knownhosts_load(&null, "/dev/null", err,
	    sizeof err), 0);
	assert_int_equal(null.nentries, 0);
	knownhosts_release(&null);
	/* A key added to the null device is kept nowhere, as by ssh. */
	assert_int_equal(knownhosts_add("/dev/null", "lab1", 22,
	    keys[KA].blob, keys[KA].len, err, sizeof err), 0);
	for (i = 0; i < nitems(texts); i++)
		knownhosts_release(&kh[i]);
}

/* What knownhosts_explain says of key k for host at port is want (a new
 * string, taken). */
static void
explains(const struct knownhosts *kh, const char *host, int port, int k,
    char *want)
{
	struct knownhosts_result r;
	char err[256], msg[1024];

	assert_int_equal(knownhosts_check(kh, host, port, keys[k].blob,
	    keys[k].len, &r, err, sizeof err), 0);
	knownhosts_explain(kh, &r, host, port, msg, sizeof msg);
	assert_string_equal(msg, want);
	free(want);
}

/* What the operator reads names the file and line involved. */
static void
test_explain(void **state)
{
	char *path = at("explain");
	struct knownhosts kh;

	(void)state;
	put_keys(path, "lab1 %A\n@revoked * %E\n@cert-authority lab* %B\n"
	    "[lab2]:2222 %C\n");
	load(&kh, path);
	explains(&kh, "lab1", 22, KB, xasprintf("the host key of 'lab1' has "
	    "changed: it shows ED25519 %s, but %s:1 holds ED25519 %s (remove "
	    "that line if the change is expected); %s:3 is a @cert-authority "
	    "line for it, which calops does not support", keys[KB].fp, path,
	    keys[KA].fp, path));
	explains(&kh, "lab2", 2222, KE, xasprintf("the host key of "
	    "'[lab2]:2222' is revoked: ECDSA %s, by the @revoked line %s:2",
	    keys[KE].fp, path));
	/* A key of another type known: changed, the line and its type
	 * named, as ssh's "Offending ECDSA key in FILE:LINE". */
	explains(&kh, "lab2", 2222, KA, xasprintf("the host key of "
	    "'[lab2]:2222' has changed: it shows ED25519 %s, but %s:4 holds "
	    "ECDSA %s (remove that line if the change is expected)",
	    keys[KA].fp, path, keys[KC].fp));
	/* Only a CA line would trust the host: refused, and said why. */
	explains(&kh, "lab3", 22, KA, xasprintf("the host key of 'lab3' is "
	    "not known: ED25519 %s; %s:3 is a @cert-authority line for it, "
	    "but calops cannot check a host certificate (libssh2 1.10 cannot "
	    "show one), so that line trusts nothing here: the host is "
	    "refused, even with accept_new, until a plain line holds its key",
	    keys[KA].fp, path));
	explains(&kh, "LAB1", 0, KA, xasprintf("the host key of 'lab1' is "
	    "known: ED25519 %s at %s:1", keys[KA].fp, path));
	knownhosts_release(&kh);
	free(path);
}

/* An SSH wire blob of n strings (length, bytes), as base64: a new
 * string. */
static char *
wire_b64(int n, ...)
{
	unsigned char blob[1024];
	const char *s;
	size_t len = 0, sl;
	char *out;
	va_list ap;

	va_start(ap, n);
	while (n-- > 0) {
		s = va_arg(ap, const char *);
		sl = va_arg(ap, size_t);
		blob[len++] = 0;
		blob[len++] = 0;
		blob[len++] = (unsigned char)(sl >> 8);
		blob[len++] = (unsigned char)sl;
		memcpy(blob + len, s, sl);
		len += sl;
	}
	va_end(ap);
	out = xmalloc(4 * ((len + 2) / 3) + 1);
	EVP_EncodeBlock((unsigned char *)out, blob, (int)len);
	return out;
}

/* Every kind of bad line is named with its line and reason, and reading
 * goes on past it (libssh2 1.10 stops at the first); what OpenSSH takes
 * (odd bytes in names, a NUL, a long line) is not bad. */
static void
test_bad_lines(void **state)
{
	static const struct {
		size_t		 line;
		const char	*reason;
	} want[] = {
		{ 2, "unknown marker '@revokd'" },
		{ 3, "nothing after the marker" },
		{ 4, "no key type after the host names" },
		{ 5, "no key after the key type" },
		{ 6, "unknown key type 'ssh-ed25519x'" },
		{ 7, "an SSH-1 key (bits, exponent, modulus), which SSH-2 "
		    "cannot use" },
		{ 8, "the key is not canonical base64" },
		{ 9, "the key is not canonical base64" },
		{ 10, "the key inside is 'ecdsa-sha2-nistp256', not "
		    "'ssh-ed25519'" },
		{ 11, "the key is cut short" },
		{ 12, "a hashed host name is not |1|SALT|HASH with 20 bytes "
		    "of each in base64" },
		{ 13, "a hashed host name is not |1|SALT|HASH with 20 bytes "
		    "of each in base64" },
		/* 14, 15: names OpenSSH takes (matching nothing calops looks
		 * up); 16: a NUL in the comment ends the line there. */
		{ 17, "no key type after the host names" },
		{ 19, "the key has bytes after its end" },
		{ 20, "the key's curve is not nistp256" },
		{ 21, "an ED25519 key is 32 bytes, not 31" },
		{ 22, "unknown marker '@revoked^[[2J'" },
	};
	static const char b64digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	char *path = at("bad"), *text, *nc, *extra, *curve, *short_pk, *a;
	char *ka = pub(KA), *kc = pub(KC), *big;
	unsigned char pk[32] = { 1 };
	struct knownhosts kh;
	size_t i, len, n;

	(void)state;
	/* C's base64 ends "X=": a set bit under the padding is not
	 * canonical. */
	nc = xstrdup(keys[KC].b64);
	n = strlen(nc);
	assert_int_equal(nc[n - 1], '=');
	nc[n - 2] = b64digits[(strchr(b64digits, nc[n - 2]) - b64digits) | 1];
	extra = wire_b64(3, "ssh-ed25519", (size_t)11, (const char *)pk,
	    (size_t)32, "x", (size_t)1);
	curve = wire_b64(3, "ecdsa-sha2-nistp256", (size_t)19, "nistp384",
	    (size_t)8, "\4", (size_t)1);
	short_pk = wire_b64(2, "ssh-ed25519", (size_t)11, (const char *)pk,
	    (size_t)31);
	big = xmalloc(70000 + 1);
	memset(big, 'x', 70000);
	big[70000] = '\0';
	a = xstrndup(keys[KA].b64, strlen(keys[KA].b64) - 4);
	text = xasprintf(
	    "# bad lines, each skipped, each named\n"
	    "@revokd lab %s\n"
	    "@revoked\n"
	    "lab1\n"
	    "lab1 ssh-ed25519 \n"				/* 5 */
	    "lab1 ssh-ed25519x AAAA\n"
	    "lab1 1024 35 12345678901234567890\n"
	    "lab1 ssh-ed25519 AAAA!AAA\n"
	    "lab1 ecdsa-sha2-nistp256 %s\n"
	    "lab1 ssh-ed25519 %s\n"				/* 10 */
	    "lab1 ssh-ed25519 %s\n"
	    "|1|abc|def %s\n"
	    "|2|%.28s|%.28s %s\n"
	    "lab\001 %s\n"
	    "lab\303\251 %s\n"					/* 15 */
	    "lab1 %s co\1mment\n"
	    "%s\n"
	    "lab1 %s\n"
	    "lab1 ssh-ed25519 %s\n"
	    "lab1 ecdsa-sha2-nistp256 %s\n"			/* 20 */
	    "lab1 ssh-ed25519 %s\n"
	    "@revoked\033[2J x %s\n"
	    "lab2 %s\n",
	    ka, nc, keys[KC].b64, a, ka, keys[KA].b64, keys[KA].b64, ka, ka,
	    ka, ka, big, ka, extra, curve, short_pk, ka, kc);
	len = strlen(text);
	/* Line 16's \1 is a NUL in the file. */
	*strchr(strstr(text, "co\1mment"), '\1') = '\0';
	put(path, text, len);
	load(&kh, path);
	for (i = 0; i < kh.nbad; i++)
		print_message("%zu: %s\n", kh.bad[i].line, kh.bad[i].reason);
	assert_int_equal(kh.nbad_total, nitems(want));
	assert_int_equal(kh.nbad, nitems(want));
	for (i = 0; i < nitems(want); i++) {
		assert_int_equal(kh.bad[i].line, want[i].line);
		assert_string_equal(kh.bad[i].reason, want[i].reason);
	}
	assert_int_equal(kh.nentries, 5);
	assert_int_equal(kh.entries[0].line, 14);
	assert_int_equal(kh.entries[1].line, 15);
	assert_int_equal(kh.entries[2].line, 16);
	assert_int_equal(kh.entries[3].line, 18);
	assert_int_equal(kh.entries[4].line, 23);
	/* Line 3, a @revoked line with nothing after it, refuses every
	 * key: calops cannot tell which it would revoke. */
	assert_int_equal(kh.revoked_bad_line, 3);
	expect(&kh, "lab2", 22, KC, KNOWNHOSTS_REVOKED, 3);
	knownhosts_release(&kh);
	free(text);
	free(a);
	free(big);
	free(short_pk);
	free(curve);
	free(extra);
	free(nc);
	free(kc);
	free(ka);
	free(path);
}

/* A file too large is refused whole, and says so; junk, a huge line, a
 * FIFO or a folder cannot make the reader grow or wait. */
static void
test_caps(void **state)
{
	char *path = at("caps"), err[256], *ka = pub(KA), *text;
	struct knownhosts kh;
	struct rusage ru;
	size_t i, junk = 15u << 20;
	int fd;

	(void)state;
	/* One byte over the cap (sparse: no disk used). */
	assert_int_not_equal(fd = open(path, O_WRONLY | O_CREAT | O_TRUNC,
	    0600), -1);
	assert_int_equal(ftruncate(fd, KNOWNHOSTS_MAX_BYTES + 1), 0);
	close(fd);
	assert_int_equal(knownhosts_load(&kh, path, err, sizeof err), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "is larger than 16384 KiB"));
	knownhosts_release(&kh);

	/* 15 MiB of one-byte junk lines: 7.9 M bad lines, 64 kept. */
	text = xmalloc(junk);
	for (i = 0; i < junk; i += 2) {
		text[i] = '\1';
		text[i + 1] = '\n';
	}
	put(path, text, junk);
	free(text);
	load(&kh, path);
	assert_int_equal(kh.nentries, 0);
	assert_int_equal(kh.nbad, KNOWNHOSTS_BAD_MAX);
	assert_int_equal(kh.nbad_total, junk / 2);
	assert_int_equal(kh.bad[KNOWNHOSTS_BAD_MAX - 1].line,
	    KNOWNHOSTS_BAD_MAX);
	knownhosts_release(&kh);
	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	print_message("peak RSS after %zu junk lines: %ld KiB\n", junk / 2,
	    ru.ru_maxrss);
	assert_true(ru.ru_maxrss < 160 * 1024);

	/* A line of 4 MiB, then a good one. */
	text = xmalloc((4u << 20) + 256);
	memset(text, 'y', 4u << 20);
	errbuf_set(text + (4u << 20), 256, "\nlab1 %s\n", ka);
	put_str(path, text);
	free(text);
	load(&kh, path);
	assert_int_equal(kh.nbad_total, 1);
	assert_string_equal(kh.bad[0].reason, "no key type after the host "
	    "names");
	assert_int_equal(kh.nentries, 1);
	assert_int_equal(kh.entries[0].line, 2);
	knownhosts_release(&kh);

	/* No file: nothing known. */
	unlink(path);
	assert_int_equal(knownhosts_load(&kh, path, err, sizeof err), 1);
	expect(&kh, "lab1", 22, KA, KNOWNHOSTS_UNKNOWN, 0);
	knownhosts_release(&kh);

	/* A FIFO (no writer: a blocking open would never return). */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(knownhosts_load(&kh, path, err, sizeof err), -1);
	assert_non_null(strstr(err, "is not a regular file"));
	knownhosts_release(&kh);
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(knownhosts_load(&kh, path, err, sizeof err), -1);
	knownhosts_release(&kh);
	rmdir(path);
	free(ka);
	free(path);
}

/* Host names calops would not write in a line are refused, not looked
 * up; case and the default port do not matter. */
static void
test_names(void **state)
{
	static const char *const bad[] = { "", "a b", "a\tb", "a,b", "a*",
	    "h?", "!h", "[h]", "h]:22", "a|b", "#h", "@h", "h\001", "h\303\251",
	    "h\033[2J" };
	char *path = at("names"), err[256], *long_name;
	const char *types[KNOWNHOSTS_TYPES_MAX];
	struct knownhosts kh;
	struct knownhosts_result r;
	unsigned char junk[] = { 0, 0, 0, 7, 's', 's', 'h', '-', 'f', 'o',
	    'o', 0, 0, 0, 1, 'x' };
	size_t i;

	(void)state;
	put_keys(path, "*.example,lab1 %A\n*.example %C\n");
	load(&kh, path);
	for (i = 0; i < nitems(bad); i++) {
		err[0] = '\0';
		assert_int_equal(knownhosts_check(&kh, bad[i], 22,
		    keys[KA].blob, keys[KA].len, &r, err, sizeof err), -1);
		print_message("%s\n", err);
		assert_non_null(strstr(err, "not a host name or port"));
		assert_null(strchr(err, '\033'));
		assert_int_equal(knownhosts_known_types(&kh, bad[i], 22,
		    types, nitems(types)), 0);
		assert_false(knownhosts_matches(&kh, &kh.entries[0], bad[i],
		    22));
	}
	assert_int_equal(knownhosts_check(&kh, "lab1", -1, keys[KA].blob,
	    keys[KA].len, &r, err, sizeof err), -1);
	assert_int_equal(knownhosts_check(&kh, "lab1", 65536, keys[KA].blob,
	    keys[KA].len, &r, err, sizeof err), -1);
	/* KNOWNHOSTS_HOST_MAX bytes are looked up, one more is not. */
	long_name = xmalloc(KNOWNHOSTS_HOST_MAX + 2);
	memset(long_name, 'a', KNOWNHOSTS_HOST_MAX - 8);
	memcpy(long_name + KNOWNHOSTS_HOST_MAX - 8, ".example", 9);
	expect(&kh, long_name, 22, KA, KNOWNHOSTS_MATCH, 1);
	memset(long_name, 'a', KNOWNHOSTS_HOST_MAX - 7);
	memcpy(long_name + KNOWNHOSTS_HOST_MAX - 7, ".example", 9);
	assert_int_equal(knownhosts_check(&kh, long_name, 22, keys[KA].blob,
	    keys[KA].len, &r, err, sizeof err), -1);
	free(long_name);
	/* Port 0 is 22; case is not looked at. */
	expect(&kh, "LAB1", 0, KA, KNOWNHOSTS_MATCH, 1);
	assert_int_equal(knownhosts_known_types(&kh, "Lab.Example", 22,
	    types, nitems(types)), 2);
	assert_string_equal(types[0], "ssh-ed25519");
	assert_string_equal(types[1], "ecdsa-sha2-nistp256");
	assert_int_equal(knownhosts_known_types(&kh, "lab.example", 2222,
	    types, nitems(types)), 0);
	/* A server's key of a type calops does not read, or garbage. */
	assert_int_equal(knownhosts_check(&kh, "lab1", 22, junk, sizeof junk,
	    &r, err, sizeof err), -1);
	assert_string_equal(err, "the host key 'lab1' showed is not one "
	    "calops reads: the key is of an unknown type 'ssh-foo'");
	assert_int_equal(knownhosts_check(&kh, "lab1", 22, junk, 5, &r, err,
	    sizeof err), -1);
	assert_int_equal(knownhosts_check(&kh, "lab1", 22, keys[KA].blob,
	    keys[KA].len - 1, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "cut short"));
	knownhosts_release(&kh);
	free(path);
}

/* The host key methods for libssh2: known types first, certificates
 * never. */
static void
test_pref(void **state)
{
	/* libssh2 1.10's list, and 1.11's with the RSA SHA-2 methods. */
	static const char *const v110[] = { "ecdsa-sha2-nistp256",
	    "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
	    "ecdsa-sha2-nistp256-cert-v01@openssh.com",
	    "ecdsa-sha2-nistp384-cert-v01@openssh.com",
	    "ecdsa-sha2-nistp521-cert-v01@openssh.com", "ssh-ed25519",
	    "ssh-rsa", "ssh-dss" };
	static const char *const v111[] = { "ssh-ed25519",
	    "ecdsa-sha2-nistp256", "rsa-sha2-512", "rsa-sha2-256",
	    "ssh-rsa", "ssh-rsa-cert-v01@openssh.com" };
	char *path = at("pref"), *s;
	struct knownhosts kh;
	size_t nk;

	(void)state;
	put_keys(path, "lab1 %F\nlab1,lab2 %A\nlab1 %B\n@revoked lab2 %C\n"
	    "@cert-authority lab2 %D\n");
	load(&kh, path);
	s = knownhosts_hostkey_pref(&kh, "lab1", 22, v110, nitems(v110),
	    &nk);
	assert_string_equal(s, "ssh-rsa,ssh-ed25519,ecdsa-sha2-nistp256,"
	    "ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,ssh-dss");
	assert_int_equal(nk, 2);
	free(s);
	s = knownhosts_hostkey_pref(&kh, "lab1", 22, v111, nitems(v111),
	    &nk);
	assert_string_equal(s, "rsa-sha2-512,rsa-sha2-256,ssh-rsa,"
	    "ssh-ed25519,ecdsa-sha2-nistp256");
	assert_int_equal(nk, 4);
	free(s);
	/* Marker lines do not count as known types. */
	s = knownhosts_hostkey_pref(&kh, "lab2", 22, v110, nitems(v110),
	    &nk);
	assert_string_equal(s, "ssh-ed25519,ecdsa-sha2-nistp256,"
	    "ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,ssh-rsa,ssh-dss");
	assert_int_equal(nk, 1);
	free(s);
	s = knownhosts_hostkey_pref(&kh, "lab3", 22, v110, nitems(v110),
	    &nk);
	assert_string_equal(s, "ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,"
	    "ecdsa-sha2-nistp521,ssh-ed25519,ssh-rsa,ssh-dss");
	assert_int_equal(nk, 0);
	free(s);
	assert_null(knownhosts_hostkey_pref(&kh, "lab1", 22, v110 + 3, 3,
	    &nk));
	knownhosts_release(&kh);
	free(path);
}

/* `ssh-keygen -l -F NAME` finds key k in path at line, its last. */
static void
keygen_finds(const char *path, const char *name, long line, int k)
{
	char *out, *p, *fp;
	long last = 0;

	run((char *[]){ "ssh-keygen", "-l", "-F", (char *)name, "-f",
	    (char *)path, NULL }, &out);
	for (p = out; (p = strstr(p, "found: line ")) != NULL; p++)
		last = strtol(p + 12, NULL, 10);
	assert_int_equal(last, line);
	fp = strstr(out, "SHA256:");
	while (fp != NULL && strstr(fp + 1, "SHA256:") != NULL)
		fp = strstr(fp + 1, "SHA256:");
	assert_non_null(fp);
	assert_memory_equal(fp, keys[k].fp, strlen(keys[k].fp));
	free(out);
}

/* path's permission bits are want. */
static void
assert_mode(const char *path, mode_t want)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, want);
}

/* Nothing but the file itself is left in its folder. */
static void
assert_no_temp(const char *folder)
{
	char *out;

	assert_int_equal(run((char *[]){ "find", (char *)folder, "-name",
	    ".*.??????", NULL }, &out), 0);
	assert_string_equal(out, "");
	free(out);
}

/* An added key: every byte before it kept, the line ssh-keygen finds. */
static void
test_add_keeps_bytes(void **state)
{
	char *folder = at("add"), *path, *before, *after, *line, err[512];
	size_t blen, alen;

	(void)state;
	assert_int_equal(mkdir(folder, 0700), 0);
	path = xasprintf("%s/known_hosts", folder);
	put_keys(path,
	    "# my hosts\r\n"
	    "\n"
	    "   # an indented comment\t\n"
	    "lab1 %A  a comment kept\n"
	    "@revoked old %E\n"
	    "a bad line, kept as it is \001\n"
	    "@cert-authority *.example %B\n"
	    "lab9 %B");
	assert_int_equal(chmod(path, 0640), 0);
	before = slurp(path, &blen);
	assert_int_equal(knownhosts_add(path, "New.Host", 22, keys[KC].blob,
	    keys[KC].len, err, sizeof err), 0);
	after = slurp(path, &alen);
	line = xasprintf("new.host %s %s\n", keys[KC].type, keys[KC].b64);
	assert_int_equal(alen, blen + 1 + strlen(line));
	assert_memory_equal(after, before, blen);
	assert_int_equal(after[blen], '\n');
	assert_string_equal(after + blen + 1, line);
	assert_mode(path, 0640);
	assert_no_temp(folder);
	free(line);
	keygen_finds(path, "new.host", 9, KC);

	/* Known already: nothing written. */
	assert_int_equal(knownhosts_add(path, "new.host", 22, keys[KC].blob,
	    keys[KC].len, err, sizeof err), 1);
	free(before);
	before = slurp(path, &blen);
	assert_int_equal(blen, alen);
	assert_memory_equal(before, after, alen);

	/* Another port: bracketed, found by ssh-keygen under that name. */
	assert_int_equal(knownhosts_add(path, "new.host", 2222,
	    keys[KA].blob, keys[KA].len, err, sizeof err), 0);
	free(after);
	after = slurp(path, &alen);
	line = xasprintf("[new.host]:2222 %s %s\n", keys[KA].type,
	    keys[KA].b64);
	assert_int_equal(alen, blen + strlen(line));
	assert_memory_equal(after, before, blen);
	assert_string_equal(after + blen, line);
	free(line);
	keygen_finds(path, "[new.host]:2222", 10, KA);
	assert_no_temp(folder);
	free(before);
	free(after);
	free(path);
	free(folder);
}

/* A file that hashes its names gets a hashed name, one ssh-keygen finds
 * (so the salt and the HMAC are what ssh computes). */
static void
test_add_hashed(void **state)
{
	static const char *const names[] = { "lab1" };
	char *path = at("addhashed"), *text, *after, err[512];
	struct knownhosts kh;
	size_t len, alen;

	(void)state;
	text = hash_names(names, 1, KA);
	put_str(path, text);
	assert_int_equal(knownhosts_add(path, "lab5", 22, keys[KC].blob,
	    keys[KC].len, err, sizeof err), 0);
	assert_int_equal(knownhosts_add(path, "Lab5", 2022, keys[KF].blob,
	    keys[KF].len, err, sizeof err), 0);
	after = slurp(path, &alen);
	len = strlen(text);
	assert_memory_equal(after, text, len);
	assert_memory_equal(after + len, "|1|", 3);
	assert_non_null(strstr(after + len, "\n|1|"));
	assert_null(strstr(after, "lab5"));
	keygen_finds(path, "lab5", 2, KC);
	keygen_finds(path, "[lab5]:2022", 3, KF);
	load(&kh, path);
	assert_int_equal(kh.nentries, 3);
	expect(&kh, "lab5", 2022, KF, KNOWNHOSTS_MATCH, 3);
	knownhosts_release(&kh);
	free(after);
	free(text);
	free(path);
}

/* A new file, in folders that do not exist yet. */
static void
test_add_new_file(void **state)
{
	char *top = at("fresh"), *sub, *path, *text, *want, err[512];
	size_t len;

	(void)state;
	sub = xasprintf("%s/ssh", top);
	path = xasprintf("%s/known_hosts", sub);
	if (knownhosts_add(path, "lab1", 22, keys[KD].blob, keys[KD].len,
	    err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_mode(top, 0700);
	assert_mode(sub, 0700);
	assert_mode(path, 0600);
	text = slurp(path, &len);
	want = xasprintf("lab1 %s %s\n", keys[KD].type, keys[KD].b64);
	assert_string_equal(text, want);
	free(want);
	free(text);
	keygen_finds(path, "lab1", 1, KD);
	assert_no_temp(sub);
	free(path);
	free(sub);
	free(top);
}

/* What must not be written: through a link, over a folder, a key that
 * disagrees with the file or that it revokes. */
static void
test_add_refuses(void **state)
{
	char *path = at("refuse"), *link = at("refuse-link"), *before;
	char *after, err[1024];
	struct knownhosts kh;
	struct stat st;
	size_t blen, alen;

	(void)state;
	put_keys(path, "lab1 %A\n@revoked * %E\n");
	before = slurp(path, &blen);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(knownhosts_add(link, "lab2", 22, keys[KC].blob,
	    keys[KC].len, err, sizeof err), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "is a symbolic link"));
	assert_int_equal(knownhosts_add(path, "lab1", 22, keys[KB].blob,
	    keys[KB].len, err, sizeof err), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "not adding the key: the host key of "
	    "'lab1' has changed"));
	assert_int_equal(knownhosts_add(path, "lab2", 22, keys[KE].blob,
	    keys[KE].len, err, sizeof err), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "is revoked"));
	assert_int_equal(knownhosts_add(path, "lab 2", 22, keys[KC].blob,
	    keys[KC].len, err, sizeof err), -1);
	assert_int_equal(knownhosts_add(path, "lab2", 22, keys[KC].blob, 9,
	    err, sizeof err), -1);
	after = slurp(path, &alen);
	assert_int_equal(alen, blen);
	assert_memory_equal(after, before, blen);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	free(after);
	free(before);
	free(link);
	free(path);
	/* A folder, its name holding an escape sequence: said, not sent. */
	path = at("refuse-\033[2J-dir");
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(knownhosts_add(path, "lab2", 22, keys[KC].blob,
	    keys[KC].len, err, sizeof err), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "refuse-^[[2J-dir' is not a regular "
	    "file"));
	assert_int_equal(knownhosts_load(&kh, path, err, sizeof err), -1);
	knownhosts_release(&kh);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "refuse-^[[2J-dir' is not a regular "
	    "file"));
	free(path);
}

/* "TYPE BASE64" of a host certificate of key k, signed by key KB with
 * the real ssh-keygen -s: a new string. */
static char *
cert_of(int k)
{
	char *file = xasprintf("%s/key%d", dir, k), *ca = xasprintf(
	    "%s/key%d", dir, KB), *pubfile = xasprintf("%s.pub", file);
	char *certfile = xasprintf("%s-cert.pub", file), *text, *line;
	size_t len;

	assert_int_equal(run((char *[]){ "ssh-keygen", "-q", "-s", ca, "-I",
	    "test", "-h", "-n", "lab1", pubfile, NULL }, NULL), 0);
	text = slurp(certfile, &len);
	line = xstrndup(text, strcspn(text, " ") + 1 +
	    strcspn(text + strcspn(text, " ") + 1, " \n"));
	free(text);
	free(certfile);
	free(pubfile);
	free(ca);
	free(file);
	return line;
}

/* The verdicts of OpenSSH 9.2 (hostfile.c check_hostkeys_by_key_or_type,
 * check_key_not_revoked; sshconnect.c check_host_key) where calops once
 * differed: a key of another type known, accept_new then, and @revoked
 * lines OpenSSH honours that calops skipped (odd names, a NUL, a long
 * line, a certificate); an unreadable @revoked line refuses. */
static void
test_openssh_rules(void **state)
{
	static const int certs[] = { KA, KC, KD, KE, KF };
	char *path = at("rules"), *text, *big, *ca, *cert, *b, err[1024];
	char msg[1024];
	struct knownhosts kh;
	struct knownhosts_result r;
	size_t i, len, alen;

	(void)state;
	/* Another type: changed, naming the last such line and its type. */
	put_keys(path, "lab1 %C\nlab1 %F\nlab2 %A\n");
	load(&kh, path);
	assert_int_equal(knownhosts_check(&kh, "lab1", 22, keys[KA].blob,
	    keys[KA].len, &r, err, sizeof err), 0);
	assert_int_equal(r.verdict, KNOWNHOSTS_MISMATCH);
	assert_int_equal(r.line, 2);
	assert_string_equal(r.known_label, "RSA");
	assert_string_equal(r.known_fp, keys[KF].fp);
	knownhosts_explain(&kh, &r, "lab1", 22, msg, sizeof msg);
	assert_non_null(strstr(msg, "has changed"));
	assert_non_null(strstr(msg, ":2 holds RSA "));
	expect(&kh, "lab1", 22, KC, KNOWNHOSTS_MATCH, 1);
	expect(&kh, "lab2", 22, KF, KNOWNHOSTS_MISMATCH, 3);
	knownhosts_release(&kh);

	/* accept_new: not when a key of any type is known, nor past a
	 * revocation or an unreadable one, nor for a CA's host. */
	text = slurp(path, &len);
	assert_int_equal(knownhosts_add(path, "lab1", 22, keys[KA].blob,
	    keys[KA].len, err, sizeof err), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "not adding the key: the host key of "
	    "'lab1' has changed"));
	b = slurp(path, &alen);
	assert_int_equal(alen, len);
	assert_memory_equal(b, text, len);
	free(b);
	free(text);
	put_keys(path, "@cert-authority *.ca %B\n@revoked x ssh-ed25519 "
	    "AAAA\n");
	assert_int_equal(knownhosts_add(path, "lab9", 22, keys[KA].blob,
	    keys[KA].len, err, sizeof err), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "@revoked line calops cannot read"));
	put_keys(path, "@cert-authority *.ca %B\n");
	assert_int_equal(knownhosts_add(path, "h.ca", 22, keys[KA].blob,
	    keys[KA].len, err, sizeof err), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "cannot check a host certificate"));
	assert_int_equal(knownhosts_add(path, "lab9", 22, keys[KA].blob,
	    keys[KA].len, err, sizeof err), 0);

	/* @revoked lines OpenSSH honours: names with control and non-ASCII
	 * bytes, a bad hashed name, a NUL in the comment, a line over 64
	 * KiB. */
	big = xmalloc(70001);
	memset(big, 'c', 70000);
	big[70000] = '\0';
	text = xasprintf("lab1 %%A\nlab1 %%C\nlab1 %%E\nlab1 %%F\n"
	    "@revoked lab\001,\303\251 %%A\n"			/* 5 */
	    "@revoked |1|junk %%C\n"
	    "@revoked * %%E co\1mment\n"
	    "@revoked * %%F %s\n", big);
	put_keys(path, text);
	free(text);
	/* Line 7's \1 is a NUL in the file. */
	text = slurp(path, &len);
	*strchr(strstr(text, "co\1mment"), '\1') = '\0';
	put(path, text, len);
	free(text);
	load(&kh, path);
	assert_int_equal(kh.nbad_total, 0);
	expect(&kh, "lab1", 22, KA, KNOWNHOSTS_REVOKED, 5);
	expect(&kh, "lab1", 22, KC, KNOWNHOSTS_REVOKED, 6);
	expect(&kh, "lab1", 22, KF, KNOWNHOSTS_REVOKED, 8);
	knownhosts_release(&kh);
	free(big);

	/* A certificate on a @revoked line revokes the key it certifies,
	 * for each type; on a plain line it is no match (sshkey_equal). */
	for (i = 0; i < nitems(certs); i++) {
		cert = cert_of(certs[i]);
		ca = pub(certs[i]);
		text = xasprintf("lab1 %s\n@revoked * %s\n", ca, cert);
		put_str(path, text);
		load(&kh, path);
		assert_int_equal(kh.nbad_total, 0);
		assert_true(kh.entries[1].cert);
		expect(&kh, "lab1", 22, certs[i], KNOWNHOSTS_REVOKED, 2);
		expect(&kh, "lab1", 22, KB, KNOWNHOSTS_MISMATCH, 1);
		knownhosts_release(&kh);
		free(text);
		text = xasprintf("lab1 %s\n", cert);
		put_str(path, text);
		load(&kh, path);
		assert_int_equal(knownhosts_check(&kh, "lab1", 22,
		    keys[certs[i]].blob, keys[certs[i]].len, &r, err,
		    sizeof err), 0);
		assert_int_equal(r.verdict, KNOWNHOSTS_MISMATCH);
		assert_non_null(strstr(r.known_label, "-CERT"));
		knownhosts_release(&kh);
		free(text);
		/* Cut short: unreadable, so every key is refused. */
		cert[strlen(cert) - 8] = '\0';
		text = xasprintf("lab1 %s\n@revoked nothing %s\n", ca, cert);
		put_str(path, text);
		load(&kh, path);
		assert_int_equal(knownhosts_check(&kh, "lab1", 22,
		    keys[certs[i]].blob, keys[certs[i]].len, &r, err,
		    sizeof err), 0);
		assert_int_equal(r.verdict, KNOWNHOSTS_REVOKED);
		assert_true(r.unreadable);
		assert_int_equal(r.line, 2);
		knownhosts_release(&kh);
		free(text);
		free(ca);
		free(cert);
	}

	/* An unreadable @revoked line refuses every host, saying why. */
	put_keys(path, "lab1 %A\n@revoked * ssh-xmss@openssh.com AAAA\n");
	load(&kh, path);
	assert_int_equal(knownhosts_check(&kh, "lab1", 22, keys[KA].blob,
	    keys[KA].len, &r, err, sizeof err), 0);
	assert_int_equal(r.verdict, KNOWNHOSTS_REVOKED);
	assert_int_equal(r.line, 2);
	knownhosts_explain(&kh, &r, "lab1", 22, msg, sizeof msg);
	print_message("%s\n", msg);
	assert_non_null(strstr(msg, "is refused"));
	assert_non_null(strstr(msg, ":2 is a @revoked line calops cannot "
	    "read (unknown key type 'ssh-xmss@openssh.com')"));
	knownhosts_release(&kh);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fingerprints),
		cmocka_unit_test(test_forms_agree),
		cmocka_unit_test(test_hashed_real),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_check_all),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_pref),
		cmocka_unit_test(test_add_keeps_bytes),
		cmocka_unit_test(test_add_hashed),
		cmocka_unit_test(test_add_new_file),
		cmocka_unit_test(test_add_refuses),
		cmocka_unit_test(test_openssh_rules),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
