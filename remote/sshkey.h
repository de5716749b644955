/*
 * sshkey.h: what an identity file is, read before authenticating with it,
 * so that the transport knows whether to ask for a passphrase and can say
 * why a key failed (an RSA key: libssh2 1.10 signs only "ssh-rsa", SHA-1,
 * which OpenSSH 8.8 and later refuse; ssh.c).
 *
 * Two formats: OpenSSH's own ("-----BEGIN OPENSSH PRIVATE KEY-----", the
 * default of ssh-keygen since 7.8: "openssh-key-v1", its cipher name,
 * "none" when not encrypted, then the public key in the clear, which names
 * the type) and PEM ("BEGIN RSA/EC/DSA PRIVATE KEY", encrypted when it has
 * "Proc-Type: 4,ENCRYPTED"; "BEGIN ENCRYPTED PRIVATE KEY", PKCS#8).
 *
 * The file's bytes are private key material: sshkey_wipe clears and frees
 * them; nothing here prints them.
 */
#ifndef CALOPS_SSHKEY_H
#define CALOPS_SSHKEY_H

#include "calops.h"

#define SSHKEY_MAX_BYTES	(64u << 10)	/* a larger file is no key */

struct sshkey_info {
	const char	*type;		/* "ssh-ed25519", "ecdsa-sha2-nistp256",
					   "ssh-rsa", …; NULL: not known */
	bool		 encrypted;
	bool		 rsa;
};

/*
 * Read the private key file at path: 0 with its bytes in *data (a NUL
 * after them, *len not counting it; sshkey_wipe them) and what it is in
 * *info; -1 with err when it cannot be read, is not a regular file, is
 * larger than SSHKEY_MAX_BYTES or is no private key in either format.
 */
int	 sshkey_read(const char *path, char **data, size_t *len,
	    struct sshkey_info *info, char *err, size_t errlen);
/* What the len bytes of a key file are, a NUL after them (sshkey_read's
 * check alone); -1 with err when they are no private key. */
int	 sshkey_inspect(const char *data, size_t len, struct sshkey_info *info,
	    char *err, size_t errlen);
/* Clear len bytes at p and free p (NULL: nothing). */
void	 sshkey_wipe(char *p, size_t len);

#endif
