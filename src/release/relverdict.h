/*
 * relverdict.h: one verdict per generation (share/doc/release.md §2):
 * whether generation N may go live, in parts and in words that every
 * caller shows alike: `calops release status` and `verify`, the switch
 * (relswitch.h), the Release screen and its approval (which read them from
 * the host's JSON) and gate G10.
 *
 * The parts: the manifest's signature (by a trusted key, by none, or no
 * manifest to check), whether the generation is revoked (or not known:
 * revocations.json does not verify), and, for the candidate only, its
 * bindings against today's artifacts, each one that does not hold named.
 * It verifies when the signature is a trusted key's, it is known not to be
 * revoked, and its bindings match or are not its to check.  Before, each
 * caller judged its own subset and the status said "verifies" of a
 * candidate whose bound report had changed; now relverdict_judge() is the
 * one rule and relverdict_words() the one way to say it.
 *
 * The release layer does not hash through the gate engine:
 * relverdict_bindings() judges a manifest's bindings with today's values
 * asked of the caller (struct relverdict_today).  G10 asks its own
 * evaluation; the release commands an evaluation of theirs, through
 * g10_release_bindings(), with the hash cache (status) or every byte hashed
 * (verify and the switch).
 *
 * A struct relverdict owns its changes; relverdict_release() frees them.
 */
#ifndef CALOPS_RELVERDICT_H
#define CALOPS_RELVERDICT_H

#include "calops.h"

#include <jansson.h>

#include "ws/hash.h"

/* At most this many changed bindings are kept; the rest are counted. */
#define RELVERDICT_CHANGES_MAX	100

enum relverdict_sig {
	RV_SIG_OK,		/* signed by a trusted key */
	RV_SIG_UNTRUSTED,	/* no signature a trusted key verifies */
	RV_SIG_UNREADABLE,	/* no manifest to verify */
};

enum relverdict_rev {
	RV_REV_NO,
	RV_REV_YES,
	RV_REV_UNKNOWN,		/* revocations.json does not verify */
};

enum relverdict_bind {
	RV_BIND_NOT_CHECKED,	/* not the candidate, or not asked */
	RV_BIND_MATCH,
	RV_BIND_CHANGED,	/* changes[] says which */
	RV_BIND_NOT_JUDGED,	/* they could not be: bind_why says why */
};

/* How a binding does not hold. */
enum relverdict_kind {
	RVC_CHANGED,		/* today's hash is another */
	RVC_GONE,		/* the artifact bound no longer exists */
	RVC_UNBOUND,		/* the manifest binds nothing there */
	RVC_BAD_PATH,		/* a report's path leads outside */
};

/* A binding that does not hold: what it binds (a workspace file, or what
 * a hash stands for), where in the manifest (a JSON pointer), and why, in
 * G10's words. */
struct relverdict_change {
	enum relverdict_kind kind;
	char		*what;
	char		*ptr;
	char		*message;
};

struct relverdict {
	long		 n;
	bool		 candidate;
	enum relverdict_sig sig;
	char		 signer[128];	/* the trusted key; "" when none */
	enum relverdict_rev rev;
	enum relverdict_bind bind;
	bool		 cached;	/* bindings hashed through the cache */
	struct relverdict_change *changes;
	size_t		 nchanges, more;	/* kept, and past the cap */
	/* Why each part fails, "" while it holds. */
	char		 sig_why[256], rev_why[256], bind_why[512];
	/* relverdict_judge(): the verdict, and why not in one sentence. */
	bool		 verifies;
	char		 problem[512];
};

/* Today's values of what a manifest binds, as the caller reads them.  Each
 * returns NULL when the artifact is gone or unreadable. */
struct relverdict_today {
	/* A workspace file's SHA-256, into hex. */
	const char	*(*file)(void *arg, const char *rel,
			    char hex[HASH_HEX_LEN + 1]);
	/* A workspace folder's tree hash, into hex. */
	const char	*(*tree)(void *arg, const char *rel,
			    char hex[HASH_HEX_LEN + 1]);
	/* The string member k1 (k1.k2 when k2 is not NULL) of a JSON
	 * artifact (borrowed until the caller's evaluation ends). */
	const char	*(*member)(void *arg, const char *rel, const char *k1,
			    const char *k2);
	/* A report's path, relative to the manifest's folder, made
	 * workspace-relative: 0 with *rel (a new string); 1 for a content
	 * URI, which binds no file here; -1 when it leads outside (why in
	 * err). */
	int		 (*join)(void *arg, const char *ptr, const char *path,
			    char **rel, char *err, size_t errlen);
	/* Why the last file, tree or member asked for was not found, when
	 * it is not simply gone ("'…' cannot be parsed: …"); NULL or ""
	 * otherwise.  May be NULL itself. */
	const char	*(*why)(void *arg);
};

/* Judge the bindings of generation n of the manifest (as G10 does its
 * candidate's).  Returns 0 with v->bind, -1 when nothing can be judged. */
typedef int	(*relverdict_bindings_fn)(void *arg, long n,
		    const json_t *manifest, struct relverdict *v);

/* A verdict with no part judged yet: signature untrusted, not revoked,
 * bindings not checked. */
void	 relverdict_init(struct relverdict *v, long n, bool candidate);
void	 relverdict_release(struct relverdict *v);

/* Set a part; why says why it fails (ignored when it holds). */
void	 relverdict_signature(struct relverdict *v, enum relverdict_sig sig,
	    const char *signer, const char *why);
void	 relverdict_revocation(struct relverdict *v, enum relverdict_rev rev,
	    const char *why);
void	 relverdict_not_judged(struct relverdict *v, const char *why);
/* The bindings of v's copy from another verdict of the same generation
 * (one judged a moment ago, under the same lock). */
void	 relverdict_copy_bindings(struct relverdict *dst,
	    const struct relverdict *src);

/*
 * Judge every binding of manifest (a release-manifest.json object) against
 * today's values, in G10's order and words: tokenizer, ONNX, quant config,
 * calibration manifest, compiler container, calbin tree, then the reports.
 * v->bind becomes RV_BIND_MATCH or RV_BIND_CHANGED.
 */
void	 relverdict_bindings(struct relverdict *v, const json_t *manifest,
	    const struct relverdict_today *today, void *arg);

/* The rule: verifies, and problem (the first part that fails). */
void	 relverdict_judge(struct relverdict *v);
/*
 * The words: "verifies" or "does not verify", then its parts, those that
 * fail first: "does not verify: bindings changed: 02-onnx/model.onnx;
 * signed by a trusted key; not revoked".
 */
void	 relverdict_words(const struct relverdict *v, char *buf, size_t len);
/* The verdict as calops-release-status/v1 carries it (release.md §6). */
json_t	*relverdict_json(const struct relverdict *v);

#endif
