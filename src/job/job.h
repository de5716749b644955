/*
 * job.h: durable jobs (protocol.md §2 and §3), the lab side of `calops run`,
 * `tail`, `jobs` and `kill`.
 *
 * A job is a folder <jobs>/<ID>/ holding job.json (the record, replaced
 * atomically), events.jsonl (the event stream, appended a whole line at a
 * time), lock (held with flock(2) by the supervisor for as long as it lives:
 * a job whose record says running while nobody holds its lock is "lost") and
 * supervisor.log (the supervisor's own complaints).  A job is made in a
 * hidden folder and renamed into place, so a folder named like an id always
 * holds a record.
 *
 * The supervisor runs the tool in its own process group, turns every line
 * the tool writes into exactly one event numbered from 1 without gaps, and
 * records the end.  Memory stays bounded whatever the tool writes: a line is
 * kept up to JOB_LINE_MAX bytes, and an event line is at most JOB_EVENT_MAX
 * bytes (a longer one is cut and flagged "truncated").
 *
 * Strings returned are owned by the caller unless said otherwise; structs
 * are owned by whoever declared them and released with their _release.
 */
#ifndef CALOPS_JOB_H
#define CALOPS_JOB_H

#include "calops.h"

#include <sys/types.h>

#include <jansson.h>

#define JOB_ID_MAX	64		/* characters in an id */
#define JOB_LINE_MAX	(64u << 10)	/* bytes of one tool line kept */
/* bytes of an event line, with its LF */
#define JOB_EVENT_MAX	(64u << 10)
/* a longer line in events.jsonl is corrupt */
#define JOB_READ_MAX	(1u << 20)

enum job_state {
	JOB_RUNNING,
	JOB_DONE,		/* the tool exited 0 */
	JOB_FAILED,		/* it exited non-zero, or could not start */
	JOB_KILLED,		/* killed by a signal, or stopped by `kill` */
	JOB_LOST,	/* running, says job.json; its supervisor is gone */
	JOB_CORRUPT,		/* job.json is missing or unreadable */
};

const char	*jobstore_state_name(enum job_state s);
/* How a job's signal is written ("SIGTERM", else "signal 42") into buf. */
void		 jobstore_signal_name(int sig, char *buf, size_t len);

/* --- Ids and folders (jobstore.c) --- */

/* [A-Za-z0-9._-], 1 to JOB_ID_MAX characters, no leading dot. */
bool	 jobstore_id_valid(const char *id);
/* A readable unique id, YYYYmmdd-HHMMSS-<6 hex> (UTC), into buf. */
void	 jobstore_id_generate(char *buf, size_t len);
/* A job's age as `jobs` and the Jobs screen show it: 42s, 3m07s, 5h12m,
 * 2d03h (a negative or absurd age is 0s). */
void	 jobstore_format_age(double secs, char *buf, size_t len);

/*
 * The jobs folder: opt when given, else $CALOPS_JOBS_DIR, else
 * $XDG_STATE_HOME/calops/jobs, else ~/.local/state/calops/jobs.  With create,
 * it is made (mode 0700).  It is refused when it (or the state folder that
 * holds it) is a symbolic link, another user's or writable by others
 * (base/statedir.h).  An absolute path, or the path as named when it does
 * not exist and create is false; NULL with err.
 */
char	*jobstore_root(const char *opt, bool create, char *err, size_t errlen);

/* --- Trust (jobstore.c) --- */

/*
 * Whether the job folder id under root may be believed: a real folder of
 * the user's that neither its group nor others may write, and job.json,
 * events.jsonl, lock and supervisor.log in it, where they exist, regular
 * files of the user's closed to others' writes (base/statedir.h): another
 * user could otherwise plant a job with a forged end, or a record whose
 * pids `kill` would signal.  0, or -1 with err naming the path and the fix
 * (errno ENOENT when there is no such folder).  jobstore_look() asks it
 * first; a reader that opens a job's files by path should too.
 */
int	 jobstore_check(const char *root, const char *id, char *err,
	    size_t errlen);

/* --- The record, job.json (jobstore.c) --- */

struct job_record {
	char		 *id;
	char		**argv;		/* NULL-terminated */
	char		 *cwd;
	double		  started;	/* Unix seconds */
	double		  ended;	/* 0 while running */
	long		  pid;		/* the tool's; 0 before it started */
	long		  supervisor_pid;
	enum job_state	  state;	/* RUNNING, DONE, FAILED or KILLED */
	int		  exit_code;	/* -1 when none */
	int		  signal;	/* 0 when none */
	uint64_t	  lost;		/* lines lost (gap events), in all */
	/* The tool's pid and when it started (jobstore_pid_start()), so that
	 * the pid of a lost job is not taken for another process's. */
	char		  pid_start[64];
	char		  supervisor_start[64];	/* of supervisor_pid */
};

void	 jobstore_record_release(struct job_record *r);
/* As JSON (new reference). */
json_t	*jobstore_record_json(const struct job_record *r);
/* Parse job.json's text into r (zeroed first); -1 with the reason in err
 * (r then holds nothing to release). */
int	 jobstore_record_parse(struct job_record *r, const char *text,
	    size_t len,
	    char *err, size_t errlen);
/* Read <dir>/job.json; -1 with err (ENOENT in errno when it is missing). */
int	 jobstore_record_read(struct job_record *r, const char *dir, char *err,
	    size_t errlen);
/* Replace job.json in the folder dirfd atomically (a temp file, or for a
 * record that is no longer running the one kept by
 * jobstore_record_reserve(); fsync, rename, fsync of the folder); -1 with
 * err. */
int	 jobstore_record_write(const struct job_record *r, int dirfd, char *err,
	    size_t errlen);

/*
 * Keep bytes of disk for the job's last record, so that it is written on a
 * full disk too: a file of that size that jobstore_record_write() fills
 * and renames over job.json once the job has ended.  -1 with err when
 * there is no space.
 */
int	 jobstore_record_reserve(int dirfd, size_t bytes, char *err,
	    size_t errlen);

/*
 * Who process pid is, for as long as it lives: the boot's id and the start
 * time of the process (clock ticks since boot, /proc/PID/stat), as
 * "BOOT_ID:TICKS" in buf.  -1 when it does not exist (or /proc says
 * nothing).
 */
int	 jobstore_pid_start(long pid, char *buf, size_t len);
/* The state letter of process pid (R, S, Z...) and its process group in
 * *pgrp, from /proc/PID/stat; 0 when there is no such process. */
char	 jobstore_proc_state(long pid, long *pgrp);

/* Whether somebody (the supervisor) holds the lock of the job folder. */
bool	 jobstore_supervisor_alive(const char *dir);

/*
 * What `calops jobs` shows of job id under root: the record's state, or
 * JOB_LOST, or JOB_CORRUPT with the reason in err (r then empty; a job
 * jobstore_check() refuses is corrupt).  Returns -1 when there is no such
 * job.  The caller releases r.
 */
int	 jobstore_look(const char *root, const char *id, struct job_record *r,
	    char *err, size_t errlen);

/* The names of the job folders under root, sorted (NULL-terminated, free
 * each and the array); an empty list when root does not exist.  NULL with
 * err when it cannot be read. */
char	**jobstore_list(const char *root, char *err, size_t errlen);

/* --- Events (jobevent.c) --- */

/* Current time as Unix seconds. */
double	 jobevent_now(void);

/*
 * The len bytes at s made valid UTF-8: kept as they are, except that bytes
 * that are not UTF-8, and NUL, become the text \xHH (as text_json does).
 * New string.
 */
char	*jobevent_utf8_escape(const char *s, size_t len);

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
 * JOB_SINK_WAIT_MAX bytes), until jobevent_sink_flush() finds space again.
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
int	 jobevent_sink_open(struct job_sink *k, int dirfd, const char *name,
	    char *err, size_t errlen);
/*
 * Open an ended supervisor's events file to append to it: a torn last line
 * (its writer died in the middle) is cut off, and numbering goes on from
 * the last event's seq.  0, 1 when that event is the end already, or -1
 * with err.
 */
int	 jobevent_sink_resume(struct job_sink *k, int dirfd, const char *name,
	    char *err, size_t errlen);
/* Drop what still waits (counted lost), give back what was allocated ahead
 * and close. */
void	 jobevent_sink_close(struct job_sink *k);
/* Append one tool line: 0 when written, 1 when it waits or was dropped
 * (the sink is stalled). */
int	 jobevent_sink_line(struct job_sink *k, const char *line, size_t len,
	    bool cut, bool from_stderr);
/* Write what waits: 0 when nothing waits any more, 1 when still stalled. */
int	 jobevent_sink_flush(struct job_sink *k);
/*
 * An event of the supervisor's own (fields stolen, may be NULL), written at
 * once and from the tail if need be: lines still waiting are counted in a
 * gap before it (an own event comes at the start or the end of a job).  0,
 * or -1 with errno.
 */
int	 jobevent_sink_event(struct job_sink *k, const char *type,
	    json_t *fields);
/*
 * When the supervisor of the events file at path last said it could not
 * write (its last line is a stalled event): that event's since,
 * with its reason ("disk full") in why; 0 when it is writing (or the file
 * says nothing).
 */
double	 jobevent_stalled_since(const char *path, char *why, size_t whylen);

/*
 * Reads events.jsonl as it grows: only complete lines (a last line still
 * being written waits for its LF); a line over JOB_READ_MAX is skipped.
 */
struct job_reader {
	int		 fd;
	char		*buf;
	size_t		 start, len, alloc;
	size_t		 lineno;	/* of the line last returned */
	bool		 skipping;	/* inside an over-long line */
};

int	 jobevent_reader_open(struct job_reader *r, const char *path);
void	 jobevent_reader_close(struct job_reader *r);
/*
 * Move to the last line whose seq is below from, by bisection when the file
 * is large (its seqs increase); line numbers then count from that seq.
 */
void	 jobevent_reader_seek(struct job_reader *r, uint64_t from);
/* 1 with a line (borrowed until the next call, NUL-terminated, no LF), 2
 * when an over-long line was skipped, 0 when no complete line is there yet,
 * -1 on a read error (errno). */
int	 jobevent_reader_next(struct job_reader *r, const char **line,
	    size_t *len);

/* --- The supervisor (job.c) --- */

struct job_spec {
	const char	 *root;		/* the jobs folder, made already */
	const char	 *id;		/* NULL: generate one */
	char *const	 *argv;		/* the tool and its arguments */
	const char	 *version;	/* for the hello event */
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
