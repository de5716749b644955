/* keyring.c: Ed25519 verification against a ring of trusted keys
 * (keyring.h). */
#include "calops.h"

#include <ctype.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "release/keyring.h"

/*
 * An Ed25519 public key in the one form `openssl pkey -pubout` writes it:
 * the PEM armour around the base64 of the 12 bytes of its
 * SubjectPublicKeyInfo and the 32 of the key.  Made from the raw key, which
 * costs nothing next to OpenSSL's PEM decoders (about a millisecond each,
 * a rollback's time: issue 31); NULL for any other form, which they read.
 */
static EVP_PKEY *
ed25519_pem(const char *pem, size_t len)
{
	static const char head[] = "-----BEGIN PUBLIC KEY-----\n";
	static const char tail[] = "\n-----END PUBLIC KEY-----";
	static const unsigned char spki[12] = { 0x30, 0x2a, 0x30, 0x05, 0x06,
	    0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00 };
	unsigned char der[64];
	size_t body = sizeof head - 1;

	while (len > 0 && (pem[len - 1] == '\n' || pem[len - 1] == '\r'))
		len--;
	if (len != body + 60 + sizeof tail - 1 ||
	    memcmp(pem, head, body) != 0 ||
	    memcmp(pem + body + 60, tail, sizeof tail - 1) != 0)
		return NULL;
	if (keyring_base64_decode(pem + body, 60, der, sizeof der) != 44 ||
	    memcmp(der, spki, sizeof spki) != 0)
		return NULL;
	return EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL,
	    der + sizeof spki, 32);
}

int
keyring_add_pem(struct keyring *kr, const char *name, const char *pem,
    size_t len, char *err, size_t errlen)
{
	EVP_PKEY *pkey;
	BIO *bio;

	if ((pkey = ed25519_pem(pem, len)) != NULL)
		goto add;
	if (len > INT_MAX || (bio = BIO_new_mem_buf(pem, (int)len)) == NULL) {
		errbuf_set(err, errlen, "key '%s' cannot be read", name);
		return -1;
	}
	pkey = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (pkey == NULL) {
		errbuf_set(err, errlen, "key '%s' is not a PEM public key", name);
		return -1;
	}
	if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_ED25519) {
		errbuf_set(err, errlen, "key '%s' is not an Ed25519 key", name);
		EVP_PKEY_free(pkey);
		return -1;
	}
add:
	kr->keys = xreallocarray(kr->keys, kr->n + 1, sizeof *kr->keys);
	kr->keys[kr->n].name = xstrdup(name);
	kr->keys[kr->n].pkey = pkey;
	kr->n++;
	return 0;
}

void
keyring_release(struct keyring *kr)
{
	size_t i;

	for (i = 0; i < kr->n; i++) {
		free(kr->keys[i].name);
		EVP_PKEY_free(kr->keys[i].pkey);
	}
	free(kr->keys);
	memset(kr, 0, sizeof *kr);
}

/* The value of a base64 digit (RFC 4648 §4), or -1. */
static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Strict and canonical: groups of four digits, '=' only as the padding of
 * the last group and zero bits under it, so one signature has one spelling.
 * (OpenSSL's EVP decoder stops silently at a '-' and skips blanks inside.)
 */
long
keyring_base64_decode(const char *in, size_t len, unsigned char *out,
    size_t outlen)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i, o = 0, pad = 0;
	uint32_t group;
	int k, v;

	while (len > 0 && isspace(p[len - 1]))
		len--;
	if (len == 0 || len % 4 != 0 || len > LONG_MAX)
		return -1;
	if (p[len - 1] == '=')
		pad = p[len - 2] == '=' ? 2 : 1;
	if (outlen < len / 4 * 3 - pad)
		return -1;
	for (i = 0; i < len; i += 4) {
		group = 0;
		for (k = 0; k < 4; k++) {
			if (i + k >= len - pad)
				v = 0;
			else if ((v = b64_value(p[i + k])) == -1)
				return -1;
			group = group << 6 | (uint32_t)v;
		}
		out[o++] = group >> 16;
		if (i + 4 < len || pad < 2)
			out[o++] = (group >> 8) & 0xff;
		if (i + 4 < len || pad < 1)
			out[o++] = group & 0xff;
	}
	if ((pad == 1 && (group & 0xff) != 0) ||
	    (pad == 2 && (group & 0xffff) != 0))
		return -1;
	return (long)o;
}

static bool
verify_one(EVP_PKEY *pkey, const void *msg, size_t len,
    const unsigned char *sig, size_t siglen)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	bool ok;

	if (ctx == NULL)
		fatal("out of memory for a signature check");
	ok = EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pkey) == 1 &&
	    EVP_DigestVerify(ctx, sig, siglen, msg, len) == 1;
	EVP_MD_CTX_free(ctx);
	return ok;
}

const char *
keyring_verify(const struct keyring *kr, const char *only, const void *msg,
    size_t len, const char *sig_b64, size_t siglen)
{
	unsigned char sig[256];
	long n;
	size_t i;

	if (siglen > 200 || (n = keyring_base64_decode(sig_b64, siglen, sig,
	    sizeof sig)) != 64)
		return NULL;
	for (i = 0; i < kr->n; i++) {
		if (only != NULL && strcmp(only, kr->keys[i].name) != 0)
			continue;
		if (verify_one(kr->keys[i].pkey, msg, len, sig, 64))
			return kr->keys[i].name;
	}
	return NULL;
}
