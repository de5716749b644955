/*
 * job.h: durable jobs (protocol.md §2 and §3), the lab side of `calops run`:
 * the supervisor.
 *
 * A job is a folder <jobs>/<ID>/ holding job.json (the record, replaced
 * atomically; jobstore.h), events.jsonl (the event stream, appended a whole
 * line at a time; jobevent.h makes the events, jobsink.h writes them,
 * jobreader.h reads them back), lock (held with flock(2) by the supervisor
 * for as long as it lives: a job whose record says running while nobody
 * holds its lock is "lost") and supervisor.log (the supervisor's own
 * complaints).  A job is made in a hidden folder and renamed into place, so
 * a folder named like an id always holds a record.
 *
 * The supervisor runs the tool in its own process group, turns every line
 * the tool writes into exactly one event numbered from 1 without gaps, and
 * records the end.  Memory stays bounded whatever the tool writes: a line is
 * kept up to JOB_LINE_MAX bytes, and an event line is at most JOB_EVENT_MAX
 * bytes (a longer one is cut and flagged "truncated").
 *
 * The tool runs in the starter's working folder, which job.json records
 * (`calops run --cwd` moves there first: the workspace the console shows).
 */
#ifndef CALOPS_JOB_H
#define CALOPS_JOB_H

#include "calops.h"

struct job_spec {
	const char	 *root;		/* the jobs folder, made already */
	const char	 *id;		/* NULL: generate one */
	char *const	 *argv;		/* the tool and its arguments */
	const char	 *version;	/* for the hello event */
	const char	 *actor;	/* who starts it, for the record */
	/* An fd the supervisor keeps open, close-on-exec, for as long as it
	 * lives (the gate's lock, gatelock.h), or -1. */
	int		  hold_fd;
};

/*
 * Start a durable job and return once its record says running: 0 with the
 * id in idbuf; 1 when the job was made but its tool could not be started
 * (recorded as failed; the id in idbuf, the reason in err); -1 with err when
 * no job was made (an existing id, a folder that cannot be written).
 */
int	 job_start(const struct job_spec *spec, char *idbuf, size_t idlen,
	    char *err, size_t errlen);

#endif
