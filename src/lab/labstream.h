/*
 * labstream.h: one job's event stream in the lab model (labmodel_int.h):
 * following it, mirroring and applying its events, its record beside the
 * mirror, its line in the action log.
 */
#ifndef CALOPS_LABSTREAM_H
#define CALOPS_LABSTREAM_H

#include "calops.h"

#include "lab/labmodel_int.h"

struct event;

/* Follow a job's stream from its last seq + 1 (mirroring and applying). */
void		 labstream_follow(struct ljob_int *j);
/* j's host is up again: launch it again (relaunch) or follow it again
 * (wait_host). */
void		 labstream_host_up(struct ljob_int *j);
/*
 * Catch-up (labmodel.h, ljob.catchup_seq).  labstream_catching_up(): j
 * is caught up with from what it held (its mirror replayed, or nothing:
 * taken in from a job list), or followed again after its host was away,
 * so the host may hold more than it has: CATCHING_UP, and how far from
 * the next job list.  labstream_catchup(): a job list says the host's
 * events of j go to seq (0: it does not say); heeded while j catches up,
 * until its stream reaches the furthest said.
 */
void		 labstream_catching_up(struct ljob_int *j);
void		 labstream_catchup(struct ljob_int *j, int64_t seq);
/* One event, in seq order, into the model. */
void		 labstream_apply(struct ljob_int *j, const struct event *ev,
		    const char *line, size_t len);
/* This console now writes the mirror another one wrote (labmirror_adopt)
 * and follows the job again where the mirror lacks events (they are
 * mirrored, not applied twice). */
void		 labstream_take_over(struct ljob_int *j);
/* Every mirror's held lines written (labmirror_flush), failures said. */
void		 labstream_flush_all(struct labmodel *lm);
/* Append the job's action (outcome NULL: its start) to the action log;
 * 0, or -1 when it could not be (said with labmodel_warn). */
int		 labstream_log_action(const struct ljob_int *j,
	    const char *outcome);
/* Stop following, close files, free the job. */
void		 labstream_job_free(struct ljob_int *j);
/* The record written beside the mirror, and read back at start. */
char		*labstream_meta_json(const struct ljob_int *j);
struct ljob_int	*labstream_job_from_meta(struct labmodel *lm, const char *path,
		    char *err, size_t errlen);

#endif
