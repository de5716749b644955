/*
 * alerthook.h: an alert's firing and resolution sent through the team's
 * command (share/doc/alerts.md, "The hook"), a child of the one poll loop:
 * started from the lab's argv (never a shell string), the alert in
 * CALOPS_ALERT* variables and as one Alertmanager-webhook-shaped JSON
 * document on its stdin, every string a host or a file gave made plain by
 * the sanitiser (text_sanitize_doc).
 *
 * What is sent comes from the journal, not from memory: the note is
 * journaled first, then the hook runs, then its outcome is journaled
 * ("sent", "failed", "gave-up": alertjournal_hook).  So a restart sends
 * again only what the journal does not show sent (alerthook_resume): at
 * least once, and once when nothing crashed between a hook's exit and
 * its line.
 *
 * One hook runs at a time, in the order sent, so that an alert's
 * resolution never overtakes its firing.  A hook that exits non-zero, or
 * runs past the timeout (then SIGKILL), is retried after a backoff that
 * doubles from backoff_ms up to ALERTHOOK_BACKOFF_MAX_MS, at most tries
 * times in all; each failure is journaled and told through say.
 *
 * Ownership: the hook borrows the loop, the argv and the journal, which
 * must outlive it; alerthook_free() kills and forgets a hook still running.
 */
#ifndef CALOPS_ALERTHOOK_H
#define CALOPS_ALERTHOOK_H

#include "calops.h"

#define ALERTHOOK_TIMEOUT_MS	30000
#define ALERTHOOK_BACKOFF_MS	2000
#define ALERTHOOK_BACKOFF_MAX_MS 300000
#define ALERTHOOK_TRIES		10
#define ALERTHOOK_QUEUE_MAX	10000	/* sends waiting; more are dropped */

struct alertjournal;
struct loop;
struct alerthook;

/* A failure or a give-up for people (one line, sanitised). */
typedef void	(*alerthook_say_fn)(const char *msg, void *arg);

struct alerthook *alerthook_new(struct loop *l, char *const argv[],
		    struct alertjournal *j, alerthook_say_fn say, void *arg);
void		 alerthook_free(struct alerthook *h);
/* Timeouts and retries other than the defaults (tests, the config). */
void		 alerthook_set_timing(struct alerthook *h, long timeout_ms,
		    long backoff_ms, unsigned tries);
/* Send the firing (resolved false) or the resolution of the journal's
 * alert id. */
void		 alerthook_send(struct alerthook *h, const char *id,
		    bool resolved);
/* Send what the journal shows not sent and not given up: how many. */
size_t		 alerthook_resume(struct alerthook *h);
/* Whether nothing runs or waits. */
bool		 alerthook_idle(const struct alerthook *h);

#endif
