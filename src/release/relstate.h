/*
 * relstate.h: a workspace's release state as the release commands act on
 * it (share/doc/release.md §1-§4): its generations and whether each
 * verifies, the revocations, where `current` points, and the audit log's
 * head.  Read through one descriptor of 08-release/, opened without
 * following a link, and every name under it opened the same way: a
 * generation folder, a manifest or a key that is a symbolic link is never
 * trusted.
 *
 * G10 (g10_release.c) judges the same files for the board; this is the
 * side that moves `current` (relswitch.h), so it also says why a
 * generation cannot be a target, in words fit for the release owner.
 */
#ifndef CALOPS_RELSTATE_H
#define CALOPS_RELSTATE_H

#include "calops.h"

#include <jansson.h>

#include "release/keyring.h"
#include "release/relaudit.h"
#include "release/relpending.h"
#include "release/relverdict.h"

#define RELSTATE_DIR	"08-release"
#define RELSTATE_TAIL	200

struct relgen {
	long		 n;
	char		*manifest;	/* its exact bytes, or NULL */
	size_t		 manifest_len;
	json_t		*doc;		/* parsed, an object; or NULL */
	const char	*signer;	/* the trusted key that verified it */
	bool		 revoked;
	long		 previous;	/* previous_generation, or -1 */
	double		 window_h;	/* observation_window_h, or NAN */
	/* What is wrong with its manifest or signature ("" when nothing). */
	char		 problem[256];
	/* Its verdict (relstate_verdict()): read with the state, but for the
	 * candidate's bindings, which relstate_judge() adds; until then the
	 * candidate does not verify. */
	struct relverdict verdict;
};

struct relstate {
	char		*ws;		/* the workspace root */
	int		 dirfd;		/* 08-release/, or -1 */
	struct keyring	 kr;
	char		 keys_problem[256];	/* "" when every key read */
	struct relgen	*gens;		/* ascending */
	size_t		 ngens;
	/* revocations.json: absent (none revoked), trusted, or not */
	bool		 revocations_present, revocations_ok;
	/* a revocation a crash cut between its two renames (relrevoke.h) */
	bool		 revocation_cut;
	char		 revocations_problem[256];
	long		 candidate;	/* highest not revoked, or -1 */
	long		 current;	/* where `current` points, or -1 */
	char		 current_link[256];	/* what it says, "" when none */
	char		 current_problem[256];	/* "" when it points well */
	bool		 audit_present;
	bool		 audit_ok;
	struct audit_state audit;
	/* The log's last RELSTATE_TAIL lines as calops-release-audit/v1's
	 * records say them, oldest first (an array, never NULL once read;
	 * empty when skip_tail). */
	json_t		*audit_tail;
	/* A promote cut short during its chip step (relpending.h): its
	 * marker, read with the state; pending_problem when it is there but
	 * cannot be read (still a promote cut short). */
	bool		 pending;
	bool		 pending_stale;	/* its switch is the log's last */
	/* The release lock is this process's (relswitch_lock()): a marker
	 * it reads is not its own yet, and no one else's is live.  Kept by
	 * relstate_reload(). */
	bool		 holds_lock;
	struct relpending pend;
	char		 pending_problem[256];
	/* Set after relstate_open() by a command that acts and shows no
	 * records (promote, rollback, revoke, apply): parsing 200 of them
	 * is time a rollback does not have.  Kept by relstate_reload(). */
	bool		 skip_tail;
};

/*
 * Read the release state of workspace ws.  0; or -1 with err when there is
 * no 08-release/ folder to act in (missing, not a folder, a link), and
 * nothing held (relstate_release() is then harmless, not needed).
 * Everything else that is wrong is in the state, for the caller to say.
 */
int	relstate_load(struct relstate *st, const char *ws, char *err,
	    size_t errlen);
/* Only open 08-release/, reading nothing yet: to take the lock first
 * (relswitch_lock()) and then read it once (relstate_reload()). */
int	relstate_open(struct relstate *st, const char *ws, char *err,
	    size_t errlen);
void	relstate_release(struct relstate *st);
/* Only the trusted keys (st->kr): who may act, before the lock. */
void	relstate_read_keys(struct relstate *st);
/* Read it (again). */
int	relstate_reload(struct relstate *st, char *err, size_t errlen);

/* The bytes of rel, a regular file under 08-release/ of at most 1 MiB
 * (no link followed on the way), NUL-ended; NULL with errno. */
char	*relstate_read(const struct relstate *st, const char *rel,
	    size_t *len);

/* Generation n, or NULL when there is no such folder. */
const struct relgen *relstate_gen(const struct relstate *st, long n);
/*
 * THE verdict on generation n (relverdict.h), for every release command:
 * its signature and revocation as read and, when n is the candidate and
 * both hold, its bindings as fn judges them (fn NULL: not asked, and the
 * candidate does not verify).  v is initialised here; relverdict_release()
 * it.  -1 when there is no generation n (v->problem says so).
 */
int	relstate_verdict(const struct relstate *st, long n,
	    relverdict_bindings_fn fn, void *arg, struct relverdict *v);
/* Every generation's verdict again, into its relgen: what the status
 * shows, the candidate's bindings judged by fn. */
void	relstate_judge(struct relstate *st, relverdict_bindings_fn fn,
	    void *arg);
/* Whether generation n's signature and revocation let it be pointed at,
 * its bindings aside (where `current` points); why not in why. */
bool	relstate_target_ok(const struct relstate *st, long n, char *why,
	    size_t whylen);
/* The generation a rollback goes to by default: current's
 * previous_generation, or -1 (why says why). */
long	relstate_rollback_target(const struct relstate *st, char *why,
	    size_t whylen);
/* Whether the log is ahead of `current` as a crash between the append and
 * the rename leaves it: its last switch names another generation, and
 * `current` is that switch's from (or missing, dangling, outside). */
bool	relstate_behind_log(const struct relstate *st);
/* Whether the log's last switch and `current` disagree in a way no crash
 * leaves (a cut log, a link moved by hand): said, never "repaired". */
bool	relstate_disagrees(const struct relstate *st);

/*
 * The observation window (release.md §6): while `current` (the log's last
 * switch) is inside its manifest's observation_window_h, counted from that
 * switch's ts, the generation it replaced is kept.  Whether one is, at
 * Unix time now: its number in *gen and the end of the window in *until.
 */
bool	relstate_kept(const struct relstate *st, double now, long *gen,
	    double *until);
/* Unix time t as "2026-12-06T10:15:00Z" into buf, the words "kept
 * until" take. */
void	relstate_iso(double t, char *buf, size_t len);

/* A promote cut short (st->pending), in words for the status and a
 * refusal; and as the status's JSON "interrupted" (null when none). */
void	 relstate_pending_words(const struct relstate *st, char *buf,
	    size_t len);
json_t	*relstate_pending_json(const struct relstate *st);

/* Who may approve: [{name, ed25519}], each trusted key's name and raw
 * public key in base64 (a new array). */
json_t	*relstate_trusted_keys_json(const struct relstate *st);
/* The status as JSON (share/doc/release.md §6, calops-release-status/v1),
 * each generation with its verdict as it stands in the state. */
json_t	*relstate_json(const struct relstate *st);

#endif
