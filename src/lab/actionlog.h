/*
 * actionlog.h: the console's action log (share/doc/json.md §7): every
 * action a person triggers (a fault, a soak, a gate job, a kill) is
 * appended, one JSON line, to $XDG_STATE_HOME/calops/actions.jsonl: who,
 * when, host, chip, command, and later its outcome.
 *
 * CONTRACT (labmodel.c calls exactly these; the rest is actionlog.c's):
 *   struct action_rec   the fields below; strings borrowed
 *   actionlog_append(rec, err, errlen)   0, or -1 with err; the record
 *                          {ts, user, host, chip, job, what, command} when
 *                          outcome is NULL, else an outcome record for job
 */
#ifndef CALOPS_ACTIONLOG_H
#define CALOPS_ACTIONLOG_H

#include "calops.h"

struct action_rec {
	double		 ts;		/* wall clock, Unix seconds */
	const char	*host;
	int		 chip;		/* -1: none */
	const char	*job;	/* the job id, NULL when it did not start */
	const char	*what;		/* "fault wait-timeout", "soak 24h", "gate G7", "kill" */
	const char	*command;	/* the exact command */
	const char	*outcome;	/* NULL: the action itself; else "done exit 0",
					 * "failed exit 1", "killed SIGTERM", "not started: …" */
};

int	actionlog_append(const struct action_rec *rec, char *err,
	    size_t errlen);

/*
 * Writing.  Each record is one JSON line written with one write() on a
 * descriptor opened O_APPEND, so lines from consoles appending at the same
 * time never interleave; the file and its folder are made 0600 and 0700,
 * and neither is used when it is a symbolic link, another user's or
 * writable by others (base/statedir.h).  An append holds an flock(2) on the
 * file: an outcome record whose job already has that outcome in the log is
 * not written again (a job's end is applied again after a restart, by a
 * console taking over, or to retry a failed append), and a write that
 * fails is undone, the file cut back to where it ended.
 * Strings are stored as given (the reader's screen sanitises them), but a
 * record is cut to ACTIONLOG_LINE_MAX bytes (the command shortened, "cut"
 * set) and bytes that are not UTF-8 become U+FFFD, since JSON cannot hold
 * them.  An outcome with no job (the action never started) is written as
 * the action record with its "outcome" in it, as there is nothing to join
 * it to.  A file whose last line was cut off (a crash mid-write) gets a
 * line feed first, so the new record is whole.
 *
 * Reading.  actionlog_load() walks the file backwards from its end, so a
 * long log costs only its tail: it stops once it has the `max` newest
 * actions, or after ACTIONLOG_SCAN_MAX bytes.  The outcome of each action
 * is joined from the newest outcome record with the same job id (an
 * outcome is always written after its action, so it has been seen by
 * then).  Lines that are not JSON objects of either kind, lines longer than
 * ACTIONLOG_LINE_MAX and a cut last line are skipped and counted; memory
 * is bounded by one line and the entries returned.
 */
#define ACTIONLOG_LINE_MAX	(64u << 10)
#define ACTIONLOG_SCAN_MAX	(64u << 20)
#define ACTIONLOG_LOAD_MAX	65536	/* the most actions load returns */

struct action_entry {
	double	 ts;
	char	*user, *host;	/* host NULL: none recorded */
	int	 chip;		/* -1: none */
	char	*job;		/* NULL: it did not start */
	char	*what, *command;
	char	*outcome;	/* NULL: no outcome yet */
	double	 outcome_ts;	/* 0 when outcome is NULL */
};

/* Owned by the caller: actionlog_list_release() frees the entries. */
struct action_list {
	struct action_entry *v;		/* newest first */
	size_t		 n;
	size_t		 skipped;	/* lines not understood or too long */
};

/* $XDG_STATE_HOME/calops/actions.jsonl (else ~/.local/state/…), a new
 * string, or NULL with err when neither variable is set.  The log the
 * functions here use when given no path. */
char	*actionlog_path(char *err, size_t errlen);
/* The `max` newest actions of the log at path (NULL: actionlog_path(),
 * opened as the state's, statedir.h; a path given is opened O_NOFOLLOW)
 * into *out (emptied first).  A missing file is an empty log.  0, or -1
 * with err (the file cannot be read or is refused); out is valid either
 * way. */
int	 actionlog_load(const char *path, size_t max, struct action_list *out,
	    char *err, size_t errlen);
void	 actionlog_list_release(struct action_list *l);

#endif
