/*
 * alertwatch.h: a lab's alert rules judged over what the lab model and
 * the board sources see, with no ncurses (share/doc/alerts.md): `calops
 * alerts LAB` runs one.  Every host's transport state (host.down), every
 * soak's metric store (the SLA, leak, errors and resets kinds, judged
 * with alertmetric.h on the samples' time), every job's end (job.failed)
 * and stall for a full disk (disk.full), and the gates of every workspace
 * of the lab, each watched through a board source of its own (gate.red,
 * gate.changed; for the soaks that ran on it, its G0 SLA is what the SLA
 * kinds compare with when a rule gives no threshold).  A job of a host
 * that ends failed, killed or lost fires job.failed once, whoever started
 * it: as the lab model's poll tells it (labpoll.h, struct ljob_end: one
 * that ended between two polls too, never one that had ended before its
 * host was first listed), or live from its stream when the model follows
 * it, whichever comes first.
 *
 * Each note is journaled, then sent through the hook (alerthook.h).  On
 * start the alerts the journal shows ongoing are taken back
 * (alerteval_restore), and what it shows not sent is sent.  With a
 * gate.changed rule in force, the gates' statuses judged on a workspace
 * are journaled as its baseline whenever they change (after the notes they
 * gave), and a new watch starts each workspace from its baseline: its
 * first board is compared with what the sender before it judged last, so
 * a change made while no process sent (a handover, a restart) is told.
 * A job.failed the poll tells starts when the host says the job ended, so
 * that its id is the same in every process told it (a standby's kept
 * ends, alertsend.h).
 *
 * Ownership: the watch borrows the loop, the lab model, the lab and the
 * journal, which outlive it.  The owner calls alertwatch_lab_changed(),
 * alertwatch_job_ended() and alertwatch_host_ended() from the lab model's
 * hooks.
 */
#ifndef CALOPS_ALERTWATCH_H
#define CALOPS_ALERTWATCH_H

#include "calops.h"

#include "alert/alerthook.h"
#include "vocab/gateid.h"

#define ALERTWATCH_TICK_MS	1000	/* hosts and stalls judged */

struct alertjournal;
struct alertsla;
struct lab;
struct labmodel;
struct ljob;
struct ljob_end;
struct loop;
struct alertwatch;

struct alertwatch *alertwatch_new(struct loop *l, struct labmodel *lm,
		    const struct lab *lab, struct alertjournal *j,
		    alerthook_say_fn say, void *arg);
void		 alertwatch_free(struct alertwatch *w);
/* The lab model changed (a host's state, an event): judge what it says. */
void		 alertwatch_lab_changed(struct alertwatch *w);
/* A job ended live. */
void		 alertwatch_job_ended(struct alertwatch *w,
		    const struct ljob *j);
/* A job of a host ended, as the lab model's poll tells it. */
void		 alertwatch_host_ended(struct alertwatch *w,
		    const struct ljob_end *e);
/* The hook, for its timing (tests) and whether it is idle. */
struct alerthook *alertwatch_hook(struct alertwatch *w);

/*
 * The SLA a soak that ran on workspace of host is judged by, from sla (one
 * a workspace of the lab model's lab, in the lab file's order): its own
 * workspace's as labmodel_host_workspace() finds it (however a local one
 * is spelt; workspace NULL, a record that does not say: the host's first),
 * else none (NAN: the SLA kinds without a threshold do not judge).
 * Borrowed from sla, or static.
 */
const struct alertsla *alertwatch_sla_of(const struct labmodel *lm,
		    const struct alertsla *sla, const char *host,
		    const char *workspace);
/*
 * The gates' statuses judged last on workspace path of host, as journal j
 * says (-1: not known): its last baseline, then each gate.changed it shows
 * after that baseline (a sender that ended before writing the next).
 */
void		 alertwatch_baseline(const struct alertjournal *j,
		    const char *host, const char *path, int status[GATE_COUNT]);

#endif
