/*
 * relkey.h: the approver's Ed25519 private key (share/doc/release.md §2):
 * read from a PEM file, its passphrase asked without echo and wiped;
 * matched against the trusted keys; signing.
 */
#ifndef CALOPS_RELKEY_H
#define CALOPS_RELKEY_H

#include "calops.h"

#include "release/keyring.h"

/*
 * The approver's Ed25519 private key (PEM) at path.  When it is encrypted
 * the passphrase is read from passfd (up to a newline) when it is not -1,
 * else asked on the terminal without echo; it is wiped once the key is
 * read.  NULL with err: a wrong passphrase, an RSA key, an OpenSSH key,
 * not a key.
 */
void	*relkey_load(const char *path, int passfd, char *err, size_t errlen);
void	 relkey_free(void *key);
/* The trusted key whose public half is key's, or NULL. */
const char *relkey_trusted_name(const struct keyring *kr, const void *key);
/* base64 of key's Ed25519 signature over msg (a new string), or NULL. */
char	*relkey_sign(const void *key, const void *msg, size_t len);

#endif
