/* knownhosts.c: known_hosts files read, and a host's key judged against
 * them (see knownhosts.h; knownhosts_add.c adds a key). */
#include "calops.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <sys/stat.h>

#include "base/docfile.h"
#include "base/text.h"
#include "remote/knownhosts.h"
#include "remote/knownhosts_int.h"
#include "remote/sshwire.h"

#define SUBPATTERN_MAX	1023		/* OpenSSH's match_pattern_list */
#define KEY_MAX		16384		/* a key a server shows, in bytes */
#define CERT_SUFFIX	"-cert-v01@openssh.com"
#define QUOTE_WIDTH	40		/* file text quoted in a reason */
#define WHY_SIZE	160		/* a bad line's reason */

/* Why a line or a key cannot be used, into a WHY_SIZE buffer. */
#define WHY(why, ...)	errbuf_set((why), WHY_SIZE, __VA_ARGS__)

/* The key types calops reads (struct khtype: knownhosts_int.h). */
static const struct khtype khtypes[] = {
	{ "ssh-ed25519", "ED25519", 1, 32, NULL, { "ssh-ed25519" },
	    "ssh-ed25519" CERT_SUFFIX, "ED25519-CERT" },
	{ "ecdsa-sha2-nistp256", "ECDSA", 2, 0, "nistp256",
	    { "ecdsa-sha2-nistp256" },
	    "ecdsa-sha2-nistp256" CERT_SUFFIX, "ECDSA-CERT" },
	{ "ecdsa-sha2-nistp384", "ECDSA", 2, 0, "nistp384",
	    { "ecdsa-sha2-nistp384" },
	    "ecdsa-sha2-nistp384" CERT_SUFFIX, "ECDSA-CERT" },
	{ "ecdsa-sha2-nistp521", "ECDSA", 2, 0, "nistp521",
	    { "ecdsa-sha2-nistp521" },
	    "ecdsa-sha2-nistp521" CERT_SUFFIX, "ECDSA-CERT" },
	{ "ssh-rsa", "RSA", 2, 0, NULL,
	    { "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa" },
	    "ssh-rsa" CERT_SUFFIX, "RSA-CERT" },
	{ "ssh-dss", "DSA", 4, 0, NULL, { "ssh-dss" },
	    "ssh-dss" CERT_SUFFIX, "DSA-CERT" },
	{ "sk-ssh-ed25519@openssh.com", "ED25519-SK", 2, 32, NULL,
	    { "sk-ssh-ed25519@openssh.com" },
	    "sk-ssh-ed25519" CERT_SUFFIX, "ED25519-SK-CERT" },
	{ "sk-ecdsa-sha2-nistp256@openssh.com", "ECDSA-SK", 3, 0, "nistp256",
	    { "sk-ecdsa-sha2-nistp256@openssh.com" },
	    "sk-ecdsa-sha2-nistp256" CERT_SUFFIX, "ECDSA-SK-CERT" },
};
_Static_assert(nitems(khtypes) <= KNOWNHOSTS_TYPES_MAX,
    "KNOWNHOSTS_TYPES_MAX counts the key types");

void
knownhosts_errf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	char *msg, *clean;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	clean = text_sanitize(msg, strlen(msg), 0);
	errbuf_set(buf, len, "%s", clean);
	free(clean);
	free(msg);
}

void
knownhosts_errsafe(char *err, size_t errlen)
{
	char *copy = xstrdup(err);

	knownhosts_errf(err, errlen, "%s", copy);
	free(copy);
}

/* The key type named by len bytes at s, plain or (*cert set, unless cert
 * is NULL) its certificate's; NULL when calops does not read it. */
static const struct khtype *
find_type(const char *s, size_t len, bool *cert)
{
	size_t i;

	for (i = 0; i < nitems(khtypes); i++) {
		if (strlen(khtypes[i].name) == len &&
		    memcmp(khtypes[i].name, s, len) == 0) {
			if (cert != NULL)
				*cert = false;
			return &khtypes[i];
		}
		if (cert != NULL && strlen(khtypes[i].cert) == len &&
		    memcmp(khtypes[i].cert, s, len) == 0) {
			*cert = true;
			return &khtypes[i];
		}
	}
	return NULL;
}

/* len bytes of base64 (out: len / 4 * 3 + 3 bytes at least) in *out,
 * strictly: padded, and canonical, as OpenSSH's b64_pton takes it (the
 * text is the encoding of what it decodes to).  The length, or -1. */
static long
b64_decode(const char *in, size_t len, unsigned char *out)
{
	size_t pad = 0;
	char *again;
	int n;
	bool same;

	if (len == 0 || len % 4 != 0 || len > INT_MAX / 2)
		return -1;
	if (in[len - 1] == '=')
		pad = in[len - 2] == '=' ? 2 : 1;
	if ((n = EVP_DecodeBlock(out, (const unsigned char *)in,
	    (int)len)) < 0 || (size_t)n < pad)
		return -1;
	n -= (int)pad;
	again = xmalloc(len + 1);
	same = (size_t)EVP_EncodeBlock((unsigned char *)again, out, n) ==
	    len && memcmp(again, in, len) == 0;
	free(again);
	return same ? n : -1;
}

/* len bytes as padded base64, a new string. */
char *
knownhosts_b64_encode(const void *in, size_t len)
{
	char *out = xmalloc(4 * ((len + 2) / 3) + 1);

	EVP_EncodeBlock((unsigned char *)out, in, (int)len);
	return out;
}

/*
 * The type of the key blob, which must be the key its type names (want,
 * when not NULL: the type a line gives before it); NULL with the reason in
 * why (WHY_SIZE bytes).
 */
static const struct khtype *
blob_type(const unsigned char *blob, size_t len, const char *want,
    char *why)
{
	const unsigned char *p = blob, *end = blob + len, *s, *first = NULL;
	const struct khtype *t;
	size_t n, firstlen = 0;
	int i;

	if (!sshwire_string(&p, end, &s, &n)) {
		WHY(why, "the key is cut short");
		return NULL;
	}
	if ((t = find_type((const char *)s, n, NULL)) == NULL) {
		WHY(why, "the key is of an unknown type '%.*s'",
		    (int)(n < QUOTE_WIDTH ? n : QUOTE_WIDTH), s);
		return NULL;
	}
	if (want != NULL && strcmp(want, t->name) != 0) {
		WHY(why, "the key inside is '%s', not '%s'", t->name, want);
		return NULL;
	}
	for (i = 0; i < t->nfields; i++) {
		if (!sshwire_string(&p, end, &s, &n)) {
			WHY(why, "the key is cut short");
			return NULL;
		}
		if (i == 0) {
			first = s;
			firstlen = n;
		}
	}
	if (p != end)
		WHY(why, "the key has bytes after its end");
	else if (t->keylen != 0 && firstlen != t->keylen)
		WHY(why, "an %s key is %zu bytes, not %zu", t->label,
		    t->keylen, firstlen);
	else if (t->curve != NULL && (firstlen != strlen(t->curve) ||
	    memcmp(first, t->curve, firstlen) != 0))
		WHY(why, "the key's curve is not %s", t->curve);
	else
		return t;
	return NULL;
}

/* n bytes at *p skipped; false when the blob is cut short. */
static bool
skip_fixed(const unsigned char **p, const unsigned char *end, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	*p += n;
	return true;
}

/*
 * The key a certificate of type t certifies, as a plain key blob in *pub
 * (a new buffer of *publen bytes): OpenSSH's sshkey_equal_public compares
 * a certificate by that key, so a @revoked certificate revokes it.  The
 * blob is PROTOCOL.certkeys': string type, string nonce, the plain key's
 * fields, then the certificate's own (serial, type, key id, principals,
 * validity, options, extensions, reserved, CA key, signature).  The CA's
 * signature is not checked: a revocation is honoured whoever signed it.
 * false with the reason in why.
 */
static bool
cert_key(const unsigned char *blob, size_t len, const struct khtype *t,
    unsigned char **pub, size_t *publen, char *why)
{
	const unsigned char *p = blob, *end = blob + len, *s, *fields;
	size_t n, flen, tlen = strlen(t->name);
	int i;

	*pub = NULL;
	if (!sshwire_string(&p, end, &s, &n) || n != strlen(t->cert) ||
	    memcmp(s, t->cert, n) != 0) {
		WHY(why, "the key inside is not a '%s'", t->cert);
		return false;
	}
	if (!sshwire_string(&p, end, &s, &n))
		goto cut;
	fields = p;
	for (i = 0; i < t->nfields; i++)
		if (!sshwire_string(&p, end, &s, &n))
			goto cut;
	flen = (size_t)(p - fields);
	if (!skip_fixed(&p, end, 8 + 4))
		goto cut;
	for (i = 0; i < 2; i++)
		if (!sshwire_string(&p, end, &s, &n))
			goto cut;
	if (!skip_fixed(&p, end, 8 + 8))
		goto cut;
	for (i = 0; i < 5; i++)
		if (!sshwire_string(&p, end, &s, &n))
			goto cut;
	if (p != end) {
		WHY(why, "the certificate has bytes after its end");
		return false;
	}
	*publen = 4 + tlen + flen;
	*pub = xmalloc(*publen);
	(*pub)[0] = (unsigned char)(tlen >> 24);
	(*pub)[1] = (unsigned char)(tlen >> 16);
	(*pub)[2] = (unsigned char)(tlen >> 8);
	(*pub)[3] = (unsigned char)tlen;
	memcpy(*pub + 4, t->name, tlen);
	memcpy(*pub + 4 + tlen, fields, flen);
	if (blob_type(*pub, *publen, t->name, why) != NULL)
		return true;
	free(*pub);
	*pub = NULL;
	return false;
cut:
	WHY(why, "the certificate is cut short");
	return false;
}

/* The name host at port is looked up by, as ssh(1) builds it: lowercased,
 * "[host]:port" when the port is not 22.  false for a name calops does not
 * look up: one that could not be written in a known_hosts line. */
static bool
lookup_name(const char *host, int port, char name[NAME_SIZE])
{
	char low[KNOWNHOSTS_HOST_MAX + 1];
	size_t i, n = strlen(host);
	unsigned char c;

	if (n == 0 || n > KNOWNHOSTS_HOST_MAX || host[0] == '@' ||
	    port < 0 || port > 65535)
		return false;
	for (i = 0; i < n; i++) {
		c = (unsigned char)host[i];
		if (c <= ' ' || c >= 0x7f || strchr(",*?![]|#", c) != NULL)
			return false;
		low[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') :
		    (char)c;
	}
	low[n] = '\0';
	if (port == 0 || port == 22)
		errbuf_set(name, NAME_SIZE, "%s", low);
	else
		errbuf_set(name, NAME_SIZE, "[%s]:%d", low, port);
	return true;
}

static char
ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* OpenSSH's match_pattern, without its backtracking: '*' is any run of
 * characters, '?' any one; the pattern (plen bytes) is lowercased. */
static bool
glob_match(const char *s, const char *p, size_t plen)
{
	size_t si = 0, pi = 0, star = SIZE_MAX, mark = 0;

	while (s[si] != '\0') {
		if (pi < plen && (p[pi] == '?' || ascii_lower(p[pi]) ==
		    s[si])) {
			si++;
			pi++;
		} else if (pi < plen && p[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (star != SIZE_MAX) {
			pi = star + 1;
			si = ++mark;
		} else
			return false;
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

/* OpenSSH's match_pattern_list: 1 when a pattern of the comma list
 * matches, -1 when a negated one does, else 0 (also for a pattern too long
 * for OpenSSH's buffer, as there). */
static int
pattern_list_match(const char *name, const char *pat, size_t len)
{
	size_t i = 0, start;
	bool neg, positive = false;

	while (i < len) {
		if ((neg = pat[i] == '!'))
			i++;
		for (start = i; i < len && pat[i] != ','; i++)
			;
		if (i - start >= SUBPATTERN_MAX)
			return 0;
		if (glob_match(name, pat + start, i - start)) {
			if (neg)
				return -1;
			positive = true;
		}
		if (i < len)
			i++;
	}
	return positive ? 1 : 0;
}

bool
knownhosts_hmac_sha1(const unsigned char salt[HASH_LEN], const char *name,
    unsigned char md[HASH_LEN])
{
	unsigned char out[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (HMAC(EVP_sha1(), salt, HASH_LEN, (const unsigned char *)name,
	    strlen(name), out, &n) == NULL || n != HASH_LEN)
		return false;
	memcpy(md, out, HASH_LEN);
	return true;
}

/* Whether e's names apply to the lookup name. */
static bool
entry_matches(const struct knownhosts *kh, const struct knownhosts_entry *e,
    const char *name)
{
	unsigned char md[HASH_LEN];

	if (e->hashed)
		return knownhosts_hmac_sha1(e->salt, name, md) &&
		    memcmp(md, e->hash, HASH_LEN) == 0;
	return pattern_list_match(name, kh->data + e->names_off,
	    e->names_len) == 1;
}

/* OpenSSH's sshkey_equal: the same type and key (a certificate never
 * equals the plain key a server shows). */
static bool
same_key(const struct knownhosts_entry *e, const void *blob, size_t len)
{
	return e->bloblen == len && memcmp(e->blob, blob, len) == 0;
}

/* OpenSSH's sshkey_equal_public: the same key, a certificate standing
 * for the key it certifies. */
static bool
same_public(const struct knownhosts_entry *e, const void *blob, size_t len)
{
	return e->publen == len && memcmp(e->pub, blob, len) == 0;
}

/* Remember line lineno as bad, for reason why (made safe here, and only
 * for the lines kept: a file of junk is millions of bad lines). */
static void
bad_line(struct knownhosts *kh, size_t lineno, const char *why)
{
	if (kh->nbad_total++ >= KNOWNHOSTS_BAD_MAX)
		return;
	if (kh->nbad == 0)
		kh->bad = xreallocarray(NULL, KNOWNHOSTS_BAD_MAX,
		    sizeof *kh->bad);
	kh->bad[kh->nbad].line = lineno;
	kh->bad[kh->nbad++].reason = text_sanitize(why, strlen(why), 0);
}

/* A hashed name: "|1|" base64(salt) "|" base64(hash), 20 bytes each (28
 * digits, canonical). */
static bool
parse_hashed(struct knownhosts_entry *e, const char *s, size_t len)
{
	unsigned char tmp[HASH_LEN + 3];
	size_t m = sizeof HASH_MAGIC - 1, d = 4 * ((HASH_LEN + 2) / 3);

	if (len != m + d + 1 + d || memcmp(s, HASH_MAGIC, m) != 0 ||
	    s[m + d] != '|' || b64_decode(s + m, d, tmp) != HASH_LEN)
		return false;
	memcpy(e->salt, tmp, HASH_LEN);
	if (b64_decode(s + m + d + 1, d, tmp) != HASH_LEN)
		return false;
	memcpy(e->hash, tmp, HASH_LEN);
	return true;
}

static size_t
skip_blanks(const char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static size_t
token_end(const char *s, size_t i, size_t len)
{
	while (i < len && s[i] != ' ' && s[i] != '\t')
		i++;
	return i;
}

/* The marker a line starts with at s[*i], *i moved past it and the blanks
 * after; -1 with the reason in why for an unknown one. */
static int
parse_marker(const char *s, size_t *i, size_t len, char *why)
{
	size_t j = token_end(s, *i, len), n = j - *i;
	int marker;

	if (s[*i] != '@')
		return KNOWNHOSTS_MARK_PLAIN;
	if (n == 8 && memcmp(s + *i, "@revoked", n) == 0)
		marker = KNOWNHOSTS_MARK_REVOKED;
	else if (n == 15 && memcmp(s + *i, "@cert-authority", n) == 0)
		marker = KNOWNHOSTS_MARK_CA;
	else {
		WHY(why, "unknown marker '%.*s'",
		    (int)(n < QUOTE_WIDTH ? n : QUOTE_WIDTH), s + *i);
		return -1;
	}
	*i = skip_blanks(s, j, len);
	return marker;
}

/* The names field s[i, j) into e; false with the reason in why. */
static bool
parse_names(struct knownhosts_entry *e, const char *s, size_t i, size_t j,
    char *why)
{
	/* A byte outside printable ASCII is no error: OpenSSH takes it,
	 * and it matches no name calops looks up. */
	if (s[i] == '|' && !(e->hashed = parse_hashed(e, s + i, j - i))) {
		WHY(why, "a hashed host name is not |1|SALT|HASH with "
		    "20 bytes of each in base64");
		return false;
	}
	return true;
}

/* The key type and the key at s[i]: e->type, e->blob; false with why. */
static bool
parse_key(struct knownhosts_entry *e, const char *s, size_t i, size_t len,
    char *why)
{
	const struct khtype *t;
	size_t j = token_end(s, i, len), k;
	long n;
	bool cert;

	if (i == len) {
		WHY(why, "no key type after the host names");
		return false;
	}
	if ((t = find_type(s + i, j - i, &cert)) == NULL) {
		for (k = i; k < j && s[k] >= '0' && s[k] <= '9'; k++)
			;
		if (k == j)
			WHY(why, "an SSH-1 key (bits, exponent, modulus), "
			    "which SSH-2 cannot use");
		else
			WHY(why, "unknown key type '%.*s'", (int)(j - i <
			    QUOTE_WIDTH ? j - i : QUOTE_WIDTH), s + i);
		return false;
	}
	e->type = t->name;
	e->label = cert ? t->cert_label : t->label;
	e->cert = cert;
	if ((i = skip_blanks(s, j, len)) == len) {
		WHY(why, "no key after the key type");
		return false;
	}
	j = token_end(s, i, len);
	e->blob = xmalloc((j - i) / 4 * 3 + 3);
	if ((n = b64_decode(s + i, j - i, e->blob)) < 0) {
		WHY(why, "the key is not canonical base64");
		return false;
	}
	e->bloblen = (size_t)n;
	if (cert)
		return cert_key(e->blob, e->bloblen, t, &e->pub, &e->publen,
		    why);
	e->pub = e->blob;
	e->publen = e->bloblen;
	return blob_type(e->blob, e->bloblen, t->name, why) != NULL;
}

static void
entry_free(struct knownhosts_entry *e)
{
	if (e->pub != e->blob)
		free(e->pub);
	free(e->blob);
}

/* A @revoked line that cannot be read at line lineno: it might revoke any
 * key, so every host judged against the file is refused while it is
 * there (the first one is named). */
static void
revoked_bad(struct knownhosts *kh, size_t lineno, const char *why)
{
	if (kh->revoked_bad_line == 0) {
		kh->revoked_bad_line = lineno;
		kh->revoked_bad_why = text_sanitize(why, strlen(why), 0);
	}
}

/* Line lineno, len bytes at kh->data + off (its LF left out): an entry, a
 * bad line, or nothing (blank, a comment). */
static void
parse_line(struct knownhosts *kh, size_t lineno, size_t off, size_t len)
{
	const char *s = kh->data + off, *nul;
	struct knownhosts_entry e = { .line = lineno };
	char why[WHY_SIZE];
	size_t i, j;
	int marker;

	/* OpenSSH reads a line of any length as a C string (hostfile.c
	 * hostkeys_foreach): a NUL ends it, in a comment or anywhere. */
	if ((nul = memchr(s, '\0', len)) != NULL)
		len = (size_t)(nul - s);
	if (len > 0 && s[len - 1] == '\r')
		len--;
	if ((i = skip_blanks(s, 0, len)) == len || s[i] == '#')
		return;
	if ((marker = parse_marker(s, &i, len, why)) == -1)
		goto bad;
	if (i == len) {
		WHY(why, "nothing after the marker");
		goto bad;
	}
	e.marker = (enum knownhosts_marker)marker;
	j = token_end(s, i, len);
	e.names_off = off + i;
	e.names_len = j - i;
	/* A @revoked line's names are not read: it applies to every host. */
	if ((e.marker != KNOWNHOSTS_MARK_REVOKED &&
	    !parse_names(&e, s, i, j, why)) ||
	    !parse_key(&e, s, skip_blanks(s, j, len), len, why))
		goto bad;
	if (e.hashed)
		kh->any_hashed = true;
	/* Room for 16, then doubled whenever a power of two is full. */
	if (kh->nentries == 0 || (kh->nentries >= 16 &&
	    (kh->nentries & (kh->nentries - 1)) == 0))
		kh->entries = xreallocarray(kh->entries, kh->nentries == 0 ?
		    16 : 2 * kh->nentries, sizeof *kh->entries);
	kh->entries[kh->nentries++] = e;
	return;
bad:
	entry_free(&e);
	if (marker == KNOWNHOSTS_MARK_REVOKED)
		revoked_bad(kh, lineno, why);
	bad_line(kh, lineno, why);
}

/* Parse data (len bytes and a NUL, taken) into kh, zeroed. */
static void
parse_data(struct knownhosts *kh, char *data, size_t len, const char *source)
{
	const char *nl;
	size_t off, end, lineno;

	memset(kh, 0, sizeof *kh);
	kh->path = xstrdup(source);
	kh->data = data;
	kh->len = len;
	for (off = 0, lineno = 1; off < len; off = end + 1, lineno++) {
		nl = memchr(data + off, '\n', len - off);
		end = nl != NULL ? (size_t)(nl - data) : len;
		parse_line(kh, lineno, off, end - off);
	}
}

void
knownhosts_parse(struct knownhosts *kh, const char *data, size_t len,
    const char *source)
{
	char *copy = xmalloc(len + 1);

	memcpy(copy, data, len);
	copy[len] = '\0';
	parse_data(kh, copy, len, source);
}

int
knownhosts_load(struct knownhosts *kh, const char *path, char *err,
    size_t errlen)
{
	struct stat st;
	char *data;
	size_t len;
	int rc;

	memset(kh, 0, sizeof *kh);
	if (stat(path, &st) == 0 && docfile_is_null(&st)) {
		/* UserKnownHostsFile /dev/null: nothing known, as in ssh. */
		parse_data(kh, xstrdup(""), 0, path);
		return 0;
	}
	rc = docfile_read(path, KNOWNHOSTS_MAX_BYTES, &data, &len, err,
	    errlen);
	if (rc == -1) {
		knownhosts_errsafe(err, errlen);
		return -1;
	}
	if (rc == 1) {
		data = xstrdup("");
		len = 0;
	}
	parse_data(kh, data, len, path);
	return rc;
}

void
knownhosts_release(struct knownhosts *kh)
{
	size_t i;

	for (i = 0; i < kh->nentries; i++)
		entry_free(&kh->entries[i]);
	free(kh->revoked_bad_why);
	for (i = 0; i < kh->nbad; i++)
		free(kh->bad[i].reason);
	free(kh->entries);
	free(kh->bad);
	free(kh->data);
	free(kh->path);
	memset(kh, 0, sizeof *kh);
}

bool
knownhosts_matches(const struct knownhosts *kh,
    const struct knownhosts_entry *e, const char *host, int port)
{
	char name[NAME_SIZE];

	return lookup_name(host, port, name) && entry_matches(kh, e, name);
}

void
knownhosts_fingerprint(const void *blob, size_t len,
    char fp[KNOWNHOSTS_FP_SIZE])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	char *b64;

	if (EVP_Digest(blob, len, md, NULL, EVP_sha256(), NULL) != 1)
		fatal("OpenSSL cannot compute a SHA-256");
	b64 = knownhosts_b64_encode(md, 32);
	/* 43 digits and one '=': OpenSSH leaves the padding out. */
	errbuf_set(fp, KNOWNHOSTS_FP_SIZE, "SHA256:%.43s", b64);
	free(b64);
}

/*
 * The lines for the lookup name against the key: what knownhosts_check
 * says, once the name and the key are known to be fine.  OpenSSH 9.2's
 * hostfile.c check_hostkeys_by_key_or_type, over the lines
 * load_hostkeys took for the name: the first plain line holding the key
 * makes it OK; else any plain line holding another key, of any type,
 * makes it CHANGED, the last such line named ("Offending … key in
 * FILE:LINE"); then check_key_not_revoked: a @revoked line holding the
 * key, or the key a @revoked certificate certifies, wins over both.  Here
 * a @revoked line applies whatever its names (stricter), and one that
 * cannot be read refuses every key.
 */
void
knownhosts_judge(const struct knownhosts *kh, const char *name,
    const void *blob, size_t len, const struct khtype *t,
    struct knownhosts_result *r)
{
	const struct knownhosts_entry *e, *match = NULL, *differ = NULL;
	const struct knownhosts_entry *revoked = NULL;
	size_t i;

	memset(r, 0, sizeof *r);
	r->verdict = KNOWNHOSTS_UNKNOWN;
	r->type = t->name;
	r->label = t->label;
	knownhosts_fingerprint(blob, len, r->fp);
	for (i = 0; i < kh->nentries; i++) {
		e = &kh->entries[i];
		if (e->marker == KNOWNHOSTS_MARK_REVOKED) {
			if (revoked == NULL && same_public(e, blob, len))
				revoked = e;
			continue;
		}
		if (!entry_matches(kh, e, name))
			continue;
		if (e->marker == KNOWNHOSTS_MARK_CA) {
			if (r->ca_line == 0)
				r->ca_line = e->line;
		} else if (match != NULL)
			continue;
		else if (same_key(e, blob, len))
			match = e;
		else
			differ = e;
	}
	if (revoked != NULL) {
		r->verdict = KNOWNHOSTS_REVOKED;
		r->line = revoked->line;
	} else if (kh->revoked_bad_line != 0) {
		r->verdict = KNOWNHOSTS_REVOKED;
		r->line = kh->revoked_bad_line;
		r->unreadable = true;
	} else if (match != NULL) {
		r->verdict = KNOWNHOSTS_MATCH;
		r->line = match->line;
	} else if (differ != NULL) {
		r->verdict = KNOWNHOSTS_MISMATCH;
		r->line = differ->line;
		r->known_label = differ->label;
		knownhosts_fingerprint(differ->blob, differ->bloblen,
		    r->known_fp);
	}
}

/* The lookup name of host at port and the type of the key blob, for
 * knownhosts_check and knownhosts_add (what, in messages); NULL with err. */
const struct khtype *
knownhosts_prepare(const char *host, int port, const void *blob, size_t len,
    const char *what, char name[NAME_SIZE], char *err, size_t errlen)
{
	const struct khtype *t;
	char why[WHY_SIZE];

	if (!lookup_name(host, port, name)) {
		knownhosts_errf(err, errlen, "'%s' port %d: not a host name "
		    "or port calops %s known_hosts", host, port, what);
		return NULL;
	}
	if (len > KEY_MAX) {
		WHY(why, "a key of %zu bytes (at most %d)", len, KEY_MAX);
		t = NULL;
	} else
		t = blob_type(blob, len, NULL, why);
	if (t == NULL)
		knownhosts_errf(err, errlen, "the host key '%s' showed is not "
		    "one calops reads: %s", name, why);
	return t;
}

int
knownhosts_check(const struct knownhosts *kh, const char *host, int port,
    const void *blob, size_t len, struct knownhosts_result *r, char *err,
    size_t errlen)
{
	const struct khtype *t;
	char name[NAME_SIZE];

	memset(r, 0, sizeof *r);
	r->verdict = KNOWNHOSTS_UNKNOWN;
	if ((t = knownhosts_prepare(host, port, blob, len, "looks up in",
	    name, err, errlen)) == NULL)
		return -1;
	knownhosts_judge(kh, name, blob, len, t, r);
	return 0;
}

void
knownhosts_explain(const struct knownhosts *kh,
    const struct knownhosts_result *r, const char *host, int port,
    char *buf, size_t len)
{
	char name[NAME_SIZE], *what, *ca = NULL;
	const char *path = kh->path != NULL ? kh->path : "known_hosts";

	if (!lookup_name(host, port, name))
		errbuf_set(name, sizeof name, "?");
	if (r->verdict == KNOWNHOSTS_MATCH)
		what = xasprintf("the host key of '%s' is known: %s %s at "
		    "%s:%zu", name, r->label, r->fp, path, r->line);
	else if (r->verdict == KNOWNHOSTS_MISMATCH)
		what = xasprintf("the host key of '%s' has changed: it shows "
		    "%s %s, but %s:%zu holds %s %s (remove that line if the "
		    "change is expected)", name, r->label, r->fp, path,
		    r->line, r->known_label, r->known_fp);
	else if (r->verdict == KNOWNHOSTS_REVOKED && r->unreadable)
		what = xasprintf("the host key of '%s' is refused: %s %s, "
		    "because %s:%zu is a @revoked line calops cannot read "
		    "(%s), which might revoke it (fix or remove that line)",
		    name, r->label, r->fp, path, r->line,
		    kh->revoked_bad_why != NULL ? kh->revoked_bad_why : "?");
	else if (r->verdict == KNOWNHOSTS_REVOKED)
		what = xasprintf("the host key of '%s' is revoked: %s %s, by "
		    "the @revoked line %s:%zu", name, r->label, r->fp, path,
		    r->line);
	else
		what = xasprintf("the host key of '%s' is not known: %s %s",
		    name, r->label, r->fp);
	if (r->verdict == KNOWNHOSTS_UNKNOWN && r->ca_line != 0)
		ca = xasprintf("; %s:%zu is a @cert-authority line for it, "
		    "but calops cannot check a host certificate (libssh2 1.10 "
		    "cannot show one), so that line trusts nothing here: the "
		    "host is refused, even with accept_new, until a plain line "
		    "holds its key", path, r->ca_line);
	else if (r->verdict != KNOWNHOSTS_MATCH && r->ca_line != 0)
		ca = xasprintf("; %s:%zu is a @cert-authority line for it, "
		    "which calops does not support", path, r->ca_line);
	knownhosts_errf(buf, len, "%s%s", what, ca != NULL ? ca : "");
	free(what);
	free(ca);
}

size_t
knownhosts_known_types(const struct knownhosts *kh, const char *host,
    int port, const char **types, size_t max)
{
	const struct knownhosts_entry *e;
	char name[NAME_SIZE];
	size_t i, k, n = 0;

	if (!lookup_name(host, port, name))
		return 0;
	for (i = 0; i < kh->nentries && n < max; i++) {
		e = &kh->entries[i];
		if (e->marker != KNOWNHOSTS_MARK_PLAIN || e->cert ||
		    !entry_matches(kh, e, name))
			continue;
		for (k = 0; k < n && types[k] != e->type; k++)
			;
		if (k == n)
			types[n++] = e->type;
	}
	return n;
}

/* Whether a host key method may be offered: not a certificate's, and a
 * name that fits a comma list. */
static bool
method_usable(const char *m)
{
	size_t n = strlen(m), c = sizeof CERT_SUFFIX - 1;

	return n > 0 && strchr(m, ',') == NULL &&
	    !(n >= c && strcmp(m + n - c, CERT_SUFFIX) == 0);
}

static void
pref_add(char **list, const char *m)
{
	char *s;

	if (*list == NULL) {
		*list = xstrdup(m);
		return;
	}
	s = xasprintf("%s,%s", *list, m);
	free(*list);
	*list = s;
}

char *
knownhosts_hostkey_pref(const struct knownhosts *kh, const char *host,
    int port, const char *const *supported, size_t nsupported,
    size_t *nknown)
{
	const char *known[KNOWNHOSTS_TYPES_MAX];
	size_t nk;

	nk = knownhosts_known_types(kh, host, port, known, nitems(known));
	return knownhosts_types_pref(known, nk, supported, nsupported,
	    nknown);
}

char *
knownhosts_types_pref(const char *const *known, size_t nk,
    const char *const *supported, size_t nsupported, size_t *nknown)
{
	const struct khtype *t;
	char *list = NULL;
	bool *used = xcalloc(nsupported + 1, sizeof *used);
	size_t i, j, m, count = 0;

	for (i = 0; i < nk; i++) {
		t = find_type(known[i], strlen(known[i]), NULL);
		for (m = 0; t != NULL && m < nitems(t->methods) &&
		    t->methods[m]; m++)
			for (j = 0; j < nsupported; j++)
				if (!used[j] && strcmp(supported[j],
				    t->methods[m]) == 0) {
					used[j] = true;
					pref_add(&list, supported[j]);
					count++;
				}
	}
	if (nknown != NULL)
		*nknown = count;
	for (j = 0; j < nsupported; j++)
		if (!used[j] && method_usable(supported[j]))
			pref_add(&list, supported[j]);
	free(used);
	return list;
}

/*
 * The verdict of several files read as one (sshconnect.c check_host_key
 * loads them all into one list): a revocation in any wins, then a line
 * holding the key, then one holding another; the file named is the first
 * that says so.
 */
int
knownhosts_check_all(const struct knownhosts *khs, size_t n,
    const char *host, int port, const void *blob, size_t len,
    struct knownhosts_result *r, size_t *which, char *err, size_t errlen)
{
	static const enum knownhosts_verdict order[] = { KNOWNHOSTS_REVOKED,
	    KNOWNHOSTS_MATCH, KNOWNHOSTS_MISMATCH };
	struct knownhosts_result *all = xcalloc(n + 1, sizeof *all);
	struct knownhosts none;
	size_t i, k, ca = SIZE_MAX;
	int rc = 0;

	memset(r, 0, sizeof *r);
	r->verdict = KNOWNHOSTS_UNKNOWN;
	*which = 0;
	for (i = 0; rc == 0 && i < n; i++)
		rc = knownhosts_check(&khs[i], host, port, blob, len, &all[i],
		    err, errlen);
	if (n == 0) {
		/* No file at all (UserKnownHostsFile none and the like):
		 * nothing is known, but the key is still checked. */
		memset(&none, 0, sizeof none);
		rc = knownhosts_check(&none, host, port, blob, len, &all[0],
		    err, errlen);
	}
	for (k = 0; rc == 0 && k < nitems(order); k++)
		for (i = 0; i < n; i++)
			if (all[i].verdict == order[k]) {
				*r = all[i];
				*which = i;
				free(all);
				return 0;
			}
	for (i = 0; rc == 0 && i < n; i++)
		if (all[i].ca_line != 0 && ca == SIZE_MAX)
			ca = i;
	if (rc == 0) {
		*r = all[ca != SIZE_MAX ? ca : 0];
		*which = ca != SIZE_MAX ? ca : 0;
	}
	free(all);
	return rc;
}
