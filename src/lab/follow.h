/*
 * follow.h: following a durable job's event stream on a host from a given
 * event on (share/doc/protocol.md §2): `calops tail --from N --follow -- ID`
 * through a transport, each line parsed (event.h), events handed on in seq
 * order.
 *
 * Delivery.  An event is handed to the consumer only when its seq is above
 * the last one handed over: a repeat is dropped and counted (duplicates), a
 * jump counted as a gap with the number of seqs missing (a job whose
 * events.jsonl lost lines; tail never skips).  Nothing after the end event
 * is.  follow_judge() is that rule, and the only one: the replay of a
 * mirror and the job log's viewer judge their lines with it too, so that
 * no screen shows an event the mirror refused (a lying host's repeat, its
 * seq going back, a chip out of range).
 *
 * Resuming.  The follower keeps no position of its own: the consumer
 * keeps, durably, what it has taken in, and starts again after it.  The
 * console's lab model mirrors every event before applying it and resumes
 * at the mirror's end (labmodel.h); tests/unit/follow_driver.c resumes
 * after the last seq its output file holds.  A position kept apart from
 * what the consumer kept could run ahead of it when the consumer's write
 * failed, and an event would be lost.
 *
 * The caller's loop must deliver SIGCHLD to child_reap() for the local
 * transport (see transport.h).  A struct follow is owned by this module: it
 * lives until its done callback returns or follow_stop() is called.
 */
#ifndef CALOPS_FOLLOW_H
#define CALOPS_FOLLOW_H

#include "calops.h"

#include "proto/event.h"

struct transport;
struct follow;

struct follow_stats {
	int64_t		 last_seq;	/* of the last event handed over */
	uint64_t	 delivered;
	uint64_t	 duplicates;	/* dropped: seq not above last_seq */
	uint64_t	 gaps;		/* jumps over missing seqs */
	uint64_t	 missing;	/* seqs jumped over */
	uint64_t	 bad;		/* lines that were not events */
	uint64_t	 late;		/* dropped: after the end event */
	bool		 ended;		/* the end event was handed over */
};

/* What follow_judge() makes of a line. */
enum follow_verdict {
	FOLLOW_TAKE,		/* the next event: hand it on */
	FOLLOW_BAD,		/* not an event: ev->err says why */
	FOLLOW_REPEAT,		/* its seq is not above the last one taken */
	FOLLOW_LATE,		/* it came after the end event */
};

/*
 * The rule by which every reader of a job's stream takes a line (len
 * bytes, no newline; cut: the reader had to cut it), given what it took
 * before in st (zeroed, or last_seq set to where it starts less one):
 * event.h's rules, then seq order as above.  The line is parsed into *ev
 * and st's counts and last_seq updated as the verdict says.
 */
enum follow_verdict follow_judge(struct follow_stats *st, const char *line,
		    size_t len, bool cut, struct event *ev);

struct follow_ops {
	/* One event, in order; line is its text (borrowed, no newline). */
	void	(*event)(struct follow *, const struct event *ev,
		    const char *line, size_t len, void *arg);
	/* Last: finished when the job's end event was handed over, else err
	 * says why the stream broke. */
	void	(*done)(struct follow *, bool finished, const char *err,
		    void *arg);
};

/* Follow job on t's host from the event numbered from_seq (at least 1).
 * NULL with err. */
struct follow	*follow_start(struct transport *t, const char *job,
		    int64_t from_seq, const struct follow_ops *ops, void *arg,
		    char *err, size_t errlen);
/* Stop following; no more callbacks. */
void		 follow_stop(struct follow *f);
const struct follow_stats *follow_stats(const struct follow *f);

#endif
