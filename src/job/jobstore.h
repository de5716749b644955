/*
 * jobstore.h: a job's folder and its record (protocol.md §2): ids, the jobs
 * folder and whether a job's files may be believed, job.json read and
 * written, the processes a record names, and what `calops jobs` shows.
 *
 * Strings returned are owned by the caller unless said otherwise; structs
 * are owned by whoever declared them and released with their _release.
 */
#ifndef CALOPS_JOBSTORE_H
#define CALOPS_JOBSTORE_H

#include "calops.h"

#include <sys/types.h>

#include <jansson.h>

#define JOB_ID_MAX	64		/* characters in an id */

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

/* [A-Za-z0-9._-], 1 to JOB_ID_MAX characters, no leading dot. */
bool	 jobstore_id_valid(const char *id);
/* A readable unique id, YYYYmmdd-HHMMSS-<6 hex> (UTC), into buf. */
void	 jobstore_id_generate(char *buf, size_t len);
/* Who acts, when nobody said (a new string): $CALOPS_ACTOR when it is one
 * plain line (text.h), else user@host, or "uid N" where those are not one
 * plain line: a job's actor, an audit record's. */
char	*jobstore_default_actor(void);
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
	/* Where the tool runs: the workspace `run --cwd` names, as the
	 * host resolves it (protocol.md §2). */
	char		 *cwd;
	/* Who started it (`run --actor`, else user@host there); NULL in a
	 * record from before it was kept. */
	char		 *actor;
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

#endif
