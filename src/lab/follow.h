/*
 * follow.h: following a durable job's event stream on a host, resumably
 * (protocol.md §2): `calops tail ID --from N --follow` through a transport,
 * each line parsed (event.h), events handed on in seq order, and the
 * position remembered in $XDG_STATE_HOME/calops/follow.json so that a
 * console restarted after a crash, or reconnected, picks up where it was.
 *
 * Delivery.  An event is handed to the consumer only when its seq is above
 * the last one handed over: a repeat is dropped and counted (duplicates), a
 * jump counted as a gap with the number of seqs missing (a job whose
 * events.jsonl lost lines; tail never skips).
 *
 * Persistence, and why no event is lost or shown twice across a SIGKILL.
 * follow.json is rewritten atomically (temp file, fsync, rename, fsync of
 * the folder) at most every FOLLOW_FLUSH_MS while events arrive, and at once
 * when a stream ends or is stopped — never per event, which would be an
 * fsync per line of a soak.  The seq it records is always one already
 * handed to the consumer, so it is a lower bound of what was shown: resuming
 * at saved + 1 can never skip an event (nothing lost).  What a crash can
 * cost is the events of the last FOLLOW_FLUSH_MS, handed over again; they
 * are removed by the consumer, which keeps what it shows keyed by seq: a
 * consumer whose effects outlive it (a file it appends to, as
 * tests/unit/follow_driver.c does) passes the highest seq it has already
 * made durable as from_seq - 1, the follower taking the larger of that and
 * the saved seq.  Persisting before handing over would instead lose the
 * events of a crash window, which nothing could recover.
 *
 * A consumer that keeps its own durable position uses follow_start_at(),
 * which leaves follow.json alone: the console's lab model mirrors every
 * event before applying it and resumes at the mirror's end (labmodel.h),
 * since follow.json could run ahead of a mirror whose writes failed.
 *
 * The caller's loop must deliver SIGCHLD to child_reap() for the local
 * transport (see transport.h).  A struct follow is owned by this module: it
 * lives until its done callback returns or follow_stop() is called.
 */
#ifndef CALOPS_FOLLOW_H
#define CALOPS_FOLLOW_H

#include "calops.h"

#include "loop/loop.h"
#include "proto/event.h"

#define FOLLOW_FLUSH_MS	250
#define FOLLOW_MAX	1024	/* streams remembered in follow.json */

struct transport;
struct follow;

struct follow_stats {
	int64_t		 last_seq;	/* of the last event handed over */
	uint64_t	 delivered;
	uint64_t	 duplicates;	/* dropped: seq not above last_seq */
	uint64_t	 gaps;		/* jumps over missing seqs */
	uint64_t	 missing;	/* seqs jumped over */
	uint64_t	 bad;		/* lines that were not events */
};

struct follow_ops {
	/* One event, in order; line is its text (borrowed, no newline). */
	void	(*event)(struct follow *, const struct event *ev,
		    const char *line, size_t len, void *arg);
	/* Last: finished when the job's end event was handed over (the
	 * stream is then forgotten), else err says why the stream broke
	 * (it stays remembered, for follow_resume_all). */
	void	(*done)(struct follow *, bool finished, const char *err,
		    void *arg);
};

/*
 * Follow job on t's host from the event numbered from_seq (at least 1),
 * or from the saved position + 1 when that is further.  NULL with err.
 */
struct follow	*follow_start(struct loop *l, struct transport *t,
		    const char *job, int64_t from_seq,
		    const struct follow_ops *ops, void *arg, char *err,
		    size_t errlen);
/*
 * The same from exactly from_seq, for a consumer that keeps its own durable
 * position (the console's mirror, labmodel.h): follow.json is neither read
 * nor written, so it can never be ahead of what the consumer kept.
 */
struct follow	*follow_start_at(struct loop *l, struct transport *t,
		    const char *job, int64_t from_seq,
		    const struct follow_ops *ops, void *arg, char *err,
		    size_t errlen);
/* Stop following (the position is saved and kept); no more callbacks. */
void		 follow_stop(struct follow *f);
const struct follow_stats *follow_stats(const struct follow *f);
const char	*follow_job(const struct follow *f);
const char	*follow_host(const struct follow *f);

/* Restart every remembered stream, transport_for naming the transport of a
 * host (NULL: that host is skipped, its streams kept).  Returns how many
 * were started, or -1 with err when follow.json cannot be read. */
typedef struct transport *(*follow_transport_fn)(const char *host, void *arg);
int		 follow_resume_all(struct loop *l,
		    follow_transport_fn transport_for,
		    const struct follow_ops *ops, void *arg, char *err,
		    size_t errlen);

/* The saved position of a stream: 0 with *last_seq, 1 when there is none,
 * -1 with err. */
int		 follow_saved(const char *host, const char *job,
		    int64_t *last_seq, char *err, size_t errlen);
/* Forget a stream (done for a job's end event); 0 or -1 with err. */
int		 follow_forget(const char *host, const char *job, char *err,
		    size_t errlen);
/* Write follow.json now if it changed; 0 or -1 with err. */
int		 follow_flush(char *err, size_t errlen);
/* $XDG_STATE_HOME/calops/follow.json (~/.local/state when unset); a new
 * string, or NULL when neither XDG_STATE_HOME nor HOME is set. */
char		*follow_state_path(void);

#endif
