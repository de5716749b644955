/*
 * test_sshkey.c: two leaves of the SSH transport checked against the real
 * programs they stand in front of.
 *
 * ssh_quote_argv (remote/ssh.c): the exec channel takes one string, which
 * the host's shell splits again.  Hostile words (blanks, quotes, $(…), ;,
 * newlines, globs, a leading dash, an empty word, bytes above 0x7f) are
 * quoted, given to the real /bin/sh -c, and the argv the program gets is
 * compared byte for byte.
 *
 * sshkey_inspect (remote/sshkey.c): keys made by the real ssh-keygen, of
 * each type, with and without a passphrase, in OpenSSH's format and PEM;
 * then files that are no key.  Skipped without ssh-keygen.
 */
#include "calops.h"

#include <sys/wait.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "remote/ssh.h"
#include "remote/sshkey.h"
#include "remote/transport.h"

/* Run `sh -c LINE` where LINE is ARGV quoted, the program being printf
 * printing each argument NUL-terminated; the output in *out. */
static size_t
run_quoted(char *const argv[], char *out, size_t outlen)
{
	struct buf line = BUF_INIT;
	char *args[64];
	size_t n = 0, i;
	int fd[2];
	pid_t pid;
	ssize_t k;
	int status;

	args[0] = "printf";
	args[1] = "%s\\0";
	for (i = 0; argv[i] != NULL; i++)
		args[i + 2] = argv[i];
	args[i + 2] = NULL;
	ssh_quote_argv(&line, args);
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		execl("/bin/sh", "sh", "-c", line.data, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while ((k = read(fd[0], out + n, outlen - n)) > 0)
		n += (size_t)k;
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	buf_release(&line);
	return n;
}

static void
test_quote_hostile_words(void **state)
{
	char *words[] = {
		"/data/model port/qwen3 1.7b",
		"it's \"quoted\"",
		"$(touch /tmp/calops-pwned) `id` ${HOME}",
		"a; rm -rf /; b && c || d | e > f < g",
		"line one\nline two\n",
		"*", "?", "[a-z]", "~", "~root", "-n", "",
		"'", "''", "'\\''", "\\", "!event", "#comment",
		"tab\there", "caf\xc3\xa9 \xe2\x80\xae",
		NULL,
	};
	char out[4096], *p;
	size_t n, i;

	(void)state;
	n = run_quoted(words, out, sizeof out);
	p = out;
	for (i = 0; words[i] != NULL; i++) {
		assert_true(p < out + n);
		assert_string_equal(p, words[i]);
		p += strlen(p) + 1;
	}
	assert_ptr_equal(p, out + n);
	assert_int_equal(access("/tmp/calops-pwned", F_OK), -1);
}

/* A program under the remote home: "$HOME"/ then the rest, quoted. */
static void
test_quote_home(void **state)
{
	struct buf b = BUF_INIT;
	char *argv[] = { "~/bin dir/calops", "x y", NULL };

	(void)state;
	ssh_quote_argv(&b, argv);
	assert_string_equal(b.data, "\"$HOME\"/'bin dir/calops' 'x y'");
	buf_release(&b);
}

static char dir[] = "/tmp/calops-sshkey.XXXXXX";

/* Run argv (searched in PATH), its output thrown away: its exit status,
 * 127 when it cannot be run. */
static int
run(char *const argv[])
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static const char *const made[] = { "ed", "ed_pass", "ec", "rsa", "ec_pem",
    "ec_pem_pass", "rsa_pem" };

static bool
keygen(const char *name, const char *type, const char *bits,
    const char *pass, bool pem)
{
	char path[512], *argv[16];
	size_t n = 0;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	argv[n++] = "ssh-keygen";
	argv[n++] = "-q";
	argv[n++] = "-t";
	argv[n++] = (char *)type;
	if (bits != NULL) {
		argv[n++] = "-b";
		argv[n++] = (char *)bits;
	}
	argv[n++] = "-N";
	argv[n++] = (char *)pass;
	if (pem) {
		argv[n++] = "-m";
		argv[n++] = "PEM";
	}
	argv[n++] = "-C";
	argv[n++] = "test";
	argv[n++] = "-f";
	argv[n++] = path;
	argv[n] = NULL;
	return run(argv) == 0;
}

static void
inspect(const char *name, const char *type, bool encrypted, bool rsa)
{
	struct sshkey_info info;
	char path[512], err[256], *data;
	size_t len;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(sshkey_read(path, &data, &len, &info, err,
	    sizeof err), 0);
	if (type == NULL)
		assert_null(info.type);
	else
		assert_string_equal(info.type, type);
	assert_int_equal(info.encrypted, encrypted);
	assert_int_equal(info.rsa, rsa);
	sshkey_wipe(data, len + 1);
}

static void
test_inspect_real_keys(void **state)
{
	char *version[] = { "ssh-keygen", "-?", NULL };

	(void)state;
	if (run(version) == 127)
		skip();
	assert_non_null(mkdtemp(dir));
	assert_true(keygen("ed", "ed25519", NULL, "", false));
	assert_true(keygen("ed_pass", "ed25519", NULL, "secret words", false));
	assert_true(keygen("ec", "ecdsa", "384", "", false));
	assert_true(keygen("rsa", "rsa", "2048", "", false));
	assert_true(keygen("ec_pem", "ecdsa", "256", "", true));
	assert_true(keygen("ec_pem_pass", "ecdsa", "256", "a passphrase", true));
	assert_true(keygen("rsa_pem", "rsa", "2048", "", true));
	inspect("ed", "ssh-ed25519", false, false);
	inspect("ed_pass", "ssh-ed25519", true, false);
	inspect("ec", "ecdsa-sha2-nistp384", false, false);
	inspect("rsa", "ssh-rsa", false, true);
	inspect("ec_pem", "ecdsa-sha2-nistp256", false, false);
	inspect("ec_pem_pass", "ecdsa-sha2-nistp256", true, false);
	inspect("rsa_pem", "ssh-rsa", false, true);
}

static void
refused(const char *data, size_t len, const char *want)
{
	struct sshkey_info info;
	char err[256];

	assert_int_equal(sshkey_inspect(data, len, &info, err, sizeof err),
	    -1);
	assert_non_null(strstr(err, want));
}

static void
test_inspect_junk(void **state)
{
	static const char cut[] = "-----BEGIN OPENSSH PRIVATE KEY-----\n"
	    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2"
	    "\n-----END OPENSSH PRIVATE KEY-----\n";
	static const char nul[] = "-----BEGIN OPENSSH\0 PRIVATE KEY-----";
	static const char wrongmagic[] = "-----BEGIN OPENSSH PRIVATE KEY-----\n"
	    "aGVsbG8gd29ybGQ=\n-----END OPENSSH PRIVATE KEY-----\n";
	static const char noend[] = "-----BEGIN OPENSSH PRIVATE KEY-----\n"
	    "aGVsbG8gd29ybGQ=\n";

	(void)state;
	refused("ssh-ed25519 AAAA… a public key\n", 31, "not a private key");
	refused(nul, sizeof nul - 1, "NUL");
	refused(cut, sizeof cut - 1, "cut short");
	refused(wrongmagic, sizeof wrongmagic - 1, "openssh-key-v1");
	refused(noend, sizeof noend - 1, "END OPENSSH");
}

static int
teardown(void **state)
{
	char path[512];
	size_t i;

	(void)state;
	if (strchr(dir, 'X') != NULL)
		return 0;
	for (i = 0; i < nitems(made); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, made[i]);
		unlink(path);
		snprintf(path, sizeof path, "%s/%s.pub", dir, made[i]);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_hostile_words),
		cmocka_unit_test(test_quote_home),
		cmocka_unit_test(test_inspect_real_keys),
		cmocka_unit_test(test_inspect_junk),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
