/*
 * alertsend.h: the one sender of a state folder's alerts (share/doc/
 * alerts.md §6).  A console and `calops alerts` on the same state folder
 * each make one; whoever holds the journal locked (flock) judges the lab's
 * rules (alertwatch.h) and runs the hook, and writes who it is beside the
 * journal (the file "sender": its pid and what it is); the others only read
 * the journal again as it grows and say who sends.  They try the lock
 * every ALERTSEND_TRY_MS, so that when the holder ends one of them takes
 * over: it reads the journal again (cutting a torn last line, as only the
 * writer may), takes back what it shows ongoing and sends what it shows
 * not sent, as `calops alerts` does on a restart.
 *
 * A job's end is an event, told once: a standby that may send keeps each
 * job end that fires job.failed (at most ALERTSEND_KEPT_MAX, for
 * ALERTSEND_KEPT_S), and on taking over gives them to its watch, which
 * tells those the journal does not show told; so a job that fails while
 * the lock changes hands is told at least once, with the id the sender
 * would have given it.  A gate's change needs nothing of the standby (it
 * runs no board): the watch it makes on taking over starts from the
 * gates' baseline the sender before journaled (alertwatch.h).
 *
 * A lab with no alerts: (no hook) never sends: its sender only reads.
 *
 * Ownership: the sender borrows the loop, the lab model and the lab, which
 * outlive it; it owns its journal and its watch.  The owner calls
 * alertsend_lab_changed(), alertsend_job_ended() and alertsend_host_ended()
 * from the lab model's hooks.
 */
#ifndef CALOPS_ALERTSEND_H
#define CALOPS_ALERTSEND_H

#include "calops.h"

#include "alert/alerthook.h"

#define ALERTSEND_TRY_MS	1000	/* the lock tried, the journal read */
#define ALERTSEND_FILE		"sender"	/* beside the journal */
#define ALERTSEND_KEPT_MAX	1024	/* job ends a standby keeps */
#define ALERTSEND_KEPT_S	300	/* and for how long */

struct alertjournal;
struct alertwatch;
struct lab;
struct labmodel;
struct ljob;
struct ljob_end;
struct loop;
struct alertsend;

/* The journal changed, or who sends. */
typedef void	(*alertsend_changed_fn)(void *arg);

/*
 * who is what this process is, for the others' "alerts sent by WHO, pid N"
 * ("calops alerts", "a console").  NULL with err when the state's alerts
 * folder is refused.
 */
struct alertsend *alertsend_new(struct loop *l, struct labmodel *lm,
		    const struct lab *lab, const char *who,
		    alerthook_say_fn say, alertsend_changed_fn changed,
		    void *arg, char *err, size_t errlen);
void		 alertsend_free(struct alertsend *s);
void		 alertsend_lab_changed(struct alertsend *s);
void		 alertsend_job_ended(struct alertsend *s, const struct ljob *j);
void		 alertsend_host_ended(struct alertsend *s,
		    const struct ljob_end *e);

/* The journal as last read (borrowed; empty when there is none). */
const struct alertjournal *alertsend_journal(const struct alertsend *s);
/* Whether this process sends. */
bool		 alertsend_sending(const struct alertsend *s);
/* Its watch while it sends, or NULL. */
struct alertwatch *alertsend_watch(struct alertsend *s);
/* Who sends, in a sentence: "this console sends alerts", "alerts sent by
 * calops alerts, pid 812". */
void		 alertsend_who(const struct alertsend *s, char *buf,
		    size_t len);

/*
 * Who holds journal j locked, from outside (calops alerts --journal): 1
 * with *pid and who (its file "sender"), 0 when nobody does, -1 when it
 * cannot tell (no journal).
 */
int		 alertsend_holder(const struct alertjournal *j, long *pid,
		    char *who, size_t len);

#endif
