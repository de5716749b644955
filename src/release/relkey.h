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
/* The same with the passphrase given (the console asked it): pass NULL
 * when none was asked yet, and an encrypted key is then NULL with
 * *wants_pass set, to ask and load again.  The caller wipes pass. */
void	*relkey_load_pass(const char *path, const char *pass,
	    bool *wants_pass, char *err, size_t errlen);
void	 relkey_free(void *key);
/* The trusted key whose public half is key's, or NULL. */
const char *relkey_trusted_name(const struct keyring *kr, const void *key);
/* base64 of the raw Ed25519 public key of key (a private or a public
 * one: an EVP_PKEY), a new string; NULL for another kind.  The status
 * says the trusted keys so, for a console to match its approver's key
 * against a host's trusted-keys/ before anything is signed. */
char	*relkey_public_b64(const void *key);
/* base64 of key's Ed25519 signature over msg (a new string), or NULL. */
char	*relkey_sign(const void *key, const void *msg, size_t len);

#endif
