/*
 * knownhosts.h: the host keys an SSH host must show (protocol.md §4), read
 * from an OpenSSH known_hosts file by our own parser: libssh2 1.10's stops
 * at the first line it cannot parse, ignores markers and drops comments
 * when it writes.  The format is sshd(8)'s "SSH_KNOWN_HOSTS FILE FORMAT":
 *
 *	# a comment; blank lines too
 *	lab3.example.net,10.0.0.3 ssh-ed25519 AAAAC3Nza… a comment
 *	[lab4]:2222 ecdsa-sha2-nistp256 AAAAE2Vj…
 *	*.lab.example,!gw.lab.example ssh-rsa AAAAB3Nza…
 *	|1|SALT|HASH ssh-ed25519 AAAAC3Nza…
 *	@revoked * ssh-ed25519 AAAAC3Nza…
 *	@cert-authority *.example.net ssh-ed25519 AAAAC3Nza…
 *
 * A host is looked up by its name, lowercased as ssh(1) does, or by
 * "[name]:port" when its port is not 22.  A line's names are a comma list
 * of patterns ('*' any run of characters, '?' one, compared without case);
 * the line applies when one pattern matches and no "!pattern" does.  A
 * hashed name (ssh-keygen -H, HashKnownHosts) is "|1|" base64(salt) "|"
 * base64(HMAC-SHA1(salt, name)), a 20-byte salt, and stands alone in its
 * field.  These rules are OpenSSH's, to the letter (down to a list with a
 * pattern of 1,023 bytes or more matching nothing): `ssh-keygen -F NAME`
 * lists the lines knownhosts_matches() says apply (tests/unit/
 * test_knownhosts.c compares them on tricky files).
 *
 * A line that cannot be used -- an unknown marker or key type, a key that
 * is not canonical base64 or not the key its type names, a bad hashed
 * name, a NUL byte, a control character or a byte outside ASCII in the
 * names (OpenSSH would take those), a line longer than
 * KNOWNHOSTS_LINE_MAX -- is skipped and remembered with its line and the
 * reason, and reading goes on.  The first KNOWNHOSTS_BAD_MAX of them
 * are kept, the rest only counted.  A file larger than KNOWNHOSTS_MAX_BYTES
 * is not read at all: its verdicts could not be trusted (a @revoked line
 * past the cut), so the host is refused with that message instead.
 *
 * The verdict on a key a server showed (knownhosts_check), in this order:
 * REVOKED when a @revoked line holds the key, whatever names that line
 * gives (stricter than OpenSSH, which revokes it for the names only: a
 * stolen key is stolen everywhere); MATCH when a line for the host holds
 * it; MISMATCH when a line for the host holds another key of the same
 * type (the first such line is named); else UNKNOWN.  A key of another
 * type known for the host does not make a mismatch (the server may lack
 * that type), but is named in the verdict, and the transport asks the
 * server for the known types first (knownhosts_hostkey_pref).  A
 * @cert-authority line is not supported: it is never used to trust a key,
 * and a verdict says when one applies to the host.
 *
 * knownhosts_add (knownhosts_add.c) appends a line for a new key,
 * atomically (a temporary file in the same folder, fsync'ed, renamed over
 * the file, the folder fsync'ed) with every existing byte kept; see there.
 *
 * A struct knownhosts owns its copy of the file, its entries and its bad
 * lines; knownhosts_release frees them.  Key type names handed out are
 * static strings.  Nothing here prints, exits or knows about libssh2: the
 * transport (remote/ssh.c) gives it the key and the names libssh2 takes.
 */
#ifndef CALOPS_KNOWNHOSTS_H
#define CALOPS_KNOWNHOSTS_H

#include "calops.h"

#define KNOWNHOSTS_MAX_BYTES	(16u << 20)	/* the largest file read */
#define KNOWNHOSTS_LINE_MAX	(64u << 10)	/* a longer line is bad */
#define KNOWNHOSTS_BAD_MAX	64		/* bad lines kept */
#define KNOWNHOSTS_HOST_MAX	255		/* a host name, in bytes */
#define KNOWNHOSTS_TYPES_MAX	8		/* key types calops reads */
/* "SHA256:" and 43 unpadded base64 digits, with the NUL. */
#define KNOWNHOSTS_FP_SIZE	51

enum knownhosts_marker {
	KNOWNHOSTS_MARK_PLAIN,
	KNOWNHOSTS_MARK_REVOKED,	/* @revoked */
	KNOWNHOSTS_MARK_CA,		/* @cert-authority: unsupported */
};

/* One usable line. */
struct knownhosts_entry {
	size_t			 line;		/* 1-based */
	enum knownhosts_marker	 marker;
	bool			 hashed;
	size_t			 names_off;	/* its names, in data */
	size_t			 names_len;
	const char		*type;		/* static: "ssh-ed25519" */
	unsigned char		*blob;		/* the key, decoded; owned */
	size_t			 bloblen;
	unsigned char		 salt[20];	/* hashed only */
	unsigned char		 hash[20];
};

struct knownhosts_bad {
	size_t	 line;
	char	*reason;	/* no text from the file but made safe */
};

struct knownhosts {
	char			*path;		/* for messages */
	char			*data;		/* the file's bytes, a NUL */
	size_t			 len;
	struct knownhosts_entry	*entries;
	size_t			 nentries;
	struct knownhosts_bad	*bad;		/* the first BAD_MAX */
	size_t			 nbad;
	size_t			 nbad_total;
	bool			 any_hashed;	/* an entry has a hashed name */
};

/*
 * Read the file at path into *kh (zeroed first).  0; 1 when there is no
 * such file (kh is then empty: nothing is known); -1 with err when it is
 * not a regular file, cannot be read, or is larger than
 * KNOWNHOSTS_MAX_BYTES.  Bad lines are not errors.  The caller calls
 * knownhosts_release either way.
 */
int	 knownhosts_load(struct knownhosts *kh, const char *path, char *err,
	    size_t errlen);
/* The same from len bytes in memory; source names them in messages. */
void	 knownhosts_parse(struct knownhosts *kh, const char *data, size_t len,
	    const char *source);
void	 knownhosts_release(struct knownhosts *kh);

/* Whether entry e's names apply to host at port (0 is 22), as OpenSSH
 * decides it; false for a host name knownhosts_check would refuse. */
bool	 knownhosts_matches(const struct knownhosts *kh,
	    const struct knownhosts_entry *e, const char *host, int port);

enum knownhosts_verdict {
	KNOWNHOSTS_MATCH,
	KNOWNHOSTS_MISMATCH,
	KNOWNHOSTS_REVOKED,
	KNOWNHOSTS_UNKNOWN,
};

struct knownhosts_result {
	enum knownhosts_verdict	 verdict;
	const char		*type;		/* the key's type (static) */
	const char		*label;		/* "ED25519", as ssh says */
	char			 fp[KNOWNHOSTS_FP_SIZE];	/* the key's */
	size_t			 line;		/* MATCH: the line holding it;
						   MISMATCH: the line whose key
						   disagrees; REVOKED: the
						   @revoked line; else 0 */
	char			 known_fp[KNOWNHOSTS_FP_SIZE]; /* MISMATCH:
						   the key at line */
	size_t			 other_line;	/* a line with a key of another
						   type for the host, or 0 */
	size_t			 ca_line;	/* a @cert-authority line for
						   the host, or 0 */
};

/*
 * The verdict on the key blob (SSH wire format, as libssh2_session_hostkey
 * gives it; its type is the one it names) that host at port showed.  0, or
 * -1 with err when host is not a host name calops looks up (1 to
 * KNOWNHOSTS_HOST_MAX printable ASCII bytes, none of blank , * ? ! [ ] | #,
 * not starting with @) or the blob is not a key of a type calops reads.
 */
int	 knownhosts_check(const struct knownhosts *kh, const char *host,
	    int port, const void *blob, size_t len,
	    struct knownhosts_result *r, char *err, size_t errlen);

/*
 * What r means, as one line for the operator (the Hosts screen, a refused
 * host's error): the host, the key's type and fingerprint, and kh's
 * "FILE:LINE" involved; a MISMATCH names the line to remove.  Made safe to
 * show.
 */
void	 knownhosts_explain(const struct knownhosts *kh,
	    const struct knownhosts_result *r, const char *host, int port,
	    char *buf, size_t len);

/*
 * The key types the file holds for host at port (plain lines only), in
 * the order of their first line, at most max of them in types[]; returns
 * how many.  Static strings.
 */
size_t	 knownhosts_known_types(const struct knownhosts *kh,
	    const char *host, int port, const char **types, size_t max);

/*
 * The host key methods to give libssh2_session_method_pref(...,
 * LIBSSH2_METHOD_HOSTKEY, …) for host at port: of supported (the nsupported
 * names libssh2_session_supported_algs gives), first those that verify a
 * key type known for the host (an ssh-rsa key: rsa-sha2-512, rsa-sha2-256,
 * ssh-rsa), in the order of knownhosts_known_types, then the others in
 * supported's order.  Certificate methods (*-cert-v01@openssh.com) are left
 * out: calops does not verify certificates.  A new comma-separated string,
 * and in *nknown (unless NULL) how many of its methods come from known
 * types; NULL when no method is left.
 */
char	*knownhosts_hostkey_pref(const struct knownhosts *kh,
	    const char *host, int port, const char *const *supported,
	    size_t nsupported, size_t *nknown);

/* The key's fingerprint as OpenSSH shows it: "SHA256:" and the unpadded
 * base64 of the SHA-256 of the blob. */
void	 knownhosts_fingerprint(const void *blob, size_t len,
	    char fp[KNOWNHOSTS_FP_SIZE]);

/*
 * Add the key blob for host at port to the file at path, once the
 * operator said yes (or the lab file's accept_new): a line "NAME TYPE
 * BASE64", NAME being "[host]:port" when port is not 22, hashed as
 * `ssh-keygen -H` would when the file already holds a hashed name (Debian's
 * ssh_config turns HashKnownHosts on; a file without one stays readable),
 * after a line feed when the last line had none.  Every existing byte is
 * kept.  The file is re-read here, and a key the file now revokes or that
 * disagrees with it is refused, so that a yes given to an older verdict
 * cannot override a newer one.  Written atomically with the file's mode, or
 * 0600 for a new file, its missing folders made 0700; a symbolic link or
 * anything but a regular file at path is refused, never written through,
 * and the file is read again when another writer changed it meanwhile
 * (looked at just before the rename).  0 when added, 1 when the key was
 * already known for the host (nothing written), -1 with err.
 */
int	 knownhosts_add(const char *path, const char *host, int port,
	    const void *blob, size_t len, char *err, size_t errlen);

#endif
