/* sshkey.c: what an identity file is (sshkey.h). */
#include "calops.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "remote/sshkey.h"
#include "remote/sshwire.h"

#define OPENSSH_BEGIN	"-----BEGIN OPENSSH PRIVATE KEY-----"
#define OPENSSH_END	"-----END OPENSSH PRIVATE KEY-----"
#define OPENSSH_MAGIC	"openssh-key-v1"	/* and a NUL */

/* The key types calops knows by name, so that info->type is static. */
static const char *const known_types[] = {
	"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
	"ecdsa-sha2-nistp521", "ssh-rsa", "ssh-dss",
	"sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
};

static const char *
type_named(const unsigned char *s, size_t len)
{
	size_t i;

	for (i = 0; i < nitems(known_types); i++)
		if (strlen(known_types[i]) == len &&
		    memcmp(known_types[i], s, len) == 0)
			return known_types[i];
	return NULL;
}

/*
 * OpenSSH's format: the base64 between the armour lines decodes to
 * "openssh-key-v1\0", cipher name, KDF name, KDF options, a key count and
 * the first public key, whose first string is its type.
 */
static int
inspect_openssh(const char *data, size_t len, struct sshkey_info *info,
    char *err, size_t errlen)
{
	const char *b = strstr(data, OPENSSH_BEGIN), *e;
	const unsigned char *p, *end, *s, *pub;
	unsigned char *raw = NULL, *text = NULL;
	size_t n = 0, i, slen, publen;
	int rawlen, rc = -1;

	(void)len;	/* data ends with a NUL (sshkey_inspect) */
	b += strlen(OPENSSH_BEGIN);
	if ((e = strstr(b, OPENSSH_END)) == NULL) {
		errbuf_set(err, errlen, "no '%s' line", OPENSSH_END);
		return -1;
	}
	/* The base64 alone, without the line ends. */
	text = xmalloc((size_t)(e - b) + 1);
	for (i = 0; b + i < e; i++)
		if (strchr(" \t\r\n", b[i]) == NULL)
			text[n++] = (unsigned char)b[i];
	if (n == 0 || n % 4 != 0) {
		errbuf_set(err, errlen, "its base64 is cut short");
		goto out;
	}
	raw = xmalloc(n / 4 * 3 + 1);
	if ((rawlen = EVP_DecodeBlock(raw, text, (int)n)) < 0) {
		errbuf_set(err, errlen, "it is not base64");
		goto out;
	}
	/* EVP_DecodeBlock counts the padding as bytes. */
	rawlen -= (text[n - 1] == '=') + (text[n - 2] == '=');
	p = raw;
	end = raw + rawlen;
	if ((size_t)rawlen < sizeof OPENSSH_MAGIC ||
	    memcmp(p, OPENSSH_MAGIC, sizeof OPENSSH_MAGIC) != 0) {
		errbuf_set(err, errlen, "it does not begin '%s'",
		    OPENSSH_MAGIC);
		goto out;
	}
	p += sizeof OPENSSH_MAGIC;
	if (!sshwire_string(&p, end, &s, &slen)) {
		errbuf_set(err, errlen, "it is cut short");
		goto out;
	}
	info->encrypted = !(slen == 4 && memcmp(s, "none", 4) == 0);
	/* KDF name, KDF options, the key count (4 bytes), the public key. */
	if (!sshwire_string(&p, end, &s, &slen) ||
	    !sshwire_string(&p, end, &s, &slen) || end - p < 4 ||
	    (p += 4, !sshwire_string(&p, end, &pub, &publen)) ||
	    !sshwire_string(&pub, pub + publen, &s, &slen)) {
		errbuf_set(err, errlen, "it is cut short");
		goto out;
	}
	info->type = type_named(s, slen);
	info->rsa = info->type != NULL && strcmp(info->type, "ssh-rsa") == 0;
	rc = 0;
out:
	if (raw != NULL) {
		OPENSSL_cleanse(raw, n / 4 * 3 + 1);
		free(raw);
	}
	OPENSSL_cleanse(text, (size_t)(e != NULL ? e - b : 0) + 1);
	free(text);
	return rc;
}

int
sshkey_inspect(const char *data, size_t len, struct sshkey_info *info,
    char *err, size_t errlen)
{
	static const struct {
		const char	*armour;
		const char	*type;
	} pem[] = {
		{ "-----BEGIN RSA PRIVATE KEY-----", "ssh-rsa" },
		{ "-----BEGIN EC PRIVATE KEY-----", "ecdsa-sha2-nistp256" },
		{ "-----BEGIN DSA PRIVATE KEY-----", "ssh-dss" },
		{ "-----BEGIN PRIVATE KEY-----", NULL },
		{ "-----BEGIN ENCRYPTED PRIVATE KEY-----", NULL },
	};
	size_t i;

	memset(info, 0, sizeof *info);
	if (memchr(data, '\0', len) != NULL) {
		errbuf_set(err, errlen, "not a private key (a NUL byte)");
		return -1;
	}
	if (strstr(data, OPENSSH_BEGIN) != NULL)
		return inspect_openssh(data, len, info, err, errlen);
	for (i = 0; i < nitems(pem); i++) {
		if (strstr(data, pem[i].armour) == NULL)
			continue;
		info->type = pem[i].type;
		info->rsa = i == 0;
		info->encrypted = strstr(data, "Proc-Type: 4,ENCRYPTED") !=
		    NULL || strstr(pem[i].armour, "ENCRYPTED") != NULL;
		return 0;
	}
	errbuf_set(err, errlen, "not a private key (no '-----BEGIN … PRIVATE "
	    "KEY-----' line)");
	return -1;
}

int
sshkey_read(const char *path, char **data, size_t *len,
    struct sshkey_info *info, char *err, size_t errlen)
{
	char why[200], *buf;
	struct stat sb;
	size_t got = 0;
	ssize_t n;
	int fd;

	*data = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		errbuf_set(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > (off_t)SSHKEY_MAX_BYTES) {
		errbuf_set(err, errlen, "%s: %s", path, !S_ISREG(sb.st_mode) ?
		    "not a regular file" : "larger than any private key");
		close(fd);
		return -1;
	}
	buf = xmalloc((size_t)sb.st_size + 1);
	while (got < (size_t)sb.st_size &&
	    (n = read(fd, buf + got, (size_t)sb.st_size - got)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			errbuf_set(err, errlen, "%s: %s", path,
			    strerror(errno));
			close(fd);
			sshkey_wipe(buf, (size_t)sb.st_size + 1);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	if (sshkey_inspect(buf, got, info, why, sizeof why) != 0) {
		errbuf_set(err, errlen, "%s: %s", path, why);
		sshkey_wipe(buf, (size_t)sb.st_size + 1);
		return -1;
	}
	*data = buf;
	*len = got;
	return 0;
}

void
sshkey_wipe(char *p, size_t len)
{
	if (p == NULL)
		return;
	OPENSSL_cleanse(p, len);
	free(p);
}
