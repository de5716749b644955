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
 * Lines are read as OpenSSH 9.2's hostfile.c hostkeys_foreach reads
 * them: of any length, each a C string (a NUL ends it, in a comment or
 * anywhere), a trailing CR dropped; names holding control characters or
 * bytes outside ASCII are taken (they match no name calops looks up).  A
 * key type is read plain or as its certificate (*-cert-v01@openssh.com,
 * PROTOCOL.certkeys), whose certified key is kept beside it.  A line
 * OpenSSH skips too -- an unknown marker or key type, a key that is not
 * canonical base64 or not the key its type names, a bad hashed name -- is
 * skipped and remembered with its line and the reason, and reading goes
 * on.  The first KNOWNHOSTS_BAD_MAX of them are kept, the rest only
 * counted.  But a @revoked line that cannot be read is never skipped
 * quietly: it could revoke any key, so every key judged against the file
 * is refused (REVOKED, unreadable set), naming the line, until it is
 * fixed.  A file larger than KNOWNHOSTS_MAX_BYTES is not read at all: its
 * verdicts could not be trusted (a @revoked line past the cut), so the
 * host is refused with that message instead.
 *
 * The verdict on a key a server showed (knownhosts_check) is OpenSSH's
 * (hostfile.c check_hostkeys_by_key_or_type and check_key_not_revoked, as
 * sshconnect.c check_host_key uses them), over the lines whose names
 * apply to the host:
 *  - REVOKED when a @revoked line holds the key, or a certificate of it
 *    (sshkey_equal_public: a certificate stands for the key it
 *    certifies); it wins over everything.  Stricter than OpenSSH: the
 *    line applies whatever names it gives (OpenSSH: for them only; a
 *    stolen key is stolen everywhere), and an unreadable one refuses all.
 *  - MATCH when a plain line (no marker) holds the key (sshkey_equal: a
 *    certificate is never the plain key a server shows); the first such
 *    line is named.
 *  - MISMATCH (ssh's "REMOTE HOST IDENTIFICATION HAS CHANGED") when a
 *    plain line holds another key, of any type; the last such line and
 *    its key's type are named, as ssh's "Offending ECDSA key in
 *    FILE:LINE".  A server that lacks the known type is refused: the
 *    transport asks for the known types first (knownhosts_hostkey_pref,
 *    OpenSSH's order_hostkeyalgs) so that one that has it shows it.
 *  - else UNKNOWN.  accept_new (sshconnect.c: StrictHostKeyChecking
 *    accept-new adds only a HOST_NEW key) adds a key only then: never
 *    when a key of any type is known, never past a revocation.
 * A @cert-authority line is not supported (libssh2 1.10 cannot show a host
 * certificate): it never trusts a key, a verdict names it, and a host it
 * applies to is never added by knownhosts_add (ssh accept-new would add
 * it; calops will not pin a key around the CA): the operator is told to
 * add a plain line.
 *
 * A host has several files, as in ssh (sshhost.h: each UserKnownHostsFile,
 * each GlobalKnownHostsFile, the lab's); each is read into a struct
 * knownhosts of its own, and knownhosts_check_all judges them as the one
 * list ssh's check_host_key makes of them.
 *
 * knownhosts_add (knownhosts_add.h) appends a line for a new key,
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
	const char		*type;		/* static: "ssh-ed25519", also
						   for its certificate */
	const char		*label;		/* static: "ED25519-CERT" */
	bool			 cert;		/* a certificate */
	unsigned char		*blob;		/* the key, decoded; owned */
	size_t			 bloblen;
	unsigned char		*pub;		/* the plain key: blob, or for
						   a certificate the key it
						   certifies (owned) */
	size_t			 publen;
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
	size_t			 revoked_bad_line; /* the first @revoked line
						   that cannot be read, or 0 */
	char			*revoked_bad_why; /* why; owned, made safe */
};

/*
 * Read the file at path into *kh (zeroed first).  0; 1 when there is no
 * such file (kh is then empty: nothing is known; the null device reads
 * empty too, as UserKnownHostsFile /dev/null); -1 with err when it is
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
	bool			 unreadable;	/* REVOKED: line is a @revoked
						   line calops cannot read */
	char			 known_fp[KNOWNHOSTS_FP_SIZE]; /* MISMATCH:
						   the key at line */
	const char		*known_label;	/* MISMATCH: its type, as ssh
						   says it ("ECDSA"; static) */
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

/* knownhosts_hostkey_pref for a list of known types already made (from
 * several files: knownhosts_known_types of each, each type once). */
char	*knownhosts_types_pref(const char *const *known, size_t nk,
	    const char *const *supported, size_t nsupported, size_t *nknown);

/*
 * knownhosts_check over the n files khs (ssh reads the user's and the
 * system's known_hosts files as one list, sshconnect.c check_host_key):
 * REVOKED in any file wins, then MATCH in any, then MISMATCH in any, else
 * UNKNOWN (ca_line from the first file with a @cert-authority line for the
 * host).  *which is the file r speaks of, for knownhosts_explain; n may be
 * 0 (nothing known).  0, or -1 with err as knownhosts_check.
 */
int	 knownhosts_check_all(const struct knownhosts *khs, size_t n,
	    const char *host, int port, const void *blob, size_t len,
	    struct knownhosts_result *r, size_t *which, char *err,
	    size_t errlen);

/* The key's fingerprint as OpenSSH shows it: "SHA256:" and the unpadded
 * base64 of the SHA-256 of the blob. */
void	 knownhosts_fingerprint(const void *blob, size_t len,
	    char fp[KNOWNHOSTS_FP_SIZE]);


#endif
