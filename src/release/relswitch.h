/*
 * relswitch.h: moving `current` (share/doc/release.md §2, §3, §5): the
 * release lock, the switch itself (verify, append the record and fsync,
 * rename a new link over `current` and fsync the folder) and the
 * roll-forward of a switch a crash cut between the two.
 *
 * One path for every caller: the record is built and signed where the
 * approver's key is (relrecord.h, relkey.h), and relswitch_apply() checks it
 * and acts where the workspace is, the same function whether the two are
 * one process (calops release promote) or a console and a lab host
 * (calops release apply reading the record on standard input).
 */
#ifndef CALOPS_RELSWITCH_H
#define CALOPS_RELSWITCH_H

#include "calops.h"

#include "release/relkey.h"
#include "release/relrecord.h"
#include "release/relstate.h"

/* The crash tests' hook (CALOPS_RELEASE_FAULT, relswitch.c): SIGKILL after
 * step, or whether op is to fail (errno set). */
void	 relswitch_fault_kill(const char *step);
bool	 relswitch_fault_fail(const char *op);

/* How far a record's ts may be from the clock of the host acting on it. */
#define RELSWITCH_TS_SKEW_S	300

/*
 * Take the release lock (08-release/.lock, flock), writing who holds it.
 * The descriptor (close it to let go); -1 with err, naming the holder when
 * another approver has it.
 */
int	 relswitch_lock(struct relstate *st, const char *who, char *err,
	    size_t errlen);

enum relswitch_rc {
	RS_OK,
	RS_REFUSED,	/* the target does not verify: nothing appended */
	RS_STALE,	/* prepared against an older log: fetch and retry */
	RS_BAD,		/* a record that is not what the switch will do */
	RS_ERROR,	/* a write, fsync or rename failed */
};

/*
 * Act on one signed record (a line, no newline), the lock held and the
 * roll-forward done: check its signature and place in the chain, that its
 * from is what `current` is and its ts near this clock; for promote and
 * rollback the target's verdict (relstate_verdict(), its bindings judged
 * by bindings when it is the candidate) must be that it verifies; then
 * append it, fsync, and switch.  A refused record is only appended.  msg
 * says what was done or why not; st says where `current` points and where
 * the log ends after.
 */
enum relswitch_rc relswitch_apply(struct relstate *st, const char *line,
	    size_t len, relverdict_bindings_fn bindings, void *arg, char *msg,
	    size_t msglen);

/* Take away a marker whose chip step's record is on the log already
 * (st->pending_stale: a command killed between the two), the lock held. */
void	 relswitch_settle(struct relstate *st);

/*
 * When the log is ahead of `current` as a crash leaves it
 * (relstate_behind_log()), point `current` at the last switch's target if
 * its verdict says it verifies (its bindings too, when it is the
 * candidate).  0 with
 * nothing to do, 1 when rolled forward, 2 when it could not be (the target
 * does not verify: current left as it is), -1 on a failed fsync or rename;
 * msg says which.
 */
int	 relswitch_roll_forward(struct relstate *st,
	    relverdict_bindings_fn bindings, void *arg, char *msg,
	    size_t msglen);

#endif
