/*
 * jobcursor.h: `calops jobs --since CURSOR` (protocol.md §1, calops jobs):
 * which jobs of a jobs folder may have changed since an earlier list, told
 * from the folder's metadata alone, so that a console asking every 2 s
 * reads the records of the jobs that changed and of the running ones, not
 * every job's, and never a job's events.
 *
 * A cursor is the host's clock when a list began, in nanoseconds since
 * the epoch, written "SECONDS.NANOSECONDS" ("1796228378.149000000"); "0"
 * is before everything.  A job changed since a cursor when its folder or
 * its job.json changed (ctime: a record is replaced by a rename, a job
 * folder renamed into place) at or after the cursor less JOBCURSOR_SLACK_NS
 * (a file's time comes from the kernel's coarse clock, a tick behind the
 * one read for the cursor), or when its final record is not written yet
 * (job.json.last is there: it is running, or lost, which leaves no trace
 * on disk).  A cursor after the host's clock now (the clock was set back)
 * holds nothing: the list is every job again.  Answers may overlap; none
 * misses a change.
 */
#ifndef CALOPS_JOBCURSOR_H
#define CALOPS_JOBCURSOR_H

#include "calops.h"

#define JOBCURSOR_SLACK_NS	1000000000LL	/* 1 s */
#define JOBCURSOR_LEN		32		/* a cursor's text, NUL too */

/* The host's clock now, as a cursor. */
int64_t	 jobcursor_now(void);
/* A cursor's text into buf (JOBCURSOR_LEN). */
void	 jobcursor_format(int64_t ns, char *buf, size_t len);
/* A cursor's text into *ns: 0, or -1 when s is not one. */
int	 jobcursor_parse(const char *s, int64_t *ns);
/* Whether job folder name under root may have changed since cursor ns
 * (above): its folder's or its record's ctime, or its last record still
 * to be written. */
bool	 jobcursor_changed(const char *root, const char *name, int64_t ns);

#endif
