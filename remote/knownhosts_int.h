/*
 * knownhosts_int.h: what knownhosts.c (reading a file, judging a key) and
 * knownhosts_add.c (adding a key to a file) share.  Not a public contract:
 * only those two files include it.
 */
#ifndef CALOPS_KNOWNHOSTS_INT_H
#define CALOPS_KNOWNHOSTS_INT_H

#include "remote/knownhosts.h"

#define HASH_MAGIC	"|1|"
#define HASH_LEN	20		/* SHA-1: a hashed name's salt, hash */
#define NAME_SIZE	(KNOWNHOSTS_HOST_MAX + 9)	/* "[h]:65535" */

/*
 * A key type calops reads: how many strings a blob of the type holds after
 * its name, the first one's length or value where it is fixed, and the
 * host key methods that verify a key of the type.
 */
struct khtype {
	const char	*name;
	const char	*label;
	int		 nfields;
	size_t		 keylen;	/* of the first field; 0: any */
	const char	*curve;		/* the first field; NULL: any */
	const char	*methods[3];
	const char	*cert;		/* its certificate's type */
	const char	*cert_label;	/* "ED25519-CERT", as ssh says */
};

/* A message into buf, made safe to show: it quotes names from files. */
void		 knownhosts_errf(char *buf, size_t len, const char *fmt, ...)
		    PRINTFLIKE(3, 4);
/* A message from elsewhere (fileio, docfile: they quote the path as it
 * is) made safe to show, in place. */
void		 knownhosts_errsafe(char *err, size_t errlen);
/* len bytes as padded base64, a new string. */
char		*knownhosts_b64_encode(const void *in, size_t len);
bool		 knownhosts_hmac_sha1(const unsigned char salt[HASH_LEN],
		    const char *name, unsigned char md[HASH_LEN]);
/*
 * The name host at port is looked up by, in name, and the type of the key
 * blob (static); NULL with err when either is refused (what says what
 * calops does with known_hosts, for the message: "looks up in").
 */
const struct khtype *knownhosts_prepare(const char *host, int port,
		    const void *blob, size_t len, const char *what,
		    char name[NAME_SIZE], char *err, size_t errlen);
/* The verdict on the key blob of type t for the lookup name, in *r. */
void		 knownhosts_judge(const struct knownhosts *kh,
		    const char *name, const void *blob, size_t len,
		    const struct khtype *t, struct knownhosts_result *r);

#endif
