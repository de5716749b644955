/*
 * jobsink.h: the sink, the supervisor's writer of events.jsonl (protocol.md
 * §2), on a disk that may fill.  A struct job_sink is its caller's;
 * jobsink_open() or jobsink_resume() readies it and jobsink_close()
 * releases it.
 */
#ifndef CALOPS_JOBSINK_H
#define CALOPS_JOBSINK_H

#include "calops.h"

#include <sys/types.h>

#include <jansson.h>

/*
 * events.jsonl as the supervisor writes it, each event in one write(2) with
 * O_APPEND, numbered when it is written (1, 2, 3... whatever happens).
 *
 * Space.  The file keeps JOB_SINK_TAIL bytes allocated past its end
 * (fallocate(2) with FALLOC_FL_KEEP_SIZE, JOB_SINK_GROW at a time) and a
 * tool's line is written only when it fits before that tail: so a write
 * never runs out of space half-way (a follower would read a torn line),
 * and the supervisor's last words, the gap and the end, have room on a full
 * disk too.  On a file system that cannot allocate ahead, the free space is
 * asked before each line instead, and a short write is cut back.
 *
 * Waiting.  A line that finds no space waits in memory, in order (up to
 * JOB_SINK_WAIT_MAX bytes), until jobsink_flush() finds space again.
 * Past that bound lines are counted and dropped, and one gap event
 * (protocol.md §3), numbered where they were lost, says how many and
 * between which times.  When writing stops, a stalled event says so (the
 * last line of the file while it lasts), and a resumed event says when it
 * starts again and what waited.
 */
#define JOB_SINK_TAIL		(4u << 10)
#define JOB_SINK_GROW		(256u << 10)
#define JOB_SINK_WAIT_MAX	(8u << 20)

struct job_wait;

struct job_sink {
	int		 fd;
	off_t		 size;		/* bytes written, whole lines */
	off_t		 allocated;	/* bytes known allocated from 0 */
	off_t		 limit;		/* RLIMIT_FSIZE, or 0: none */
	bool		 ahead;		/* fallocate works here */
	uint64_t	 seq;		/* of the last event written */
	struct job_wait	*head, *tail;	/* waiting, oldest first */
	size_t		 waiting;	/* lines waiting */
	size_t		 wait_bytes;	/* what they take */
	uint64_t	 dropped;	/* lines lost and not yet in a gap */
	double		 dropped_since, dropped_until;
	uint64_t	 waited, lost;	/* over the job */
	double		 stalled_since;	/* 0 while lines are written */
	int		 stalled_errno;
	bool		 said_stalled;	/* the last line says so */
};

/* Open (or create) name in dirfd and reserve its tail; -1 with err. */
int	 jobsink_open(struct job_sink *k, int dirfd, const char *name,
	    char *err, size_t errlen);
/*
 * Open an ended supervisor's events file to append to it: a torn last line
 * (its writer died in the middle) is cut off, and numbering goes on from
 * the last event's seq.  0, 1 when that event is the end already, or -1
 * with err.
 */
int	 jobsink_resume(struct job_sink *k, int dirfd, const char *name,
	    char *err, size_t errlen);
/* Drop what still waits (counted lost), give back what was allocated ahead
 * and close. */
void	 jobsink_close(struct job_sink *k);
/* Append one tool line: 0 when written, 1 when it waits or was dropped
 * (the sink is stalled). */
int	 jobsink_line(struct job_sink *k, const char *line, size_t len,
	    bool cut, bool from_stderr);
/* Write what waits: 0 when nothing waits any more, 1 when still stalled. */
int	 jobsink_flush(struct job_sink *k);
/*
 * An event of the supervisor's own (fields stolen, may be NULL), written at
 * once and from the tail if need be: lines still waiting are counted in a
 * gap before it (an own event comes at the start or the end of a job).  0,
 * or -1 with errno.
 */
int	 jobsink_event(struct job_sink *k, const char *type,
	    json_t *fields);
/*
 * When the supervisor of the events file at path last said it could not
 * write (its last line is a stalled event): that event's since,
 * with its reason ("disk full") in why; 0 when it is writing (or the file
 * says nothing).
 */
double	 jobsink_stalled_since(const char *path, char *why, size_t whylen);
/*
 * The seq of the last whole event of the events file at path: how far a
 * reader of it can go now (`calops jobs --json`'s last_seq, protocol.md
 * §1); 0 when there is none, or the file cannot be read or ends with no
 * event.
 */
uint64_t jobsink_last_seq(const char *path);

#endif
