/*
 * labpoll.h: how the lab model learns of the jobs it did not start
 * (labmodel_int.h; protocol.md §4, "Jobs this console did not start").
 * Every LABPOLL_MS, each host that is up is asked for what changed since
 * its last list (`calops jobs --json --since CURSOR`: the running jobs and
 * those that started or ended since; every job, cursor 0, the first time
 * it is up; protocol.md §4 gives the cost), one list at a time a host,
 * through its transport, never waited for.  A host whose calops lacks
 * --since (a usage error) is asked as before until it is up again: its
 * running jobs, and every job the first time and every LABPOLL_FULL_EVERY
 * times.  Every job of a list that has ended is told once to the model's
 * owner (labmodel_cb's host_ended, struct ljob_end), whoever started it,
 * unless it had ended before its host was first listed; a
 * lab job there that the model does not hold (started by another
 * console, a script, `calops run-gate`) is taken in as if this console
 * had started it: its record written beside a new mirror, and
 * its events followed from seq 1, mirrored and applied (the mirror is a
 * cache of the host's events.jsonl, resumable by seq).  Taken in: every
 * running job, and an ended one that started within LABPOLL_RECENT_S,
 * while the model has room for it (LAB_JOBS_MAX, newest kept).  A console
 * that watches another (labshare.c) takes in nothing: the one that writes
 * the mirrors does, and it sees them.
 *
 * This is the one way the console learns of jobs it did not start: the
 * screens (Soak, Faults' running cells, Jobs' Enter on a soak) read the
 * model, and list no host's jobs to take any in themselves.
 */
#ifndef CALOPS_LABPOLL_H
#define CALOPS_LABPOLL_H

#include "calops.h"

#include <jansson.h>

#include "lab/labmodel.h"

#define LABPOLL_MS		2000	/* a host's running jobs asked */
#define LABPOLL_FULL_EVERY	15	/* no --since: every job each 15th */
#define LABPOLL_RECENT_S	86400.0	/* an ended job this young: taken */
#define LABPOLL_FAULT_JOBS	512	/* a host's fault and G7 jobs kept */

struct hostcmd_job;
struct labmodel;
struct lhost;
struct ljob;

/* Start asking (the first time at once); stop, cancelling what runs. */
void	 labpoll_start(struct labmodel *lm);
void	 labpoll_stop(struct labmodel *lm);
/* Host h has just come up: every job asked for at once, not at the next
 * LABPOLL_MS (a console joining a lab knows its jobs a turn sooner). */
void	 labpoll_host_up(struct lhost *h);
/* One host's job list, as `jobs --json` gave it: every job the model
 * lacks and should hold is taken in (labpoll.c; tests call it). */
void	 labpoll_take(struct labmodel *lm, struct lhost *h,
	    struct hostcmd_job *jobs, size_t n);
/* One host's list as it came (labpoll.c; tests call it): its jobs taken
 * in (labpoll_take), the ended ones told (labmodel_cb's host_ended), its
 * fault and G7 jobs kept (labpoll_fault_jobs). */
struct hostcmd_jobs;
void	 labpoll_list(struct labmodel *lm, struct lhost *h,
	    struct hostcmd_jobs *jobs);
/* Whether a calops-jobs/v1 entry (borrowed) is a lab job's, as its argv
 * says (labcmd_job_describe), and then which kind in *kind. */
bool	 labpoll_entry_kind(json_t *record, enum ljob_kind *kind);
/*
 * The job of host's entry record (borrowed; it started age seconds ago):
 * the one the model holds, or taken in now as a list would take it,
 * whatever its age (Enter on the Jobs screen: one older than
 * LABPOLL_RECENT_S, or not yet in a list).  NULL with err (not a lab job,
 * no such host, its mirror refused, this console only watches another's).
 */
const struct ljob *labpoll_take_entry(struct labmodel *lm, const char *host,
	    json_t *record, double age, char *err, size_t errlen);

/*
 * The fault jobs and G7's whole jobs of host (its calops-jobs/v1 entries,
 * borrowed until the model next changes; NULL and 0 for none), as its
 * lists gave them last: their newest LABPOLL_FAULT_JOBS by start, whatever
 * their age, whoever started them, with the state each had at the last
 * poll.  What the Faults screen matches a host's result file with
 * (faultfold_file_job); the model's jobs (LAB_JOBS_MAX, 24 h) are too few.
 */
json_t *const *labpoll_fault_jobs(const struct labmodel *lm,
	    const char *host, size_t *n);

#endif
