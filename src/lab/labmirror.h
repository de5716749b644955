/*
 * labmirror.h: a job's mirror, the file every event of its stream is
 * appended to, whole lines, handed over before the model applies it and
 * written before the console paints or sleeps
 * ($XDG_STATE_HOME/calops/streams/<host>/<job>.jsonl, share/doc/json.md
 * §8).  Appending, the lines of one turn of the loop in one write
 * (labmirror_flush), cut back to its last whole line when a write fails;
 * reading it back line by line when the console starts (the replay); where
 * it ends (its last whole line and seq); and taking over one another
 * console wrote.  A leaf: it returns what went wrong and leaves it to the
 * lab model to say and to apply the events.
 *
 * A struct labmirror is the caller's; labmirror_init() readies it and
 * labmirror_release() frees what it holds.  Files are opened as the state
 * folder's are (statedir.h): a symbolic link in a mirror's place, a file
 * that is not a regular one, another user's or writable by others is
 * refused, with its path and the fix (`rm '…'`), and m->refused says so:
 * the lab model then follows the job no more, rather than without a
 * mirror.
 */
#ifndef CALOPS_LABMIRROR_H
#define CALOPS_LABMIRROR_H

#include "calops.h"

#include <sys/types.h>

#include "base/buf.h"

struct lines;

struct labmirror {
	char		*path;		/* owned; NULL: no mirror (no state) */
	int		 fd;		/* open for appending, or -1 */
	off_t		 size;		/* bytes of whole lines in it */
	/* The last seq in it.  The model keeps it equal to the job's last
	 * seq while it writes; a console that watched another's jobs and then
	 * took over may be ahead of it or behind. */
	int64_t		 seq;
	bool		 failed;	/* written no more */
	/* Why the state refuses the file (statedir.h), or NULL (owned). */
	char		*refused;
	/* Lines appended and not yet written: 16 hosts at 200 events a
	 * second are then a few writes a second, not 3,200. */
	struct buf	 pend;
	struct lines	*replay;	/* being read back, or NULL */
	int		 replay_rc;	/* the reader's last answer */
};

/* Ready m for the mirror at path (owned from now; NULL: none). */
void	labmirror_init(struct labmirror *m, char *path);
void	labmirror_release(struct labmirror *m);
/* Open for appending, made when missing; 0 or -1 with err (m->refused
 * set when the file is refused). */
int	labmirror_open(struct labmirror *m, char *err, size_t errlen);
/* Close, the lines held written first if they can be (a caller that must
 * know flushes first). */
void	labmirror_close(struct labmirror *m);
/*
 * Append one event's line: held until labmirror_flush(), which the lab
 * model calls before the loop sleeps (or at once when 64 KiB are held).
 * 0, also when the mirror is written no more; -1 with err when a write
 * failed or fell short: it is undone (the file cut back to its last whole
 * line, what was held dropped) and the mirror written no more until the
 * model adopts it again (labstream.c keep_retry(), once there is room).
 * The events are still the model's to apply: following again from the
 * mirror's end fetches what it lacks from the host.
 */
int	labmirror_append(struct labmirror *m, const char *line, size_t len,
	    char *err, size_t errlen);
/* Write the lines held; 0 or -1 with err, as labmirror_append(). */
int	labmirror_flush(struct labmirror *m, char *err, size_t errlen);
/* Whether lines are held. */
#define labmirror_pending(m)	((m)->pend.len > 0)

/* Whether the mirror's folder has room for more (a mirror that failed
 * on a full disk is tried again once it has). */
bool	labmirror_has_room(const struct labmirror *m);

/* Start reading the mirror back; *mtime is when it was last written.  -1
 * with errno ENOENT when there is none, else -1 with err (m->refused set:
 * it is not read, and nothing is written in its place). */
int	labmirror_replay_open(struct labmirror *m, double *mtime, char *err,
	    size_t errlen);
/* The next whole line (borrowed until the next call), *bad when it cannot
 * be an event (cut at the cap, or holding a NUL).  1 for a line, 0 at the
 * end: then labmirror_replay_end(). */
int	labmirror_replay_next(struct labmirror *m, const char **line,
	    size_t *len, bool *bad);
/*
 * The replay is over: a last line a crash cut short (no LF) is cut off,
 * so that appending starts on a whole line, unless keep_file (a console
 * that only watches); m->size is where the whole lines end.  0, or -1 with
 * err: the file could not be read to its end, or not cut (then it is
 * written no more: appending would glue the next event to the cut line).
 */
int	labmirror_replay_end(struct labmirror *m, bool keep_file, char *err,
	    size_t errlen);
void	labmirror_replay_close(struct labmirror *m);

/* Whether the mirror at path ends with the job's end event. */
bool	labmirror_ended(const char *path);
/* A mirror another console wrote, now the caller's: a last line a crash
 * left is cut off, m->size and m->seq say where it ends.  0; or -1 with
 * err, the mirror then written no more (and m->refused set when the file
 * is refused). */
int	labmirror_adopt(struct labmirror *m, char *err, size_t errlen);

#endif
