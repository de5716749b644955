/*
 * relapprove.h: the release owner's approval on the Release screen
 * (share/doc/release.md §2, §5): a promote or a rollback, from the lock to
 * the host's answer.  The panel shows from → to, what differs between the
 * two manifests, the observation window of the generation being left, and
 * the verification as the host runs it under the lock, with a progress
 * bar; then the status bar asks, in turn, for the target's number typed
 * again (anything else cancels), the approver's key (the config's
 * release_key by default), its passphrase when it has one (no echo, wiped
 * once the key is read) and a reason for the log.  A key whose public half
 * is none of the host's trusted keys is refused there, before anything is
 * signed.  A promote then runs its chip step (release.md §6), the lock
 * still held: the runner's inspect and golden with the package on the
 * workspace's host's first chip, confirmed as every job that disturbs a
 * chip is (confirm.h), its progress streamed here; the record is signed
 * once golden passed, carrying the result's hash, else a refusal saying
 * why.  The record is signed here and sent to the host (relclient.h);
 * when the target did not verify, what is signed is a refusal.  Esc at any
 * question cancels: nothing is signed, the host lets go of the lock; Esc
 * while the chip step runs stops its job, and the refusal is signed.
 *
 * Ownership: struct relapprove is inside the Release screen's data; it
 * borrows the app and the screen's relclient.
 */
#ifndef CALOPS_RELAPPROVE_H
#define CALOPS_RELAPPROVE_H

#include "calops.h"

#include <jansson.h>

#include "job/jobstore.h"
#include "lab/relclient.h"

struct app;

enum relapprove_step {
	RAP_CLOSED,
	RAP_VERIFYING,		/* the lock and the host's verification */
	RAP_ASKING,		/* a question is in the status bar */
	RAP_CHIP,		/* a promote's chip step: asked, then run */
	RAP_SENT,		/* the record went; the host acts */
};

struct relapprove {
	struct app		*app;
	struct relclient	*rc;
	enum relapprove_step	 step;
	bool			 promote;
	long			 to;
	char			 key_path[1024];
	void			*key;		/* loaded, until signed */
	char			 key_id[128];
	/* The chip step: the reason the record will carry meanwhile, where
	 * it runs, its job once started, and whether Esc stopped it. */
	char			 reason[512];
	char			 chip_host[128];
	char			 chip_what[64];	/* the pickers' words */
	int			 chip;
	char			 job[JOB_ID_MAX + 1];
	bool			 chip_stopped;
};

/* The status's generation n (borrowed), or NULL. */
const json_t *relapprove_gen(const json_t *status, long n);
/* What differs going from generation a to b, field by field, in rows
 * [top, top + rows): a title, then a line a field; returns the rows
 * used.  The Release screen's diff pane and the approval's are this. */
int	relapprove_draw_diff(const json_t *status, long a, long b, int top,
	    int rows, int cols);

/* Begin approving a promote or a rollback to generation to; said in the
 * status bar when it cannot begin (read-only, one is open). */
void	relapprove_start(struct relapprove *p, struct app *a,
	    struct relclient *rc, bool promote, long to);
/* The relclient said something changed: move the approval on (ask the
 * first question once verified, close it once the host answered). */
void	relapprove_changed(struct relapprove *p);
bool	relapprove_open(const struct relapprove *p);
/* Paint the panel in rows [top, top + rows). */
void	relapprove_draw(struct relapprove *p, int top, int rows, int cols);
/* Give up (Esc on the screen, the screen closing): the question open is
 * withdrawn, the key freed, the host's lock let go.  Once the record went
 * there is nothing to give up: the panel only closes, saying so. */
void	relapprove_cancel(struct relapprove *p, const char *why);
/* A lab job may have ended: a chip step that did signs the record (or
 * the refusal) and sends it. */
void	relapprove_tick(struct relapprove *p);
/* The record went: the host's answer is awaited (Esc does nothing). */
bool	relapprove_sent(const struct relapprove *p);
/* A chip step's job runs: it ends in a signed record or a signed
 * refusal, which the panel must be there to make (Esc stops it first). */
bool	relapprove_chip_running(const struct relapprove *p);

#endif
