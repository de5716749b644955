/* relkey.c: the approver's private key (relkey.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "base/fileio.h"
#include "release/relkey.h"

struct pass_ask {
	int		 fd;		/* -1: the terminal */
	const char	*path;
	bool		 asked;
	char		 why[160];
	/* relkey_load_pass(): the passphrase given, or NULL: none, and
	 * nobody to ask (the console asks, then loads again). */
	bool		 given;
	const char	*pass;
	bool		 wanted;	/* encrypted, and no passphrase */
};

/* A line from fd into buf (no newline); its length, or -1. */
static int
read_pass_line(int fd, char *buf, int size)
{
	int n = 0;
	ssize_t r;
	char c;

	while (n < size - 1 && (r = read(fd, &c, 1)) == 1 && c != '\n')
		buf[n++] = c;
	buf[n] = '\0';
	c = 0;
	return n;
}

/* The signals that end a command typed at a terminal, caught while the
 * passphrase is read with echo off. */
static const int pass_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction pass_saved[nitems(pass_signals)];
static volatile sig_atomic_t caught;

static void
pass_catch(int sig)
{
	caught = sig;
}

/* on: catch them (no SA_RESTART: the read returns); off: as they were. */
static void
catch_signals(bool on)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = pass_catch;
	sigemptyset(&sa.sa_mask);
	if (on)
		caught = 0;
	for (i = 0; i < nitems(pass_signals); i++)
		if (on)
			(void)sigaction(pass_signals[i], &sa, &pass_saved[i]);
		else
			(void)sigaction(pass_signals[i], &pass_saved[i], NULL);
}

/* OpenSSL asks only for an encrypted key. */
static int
pass_cb(char *buf, int size, int rwflag, void *arg)
{
	struct pass_ask *pa = arg;
	struct termios t, quiet;
	bool had;
	int fd, n;

	(void)rwflag;
	pa->asked = true;
	if (pa->given && pa->pass == NULL) {
		pa->wanted = true;
		errbuf_set(pa->why, sizeof pa->why, "the key '%s' is "
		    "encrypted: its passphrase is needed", pa->path);
		return -1;
	}
	if (pa->given) {
		n = (int)strnlen(pa->pass, (size_t)size - 1);
		memcpy(buf, pa->pass, (size_t)n);
		buf[n] = '\0';
		return n;
	}
	if (pa->fd != -1)
		return read_pass_line(pa->fd, buf, size);
	if ((fd = open("/dev/tty", O_RDWR | O_CLOEXEC)) == -1) {
		errbuf_set(pa->why, sizeof pa->why, "the key is encrypted and "
		    "there is no terminal to ask its passphrase on: give "
		    "--passphrase-fd");
		return -1;
	}
	dprintf(fd, "Passphrase for %s: ", pa->path);
	/* A signal while echo is off (^C) is held until the terminal is as
	 * it was, then delivered (OpenSSH's readpassphrase does the same). */
	catch_signals(true);
	if ((had = tcgetattr(fd, &t) == 0)) {
		quiet = t;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		(void)tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	n = caught == 0 ? read_pass_line(fd, buf, size) : 0;
	if (had)
		(void)tcsetattr(fd, TCSAFLUSH, &t);
	dprintf(fd, "\n");
	close(fd);
	catch_signals(false);
	if (caught != 0) {
		OPENSSL_cleanse(buf, (size_t)size);
		raise(caught);
		return -1;
	}
	return n;
}

static void	*load(const char *path, struct pass_ask *pa, char *err,
		    size_t errlen);

void *
relkey_load(const char *path, int passfd, char *err, size_t errlen)
{
	struct pass_ask pa = { .fd = passfd, .path = path };

	return load(path, &pa, err, errlen);
}

void *
relkey_load_pass(const char *path, const char *pass, bool *wants_pass,
    char *err, size_t errlen)
{
	struct pass_ask pa = { .fd = -1, .path = path, .given = true,
	    .pass = pass };
	void *k = load(path, &pa, err, errlen);

	*wants_pass = pa.wanted;
	return k;
}

static void *
load(const char *path, struct pass_ask *pap, char *err, size_t errlen)
{
	struct pass_ask pa = *pap;
	EVP_PKEY *k;
	BIO *bio;
	char *data;
	size_t len;
	int fd;
	struct stat sb;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > 65536) {
		errbuf_set(err, errlen, "cannot read the key '%s': %s", path,
		    fd == -1 ? strerror(errno) : "not a small regular file");
		if (fd != -1)
			close(fd);
		return NULL;
	}
	len = (size_t)sb.st_size;
	data = xmalloc(len + 1);
	if (fileio_read_full(fd, data, len) != 0) {
		errbuf_set(err, errlen, "cannot read the key '%s': %s", path,
		    strerror(errno));
		close(fd);
		free(data);
		return NULL;
	}
	close(fd);
	data[len] = '\0';
	if (strstr(data, "BEGIN OPENSSH PRIVATE KEY") != NULL) {
		errbuf_set(err, errlen, "'%s' is an OpenSSH key: approvals "
		    "take a PEM Ed25519 key (openssl genpkey -algorithm "
		    "ed25519)", path);
		OPENSSL_cleanse(data, len);
		free(data);
		return NULL;
	}
	bio = BIO_new_mem_buf(data, (int)len);
	k = bio != NULL ? PEM_read_bio_PrivateKey(bio, NULL, pass_cb, &pa) :
	    NULL;
	BIO_free(bio);
	OPENSSL_cleanse(data, len);
	free(data);
	if (k == NULL) {
		pap->wanted = pa.wanted;
		if (pa.why[0] != '\0')
			errbuf_set(err, errlen, "%s", pa.why);
		else
			errbuf_set(err, errlen, "cannot read the key '%s': %s",
			    path, pa.asked ? "wrong passphrase" :
			    "not a PEM private key");
		return NULL;
	}
	if (EVP_PKEY_get_base_id(k) != EVP_PKEY_ED25519) {
		errbuf_set(err, errlen, "'%s' is %s key: approvals are signed "
		    "with Ed25519 (release.md §2)", path,
		    EVP_PKEY_get_base_id(k) == EVP_PKEY_RSA ? "an RSA" :
		    "not an Ed25519");
		EVP_PKEY_free(k);
		return NULL;
	}
	return k;
}

void
relkey_free(void *key)
{
	EVP_PKEY_free(key);
}

const char *
relkey_trusted_name(const struct keyring *kr, const void *key)
{
	size_t i;

	for (i = 0; i < kr->n; i++)
		if (EVP_PKEY_eq(kr->keys[i].pkey, key) == 1)
			return kr->keys[i].name;
	return NULL;
}

char *
relkey_sign(const void *key, const void *msg, size_t len)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char sig[64];
	size_t siglen = sizeof sig;
	char *b64 = NULL;

	if (ctx == NULL)
		fatal("out of memory for a signature");
	if (EVP_DigestSignInit(ctx, NULL, NULL, NULL, (EVP_PKEY *)key) == 1 &&
	    EVP_DigestSign(ctx, sig, &siglen, msg, len) == 1 &&
	    siglen == 64) {
		b64 = xmalloc(4 * ((siglen + 2) / 3) + 1);
		EVP_EncodeBlock((unsigned char *)b64, sig, (int)siglen);
	}
	EVP_MD_CTX_free(ctx);
	return b64;
}

char *
relkey_public_b64(const void *key)
{
	unsigned char raw[32];
	size_t len = sizeof raw;
	char *b64;

	if (EVP_PKEY_get_raw_public_key((const EVP_PKEY *)key, raw, &len) !=
	    1 || len != sizeof raw)
		return NULL;
	b64 = xmalloc(4 * ((len + 2) / 3) + 1);
	EVP_EncodeBlock((unsigned char *)b64, raw, (int)len);
	return b64;
}
