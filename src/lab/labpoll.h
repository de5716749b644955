/*
 * labpoll.h: how the lab model learns of the jobs it did not start
 * (labmodel_int.h; protocol.md §4, "Jobs this console did not start").
 * Every LABPOLL_MS, each host that is up is asked for its running jobs
 * (`calops jobs --json --running`; every job, the first time it is up and
 * every LABPOLL_FULL_EVERY times: protocol.md §4 gives the cost), one
 * list at a time a host, through its transport, never waited for; a
 * lab job there that the model does not hold (started by another
 * console, a script, `calops run-gate`) is taken in as if this console
 * had started it: its record written beside a new mirror, and
 * its events followed from seq 1, mirrored and applied (the mirror is a
 * cache of the host's events.jsonl, resumable by seq).  Taken in: every
 * running job, and an ended one that started within LABPOLL_RECENT_S,
 * while the model has room for it (LAB_JOBS_MAX, newest kept).  A console
 * that watches another (labshare.c) takes in nothing: the one that writes
 * the mirrors does, and it sees them.
 */
#ifndef CALOPS_LABPOLL_H
#define CALOPS_LABPOLL_H

#include "calops.h"

#include "lab/labmodel_int.h"

#define LABPOLL_MS		2000	/* a host's running jobs asked */
#define LABPOLL_FULL_EVERY	15	/* every job: each 15th time (30 s) */
#define LABPOLL_RECENT_S	86400.0	/* an ended job this young: taken */

struct hostcmd_job;

/* Start asking (the first time at once); stop, cancelling what runs. */
void	 labpoll_start(struct labmodel *lm);
void	 labpoll_stop(struct labmodel *lm);
/* One host's job list, as `jobs --json` gave it: every job the model
 * lacks and should hold is taken in (labpoll.c; tests call it). */
void	 labpoll_take(struct labmodel *lm, struct lhost *h,
	    struct hostcmd_job *jobs, size_t n);

#endif
