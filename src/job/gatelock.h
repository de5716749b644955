/*
 * gatelock.h: one job per gate per workspace, decided by the host
 * (protocol.md §2, "One job per gate and workspace").  `calops run --gate
 * N --cwd WS` takes the lock of gate N in WS before the job exists: a file
 * under the jobs folder, <jobs>/.gates/G<N>-<hash of WS's real path>.lock,
 * held with flock(2) by the job's supervisor for as long as it lives and
 * naming, once taken, the job and who started it.  flock is atomic: of two
 * launches in the same instant exactly one takes it; the other is refused
 * with what the file names (waited for, at most GATELOCK_NAME_WAIT_MS,
 * while the holder is between taking it and naming its job, or the file
 * still names the job before).  A supervisor that dies lets go of it, so
 * a lost job does not keep its gate.
 *
 * Files are opened as the jobs folder's (statedir.h): never through a
 * link, never another user's.
 */
#ifndef CALOPS_GATELOCK_H
#define CALOPS_GATELOCK_H

#include "calops.h"

#include "job/jobstore.h"

#define GATELOCK_NAME_WAIT_MS	2000	/* for the holder to name its job */

/* Who holds a gate's lock, as its file says ("" when not written yet: the
 * holder is between taking it and naming its job). */
struct gatelock_holder {
	char	job[JOB_ID_MAX + 1];
	char	actor[128];
	double	started;
};

/*
 * Take gate's lock in the workspace ws (a real path) under the jobs folder
 * root, for job id started by actor: 0 with *fd the lock (to hand to the
 * supervisor: job_spec's hold_fd); 1 when another job holds it (who in
 * *holder); -1 with err.
 */
int	 gatelock_take(const char *root, int gate, const char *ws,
	    const char *id, const char *actor, int *fd,
	    struct gatelock_holder *holder, char *err, size_t errlen);

#endif
