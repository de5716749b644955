/*
 * keyring.h: Ed25519 signatures with OpenSSL, as release.md uses them: PEM
 * public keys in trusted-keys/, base64 signatures over exact bytes.
 *
 * A struct keyring owns its keys; keyring_release frees them.
 */
#ifndef CALOPS_KEYRING_H
#define CALOPS_KEYRING_H

#include "calops.h"

struct trusted_key {
	char	*name;		/* file name without .pub: the audit key_id */
	void	*pkey;		/* EVP_PKEY * */
};

struct keyring {
	struct trusted_key	*keys;
	size_t			 n;
};

/* Add a PEM public key; returns 0, or -1 with err set (not PEM, not
 * Ed25519). */
int	 keyring_add_pem(struct keyring *kr, const char *name, const char *pem,
	    size_t len, char *err, size_t errlen);
void	 keyring_release(struct keyring *kr);

/*
 * Verify a base64 signature (whitespace at its end ignored) over msg with
 * any key of the ring, or only with the key named `only` when not NULL.
 * Returns the name of the key that verified (borrowed), or NULL.
 */
const char *keyring_verify(const struct keyring *kr, const char *only,
	    const void *msg, size_t len, const char *sig_b64, size_t siglen);

/* Decode base64 (no line breaks inside); returns the length or -1. */
long	 keyring_base64_decode(const char *in, size_t len, unsigned char *out,
	    size_t outlen);

#endif
