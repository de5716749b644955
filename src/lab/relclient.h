/*
 * relclient.h: the console's side of a workspace's release (share/doc/
 * release.md §5), for the Release screen.  Every host is reached the same
 * way, this machine included: the headless `calops release …` runs there
 * through the host's transport, and the approver's key stays here.
 *
 * relclient_refresh() fetches `release status --json` (the generations,
 * each with its manifest) and `release audit --json` (the chain and its
 * last records).  An approval is one `release apply WS --hold N --json`
 * on the host: it takes the release lock at once (a second approver is
 * refused and told who holds it), says the state under the lock, verifies
 * N with progress, and waits; relclient_sign() builds the audit record
 * from that state, signs it here and sends it on the command's stdin.
 * When N did not verify, the record signed is a `refused` one, so the
 * attempt is on the log.  Giving the approval up (relclient_cancel) stops
 * that command: the host lets go of the lock, nothing changed.
 *
 * No ncurses here: the screen reads the state and draws it.
 */
#ifndef CALOPS_RELCLIENT_H
#define CALOPS_RELCLIENT_H

#include "calops.h"

#include <jansson.h>


struct transport;
struct relclient;
struct relchip;

struct relclient_cb {
	/* Something to show changed (a fetch ended, progress, a result). */
	void	(*changed)(void *arg);
	/* `current` moved on the host: the board is evaluated again. */
	void	(*switched)(void *arg);
};

enum relapproval_phase {
	RA_NONE,
	RA_LOCKING,		/* apply --hold started, nothing said yet */
	RA_VERIFYING,		/* the lock is held, N being hashed */
	RA_READY,		/* verified (or not): the owner decides */
	RA_SENDING,		/* the signed record went; the host acts */
	RA_DONE,		/* ended: result and message say how */
};

struct relapproval {
	enum relapproval_phase	 phase;
	char			 action[16];	/* promote, rollback */
	long			 to;
	/* Under the lock: where `current` points, the log's next seq and
	 * its last line's SHA-256, which the record is built on. */
	long			 from;		/* -1: none */
	long long		 next_seq;
	char			 head[65];
	uint64_t		 done, total;	/* hashing, in bytes */
	bool			 verified;	/* RA_READY on: verifies */
	bool			 bound;		/* its bindings were checked */
	char			 problem[512];	/* why it does not */
	/* The verdict's words (relverdict.h), as the host says them; ""
	 * from a host whose calops says none. */
	char			 words[512];
	/* RA_DONE: ok, refused, locked, stale, bad, error, cancelled, or
	 * lost (the link went; the host may or may not have acted). */
	char			 result[16];
	char			 message[768];
	bool			 sent_refusal;	/* the record was `refused` */
	/* whether the host takes relclient_mark() (its held line says) */
	bool			 marks;
};

/* ws on the host t reaches (t borrowed: it outlives the client). */
struct relclient *relclient_new(struct transport *t, const char *ws,
		    const struct relclient_cb *cb, void *arg);
/* Cancels what runs (an open approval lets go of the lock). */
void		 relclient_free(struct relclient *rc);

/* The host's name, as the lab file gives it. */
const char	*relclient_host(const struct relclient *rc);

/* Fetch the state again (once at a time: asked while it runs, it runs
 * once more after). */
void		 relclient_refresh(struct relclient *rc);
bool		 relclient_loading(const struct relclient *rc);
/* The last calops-release-status/v1 and calops-release-audit/v1 objects
 * fetched (borrowed), or NULL; and why the last fetch failed, or "". */
const json_t	*relclient_status(const struct relclient *rc);
const json_t	*relclient_audit(const struct relclient *rc);
const char	*relclient_error(const struct relclient *rc);

/* Start approving action (promote, rollback) to generation to, as actor
 * (for the lock's holder line); 0, or -1 with err (one is open). */
int		 relclient_begin(struct relclient *rc, const char *action,
		    long to, const char *actor, char *err, size_t errlen);
const struct relapproval *relclient_approval(const struct relclient *rc);
/* RA_READY: the chip step's job started (job on host, chip), approved
 * with key_id: the host writes its marker (release.md §2, a chip step cut
 * short), which stays if this console goes before its record.  0, or -1
 * with err. */
int		 relclient_mark(struct relclient *rc, const char *job,
		    const char *host, int chip, const char *key_id, char *err,
		    size_t errlen);
/* RA_READY: sign the record with key (relkey.h), whose trusted name on
 * the host is key_id, and send it; the action itself, carrying chip (its
 * chip_step, relrecord.h; NULL: none) when the target verified, else a
 * refusal giving its reason; refusal (not NULL: a chip step that failed)
 * makes it a refusal with that reason.  0, or -1 with err. */
int		 relclient_sign(struct relclient *rc, const void *key,
		    const char *key_id, const char *actor, const char *reason,
		    const struct relchip *chip, const char *refusal, char *err,
		    size_t errlen);
/* Give up the approval: nothing is signed, the command on the host is
 * stopped and the lock let go with it; RA_NONE again (the result of one
 * done is forgotten too).  Once the record went (RA_SENDING) there is
 * nothing to give up: the host's answer is awaited. */
void		 relclient_cancel(struct relclient *rc);
/* Who may sign, as {name, ed25519} (borrowed): as the host said them
 * under the lock once it holds it, else as the last status said. */
const json_t	*relclient_trusted_keys(const struct relclient *rc);

#endif
