/*
 * jobevent.h: a job's events (protocol.md §3) as the supervisor makes them:
 * a tool's line turned into one event, the supervisor's own events, a line
 * of events.jsonl checked, and a stream split into lines.
 *
 * Strings returned are owned by the caller.
 */
#ifndef CALOPS_JOBEVENT_H
#define CALOPS_JOBEVENT_H

#include "calops.h"

#include <jansson.h>

#define JOB_LINE_MAX	(64u << 10)	/* bytes of one tool line kept */
/* bytes of an event line, with its LF */
#define JOB_EVENT_MAX	(64u << 10)

/* Current time as Unix seconds. */
double	 jobevent_now(void);

/*
 * One line the tool wrote (len bytes, no LF; cut when it was longer than it
 * is) as event number seq, a JSON line with its LF, at most JOB_EVENT_MAX
 * bytes; *outlen gets its length.  A JSON object with a string "type" keeps
 * its members in its order but gets v, seq (and ts when it has no number
 * there); the supervisor's own types, hello and end, are not taken from a
 * tool; a tool's ts that is not a time from 1970 to 2100 is replaced by
 * ts and kept as tool_ts.  Anything else becomes a log event at level info
 * (stdout) or warn (stderr) with the text as msg, "truncated": true when
 * cut.
 */
char	*jobevent_from_line(uint64_t seq, double ts, const char *line,
	    size_t len, bool cut, bool from_stderr, size_t *outlen);
/* An event of the supervisor's own (fields is stolen, may be NULL). */
char	*jobevent_make(uint64_t seq, double ts, const char *type,
	    json_t *fields, size_t *outlen);

/*
 * Check one line of events.jsonl: a JSON object with an integer seq >= 1 and
 * a string type.  0 with its seq and whether it is the end event, or -1 with
 * the reason in err.
 */
int	 jobevent_check(const char *line, size_t len, uint64_t *seq,
	    bool *is_end, char *err, size_t errlen);

/* Splits a stream into lines of at most JOB_LINE_MAX bytes; the rest of a
 * longer line is dropped and the line flagged cut. */
struct job_split {
	char	*line;
	size_t	 len;
	bool	 cut;
};

typedef void	(*job_line_fn)(const char *line, size_t len, bool cut,
		    void *arg);

void	 jobevent_split_feed(struct job_split *s, const char *p, size_t n,
	    job_line_fn fn, void *arg);
/* At end of file: a last line without its LF. */
void	 jobevent_split_end(struct job_split *s, job_line_fn fn, void *arg);
void	 jobevent_split_release(struct job_split *s);

#endif
